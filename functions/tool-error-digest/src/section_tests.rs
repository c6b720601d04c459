//! The latency, missing-capabilities and writes sections end to end: audit lines through the local
//! engine and the `queries/` files, then the digest and both renderings.

use std::collections::BTreeMap;

use insights::LocalInsights;
use jiff::Timestamp;
use serde_json::{Value, json};

use crate::collect::{Links, collect};
use crate::digest::{Digest, State};
use crate::fixture::{self, tests::digest as fixture_digest};
use crate::local::LOCAL_LOG_GROUP;
use crate::rows::WriteCounts;

/// Tool, calls, p50, p95, p99, p95 the week before.
type Row<'a> = (
    &'a str,
    u64,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
);

async fn digest_of(lines: &[Value]) -> Digest {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let engine = LocalInsights::from_jsonl(LOCAL_LOG_GROUP, &text);
    collect(
        &engine,
        engine.groups(),
        fixture::NOW.parse().unwrap(),
        Links::default(),
    )
    .await
    .unwrap()
}

fn call(ts: &str, tool: &str, duration_ms: Option<f64>) -> Value {
    let mut line = json!({"v": 1, "ts": ts, "event": "tool_call", "tool": tool, "status": "ok"});
    if let Some(ms) = duration_ms {
        line["duration_ms"] = json!(ms);
    }
    line
}

