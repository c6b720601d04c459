//! OpenTelemetry traces, on only when `MCP_OTLP_ENDPOINT` is set: the spans with target
//! [`audit::SPAN_TARGET`] (the request, the limits, a `tools/call`, each pipeline stage, each
//! upstream, remote MCP, vault and limits-table request) exported as OTLP over HTTP/protobuf to
//! a collector (on Lambda the AWS Distro for OpenTelemetry layer's, on `localhost:4318`),
//! sampled by `MCP_TRACE_SAMPLE_RATIO` unless the client's `traceparent` decided (parent-based).
//!
//! Off, there is no exporter and no layer: no subscriber takes an interest in those spans, so
//! each costs one cached callsite check and the audit line carries no `trace_id`.
//!
//! Spans carry what an operator filters by (connector, tool, risk, status, the upstream's HTTP
//! status, the caller's key id and pseudonym, the profile) and nothing personal: no argument,
//! no address, no token, no path a client chose (`request`'s `route` is one of ours).
//! docs/traces.md lists them.

mod export;
mod ids;
mod propagate;

use std::sync::OnceLock;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{LevelFilter, Targets};

pub(crate) use propagate::{accept, inject, trace_id};

/// The name the traces give this service.
const SERVICE: &str = "mcp-server";

/// The provider, kept so that Lambda mode can flush the finished spans before the instance is
/// frozen (the exporter's own thread would send them only at the next invocation).
static PROVIDER: OnceLock<SdkTracerProvider> = OnceLock::new();

/// Where traces go, and which share of the traces that start here is kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Traces {
    /// The collector's OTLP/HTTP base URL (`http://localhost:4318`); spans go to `/v1/traces`.
    pub endpoint: String,
    /// 0 to 1: the share of new traces sampled (a client's sampled `traceparent` is followed).
    pub sample_ratio: f64,
}

/// Why traces could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("traces need the Tokio runtime to export from")]
    NoRuntime(#[from] tokio::runtime::TryCurrentError),
    #[error("the OTLP exporter: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
}

/// The layer that exports the trace spans, `None` when traces are off. Call it once, in the
/// Tokio runtime, before the subscriber is set (`audit::init_tracing_with`).
pub(crate) fn layer(traces: Option<&Traces>) -> Result<Option<audit::SpanLayer>, TelemetryError> {
    let Some(traces) = traces else {
        return Ok(None);
    };
    let client = export::Exporter {
        client: crate::http_client(),
        runtime: tokio::runtime::Handle::try_current()?,
    };
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(client)
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(format!(
            "{}/v1/traces",
            traces.endpoint.trim_end_matches('/')
        ))
        .build()?;
    let ratio = Sampler::TraceIdRatioBased(traces.sample_ratio);
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_sampler(Sampler::ParentBased(Box::new(ratio)))
        .with_id_generator(ids::XrayIds::default())
        .with_resource(Resource::builder().with_service_name(SERVICE).build())
        .build();
    let tracer = provider.tracer(SERVICE);
    let _ = PROVIDER.set(provider);
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_level(false)
        .with_tracked_inactivity(false)
        .with_filter(Targets::new().with_target(audit::SPAN_TARGET, LevelFilter::TRACE));
    Ok(Some(Box::new(layer)))
}

/// Sends the finished spans now (Lambda mode, at the end of each request); nothing when
/// traces are off.
pub(crate) async fn flush() {
    if let Some(provider) = PROVIDER.get() {
        let provider = provider.clone();
        if let Ok(Err(e)) = tokio::task::spawn_blocking(move || provider.force_flush()).await {
            tracing::warn!(error = %e, "traces: the spans could not be flushed");
        }
    }
}

/// The span of the request a call belongs to (disabled when traces are off): the parent of the
/// spans the MCP adapter starts, which runs apart from the edge's task.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestSpan(pub tracing::Span);

impl Default for RequestSpan {
    fn default() -> Self {
        RequestSpan(tracing::Span::none())
    }
}

/// A pipeline stage's span, named after the stage (`stage` carries the name too).
pub(crate) fn stage(name: &'static str) -> tracing::Span {
    tracing::info_span!(target: audit::SPAN_TARGET, "stage", otel.name = name, stage = name)
}

/// A request to one of our tables: `store` is `limits_table` or `vault` (the span's name),
/// `operation` DynamoDB's (`TransactWriteItems`).
pub(crate) fn table(store: &'static str, operation: &'static str) -> tracing::Span {
    tracing::info_span!(
        target: audit::SPAN_TARGET,
        "table",
        otel.name = store,
        otel.kind = "client",
        db.system.name = "aws.dynamodb",
        db.operation.name = operation,
    )
}
