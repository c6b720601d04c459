//! The latency and missing-capabilities sections end to end: audit lines through the local
//! engine and the `queries/` files, then the digest and both renderings.

use std::collections::BTreeMap;

use insights::LocalInsights;
use jiff::Timestamp;
use serde_json::{Value, json};

use crate::collect::collect;
use crate::digest::Digest;
use crate::fixture::{self, tests::digest as fixture_digest};
use crate::local::LOCAL_LOG_GROUP;

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
        None,
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
    assert_eq!(d.latency.len(), 9, "8 tools and search_tools");
    for t in &d.latency {
        let mut v = durations[&t.tool].clone();
        v.sort_by(f64::total_cmp);
        assert_eq!(t.calls, v.len() as u64, "{}", t.tool);
        assert_eq!(t.p50, Some(nearest_rank(&v, 50.0)), "{}", t.tool);
        assert_eq!(t.p95, Some(nearest_rank(&v, 95.0)), "{}", t.tool);
        assert_eq!(t.p99, Some(nearest_rank(&v, 99.0)), "{}", t.tool);
        assert!(t.previous_p95.is_some() || t.tool == "project_create");
    }
    let p95s: Vec<f64> = d.latency.iter().map(|t| t.p95.unwrap()).collect();
    assert!(p95s.windows(2).all(|w| w[0] >= w[1]), "slowest first");
    assert!(!d.latency.iter().any(|t| t.tool == "invoice_send"));
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
    // The week before's `mahnung` and `invoice_send` are not this week's.
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
    assert_eq!(tools, [("invoice_send", 3), ("mahnung_create", 1)]);
    // Unknown tools are not failing tools.
    assert!(!d.top.iter().any(|t| t.tool == "invoice_send"));
    assert!(!d.newly_failing.iter().any(|t| t.tool == "invoice_send"));
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
         Unknown tool       Calls\n\
         invoice_send           3\n\
         mahnung_create         1\n\
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
        ">invoice_send</td>",
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