/// The nearest-rank percentile: the smallest value with at least `p` % of the values at or
/// below it.
fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[tokio::test]
async fn latency_percentiles_of_known_durations_with_the_week_before() {
    let mut lines = Vec::new();
    // a: 1..=100 ms this week (shuffled), 1..=20 ms the week before.
    for k in 0..100 {
        let ms = f64::from((k * 37) % 100 + 1);
        lines.push(call("2026-11-24T10:00:00Z", "a", Some(ms)));
    }
    for ms in 1..=20 {
        lines.push(call("2026-11-17T10:00:00Z", "a", Some(f64::from(ms))));
    }
    // b: three quick calls and one that timed out (failed calls count: a timeout is slow).
    for _ in 0..3 {
        lines.push(call("2026-11-25T10:00:00Z", "b", Some(10.0)));
    }
    let mut timeout = call("2026-11-25T11:00:00Z", "b", Some(1000.0));
    timeout["event"] = json!("tool_error");
    timeout["status"] = json!("upstream_error");
    timeout["reason"] = json!("timeout");
    lines.push(timeout);
    // Not counted: a call without a duration, a call of an unknown tool, one outside the week.
    lines.push(call("2026-11-25T12:00:00Z", "b", None));
    lines.push(
        json!({"v": 1, "ts": "2026-11-25T12:00:00Z", "event": "tool_error", "tool": "b",
        "status": "not_found", "reason": "unknown_tool", "duration_ms": 99999.0}),
    );
    lines.push(call("2026-11-30T00:00:00Z", "b", Some(50000.0)));
    // c: only the week before.
    lines.push(call("2026-11-18T10:00:00Z", "c", Some(5.0)));

    let d = digest_of(&lines).await;
    let got: Vec<Row<'_>> = d
        .latency
        .iter()
        .map(|t| {
            (
                t.tool.as_str(),
                t.calls,
                t.p50,
                t.p95,
                t.p99,
                t.previous_p95,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("b", 4, Some(10.0), Some(1000.0), Some(1000.0), None),
            ("a", 100, Some(50.0), Some(95.0), Some(99.0), Some(19.0)),
        ]
    );
    let text = crate::text::render(&d);
    assert!(
        text.contains(
            "\nLATENCY PER TOOL\n\
             duration_ms of each tool's calls, failed ones included, slowest p95 first; p95 week before in brackets.\n\
             Tool    Calls        p50        p95        p99  p95 week before\n\
             b           4      10 ms   1,000 ms   1,000 ms  – (new)\n\
             a         100      50 ms      95 ms      99 ms  19 ms (up 76 ms)\n"
        ),
        "{text}"
    );
    let html = crate::html::render(&d, None);
    let section = html.find(">Latency per tool</div>").expect("a heading");
    assert!(html[section..].contains("<b>1,000 ms</b>"), "{html}");
    assert!(html[section..].contains("19 ms (up 76 ms)"));
}

#[tokio::test]
async fn fixture_latency_is_the_nearest_rank_percentile_of_each_tools_durations() {
    let d = fixture_digest().await;
    let (start, end): (Timestamp, Timestamp) = (
        "2026-11-23T00:00:00Z".parse().unwrap(),
        "2026-11-30T00:00:00Z".parse().unwrap(),
    );
    let mut durations: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for line in fixture::lines() {
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let ts: Timestamp = v["ts"].as_str().unwrap().parse().unwrap();
        let tool_event = matches!(v["event"].as_str(), Some("tool_call" | "tool_error"));
        if ts < start || ts >= end || !tool_event || v["reason"] == "unknown_tool" {
            continue;
        }
        if let Some(ms) = v["duration_ms"].as_f64() {
            let tool = v["tool"].as_str().unwrap().to_string();
            durations.entry(tool).or_default().push(ms);
        }
    }
    assert_eq!(d.latency.len(), durations.len());
    assert_eq!(
        d.latency.len(),
        11,
        "8 tools, search_tools and 2 write tools"
    );
    for t in &d.latency {
        let mut v = durations[&t.tool].clone();
        v.sort_by(f64::total_cmp);
        assert_eq!(t.calls, v.len() as u64, "{}", t.tool);
        assert_eq!(t.p50, Some(nearest_rank(&v, 50.0)), "{}", t.tool);
        assert_eq!(t.p95, Some(nearest_rank(&v, 95.0)), "{}", t.tool);
        assert_eq!(t.p99, Some(nearest_rank(&v, 99.0)), "{}", t.tool);
        assert!(t.previous_p95.is_some() || t.tool == "papierkram_project_create");
    }
    let p95s: Vec<f64> = d.latency.iter().map(|t| t.p95.unwrap()).collect();
    assert!(p95s.windows(2).all(|w| w[0] >= w[1]), "slowest first");
    assert!(
        !d.latency
            .iter()
            .any(|t| t.tool == "papierkram_invoice_send")
    );
}

#[tokio::test]
async fn fixture_missing_capabilities_are_grouped_and_counted() {
    let d = fixture_digest().await;
    let m = &d.missing;
    let searches: Vec<(&str, u64)> = m
        .searches
        .iter()
        .map(|s| (s.what.as_str(), s.count))
        .collect();
    // The week before's `mahnung` and `papierkram_invoice_send` are not this week's.
    assert_eq!(
        searches,
        [("mahnung lieferschein", 4), ("reisekosten", 2), ("", 1)]
    );
    assert_eq!(m.dropped_words, 3 * 2 + 3);
    let tools: Vec<(&str, u64)> = m
        .unknown_tools
        .iter()
        .map(|s| (s.what.as_str(), s.count))
        .collect();
    assert_eq!(
        tools,
        [("papierkram_invoice_send", 3), ("mahnung_create", 1)]
    );
    // Unknown tools are not failing tools.
    assert!(!d.top.iter().any(|t| t.tool == "papierkram_invoice_send"));
    assert!(
        !d.newly_failing
            .iter()
            .any(|t| t.tool == "papierkram_invoice_send")
    );
}

#[tokio::test]
async fn fixture_text_lists_missing_capabilities_most_first() {
    let text = crate::text::render(&fixture_digest().await);
    let expected = "\n\nMISSING CAPABILITIES (searches that found nothing, calls of tools that do not exist)\n\
         7 searches found nothing (9 further words not in the search vocabulary, not logged); 4 calls named no tool.\n\
         Search words          Searches\n\
         mahnung lieferschein         4\n\
         reisekosten                  2\n\
         (no known word)              1\n\
         Unknown tool                Calls\n\
         papierkram_invoice_send         3\n\
         mahnung_create                  1\n\
         \nLIMITS HIT";
    assert!(text.contains(expected), "{text}");
    // Only the words the audit line kept; the dropped ones are a count, never a word.
    assert!(!text.contains("+2") && !text.contains("+3"), "{text}");
}

#[tokio::test]
async fn fixture_html_lists_missing_capabilities_before_the_limits() {
    let html = crate::html::render(&fixture_digest().await, None);
    let section = html.find(">Missing capabilities</div>").expect("a heading");
    assert!(section < html.find(">Limits hit</div>").unwrap());
    let part = &html[section..html.find(">Limits hit</div>").unwrap()];
    for needle in [
        ">mahnung lieferschein</td>",
        ">4</td>",
        ">(no known word)</td>",
        ">papierkram_invoice_send</td>",
        "9 further words",
    ] {
        assert!(part.contains(needle), "missing {needle} in {part}");
    }
}

#[tokio::test]
async fn a_week_without_misses_has_no_missing_capabilities_section() {
    let lines = [call("2026-11-24T10:00:00Z", "a", Some(5.0))];
    let d = digest_of(&lines).await;
    assert!(d.missing.is_empty());
    assert!(!crate::text::render(&d).contains("MISSING CAPABILITIES"));
    assert!(!crate::html::render(&d, None).contains("Missing capabilities"));
}

/// A write tool's line: the write facts, `extra` on top (status and the rest).
fn write(ts: &str, connector: &str, tool: &str, extra: Value) -> Value {
    let mut line = json!({
        "v": 1, "ts": ts, "event": "tool_call", "tool": tool, "connector": connector,
        "status": "ok", "duration_ms": 40.0, "audit_event": "x.changed", "risk": "high",
        "dry_run": false,
    });
    for (k, v) in extra.as_object().unwrap() {
        line[k] = v.clone();
    }
    // As mcp-server writes them: a confirmation asked is no `tool_error` either.
    if line["status"] != "ok" && line["status"] != "confirmation_required" {
        line["event"] = json!("tool_error");
    }
    line
}

/// `count` copies of `line`.
fn times(count: usize, line: Value) -> Vec<Value> {
    vec![line; count]
}

/// Every way a write call ends, across two connectors, plus lines that are no writes of the
/// week.
fn known_writes() -> Vec<Value> {
    let at = "2026-11-25T10:00:00Z";
    let pay = |extra| write(at, "papierkram", "papierkram_voucher_pay", extra);
    let create = |extra| write(at, "papierkram", "papierkram_company_create", extra);
    let token = |status: &str, reason: &str, idempotency: &str| json!({"status": status, "reason": reason, "confirmation": "token", "idempotency": idempotency});
    let mut lines = Vec::new();
    lines.extend(times(
        2,
        pay(json!({"status": "confirmation_required", "reason": "confirmation_required"})),
    ));
    lines.push(pay(
        json!({"status": "confirmation_required", "reason": "person_confirmation_required"}),
    ));
    lines.push(pay(
        json!({"status": "invalid_input", "reason": "confirmation_refused"}),
    ));
    lines.push(pay(json!({"confirmation": "token", "idempotency": "new"})));
    lines.extend(times(
        2,
        pay(token("outcome_unknown", "outcome_unknown", "unknown")),
    ));
    // A repeat of a write that failed upstream: answered from the ledger, not run again.
    lines.push(pay(token("invalid_input", "replayed", "replayed")));
    lines.push(pay(token("upstream_error", "timeout", "new")));
    // A preview that failed is still a dry run.
    lines.push(pay(json!({"dry_run": true, "status": "not_found"})));
    lines.extend(times(3, create(json!({}))));
    lines.push(create(
        json!({"status": "invalid_input", "reason": "idempotency_conflict", "idempotency": "conflict"}),
    ));
    lines.push(create(
        json!({"reason": "replayed", "idempotency": "replayed"}),
    ));
    lines.push(create(
        json!({"status": "unavailable", "reason": "ledger_full"}),
    ));
    lines.push(create(json!({"dry_run": true})));
    // The same tool name on another connector is another tool.
    lines.push(write(
        at,
        "othercrm",
        "papierkram_company_create",
        json!({"reason": "declined", "confirmation": "elicitation"}),
    ));
    lines.push(write(
        at,
        "othercrm",
        "papierkram_company_create",
        json!({}),
    ));
    // No writes of the week: a read, a budget refusal, the week before, the Monday after.
    lines.push(call(at, "papierkram_invoice_get", Some(5.0)));
    lines.push(
        json!({"v": 1, "ts": at, "event": "rate_limited", "tool": "papierkram_voucher_pay",
        "connector": "papierkram", "status": "rate_limited", "reason": "limit_budget",
        "dry_run": false}),
    );
    lines.push(write(
        "2026-11-18T10:00:00Z",
        "papierkram",
        "papierkram_voucher_pay",
        json!({}),
    ));
    lines.push(write(
        "2026-11-30T00:00:00Z",
        "papierkram",
        "papierkram_voucher_pay",
        token("outcome_unknown", "outcome_unknown", "unknown"),
    ));
    lines
}

#[tokio::test]
async fn writes_of_known_lines_are_counted_per_connector_and_tool_unknown_first() {
    let d = digest_of(&known_writes()).await;
    let got: Vec<(&str, &str, WriteCounts)> = d
        .writes
        .tools
        .iter()
        .map(|t| (t.connector.as_str(), t.tool.as_str(), t.counts))
        .collect();
    let pay = WriteCounts {
        calls: 10,
        executed: 1,
        dry_runs: 1,
        asked: 2,
        refused: 1,
        needs_person: 1,
        replayed: 1,
        outcome_unknown: 2,
        failed: 1,
        ..WriteCounts::default()
    };
    let create = WriteCounts {
        calls: 7,
        executed: 3,
        dry_runs: 1,
        replayed: 1,
        conflicts: 1,
        failed: 1,
        ..WriteCounts::default()
    };
    let other = WriteCounts {
        calls: 2,
        executed: 1,
        declined: 1,
        ..WriteCounts::default()
    };
    assert_eq!(
        got,
        [
            ("papierkram", "papierkram_voucher_pay", pay),
            ("papierkram", "papierkram_company_create", create),
            ("othercrm", "papierkram_company_create", other),
        ]
    );
    let t = d.writes.total;
    assert_eq!((t.calls, t.executed, t.outcome_unknown), (19, 5, 2));
    // Each call counts in exactly one column.
    for c in d.writes.tools.iter().map(|t| t.counts).chain([t]) {
        let columns = c.executed
            + c.dry_runs
            + c.asked
            + c.declined
            + c.refused
            + c.needs_person
            + c.replayed
            + c.conflicts
            + c.outcome_unknown
            + c.failed;
        assert_eq!(columns, c.calls, "{c:?}");
    }
    // Confirmations asked (a critical write that needed a person too) are no failed calls; a
    // refused token and the unknown outcomes are.
    let failing = d
        .top
        .iter()
        .find(|f| f.tool == "papierkram_voucher_pay")
        .unwrap();
    assert_eq!(failing.errors, 6);
    assert!(
        !failing
            .causes
            .iter()
            .any(|c| c.status == "confirmation_required"),
        "{:?}",
        failing.causes
    );
}

#[tokio::test]
async fn writes_text_shows_the_counted_columns_by_connector_and_the_check() {
    let text = crate::text::render(&digest_of(&known_writes()).await);
    let expected = format!(
        "\n\nWRITES (calls of write tools: run, previewed, confirmed, refused)\n\
         19 calls of write tools: 5 executed, 2 dry runs; 2 confirmations asked, 1 declined, 1 refused, 1 needing a person; 2 replayed, 1 idempotency conflict; 2 with the outcome unknown, 2 failed.\n\
         {}\n\
         Check: 2 writes have an unknown outcome: papierkram_voucher_pay (papierkram) 2. They were sent and their answers never recorded: look each up with the matching get or list tool before anyone tries again.\n\
         Tool                       Connector   Calls  Executed  Dry runs  Asked  Declined  Refused  Needs person  Replayed  Conflicts  Unknown  Failed\n\
         papierkram_voucher_pay     papierkram     10         1         1      2         0        1             1         1          0        2       1\n\
         papierkram_company_create  papierkram      7         3         1      0         0        0             0         1          1        0       1\n\
         papierkram_company_create  othercrm        2         1         0      0         1        0             0         0          0        0       0\n\
         \nLATENCY PER TOOL",
        crate::render::writes_legend()
    );
    assert!(text.contains(&expected), "{text}");
    assert!(
        text.contains("Note: 2 writes have an unknown outcome and need a check (see Writes).\n"),
        "{text}"
    );
}

#[tokio::test]
async fn writes_html_marks_unknown_outcomes_and_names_connectors() {
    let html = crate::html::render(&digest_of(&known_writes()).await, None);
    let start = html.find(">Writes</div>").expect("a Writes heading");
    let part = &html[start..html.find(">Latency per tool</div>").unwrap()];
    assert!(
        part.contains("<b>Check:</b> 2 writes have an unknown outcome"),
        "{part}"
    );
    assert!(part.contains(">Connector</td>") && part.contains(">othercrm</td>"));
    let table = &part[..part.find("</table>").unwrap()];
    let rows: Vec<&str> = table.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), 3, "{part}");
    assert!(
        rows[0].contains(">papierkram_voucher_pay</td>"),
        "{}",
        rows[0]
    );
    // The unknown count stands out; zeros in other rows do not.
    assert!(
        rows[0].contains("color:#b42318;\"><b>2</b></td>"),
        "{}",
        rows[0]
    );
    assert!(!rows[1].contains("<b>"), "{}", rows[1]);
}

