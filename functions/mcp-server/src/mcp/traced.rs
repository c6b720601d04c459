//! The span of a `tools/call` (when traces are on): a child of the request's span, with who
//! called (key id, pseudonym, profile) at the start and what came of it (connector, tool, risk,
//! status, the upstream's HTTP status) recorded from the call's audit event, so the span and
//! the audit line say the same.

use audit::AuditEvent;
use tracing::field::Empty;

use super::context::CallContext;

/// The span of one `tools/call` of `name` (meta tools included).
pub(super) fn tool_call(name: &str, ctx: &CallContext) -> tracing::Span {
    let caller = &ctx.caller;
    tracing::info_span!(
        target: audit::SPAN_TARGET,
        parent: &ctx.request.span.0,
        "tools/call",
        tool = crate::contract::names::plain_name(name).unwrap_or(audit::INVALID_ARG_KEY),
        key_id = caller.key_id.as_str(),
        user = caller.user.as_deref(),
        profile = caller.scope.profile(),
        connector = Empty,
        risk = Empty,
        status = Empty,
        http_status = Empty,
    )
}

/// What came of the call, on the current span (the call's).
pub(super) fn answered(event: &AuditEvent, risk: catalog::Risk) {
    let span = tracing::Span::current();
    if span.is_disabled() {
        return;
    }
    span.record("tool", event.tool.as_deref());
    span.record("connector", event.connector.as_deref());
    span.record("risk", crate::contract::risk::word(risk));
    span.record("status", event.status.as_deref());
    span.record("http_status", event.http_status);
}
