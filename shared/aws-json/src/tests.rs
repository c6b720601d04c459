//! The client against a local endpoint that answers as AWS does and records what it was sent.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_config::{Region, SdkConfig};
use aws_credential_types::Credentials;
use aws_credential_types::provider::SharedCredentialsProvider;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::{AwsError, AwsJson, CLOUDWATCH_LOGS, Retry, SESV2};

/// What the endpoint received, and the answers it gives in order (the last repeats).
#[derive(Default)]
struct Seen {
    requests: Vec<(String, HeaderMap, Value)>,
    answers: Vec<(u16, Option<&'static str>, Value)>,
}

type Shared = Arc<Mutex<Seen>>;

async fn answer(
    State(seen): State<Shared>,
    method: axum::http::Method,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut seen = seen.lock().unwrap();
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    seen.requests
        .push((format!("{method} {uri}"), headers, body));
    let i = (seen.requests.len() - 1).min(seen.answers.len() - 1);
    let (status, error_type, json) = seen.answers[i].clone();
    let mut response = (StatusCode::from_u16(status).unwrap(), json.to_string()).into_response();
    if let Some(t) = error_type {
        response
            .headers_mut()
            .insert("x-amzn-errortype", t.parse().unwrap());
    }
    response
}

async fn endpoint(answers: Vec<(u16, Option<&'static str>, Value)>) -> (String, Shared) {
    let seen: Shared = Arc::new(Mutex::new(Seen {
        answers,
        ..Seen::default()
    }));
    let app = Router::new().fallback(answer).with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

fn client(service: crate::Service, url: &str) -> AwsJson {
    let sdk = SdkConfig::builder()
        .region(Region::new("eu-central-1"))
        .credentials_provider(SharedCredentialsProvider::new(Credentials::new(
            "AKIDTEST", "secret", None, None, "test",
        )))
        .endpoint_url(url)
        .build();
    AwsJson::new(&sdk, service, reqwest::Client::new(), |_| None)
        .unwrap()
        .with_retry(Retry {
            attempts: 3,
            first_wait: Duration::from_millis(1),
        })
}

#[tokio::test]
async fn a_json11_call_is_signed_for_its_service_and_region_and_names_its_target() {
    let (url, seen) = endpoint(vec![(200, None, json!({"queryId": "q-1"}))]).await;
    let logs = client(CLOUDWATCH_LOGS, &url);
    let out = logs
        .json11(
            "Logs_20140328",
            "StartQuery",
            &json!({"queryString": "fields @message"}),
        )
        .await
        .unwrap();
    assert_eq!(out, json!({"queryId": "q-1"}));
    let seen = seen.lock().unwrap();
    let (line, headers, body) = &seen.requests[0];
    assert_eq!(line, "POST /");
    assert_eq!(body, &json!({"queryString": "fields @message"}));
    assert_eq!(headers["x-amz-target"], "Logs_20140328.StartQuery");
    assert_eq!(headers["content-type"], "application/x-amz-json-1.1");
    let auth = headers["authorization"].to_str().unwrap();
    assert!(
        auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDTEST/"),
        "{auth}"
    );
    assert!(auth.contains("/eu-central-1/logs/aws4_request"), "{auth}");
    assert!(
        auth.contains("x-amz-target"),
        "the target is signed: {auth}"
    );
    assert!(headers.contains_key("x-amz-date"));
}

#[tokio::test]
async fn throttling_is_tried_again_and_a_refusal_is_not() {
    let throttled = json!({"__type": "ThrottlingException", "message": "Rate exceeded"});
    let (url, seen) = endpoint(vec![
        (400, None, throttled.clone()),
        (400, None, throttled),
        (200, None, json!({"MessageId": "m-1"})),
    ])
    .await;
    let ses = client(SESV2, &url);
    let out = ses
        .rest(
            "SendEmail",
            http::Method::POST,
            "/v2/email/outbound-emails",
            &json!({}),
        )
        .await
        .unwrap();
    assert_eq!(out["MessageId"], "m-1");
    assert_eq!(seen.lock().unwrap().requests.len(), 3);
    let auth = seen.lock().unwrap().requests[2].1["authorization"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(auth.contains("/eu-central-1/ses/aws4_request"), "{auth}");

    let rejected = json!({"message": "Email address is not verified."});
    let (url, seen) = endpoint(vec![(
        400,
        Some("MessageRejected:http://internal/"),
        rejected,
    )])
    .await;
    let err = client(SESV2, &url)
        .rest(
            "SendEmail",
            http::Method::POST,
            "/v2/email/outbound-emails",
            &json!({}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err,
        AwsError::Api {
            operation: "SendEmail".into(),
            status: 400,
            code: "MessageRejected".into(),
            message: "Email address is not verified.".into(),
        }
    );
    assert_eq!(seen.lock().unwrap().requests.len(), 1);
}

#[tokio::test]
async fn a_service_that_keeps_failing_fails_after_the_last_attempt_and_no_answer_is_an_error() {
    let (url, seen) = endpoint(vec![(503, None, json!({"message": "busy"}))]).await;
    let err = client(CLOUDWATCH_LOGS, &url)
        .json11("Logs_20140328", "GetQueryResults", &json!({}))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("Http503"));
    assert_eq!(seen.lock().unwrap().requests.len(), 3);

    // Nothing listens there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let err = client(CLOUDWATCH_LOGS, &closed)
        .json11("Logs_20140328", "StopQuery", &json!({}))
        .await
        .unwrap_err();
    assert!(matches!(err, AwsError::Transport { .. }), "{err:?}");
}
