//! [`LogsQuery`] on CloudWatch Logs: the shared polling client ([`insights::cloudwatch`]) over
//! the audit log groups, polled every quarter second at first, then at most every 2 s (the run
//! repeats every 15 minutes), until the query completes, fails or
//! [`CloudWatchInsights::timeout`] passes.

use std::time::Duration;

use aws_sdk_cloudwatchlogs::Client;
use insights::TimeRange;
use insights::cloudwatch::{self, CloudWatchError, Polling};

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

impl From<CloudWatchError> for QueryError {
    fn from(e: CloudWatchError) -> Self {
        match e {
            CloudWatchError::Api { operation, message } => QueryError::Api { operation, message },
            CloudWatchError::Ended { query_id, status } => QueryError::Ended { query_id, status },
            CloudWatchError::Deadline { query_id, seconds } => {
                QueryError::Deadline { query_id, seconds }
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
        let range = TimeRange {
            start: range.start,
            end: range.end,
        };
        Ok(cloudwatch::rows(&self.client, polling(self.timeout), groups, range, query).await?)
    }

    async fn groups_with_prefix(&self, prefix: &str) -> Result<Vec<String>, QueryError> {
        Ok(cloudwatch::groups_with_prefix(&self.client, prefix).await?)
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

    #[test]
    fn service_errors_keep_their_messages() {
        for e in [
            CloudWatchError::Api {
                operation: "StartQuery",
                message: "LimitExceededException".into(),
            },
            CloudWatchError::Ended {
                query_id: "q-1".into(),
                status: "Failed".into(),
            },
            CloudWatchError::Deadline {
                query_id: "q-1".into(),
                seconds: 60,
            },
        ] {
            assert_eq!(QueryError::from(e.clone()).to_string(), e.to_string());
        }
    }
}
