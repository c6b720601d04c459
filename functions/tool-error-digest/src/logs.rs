//! [`LogsQuery`] on CloudWatch Logs: the shared polling client ([`insights::cloudwatch`]) over
//! the audit log groups, polled every half second at first, then at most every 5 s, until the
//! query completes, fails or [`CloudWatchInsights::timeout`] passes.

use std::time::Duration;

use aws_sdk_cloudwatchlogs::Client;
use insights::TimeRange;
use insights::cloudwatch::{self, Polling};

use crate::collect::{LogsQuery, QueryError};
use crate::rows::FieldRow;

const FIRST_POLL: Duration = Duration::from_millis(500);
const MAX_POLL: Duration = Duration::from_secs(5);

/// Logs Insights through the SDK client built once in `main`.
#[derive(Debug, Clone)]
pub struct CloudWatchInsights {
    pub client: Client,
    /// How long one query may run.
    pub timeout: Duration,
}

impl CloudWatchInsights {
    pub fn new(client: Client, timeout: Duration) -> Self {
        CloudWatchInsights { client, timeout }
    }
}

fn polling(timeout: Duration) -> Polling {
    Polling {
        first_poll: FIRST_POLL,
        max_poll: MAX_POLL,
        timeout,
    }
}

impl LogsQuery for CloudWatchInsights {
    async fn rows(
        &self,
        groups: &[String],
        range: TimeRange,
        query: &str,
    ) -> Result<Vec<FieldRow>, QueryError> {
        cloudwatch::rows(&self.client, polling(self.timeout), groups, range, query).await
    }

    async fn groups_with_prefix(&self, prefix: &str) -> Result<Vec<String>, QueryError> {
        cloudwatch::groups_with_prefix(&self.client, prefix).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::period::Period;

    #[test]
    fn polls_start_at_half_a_second_and_stay_under_five() {
        let polling = polling(Duration::from_secs(120));
        let waits: Vec<u128> = (0..6).map(|a| polling.backoff(a).as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 5000, 5000]);
        assert_eq!(polling.timeout, Duration::from_secs(120));
    }

    #[test]
    fn query_seconds_of_consecutive_weeks_do_not_overlap() {
        let week = Period::week_before("2026-11-30T06:00:00Z".parse().unwrap());
        let (start, end) = cloudwatch::seconds(week.range());
        let (prev_start, prev_end) = cloudwatch::seconds(week.previous().range());
        assert_eq!(end - start, 7 * 86_400 - 1);
        assert_eq!(prev_end + 1, start);
        assert_eq!(prev_start + 7 * 86_400, start);
    }
}
