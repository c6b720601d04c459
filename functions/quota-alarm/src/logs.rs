//! [`LogsQuery`] on CloudWatch Logs: StartQuery over the log groups (50 per query, the API's
//! limit), then GetQueryResults with backoff until the query completes, fails or our deadline
//! passes (then StopQuery, so it stops counting against the concurrent-query quota).

use std::time::Duration;

use aws_sdk_cloudwatchlogs::Client;
use aws_sdk_cloudwatchlogs::error::DisplayErrorContext;
use aws_sdk_cloudwatchlogs::types::{QueryStatus, ResultField};

use crate::handler::{LogsQuery, QueryError};
use crate::local::FieldRow;
use crate::report::QueryRange;

/// StartQuery accepts at most this many log group names.
pub const MAX_GROUPS_PER_QUERY: usize = 50;
/// Rows per query (the API's maximum); one row per connector and tool.
const MAX_ROWS: i32 = 10_000;
const FIRST_POLL: Duration = Duration::from_millis(250);
const MAX_POLL: Duration = Duration::from_secs(2);

/// Logs Insights through the SDK client (built once in `main`).
#[derive(Debug, Clone)]
pub struct CloudWatchInsights {
    pub client: Client,
    /// How long one query may run.
    pub timeout: Duration,
}

/// What a GetQueryResults status means for the poll loop.
#[derive(Debug, PartialEq, Eq)]
pub enum Poll {
    Complete,
    Ended(String),
    Pending,
}

pub fn poll(status: Option<&QueryStatus>) -> Poll {
    match status {
        Some(QueryStatus::Complete) => Poll::Complete,
        Some(s @ (QueryStatus::Failed | QueryStatus::Cancelled | QueryStatus::Timeout)) => {
            Poll::Ended(s.as_str().to_string())
        }
        // Scheduled, Running, Unknown, or a status newer than this SDK: ask again.
        _ => Poll::Pending,
    }
}

/// The wait before poll `attempt` (0-based): 250 ms, doubling, at most 2 s.
pub fn backoff(attempt: u32) -> Duration {
    FIRST_POLL
        .checked_mul(1 << attempt.min(8))
        .unwrap_or(MAX_POLL)
        .min(MAX_POLL)
}

fn api<E: std::error::Error>(operation: &'static str) -> impl Fn(E) -> QueryError {
    move |e| QueryError::Api {
        operation,
        message: DisplayErrorContext(&e).to_string(),
    }
}

fn field_row(fields: &[ResultField]) -> FieldRow {
    fields
        .iter()
        .filter_map(|f| Some((f.field()?.to_string(), f.value().unwrap_or("").to_string())))
        .collect()
}

impl CloudWatchInsights {
    async fn query(
        &self,
        groups: &[String],
        range: QueryRange,
        query: &str,
    ) -> Result<Vec<FieldRow>, QueryError> {
        let started = self
            .client
            .start_query()
            .set_log_group_names(Some(groups.to_vec()))
            .start_time(range.start.as_second())
            .end_time(range.end.as_second())
            .query_string(query)
            .limit(MAX_ROWS)
            .send()
            .await
            .map_err(api("StartQuery"))?;
        let query_id = started.query_id().unwrap_or_default().to_string();
        let deadline = tokio::time::Instant::now() + self.timeout;
        let mut attempt = 0;
        loop {
            tokio::time::sleep(backoff(attempt)).await;
            attempt += 1;
            let out = self
                .client
                .get_query_results()
                .query_id(&query_id)
                .send()
                .await
                .map_err(api("GetQueryResults"))?;
            match poll(out.status()) {
                Poll::Complete => return Ok(out.results().iter().map(|r| field_row(r)).collect()),
                Poll::Ended(status) => return Err(QueryError::Ended { query_id, status }),
                Poll::Pending if tokio::time::Instant::now() >= deadline => {
                    let stop = self.client.stop_query().query_id(&query_id).send().await;
                    if let Err(e) = stop {
                        tracing::warn!(error = %DisplayErrorContext(&e), "StopQuery failed");
                    }
                    let seconds = self.timeout.as_secs();
                    return Err(QueryError::Deadline { query_id, seconds });
                }
                Poll::Pending => {}
            }
        }
    }
}

impl LogsQuery for CloudWatchInsights {
    async fn rows(
        &self,
        groups: &[String],
        range: QueryRange,
        query: &str,
    ) -> Result<Vec<FieldRow>, QueryError> {
        let mut rows = Vec::new();
        for chunk in groups.chunks(MAX_GROUPS_PER_QUERY) {
            rows.extend(self.query(chunk, range, query).await?);
        }
        Ok(rows)
    }

    async fn groups_with_prefix(&self, prefix: &str) -> Result<Vec<String>, QueryError> {
        let groups = self
            .client
            .describe_log_groups()
            .log_group_name_prefix(prefix)
            .into_paginator()
            .items()
            .send()
            .try_collect()
            .await
            .map_err(api("DescribeLogGroups"))?;
        Ok(groups
            .iter()
            .filter_map(|g| g.log_group_name().map(str::to_string))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_status_decides_between_done_failed_and_again() {
        assert_eq!(poll(Some(&QueryStatus::Complete)), Poll::Complete);
        for s in [
            QueryStatus::Failed,
            QueryStatus::Cancelled,
            QueryStatus::Timeout,
        ] {
            assert_eq!(poll(Some(&s)), Poll::Ended(s.as_str().to_string()));
        }
        for s in [
            Some(QueryStatus::Scheduled),
            Some(QueryStatus::Running),
            Some(QueryStatus::from("SomethingNew")),
            None,
        ] {
            assert_eq!(poll(s.as_ref()), Poll::Pending, "{s:?}");
        }
    }

    #[test]
    fn backoff_doubles_from_a_quarter_second_up_to_two() {
        let waits: Vec<u128> = (0..6).map(|a| backoff(a).as_millis()).collect();
        assert_eq!(waits, [250, 500, 1000, 2000, 2000, 2000]);
        assert_eq!(backoff(u32::MAX), MAX_POLL);
    }

    #[test]
    fn result_fields_become_field_value_pairs() {
        let row = vec![
            ResultField::builder()
                .field("connector")
                .value("papierkram")
                .build(),
            ResultField::builder().field("remaining").build(),
            ResultField::builder().value("orphan").build(),
        ];
        assert_eq!(
            field_row(&row),
            [
                ("connector".to_string(), "papierkram".to_string()),
                ("remaining".to_string(), String::new()),
            ]
        );
    }
}