#[tokio::test]
async fn fixture_writes_are_counted_this_week_with_the_unknown_outcome_first() {
    let d = fixture_digest().await;
    let got: Vec<(&str, WriteCounts)> = d
        .writes
        .tools
        .iter()
        .map(|t| (t.tool.as_str(), t.counts))
        .collect();
    assert_eq!(
        got,
        [
            (
                "papierkram_invoice_cancel",
                WriteCounts {
                    calls: 9,
                    executed: 2,
                    dry_runs: 2,
                    asked: 3,
                    declined: 1,
                    outcome_unknown: 1,
                    ..WriteCounts::default()
                }
            ),
            (
                "papierkram_company_create",
                WriteCounts {
                    calls: 8,
                    executed: 5,
                    dry_runs: 2,
                    replayed: 1,
                    ..WriteCounts::default()
                }
            ),
        ]
    );
    // Its outcome_unknown failed the week before too: failing, not newly failing.
    assert!(
        !d.newly_failing
            .iter()
            .any(|n| n.tool == "papierkram_invoice_cancel")
    );
}

#[tokio::test]
async fn fixture_text_lists_writes_after_the_failures_and_before_latency() {
    let text = crate::text::render(&fixture_digest().await);
    let expected = format!(
        "\n\nWRITES (calls of write tools: run, previewed, confirmed, refused)\n\
         17 calls of write tools: 7 executed, 4 dry runs; 3 confirmations asked, 1 declined, 0 refused, 0 needing a person; 1 replayed, 0 idempotency conflicts; 1 with the outcome unknown, 0 failed.\n\
         {}\n\
         Check: 1 write has an unknown outcome: papierkram_invoice_cancel (papierkram) 1. It was sent and its answer never recorded: look it up with the matching get or list tool before anyone tries again.\n\
         Tool                       Calls  Executed  Dry runs  Asked  Declined  Replayed  Unknown\n\
         papierkram_invoice_cancel      9         2         2      3         1         0        1\n\
         papierkram_company_create      8         5         2      0         0         1        0\n\
         \nLATENCY PER TOOL",
        crate::render::writes_legend()
    );
    assert!(text.contains(&expected), "{text}");
    assert!(text.find("FAILED CALLS PER DAY").unwrap() < text.find("\nWRITES").unwrap());
}

