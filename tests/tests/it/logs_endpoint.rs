//! The local CloudWatch Logs endpoint, driven by the real `aws-sdk-cloudwatchlogs` client.

use aws_sdk_cloudwatchlogs::Client;
use aws_sdk_cloudwatchlogs::operation::get_query_results::GetQueryResultsOutput;
use aws_sdk_cloudwatchlogs::operation::start_query::StartQueryError;
use aws_sdk_cloudwatchlogs::types::QueryStatus;
use insights::TimeRange;
use integration_tests::logs_endpoint::{ACCOUNT_ID, Behaviour, LogsEndpoint, Status};
use jiff::Timestamp;

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

async fn start(client: &Client, groups: &[&str], query: &str) -> String {
    let range = may_2024();
    let out = client
        .start_query()
        .set_log_group_names(Some(groups.iter().map(|g| g.to_string()).collect()))
        .start_time(range.start.as_second())
        .end_time(range.end.as_second())
        .query_string(query)
        .send()
        .await
        .expect("start_query");
    out.query_id().expect("queryId").to_string()
}

/// Polls until the query leaves Scheduled/Running, returning the statuses seen on the way.
async fn poll(client: &Client, query_id: &str) -> (Vec<QueryStatus>, GetQueryResultsOutput) {
    let mut seen = Vec::new();
    for _ in 0..10 {
        let out = client
            .get_query_results()
            .query_id(query_id)
            .send()
            .await
            .expect("get_query_results");
        let status = out.status().cloned().expect("status");
        if !matches!(status, QueryStatus::Scheduled | QueryStatus::Running) {
            return (seen, out);
        }
        seen.push(status);
    }
    panic!("query {query_id} never finished: {seen:?}");
}

