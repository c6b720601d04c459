//! A relay in front of an upstream that keeps the W3C `traceparent` of every request passing
//! through it (or that there was none), so a test can say what the server sent upstream.
//! Listens on 127.0.0.1 only.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;

use crate::proxy::{relayed, with_end_to_end};

/// The relay: each request's `traceparent`, `None` where it had none.
#[derive(Clone)]
pub struct Tap {
    pub addr: SocketAddr,
    seen: Arc<Mutex<Vec<Option<String>>>>,
}

struct Relay {
    target: SocketAddr,
    seen: Arc<Mutex<Vec<Option<String>>>>,
    http: reqwest::Client,
}

impl Tap {
    /// Relays every request to `target`.
    pub async fn start(target: SocketAddr) -> Tap {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let relay = Arc::new(Relay {
            target,
            seen: seen.clone(),
            http: reqwest::Client::new(),
        });
        let app = axum::Router::new()
            .fallback(forward)
            .layer(DefaultBodyLimit::disable())
            .with_state(relay);
        let addr = crate::serve_on_loopback(app).await;
        Tap { addr, seen }
    }

    /// The `traceparent` of each request so far, in order.
    pub fn traceparents(&self) -> Vec<Option<String>> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

async fn forward(
    State(relay): State<Arc<Relay>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let traceparent = headers
        .get("traceparent")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    relay
        .seen
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(traceparent);
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let request = relay
        .http
        .request(method, format!("http://{}{path}", relay.target))
        .body(body);
    relayed(with_end_to_end(request, &headers, &["host"])).await
}
