//! An upstream's own rate (`quota.rate`), kept by the whole deployment: four `mcp-server`
//! processes share the limits table in DynamoDB (`moto_server` behind the relay that passes one
//! request at a time, as DynamoDB applies each conditional write atomically), as Lambda
//! instances do, and 20
//! callers call them at once. The upstream (`tests/src/rate_upstream.rs`, which notes when each
//! request arrives) never sees more than the declared rate within any second; every call waits
//! for its turn instead of earning a 429, and says how long in its audit line (`paced_ms`). A
//! call whose turn would come after its deadline sends nothing and is answered `rate_limited`
//! with the seconds to retry.

use std::time::Duration;

use integration_tests::proxy::CountingProxy;
use integration_tests::rate_upstream::{self, Arrivals};
use integration_tests::{Moto, Rpc, Server, repo, structured};
use serde_json::{Value, json};

const KEY: &str = "rate-key-0123456789abcdef";
const TABLE: &str = "hosted-mcp-limits";
/// The catalog's `rate: { requests: 5, seconds: 1 }`.
const PER_SECOND: usize = 5;

/// 20 calls of `paced_item_get` at once, spread over `instances`; their results in order.
async fn at_once(instances: &[Server], calls: usize) -> Vec<Value> {
    let mut set = tokio::task::JoinSet::new();
    for i in 0..calls {
        let url = instances[i % instances.len()].url.clone();
        set.spawn(async move {
            let reply = Rpc::with_bearer(&url, KEY)
                .call("paced_item_get", json!({"id": i + 1}))
                .await;
            structured(&reply).clone()
        });
    }
    set.join_all().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn four_instances_keep_the_upstreams_own_rate_together() {
    let arrivals = Arrivals::default();
    let (upstream, _u) = rate_upstream::spawn(arrivals.clone()).await.unwrap();
    let moto = Moto::start();
    moto.create_limits_table(TABLE).await;
    // One request at a time: DynamoDB's conditional writes are atomic, threaded moto's are not.
    let relay = CountingProxy::start(
        format!("127.0.0.1:{}", moto.port()).parse().unwrap(),
        "DynamoDB_20120810.UpdateItem",
    )
    .await;
    let mut env = vec![
        ("MCP_API_KEYS", format!("alice:{KEY}")),
        (
            "MCP_CATALOG_DIR",
            repo().join("tests/catalogs/rate").display().to_string(),
        ),
        ("PACED_HOST", upstream.to_string()),
        ("MCP_LIMITS", "off".into()),
        ("MCP_LIMITS_TABLE", TABLE.into()),
        ("MCP_LIMITS_TIMEOUT_MS", "5000".into()),
    ];
    env.extend(moto.env());
    env.push(("AWS_ENDPOINT_URL", relay.endpoint()));
    let instances: Vec<Server> = (0..4).map(|_| Server::start_with_env(&env)).collect();

    let answers = at_once(&instances, 20).await;
    for a in &answers {
        assert_eq!(a["status"], "ok", "{a}");
    }
    assert_eq!(arrivals.count(), 20);
    let most = arrivals.most_within(Duration::from_secs(1));
    assert!(
        most <= PER_SECOND,
        "{most} requests within one second: {:?}",
        arrivals.offsets_ms()
    );

    // Each call waited for its turn: the last of 20 about 19 turns of 200 ms.
    let mut waits: Vec<u64> = instances
        .iter()
        .flat_map(|s| s.stdout.events_where(5, |e| e["tool"] == "paced_item_get"))
        .map(|e| e["paced_ms"].as_u64().unwrap_or(0))
        .collect();
    waits.sort_unstable();
    assert_eq!(waits.len(), 20);
    let (p50, p95, last) = (waits[9], waits[18], waits[19]);
    eprintln!(
        "rate: 20 calls on 4 processes at {PER_SECOND}/s: at most {most} within a second; \
         waits p50 {p50} ms, p95 {p95} ms, longest {last} ms"
    );
    assert!(
        last >= 3_000,
        "the turns were taken one after another: {waits:?}"
    );
    // One conditional update per turn, and one more for each turn raced for or missed.
    let updates = relay.count();
    eprintln!("rate: the turns of 20 calls took {updates} conditional updates");
    assert!(updates >= 20, "{updates}");

    // An instance whose calls may take 1 s: the turns past its deadline are refused, and those
    // calls send nothing.
    let mut short = env.clone();
    short.push(("MCP_CALL_DEADLINE_MS", "1000".into()));
    let hurried = [Server::start_with_env(&short)];
    let answers = at_once(&hurried, 10).await;
    let refused: Vec<&Value> = answers.iter().filter(|a| a["status"] != "ok").collect();
    let sent = answers.len() - refused.len();
    assert!(
        (1..10).contains(&sent),
        "some calls got a turn, not all: {answers:?}"
    );
    for r in &refused {
        assert_eq!(r["status"], "rate_limited", "{r}");
        assert!(r["retry_after_s"].as_u64().is_some_and(|s| s >= 1), "{r}");
        let hint = r["hint"].as_str().unwrap();
        assert!(hint.contains("at most 5 requests a second"), "{hint}");
    }
    assert_eq!(arrivals.count(), 20 + sent, "a refused call sent nothing");
    assert!(arrivals.most_within(Duration::from_secs(1)) <= PER_SECOND);
}
