//! The audit events of MCP requests, built from plain data: one per tool call (catalog tools,
//! `search_tools`, unknown names), one per `prompts/get` of a remote prompt and one per
//! `initialize`. The audit crate bounds every field.

use std::time::Duration;

use audit::{AuditEvent, EventKind};
use serde_json::{Map, Value};

use super::context::CallContext;
use crate::call::Outcome;
use crate::contract::names;

/// A catalog tool's call.
#[allow(clippy::too_many_arguments)]
pub(super) fn tool_call(
    tool: &str,
    connector: &str,
    risk: catalog::Risk,
    audit_event: Option<&str>,
    arguments: &Map<String, Value>,
    outcome: &Outcome,
    result_bytes: usize,
    ctx: &CallContext,
    elapsed: Duration,
) -> AuditEvent {
    let kind = kind_of(outcome);
    let mut event = AuditEvent::new(kind)
        .tool(tool)
        .connector(connector)
        .status(outcome.status.as_str())
        .arg_keys(arguments.keys())
        .result_bytes(result_bytes as u64)
        .truncated(outcome.truncated);
    if let Some(code) = outcome.http_status {
        event = event.http_status(code);
    }
    if let Some(reason) = &outcome.reason {
        event = event.reason(reason.clone());
    }
    if let Some(q) = outcome.quota {
        event.quota_remaining = q.remaining;
        event.quota_consumed = q.consumed;
        event.quota_limit = q.limit;
    }
    if let Some(spent) = &outcome.spent {
        event = event.spend(spent.amount, &spent.unit);
    }
    if let Some(waited) = outcome.paced_ms {
        event = event.paced(waited);
    }
    if let Some(w) = outcome.write {
        event = event.write(
            audit_event,
            crate::contract::risk::word(risk),
            w.dry_run,
            w.confirmed_by,
            w.idempotency,
        );
    }
    with_context(event, ctx).duration(elapsed)
}

/// A call of a name that is no visible tool (or no plain name at all).
pub(super) fn unknown_tool(
    name: &str,
    arguments: &Map<String, Value>,
    ctx: &CallContext,
    elapsed: Duration,
) -> AuditEvent {
    let shown = names::plain_name(name).unwrap_or(audit::INVALID_ARG_KEY);
    let event = AuditEvent::new(EventKind::ToolError)
        .tool(shown)
        .status("not_found")
        .reason("unknown_tool")
        .arg_keys(arguments.keys());
    with_context(event, ctx).duration(elapsed)
}

/// A `resources/read` of a URI that names no record this caller may read (the URI itself is
/// not logged: a client chooses it).
pub(super) fn unknown_resource(ctx: &CallContext, elapsed: Duration) -> AuditEvent {
    let event = AuditEvent::new(EventKind::ToolError)
        .tool("resources_read")
        .status("not_found")
        .reason("unknown_resource");
    with_context(event, ctx).duration(elapsed)
}

/// The most characters of known words a `no_match` reason keeps.
const MAX_NO_MATCH_CHARS: usize = 80;

/// A `search_tools` call; when nothing matched, `no_match` has the query's words the catalogs
/// know and how many others it had: the reason is `no_match:<words>[ +N]`
/// (`no_match:mahnung lieferschein +2`), the others never written.
pub(super) fn search(
    arguments: &Map<String, Value>,
    status: &str,
    result_bytes: usize,
    no_match: Option<(Vec<String>, usize)>,
    ctx: &CallContext,
    elapsed: Duration,
) -> AuditEvent {
    let mut event = AuditEvent::new(EventKind::ToolCall)
        .tool(super::meta::SEARCH_TOOLS)
        .status(status)
        .arg_keys(arguments.keys())
        .result_bytes(result_bytes as u64);
    if let Some((known, mut other)) = no_match {
        let mut kept: Vec<&str> = Vec::new();
        let mut chars = 0;
        for word in &known {
            if chars + word.chars().count() + 1 > MAX_NO_MATCH_CHARS {
                other += 1;
                continue;
            }
            chars += word.chars().count() + 1;
            kept.push(word);
        }
        let mut reason = format!("no_match:{}", kept.join(" "));
        if other > 0 {
            reason.push_str(&format!(" +{other}"));
        }
        event = event.reason(reason);
    }
    with_context(event, ctx).duration(elapsed)
}

/// What a tool call's outcome is in the audit log. A call its budget refused is a limit hit,
/// like the edge's 429s, and one that asks the person to connect their account first is its
/// own kind: neither is a failing tool (the digest counts only `tool_error`s and failed
/// `tool_call`s). A write that asks for a confirmation (a token, a form, or a person the
/// client cannot ask: `person_confirmation_required`) did what it should and sent nothing, so
/// it is a `tool_call`; its status says what it asked, and the digest, like the `errors`
/// metric, counts no `confirmation_required` status as failed. A job still running when the
/// call could wait no longer (`pending`) failed nothing either.
fn kind_of(outcome: &Outcome) -> EventKind {
    if matches!(
        outcome.status,
        catalog::Status::Ok | catalog::Status::ConfirmationRequired | catalog::Status::Pending
    ) {
        EventKind::ToolCall
    } else if outcome.status == catalog::Status::ConnectionRequired {
        EventKind::ConnectionRequired
    } else if matches!(
        outcome.reason.as_deref(),
        Some(crate::call::BUDGET_REASON | crate::call::SPEND_REASON)
    ) {
        EventKind::RateLimited
    } else {
        EventKind::ToolError
    }
}

