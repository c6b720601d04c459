//! A small OTLP/HTTP trace receiver on 127.0.0.1: `POST /v1/traces` with a protobuf
//! `ExportTraceServiceRequest`, decoded with the types `opentelemetry-proto` builds from the
//! published OTLP protobuf definitions (not with the exporter's own code), and kept as plain
//! [`Span`]s a test can assert a span tree on.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use prost::Message;

/// One received span: ids in hex as W3C writes them, attributes as text.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    pub name: String,
    pub attributes: BTreeMap<String, String>,
    /// The service that sent it (`service.name` of its resource).
    pub service: String,
}

impl Span {
    /// An attribute's text, `""` when absent.
    pub fn attr(&self, key: &str) -> &str {
        self.attributes.get(key).map_or("", String::as_str)
    }
}

/// The receiver: what it was sent so far.
#[derive(Clone, Default)]
pub struct Receiver {
    spans: Arc<Mutex<Vec<Span>>>,
    /// Exports that were not `application/x-protobuf` or did not decode.
    refused: Arc<Mutex<u32>>,
}

impl Receiver {
    /// Listens on a free loopback port; the base URL to give `MCP_OTLP_ENDPOINT`.
    pub async fn start() -> (Receiver, String) {
        let receiver = Receiver::default();
        let app = Router::new()
            .route("/v1/traces", post(export))
            .with_state(receiver.clone());
        let addr: SocketAddr = crate::serve_on_loopback(app).await;
        (receiver, format!("http://{addr}"))
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<Span> {
        self.spans.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// How many exports could not be read.
    pub fn refused(&self) -> u32 {
        *self.refused.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The spans of the trace that holds a span satisfying `pick`, once that trace holds at
    /// least `at_least` spans and its `request` span. The exporter sends finished spans in
    /// batches, in the order they ended, and a request's own span ends after all of its
    /// children: a trace without it may still be missing some.
    pub async fn trace_with(&self, at_least: usize, pick: impl Fn(&Span) -> bool) -> Vec<Span> {
        crate::eventually("the trace's spans", Duration::from_secs(10), || {
            let spans = self.spans();
            let found = spans.iter().find(|s| pick(s)).map(|s| s.trace_id.clone());
            let trace: Vec<Span> = match found {
                Some(id) => spans.into_iter().filter(|s| s.trace_id == id).collect(),
                None => Vec::new(),
            };
            let whole = trace.len() >= at_least && trace.iter().any(|s| s.name == "request");
            std::future::ready(whole.then_some(trace))
        })
        .await
    }
}

/// The children of `parent` in `trace`, by name, in the order they were received.
pub fn children<'a>(trace: &'a [Span], parent: &Span) -> Vec<&'a Span> {
    trace
        .iter()
        .filter(|s| s.parent_span_id == parent.span_id)
        .collect()
}

/// The one span named `name` in `trace`.
pub fn named<'a>(trace: &'a [Span], name: &str) -> &'a Span {
    let found: Vec<&Span> = trace.iter().filter(|s| s.name == name).collect();
    assert_eq!(found.len(), 1, "one {name} span in {trace:#?}");
    found[0]
}

async fn export(State(receiver): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let protobuf = headers
        .get("content-type")
        .is_some_and(|c| c.as_bytes() == b"application/x-protobuf");
    let decoded = ExportTraceServiceRequest::decode(body);
    let Some(request) = decoded.ok().filter(|_| protobuf) else {
        *receiver.refused.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        return StatusCode::BAD_REQUEST;
    };
    let spans = plain(request);
    receiver
        .spans
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(spans);
    // An empty `ExportTraceServiceResponse` is zero bytes of protobuf.
    StatusCode::OK
}

/// The request's spans as plain values.
fn plain(request: ExportTraceServiceRequest) -> Vec<Span> {
    let mut out = Vec::new();
    for resource_spans in request.resource_spans {
        let resource = resource_spans.resource.map(|r| text_of(r.attributes));
        let service = resource
            .and_then(|mut r| r.remove("service.name"))
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                out.push(Span {
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_span_id: hex(&span.parent_span_id),
                    name: span.name,
                    attributes: text_of(span.attributes),
                    service: service.clone(),
                });
            }
        }
    }
    out
}

fn text_of(
    attributes: Vec<opentelemetry_proto::tonic::common::v1::KeyValue>,
) -> BTreeMap<String, String> {
    attributes
        .into_iter()
        .map(|kv| {
            let value = match kv.value.and_then(|v| v.value) {
                Some(Any::StringValue(s)) => s,
                Some(Any::IntValue(i)) => i.to_string(),
                Some(Any::BoolValue(b)) => b.to_string(),
                Some(Any::DoubleValue(d)) => d.to_string(),
                other => format!("{other:?}"),
            };
            (kv.key, value)
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
