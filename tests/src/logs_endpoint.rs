//! A local CloudWatch Logs endpoint for the Logs Insights query API, answered by our own engine
//! (`shared/insights`) over audit JSON lines a test loads per log group. Moto cannot run
//! `filter`/`parse`/`stats` queries, so the functions' CloudWatch Logs client is pointed here
//! instead: `client()`, or `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS=<endpoint>` for a function process.
//!
//! Wire protocol: awsJson1_1 — `POST /`, `X-Amz-Target: Logs_20140328.<Operation>`, JSON bodies;
//! errors are HTTP 400 with `{"__type": "<Code>", "message": ...}`. Requests must be SigV4-signed,
//! but signatures are not checked. Operations: `StartQuery`, `GetQueryResults` (with
//! `maxItems`/`nextToken` paging), `StopQuery`, `DescribeLogGroups` (`logGroupNamePrefix` or
//! `logGroupNamePattern`, `limit`/`nextToken`; other filters are ignored).
//!
//! Operation shapes and error codes follow the CloudWatch Logs API model (as of the AWS SDK for
//! Rust's `aws-sdk-cloudwatchlogs` 1.162); protocol
//! faults (`MissingAuthenticationTokenException`, `UnknownOperationException`,
//! `SerializationException`) use the generic AWS JSON names, unchecked for this service.
//!
//! Where AWS is silent, this endpoint chooses: `endTime` is the instant at that second; running,
//! failed, timed-out and cancelled queries return no rows; `StopQuery` on a query that is no
//! longer running answers `success: false`; `recordsMatched` is the number of result rows before
//! the row cap, not the events the query matched; no `@ptr` field is added to rows.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use aws_json::{AwsJson, CLOUDWATCH_LOGS};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use insights::cloudwatch::{CloudWatchInsights, Polling};
use insights::{Event, QueryError, TimeRange};
use jiff::Timestamp;
use serde::Deserialize;
use serde_json::{Value, json};

/// The account in `@log` values (`ACCOUNT_ID:log-group-name`, as AWS shows it) and in ARNs.
pub const ACCOUNT_ID: &str = "123456789012";
/// Most rows one query returns, like Logs Insights without a `limit`.
pub const MAX_ROWS: usize = 10_000;
/// The service-specific endpoint variable for CloudWatch Logs (the AWS SDKs' name, which the
/// functions' client reads too).
pub const ENDPOINT_ENV: &str = "AWS_ENDPOINT_URL_CLOUDWATCH_LOGS";
const TARGET_PREFIX: &str = "Logs_20140328.";
/// The largest `limit` StartQuery accepts (GetQueryResults pages through up to this many).
const MAX_LIMIT: i64 = 100_000;

/// A query status as GetQueryResults reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Scheduled,
    Running,
    Complete,
    Failed,
    Cancelled,
    Timeout,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Scheduled => "Scheduled",
            Status::Running => "Running",
            Status::Complete => "Complete",
            Status::Failed => "Failed",
            Status::Cancelled => "Cancelled",
            Status::Timeout => "Timeout",
        }
    }
}

/// Test hooks; each applies to queries started after it is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Behaviour {
    /// Statuses GetQueryResults answers, one per poll, before the final one (default
    /// `[Running]`, so clients must poll). An empty list makes queries final at once.
    Pending(Vec<Status>),
    /// The final status (default `Complete`). `Failed`, `Timeout` and `Cancelled` have no rows;
    /// `Running` or `Scheduled` never end, for testing a client's own deadline.
    Finish(Status),
    /// At most this many rows per query (default and upper bound [`MAX_ROWS`]).
    RowCap(usize),
}

/// What a StartQuery asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartedQuery {
    pub query_id: String,
    /// Log group names, resolved from `logGroupName`, `logGroupNames` or `logGroupIdentifiers`.
    pub log_groups: Vec<String>,
    /// `startTime`..=`endTime`, each the instant at that epoch second.
    pub range: TimeRange,
    pub query_string: String,
    pub limit: Option<i64>,
}

