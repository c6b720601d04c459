//! A sandbox session that burns quota, watched by `quota-alarm` on its Lambda path.
//!
//! The real `mcp-server` process serves a client against the Papierkram sandbox upstream, which
//! counts its monthly quota down (Europe/Berlin month, like the catalog declares). The server's
//! audit lines go to the local CloudWatch Logs endpoint; the quota-alarm handler reads them with
//! the functions' CloudWatch Logs client, reads the deployment secret from `moto_server` with
//! the real `aws-sdk-secretsmanager` client when it probes, and probes the same sandbox over HTTP.
//! What it reports must be the sandbox's own figures, and its EMF metrics must be what the
//! catalog's alarms watch.

use std::collections::BTreeMap;
use std::time::Duration;

use insights::cloudwatch::CloudWatchInsights;
use integration_tests::logs_endpoint::LogsEndpoint;
use integration_tests::{KEY, Moto, Rpc, Server, structured};
use jiff::{SignedDuration, Timestamp};
use papierkram_sandbox::SandboxState;
use quota_alarm::assess::{Assessment, State, UsedFrom, min_forecast_span};
use quota_alarm::emf::{DEFAULT_NAMESPACE, metrics};
use quota_alarm::policy::policies;
use quota_alarm::probe::{self, HttpProber};
use quota_alarm::{Deps, alarms, handle};
use serde_json::{Value, json};

const TOKEN: &str = "papierkram-quota-token-51c2";
const SUBDOMAIN: &str = "nordlicht-quota";
const SECRET_ID: &str = "hosted-mcp/quota-e2e";
pub(super) const SERVER_GROUP: &str = "/hosted-mcp/e2e/mcp-server";
pub(super) const ALARM_GROUP: &str = "/hosted-mcp/e2e/quota-alarm";
const LIMIT: u64 = 10_000;
const START_REMAINING: u64 = 2_040;

/// The sandbox on a loopback port: the upstream of the server and of the probe.
async fn sandbox(remaining: u64) -> (SandboxState, String) {
    let sandbox = SandboxState::new(TOKEN);
    sandbox.set_quota_remaining(remaining);
    let (addr, _handle) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
    (sandbox, format!("http://{addr}/api/v1"))
}

/// The deployment secret in moto, with the Papierkram token `token`.
async fn secret(moto: &Moto, token: &str) {
    let connectors = json!({"papierkram": {"subdomain": SUBDOMAIN, "token": token}});
    deployment_secret(moto, SECRET_ID, connectors).await;
}

/// The deployment secret `secret_id` in moto, with these connectors' fields.
pub(super) async fn deployment_secret(moto: &Moto, secret_id: &str, connectors: Value) {
    let secret = json!({
        "api_keys": {"e2e": KEY},
        "pseudonym_pepper": "quota-pepper-0123456789abcdef0123456789",
        "connectors": connectors
    });
    moto.secrets_client()
        .await
        .create_secret()
        .name(secret_id)
        .secret_string(secret.to_string())
        .send()
        .await
        .unwrap();
}

/// The handler's dependencies as `main` builds them, pointed at the local endpoints: the
/// deployment secret `secret_id` on moto, `connector`'s upstream at `base`.
pub(super) async fn deps(
    logs: &LogsEndpoint,
    moto: &Moto,
    secret_id: &str,
    (connector, base): (&str, &str),
) -> Deps<CloudWatchInsights, HttpProber> {
    let loaded = connector::load(None).unwrap();
    Deps {
        logs: logs.insights(),
        prober: HttpProber {
            http: probe::http_client(),
            secret: Some((moto.secrets_client().await, secret_id.to_string())),
            base_urls: BTreeMap::from([(connector.to_string(), base.to_string())]),
        },
        probes: probe::specs(&loaded),
        connectors: policies(&loaded).unwrap(),
        namespace: DEFAULT_NAMESPACE.into(),
        log_groups: vec![SERVER_GROUP.into(), ALARM_GROUP.into()],
        log_group_prefix: None,
    }
}

