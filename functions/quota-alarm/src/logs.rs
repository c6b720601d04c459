//! [`LogsQuery`] on CloudWatch Logs: the shared polling client ([`insights::cloudwatch`]) over
//! the audit log groups, polled every quarter second at first, then at most every 2 s (the run
//! repeats every 15 minutes), until the query completes, fails or
//! [`CloudWatchInsights::timeout`] passes.

use std::time::Duration;

use aws_sdk_cloudwatchlogs::Client;
use insights::TimeRange;
use insights::cloudwatch::{self, Polling};

use crate::handler::{LogsQuery, QueryError};
use crate::local::FieldRow;
use crate::report::QueryRange;

const FIRST_POLL: Duration = Duration::from_millis(250);
const MAX_POLL: Duration = Duration::from_secs(2);

/// Logs Insights through the SDK client (built once in `main`).
#[derive(Debug, Clone)]
pub struct CloudWatchInsights {
    pub client: Client,
    /// How long one query may run.
    pub timeout: Duration,
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
        range: QueryRange,
        query: &str,
    ) -> Result<Vec<FieldRow>, QueryError> {
        let range = TimeRange {
            start: range.start,
            end: range.end,
        };
        cloudwatch::rows(&self.client, polling(self.timeout), groups, range, query).await
    }

    async fn groups_with_prefix(&self, prefix: &str) -> Result<Vec<String>, QueryError> {
        cloudwatch::groups_with_prefix(&self.client, prefix).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polls_start_at_a_quarter_second_and_stay_under_two() {
        let polling = polling(Duration::from_secs(60));
        let waits: Vec<u128> = (0..6).map(|a| polling.backoff(a).as_millis()).collect();
        assert_eq!(waits, [250, 500, 1000, 2000, 2000, 2000]);
        assert_eq!(polling.timeout, Duration::from_secs(60));
    }
}
