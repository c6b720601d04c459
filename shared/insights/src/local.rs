//! The local engine as a [`LogsQuery`]: audit events read once from JSON lines, each text one
//! log group, queried with the query text the Lambda sends, so a function's local run goes
//! through the same handler code as on Lambda and differs only in where the rows come from.

use crate::cloudwatch::{CloudWatchError, LogsQuery};
use crate::{Event, FieldRow, TimeRange};

/// Audit events by log group, read once.
#[derive(Debug, Clone, Default)]
pub struct LocalInsights {
    /// Every event, its `@log` the group it was added as.
    events: Vec<Event>,
    /// The log groups, in the order they were added.
    groups: Vec<String>,
    /// Lines that are not audit events (start-up logs, Lambda START/END lines, garbage).
    skipped: usize,
}

impl LocalInsights {
    /// One log group `group` holding the audit lines of `text` (see [`LocalInsights::add_jsonl`]).
    pub fn from_jsonl(group: &str, text: &str) -> LocalInsights {
        let mut logs = LocalInsights::default();
        logs.add_jsonl(group, text);
        logs
    }

    /// Adds the audit lines of `text` to log group `group`. A line may carry a prefix before its
    /// JSON object (as in exported CloudWatch logs: time, request id, then the object); blank
    /// lines are ignored, other lines without an audit object are counted as skipped.
    pub fn add_jsonl(&mut self, group: &str, text: &str) {
        if !self.groups.iter().any(|g| g == group) {
            self.groups.push(group.to_string());
        }
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match crate::event_from_json_line(line, group) {
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

/// The engine refuses a query where CloudWatch would (MalformedQueryException from StartQuery);
/// a failure while running would surface on CloudWatch when polling for results.
fn refused(operation: &'static str, e: crate::QueryError) -> CloudWatchError {
    CloudWatchError::Api {
        operation,
        message: format!("local engine: {e}"),
    }
}

impl LogsQuery for LocalInsights {
    async fn rows(
        &self,
        groups: &[String],
        range: TimeRange,
        query: &str,
    ) -> Result<Vec<FieldRow>, CloudWatchError> {
        let parsed = crate::parse(query).map_err(|e| refused("StartQuery", e))?;
        let events: Vec<Event> = self
            .events
            .iter()
            .filter(|e| groups.contains(&e.log_group))
            .cloned()
            .collect();
        let rows =
            crate::run(&parsed, &events, range).map_err(|e| refused("GetQueryResults", e))?;
        Ok(crate::to_results(&rows))
    }

    async fn groups_with_prefix(&self, prefix: &str) -> Result<Vec<String>, CloudWatchError> {
        Ok(self
            .groups
            .iter()
            .filter(|g| g.starts_with(prefix))
            .cloned()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use super::*;
    use crate::testutil::all_time;

    const LOG: &str = r#"
2026-05-02T08:00:00.000Z	req-0	INFO server started
{"ts":"2026-05-01T07:00:00.000Z","event":"tool_call","tool":"papierkram_invoices_list","status":"ok"}
2026-05-01T08:00:01.000Z	abc	{"ts":"2026-05-01T07:30:00.000Z","event":"tool_call","tool":"papierkram_info_get","status":"ok"}

{"ts":"2026-05-01T08:00:00.000Z","event":"tool_error","tool":"papierkram_invoices_list","status":"unavailable"}
not json at all
"#;

    /// The engine never waits, so one poll finishes its futures without a runtime (this crate
    /// has none without the `cloudwatch` feature).
    fn now<T>(future: impl Future<Output = T>) -> T {
        match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(value) => value,
            Poll::Pending => panic!("the local engine waited"),
        }
    }

    fn calls(logs: &LocalInsights, groups: &[String]) -> Vec<FieldRow> {
        let query = "stats count(*) as calls by tool";
        now(logs.rows(groups, all_time(), query)).unwrap()
    }

    fn row(tool: &str, calls: &str) -> FieldRow {
        vec![("tool".into(), tool.into()), ("calls".into(), calls.into())]
    }

    #[test]
    fn audit_lines_are_read_with_or_without_a_log_prefix() {
        let logs = LocalInsights::from_jsonl("a.jsonl", LOG);
        assert_eq!((logs.events(), logs.skipped()), (3, 2));
        assert_eq!(logs.groups(), ["a.jsonl"]);
        assert_eq!(
            calls(&logs, logs.groups()),
            [
                row("papierkram_info_get", "1"),
                row("papierkram_invoices_list", "2")
            ]
        );
    }

    #[test]
    fn only_the_asked_log_groups_are_queried() {
        let mut logs = LocalInsights::from_jsonl("a.jsonl", LOG);
        logs.add_jsonl(
            "b.jsonl",
            &LOG.replace("papierkram_info_get", "papierkram_other_get"),
        );
        logs.add_jsonl("a.jsonl", "");
        assert_eq!(logs.groups(), ["a.jsonl", "b.jsonl"]);
        assert_eq!(calls(&logs, logs.groups()).len(), 3);
        let b = calls(&logs, &["b.jsonl".to_string()]);
        assert_eq!(
            b,
            [
                row("papierkram_invoices_list", "2"),
                row("papierkram_other_get", "1")
            ]
        );
        assert!(calls(&logs, &[]).is_empty());
        let prefixed = now(logs.groups_with_prefix("b.")).unwrap();
        assert_eq!(prefixed, ["b.jsonl"]);
    }

    #[test]
    fn a_query_the_engine_refuses_fails_as_start_query_would() {
        let logs = LocalInsights::from_jsonl("a.jsonl", LOG);
        let err = now(logs.rows(logs.groups(), all_time(), "stats stddev(n)")).unwrap_err();
        let CloudWatchError::Api { operation, message } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(*operation, "StartQuery");
        assert!(message.starts_with("local engine: stats"), "{message}");
    }
}
