//! Logs Insights on CloudWatch Logs: the seam the scheduled functions query the audit log groups
//! through ([`LogsQuery`]), its errors, and (feature `cloudwatch`) the client
//! over CloudWatch Logs' API.
//!
//! `rows`: `StartQuery` over the log groups — at most 50 per query, the API's limit, so more
//! groups run in batches, one after another, and their rows are concatenated — then
//! `GetQueryResults` with backoff until the query is `Complete`. `Failed`, `Cancelled` and
//! `Timeout` end it with an error, and so does our own deadline, after `StopQuery` so the query
//! stops counting against the account's concurrent-query quota. `groups_with_prefix`:
//! `DescribeLogGroups` by name prefix, every page. `CloudWatchInsights` is both as a
//! [`LogsQuery`]. (These three need the feature.)
//!
//! Rows come back as [`FieldRow`]s, the shape [`crate::to_results`] gives for the local engine,
//! so a caller reads both the same way; [`crate::LocalInsights`] is the local engine as a
//! [`LogsQuery`]. How often to poll and for how long is the caller's choice ([`Polling`]): a run
//! every 15 minutes wants its answer sooner than a weekly digest.
//!
//! The trait, the error and [`Polling`] need no AWS client, so the local engine and the functions'
//! fakes build without the feature.

use std::future::Future;
use std::time::Duration;

use crate::{FieldRow, TimeRange};

#[cfg(feature = "cloudwatch")]
mod client;
#[cfg(feature = "cloudwatch")]
pub use client::{CloudWatchInsights, TARGET, groups_with_prefix, rows};

/// StartQuery accepts at most this many log group names.
pub const MAX_GROUPS_PER_QUERY: usize = 50;

/// Runs Logs Insights queries: `CloudWatchInsights` on Lambda, [`crate::LocalInsights`]
/// locally, a fake in the functions' tests.
pub trait LogsQuery {
    /// The rows of `query` over `groups` in `range` (both ends included).
    fn rows(
        &self,
        groups: &[String],
        range: TimeRange,
        query: &str,
    ) -> impl Future<Output = Result<Vec<FieldRow>, CloudWatchError>> + Send;

    /// The names of the log groups starting with `prefix`.
    fn groups_with_prefix(
        &self,
        prefix: &str,
    ) -> impl Future<Output = Result<Vec<String>, CloudWatchError>> + Send;
}

/// The log groups a run queries: `names` plus every group starting with `prefix` (resolved on
/// each run, so new groups are picked up), sorted, without repeats.
pub async fn log_groups<L: LogsQuery>(
    logs: &L,
    names: &[String],
    prefix: Option<&str>,
) -> Result<Vec<String>, CloudWatchError> {
    let mut groups = names.to_vec();
    if let Some(prefix) = prefix {
        groups.extend(logs.groups_with_prefix(prefix).await?);
    }
    groups.sort();
    groups.dedup();
    Ok(groups)
}

/// How a query is polled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Polling {
    /// The wait before the first GetQueryResults; it doubles after each poll.
    pub first_poll: Duration,
    /// The longest wait between two polls.
    pub max_poll: Duration,
    /// How long one query may run before it is stopped and fails.
    pub timeout: Duration,
}

impl Polling {
    /// The wait before poll `attempt` (0-based): [`Polling::first_poll`], doubling, at most
    /// [`Polling::max_poll`].
    pub fn backoff(&self, attempt: u32) -> Duration {
        self.first_poll
            .checked_mul(1 << attempt.min(8))
            .unwrap_or(self.max_poll)
            .min(self.max_poll)
    }
}

/// Why a query over CloudWatch Logs gave no rows. The local engine reports a query it refuses
/// as a failed `StartQuery`, as CloudWatch would (MalformedQueryException).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CloudWatchError {
    /// A CloudWatch Logs API call failed (AWS's code and message, or why there was no answer).
    #[error("{operation} failed: {message}")]
    Api {
        operation: &'static str,
        message: String,
    },
    /// The query ended without results: `Failed`, `Cancelled` or `Timeout`.
    #[error("query {query_id} ended as {status}")]
    Ended { query_id: String, status: String },
    /// The query was still running when our deadline passed (it was stopped).
    #[error("query {query_id} still running after {seconds} s")]
    Deadline { query_id: String, seconds: u64 },
}

/// StartQuery takes whole seconds, both ends included: both ends round down, so a range that
/// ends a millisecond before the next one starts still does not overlap it.
pub fn seconds(range: TimeRange) -> (i64, i64) {
    (range.start.as_second(), range.end.as_second())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_the_first_wait_up_to_the_maximum() {
        let waits = |first, max| {
            let polling = Polling {
                first_poll: Duration::from_millis(first),
                max_poll: Duration::from_millis(max),
                timeout: Duration::from_secs(60),
            };
            let waits: Vec<u128> = (0..6).map(|a| polling.backoff(a).as_millis()).collect();
            assert_eq!(polling.backoff(u32::MAX), polling.max_poll);
            waits
        };
        // quota-alarm's and tool-error-digest's settings.
        assert_eq!(waits(250, 2_000), [250, 500, 1000, 2000, 2000, 2000]);
        assert_eq!(waits(500, 5_000), [500, 1000, 2000, 4000, 5000, 5000]);
    }

    #[test]
    fn query_seconds_round_both_ends_down() {
        let range = TimeRange {
            start: "2026-11-23T00:00:00.999Z".parse().unwrap(),
            end: "2026-11-29T23:59:59.999Z".parse().unwrap(),
        };
        let (start, end) = seconds(range);
        assert_eq!(end - start, 7 * 86_400 - 1);
        assert_eq!(start, range.start.as_second());
    }

    #[test]
    fn error_messages_name_the_operation_query_and_status() {
        let ended = CloudWatchError::Ended {
            query_id: "q-1".into(),
            status: "Timeout".into(),
        };
        assert_eq!(ended.to_string(), "query q-1 ended as Timeout");
        let deadline = CloudWatchError::Deadline {
            query_id: "q-2".into(),
            seconds: 120,
        };
        assert_eq!(deadline.to_string(), "query q-2 still running after 120 s");
    }
}
