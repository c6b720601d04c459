//! The local run's data source: audit lines from JSONL files, one log group per file, queried
//! by the local Logs Insights engine (`shared/insights`) with the query text the Lambda sends.
//! [`LocalInsights`] is a [`LogsQuery`], so the local run goes through [`crate::handle`] like
//! the Lambda, and the two differ only in where the `(field, value)` rows come from.

use insights::{Event, TimeRange};

use crate::handler::{LogsQuery, QueryError};
use crate::probe::{Answer, Credentials, ProbeError, ProbeSpec, Prober};
use crate::report::QueryRange;

/// One row of the query's result, as GetQueryResults returns it.
pub type FieldRow = insights::FieldRow;

/// The local engine over audit events read once.
#[derive(Debug, Clone, Default)]
pub struct LocalInsights {
    /// Every event, its `@log` the log group (file) it was read from.
    events: Vec<Event>,
    /// The log groups, in the order they were added.
    groups: Vec<String>,
    /// Lines that are not audit events (start-up logs, Lambda START/END lines, garbage).
    skipped: usize,
}

impl LocalInsights {
    /// Adds the audit lines of `text` as log group `group`. A line may carry a prefix before its
    /// JSON object (as in exported CloudWatch logs: time, request id, then the object); blank
    /// lines are ignored, other lines without an audit object are counted as skipped.
    pub fn add_jsonl(&mut self, group: &str, text: &str) {
        if !self.groups.iter().any(|g| g == group) {
            self.groups.push(group.to_string());
        }
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match insights::event_from_json_line(line, group) {
                Some(event) => self.events.push(event),
                None => self.skipped += 1,
            }
        }
    }

    /// The log groups added so far.
    pub fn groups(&self) -> &[String] {
        &self.groups
    }

    /// How many audit events were read.
    pub fn events(&self) -> usize {
        self.events.len()
    }

    /// How many non-empty lines were not audit events.
    pub fn skipped(&self) -> usize {
        self.skipped
    }
}

/// The engine refuses a query where CloudWatch's StartQuery would (MalformedQueryException).
fn refused(operation: &'static str, e: insights::QueryError) -> QueryError {
    QueryError::Api {
        operation,
        message: format!("local engine: {e}"),
    }
}

impl LogsQuery for LocalInsights {
    async fn rows(
        &self,
        groups: &[String],
        range: QueryRange,
        query: &str,
    ) -> Result<Vec<FieldRow>, QueryError> {
        let parsed = insights::parse(query).map_err(|e| refused("StartQuery", e))?;
        let events: Vec<Event> = self
            .events
            .iter()
            .filter(|e| groups.contains(&e.log_group))
            .cloned()
            .collect();
        let range = TimeRange {
            start: range.start,
            end: range.end,
        };
        let rows =
            insights::run(&parsed, &events, range).map_err(|e| refused("GetQueryResults", e))?;
        Ok(insights::to_results(&rows))
    }

    async fn groups_with_prefix(&self, prefix: &str) -> Result<Vec<String>, QueryError> {
        Ok(self
            .groups
            .iter()
            .filter(|g| g.starts_with(prefix))
            .cloned()
            .collect())
    }
}

/// The local run's prober. Its `Deps` declare no probes, so it is never asked; if it were, it
/// would answer like a deployment without a secret rather than call an upstream.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProbes;

impl Prober for NoProbes {
    async fn credentials(&self) -> Result<Credentials, ProbeError> {
        Err(ProbeError::NoSecret)
    }

    async fn probe(&self, _: &ProbeSpec, _: &Credentials) -> Result<Answer, ProbeError> {
        Err(ProbeError::NoSecret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{columns, quota_usage};
    use crate::usage::UsageRow;
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

    fn local() -> LocalInsights {
        let mut logs = LocalInsights::default();
        logs.add_jsonl("a.jsonl", LOG);
        logs
    }

    async fn usage(logs: &LocalInsights, groups: &[String]) -> Vec<UsageRow> {
        let rows = logs.rows(groups, range(), &quota_usage()).await.unwrap();
        rows.iter()
            .map(|r| UsageRow::from_fields(r.iter().map(|(f, v)| (f.as_str(), v.as_str()))))
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn audit_lines_are_read_with_or_without_a_log_prefix() {
        let logs = local();
        assert_eq!(logs.events(), 6);
        assert_eq!(logs.skipped(), 2);
        assert_eq!(logs.groups(), ["a.jsonl"]);
    }

    #[tokio::test]
    async fn the_usage_query_counts_sums_and_takes_the_latest_per_connector_and_tool() {
        let logs = local();
        let rows = usage(&logs, logs.groups()).await;
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

    #[tokio::test]
    async fn rows_look_like_get_query_results() {
        let logs = local();
        let rows = logs
            .rows(logs.groups(), range(), &quota_usage())
            .await
            .unwrap();
        let fields: Vec<&str> = rows[0].iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, columns::ALL);
    }

    #[tokio::test]
    async fn only_the_asked_log_groups_are_queried() {
        let mut logs = local();
        let other = LOG.replace("\"papierkram\"", "\"other\"");
        logs.add_jsonl("b.jsonl", &other);
        assert_eq!(logs.groups(), ["a.jsonl", "b.jsonl"]);
        let both = usage(&logs, logs.groups()).await;
        assert_eq!(both.len(), 4);
        let b = usage(&logs, &["b.jsonl".to_string()]).await;
        assert!(b.iter().all(|r| r.connector == "other"), "{b:?}");
        assert_eq!(b.len(), 2);
        let prefixed = logs.groups_with_prefix("b.").await.unwrap();
        assert_eq!(prefixed, ["b.jsonl"]);
    }

    #[tokio::test]
    async fn a_query_the_engine_refuses_fails_as_start_query_would() {
        let logs = local();
        let err = logs
            .rows(logs.groups(), range(), "stats stddev(quota_remaining)")
            .await
            .unwrap_err();
        let QueryError::Api { operation, message } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(*operation, "StartQuery");
        assert!(message.starts_with("local engine: stats"), "{message}");
    }
}