/// A running endpoint; the server task stops when this is dropped.
pub struct LogsEndpoint {
    /// `http://127.0.0.1:PORT`, for `endpoint_url`.
    pub endpoint: String,
    state: Arc<Mutex<Store>>,
    task: tokio::task::JoinHandle<()>,
}

impl LogsEndpoint {
    /// Serves on a free loopback port from a task on the current tokio runtime.
    pub async fn start() -> LogsEndpoint {
        let state = Arc::new(Mutex::new(Store::default()));
        let app = Router::new()
            .route("/", post(handle))
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind logs endpoint");
        let addr = listener.local_addr().expect("local addr");
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("logs endpoint");
        });
        LogsEndpoint {
            endpoint: format!("http://{addr}"),
            state,
            task,
        }
    }

    /// Appends audit lines (one JSON object with an RFC 3339 `ts` per line; blank lines are
    /// skipped) to `log_group`, creating it. `add_lines(group, "")` creates an empty group.
    pub fn add_lines(&self, log_group: &str, jsonl: &str) {
        let mut store = self.lock();
        let group = store
            .groups
            .entry(log_group.to_string())
            .or_insert_with(|| Group {
                created_ms: Timestamp::now().as_millisecond(),
                events: Vec::new(),
                bytes: 0,
            });
        let at_log = format!("{ACCOUNT_ID}:{log_group}");
        for (n, line) in jsonl.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let event = insights::event_from_json_line(line, &at_log).unwrap_or_else(|| {
                panic!(
                    "{log_group} line {}: not a JSON object with a `ts`: {line}",
                    n + 1
                )
            });
            group.bytes += line.len() as u64;
            group.events.push(event);
        }
    }

    pub fn script(&self, behaviour: Behaviour) {
        let script = &mut self.lock().script;
        match behaviour {
            Behaviour::Pending(statuses) => script.pending = statuses,
            Behaviour::Finish(status) => script.finish = status,
            Behaviour::RowCap(cap) => script.row_cap = cap.min(MAX_ROWS),
        }
    }

    /// Every StartQuery accepted so far, oldest first.
    pub fn queries(&self) -> Vec<StartedQuery> {
        self.lock()
            .queries
            .iter()
            .map(|q| q.started.clone())
            .collect()
    }

    /// The functions' CloudWatch Logs client, pointed here with test credentials.
    pub fn client(&self) -> AwsJson {
        crate::aws_client(CLOUDWATCH_LOGS, &self.endpoint)
    }

    /// The functions' Logs Insights client over this endpoint, polling every 10 ms (at most
    /// 20 ms): the functions' own cadence (500 ms first, doubling) suits CloudWatch, and here
    /// would only make each query wait 1.5 s for an answer that is there at the second poll.
    pub fn insights(&self) -> CloudWatchInsights {
        let polling = Polling {
            first_poll: Duration::from_millis(10),
            max_poll: Duration::from_millis(20),
            timeout: Duration::from_secs(30),
        };
        CloudWatchInsights::new(self.client(), polling)
    }

    fn lock(&self) -> MutexGuard<'_, Store> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The audit events of a function's log (JSON objects with a `ts`), one a line, for
/// [`LogsEndpoint::add_lines`]. A log also holds plain tracing lines and Lambda platform lines
/// (JSON strings), which CloudWatch stores as messages without fields; this endpoint takes only
/// audit objects, so they are left out.
pub fn audit_lines(jsonl: &str) -> String {
    jsonl
        .lines()
        .filter(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| v.get("ts").is_some()))
        .map(|l| format!("{l}\n"))
        .collect()
}

