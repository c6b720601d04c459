//! The realistic two-week audit log the tests use (and `tests/fixtures/audit-two-weeks.jsonl`,
//! the same lines, for previewing with `run --local`). Deterministic: times, request ids and
//! durations come from the call's position, not from a clock or a random source.
//!
//! The week of the digest is ISO week 48 of 2026 (2026-11-23 to 2026-11-29), the digest runs
//! at 2026-11-30T06:00:00Z. Per tool, this week / the week before:
//!
//! | tool            | calls     | failed   | failures this week                                  |
//! |-----------------|-----------|----------|-----------------------------------------------------|
//! | papierkram_invoice_get     | 120 / 100 | 23 / 5   | 15 invalid_input/invalid_argument (Thu–Sun), 8 upstream_error/timeout |
//! | contact_search  | 60 / 50   | 9 / 0    | 9 not_found/no_match: newly failing, called before  |
//! | invoice_list    | 300 / 280 | 6 / 12   | 6 upstream_error/rate_limited                        |
//! | papierkram_project_create  | 10 / 0    | 4 / 0    | 4 invalid_input/missing_required: new tool          |
//! | time_entry_list | 80 / 80   | 2 / 2    | 2 internal/panic                                     |
//! | document_upload | 15 / 10   | 1 / 3    | 1 upstream_error/bad_gateway (6th, not detailed)     |
//! | expense_list    | 40 / 30   | 0 / 4    | recovered                                            |
//! | user_me         | 25 / 20   | 0 / 0    |                                                      |
//!
//! | search_tools    | 9 / 2     | 0 / 0    | 7 without a match (missing capabilities)            |
//!
//! Plus events that are not tool calls (client_init, auth_denied), a line that is not JSON,
//! and tool calls just outside both weeks.
//!
//! `invoice_list` and `time_entry_list` are sevdesk's tools, the others papierkram's (the
//! digest's sections per connector); two tool calls in three carry a `trace_id` (sampled), so
//! the failed calls shown are linked to their traces or not.
//!
//! Missing capabilities this week: searches without a match `mahnung lieferschein` 4 (3 of
//! them with 2 further words dropped), `reisekosten` 2, no known word 1 (3 dropped), so 9
//! dropped words; unknown tools `papierkram_invoice_send` 3, `mahnung_create` 1. The week before: one
//! search `mahnung`, one `papierkram_invoice_send` (not reported). Unknown-tool calls are not calls of a
//! tool: the totals above leave them out.
//!
//! Writes (lines with the write facts), this week / the week before:
//!
//! | tool           | calls | how they ended this week                                        |
//! |----------------|-------|-----------------------------------------------------------------|
//! | papierkram_company_create | 8 / 2 | 5 executed (3 with an idempotency key), 2 dry runs, 1 replayed    |
//! | papierkram_invoice_cancel | 9 / 3 | 2 dry runs, 3 asked, 1 declined, 2 confirmed, 1 outcome_unknown   |
//!
//! The week before, papierkram_invoice_cancel: 1 asked, 1 executed, 1 outcome_unknown (so it is failing,
//! not newly failing); papierkram_company_create: 2 executed. Confirmations asked are no failed calls; the
//! outcome_unknown calls are. With them the totals above become 676 / 577 calls, 46 / 27 failed.
//!
//! Refused by a limit (`rate_limited`) this week, per scope and caller: caller `u_5e0c5b7d1a2f9c3e`
//! 7 (under two key ids), ip `-` 4, budget `u_5e0c5b7d1a2f9c3e` 3 (`papierkram_open_items_get`), caller `ci`
//! 2 (a key without a user), daily `u_91b2e4f07c3d5a68` 1; and 5 ip refusals the week before.

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

/// The region of the fixture digest's trace links.
pub(crate) const TRACE_REGION: &str = "eu-central-1";
/// When the fixture's digest runs.
pub(crate) const NOW: &str = "2026-11-30T06:00:00Z";
/// Start of the digest's week.
const THIS_WEEK: &str = "2026-11-23T00:00:00Z";
const PREVIOUS_WEEK: &str = "2026-11-16T00:00:00Z";

/// Failed calls of one kind, spread over `days` (0 = Monday) of a week.
struct Failures {
    count: u32,
    status: &'static str,
    reason: &'static str,
    http_status: Option<u16>,
    days: (u32, u32),
}

struct Tool {
    name: &'static str,
    arg_keys: &'static [&'static str],
    /// (calls, failures) this week and the week before.
    weeks: [(u32, Vec<Failures>); 2],
}

const fn fail(
    count: u32,
    status: &'static str,
    reason: &'static str,
    http_status: Option<u16>,
    days: (u32, u32),
) -> Failures {
    Failures {
        count,
        status,
        reason,
        http_status,
        days,
    }
}

