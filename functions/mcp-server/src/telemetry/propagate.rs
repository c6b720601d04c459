//! W3C Trace Context at our edges: a client's `traceparent` becomes the parent of the request's
//! span, and the current span's context goes upstream to a connector that allows it
//! (`trace_context: true` in its catalog). The trace id rides on the audit line.

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry_http::{HeaderExtractor, HeaderInjector};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// Makes the client's `traceparent` (and `tracestate`), when valid, the parent of `span`, a
/// span just created. Nothing happens when traces are off (`span` is disabled).
pub(crate) fn accept(span: &tracing::Span, headers: &http::HeaderMap) {
    if span.is_disabled() || !headers.contains_key("traceparent") {
        return;
    }
    let parent = TraceContextPropagator::new().extract(&HeaderExtractor(headers));
    if parent.span().span_context().is_valid() {
        // Fails only for a span already started, which a span just created is not.
        let _ = span.set_parent(parent);
    }
}

/// Adds `traceparent` (and `tracestate`) for the current span to `headers`; nothing when
/// traces are off or the span is not sampled.
pub(crate) fn inject(headers: &mut http::HeaderMap) {
    let span = tracing::Span::current();
    if span.is_disabled() {
        return;
    }
    let context = span.context();
    if context.span().span_context().is_sampled() {
        TraceContextPropagator::new().inject_context(&context, &mut HeaderInjector(headers));
    }
}

/// The trace id of `span` (32 hex digits) when it belongs to a sampled trace: what an audit
/// line can link to. `None` when traces are off.
pub(crate) fn trace_id(span: &tracing::Span) -> Option<String> {
    if span.is_disabled() {
        return None;
    }
    let context = span.context();
    let span_context = context.span().span_context().clone();
    span_context
        .is_sampled()
        .then(|| span_context.trace_id().to_string())
}