#[tokio::test]
async fn confirmations_asked_are_no_failed_calls() {
    let at = "2026-11-24T10:00:00Z";
    let ask = json!({"status": "confirmation_required", "reason": "confirmation_required"});
    let mut lines = times(2, write(at, "papierkram", "papierkram_company_delete", ask));
    lines.push(write(
        at,
        "papierkram",
        "papierkram_company_delete",
        json!({"confirmation": "token", "idempotency": "new"}),
    ));
    let d = digest_of(&lines).await;
    assert_eq!(d.state(), State::AllClear);
    assert_eq!((d.totals.calls, d.totals.errors), (3, 0));
    assert_eq!(d.writes.total.asked, 2);
    assert_eq!(d.writes.total.executed, 1);
    let text = crate::text::render(&d);
    assert!(
        !text.contains("Check:") && !text.contains("Note:"),
        "{text}"
    );
}

#[tokio::test]
async fn a_person_asked_to_connect_is_no_failed_call() {
    let at = "2026-11-24T10:00:00Z";
    let mut lines = vec![call(at, "mail_me_get", Some(4.0))];
    for reason in ["no_person", "not_connected", "grant_refused"] {
        lines.push(
            json!({"v": 1, "ts": at, "level": "info", "event": "connection_required",
                          "tool": "mail_me_get", "connector": "mail",
                          "status": "connection_required", "reason": reason,
                          "duration_ms": 2.0}),
        );
    }
    let d = digest_of(&lines).await;
    assert_eq!(d.state(), State::AllClear);
    assert_eq!((d.totals.calls, d.totals.errors), (1, 0));
    assert!(d.top.is_empty());
}

