//! The client side of [`super`] (feature `cloudwatch`): StartQuery, GetQueryResults until the
//! query is done, StopQuery at our deadline, and DescribeLogGroups, as signed `awsJson1.1`
//! calls ([`aws_json::AwsJson`]).

use std::future::Future;

use aws_json::{AwsError, AwsJson};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::{CloudWatchError, LogsQuery, MAX_GROUPS_PER_QUERY, Polling, seconds};
use crate::parser::MAX_ROWS;
use crate::{FieldRow, TimeRange};

/// The CloudWatch Logs API's target prefix (`X-Amz-Target: Logs_20140328.StartQuery`).
pub const TARGET: &str = "Logs_20140328";
/// The most DescribeLogGroups pages one listing reads (50 groups a page).
const MAX_PAGES: usize = 200;

/// [`LogsQuery`] on CloudWatch Logs through a CloudWatch Logs client (built once, where the
/// function builds its clients), polled as `polling` says.
#[derive(Debug)]
pub struct CloudWatchInsights {
    pub client: AwsJson,
    pub polling: Polling,
}

impl CloudWatchInsights {
    pub fn new(client: AwsJson, polling: Polling) -> CloudWatchInsights {
        CloudWatchInsights { client, polling }
    }
}

impl LogsQuery for CloudWatchInsights {
    async fn rows(
        &self,
        groups: &[String],
        range: TimeRange,
        query: &str,
    ) -> Result<Vec<FieldRow>, CloudWatchError> {
        rows(&self.client, self.polling, groups, range, query).await
    }

    async fn groups_with_prefix(&self, prefix: &str) -> Result<Vec<String>, CloudWatchError> {
        groups_with_prefix(&self.client, prefix).await
    }
}

/// The rows of `query` over `groups` in `range` (both ends included), in batches of
/// [`MAX_GROUPS_PER_QUERY`] groups; the first query that fails fails the whole call.
pub async fn rows(
    client: &AwsJson,
    polling: Polling,
    groups: &[String],
    range: TimeRange,
    query: &str,
) -> Result<Vec<FieldRow>, CloudWatchError> {
    batched_rows(client, polling, groups, range, query).await
}

/// The names of the log groups starting with `prefix`, every page (at most 200 pages of 50).
pub async fn groups_with_prefix(
    client: &AwsJson,
    prefix: &str,
) -> Result<Vec<String>, CloudWatchError> {
    let mut names = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut input = json!({"logGroupNamePrefix": prefix});
        if let Some(t) = &token {
            input["nextToken"] = json!(t);
        }
        let page = client
            .json11(TARGET, "DescribeLogGroups", &input)
            .await
            .map_err(api("DescribeLogGroups"))?;
        let groups = page["logGroups"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        names.extend(
            groups
                .iter()
                .filter_map(|g| g["logGroupName"].as_str().map(str::to_string)),
        );
        match page["nextToken"].as_str() {
            Some(next) if !next.is_empty() && token.as_deref() != Some(next) => {
                token = Some(next.to_string());
            }
            _ => return Ok(names),
        }
    }
    Err(CloudWatchError::Api {
        operation: "DescribeLogGroups",
        message: format!("more than {MAX_PAGES} pages of log groups start with {prefix}"),
    })
}

/// What one GetQueryResults answer means for the poll loop.
#[derive(Debug, PartialEq, Eq)]
enum Poll {
    Complete(Vec<FieldRow>),
    Ended(String),
    Pending,
}

