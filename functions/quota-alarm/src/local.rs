//! The local run's data source: audit lines from JSONL files, and `quota-usage.insights`
//! evaluated over them in code, answering with the same `(field, value)` rows Logs Insights
//! would, so [`crate::usage::UsageRow::from_fields`] reads both.
//!
//! This emulates exactly the one query this crate ships (filter on present quota figures, then
//! `count`, `sum`, `latest` by connector and tool); `latest(x)` takes the latest event that has
//! `x`. When `shared/insights` can run the query file itself, it replaces [`query_rows`].

use std::collections::BTreeMap;

use audit::AuditEvent;
use jiff::Timestamp;

use crate::query::columns;
use crate::report::QueryRange;
use crate::usage::{RowError, UsageRow};

/// Audit events read from JSONL text, in file order, with their parsed time.
#[derive(Debug, Default)]
pub struct AuditLines {
    pub events: Vec<(Timestamp, AuditEvent)>,
    /// Lines that are not audit events (start-up logs, Lambda START/END lines, garbage).
    pub skipped: usize,
}

impl AuditLines {
    /// Adds every audit line of `text`. A line may carry a prefix before its JSON object (as in
    /// exported CloudWatch logs: time, request id, then the object).
    pub fn extend_from_jsonl(&mut self, text: &str) {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let event = line
                .find('{')
                .and_then(|i| serde_json::from_str::<AuditEvent>(&line[i..]).ok())
                .and_then(|e| e.ts.parse::<Timestamp>().ok().map(|t| (t, e)));
            match event {
                Some(e) => self.events.push(e),
                None => self.skipped += 1,
            }
        }
    }
}

/// One row of the query's result, as GetQueryResults returns it.
pub type FieldRow = Vec<(String, String)>;

#[derive(Default)]
struct Group {
    calls: u64,
    consumed: Option<i64>,
    remaining: Option<(Timestamp, i64)>,
    limit: Option<(Timestamp, i64)>,
    last_seen: Option<(Timestamp, String)>,
}

/// `queries/quota-usage.insights` over the events in `range` (both ends included).
pub fn query_rows(lines: &AuditLines, range: QueryRange) -> Vec<FieldRow> {
    let mut groups: BTreeMap<(String, Option<String>), Group> = BTreeMap::new();
    for (at, e) in &lines.events {
        let Some(connector) = &e.connector else {
            continue;
        };
        let has_figures = e.quota_remaining.is_some() || e.quota_consumed.is_some();
        if !has_figures || *at < range.start || *at > range.end {
            continue;
        }
        let g = groups
            .entry((connector.clone(), e.tool.clone()))
            .or_default();
        g.calls += 1;
        if let Some(c) = e.quota_consumed {
            g.consumed = Some(g.consumed.unwrap_or(0) + c);
        }
        let later = |slot: &Option<(Timestamp, i64)>| slot.is_none_or(|(t, _)| *at >= t);
        if let Some(r) = e.quota_remaining.filter(|_| later(&g.remaining)) {
            g.remaining = Some((*at, r));
        }
        if let Some(l) = e.quota_limit.filter(|_| later(&g.limit)) {
            g.limit = Some((*at, l));
        }
        if g.last_seen.as_ref().is_none_or(|(t, _)| *at >= *t) {
            g.last_seen = Some((*at, e.ts.clone()));
        }
    }
    groups
        .into_iter()
        .map(|((connector, tool), g)| {
            let mut row = vec![(columns::CONNECTOR.to_string(), connector)];
            let mut put = |name: &str, value: Option<String>| {
                if let Some(v) = value {
                    row.push((name.to_string(), v));
                }
            };
            put(columns::TOOL, tool);
            put(columns::CALLS, Some(g.calls.to_string()));
            put(columns::CONSUMED, g.consumed.map(|c| c.to_string()));
            put(columns::REMAINING, g.remaining.map(|(_, r)| r.to_string()));
            put(columns::LIMIT, g.limit.map(|(_, l)| l.to_string()));
            put(columns::LAST_SEEN, g.last_seen.map(|(_, ts)| ts));
            row
        })
        .collect()
}

/// Reads field rows the way the Lambda reads GetQueryResults.
pub fn usage_rows(rows: &[FieldRow]) -> Result<Vec<UsageRow>, RowError> {
    rows.iter()
        .map(|r| UsageRow::from_fields(r.iter().map(|(f, v)| (f.as_str(), v.as_str()))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::tests::ts;

    const LOG: &str = r#"
2026-05-02T08:00:00.000Z	req-0	INFO server started
{"v":1,"ts":"2026-04-30T21:59:00.000Z","level":"info","event":"tool_call","tool":"invoices_list","connector":"papierkram","status":"ok","quota_remaining":12,"quota_consumed":1,"quota_limit":10000}
{"v":1,"ts":"2026-05-01T07:00:00.000Z","level":"info","event":"tool_call","tool":"invoices_list","connector":"papierkram","status":"ok","quota_remaining":9999,"quota_consumed":1,"quota_limit":10000}
{"v":1,"ts":"2026-05-01T07:05:00.000Z","level":"error","event":"tool_error","tool":"invoices_list","connector":"papierkram","status":"unavailable"}
{"v":1,"ts":"2026-05-01T08:00:00.000Z","level":"info","event":"tool_call","tool":"info_get","connector":"papierkram","status":"ok","quota_remaining":9997,"quota_consumed":1,"quota_limit":10000}
2026-05-01T08:00:01.000Z	abc	{"v":1,"ts":"2026-05-01T07:30:00.000Z","level":"info","event":"tool_call","tool":"invoices_list","connector":"papierkram","status":"ok","quota_remaining":9998,"quota_consumed":1,"quota_limit":10000}
{"v":1,"ts":"2026-05-01T08:00:00.000Z","level":"info","event":"client_init","client":"claude-ai"}
not json at all
"#;

    fn range() -> QueryRange {
        QueryRange {
            start: ts("2026-04-30T22:00:00Z"),
            end: ts("2026-05-01T09:00:00Z"),
        }
    }

    #[test]
    fn audit_lines_are_read_with_or_without_a_log_prefix() {
        let mut lines = AuditLines::default();
        lines.extend_from_jsonl(LOG);
        assert_eq!(lines.events.len(), 6);
        assert_eq!(lines.skipped, 2);
    }

    #[test]
    fn query_rows_count_sum_and_take_the_latest_per_connector_and_tool() {
        let mut lines = AuditLines::default();
        lines.extend_from_jsonl(LOG);
        let rows = usage_rows(&query_rows(&lines, range())).unwrap();
        assert_eq!(rows.len(), 2);
        let info = &rows[0];
        assert_eq!(info.tool.as_deref(), Some("info_get"));
        assert_eq!((info.calls, info.remaining), (1, Some(9_997)));
        let invoices = &rows[1];
        // April's call is outside the range, the error carried no figures, and the line out of
        // order in the file is still the latest.
        assert_eq!(invoices.calls, 2);
        assert_eq!(invoices.consumed, Some(2));
        assert_eq!(invoices.remaining, Some(9_998));
        assert_eq!(invoices.limit, Some(10_000));
        assert_eq!(invoices.last_seen, Some(ts("2026-05-01T07:30:00Z")));
    }

    #[test]
    fn rows_look_like_get_query_results() {
        let mut lines = AuditLines::default();
        lines.extend_from_jsonl(LOG);
        let rows = query_rows(&lines, range());
        let fields: Vec<&str> = rows[0].iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, columns::ALL);
    }
}
