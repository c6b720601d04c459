//! Two wire habits Microsoft Graph needs, declared and proved against a fake upstream: an
//! argument that goes up inside a tool header (`Prefer: outlook.timezone="{time_zone}"`, an
//! `in: header` param; no header without a value), and a document behind a redirect to a
//! pre-authenticated download URL (`answer.binary.redirect`), fetched without our credentials.

use std::sync::{Arc, Mutex};

use crate::common::{app_with, connector_secrets, serve_fake_upstream, tool_result as call};
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, Request, StatusCode, header};
use serde_json::json;

const TOKEN: &str = "tok-SECRET-0077";

/// The requests the fake saw: path and headers.
type Seen = Arc<Mutex<Vec<(String, HeaderMap)>>>;

/// `/v1/events` answers JSON; `/v1/files/1/content` a 302 to `/download/1`, which answers the
/// bytes; `/v1/files/2/content` a 302 to a plain-http foreign host.
async fn fake(State(seen): State<Seen>, request: Request<axum::body::Body>) -> Response {
    let path = request.uri().path().to_string();
    let host = request.headers()[header::HOST]
        .to_str()
        .unwrap()
        .to_string();
    seen.lock()
        .unwrap()
        .push((path.clone(), request.headers().clone()));
    match path.as_str() {
        "/v1/files/1/content" => {
            let location = format!("http://{host}/download/1");
            (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
        }
        "/v1/files/2/content" => {
            let location = "http://downloads.example/2".to_string();
            (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
        }
        "/download/1" => {
            ([(header::CONTENT_TYPE, "application/pdf")], "%PDF-1.4 one").into_response()
        }
        _ => axum::Json(json!({"value": []})).into_response(),
    }
}

fn app(addr: std::net::SocketAddr) -> crate::common::TestApp {
    let text = r#"connector: graph
base_url: "http://{host}/v1"
secrets: [host, token]
auth: { bearer: token }
tools:
  - name: graph_events_get
    risk: low
    description: 'Events in a zone. Example: {"time_zone": "Europe/Berlin"}'
    get: /events
    headers: { Prefer: "outlook.timezone=\"{time_zone}\"", X-Fixed: a }
    params:
      time_zone: { type: time_zone, in: header }
  - name: graph_file_content_get
    risk: low
    description: 'A file. Example: {"id": "1"}'
    get: /files/{id}/content
    answer: { binary: { mime: [application/pdf], max_bytes: 1024, redirect: true } }
    params:
      id: { type: string, in: path, max_length: 10 }
"#;
    let catalog = catalog::parse("graph.yaml", text).unwrap_or_else(|e| panic!("{e}"));
    let host = addr.to_string();
    let fields = [("host", host.as_str()), ("token", TOKEN)];
    app_with(&[], vec![catalog], connector_secrets("graph", &fields))
}

#[tokio::test]
async fn a_header_param_goes_up_in_its_header_and_only_with_a_value() {
    let seen = Seen::default();
    let router = Router::new().fallback(fake).with_state(seen.clone());
    let app = app(serve_fake_upstream(router).await);
    let zoned = call(
        &app,
        "graph_events_get",
        json!({"time_zone": "Europe/Berlin"}),
    )
    .await;
    assert_eq!(zoned["status"], "ok", "{zoned}");
    let bare = call(&app, "graph_events_get", json!({})).await;
    assert_eq!(bare["status"], "ok", "{bare}");
    let bad = call(
        &app,
        "graph_events_get",
        json!({"time_zone": "Berlin\r\nX-Evil: 1"}),
    )
    .await;
    assert_eq!(bad["status"], "invalid_input", "{bad}");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "the bad zone was refused before sending");
    let prefer = |i: usize| {
        seen[i]
            .1
            .get("prefer")
            .map(|v| v.to_str().unwrap().to_string())
    };
    assert_eq!(
        prefer(0).as_deref(),
        Some("outlook.timezone=\"Europe/Berlin\"")
    );
    assert_eq!(prefer(1), None, "no zone, no header");
    assert_eq!(seen[1].1["x-fixed"], "a");
    assert_eq!(seen[0].0, "/v1/events", "the param is not in the query");
}

#[tokio::test]
async fn a_document_behind_a_redirect_is_fetched_once_without_our_credentials() {
    let seen = Seen::default();
    let router = Router::new().fallback(fake).with_state(seen.clone());
    let app = app(serve_fake_upstream(router).await);
    let file = call(&app, "graph_file_content_get", json!({"id": "1"})).await;
    assert_eq!(file["status"], "ok", "{file}");
    assert_eq!(file["document"]["mime_type"], "application/pdf", "{file}");
    assert_eq!(file["document"]["size_bytes"], 12, "{file}");
    let requests = seen.lock().unwrap().clone();
    let paths: Vec<&str> = requests.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["/v1/files/1/content", "/download/1"]);
    assert_eq!(requests[0].1["authorization"], format!("Bearer {TOKEN}"));
    assert!(
        requests[1].1.get("authorization").is_none(),
        "no credentials at the download"
    );
    // A download URL over plain http to another host is not followed: the 302 stays an error.
    let foreign = call(&app, "graph_file_content_get", json!({"id": "2"})).await;
    assert_ne!(foreign["status"], "ok", "{foreign}");
    assert_eq!(
        seen.lock().unwrap().len(),
        3,
        "nothing sent to the foreign host"
    );
}
