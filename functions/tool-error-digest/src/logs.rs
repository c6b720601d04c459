//! [`LogsQuery`] on CloudWatch Logs: `StartQuery` over the audit log groups (at most 50 per
//! query, the API's limit, so more groups run in batches), then `GetQueryResults` with backoff
//! until the query is `Complete`; `Failed`, `Cancelled` and `Timeout` end it with an error, and
//! so does our own deadline (after `StopQuery`, so it stops counting against the account's
//! concurrent-query quota).

use std::time::Duration;

use aws_sdk_cloudwatchlogs::Client;
use aws_sdk_cloudwatchlogs::error::DisplayErrorContext;
use aws_sdk_cloudwatchlogs::types::{QueryStatus, ResultField};
use insights::TimeRange;

use crate::collect::{LogsQuery, MAX_ROWS, QueryError};
use crate::rows::FieldRow;

/// StartQuery accepts at most this many log group names.
pub const MAX_GROUPS_PER_QUERY: usize = 50;
const FIRST_POLL: Duration = Duration::from_millis(500);
const MAX_POLL: Duration = Duration::from_secs(5);

/// Logs Insights through the SDK client built once in `main`.
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

/// The wait before poll `attempt` (0-based): half a second, doubling, at most 5 s.
pub fn backoff(attempt: u32) -> Duration {
    FIRST_POLL
        .checked_mul(1 << attempt.min(8))
        .unwrap_or(MAX_POLL)
        .min(MAX_POLL)
}

/// StartQuery takes whole seconds, both ends included: the start rounds down, the end (already
/// a millisecond before the next week) rounds down too, so weeks still do not overlap.
pub fn seconds(range: TimeRange) -> (i64, i64) {
    (range.start.as_second(), range.end.as_second())
}

fn api<E: std::error::Error>(operation: &'static str) -> impl Fn(E) -> QueryError {
    move |e| QueryError::Api {
        operation,
        message: DisplayErrorContext(&e).to_string(),
    }
}

pub fn field_row(fields: &[ResultField]) -> FieldRow {
    fields
        .iter()
        .filter_map(|f| Some((f.field()?.to_string(), f.value().unwrap_or("").to_string())))
        .collect()
}

impl CloudWatchInsights {
    pub fn new(client: Client, timeout: Duration) -> Self {
        CloudWatchInsights { client, timeout }
    }

    async fn query(
        &self,
        groups: &[String],
        range: TimeRange,
        query: &str,
    ) -> Result<Vec<FieldRow>, QueryError> {
        let (start, end) = seconds(range);
        let started = self
            .client
            .start_query()
            .set_log_group_names(Some(groups.to_vec()))
            .start_time(start)
            .end_time(end)
            .query_string(query)
            .limit(MAX_ROWS as i32)
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
                    if let Err(e) = self.client.stop_query().query_id(&query_id).send().await {
                        tracing::warn!(error = %DisplayErrorContext(&e), %query_id, "StopQuery failed");
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
        range: TimeRange,
        query: &str,
    ) -> Result<Vec<FieldRow>, QueryError> {
        let mut rows = Vec::new();
        for batch in groups.chunks(MAX_GROUPS_PER_QUERY) {
            rows.extend(self.query(batch, range, query).await?);
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
    use crate::period::Period;

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
    fn backoff_doubles_from_half_a_second_up_to_five() {
        let waits: Vec<u128> = (0..6).map(|a| backoff(a).as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 5000, 5000]);
        assert_eq!(backoff(u32::MAX), MAX_POLL);
    }

    #[test]
    fn query_seconds_of_consecutive_weeks_do_not_overlap() {
        let week = Period::week_before("2026-11-30T06:00:00Z".parse().unwrap());
        let (start, end) = seconds(week.range());
        let (prev_start, prev_end) = seconds(week.previous().range());
        assert_eq!(end - start, 7 * 86_400 - 1);
        assert_eq!(prev_end + 1, start);
        assert_eq!(prev_start + 7 * 86_400, start);
    }

    #[test]
    fn result_fields_become_field_value_pairs() {
        let row = vec![
            ResultField::builder()
                .field("tool")
                .value("invoice_get")
                .build(),
            ResultField::builder().field("reason").build(),
            ResultField::builder().value("orphan").build(),
        ];
        assert_eq!(
            field_row(&row),
            [
                ("tool".to_string(), "invoice_get".to_string()),
                ("reason".to_string(), String::new()),
            ]
        );
    }
}
