//! `quota-alarm` watching a credit balance that only an answer's body reports: Runway's
//! `GET /organization` (`creditBalance`, `tier.maxMonthlyCreditSpend`), which its catalog reads
//! by pointer (`quota.body`) as a balance (`quota.balance`). No audit line has a figure yet, so
//! the handler probes the organisation itself, over HTTP, with the API key it reads from the
//! deployment secret in `moto_server` (the real `aws-sdk-secretsmanager` client) and with the
//! catalog's version header, and decides from the balance: a warning at 80 % of the tier's
//! monthly credits used, quiet below, and no forecast either way.

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use integration_tests::logs_endpoint::LogsEndpoint;
use integration_tests::{Moto, serve_on_loopback};
use jiff::Timestamp;
use quota_alarm::assess::State as Decided;
use quota_alarm::emf::{DEFAULT_NAMESPACE, metrics};
use quota_alarm::handle;
use serde_json::{Value, json};

const API_KEY: &str = "key_quota0123456789abcdef";
const SECRET_ID: &str = "hosted-mcp/quota-runway";
use super::quota_sandbox::{ALARM_GROUP, SERVER_GROUP, assessment, deployment_secret, deps};
/// The tier's monthly credits in the fake's answers.
const MONTHLY: i64 = 10_000;

/// Runway's organisation endpoint with a balance the test sets; records what it was asked.
#[derive(Clone, Default)]
struct Organization {
    balance: Arc<Mutex<i64>>,
    seen: Arc<Mutex<Vec<(String, HeaderMap)>>>,
}

async fn organization(State(org): State<Organization>, uri: Uri, headers: HeaderMap) -> Response {
    org.seen
        .lock()
        .unwrap()
        .push((uri.path().to_string(), headers.clone()));
    let bearer = format!("Bearer {API_KEY}");
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(bearer.as_str()) {
        return (StatusCode::UNAUTHORIZED, Json(json!({"error": "bad key"}))).into_response();
    }
    let balance = *org.balance.lock().unwrap();
    Json(json!({
        "creditBalance": balance,
        "tier": {"maxMonthlyCreditSpend": MONTHLY,
                 "models": {"gen4_turbo": {"maxConcurrentGenerations": 1, "maxDailyGenerations": 50}}},
        "usage": {"models": {"gen4_turbo": {"dailyGenerations": 3}}}
    }))
    .into_response()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credit_balance_read_from_the_organisation_warns_at_80_percent_and_is_quiet_below() {
    let org = Organization::default();
    let app = axum::Router::new()
        .fallback(organization)
        .with_state(org.clone());
    let base = format!("http://{}/v1", serve_on_loopback(app).await);
    let logs = LogsEndpoint::start().await;
    logs.add_lines(SERVER_GROUP, "");
    logs.add_lines(ALARM_GROUP, "");
    let moto = Moto::start();
    deployment_secret(&moto, SECRET_ID, json!({"runway": {"api_key": API_KEY}})).await;
    let deps = deps(&logs, &moto, SECRET_ID, ("runway", &base)).await;

    // (balance, used %, state): 2,500 left is 75 % used, 2,000 is 80 %, 1,500 is 85 %. A
    // month that had started full would have run out before its end at 75 % used by the
    // first days; a balance gets no forecast, so 75 % stays ok whatever the day.
    for (balance, used, state) in [
        (2_500, 75.0, Decided::Ok),
        (2_000, 80.0, Decided::Warn),
        (1_500, 85.0, Decided::Warn),
    ] {
        *org.balance.lock().unwrap() = balance;
        let probes_before = org.seen.lock().unwrap().len();

        let outcome = handle(&deps, Timestamp::now()).await.expect("quota run");

        let seen = org.seen.lock().unwrap().clone();
        assert_eq!(seen.len(), probes_before + 1, "one probe per run: {seen:?}");
        let (path, headers) = seen.last().unwrap();
        assert_eq!(path, "/v1/organization");
        assert_eq!(headers["x-runway-version"], "2024-11-06");
        let a = assessment(&outcome.assessments, "runway");
        assert_eq!(a.state, state, "{balance}: {}", a.reason);
        assert_eq!(
            (a.remaining, a.limit, a.utilization_percent),
            (Some(balance), Some(MONTHLY), Some(used)),
            "{a:?}"
        );
        assert_eq!(
            (a.burn_per_day, a.days_left, a.exhausted_before_window_end),
            (None, None, None),
            "a balance is not forecast: {a:?}"
        );
        assert!(a.reason.contains("no forecast"), "{}", a.reason);

        let docs: Vec<Value> = outcome
            .lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        let probe_line = docs
            .iter()
            .find(|d| d["event"] == "quota_probe" && d["connector"] == "runway")
            .expect("the probe's audit line");
        assert_eq!(
            (&probe_line["quota_remaining"], &probe_line["quota_limit"]),
            (&json!(balance), &json!(MONTHLY)),
            "{probe_line}"
        );
        assert!(!outcome.lines.join("\n").contains(API_KEY));
        let emf = docs
            .iter()
            .find(|d| d.get("_aws").is_some() && d[metrics::CONNECTOR] == "runway")
            .expect("an EMF document for runway");
        assert_eq!(emf[metrics::UTILIZATION_PERCENT], json!(used), "{emf}");
        assert!(
            emf.get(metrics::EXHAUSTED_BEFORE_WINDOW_END).is_none(),
            "{emf}"
        );
        // The alarm infra creates on that metric fires at exactly this threshold.
        let plan = quota_alarm::alarms::plan(&deps.connectors, DEFAULT_NAMESPACE);
        let warn = plan
            .alarms
            .iter()
            .find(|x| x.id == "quota-runway-warn")
            .expect("a warning alarm for runway");
        assert_eq!(used >= warn.threshold, state == Decided::Warn, "{warn:?}");
    }
}
