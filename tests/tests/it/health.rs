//! `/health` end to end (issue 23, finding 3): probes shared by every instance through the limits
//! table (the real SDK against `moto_server`, several server processes), so the upstream sees one
//! probe per connector per interval however many instances and monitors there are; when the
//! table goes away, each instance probes at most once per interval on its own (never more often
//! than a per-process cache did); and `/health` counted by the per-IP limit.
//!
//! A relay in front of moto passes one request at a time (DynamoDB serializes the writes to one
//! item; moto does not) and counts the table requests.

use std::time::{Duration, Instant};

use integration_tests::proxy::CountingProxy;
use integration_tests::{Moto, Server, eventually, papierkram_env, start_sandbox};
use serde_json::{Value, json};

const TOKEN: &str = "health-token";
const TABLE: &str = "hosted-mcp-health";
/// Every DynamoDB request.
const DYNAMODB: &str = "DynamoDB_20120810.";

/// `per_instance` concurrent `/health` requests to each instance; their statuses and bodies.
async fn burst(instances: &[Server], per_instance: usize) -> Vec<(u16, Value)> {
    let http = reqwest::Client::new();
    let mut tasks = tokio::task::JoinSet::new();
    for server in instances {
        for _ in 0..per_instance {
            let (http, url) = (http.clone(), format!("{}/health", server.base()));
            tasks.spawn(async move {
                let response = http.get(url).send().await.expect("/health");
                let status = response.status().as_u16();
                (
                    status,
                    response.json::<Value>().await.unwrap_or(Value::Null),
                )
            });
        }
    }
    tasks.join_all().await
}