#[tokio::test]
async fn a_week_without_writes_has_no_writes_section() {
    let lines = [call("2026-11-24T10:00:00Z", "a", Some(5.0))];
    let d = digest_of(&lines).await;
    assert!(d.writes.is_empty());
    assert!(!crate::text::render(&d).contains("WRITES"));
    assert!(!crate::html::render(&d, None).contains(">Writes</div>"));
}

/// The audit lines mcp-server writes for every way a write asks for a confirmation (the token
/// result, the 2026-07-28 form, a critical write refused for want of a person, with and without
/// a token, and a declined form). mcp-server's
/// `http::confirmation_audit_lines_are_the_ones_the_digest_is_tested_with` checks that it still
/// writes exactly these.
const CONFIRMATIONS: &str = include_str!("../tests/fixtures/confirmations.jsonl");

#[tokio::test]
async fn confirmations_as_the_server_writes_them_are_no_failed_calls() {
    let lines: Vec<Value> = CONFIRMATIONS
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let d = digest_of(&lines).await;
    assert_eq!((d.totals.calls, d.totals.errors), (7, 0), "{:?}", d.top);
    assert_eq!(d.state(), State::AllClear);
    assert!(d.top.is_empty() && d.newly_failing.is_empty());
    assert!(
        d.chart
            .series
            .iter()
            .all(|(_, days)| days.iter().all(|n| *n == 0))
    );
    let w = d.writes.total;
    assert_eq!(
        (w.calls, w.asked, w.needs_person, w.declined, w.failed),
        (7, 4, 2, 1, 0)
    );
    // The samples' filter, which the digest runs only for failing tools, finds none either.
    let events: Vec<insights::Event> = CONFIRMATIONS
        .lines()
        .filter_map(|l| insights::event_from_json_line(l, LOCAL_LOG_GROUP))
        .collect();
    let range = insights::TimeRange {
        start: "2026-11-23T00:00:00Z".parse().unwrap(),
        end: fixture::NOW.parse().unwrap(),
    };
    for tool in ["demo_invoice_archive", "demo_invoice_deliver"] {
        let text = crate::queries::FAILING_SAMPLES
            .replace(crate::queries::TOOL_PLACEHOLDER, &format!("\"{tool}\""));
        let rows = insights::run(&insights::parse(&text).unwrap(), &events, range).unwrap();
        assert!(rows.is_empty(), "{tool}: {rows:?}");
    }
}

