//! Calls the sandbox in-process with `oneshot`, no sockets.
#![allow(dead_code)] // each test crate uses a different subset

use axum::body::{Body, to_bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode};
use papierkram_sandbox::{SandboxState, router};
use rust_decimal::Decimal;
use serde_json::Value;
use tower::ServiceExt;

pub(crate) const TOKEN: &str = "test-token";

pub(crate) struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub(crate) fn ids(&self) -> Vec<u64> {
        self.body["entries"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|e| e["id"].as_u64().unwrap())
            .collect()
    }
}

pub(crate) fn state() -> SandboxState {
    SandboxState::new(TOKEN)
}

pub(crate) async fn send(
    state: &SandboxState,
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> Reply {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    let request = request
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_owned())))
        .unwrap();
    let response = router(state.clone()).oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = to_bytes(response.into_body(), 16 << 20).await.unwrap();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).expect("JSON body")
    };
    Reply {
        status,
        headers,
        body,
    }
}

/// An authorised GET.
pub(crate) async fn get(state: &SandboxState, uri: &str) -> Reply {
    send(state, Method::GET, uri, Some(TOKEN), None).await
}

/// An authorised write with a JSON body (`""` sends none).
pub(crate) async fn write(state: &SandboxState, method: Method, uri: &str, body: &str) -> Reply {
    let body = (!body.is_empty()).then_some(body);
    send(state, method, uri, Some(TOKEN), body).await
}

pub(crate) async fn post(state: &SandboxState, uri: &str, body: &str) -> Reply {
    write(state, Method::POST, uri, body).await
}

pub(crate) async fn put(state: &SandboxState, uri: &str, body: &str) -> Reply {
    write(state, Method::PUT, uri, body).await
}

pub(crate) async fn delete(state: &SandboxState, uri: &str) -> Reply {
    write(state, Method::DELETE, uri, "").await
}

/// Asserts the upstream error envelope with this status and returns its message.
pub(crate) fn error_message(reply: &Reply, status: StatusCode) -> String {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(reply.body["type"], "error", "{}", reply.body);
    assert_eq!(
        reply.body["correlation_id"].as_str(),
        reply.header("x-request-id")
    );
    reply.body["message"].as_str().unwrap().to_owned()
}

/// Every entry of a list endpoint, following `has_more`.
pub(crate) async fn all_pages(state: &SandboxState, uri: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for page in 1.. {
        let sep = if uri.contains('?') { '&' } else { '?' };
        let reply = get(state, &format!("{uri}{sep}page={page}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{uri}: {}", reply.body);
        out.extend(reply.body["entries"].as_array().unwrap().iter().cloned());
        if !reply.body["has_more"].as_bool().unwrap() {
            break;
        }
    }
    out
}

/// A wire amount (JSON number or string) as an exact decimal.
pub(crate) fn money(v: &Value) -> Decimal {
    match v {
        Value::Number(n) => n.to_string().parse().unwrap(),
        Value::String(s) => s.parse().unwrap(),
        other => panic!("not an amount: {other}"),
    }
}
