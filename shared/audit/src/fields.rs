//! Audit field names, one constant per top-level JSON key.
//!
//! Logs Insights queries, dashboards and the ops functions refer to fields only through these
//! constants, so a rename is a compile error instead of a silently empty dashboard.

/// Schema version of the line (`1`).
pub const V: &str = "v";
/// RFC 3339 UTC timestamp with milliseconds.
pub const TS: &str = "ts";
/// `info`, `warn` or `error`.
pub const LEVEL: &str = "level";
/// Event kind: `tool_call`, `tool_error`, `connection_required`, `client_init`, …
pub const EVENT: &str = "event";
/// Tool name as declared in the catalog.
pub const TOOL: &str = "tool";
/// Connector (upstream API) the tool belongs to.
pub const CONNECTOR: &str = "connector";
/// Result status: `ok`, `not_found`, `invalid_input`, …
pub const STATUS: &str = "status";
/// HTTP status of the upstream response, when there was one.
pub const HTTP_STATUS: &str = "http_status";
/// Short machine-readable reason code, never free text from upstream.
pub const REASON: &str = "reason";
/// Wall-clock duration in milliseconds, three decimals.
pub const DURATION_MS: &str = "duration_ms";
/// Request id (API Gateway / Lambda).
pub const REQUEST_ID: &str = "request_id";
/// MCP client name from `clientInfo`.
pub const CLIENT: &str = "client";
/// MCP client version from `clientInfo`.
pub const CLIENT_VERSION: &str = "client_version";
/// Negotiated MCP protocol version.
pub const PROTOCOL_VERSION: &str = "protocol_version";
/// Keyed-hash pseudonym of the caller's identity, never the identity itself.
pub const USER: &str = "user";
/// Identifier of the API key used (not the key).
pub const KEY_ID: &str = "key_id";
/// Tool profile the client was served.
pub const PROFILE: &str = "profile";
/// Argument names of the call, never their values.
pub const ARG_KEYS: &str = "arg_keys";
/// How many argument names were left out of `arg_keys` (more than 32, or an over-long line).
pub const ARG_KEYS_OMITTED: &str = "arg_keys_omitted";
/// Size of the result sent to the client, in bytes.
pub const RESULT_BYTES: &str = "result_bytes";
/// Whether the result was cut to the output budget.
pub const TRUNCATED: &str = "truncated";
/// Upstream quota remaining after the call.
pub const QUOTA_REMAINING: &str = "quota_remaining";
/// Upstream quota the call consumed, as the upstream reports it (Papierkram: the cost of this
/// one request, not a running total).
pub const QUOTA_CONSUMED: &str = "quota_consumed";
/// Upstream quota limit for the window.
pub const QUOTA_LIMIT: &str = "quota_limit";
/// `limiter` events: 1 while this instance counts in memory because its counter store failed.
pub const LIMITER_FALLBACK: &str = "limiter_fallback";
/// `limiter` events: the share of the deployment's daily tool-call cap used today, percent.
pub const DAILY_CALLS_USED_PCT: &str = "daily_calls_used_pct";

/// Calls of tools that spend: what the call spent in its connector's unit (`spends`).
pub const SPEND: &str = "spend";
/// The unit of `spend` (`predictions`, `credits`): a catalog's word, never a caller's.
pub const SPEND_UNIT: &str = "spend_unit";
/// Calls of a connector with its upstream's own rate (`quota.rate`): milliseconds the call's
/// requests waited for their turns, when they waited.
pub const PACED_MS: &str = "paced_ms";

/// Writes: the contract's audit event (`invoice.delivered`).
pub const AUDIT_EVENT: &str = "audit_event";
/// Writes (and confirmed reads): the tool's risk level.
pub const RISK: &str = "risk";
/// Writes: true for a preview that wrote nothing.
pub const DRY_RUN: &str = "dry_run";
/// How the call was confirmed: `token` or `elicitation`; absent when none was needed.
pub const CONFIRMATION: &str = "confirmation";
/// Writes with an idempotency key: `new`, `replayed`, `conflict` or `unknown`.
pub const IDEMPOTENCY: &str = "idempotency";

/// `inbound` events: the events of a webhook body stored (new).
pub const INBOUND_STORED: &str = "inbound_stored";
/// `inbound` events: the events of a webhook body already stored (a retried or reordered
/// delivery), not stored again.
pub const INBOUND_DUPLICATES: &str = "inbound_duplicates";
/// The W3C trace id (32 lowercase hex digits) of the request's trace, when traces are on: the
/// digest links a failed call to its trace in the X-Ray console.
pub const TRACE_ID: &str = "trace_id";

/// Every field name, in serialization order.
pub const ALL: &[&str] = &[
    V,
    TS,
    LEVEL,
    EVENT,
    TOOL,
    CONNECTOR,
    STATUS,
    HTTP_STATUS,
    REASON,
    DURATION_MS,
    REQUEST_ID,
    CLIENT,
    CLIENT_VERSION,
    PROTOCOL_VERSION,
    USER,
    KEY_ID,
    PROFILE,
    ARG_KEYS,
    ARG_KEYS_OMITTED,
    RESULT_BYTES,
    TRUNCATED,
    QUOTA_REMAINING,
    QUOTA_CONSUMED,
    QUOTA_LIMIT,
    LIMITER_FALLBACK,
    DAILY_CALLS_USED_PCT,
    SPEND,
    SPEND_UNIT,
    PACED_MS,
    AUDIT_EVENT,
    RISK,
    DRY_RUN,
    CONFIRMATION,
    IDEMPOTENCY,
    INBOUND_STORED,
    INBOUND_DUPLICATES,
    TRACE_ID,
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn all_field_names_are_unique() {
        let unique: HashSet<_> = ALL.iter().collect();
        assert_eq!(unique.len(), ALL.len());
    }

    #[test]
    fn field_names_are_snake_case_ascii() {
        for name in ALL {
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{name} is not snake_case"
            );
        }
    }
}
