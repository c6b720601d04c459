//! End to end: audit JSON lines in, GetQueryResults-shaped strings out, for the query shapes
//! `queries/` uses. Expected values are worked out by hand from the fixture below.

use insights::{TimeRange, event_from_json_line, parse, run, to_results};

const FIXTURE: &str = r#"{"v":1,"ts":"2024-05-01T08:00:00.000Z","level":"info","event":"client_init","client":"claude","request_id":"r0"}
{"v":1,"ts":"2024-05-01T08:01:00.000Z","level":"info","event":"tool_call","tool":"list_invoices","connector":"papierkram","status":"ok","duration_ms":120.5,"request_id":"r1","arg_keys":["from","to"],"quota_remaining":95,"quota_consumed":5}
{"v":1,"ts":"2024-05-01T08:02:00.000Z","level":"warn","event":"tool_call","tool":"get_invoice","connector":"papierkram","status":"not_found","reason":"no_such_id","duration_ms":80,"request_id":"r2","arg_keys":["id"],"quota_remaining":94,"quota_consumed":6}
{"v":1,"ts":"2024-05-01T09:30:00.000Z","level":"error","event":"tool_error","tool":"get_invoice","connector":"papierkram","status":"upstream_error","reason":"timeout","duration_ms":3000,"request_id":"r3"}
{"v":1,"ts":"2024-05-02T10:00:00.000Z","level":"warn","event":"tool_call","tool":"get_invoice","connector":"papierkram","status":"not_found","reason":"no_such_id","duration_ms":60,"request_id":"r4","quota_remaining":90,"quota_consumed":10}
{"v":1,"ts":"2024-05-02T11:00:00.000Z","level":"info","event":"tool_call","tool":"search_contacts","connector":"crm","status":"ok","duration_ms":40,"request_id":"r5","quota_remaining":499,"quota_consumed":1}
not json at all
{"v":1,"ts":"2024-05-03T00:00:00.001Z","level":"info","event":"tool_call","tool":"list_invoices","connector":"papierkram","status":"ok","duration_ms":10,"request_id":"r6"}
"#;

fn results(query: &str) -> Vec<Vec<(String, String)>> {
    let events: Vec<_> = FIXTURE
        .lines()
        .filter_map(|l| event_from_json_line(l, "123456789012:/aws/lambda/mcp-server"))
        .collect();
    assert_eq!(events.len(), 7, "the non-JSON line is skipped");
    let range = TimeRange {
        start: "2024-05-01T00:00:00Z".parse().unwrap(),
        end: "2024-05-03T00:00:00Z".parse().unwrap(),
    };
    let query = parse(query).unwrap_or_else(|e| panic!("{e}"));
    to_results(&run(&query, &events, range).unwrap())
}

fn row(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn error_digest_groups_failures_by_tool_status_and_reason() {
    let got = results(
        r#"fields @timestamp, tool, status, reason
           | filter event = "tool_error" or (event = "tool_call" and status != "ok")
           | stats count(*) as errors, latest(@timestamp) as last_seen by tool, status, reason
           | sort errors desc
           | limit 20"#,
    );
    assert_eq!(
        got,
        vec![
            row(&[
                ("tool", "get_invoice"),
                ("status", "not_found"),
                ("reason", "no_such_id"),
                ("errors", "2"),
                ("last_seen", "2024-05-02 10:00:00.000")
            ]),
            row(&[
                ("tool", "get_invoice"),
                ("status", "upstream_error"),
                ("reason", "timeout"),
                ("errors", "1"),
                ("last_seen", "2024-05-01 09:30:00.000")
            ]),
        ]
    );
}

#[test]
fn error_rate_per_tool() {
    let got = results(
        r#"filter event in ["tool_call", "tool_error"] | stats count(*) as calls, sum(status != "ok") as errors by tool"#,
    );
    assert_eq!(
        got,
        vec![
            row(&[("tool", "get_invoice"), ("calls", "3"), ("errors", "3")]),
            row(&[("tool", "list_invoices"), ("calls", "1"), ("errors", "0")]),
            row(&[("tool", "search_contacts"), ("calls", "1"), ("errors", "0")]),
        ]
    );
}

#[test]
fn events_per_day() {
    // The 2024-05-03T00:00:00.001Z event is just past the range end and not counted.
    assert_eq!(
        results("stats count(*) by bin(1d)"),
        vec![
            row(&[("bin(1d)", "2024-05-01 00:00:00.000"), ("count(*)", "4")]),
            row(&[("bin(1d)", "2024-05-02 00:00:00.000"), ("count(*)", "2")]),
        ]
    );
}

#[test]
fn quota_per_connector() {
    assert_eq!(
        results(
            "filter ispresent(quota_remaining) | stats latest(quota_remaining) as remaining, max(quota_consumed) by connector"
        ),
        vec![
            row(&[
                ("connector", "crm"),
                ("remaining", "499"),
                ("max(quota_consumed)", "1")
            ]),
            row(&[
                ("connector", "papierkram"),
                ("remaining", "90"),
                ("max(quota_consumed)", "10")
            ]),
        ]
    );
}

#[test]
fn parse_display_like_and_pct() {
    let got = results(
        r#"filter tool like /invoice/ | parse @message "\"reason\":\"*\"" as why | display request_id, why | sort request_id asc"#,
    );
    assert_eq!(
        got,
        vec![
            row(&[("request_id", "r1")]),
            row(&[("request_id", "r2"), ("why", "no_such_id")]),
            row(&[("request_id", "r3"), ("why", "timeout")]),
            row(&[("request_id", "r4"), ("why", "no_such_id")])
        ]
    );
    // duration_ms of the five calls with a tool inside the range, nearest rank: 40, 60, 80,
    // 120.5, 3000 -> p95 is the 5th value, p50 the 3rd.
    assert_eq!(
        results(
            "filter ispresent(tool) | stats pct(duration_ms, 95) as p95, pct(duration_ms, 50) as p50, count(*) as n"
        ),
        vec![row(&[("p95", "3000"), ("p50", "80"), ("n", "5")])]
    );
}

#[test]
fn recent_requests_show_array_items_by_position() {
    assert_eq!(
        results(
            "filter ispresent(arg_keys.0) | display request_id, @timestamp, reason, arg_keys, arg_keys.0"
        ),
        vec![
            row(&[
                ("request_id", "r2"),
                ("@timestamp", "2024-05-01 08:02:00.000"),
                ("reason", "no_such_id"),
                ("arg_keys.0", "id")
            ]),
            row(&[
                ("request_id", "r1"),
                ("@timestamp", "2024-05-01 08:01:00.000"),
                ("arg_keys.0", "from")
            ]),
        ]
    );
}
