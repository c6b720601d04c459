//! The local CloudWatch Logs endpoint, driven by the functions' own CloudWatch Logs client
//! (`aws-json`: signed awsJson1.1 calls), operation by operation as the API documents them. The
//! same client against moto's Logs is in `moto_logs_answers_the_functions_client`.

use aws_json::{AwsError, AwsJson};
use insights::TimeRange;
use insights::cloudwatch::TARGET;
use integration_tests::logs_endpoint::{ACCOUNT_ID, Behaviour, LogsEndpoint, Status};
use jiff::Timestamp;
use serde_json::{Value, json};

const PROD: &str = "/aws/lambda/hosted-mcp-prod";
const STAGING: &str = "/aws/lambda/hosted-mcp-staging";
const OTHER: &str = "/aws/lambda/other";

const PROD_LINES: &str = r#"{"ts":"2024-05-01T09:00:00.000Z","event":"tool_call","tool":"list_invoices","status":"ok"}
{"ts":"2024-05-01T09:05:00.250Z","event":"tool_call","tool":"list_invoices","status":"upstream_error","reason":"timeout"}
{"ts":"2024-05-02T10:00:00.000Z","event":"tool_call","tool":"get_contact","status":"ok"}
{"ts":"2024-05-02T11:00:00.000Z","event":"startup"}
{"ts":"2024-04-20T10:00:00.000Z","event":"tool_call","tool":"get_contact","status":"ok"}
"#;

const STAGING_LINES: &str = r#"{"ts":"2024-05-01T12:00:00.000Z","event":"tool_call","tool":"list_invoices","status":"not_found"}
{"ts":"2024-05-03T08:30:00.000Z","event":"tool_call","tool":"create_invoice","status":"ok"}
"#;

const BY_TOOL: &str = r#"filter event = "tool_call"
| stats count(*) as calls, sum(status != "ok") as errors by @log, tool
| sort calls desc"#;

fn at(ts: &str) -> Timestamp {
    ts.parse().unwrap()
}

fn may_2024() -> TimeRange {
    TimeRange {
        start: at("2024-05-01T00:00:00Z"),
        end: at("2024-05-31T23:59:59Z"),
    }
}

async fn loaded() -> LogsEndpoint {
    let logs = LogsEndpoint::start().await;
    logs.add_lines(PROD, PROD_LINES);
    logs.add_lines(STAGING, STAGING_LINES);
    logs.add_lines(OTHER, "");
    logs
}

async fn call(client: &AwsJson, operation: &str, input: Value) -> Result<Value, AwsError> {
    client.json11(TARGET, operation, &input).await
}

fn range_input(mut input: Value) -> Value {
    let range = may_2024();
    input["startTime"] = json!(range.start.as_second());
    input["endTime"] = json!(range.end.as_second());
    input
}

async fn start(client: &AwsJson, groups: &[&str], query: &str) -> String {
    let input = range_input(json!({"logGroupNames": groups, "queryString": query}));
    let out = call(client, "StartQuery", input).await.expect("StartQuery");
    out["queryId"].as_str().expect("queryId").to_string()
}

/// Polls until the query leaves Scheduled/Running, returning the statuses seen on the way.
async fn poll(client: &AwsJson, query_id: &str) -> (Vec<String>, Value) {
    let mut seen = Vec::new();
    for _ in 0..10 {
        let out = call(client, "GetQueryResults", json!({"queryId": query_id}))
            .await
            .expect("GetQueryResults");
        let status = out["status"].as_str().expect("status").to_string();
        if !matches!(status.as_str(), "Scheduled" | "Running") {
            return (seen, out);
        }
        seen.push(status);
    }
    panic!("query {query_id} never finished: {seen:?}");
}

/// An operation's whole answer, status and body (an error's details beyond its code and message).
async fn raw(logs: &LogsEndpoint, operation: &str, input: &Value) -> (u16, Value) {
    let reply = reqwest::Client::new()
        .post(&logs.endpoint)
        .header("content-type", "application/x-amz-json-1.1")
        .header("x-amz-target", format!("{TARGET}.{operation}"))
        .header("authorization", SIGNED)
        .json(input)
        .send()
        .await
        .unwrap();
    (reply.status().as_u16(), reply.json().await.unwrap())
}

/// An authorization header of the right shape (the endpoint checks no signature).
const SIGNED: &str = "AWS4-HMAC-SHA256 Credential=testing/20240501/eu-central-1/logs/aws4_request, SignedHeaders=host, Signature=00";