/// A `connections` call (list or disconnect): status and reason, never which connector.
pub(super) fn connections(
    arguments: &Map<String, Value>,
    outcome: &Outcome,
    result_bytes: usize,
    ctx: &CallContext,
    elapsed: Duration,
) -> AuditEvent {
    let mut event = AuditEvent::new(kind_of(outcome))
        .tool(super::meta::CONNECTIONS)
        .status(outcome.status.as_str())
        .arg_keys(arguments.keys())
        .result_bytes(result_bytes as u64);
    if let Some(reason) = &outcome.reason {
        event = event.reason(reason.clone());
    }
    with_context(event, ctx).duration(elapsed)
}

/// A `prompts/get` of a remote prompt: the prompt, its connector, the argument keys and how
/// it ended (`ok`, `input_required`, or a failure with its reason); never a value.
pub(super) fn remote_prompt(
    prompt: &str,
    connector: &str,
    arguments: &Map<String, Value>,
    status: &str,
    reason: Option<&str>,
    ctx: &CallContext,
    elapsed: Duration,
) -> AuditEvent {
    let kind = if reason.is_none() {
        EventKind::ToolCall
    } else {
        EventKind::ToolError
    };
    let mut event = AuditEvent::new(kind)
        .tool(prompt)
        .connector(connector)
        .status(status)
        .arg_keys(arguments.keys());
    event = event.reason(reason.unwrap_or("prompts_get"));
    with_context(event, ctx).duration(elapsed)
}

/// `initialize`: who introduced itself.
pub(super) fn client_init(
    ctx: &CallContext,
    client: &str,
    version: &str,
    protocol: &str,
) -> AuditEvent {
    AuditEvent::new(EventKind::ClientInit)
        .client(client)
        .client_version(version)
        .protocol_version(protocol)
        .key_id(ctx.caller.key_id.clone())
        .request_id(&ctx.request.id)
}

fn with_context(mut event: AuditEvent, ctx: &CallContext) -> AuditEvent {
    let caller = &ctx.caller;
    event = event.key_id(caller.key_id.clone());
    if let Some(u) = &caller.user {
        event = event.user(u.clone());
    }
    if let Some(p) = caller.scope.profile() {
        event = event.profile(p);
    }
    if let Some((name, version)) = &ctx.client {
        event = event.client(name).client_version(version);
    }
    if let Some(v) = &ctx.protocol_version {
        event = event.protocol_version(v);
    }
    if !ctx.request.id.is_empty() {
        event = event.request_id(&ctx.request.id);
    }
    if let Some(trace_id) = crate::telemetry::trace_id(&ctx.request.span.0) {
        event = event.trace_id(&trace_id);
    }
    event
}

#[cfg(test)]
mod tests {
    use super::*;
    use catalog::Status;

    #[test]
    fn asking_to_connect_or_to_confirm_is_no_tool_error() {
        let kinds = [
            (Outcome::ok(Default::default()), EventKind::ToolCall),
            (
                Outcome::failed(Status::ConnectionRequired, "not_connected", "h"),
                EventKind::ConnectionRequired,
            ),
            (
                Outcome::failed(Status::ConnectionRequired, "no_person", "h"),
                EventKind::ConnectionRequired,
            ),
            (
                Outcome::failed(Status::RateLimited, crate::call::BUDGET_REASON, "h"),
                EventKind::RateLimited,
            ),
            (
                Outcome::failed(Status::RateLimited, crate::call::SPEND_REASON, "h"),
                EventKind::RateLimited,
            ),
            (
                Outcome::failed(Status::Unauthorized, "upstream_401", "h"),
                EventKind::ToolError,
            ),
            (
                Outcome::failed(Status::ConfirmationRequired, "confirmation_required", "h"),
                EventKind::ToolCall,
            ),
            (
                Outcome::failed(
                    Status::ConfirmationRequired,
                    "person_confirmation_required",
                    "h",
                ),
                EventKind::ToolCall,
            ),
            (
                Outcome::failed(Status::Pending, "job_pending", "h"),
                EventKind::ToolCall,
            ),
        ];
        for (outcome, kind) in kinds {
            assert_eq!(kind_of(&outcome), kind, "{:?}", outcome.status);
        }
        assert_eq!(
            EventKind::ConnectionRequired.as_str(),
            "connection_required"
        );
    }
}