impl Drop for LogsEndpoint {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Group {
    created_ms: i64,
    events: Vec<Event>,
    bytes: u64,
}

struct Script {
    pending: Vec<Status>,
    finish: Status,
    row_cap: usize,
}

impl Default for Script {
    fn default() -> Script {
        Script {
            pending: vec![Status::Running],
            finish: Status::Complete,
            row_cap: MAX_ROWS,
        }
    }
}

struct Query {
    started: StartedQuery,
    pending: VecDeque<Status>,
    status: Status,
    rows: Vec<Vec<(String, String)>>,
    statistics: Value,
}

#[derive(Default)]
struct Store {
    groups: BTreeMap<String, Group>,
    queries: Vec<Query>,
    script: Script,
    requests: u64,
}

/// An error in the awsJson1_1 shape.
struct ApiError {
    code: &'static str,
    message: String,
    extra: Option<(&'static str, Value)>,
}

fn error(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError {
        code,
        message: message.into(),
        extra: None,
    }
}

fn invalid(message: impl Into<String>) -> ApiError {
    error("InvalidParameterException", message)
}

fn json_response(status: StatusCode, request_id: u64, body: Value) -> Response {
    let headers = [
        (header::CONTENT_TYPE.as_str(), "application/x-amz-json-1.1"),
        ("x-amzn-requestid", &format!("local-{request_id}")),
    ];
    (status, headers, body.to_string()).into_response()
}

async fn handle(
    State(state): State<Arc<Mutex<Store>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut store = state.lock().unwrap_or_else(PoisonError::into_inner);
    store.requests += 1;
    let request_id = store.requests;
    match dispatch(&mut store, &headers, &body) {
        Ok(reply) => json_response(StatusCode::OK, request_id, reply),
        Err(e) => {
            let mut body = json!({"__type": e.code, "message": e.message});
            if let Some((key, value)) = e.extra {
                body[key] = value;
            }
            json_response(StatusCode::BAD_REQUEST, request_id, body)
        }
    }
}

fn dispatch(store: &mut Store, headers: &HeaderMap, body: &[u8]) -> Result<Value, ApiError> {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let Some(auth) = text(header::AUTHORIZATION.as_str()).filter(|a| a.starts_with("AWS4-")) else {
        return Err(error(
            "MissingAuthenticationTokenException",
            "Missing Authentication Token",
        ));
    };
    // Credential=AKID/DATE/REGION/SERVICE/aws4_request
    let region = auth
        .split("Credential=")
        .nth(1)
        .and_then(|c| c.split('/').nth(2))
        .unwrap_or("us-east-1")
        .to_string();
    let target = text("x-amz-target").unwrap_or_default();
    match target.strip_prefix(TARGET_PREFIX).unwrap_or_default() {
        "StartQuery" => start_query(store, parse(body)?),
        "GetQueryResults" => get_query_results(store, parse(body)?),
        "StopQuery" => stop_query(store, parse(body)?),
        "DescribeLogGroups" => describe_log_groups(store, parse(body)?, &region),
        _ => Err(error(
            "UnknownOperationException",
            format!("operation {target:?} is not served by the local logs endpoint"),
        )),
    }
}

fn parse<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| error("SerializationException", e.to_string()))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StartQueryRequest {
    query_language: Option<String>,
    log_group_name: Option<String>,
    log_group_names: Option<Vec<String>>,
    log_group_identifiers: Option<Vec<String>>,
    start_time: Option<i64>,
    end_time: Option<i64>,
    query_string: Option<String>,
    limit: Option<i64>,
}

fn start_query(store: &mut Store, r: StartQueryRequest) -> Result<Value, ApiError> {
    if let Some(lang) = r.query_language.as_deref().filter(|l| *l != "CWLI") {
        return Err(invalid(format!(
            "queryLanguage {lang}: the local engine runs Logs Insights QL (CWLI) only"
        )));
    }
    let log_groups = match (r.log_group_name, r.log_group_names, r.log_group_identifiers) {
        (Some(name), None, None) => vec![name],
        (None, Some(names), None) => names,
        // An identifier is a name or arn:aws:logs:REGION:ACCOUNT:log-group:NAME.
        (None, None, Some(ids)) => ids
            .into_iter()
            .map(|id| match id.split_once(":log-group:") {
                Some((_, name)) => name.trim_end_matches(":*").to_string(),
                None => id,
            })
            .collect(),
        _ => {
            return Err(invalid(
                "exactly one of logGroupName, logGroupNames or logGroupIdentifiers is required",
            ));
        }
    };
    if log_groups.is_empty() || log_groups.len() > 50 {
        return Err(invalid("between 1 and 50 log groups can be queried"));
    }
    if let Some(missing) = log_groups.iter().find(|g| !store.groups.contains_key(*g)) {
        return Err(error(
            "ResourceNotFoundException",
            format!("Log group {missing} does not exist"),
        ));
    }
    let instant = |name: &str, seconds: Option<i64>| {
        let seconds = seconds.ok_or_else(|| invalid(format!("{name} is required")))?;
        Timestamp::from_second(seconds).map_err(|e| invalid(format!("{name}: {e}")))
    };
    let range = TimeRange {
        start: instant("startTime", r.start_time)?,
        end: instant("endTime", r.end_time)?,
    };
    if range.start > range.end {
        return Err(invalid("startTime must not be after endTime"));
    }
    if r.limit.is_some_and(|l| !(1..=MAX_LIMIT).contains(&l)) {
        return Err(invalid(format!("limit must be between 1 and {MAX_LIMIT}")));
    }
    let text = r
        .query_string
        .ok_or_else(|| invalid("queryString is required"))?;
    let query = insights::parse(&text).map_err(|e| malformed(&text, &e))?;

    let events: Vec<Event> = log_groups
        .iter()
        .flat_map(|g| store.groups[g].events.iter().cloned())
        .collect();
    let scanned: Vec<&Event> = events
        .iter()
        .filter(|e| range.contains(e.timestamp))
        .collect();
    let bytes: usize = scanned.iter().map(|e| e.message.len()).sum();
    let rows = insights::run(&query, &events, range).map_err(|e| malformed(&text, &e))?;
    let cap = r
        .limit
        .map_or(MAX_ROWS, |l| l as usize)
        .min(store.script.row_cap);

    let query_id = format!("00000000-0000-4000-8000-{:012x}", store.queries.len() + 1);
    let status = store.script.finish;
    let complete = status == Status::Complete;
    store.queries.push(Query {
        started: StartedQuery {
            query_id: query_id.clone(),
            log_groups,
            range,
            query_string: text,
            limit: r.limit,
        },
        pending: store.script.pending.iter().copied().collect(),
        status,
        rows: if complete {
            insights::to_results(&rows[..rows.len().min(cap)])
        } else {
            Vec::new()
        },
        statistics: if complete {
            json!({"recordsMatched": rows.len(), "recordsScanned": scanned.len(), "bytesScanned": bytes})
        } else {
            no_statistics()
        },
    });
    Ok(json!({ "queryId": query_id }))
}

fn no_statistics() -> Value {
    json!({"recordsMatched": 0, "recordsScanned": 0, "bytesScanned": 0})
}

/// MalformedQueryException with a QueryCompileError pointing at the engine's line and column.
fn malformed(text: &str, e: &QueryError) -> ApiError {
    let (QueryError::Syntax { line, column, .. } | QueryError::Unsupported { line, column, .. }) =
        e;
    let offset: usize = text
        .split('\n')
        .take(line.saturating_sub(1))
        .map(|l| l.chars().count() + 1)
        .sum::<usize>()
        + column.saturating_sub(1);
    ApiError {
        code: "MalformedQueryException",
        message: e.to_string(),
        extra: Some((
            "queryCompileError",
            json!({
                "location": {"startCharOffset": offset, "endCharOffset": offset},
                "message": e.to_string(),
            }),
        )),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GetQueryResultsRequest {
    query_id: Option<String>,
    next_token: Option<String>,
    max_items: Option<i64>,
}

fn find<'a>(store: &'a mut Store, query_id: Option<&str>) -> Result<&'a mut Query, ApiError> {
    let id = query_id.ok_or_else(|| invalid("queryId is required"))?;
    store
        .queries
        .iter_mut()
        .find(|q| q.started.query_id == id)
        .ok_or_else(|| error("ResourceNotFoundException", format!("Query {id} not found")))
}

fn get_query_results(store: &mut Store, r: GetQueryResultsRequest) -> Result<Value, ApiError> {
    let query = find(store, r.query_id.as_deref())?;
    if let Some(status) = query.pending.pop_front() {
        return Ok(
            json!({"status": status.as_str(), "results": [], "statistics": no_statistics()}),
        );
    }
    let page = match r.max_items {
        None => MAX_ROWS,
        Some(n @ 1..=10_000) => n as usize,
        Some(_) => return Err(invalid("maxItems must be between 1 and 10000")),
    };
    let from = token(r.next_token.as_deref())?.min(query.rows.len());
    let to = (from + page).min(query.rows.len());
    let results: Vec<Value> = query.rows[from..to]
        .iter()
        .map(|row| {
            row.iter()
                .map(|(field, value)| json!({"field": field, "value": value}))
                .collect()
        })
        .collect();
    let mut reply = json!({
        "status": query.status.as_str(),
        "results": results,
        "statistics": query.statistics,
    });
    if to < query.rows.len() {
        reply["nextToken"] = json!(to.to_string());
    }
    Ok(reply)
}

/// Paging tokens are offsets; only this endpoint reads them.
fn token(next_token: Option<&str>) -> Result<usize, ApiError> {
    next_token.map_or(Ok(0), |t| {
        t.parse()
            .map_err(|_| invalid(format!("The specified nextToken is invalid: {t}")))
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StopQueryRequest {
    query_id: Option<String>,
}

fn stop_query(store: &mut Store, r: StopQueryRequest) -> Result<Value, ApiError> {
    let query = find(store, r.query_id.as_deref())?;
    let running = !query.pending.is_empty();
    if running {
        query.pending.clear();
        query.status = Status::Cancelled;
        query.rows.clear();
        query.statistics = no_statistics();
    }
    Ok(json!({ "success": running }))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DescribeLogGroupsRequest {
    log_group_name_prefix: Option<String>,
    log_group_name_pattern: Option<String>,
    next_token: Option<String>,
    limit: Option<i64>,
}

fn describe_log_groups(
    store: &Store,
    r: DescribeLogGroupsRequest,
    region: &str,
) -> Result<Value, ApiError> {
    let (prefix, pattern) = (r.log_group_name_prefix, r.log_group_name_pattern);
    if prefix.is_some() && pattern.is_some() {
        return Err(invalid(
            "logGroupNamePrefix and logGroupNamePattern are mutually exclusive",
        ));
    }
    let page = match r.limit {
        None => 50,
        Some(n @ 1..=50) => n as usize,
        Some(_) => return Err(invalid("limit must be between 1 and 50")),
    };
    // BTreeMap order: names ascending, as AWS lists them.
    let matching: Vec<_> = store
        .groups
        .iter()
        .filter(|(name, _)| prefix.as_deref().is_none_or(|p| name.starts_with(p)))
        .filter(|(name, _)| pattern.as_deref().is_none_or(|p| name.contains(p)))
        .collect();
    let from = token(r.next_token.as_deref())?.min(matching.len());
    let to = (from + page).min(matching.len());
    let groups: Vec<Value> = matching[from..to]
        .iter()
        .map(|(name, group)| {
            let arn = format!("arn:aws:logs:{region}:{ACCOUNT_ID}:log-group:{name}");
            json!({
                "logGroupName": name,
                "creationTime": group.created_ms,
                "arn": format!("{arn}:*"),
                "logGroupArn": arn,
                "storedBytes": group.bytes,
                "metricFilterCount": 0,
                "logGroupClass": "STANDARD",
            })
        })
        .collect();
    let mut reply = json!({ "logGroups": groups });
    if to < matching.len() {
        reply["nextToken"] = json!(to.to_string());
    }
    Ok(reply)
}