/// The assessment of `connector`.
pub(super) fn assessment<'a>(assessments: &'a [Assessment], connector: &str) -> &'a Assessment {
    assessments
        .iter()
        .find(|a| a.connector == connector)
        .unwrap_or_else(|| panic!("no {connector} assessment"))
}

/// The audit lines among a process's stdout lines, as CloudWatch would store them.
fn audit_jsonl(lines: &[String]) -> String {
    lines
        .iter()
        .filter(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| v.get("ts").is_some()))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Parsed JSON lines of a run's output.
fn docs(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_burning_quota_is_reported_with_the_sandbox_figures_and_alarmable_metrics() {
    // Earlier this month 7,960 of the 10,000 credits went elsewhere: 79.6 %, still ok.
    let (sandbox, base) = sandbox(START_REMAINING).await;
    let keys = format!("e2e:{KEY}");
    let server = Server::start(
        &[],
        &[
            ("MCP_API_KEYS", keys.as_str()),
            ("PAPIERKRAM_BASE_URL", base.as_str()),
            ("PAPIERKRAM_TOKEN", TOKEN),
            ("PAPIERKRAM_SUBDOMAIN", SUBDOMAIN),
        ],
    );
    let rpc = Rpc::new(&server.url);

    // The session: list pages, single records, and aggregations that page through everything.
    let mut calls = 0;
    for page in 1..=40 {
        let args = json!({"page": page % 5 + 1, "page_size": 10});
        for tool in ["papierkram_invoices_list", "papierkram_vouchers_list"] {
            let reply = rpc.call(tool, args.clone()).await;
            assert_eq!(structured(&reply)["status"], "ok", "{tool}: {reply}");
            calls += 1;
        }
    }
    for (tool, args) in [
        (
            "papierkram_month_close_get",
            json!({"year": 2026, "month": 3}),
        ),
        ("papierkram_open_items_get", json!({})),
        ("papierkram_info_get", json!({})),
    ] {
        let reply = rpc.call(tool, args).await;
        assert_eq!(structured(&reply)["status"], "ok", "{tool}: {reply}");
        calls += 1;
    }
    let quota = sandbox.quota();
    let burned = START_REMAINING - quota.remaining;
    assert!(
        burned > calls,
        "aggregations page through the API: {burned} requests for {calls} calls"
    );
    assert!(
        quota.used * 100 >= LIMIT * 80,
        "the session crossed 80 %: {quota:?}"
    );

    // Every call with figures has been audited once the reader thread has caught up.
    let mut audit = String::new();
    for _ in 0..250 {
        audit = audit_jsonl(&server.stdout.all());
        let audited = audit
            .lines()
            .filter(|l| l.contains("quota_remaining"))
            .count();
        if audited == calls as usize {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let logs = LogsEndpoint::start().await;
    logs.add_lines(SERVER_GROUP, &audit);
    logs.add_lines(ALARM_GROUP, "");
    let moto = Moto::start();
    secret(&moto, TOKEN).await;
    let deps = deps(&logs, &moto, SECRET_ID, ("papierkram", &base)).await;
    // StartQuery takes whole seconds: let the last audited second close.
    let now = Timestamp::now() + SignedDuration::from_secs(2);
    let requests_before = sandbox.request_count();

    let outcome = handle(&deps, now).await.expect("quota run");

    let a = assessment(&outcome.assessments, "papierkram");
    let used = i64::try_from(quota.used).unwrap();
    let remaining = i64::try_from(quota.remaining).unwrap();
    assert_eq!(a.limit, Some(10_000));
    assert_eq!(
        (a.used, a.remaining),
        (Some(used), Some(remaining)),
        "{a:?}"
    );
    assert_eq!(a.used_from, Some(UsedFrom::Remaining));
    let utilization = a.utilization_percent.unwrap();
    assert!(
        (utilization - used as f64 / 100.0).abs() < 1e-9,
        "{utilization}"
    );
    assert_eq!(a.calls, calls);
    assert_eq!(
        a.reported_cost,
        Some(i64::try_from(burned).unwrap()),
        "the platform's own share"
    );
    // Ranked by what they cost; an aggregation's audit line carries the cost of all its pages.
    let top: Vec<(&str, u64, Option<i64>)> = a
        .top_tools
        .iter()
        .map(|t| (t.tool.as_str(), t.calls, t.consumed))
        .collect();
    assert_eq!(
        top,
        [
            ("papierkram_invoices_list", 40, Some(40)),
            ("papierkram_vouchers_list", 40, Some(40)),
            ("papierkram_open_items_get", 1, Some(3)),
            ("papierkram_month_close_get", 1, Some(2)),
            ("papierkram_info_get", 1, Some(1)),
        ]
    );
    assert_eq!(
        sandbox.request_count(),
        requests_before,
        "recent figures: no probe"
    );

    // The forecast: the month's burn rate so far, extrapolated from now.
    let bounds = a.bounds.unwrap();
    let elapsed = now.duration_since(bounds.start);
    if elapsed >= min_forecast_span(&bounds) {
        let burn = used as f64 / (elapsed.as_secs_f64() / 86_400.0);
        assert!((a.burn_per_day.unwrap() - burn).abs() < 1e-6, "{a:?}");
        let days_left = remaining as f64 / burn;
        assert!((a.days_left.unwrap() - days_left).abs() < 1e-6, "{a:?}");
        let exhausts = now + SignedDuration::from_secs_f64(days_left * 86_400.0);
        assert!(
            a.exhausts_at.unwrap().duration_since(exhausts).abs() < SignedDuration::from_secs(1)
        );
        assert_eq!(a.exhausted_before_window_end, Some(exhausts < bounds.end));
    } else {
        // The first day of a month: too early to extrapolate, and said so.
        assert_eq!((a.burn_per_day, a.days_left), (None, None), "{a:?}");
    }
    let expected_state = if utilization >= 95.0 {
        State::Critical
    } else {
        State::Warn
    };
    assert_eq!(a.state, expected_state, "{a:?}");

    // The EMF document carries the same figures under the names and dimension the catalog's
    // alarms watch, and crosses the warning alarm's threshold.
    let docs = docs(&outcome.lines);
    let emf = docs
        .iter()
        .find(|d| d.get("_aws").is_some() && d["Connector"] == "papierkram")
        .expect("an EMF document for papierkram");
    let published = emf[metrics::UTILIZATION_PERCENT].as_f64().unwrap();
    assert!(
        (published - utilization).abs() < 0.005,
        "{published} vs {utilization}"
    );
    let directive = &emf["_aws"]["CloudWatchMetrics"][0];
    assert_eq!(directive["Namespace"], DEFAULT_NAMESPACE);
    assert_eq!(directive["Dimensions"], json!([["Connector"]]));
    let plan = alarms::plan(&deps.connectors, DEFAULT_NAMESPACE);
    let warn = plan
        .alarms
        .iter()
        .find(|x| x.connector == "papierkram" && x.metric_name == metrics::UTILIZATION_PERCENT)
        .expect("a utilisation alarm");
    let declared: Vec<&str> = directive["Metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["Name"].as_str())
        .collect();
    assert!(declared.contains(&warn.metric_name), "{declared:?}");
    assert!(
        utilization >= warn.threshold,
        "{utilization} < {}",
        warn.threshold
    );
    let decision = docs
        .iter()
        .find(|d| d.get("state").is_some() && d["connector"] == "papierkram")
        .expect("a decision line");
    assert_eq!(decision["state"], json!(expected_state));
    // Shown with --nocapture: the decision line ops would read in CloudWatch.
    println!("{decision}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_connector_is_probed_once_and_the_probe_line_is_read_back() {
    // Little used, so the state is `ok` whatever day of the month it is: with half the quota
    // used, the burn rate from the month's start runs out before its end during the first half
    // of every month (the forecast then rightly says `warn`).
    let (sandbox, base) = sandbox(9_990).await;
    let logs = LogsEndpoint::start().await;
    logs.add_lines(SERVER_GROUP, "");
    logs.add_lines(ALARM_GROUP, "");
    let moto = Moto::start();
    secret(&moto, TOKEN).await;
    let deps = deps(&logs, &moto, SECRET_ID, ("papierkram", &base)).await;
    let now = Timestamp::now();

    let first = handle(&deps, now).await.expect("quota run");

    assert_eq!(sandbox.request_count(), 1, "one probe");
    let requests = sandbox.last_requests(1);
    assert_eq!(requests[0].path, "/api/v1/info");
    let a = assessment(&first.assessments, "papierkram");
    // The probe itself cost one credit.
    assert_eq!((a.used, a.remaining), (Some(11), Some(9_989)), "{a:?}");
    assert_eq!(a.state, State::Ok, "{a:?}");
    assert_eq!(a.top_tools[0].tool, probe::PROBE_TOOL);
    let probe_line = first
        .lines
        .iter()
        .find(|l| is_probe_of_papierkram(l))
        .expect("the probe's audit line");
    let line: Value = serde_json::from_str(probe_line).unwrap();
    assert_eq!(line["quota_remaining"], 9_989);
    assert!(!probe_line.contains(TOKEN) && !probe_line.contains(SUBDOMAIN));

    // The probe line reaches the function's own log group; a quarter of an hour later the
    // next run reads the figure from there instead of probing again.
    logs.add_lines(ALARM_GROUP, &format!("{probe_line}\n"));
    let later = now + SignedDuration::from_mins(15);
    let second = handle(&deps, later).await.expect("second quota run");
    assert_eq!(
        sandbox.request_count(),
        1,
        "no second probe within the quiet hours"
    );
    let b = assessment(&second.assessments, "papierkram");
    assert_eq!((b.remaining, b.last_seen), (Some(9_989), a.last_seen));
    assert!(!second.lines.iter().any(|l| is_probe_of_papierkram(l)));
}

/// A probe's audit line about Papierkram (the other catalogs' probes fail here: the secret
/// holds only Papierkram's fields).
fn is_probe_of_papierkram(line: &str) -> bool {
    line.contains(r#""event":"quota_probe""#) && line.contains(r#""connector":"papierkram""#)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_probe_leaves_the_connector_unknown_without_a_datapoint() {
    let (sandbox, base) = sandbox(5_000).await;
    let logs = LogsEndpoint::start().await;
    logs.add_lines(SERVER_GROUP, "");
    logs.add_lines(ALARM_GROUP, "");
    let moto = Moto::start();
    secret(&moto, "a-revoked-token-0000").await;
    let deps = deps(&logs, &moto, SECRET_ID, ("papierkram", &base)).await;

    let outcome = handle(&deps, Timestamp::now()).await.expect("quota run");

    assert_eq!(sandbox.request_count(), 1, "one probe");
    let a = assessment(&outcome.assessments, "papierkram");
    assert_eq!(a.state, State::Unknown, "{a:?}");
    assert_eq!(a.utilization_percent, None);
    assert!(
        a.reason.contains("rejected the credentials (HTTP 401)"),
        "{}",
        a.reason
    );
    let docs = docs(&outcome.lines);
    assert!(
        docs.iter().all(|d| d.get("_aws").is_none()),
        "no datapoint: {docs:?}"
    );
    let probe = docs.iter().find(|d| d["event"] == "quota_probe").unwrap();
    assert_eq!(probe["reason"], "unauthorized");
    assert!(!outcome.lines.join("\n").contains("a-revoked-token-0000"));
}
