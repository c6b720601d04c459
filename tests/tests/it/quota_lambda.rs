//! `quota-alarm` on its Lambda path: the handler with its CloudWatch Logs client
//! against the local CloudWatch Logs endpoint, over a month of sandbox audit lines in two log
//! groups (the function's fixtures), checked down to the EMF document CloudWatch would read.

use insights::cloudwatch::CloudWatchInsights;
use integration_tests::logs_endpoint::{Behaviour, LogsEndpoint, Status, audit_lines};
use jiff::Timestamp;
use lambda_runtime::Diagnostic;
use quota_alarm::assess::State;
use quota_alarm::emf::{DEFAULT_NAMESPACE, metrics};
use quota_alarm::local::NoProbes;
use quota_alarm::policy::policies;
use quota_alarm::{Deps, handle};
use serde_json::Value;

/// Audit events and Lambda platform lines (JSON strings), which `audit_lines` leaves out.
const A: &str =
    include_str!("../../../functions/quota-alarm/tests/fixtures/audit-papierkram-may-2026-a.jsonl");
const B: &str =
    include_str!("../../../functions/quota-alarm/tests/fixtures/audit-papierkram-may-2026-b.jsonl");
const GROUP_A: &str = "/aws/lambda/hosted-mcp-prod";
const GROUP_B: &str = "/aws/lambda/hosted-mcp-prod-eu";
const NOW: &str = "2026-05-20T10:00:00Z";

async fn setup() -> (LogsEndpoint, Deps<CloudWatchInsights, NoProbes>) {
    let logs = LogsEndpoint::start().await;
    logs.add_lines(GROUP_A, &audit_lines(A));
    logs.add_lines(GROUP_B, &audit_lines(B));
    let deps = Deps {
        logs: logs.insights(),
        // The probe has its own end-to-end test (quota_sandbox.rs); this one reads logs only.
        prober: NoProbes,
        probes: Default::default(),
        connectors: policies(&connector::load(None).unwrap()).unwrap(),
        namespace: DEFAULT_NAMESPACE.into(),
        log_groups: vec![GROUP_A.into()],
        log_group_prefix: Some("/aws/lambda/hosted-mcp-prod-".into()),
    };
    (logs, deps)
}

fn now() -> Timestamp {
    NOW.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn month_of_audit_lines_gives_a_warn_decision_and_emf_metrics() {
    let (logs, deps) = setup().await;

    let outcome = handle(&deps, now()).await.expect("quota run");

    let papierkram = outcome
        .assessments
        .iter()
        .find(|a| a.connector == "papierkram")
        .expect("a papierkram assessment");
    assert_eq!(papierkram.state, State::Warn, "{papierkram:?}");
    let utilization = papierkram.utilization_percent.unwrap();
    assert!((utilization - 69.04).abs() < 0.01, "{utilization}");
    assert_eq!(papierkram.limit, Some(10_000));
    assert_eq!(papierkram.remaining, Some(3096));
    assert_eq!(outcome.summary()["connectors"]["papierkram"], "warn");

    let docs: Vec<Value> = outcome
        .lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let emf = docs
        .iter()
        .find(|d| d.get("_aws").is_some())
        .unwrap_or_else(|| panic!("no EMF line in {:?}", outcome.lines));
    let aws = &emf["_aws"];
    assert_eq!(aws["Timestamp"], now().as_millisecond());
    let directive = &aws["CloudWatchMetrics"][0];
    assert_eq!(directive["Namespace"], DEFAULT_NAMESPACE);
    assert_eq!(
        directive["Dimensions"],
        serde_json::json!([[metrics::CONNECTOR]])
    );
    // Every declared metric and dimension is a top-level member, as EMF requires.
    for definition in directive["Metrics"].as_array().unwrap() {
        let name = definition["Name"].as_str().unwrap();
        assert!(emf[name].is_number(), "{name} missing in {emf}");
    }
    assert!(
        directive["Metrics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["Name"] == metrics::UTILIZATION_PERCENT && m["Unit"] == "Percent"),
        "{emf}"
    );
    assert_eq!(emf[metrics::CONNECTOR], "papierkram");
    assert_eq!(emf[metrics::UTILIZATION_PERCENT], 69.04);
    assert_eq!(emf[metrics::EXHAUSTED_BEFORE_WINDOW_END], 1.0);

    let decision = docs
        .iter()
        .find(|d| d["connector"] == "papierkram" && d.get("_aws").is_none())
        .expect("a decision line");
    assert_eq!(decision["state"], "warn");

    // One query over both groups (the second found by prefix) from the Berlin month start.
    let queries = logs.queries();
    assert_eq!(queries.len(), 1, "{queries:?}");
    assert_eq!(queries[0].log_groups, [GROUP_A, GROUP_B]);
    assert_eq!(
        queries[0].range.start,
        "2026-04-30T22:00:00Z".parse::<Timestamp>().unwrap()
    );
    assert_eq!(queries[0].range.end, now());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_query_fails_the_invocation_without_metrics() {
    let (logs, deps) = setup().await;
    logs.script(Behaviour::Finish(Status::Failed));

    let err = handle(&deps, now()).await.expect_err("the run must fail");
    let message = err.to_string();
    assert!(message.contains("ended as Failed"), "{message}");
    assert!(
        message.contains(&logs.queries()[0].query_id),
        "names the query: {message}"
    );
    assert_eq!(Diagnostic::from(err).error_type, "QuotaAlarm.QueryFailed");
}