/// A GetQueryResults answer (`status`, `results`: rows of `{field, value}`).
fn poll(answer: &Value) -> Poll {
    match answer["status"].as_str() {
        Some("Complete") => {
            let rows = answer["results"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            Poll::Complete(rows.iter().map(field_row).collect())
        }
        Some(s @ ("Failed" | "Cancelled" | "Timeout")) => Poll::Ended(s.to_string()),
        // Scheduled, Running, Unknown, a status newer than this client, or none: ask again.
        _ => Poll::Pending,
    }
}

/// A field without a name is dropped; a field without a value is an empty string.
fn field_row(fields: &Value) -> FieldRow {
    let fields = fields.as_array().map(Vec::as_slice).unwrap_or(&[]);
    fields
        .iter()
        .filter_map(|f| {
            let name = f["field"].as_str()?;
            Some((
                name.to_string(),
                f["value"].as_str().unwrap_or("").to_string(),
            ))
        })
        .collect()
}

fn api(operation: &'static str) -> impl Fn(AwsError) -> CloudWatchError {
    move |e| CloudWatchError::Api {
        operation,
        message: e.to_string(),
    }
}

/// The three calls one query makes; the CloudWatch Logs client in production, a script in the
/// tests, so the poll loop is tested without a service.
trait QueryCalls {
    fn start(
        &self,
        groups: &[String],
        range: TimeRange,
        query: &str,
    ) -> impl Future<Output = Result<String, CloudWatchError>> + Send;
    fn results(&self, query_id: &str)
    -> impl Future<Output = Result<Poll, CloudWatchError>> + Send;
    /// Best effort: a failure is logged, the caller fails on its deadline anyway.
    fn stop(&self, query_id: &str) -> impl Future<Output = ()> + Send;
}

impl QueryCalls for AwsJson {
    async fn start(
        &self,
        groups: &[String],
        range: TimeRange,
        query: &str,
    ) -> Result<String, CloudWatchError> {
        let (start, end) = seconds(range);
        let input = json!({
            "logGroupNames": groups,
            "startTime": start,
            "endTime": end,
            "queryString": query,
            "limit": MAX_ROWS,
        });
        let started = self
            .json11(TARGET, "StartQuery", &input)
            .await
            .map_err(api("StartQuery"))?;
        Ok(started["queryId"].as_str().unwrap_or_default().to_string())
    }

    async fn results(&self, query_id: &str) -> Result<Poll, CloudWatchError> {
        let out = self
            .json11(TARGET, "GetQueryResults", &json!({"queryId": query_id}))
            .await
            .map_err(api("GetQueryResults"))?;
        Ok(poll(&out))
    }

    async fn stop(&self, query_id: &str) {
        let input = json!({"queryId": query_id});
        if let Err(e) = self.json11(TARGET, "StopQuery", &input).await {
            tracing::warn!(error = %e, %query_id, "StopQuery failed");
        }
    }
}

async fn batched_rows<C: QueryCalls>(
    calls: &C,
    polling: Polling,
    groups: &[String],
    range: TimeRange,
    query: &str,
) -> Result<Vec<FieldRow>, CloudWatchError> {
    let mut rows = Vec::new();
    for batch in groups.chunks(MAX_GROUPS_PER_QUERY) {
        rows.extend(one_query(calls, polling, batch, range, query).await?);
    }
    Ok(rows)
}

async fn one_query<C: QueryCalls>(
    calls: &C,
    polling: Polling,
    groups: &[String],
    range: TimeRange,
    query: &str,
) -> Result<Vec<FieldRow>, CloudWatchError> {
    let query_id = calls.start(groups, range, query).await?;
    let deadline = Instant::now() + polling.timeout;
    let mut attempt: u32 = 0;
    loop {
        tokio::time::sleep(polling.backoff(attempt)).await;
        attempt = attempt.saturating_add(1);
        match calls.results(&query_id).await? {
            Poll::Complete(rows) => return Ok(rows),
            Poll::Ended(status) => return Err(CloudWatchError::Ended { query_id, status }),
            Poll::Pending if Instant::now() >= deadline => {
                calls.stop(&query_id).await;
                let seconds = polling.timeout.as_secs();
                return Err(CloudWatchError::Deadline { query_id, seconds });
            }
            Poll::Pending => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;

    /// How the scripted service answers a poll.
    #[derive(Debug, Clone, Copy)]
    enum Answer {
        Pending,
        Ended(&'static str),
        /// One row naming the query, so batches can be told apart.
        Complete,
    }

    /// Answers the polls of every query with `script` in order (the last answer repeats) and
    /// records the calls.
    struct Scripted {
        script: Vec<Answer>,
        fail_start: bool,
        started: Mutex<Vec<Vec<String>>>,
        polls: Mutex<HashMap<String, usize>>,
        stopped: Mutex<Vec<String>>,
    }

    impl Scripted {
        fn new(script: &[Answer]) -> Scripted {
            Scripted {
                script: script.to_vec(),
                fail_start: false,
                started: Mutex::default(),
                polls: Mutex::default(),
                stopped: Mutex::default(),
            }
        }

        fn polls(&self, query_id: &str) -> usize {
            self.polls
                .lock()
                .unwrap()
                .get(query_id)
                .copied()
                .unwrap_or(0)
        }
    }

    impl QueryCalls for Scripted {
        async fn start(
            &self,
            groups: &[String],
            _range: TimeRange,
            _query: &str,
        ) -> Result<String, CloudWatchError> {
            if self.fail_start {
                return Err(CloudWatchError::Api {
                    operation: "StartQuery",
                    message: "LimitExceededException".into(),
                });
            }
            let mut started = self.started.lock().unwrap();
            started.push(groups.to_vec());
            Ok(format!("q-{}", started.len()))
        }

        async fn results(&self, query_id: &str) -> Result<Poll, CloudWatchError> {
            let mut polls = self.polls.lock().unwrap();
            let n = polls.entry(query_id.to_string()).or_default();
            let answer = self.script[(*n).min(self.script.len() - 1)];
            *n += 1;
            Ok(match answer {
                Answer::Pending => Poll::Pending,
                Answer::Ended(status) => Poll::Ended(status.to_string()),
                Answer::Complete => {
                    Poll::Complete(vec![vec![("query".to_string(), query_id.to_string())]])
                }
            })
        }

        async fn stop(&self, query_id: &str) {
            self.stopped.lock().unwrap().push(query_id.to_string());
        }
    }

    fn quick(timeout: Duration) -> Polling {
        Polling {
            first_poll: Duration::from_millis(1),
            max_poll: Duration::from_millis(2),
            timeout,
        }
    }

    fn range() -> TimeRange {
        TimeRange {
            start: "2026-05-01T00:00:00Z".parse().unwrap(),
            end: "2026-05-20T10:00:00Z".parse().unwrap(),
        }
    }

    fn groups(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("/aws/lambda/mcp-{i:03}")).collect()
    }

    async fn run(
        calls: &Scripted,
        polling: Polling,
        n: usize,
    ) -> Result<Vec<FieldRow>, CloudWatchError> {
        batched_rows(calls, polling, &groups(n), range(), "stats count(*)").await
    }

    #[test]
    fn poll_status_decides_between_done_failed_and_again() {
        let rows = json!([[{"field": "n", "value": "1"}]]);
        assert_eq!(
            poll(&json!({"status": "Complete", "results": rows})),
            Poll::Complete(vec![vec![("n".to_string(), "1".to_string())]])
        );
        for s in ["Failed", "Cancelled", "Timeout"] {
            assert_eq!(poll(&json!({"status": s})), Poll::Ended(s.to_string()));
        }
        for s in [
            json!("Scheduled"),
            json!("Running"),
            json!("SomethingNew"),
            Value::Null,
        ] {
            let answer = json!({"status": s, "results": rows});
            assert_eq!(poll(&answer), Poll::Pending, "{s:?}");
        }
    }

    #[test]
    fn result_fields_become_field_value_pairs() {
        let row = json!([
            {"field": "connector", "value": "papierkram"},
            {"field": "remaining"},
            {"value": "orphan"}
        ]);
        assert_eq!(
            field_row(&row),
            [
                ("connector".to_string(), "papierkram".to_string()),
                ("remaining".to_string(), String::new()),
            ]
        );
    }

    #[tokio::test]
    async fn a_query_is_polled_until_it_completes() {
        let calls = Scripted::new(&[Answer::Pending, Answer::Pending, Answer::Complete]);
        let rows = run(&calls, quick(Duration::from_secs(10)), 3)
            .await
            .unwrap();
        assert_eq!(rows, [vec![("query".to_string(), "q-1".to_string())]]);
        assert_eq!(calls.polls("q-1"), 3);
        assert_eq!(*calls.started.lock().unwrap(), [groups(3)]);
        assert!(calls.stopped.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn more_than_fifty_groups_run_in_batches_and_their_rows_add_up() {
        let calls = Scripted::new(&[Answer::Complete]);
        let rows = run(&calls, quick(Duration::from_secs(10)), 120)
            .await
            .unwrap();
        let started = calls.started.lock().unwrap();
        let sizes: Vec<usize> = started.iter().map(Vec::len).collect();
        assert_eq!(sizes, [50, 50, 20]);
        assert_eq!(started.concat(), groups(120));
        let ids: Vec<&str> = rows.iter().map(|r| r[0].1.as_str()).collect();
        assert_eq!(ids, ["q-1", "q-2", "q-3"]);
    }

    #[tokio::test]
    async fn a_query_that_ends_without_results_is_an_error_naming_it() {
        for status in ["Failed", "Cancelled", "Timeout"] {
            let calls = Scripted::new(&[Answer::Pending, Answer::Ended(status)]);
            let err = run(&calls, quick(Duration::from_secs(10)), 1)
                .await
                .unwrap_err();
            let query_id = "q-1".to_string();
            let status = status.to_string();
            assert_eq!(err, CloudWatchError::Ended { query_id, status });
            assert!(calls.stopped.lock().unwrap().is_empty());
        }
    }

    #[tokio::test]
    async fn a_failed_batch_stops_the_remaining_batches() {
        let calls = Scripted::new(&[Answer::Ended("Failed")]);
        let err = run(&calls, quick(Duration::from_secs(10)), 120)
            .await
            .unwrap_err();
        assert!(matches!(err, CloudWatchError::Ended { .. }), "{err}");
        assert_eq!(calls.started.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_query_still_running_at_the_deadline_is_stopped() {
        let calls = Scripted::new(&[Answer::Pending]);
        let err = run(&calls, quick(Duration::from_millis(20)), 1)
            .await
            .unwrap_err();
        let query_id = "q-1".to_string();
        assert_eq!(
            err,
            CloudWatchError::Deadline {
                query_id,
                seconds: 0
            }
        );
        assert_eq!(*calls.stopped.lock().unwrap(), ["q-1"]);
        assert!(
            calls.polls("q-1") >= 2,
            "polled more than once before giving up"
        );
    }

    #[tokio::test]
    async fn a_failed_start_is_returned_as_is() {
        let mut calls = Scripted::new(&[Answer::Complete]);
        calls.fail_start = true;
        let err = run(&calls, quick(Duration::from_secs(10)), 1)
            .await
            .unwrap_err();
        assert_eq!(err.to_string(), "StartQuery failed: LimitExceededException");
        assert_eq!(calls.polls("q-1"), 0);
    }
}