fn rows(out: &Value) -> Vec<Vec<(String, String)>> {
    out["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    let text = |k: &str| f[k].as_str().unwrap().to_string();
                    (text("field"), text("value"))
                })
                .collect()
        })
        .collect()
}

/// What the engine gives for `query` run directly over the same lines.
fn engine(query: &str, groups: &[(&str, &str)], range: TimeRange) -> Vec<Vec<(String, String)>> {
    let events: Vec<_> = groups
        .iter()
        .flat_map(|(group, lines)| {
            let at_log = format!("{ACCOUNT_ID}:{group}");
            lines
                .lines()
                .map(move |l| insights::event_from_json_line(l, &at_log).unwrap())
        })
        .collect();
    let rows = insights::run(&insights::parse(query).unwrap(), &events, range).unwrap();
    insights::to_results(&rows)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_over_two_log_groups_polls_to_complete_and_matches_the_engine() {
    let logs = loaded().await;
    let client = logs.client();

    let id = start(&client, &[PROD, STAGING], BY_TOOL).await;
    let (seen, out) = poll(&client, &id).await;

    assert_eq!(seen, ["Running"], "one Running poll first");
    assert_eq!(out["status"], "Complete");
    let expected = engine(
        BY_TOOL,
        &[(PROD, PROD_LINES), (STAGING, STAGING_LINES)],
        may_2024(),
    );
    assert_eq!(rows(&out), expected);
    // Both groups contributed, the April event is outside the range.
    assert!(expected.len() == 4 && expected[0][0].1.ends_with(PROD));
    assert!(
        expected
            .iter()
            .any(|r| r[0].1 == format!("{ACCOUNT_ID}:{STAGING}"))
    );
    assert_eq!(
        expected.iter().find(|r| r[1].1 == "list_invoices").unwrap()[2..],
        [
            ("calls".to_string(), "2".to_string()),
            ("errors".to_string(), "1".to_string())
        ]
    );
    let stats = &out["statistics"];
    assert_eq!(stats["recordsScanned"].as_f64(), Some(6.0));
    assert!(stats["bytesScanned"].as_f64().unwrap() > 0.0);
    assert!(out.get("nextToken").is_none());

    let asked = logs.queries();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].query_id, id);
    assert_eq!(asked[0].log_groups, [PROD, STAGING]);
    assert_eq!(asked[0].range, may_2024());
    assert_eq!(asked[0].query_string, BY_TOOL);
    assert_eq!(asked[0].limit, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn describe_log_groups_resolves_a_prefix_page_by_page() {
    let logs = loaded().await;
    let client = logs.client();

    let mut pages = Vec::new();
    let mut input = json!({"logGroupNamePrefix": "/aws/lambda/hosted-mcp-", "limit": 1});
    loop {
        let page = call(&client, "DescribeLogGroups", input.clone())
            .await
            .expect("DescribeLogGroups");
        let next = page["nextToken"].as_str().map(str::to_string);
        pages.push(page);
        match next {
            Some(token) => input["nextToken"] = json!(token),
            None => break,
        }
    }
    assert_eq!(pages.len(), 2, "limit 1 gives one group per page");
    let groups: Vec<&Value> = pages
        .iter()
        .flat_map(|p| p["logGroups"].as_array().unwrap())
        .collect();
    let names: Vec<_> = groups
        .iter()
        .filter_map(|g| g["logGroupName"].as_str())
        .collect();
    assert_eq!(names, [PROD, STAGING]);
    assert_eq!(
        groups[0]["logGroupArn"],
        format!("arn:aws:logs:eu-central-1:{ACCOUNT_ID}:log-group:{PROD}")
    );
    // The whole prefix, as the functions resolve it.
    let resolved = insights::cloudwatch::groups_with_prefix(&client, "/aws/lambda/hosted-mcp-")
        .await
        .unwrap();
    assert_eq!(resolved, [PROD, STAGING]);

    // The ARNs resolve back to names as logGroupIdentifiers.
    let arns: Vec<&Value> = groups.iter().map(|g| &g["logGroupArn"]).collect();
    let input = json!({"logGroupIdentifiers": arns, "queryString": "stats count(*) as n"});
    call(&client, "StartQuery", range_input(input))
        .await
        .expect("StartQuery by identifiers");
    assert_eq!(logs.queries()[0].log_groups, [PROD, STAGING]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_the_engine_rejects_is_a_malformed_query_exception_with_its_location() {
    let logs = loaded().await;
    let query = "filter event = \"tool_call\"\n| stats stddev(duration_ms) as sd";

    let input = json!({"logGroupName": PROD, "queryString": query});
    let answer = raw(&logs, "StartQuery", &range_input(input)).await;
    assert_eq!(answer.0, 400);
    let e = answer.1;
    assert_eq!(e["__type"], "MalformedQueryException", "{e}");
    let engine_error = insights::parse(query).unwrap_err().to_string();
    assert_eq!(e["message"], engine_error.as_str());
    let location = &e["queryCompileError"]["location"];
    // Line 2, column 9 of the query: the `stddev` after "| stats ".
    let offset = location["startCharOffset"].as_u64().unwrap() as usize;
    assert!(query[offset..].starts_with("stddev"), "offset {offset}");
    assert!(logs.queries().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_log_group_and_query_id_are_resource_not_found() {
    let logs = loaded().await;
    let client = logs.client();

    let code = |r: Result<Value, AwsError>| r.unwrap_err().code().map(str::to_string);
    let input =
        json!({"logGroupNames": [PROD, "/aws/lambda/missing"], "queryString": "fields tool"});
    let err = code(call(&client, "StartQuery", range_input(input)).await);
    assert_eq!(err.as_deref(), Some("ResourceNotFoundException"));

    let input = json!({"queryId": "no-such-query"});
    let err = code(call(&client, "GetQueryResults", input).await);
    assert_eq!(err.as_deref(), Some("ResourceNotFoundException"));

    // Two ways of naming log groups at once is a parameter error.
    let input =
        json!({"logGroupName": PROD, "logGroupNames": [STAGING], "queryString": "fields tool"});
    let err = code(call(&client, "StartQuery", range_input(input)).await);
    assert_eq!(err.as_deref(), Some("InvalidParameterException"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_failed_and_timeout_queries_end_without_rows() {
    let logs = loaded().await;
    let client = logs.client();

    for status in [Status::Failed, Status::Timeout] {
        logs.script(Behaviour::Finish(status));
        let id = start(&client, &[PROD], BY_TOOL).await;
        let (seen, out) = poll(&client, &id).await;
        assert_eq!(seen, ["Running"]);
        assert_eq!(out["status"], status.as_str());
        assert_eq!(out["results"], json!([]));
    }

    logs.script(Behaviour::Finish(Status::Complete));
    logs.script(Behaviour::Pending(vec![
        Status::Scheduled,
        Status::Running,
        Status::Running,
    ]));
    let id = start(&client, &[PROD], BY_TOOL).await;
    let (seen, out) = poll(&client, &id).await;
    assert_eq!(seen, ["Scheduled", "Running", "Running"]);
    assert_eq!(out["status"], "Complete");
    assert!(!rows(&out).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_query_cancels_a_running_query() {
    let logs = loaded().await;
    let client = logs.client();
    logs.script(Behaviour::Pending(vec![Status::Running; 5]));

    let id = start(&client, &[PROD], BY_TOOL).await;
    let first = call(&client, "GetQueryResults", json!({"queryId": id}))
        .await
        .unwrap();
    assert_eq!(first["status"], "Running");

    let stopped = call(&client, "StopQuery", json!({"queryId": id})).await;
    assert_eq!(stopped.unwrap()["success"], true);
    let (seen, out) = poll(&client, &id).await;
    assert!(seen.is_empty());
    assert_eq!(out["status"], "Cancelled");
    assert_eq!(out["results"], json!([]));

    let again = call(&client, "StopQuery", json!({"queryId": id})).await;
    assert_eq!(again.unwrap()["success"], false, "no longer running");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_cap_truncates_results_and_max_items_pages_them() {
    let logs = loaded().await;
    let client = logs.client();
    let query = "fields tool, status | sort @timestamp asc";
    let all = engine(query, &[(PROD, PROD_LINES)], may_2024());
    assert_eq!(all.len(), 4);

    logs.script(Behaviour::RowCap(3));
    let id = start(&client, &[PROD], query).await;
    let (_, out) = poll(&client, &id).await;
    assert_eq!(rows(&out), all[..3]);
    assert_eq!(out["statistics"]["recordsMatched"].as_f64(), Some(4.0));

    let input = json!({"queryId": id, "maxItems": 2});
    let first = call(&client, "GetQueryResults", input).await.unwrap();
    assert_eq!(rows(&first), all[..2]);
    let token = first["nextToken"].as_str().expect("a second page");
    let input = json!({"queryId": id, "maxItems": 2, "nextToken": token});
    let second = call(&client, "GetQueryResults", input).await.unwrap();
    assert_eq!(rows(&second), all[2..3]);
    assert!(second.get("nextToken").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsigned_or_unknown_requests_get_json_errors() {
    let logs = LogsEndpoint::start().await;
    let http = reqwest::Client::new();
    let send = |target: &'static str, auth: Option<&'static str>| {
        let mut r = http
            .post(&logs.endpoint)
            .header("content-type", "application/x-amz-json-1.1")
            .header("x-amz-target", target)
            .body("{}");
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        r.send()
    };
    let signed = SIGNED;

    let reply = send("Logs_20140328.DescribeLogGroups", None).await.unwrap();
    assert_eq!(reply.status(), 400);
    let body: serde_json::Value = reply.json().await.unwrap();
    assert_eq!(body["__type"], "MissingAuthenticationTokenException");

    let reply = send("Logs_20140328.PutLogEvents", Some(signed))
        .await
        .unwrap();
    assert_eq!(reply.status(), 400);
    let body: serde_json::Value = reply.json().await.unwrap();
    assert_eq!(body["__type"], "UnknownOperationException");

    let reply = send("Logs_20140328.DescribeLogGroups", Some(signed))
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    assert_eq!(
        reply.headers()["content-type"],
        "application/x-amz-json-1.1"
    );
    let body: serde_json::Value = reply.json().await.unwrap();
    assert_eq!(body, serde_json::json!({"logGroups": []}));
}

/// The same client against moto's CloudWatch Logs, an implementation of the API that is not
/// ours: log groups by prefix, page by page, and a query polled to its rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moto_logs_answers_the_functions_client() {
    let moto = tokio::task::spawn_blocking(integration_tests::Moto::start)
        .await
        .unwrap();
    let client = integration_tests::aws_client(aws_json::CLOUDWATCH_LOGS, &moto.endpoint);
    for group in [PROD, STAGING, OTHER] {
        let input = json!({"logGroupName": group});
        call(&client, "CreateLogGroup", input).await.unwrap();
    }
    let stream = json!({"logGroupName": PROD, "logStreamName": "s"});
    call(&client, "CreateLogStream", stream).await.unwrap();
    // Moto, like CloudWatch, refuses events older than 14 days: these are from the last hour.
    let now = Timestamp::now();
    let events: Vec<Value> = PROD_LINES
        .lines()
        .take(2)
        .enumerate()
        .map(|(i, line)| {
            let ms = now.as_millisecond() - 3_600_000 + i as i64 * 60_000;
            json!({"timestamp": ms, "message": line})
        })
        .collect();
    let last_day = TimeRange {
        start: now - jiff::SignedDuration::from_hours(24),
        end: now,
    };
    let put = json!({"logGroupName": PROD, "logStreamName": "s", "logEvents": events});
    call(&client, "PutLogEvents", put).await.unwrap();

    let groups = insights::cloudwatch::groups_with_prefix(&client, "/aws/lambda/hosted-mcp-")
        .await
        .unwrap();
    assert_eq!(groups, [PROD, STAGING]);

    let polling = insights::cloudwatch::Polling {
        first_poll: std::time::Duration::from_millis(10),
        max_poll: std::time::Duration::from_millis(20),
        timeout: std::time::Duration::from_secs(10),
    };
    let query = "fields @timestamp, @message | sort @timestamp asc | limit 10";
    let rows = insights::cloudwatch::rows(&client, polling, &[PROD.into()], last_day, query)
        .await
        .unwrap();
    let messages: Vec<&str> = rows
        .iter()
        .filter_map(|r| {
            r.iter()
                .find(|(f, _)| f == "@message")
                .map(|(_, v)| v.as_str())
        })
        .collect();
    assert_eq!(messages, PROD_LINES.lines().take(2).collect::<Vec<_>>());

    let missing = json!({"logGroupNames": ["/aws/lambda/missing"], "queryString": query});
    let err = call(&client, "StartQuery", range_input(missing))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ResourceNotFoundException"), "{err}");
}
