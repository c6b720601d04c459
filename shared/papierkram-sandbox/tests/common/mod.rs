//! Calls the sandbox in-process with `oneshot`, no sockets.
#![allow(dead_code)] // each test crate uses a different subset

use axum::body::{Body, to_bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode};
use papierkram_sandbox::{SandboxState, router};
use rust_decimal::Decimal;
use serde_json::Value;
use tower::ServiceExt;

pub const TOKEN: &str = "test-token";

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn ids(&self) -> Vec<u64> {
        self.body["entries"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|e| e["id"].as_u64().unwrap())
            .collect()
    }
}

pub fn state() -> SandboxState {
    SandboxState::new(TOKEN)
}

pub async fn send(
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
pub async fn get(state: &SandboxState, uri: &str) -> Reply {
    send(state, Method::GET, uri, Some(TOKEN), None).await
}

/// Every entry of a list endpoint, following `has_more`.
pub async fn all_pages(state: &SandboxState, uri: &str) -> Vec<Value> {
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
pub fn money(v: &Value) -> Decimal {
    match v {
        Value::Number(n) => n.to_string().parse().unwrap(),
        Value::String(s) => s.parse().unwrap(),
        other => panic!("not an amount: {other}"),
    }
}