fn rows(out: &GetQueryResultsOutput) -> Vec<Vec<(String, String)>> {
    out.results()
        .iter()
        .map(|row| {
            row.iter()
                .map(|f| {
                    (
                        f.field().unwrap().to_string(),
                        f.value().unwrap().to_string(),
                    )
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

    assert_eq!(seen, vec![QueryStatus::Running], "one Running poll first");
    assert_eq!(out.status(), Some(&QueryStatus::Complete));
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
    let stats = out.statistics().expect("statistics");
    assert_eq!(stats.records_scanned(), 6.0);
    assert!(stats.bytes_scanned() > 0.0);
    assert_eq!(out.next_token(), None);

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

    let pages: Vec<_> = client
        .describe_log_groups()
        .log_group_name_prefix("/aws/lambda/hosted-mcp-")
        .limit(1)
        .into_paginator()
        .send()
        .collect::<Result<_, _>>()
        .await
        .expect("describe_log_groups");
    assert_eq!(pages.len(), 2, "limit 1 gives one group per page");
    let groups: Vec<_> = pages.iter().flat_map(|p| p.log_groups()).collect();
    let names: Vec<_> = groups.iter().filter_map(|g| g.log_group_name()).collect();
    assert_eq!(names, [PROD, STAGING]);
    assert_eq!(
        groups[0].log_group_arn(),
        Some(format!("arn:aws:logs:eu-central-1:{ACCOUNT_ID}:log-group:{PROD}").as_str())
    );

    // The ARNs resolve back to names as logGroupIdentifiers.
    let range = may_2024();
    client
        .start_query()
        .set_log_group_identifiers(Some(
            groups
                .iter()
                .filter_map(|g| g.log_group_arn())
                .map(String::from)
                .collect(),
        ))
        .start_time(range.start.as_second())
        .end_time(range.end.as_second())
        .query_string("stats count(*) as n")
        .send()
        .await
        .expect("start_query by identifiers");
    assert_eq!(logs.queries()[0].log_groups, [PROD, STAGING]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_the_engine_rejects_is_the_sdk_malformed_query_exception() {
    let logs = loaded().await;
    let range = may_2024();
    let query = "filter event = \"tool_call\"\n| stats stddev(duration_ms) as sd";

    let err = logs
        .client()
        .start_query()
        .log_group_name(PROD)
        .start_time(range.start.as_second())
        .end_time(range.end.as_second())
        .query_string(query)
        .send()
        .await
        .expect_err("stddev is outside the engine's subset")
        .into_service_error();

    let StartQueryError::MalformedQueryException(e) = &err else {
        panic!("not MalformedQueryException: {err:?}");
    };
    let engine_error = insights::parse(query).unwrap_err().to_string();
    assert_eq!(e.message(), Some(engine_error.as_str()));
    let location = e.query_compile_error().and_then(|c| c.location()).unwrap();
    // Line 2, column 9 of the query: the `stddev` after "| stats ".
    let offset = location.start_char_offset().unwrap() as usize;
    assert!(query[offset..].starts_with("stddev"), "offset {offset}");
    assert!(logs.queries().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_log_group_and_query_id_are_resource_not_found() {
    let logs = loaded().await;
    let client = logs.client();
    let range = may_2024();

    let err = client
        .start_query()
        .log_group_names(PROD)
        .log_group_names("/aws/lambda/missing")
        .start_time(range.start.as_second())
        .end_time(range.end.as_second())
        .query_string("fields tool")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");

    let err = client
        .get_query_results()
        .query_id("no-such-query")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");

    // Two ways of naming log groups at once is a parameter error.
    let err = client
        .start_query()
        .log_group_name(PROD)
        .log_group_names(STAGING)
        .start_time(range.start.as_second())
        .end_time(range.end.as_second())
        .query_string("fields tool")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_invalid_parameter_exception(), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_failed_and_timeout_queries_end_without_rows() {
    let logs = loaded().await;
    let client = logs.client();

    for status in [Status::Failed, Status::Timeout] {
        logs.script(Behaviour::Finish(status));
        let id = start(&client, &[PROD], BY_TOOL).await;
        let (seen, out) = poll(&client, &id).await;
        assert_eq!(seen, vec![QueryStatus::Running]);
        assert_eq!(out.status().map(|s| s.as_str()), Some(status.as_str()));
        assert!(out.results().is_empty());
    }

    logs.script(Behaviour::Finish(Status::Complete));
    logs.script(Behaviour::Pending(vec![
        Status::Scheduled,
        Status::Running,
        Status::Running,
    ]));
    let id = start(&client, &[PROD], BY_TOOL).await;
    let (seen, out) = poll(&client, &id).await;
    assert_eq!(
        seen,
        [
            QueryStatus::Scheduled,
            QueryStatus::Running,
            QueryStatus::Running
        ]
    );
    assert_eq!(out.status(), Some(&QueryStatus::Complete));
    assert!(!out.results().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_query_cancels_a_running_query() {
    let logs = loaded().await;
    let client = logs.client();
    logs.script(Behaviour::Pending(vec![Status::Running; 5]));

    let id = start(&client, &[PROD], BY_TOOL).await;
    let first = client
        .get_query_results()
        .query_id(&id)
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), Some(&QueryStatus::Running));

    let stopped = client.stop_query().query_id(&id).send().await.unwrap();
    assert!(stopped.success());
    let (seen, out) = poll(&client, &id).await;
    assert!(seen.is_empty());
    assert_eq!(out.status(), Some(&QueryStatus::Cancelled));
    assert!(out.results().is_empty());

    let again = client.stop_query().query_id(&id).send().await.unwrap();
    assert!(!again.success(), "no longer running");
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
    assert_eq!(out.statistics().unwrap().records_matched(), 4.0);

    let first = client
        .get_query_results()
        .query_id(&id)
        .max_items(2)
        .send()
        .await
        .unwrap();
    assert_eq!(rows(&first), all[..2]);
    let token = first.next_token().expect("a second page");
    let second = client
        .get_query_results()
        .query_id(&id)
        .max_items(2)
        .next_token(token)
        .send()
        .await
        .unwrap();
    assert_eq!(rows(&second), all[2..3]);
    assert_eq!(second.next_token(), None);
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
    let signed = "AWS4-HMAC-SHA256 Credential=testing/20240501/eu-central-1/logs/aws4_request, SignedHeaders=host, Signature=00";

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