/// A call of a tool that spends, as mcp-server writes it: the spend only when it spent.
fn spending(ts: &str, connector: &str, tool: &str, spend: Option<(u64, &str)>) -> Value {
    let mut line = json!({"v": 1, "ts": ts, "event": "tool_call", "tool": tool,
                          "connector": connector, "status": "ok", "dry_run": false});
    if let Some((amount, unit)) = spend {
        line["spend"] = json!(amount);
        line["spend_unit"] = json!(unit);
    }
    line
}

#[tokio::test]
async fn spend_of_known_lines_is_summed_per_connector_in_its_unit_and_per_tool() {
    let at = "2026-11-25T10:00:00Z";
    let predictions = Some((1, "predictions"));
    let mut lines = Vec::new();
    lines.extend(times(
        3,
        spending(at, "replicate", "replicate_prediction_create", predictions),
    ));
    lines.push(spending(
        at,
        "replicate",
        "replicate_deployment_prediction_create",
        predictions,
    ));
    for credits in [50, 120, 6] {
        lines.push(spending(
            at,
            "runway",
            "runway_image_to_video",
            Some((credits, "credits")),
        ));
    }
    lines.push(spending(
        at,
        "runway",
        "runway_text_to_image",
        Some((8, "credits")),
    ));
    // Spent nothing: a dry run, a refusal, the week before, the Monday after.
    lines.push(spending(at, "runway", "runway_image_to_video", None));
    lines.push(
        json!({"v": 1, "ts": at, "event": "rate_limited", "tool": "runway_image_to_video",
        "connector": "runway", "status": "rate_limited", "reason": "spend_budget"}),
    );
    for ts in ["2026-11-18T10:00:00Z", "2026-11-30T00:00:00Z"] {
        lines.push(spending(
            ts,
            "runway",
            "runway_image_to_video",
            Some((500, "credits")),
        ));
    }
    let d = digest_of(&lines).await;
    type Shape<'a> = (&'a str, &'a str, u64, u64, Vec<(&'a str, u64, u64)>);
    let got: Vec<Shape<'_>> = d
        .spend
        .iter()
        .map(|c| {
            let tools = c
                .tools
                .iter()
                .map(|t| (t.tool.as_str(), t.spent, t.calls))
                .collect();
            (
                c.connector.as_str(),
                c.unit.as_str(),
                c.spent,
                c.calls,
                tools,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "runway",
                "credits",
                184,
                4,
                vec![
                    ("runway_image_to_video", 176, 3),
                    ("runway_text_to_image", 8, 1)
                ]
            ),
            (
                "replicate",
                "predictions",
                4,
                4,
                vec![
                    ("replicate_prediction_create", 3, 3),
                    ("replicate_deployment_prediction_create", 1, 1)
                ]
            ),
        ]
    );
    let text = crate::text::render(&d);
    assert!(
        text.contains(
            "\n\nSPEND PER CONNECTOR AND PER TOOL\n\
             In each upstream's own unit, from the calls that started something there (a refused \
             call, a dry run or an upstream error spent nothing).\n\
             runway: 184 credits in 4 calls\n\
             \x20 runway_image_to_video        176 credits\n\
             \x20 runway_text_to_image           8 credits\n\
             replicate: 4 predictions in 4 calls\n"
        ),
        "{text}"
    );
    let html = crate::html::render(&d, None);
    assert!(html.contains("Spend per connector and per tool"), "{html}");
    assert!(html.contains("runway: 184 credits in 4 calls"), "{html}");
}

#[tokio::test]
async fn a_week_without_spending_has_no_spend_section() {
    let d = fixture_digest().await;
    assert!(d.spend.is_empty());
    assert!(!crate::text::render(&d).contains("SPEND"));
}