/// Waits, if needed, until a scenario of `seconds` fits in the current clock minute (the per-IP
/// counter must not start over halfway).
async fn fits_in_this_minute(seconds: u64) {
    let into = jiff::Timestamp::now().as_second() as u64 % 60;
    if into + seconds >= 59 {
        tokio::time::sleep(Duration::from_secs(61 - into)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_sharing_the_table_probe_each_upstream_once_per_interval() {
    const INSTANCES: usize = 3;
    const PER_INSTANCE: usize = 20;
    const INTERVAL: Duration = Duration::from_secs(5);
    let (sandbox, base) = start_sandbox(TOKEN).await;
    let mut moto = Moto::start();
    moto.create_limits_table(TABLE).await;
    let relay = CountingProxy::start(
        format!("127.0.0.1:{}", moto.port()).parse().unwrap(),
        DYNAMODB,
    )
    .await;
    let mut env = papierkram_env(&base, TOKEN);
    env.extend(moto.env());
    env.extend([
        ("AWS_ENDPOINT_URL", relay.endpoint()),
        // The table is there while the limits are on; this test's many requests from one
        // address are not what it is about.
        ("MCP_LIMITS", "on".into()),
        ("MCP_LIMIT_PER_IP_PER_MINUTE", "0".into()),
        ("MCP_LIMITS_TABLE", TABLE.into()),
        ("MCP_LIMITS_TIMEOUT_MS", "1000".into()),
        ("MCP_HEALTH_INTERVAL_S", INTERVAL.as_secs().to_string()),
    ]);
    let instances: Vec<Server> = (0..INSTANCES)
        .map(|_| Server::start_with_env(&env))
        .collect();
    assert_eq!(sandbox.request_count(), 0, "no probe at start");

    // The first round: every instance at once, many monitors each.
    let started = Instant::now();
    let answers = burst(&instances, PER_INSTANCE).await;
    let first_round = started.elapsed();
    assert!(first_round < INTERVAL, "the burst fits in one interval");
    for (status, body) in &answers {
        assert_eq!(*status, 200, "{body}");
        assert_eq!(
            *body,
            // sevdesk, Cal.com, Google Workspace, Replicate, Runway and Lexware Office are shipped too, but this
            // deployment holds none of their secrets.
            json!({"ok": true, "connectors": {"calcom": "unused", "gsuite": "unused", "lexware": "unused", "m365": "unused", "papierkram": "ok", "replicate": "unused", "runway": "unused", "sevdesk": "unused", "whatsapp": "unused"}})
        );
    }
    let store_first = relay.count();
    eprintln!(
        "health: {INSTANCES} instances, {} requests in {first_round:?}: {} upstream probe(s), \
         {store_first} table requests",
        answers.len(),
        sandbox.request_count(),
    );
    assert_eq!(
        sandbox.request_count(),
        1,
        "one probe for the deployment, not one per instance"
    );

    // The next probe comes when the interval is over, not before, and again only one.
    let second = eventually("the next interval's probe", INTERVAL * 3, || {
        let instances = &instances;
        let sandbox = &sandbox;
        async move {
            burst(instances, 1).await;
            (sandbox.request_count() >= 2).then(Instant::now)
        }
    })
    .await;
    assert!(
        second - started >= INTERVAL - Duration::from_millis(100),
        "the second probe came {:?} after the first round started",
        second - started
    );
    let answers = burst(&instances, PER_INSTANCE).await;
    if second.elapsed() < INTERVAL {
        assert_eq!(
            sandbox.request_count(),
            2,
            "one probe in the second interval"
        );
    }
    assert!(answers.iter().all(|(s, _)| *s == 200), "{answers:?}");
    eprintln!(
        "health: {} upstream probes in {:?}, {} table requests",
        sandbox.request_count(),
        started.elapsed(),
        relay.count()
    );

    // The table goes away: each instance probes on its own, at most once per interval (what a
    // per-process cache allowed before), and still answers.
    moto.kill();
    let before = sandbox.request_count();
    let down = Instant::now();
    let mut requests = 0;
    while down.elapsed() < INTERVAL * 2 {
        let answers = burst(&instances, 5).await;
        requests += answers.len();
        assert!(answers.iter().all(|(s, _)| *s == 200), "{answers:?}");
    }
    let probes = sandbox.request_count() - before;
    let intervals = down.elapsed().as_secs_f64() / INTERVAL.as_secs_f64();
    eprintln!(
        "health without the table: {requests} requests in {:?}, {probes} upstream probes from \
         {INSTANCES} instances",
        down.elapsed()
    );
    assert!(
        probes as f64 <= INSTANCES as f64 * (intervals.ceil() + 1.0),
        "{probes} probes in {intervals:.1} intervals from {INSTANCES} instances"
    );
    assert!(probes >= 1, "the instances probe on their own");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_counts_against_the_per_ip_limit() {
    const PER_IP: usize = 5;
    let (sandbox, base) = start_sandbox(TOKEN).await;
    let mut env = papierkram_env(&base, TOKEN);
    env.extend([
        ("MCP_LIMITS", "on".into()),
        ("MCP_LIMIT_PER_IP_PER_MINUTE", PER_IP.to_string()),
    ]);
    let server = Server::start_with_env(&env);
    let http = reqwest::Client::new();
    let url = format!("{}/health", server.base());

    fits_in_this_minute(5).await;
    for n in 0..PER_IP {
        let response = http.get(&url).send().await.unwrap();
        assert_eq!(response.status(), 200, "request {n}");
    }
    let response = http.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 429, "one over the limit");
    assert!(response.headers().contains_key("retry-after"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "rate_limited", "{body}");
    assert_eq!(body["scope"], "ip", "{body}");
    // The same budget as /mcp: the address is refused there too until the minute is over.
    let mcp = http
        .post(&server.url)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(mcp.status(), 429);
    assert_eq!(sandbox.request_count(), 1, "one probe for all of them");
    assert!(
        server
            .stdout
            .events_where(1, |e| e["event"] == "rate_limited"
                && e["reason"] == "limit_ip")
            .iter()
            .all(|e| !e.to_string().contains("127.0.0.1")),
        "the refusal is audited without the address"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connector_without_secrets_is_unused_and_one_missing_a_field_fails() {
    // Papierkram has its token but not its subdomain; sevdesk, Cal.com and Replicate have nothing
    // at all.
    let server = Server::start_with_env(&[("PAPIERKRAM_TOKEN", TOKEN.to_string())]);
    let response = reqwest::get(format!("{}/health", server.base()))
        .await
        .expect("/health");
    assert_eq!(response.status().as_u16(), 503);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({"ok": false, "connectors": {"calcom": "unused", "gsuite": "unused", "lexware": "unused", "m365": "unused", "papierkram": "not_configured", "replicate": "unused", "runway": "unused", "sevdesk": "unused", "whatsapp": "unused"}})
    );
}