fn tools() -> Vec<Tool> {
    let all = (0, 6);
    vec![
        Tool {
            name: "papierkram_invoice_get",
            arg_keys: &["id"],
            weeks: [
                (
                    120,
                    vec![
                        fail(15, "invalid_input", "invalid_argument", None, (3, 6)),
                        fail(8, "upstream_error", "timeout", Some(504), all),
                    ],
                ),
                (
                    100,
                    vec![fail(5, "invalid_input", "invalid_argument", None, all)],
                ),
            ],
        },
        Tool {
            name: "contact_search",
            arg_keys: &["query", "limit"],
            weeks: [
                (
                    60,
                    vec![fail(9, "not_found", "no_match", Some(404), (1, 5))],
                ),
                (50, vec![]),
            ],
        },
        Tool {
            name: "invoice_list",
            arg_keys: &["status", "page", "per_page"],
            weeks: [
                (
                    300,
                    vec![fail(6, "upstream_error", "rate_limited", Some(429), all)],
                ),
                (
                    280,
                    vec![fail(12, "upstream_error", "rate_limited", Some(429), all)],
                ),
            ],
        },
        Tool {
            name: "papierkram_project_create",
            arg_keys: &["name", "customer_id"],
            weeks: [
                (
                    10,
                    vec![fail(4, "invalid_input", "missing_required", None, (4, 6))],
                ),
                (0, vec![]),
            ],
        },
        Tool {
            name: "time_entry_list",
            arg_keys: &["from", "to"],
            weeks: [
                (80, vec![fail(2, "internal", "panic", None, all)]),
                (80, vec![fail(2, "internal", "panic", None, all)]),
            ],
        },
        Tool {
            name: "document_upload",
            arg_keys: &["file_name", "content_type"],
            weeks: [
                (
                    15,
                    vec![fail(1, "upstream_error", "bad_gateway", Some(502), all)],
                ),
                (
                    10,
                    vec![fail(3, "upstream_error", "bad_gateway", Some(502), all)],
                ),
            ],
        },
        Tool {
            name: "expense_list",
            arg_keys: &[],
            weeks: [
                (40, vec![]),
                (
                    30,
                    vec![fail(4, "upstream_error", "timeout", Some(504), all)],
                ),
            ],
        },
        Tool {
            name: "user_me",
            arg_keys: &[],
            weeks: [(25, vec![]), (20, vec![])],
        },
    ]
}

