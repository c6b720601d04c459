//! An HTTP relay in front of an AWS API emulator that counts the calls passing through it (by
//! their `X-Amz-Target` header), so a test can say how many store requests a tool call cost.
//!
//! It also passes one request at a time, as DynamoDB serializes the writes to one item: moto
//! serves requests on threads without locking an item, so under load its conditional updates
//! would now and then pass a condition they should fail. Behind the relay they cannot, and a
//! limit held under load is held exactly.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::sync::Mutex;

pub struct CountingProxy {
    pub addr: SocketAddr,
    count: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

struct Relay {
    target: SocketAddr,
    operation: String,
    count: Arc<AtomicU64>,
    http: reqwest::Client,
    one_at_a_time: Mutex<()>,
}

impl CountingProxy {
    /// Relays every request to `target`, counting those whose `X-Amz-Target` starts with
    /// `operation` (`DynamoDB_20120810.UpdateItem`, or `DynamoDB_20120810.` for every call).
    pub async fn start(target: SocketAddr, operation: &str) -> CountingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let count = Arc::new(AtomicU64::new(0));
        let relay = Arc::new(Relay {
            target,
            operation: operation.to_string(),
            count: count.clone(),
            http: reqwest::Client::new(),
            one_at_a_time: Mutex::new(()),
        });
        let app = axum::Router::new()
            .fallback(forward)
            .layer(DefaultBodyLimit::disable())
            .with_state(relay);
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        CountingProxy { addr, count, task }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Requests of the operation seen so far.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}

impl Drop for CountingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Headers that describe one hop, not the request: each side sets its own.
const HOP: [&str; 4] = [
    "connection",
    "content-length",
    "transfer-encoding",
    "keep-alive",
];

/// `request` with the end-to-end headers of `headers`: not the hop-by-hop ones, nor those
/// named in `also_skip` (Prism's relay sets its own `host`; the emulator's keeps the signed one).
pub(crate) fn with_end_to_end(
    mut request: reqwest::RequestBuilder,
    headers: &HeaderMap,
    also_skip: &[&str],
) -> reqwest::RequestBuilder {
    for (name, value) in headers {
        if !HOP.contains(&name.as_str()) && !also_skip.contains(&name.as_str()) {
            request = request.header(name, value);
        }
    }
    request
}

/// Sends `request` and passes its answer back as a relay's response (status, end-to-end
/// headers, body); a target that does not answer is a 502.
pub(crate) async fn relayed(request: reqwest::RequestBuilder) -> Response {
    let answer = match request.send().await {
        Ok(answer) => answer,
        Err(e) => return (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    };
    let status = answer.status();
    let mut out = HeaderMap::new();
    for (name, value) in answer.headers() {
        if !HOP.contains(&name.as_str()) {
            out.append(name, value.clone());
        }
    }
    match answer.bytes().await {
        Ok(bytes) => (status, out, bytes).into_response(),
        Err(e) => (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    }
}

async fn forward(
    State(relay): State<Arc<Relay>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if headers
        .get("x-amz-target")
        .is_some_and(|t| t.as_bytes().starts_with(relay.operation.as_bytes()))
    {
        relay.count.fetch_add(1, Ordering::Relaxed);
    }
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let request = relay
        .http
        .request(method, format!("http://{}{path}", relay.target))
        .body(body);
    let request = with_end_to_end(request, &headers, &[]);
    let _turn = relay.one_at_a_time.lock().await;
    // The emulator down (a test stopped it) is a gateway error for the client.
    relayed(request).await
}