/// FNV-1a, for request ids that look random but are not.
fn request_id(parts: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// A time on `day` of the week starting at `week`, spread by `i`.
fn time(week: Timestamp, day: u32, i: u32) -> Timestamp {
    let seconds = i64::from(day) * 86_400
        + i64::from((i * 7 + 6) % 18 + 5) * 3_600
        + i64::from((i * 13) % 60) * 60
        + i64::from((i * 29) % 60);
    week + SignedDuration::from_secs(seconds)
        + SignedDuration::from_millis(i64::from((i * 37) % 1000))
}

fn format_ts(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// The fixture's second connector: its two tools fail for their own reasons.
const SEVDESK_TOOLS: &[&str] = &["invoice_list", "time_entry_list"];

/// A W3C trace id for two calls in three (the others were not sampled): no line carries one
/// without the other id, so the digest shows both kinds.
fn trace_id(request: &str, i: u32) -> Option<String> {
    (i % 3 != 2).then(|| {
        format!(
            "{}{}",
            request_id(request),
            request_id(&format!("{request}/span"))
        )
    })
}

fn tool_line(tool: &Tool, t: Timestamp, i: u32, failure: Option<&Failures>) -> Value {
    let connector = if SEVDESK_TOOLS.contains(&tool.name) {
        "sevdesk"
    } else {
        "papierkram"
    };
    let request = request_id(&format!("{}{}", tool.name, format_ts(t)));
    let mut line = json!({
        "v": 1,
        "ts": format_ts(t),
        "level": "info",
        "event": "tool_call",
        "tool": tool.name,
        "connector": connector,
        "status": "ok",
        "duration_ms": f64::from(20 + (i * 17) % 400) + 0.125,
        "request_id": request,
        "protocol_version": "2025-11-25",
        "key_id": "dev",
        "arg_keys": tool.arg_keys,
        "result_bytes": 200 + (i * 131) % 4000,
        "truncated": false,
    });
    if let Some(trace) = trace_id(&request, i) {
        line["trace_id"] = json!(trace);
    }
    if let Some(f) = failure {
        line["level"] = json!("error");
        line["event"] = json!("tool_error");
        line["status"] = json!(f.status);
        line["reason"] = json!(f.reason);
        line["result_bytes"] = json!(99);
        if let Some(code) = f.http_status {
            line["http_status"] = json!(code);
        }
        if f.reason == "invalid_argument" {
            // The model misspelt the argument: the audit line keeps the names it sent.
            line["arg_keys"] = json!(["idd"]);
        }
    }
    line
}

/// Pseudonyms of the fixture's two users.
const ALICE: &str = "u_5e0c5b7d1a2f9c3e";
const BOB: &str = "u_91b2e4f07c3d5a68";

/// A `rate_limited` line as mcp-server writes it: HTTP 429 for the HTTP-level limits, a tool
/// result (no `http_status`, with the connector and tool) for a budget.
fn rate_limited(t: Timestamp, reason: &str, user: Option<&str>, key_id: Option<&str>) -> Value {
    let mut line = json!({
        "v": 1,
        "ts": format_ts(t),
        "level": "warn",
        "event": "rate_limited",
        "status": "rate_limited",
        "reason": reason,
    });
    if reason == "limit_budget" {
        line["connector"] = json!("papierkram");
        line["tool"] = json!("papierkram_open_items_get");
    } else {
        line["http_status"] = json!(429);
    }
    if let Some(k) = key_id {
        line["key_id"] = json!(k);
    }
    if let Some(u) = user {
        line["user"] = json!(u);
    }
    line
}

/// How a write call ended, as its audit line records it.
#[derive(Clone, Copy)]
enum WriteEnd {
    DryRun,
    /// Ran without confirmation; with an idempotency key when `true`.
    Executed(bool),
    Asked,
    Declined,
    /// Ran after a person confirmed in the client's form.
    Confirmed,
    Replayed,
    Unknown,
}

/// A write tool's line as mcp-server writes it: the write facts (audit event, risk, dry run,
/// confirmation channel, idempotency outcome) beside the usual fields.
fn write_line(
    t: Timestamp,
    i: u32,
    tool: &str,
    audit_event: &str,
    risk: &str,
    end: WriteEnd,
) -> Value {
    let keyed = matches!(end, WriteEnd::Executed(true) | WriteEnd::Replayed);
    let mut arg_keys = vec!["name"];
    if keyed {
        arg_keys.push("idempotency_key");
    }
    if matches!(end, WriteEnd::DryRun) {
        arg_keys.push("dry_run");
    }
    let mut line = json!({
        "v": 1,
        "ts": format_ts(t),
        "level": "info",
        "event": "tool_call",
        "tool": tool,
        "connector": "papierkram",
        "status": "ok",
        "duration_ms": f64::from(60 + (i * 23) % 300) + 0.5,
        "request_id": request_id(&format!("{tool}{}", format_ts(t))),
        "protocol_version": "2025-11-25",
        "key_id": "dev",
        "user": ALICE,
        "arg_keys": arg_keys,
        "result_bytes": 400 + (i * 59) % 900,
        "audit_event": audit_event,
        "risk": risk,
        "dry_run": matches!(end, WriteEnd::DryRun),
    });
    let mut failed = |status: &str, reason: &str| {
        line["level"] = json!("error");
        line["event"] = json!("tool_error");
        line["status"] = json!(status);
        line["reason"] = json!(reason);
    };
    match end {
        WriteEnd::DryRun => {}
        WriteEnd::Executed(keyed) => {
            line["http_status"] = json!(201);
            if keyed {
                line["idempotency"] = json!("new");
            }
        }
        WriteEnd::Asked => {
            // Asking is no failure: a `tool_call` whose status says what it asks.
            line["status"] = json!("confirmation_required");
            line["reason"] = json!("confirmation_required");
        }
        WriteEnd::Declined => {
            line["reason"] = json!("declined");
            line["confirmation"] = json!("elicitation");
        }
        WriteEnd::Confirmed => {
            line["http_status"] = json!(200);
            line["confirmation"] = json!("elicitation");
            line["idempotency"] = json!("new");
        }
        WriteEnd::Replayed => {
            line["reason"] = json!("replayed");
            line["idempotency"] = json!("replayed");
        }
        WriteEnd::Unknown => {
            failed("outcome_unknown", "outcome_unknown");
            line["confirmation"] = json!("elicitation");
            line["idempotency"] = json!("unknown");
        }
    }
    line
}

/// A `search_tools` call as mcp-server writes it: no connector; `no_match` is the reason's
/// rest when nothing matched (the query's words in the search vocabulary, ` +N` others).
fn search_line(t: Timestamp, i: u32, no_match: Option<&str>) -> Value {
    let mut line = json!({
        "v": 1,
        "ts": format_ts(t),
        "level": "info",
        "event": "tool_call",
        "tool": "search_tools",
        "status": "ok",
        "duration_ms": f64::from(3 + i % 5) + 0.25,
        "request_id": request_id(&format!("search_tools{}", format_ts(t))),
        "protocol_version": "2025-11-25",
        "key_id": "dev",
        "arg_keys": ["query"],
        "result_bytes": 300 + i * 7,
    });
    if let Some(words) = no_match {
        line["reason"] = json!(format!("no_match:{words}"));
        line["result_bytes"] = json!(180);
    }
    line
}

/// A call of a name that is no visible tool (`tools/call` or `call_tool`).
fn unknown_tool_line(t: Timestamp, name: &str) -> Value {
    json!({
        "v": 1,
        "ts": format_ts(t),
        "level": "error",
        "event": "tool_error",
        "tool": name,
        "status": "not_found",
        "reason": "unknown_tool",
        "duration_ms": 0.5,
        "request_id": request_id(&format!("{name}{}", format_ts(t))),
        "protocol_version": "2025-11-25",
        "key_id": "dev",
        "arg_keys": ["id"],
    })
}

/// The fixture's audit lines, in time order.
pub(crate) fn lines() -> Vec<String> {
    let mut events: Vec<(Timestamp, String)> = Vec::new();
    for tool in tools() {
        for (week_index, (calls, failures)) in tool.weeks.iter().enumerate() {
            let week: Timestamp = [THIS_WEEK, PREVIOUS_WEEK][week_index].parse().unwrap();
            let failed: u32 = failures.iter().map(|f| f.count).sum();
            let mut i = 0;
            for f in failures {
                let span = f.days.1 - f.days.0 + 1;
                for k in 0..f.count {
                    let t = time(week, f.days.0 + k % span, i);
                    events.push((t, tool_line(&tool, t, i, Some(f)).to_string()));
                    i += 1;
                }
            }
            for k in 0..calls - failed {
                let t = time(week, k % 7, i);
                events.push((t, tool_line(&tool, t, i, None).to_string()));
                i += 1;
            }
        }
    }
    let at = |s: &str| s.parse::<Timestamp>().unwrap();
    // Not tool calls: never counted.
    for (ts, body) in [
        (
            "2026-11-24T08:00:00.000Z",
            json!({"event": "client_init", "client": "claude-ai"}),
        ),
        (
            "2026-11-25T09:00:00.000Z",
            json!({"event": "auth_denied", "level": "warn", "status": "unauthorized", "reason": "bad_token"}),
        ),
    ] {
        let mut line = body;
        line["v"] = json!(1);
        line["ts"] = json!(ts);
        events.push((at(ts), line.to_string()));
    }
    // Refused by a limit: never tool calls, never an IP.
    for (week, reason, user, key_id, count) in [
        (THIS_WEEK, "limit_caller", Some(ALICE), Some("dev"), 5),
        (THIS_WEEK, "limit_caller", Some(ALICE), Some("laptop"), 2),
        (THIS_WEEK, "limit_ip", None, None, 4),
        (THIS_WEEK, "limit_budget", Some(ALICE), Some("dev"), 3),
        (THIS_WEEK, "limit_caller", None, Some("ci"), 2),
        (THIS_WEEK, "limit_daily", Some(BOB), Some("dev"), 1),
        (PREVIOUS_WEEK, "limit_ip", None, None, 5),
    ] {
        let week: Timestamp = week.parse().unwrap();
        for i in 0..count {
            let t = time(week, (i * 2 + 1) % 7, i + 40);
            events.push((t, rate_limited(t, reason, user, key_id).to_string()));
        }
    }
    // Missing capabilities: searches without a match and calls of tools that do not exist.
    let searches = [
        (THIS_WEEK, Some("mahnung lieferschein +2"), 3),
        (THIS_WEEK, Some("mahnung lieferschein"), 1),
        (THIS_WEEK, Some("reisekosten"), 2),
        (THIS_WEEK, Some(" +3"), 1),
        (THIS_WEEK, None, 2),
        (PREVIOUS_WEEK, Some("mahnung"), 1),
        (PREVIOUS_WEEK, None, 1),
    ];
    let mut i = 60;
    for (week, no_match, count) in searches {
        let week: Timestamp = week.parse().unwrap();
        for _ in 0..count {
            let t = time(week, i % 7, i);
            events.push((t, search_line(t, i, no_match).to_string()));
            i += 1;
        }
    }
    for (week, name, count) in [
        (THIS_WEEK, "papierkram_invoice_send", 3),
        (THIS_WEEK, "mahnung_create", 1),
        (PREVIOUS_WEEK, "papierkram_invoice_send", 1),
    ] {
        let week: Timestamp = week.parse().unwrap();
        for _ in 0..count {
            let t = time(week, i % 7, i);
            events.push((t, unknown_tool_line(t, name).to_string()));
            i += 1;
        }
    }
    // Writes: executed, previewed, confirmed, declined, replayed, one whose outcome is unknown.
    let mut i = 200;
    for (week, tool, audit_event, risk, ends) in [
        (
            THIS_WEEK,
            "papierkram_company_create",
            "company.created",
            "medium",
            &[
                (WriteEnd::Executed(true), 3),
                (WriteEnd::Executed(false), 2),
                (WriteEnd::DryRun, 2),
                (WriteEnd::Replayed, 1),
            ][..],
        ),
        (
            THIS_WEEK,
            "papierkram_invoice_cancel",
            "invoice.canceled",
            "critical",
            &[
                (WriteEnd::DryRun, 2),
                (WriteEnd::Asked, 3),
                (WriteEnd::Declined, 1),
                (WriteEnd::Confirmed, 2),
                (WriteEnd::Unknown, 1),
            ],
        ),
        (
            PREVIOUS_WEEK,
            "papierkram_company_create",
            "company.created",
            "medium",
            &[(WriteEnd::Executed(true), 2)],
        ),
        (
            PREVIOUS_WEEK,
            "papierkram_invoice_cancel",
            "invoice.canceled",
            "critical",
            &[
                (WriteEnd::Asked, 1),
                (WriteEnd::Confirmed, 1),
                (WriteEnd::Unknown, 1),
            ],
        ),
    ] {
        let week: Timestamp = week.parse().unwrap();
        for (end, count) in ends {
            for _ in 0..*count {
                let t = time(week, i % 7, i);
                let line = write_line(t, i, tool, audit_event, risk, *end);
                events.push((t, line.to_string()));
                i += 1;
            }
        }
    }
    // Just outside both weeks: the digest's range ends a millisecond before Monday 00:00.
    let user_me = &tools()[7];
    for ts in ["2026-11-30T00:00:00.000Z", "2026-11-15T23:59:59.999Z"] {
        let failure = fail(1, "internal", "panic", None, (0, 0));
        events.push((
            at(ts),
            tool_line(user_me, at(ts), 0, Some(&failure)).to_string(),
        ));
    }
    events.sort();
    let mut lines: Vec<String> = events.into_iter().map(|(_, line)| line).collect();
    lines.insert(
        lines.len() / 2,
        "INFO tracing line that is not an audit event".to_string(),
    );
    lines
}

/// The fixture as one JSON-lines text.
pub(crate) fn jsonl() -> String {
    let mut text = lines().join("\n");
    text.push('\n');
    text
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::collect::{Links, collect};
    use crate::digest::{Digest, NewlyFailing, State, Trend};
    use crate::email::{self, Addresses};
    use crate::local::LOCAL_LOG_GROUP;
    use crate::mime::tests::{decode_header_text, parse};
    use insights::LocalInsights;

    const FILE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/audit-two-weeks.jsonl"
    );

    /// The fixture's digest, computed once for all the tests that read it (a clone each).
    pub(crate) async fn digest() -> Digest {
        static DIGEST: tokio::sync::OnceCell<Digest> = tokio::sync::OnceCell::const_new();
        DIGEST.get_or_init(computed).await.clone()
    }

    /// The fixture's digest, computed anew.
    async fn computed() -> Digest {
        let engine = LocalInsights::from_jsonl(LOCAL_LOG_GROUP, &jsonl());
        assert_eq!(engine.skipped(), 1, "the tracing line");
        let dashboard = Some(
            "https://console.aws.amazon.com/cloudwatch/home#dashboards/dashboard/hosted-mcp"
                .to_string(),
        );
        let links = Links {
            dashboard_url: dashboard,
            trace_region: Some(TRACE_REGION.parse().unwrap()),
        };
        collect(&engine, engine.groups(), NOW.parse().unwrap(), links)
            .await
            .unwrap()
    }

    fn addresses() -> Addresses {
        Addresses {
            sender: "digest@example.com".into(),
            recipients: vec!["ops@example.com".into(), "oncall@example.com".into()],
            subject_prefix: String::new(),
        }
    }

    #[test]
    fn checked_in_fixture_matches_the_generator() {
        // UPDATE_FIXTURES=1 cargo test -p tool-error-digest fixture  rewrites it.
        if std::env::var_os("UPDATE_FIXTURES").is_some() {
            std::fs::write(FILE, jsonl()).unwrap();
        }
        let on_disk = std::fs::read_to_string(FILE).unwrap();
        assert!(
            on_disk == jsonl(),
            "{FILE} is stale: rerun with UPDATE_FIXTURES=1"
        );
    }

    #[tokio::test]
    async fn fixture_digest_ranks_top_five_by_failed_calls() {
        let d = digest().await;
        let top: Vec<(&str, u64, u64)> = d
            .top
            .iter()
            .map(|t| (t.tool.as_str(), t.errors, t.calls))
            .collect();
        assert_eq!(
            top,
            [
                ("papierkram_invoice_get", 23, 120),
                ("contact_search", 9, 60),
                ("invoice_list", 6, 300),
                ("papierkram_project_create", 4, 10),
                ("time_entry_list", 2, 80),
            ]
        );
        assert_eq!(d.other_failing, (2, 2));
        // search_tools (9 calls) and the write tools (17) count; the 4 calls of unknown tools
        // do not, nor do the 3 confirmations asked count as failed.
        assert_eq!(d.totals.calls, 676);
        assert_eq!(d.totals.errors, 46);
        assert_eq!(d.totals.tools_called, 11);
        assert_eq!(d.totals.tools_failing, 7);
        assert_eq!(d.previous_totals.calls, 577);
        assert_eq!(d.previous_totals.errors, 27);
        assert!(!d.truncated_by_row_cap);
        assert_eq!(d.unreadable_rows, 0);
        assert_eq!(d.state(), State::Failing);
        assert_eq!(d.subject(), "7 tools failing, 2 new — week 48");
    }

    #[tokio::test]
    async fn fixture_digest_breaks_down_causes_and_last_seen() {
        let d = digest().await;
        let papierkram_invoice_get = &d.top[0];
        let causes: Vec<(&str, Option<&str>, u64)> = papierkram_invoice_get
            .causes
            .iter()
            .map(|c| (c.status.as_str(), c.reason.as_deref(), c.errors))
            .collect();
        assert_eq!(
            causes,
            [
                ("invalid_input", Some("invalid_argument"), 15),
                ("upstream_error", Some("timeout"), 8),
            ]
        );
        let last = papierkram_invoice_get.last_seen.unwrap();
        assert!(
            crate::period::date(last).to_string() == "2026-11-29",
            "{last}"
        );
        assert_eq!(
            Some(last),
            papierkram_invoice_get
                .causes
                .iter()
                .filter_map(|c| c.last_seen)
                .max()
        );
    }

    #[tokio::test]
    async fn fixture_digest_trends_new_and_recovered_tools() {
        let d = digest().await;
        let trends: Vec<(&str, Trend)> =
            d.top.iter().map(|t| (t.tool.as_str(), t.trend())).collect();
        assert_eq!(
            trends,
            [
                ("papierkram_invoice_get", Trend::Up(18)),
                ("contact_search", Trend::New),
                ("invoice_list", Trend::Down(6)),
                ("papierkram_project_create", Trend::New),
                ("time_entry_list", Trend::Unchanged),
            ]
        );
        assert_eq!(
            d.newly_failing,
            [
                NewlyFailing {
                    tool: "contact_search".into(),
                    errors: 9,
                    called_before: true
                },
                NewlyFailing {
                    tool: "papierkram_project_create".into(),
                    errors: 4,
                    called_before: false
                },
            ]
        );
        assert_eq!(d.recovered, ["expense_list"]);
    }

    #[tokio::test]
    async fn fixture_digest_samples_are_the_latest_failures_with_names_only() {
        let d = digest().await;
        for t in &d.top {
            assert_eq!(t.samples.len(), 3.min(t.errors as usize), "{}", t.tool);
            let times: Vec<_> = t.samples.iter().map(|s| s.time.unwrap()).collect();
            assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");
            assert_eq!(Some(times[0]), t.last_seen, "{}", t.tool);
        }
        // The latest papierkram_invoice_get failures are the misspelt argument from Thursday on.
        let s = &d.top[0].samples[0];
        assert_eq!(s.status, "invalid_input");
        assert_eq!(s.reason.as_deref(), Some("invalid_argument"));
        assert_eq!(s.arg_keys, ["idd"]);
        assert_eq!(s.request_id.as_ref().unwrap().len(), 16);
        let list = &d.top[2].samples[0];
        assert_eq!(list.arg_keys, ["status", "page", "per_page"]);
        // Every sample's request id is in the audit log as a failed call of that tool.
        let text = jsonl();
        for t in &d.top {
            for s in &t.samples {
                let id = s.request_id.as_ref().unwrap();
                let line = text.lines().find(|l| l.contains(id.as_str())).unwrap();
                assert!(line.contains(&format!("\"tool\":\"{}\"", t.tool)), "{line}");
                assert!(line.contains("\"event\":\"tool_error\""), "{line}");
            }
        }
    }

    #[tokio::test]
    async fn fixture_chart_counts_failures_per_day() {
        let d = digest().await;
        let (tool, per_day) = &d.chart.series[0];
        assert_eq!(tool, "papierkram_invoice_get");
        assert_eq!(per_day.iter().sum::<u64>(), 23);
        // The misspelt argument starts on Thursday.
        assert!(per_day[3] > per_day[2], "{per_day:?}");
        let all: u64 = d.chart.series.iter().flat_map(|(_, v)| v).sum();
        assert_eq!(all, 23 + 9 + 6 + 4 + 2);
    }

    #[tokio::test]
    async fn fixture_text_states_the_numbers() {
        let d = digest().await;
        let text = crate::text::render(&d);
        for needle in [
            "7 tools failing, 2 new — week 48",
            "2026-11-23 to 2026-11-29 (UTC)",
            "676",
            "46",
            "6.8 %",
            "1. papierkram_invoice_get",
            "23 failed of 120 calls (19.2 %)",
            "up 18 from 5",
            "invalid_input / invalid_argument",
            "args: idd",
            "2. contact_search  [NEW]",
            "down 6 from 12",
            "And 2 more failing tools with 2 failed calls.",
            "papierkram_project_create: 4 failed calls (not called the week before)",
            "Failed calls             46   (week before: 27; up 19)",
            "- expense_list",
            "Dashboard: https://",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
        assert!(!text.contains("document_upload:"), "not newly failing");
    }

    #[tokio::test]
    async fn fixture_digest_counts_limits_hit_this_week_per_scope_and_caller() {
        let d = digest().await;
        let hits: Vec<(&str, &str, u64)> = d
            .limits_hit
            .iter()
            .map(|h| (h.scope.as_str(), h.caller.as_str(), h.refused))
            .collect();
        // Alice's caller refusals under two key ids are one caller; last week's 5 are not counted.
        assert_eq!(
            hits,
            [
                ("caller", ALICE, 7),
                ("ip", "-", 4),
                ("budget", ALICE, 3),
                ("caller", "ci", 2),
                ("daily", BOB, 1),
            ]
        );
        assert_eq!(d.refused(), 17);
        // Refusals are not tool calls.
        assert_eq!(d.totals.calls, 676);
    }

    #[tokio::test]
    async fn fixture_text_lists_limits_hit_most_first() {
        let text = crate::text::render(&digest().await);
        let expected = "\n\nLIMITS HIT (requests and tool calls refused by a rate limit or budget)\n\
             17 refused. Caller: the user pseudonym, else the key id; - before authentication (per-IP limit).\n\
             Scope   Caller              Refused\n\
             caller  u_5e0c5b7d1a2f9c3e        7\n\
             ip      -                         4\n\
             budget  u_5e0c5b7d1a2f9c3e        3\n\
             caller  ci                        2\n\
             daily   u_91b2e4f07c3d5a68        1\n\
             \nDashboard: https://";
        assert!(text.contains(expected), "{text}");
    }

    #[tokio::test]
    async fn fixture_html_lists_limits_hit_before_the_dashboard_link() {
        let html = crate::html::render(&digest().await, Some(&crate::html::chart_cid()));
        let section = html
            .find(">Limits hit</div>")
            .expect("a Limits hit heading");
        assert!(section < html.find("Open the dashboard").unwrap());
        let rows: Vec<&str> = html[section..]
            .split("<tr>")
            .skip(2)
            .take(5)
            .map(|r| r.split("</tr>").next().unwrap())
            .collect();
        assert_eq!(rows.len(), 5);
        assert!(
            rows[0].contains(">caller</td>")
                && rows[0].contains(ALICE)
                && rows[0].contains(">7</td>"),
            "{}",
            rows[0]
        );
        assert!(
            rows[1].contains(">ip</td>")
                && rows[1].contains(">-</td>")
                && rows[1].contains(">4</td>"),
            "{}",
            rows[1]
        );
        assert!(
            rows[4].contains(">daily</td>") && rows[4].contains(BOB),
            "{}",
            rows[4]
        );
        assert!(html.contains("17 refused."));
    }

    /// The fixture's digest without the lines that contain `marker`.
    async fn digest_without(marker: &str) -> Digest {
        let kept: String = jsonl()
            .lines()
            .filter(|l| !l.contains(marker))
            .map(|l| format!("{l}\n"))
            .collect();
        let engine = LocalInsights::from_jsonl(LOCAL_LOG_GROUP, &kept);
        collect(
            &engine,
            engine.groups(),
            NOW.parse().unwrap(),
            Links::default(),
        )
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn a_week_without_refusals_has_no_limits_section() {
        let d = digest_without("\"rate_limited\"").await;
        assert!(d.limits_hit.is_empty());
        assert!(!crate::text::render(&d).contains("LIMITS HIT"));
        assert!(!crate::html::render(&d, None).contains("Limits hit"));
    }

    #[tokio::test]
    async fn limits_hit_in_a_clean_week_are_mailed_even_with_all_clear_mails_off() {
        let d = digest_without("\"tool_error\"").await;
        assert_eq!(d.state(), State::AllClear);
        assert!(d.should_send(false));
        assert!(crate::text::render(&d).contains("LIMITS HIT"));
    }

    #[tokio::test]
    async fn fixture_html_is_mail_safe_and_references_the_chart() {
        let d = digest().await;
        let html = crate::html::render(&d, Some(&crate::html::chart_cid()));
        let lower = html.to_ascii_lowercase();
        for banned in [
            "<script",
            "<style",
            "javascript:",
            " class=",
            "<link",
            "@import",
            "data:",
        ] {
            assert!(!lower.contains(banned), "HTML contains {banned}");
        }
        // Every opening tag that styles itself does so inline; no external resources.
        assert!(!lower.contains("src=\"http"));
        assert!(html.contains(&format!("src=\"cid:{}\"", crate::html::CHART_CONTENT_ID)));
        for needle in [
            "papierkram_invoice_get",
            "19.2 %",
            "NEW",
            "expense_list",
            "Open the dashboard",
        ] {
            assert!(html.contains(needle), "missing {needle}");
        }
        // Tags balance for the table layout.
        for tag in ["table", "tr", "td", "div"] {
            let opened = lower.matches(&format!("<{tag}")).count()
                - lower.matches(&format!("<{tag}x")).count();
            let closed = lower.matches(&format!("</{tag}>")).count();
            assert_eq!(opened, closed, "<{tag}>");
        }
    }

    #[tokio::test]
    async fn fixture_message_parses_with_the_chart_referenced_by_content_id() {
        let d = digest().await;
        let mail = email::compose(&d, &addresses(), NOW.parse().unwrap());
        let root = parse(&mail.raw);
        assert_eq!(
            decode_header_text(root.header("subject").unwrap()),
            "7 tools failing, 2 new — week 48"
        );
        assert_eq!(root.header("from"), Some("digest@example.com"));
        let parts = root.children();
        assert_eq!(parts.len(), 2);
        let alt = parts[0].children();
        let text = String::from_utf8(alt[0].decoded()).unwrap();
        assert_eq!(text, mail.text.replace('\n', "\r\n"));
        let html = String::from_utf8(alt[1].decoded()).unwrap();
        let cid = parts[1]
            .header("content-id")
            .unwrap()
            .trim_matches(['<', '>'])
            .to_string();
        assert!(html.contains(&format!("src=\"cid:{cid}\"")));
        let png = parts[1].decoded();
        assert_eq!(Some(&png), mail.chart_png.as_ref());
        assert!(png.starts_with(b"\x89PNG"));
    }

    /// Two runs over the same events build the same bytes: what SES gets does not depend on
    /// the run, the thread or the order of anything in memory.
    #[tokio::test]
    async fn the_same_digest_gives_the_same_message_bytes() {
        let mut to = addresses();
        to.subject_prefix = "[prod] ".into();
        let first = email::compose(&digest().await, &to, NOW.parse().unwrap()).raw;
        // Computed again: the same log gives the same digest, to the byte.
        let again = computed().await;
        let second = std::thread::spawn(move || email::compose(&again, &to, NOW.parse().unwrap()))
            .join()
            .unwrap()
            .raw;
        assert!(first == second, "the two messages differ");
    }

    #[tokio::test]
    async fn mail_parser_reads_the_fixture_message() {
        use mail_parser::{MessageParser, MimeHeaders};

        let mut to = addresses();
        to.subject_prefix = "[prod] ".into();
        let mail = email::compose(&digest().await, &to, NOW.parse().unwrap());
        let parsed = MessageParser::default().parse(mail.raw.as_bytes()).unwrap();
        assert_eq!(
            parsed.subject(),
            Some("[prod] 7 tools failing, 2 new — week 48")
        );
        let crlf = |s: &str| s.replace('\n', "\r\n");
        assert_eq!(parsed.body_text(0).unwrap(), crlf(&mail.text));
        assert_eq!(
            parsed.body_html(0).unwrap(),
            crlf(mail.html.as_deref().unwrap())
        );
        let png = parsed.attachment(0).expect("the chart");
        assert_eq!(png.content_id(), Some(crate::html::CHART_CONTENT_ID));
        assert_eq!(Some(png.contents()), mail.chart_png.as_deref());
    }

    #[tokio::test]
    async fn an_all_clear_mail_is_short_and_has_no_chart() {
        let clean: String = jsonl()
            .lines()
            .filter(|l| !l.contains("\"tool_error\"") && !l.contains("\"rate_limited\""))
            .map(|l| format!("{l}\n"))
            .collect();
        let engine = LocalInsights::from_jsonl(LOCAL_LOG_GROUP, &clean);
        let d = collect(
            &engine,
            engine.groups(),
            NOW.parse().unwrap(),
            Links::default(),
        )
        .await
        .unwrap();
        assert_eq!(d.subject(), "All clear — week 48");
        let mail = email::compose(&d, &addresses(), NOW.parse().unwrap());
        assert!(mail.chart_png.is_none());
        // Short: totals, the writes that did not fail and latency (10 of 11 tools), no
        // failing-tool detail; searches without a match still say what is missing.
        assert!(!mail.text.contains("TOP FAILING"), "{}", mail.text);
        assert!(mail.text.contains("LATENCY PER TOOL"), "{}", mail.text);
        assert!(mail.text.contains("\nWRITES"), "{}", mail.text);
        assert!(mail.text.lines().count() < 40, "{}", mail.text);
        assert!(
            mail.text
                .contains("No failed tool calls: 630 calls to 11 tools"),
            "{}",
            mail.text
        );
        let root = parse(&mail.raw);
        assert!(
            root.header("content-type")
                .unwrap()
                .starts_with("multipart/alternative")
        );
        assert!(!mail.html.unwrap().contains("cid:"));
    }
}
