//! Spending limits end to end, with the real server process: the `render` connector
//! (`tests/catalogs/spend/render.yaml`) bills credits per second by model, the way Runway does,
//! over the stateful jobs upstream (`tests/src/jobs_upstream.rs`); each caller may spend 12
//! credits a day. A caller's spend runs out and its next call is refused `rate_limited` with
//! what is left and the reset, before anything reaches the upstream, while another caller still
//! can; a dry run gives its reservation back; the audit lines carry what each call spent. And
//! the same spend shared by two instances through the limits table in DynamoDB (`moto_server`).

use aws_sdk_dynamodb::types::AttributeValue;
use integration_tests::jobs_upstream::{self, JobsState};
use integration_tests::{Moto, Rpc, Server, repo, structured};
use serde_json::{Value, json};

const ALICE: &str = "spend-alice-0123456789abcdef";
const BOB: &str = "spend-bob-0123456789abcdef";
const TABLE: &str = "hosted-mcp-limits";

/// A server over the `render` connector at `upstream`, with Alice's and Bob's keys.
fn env(upstream: std::net::SocketAddr) -> Vec<(&'static str, String)> {
    vec![
        ("MCP_API_KEYS", format!("alice:{ALICE},bob:{BOB}")),
        (
            "MCP_CATALOG_DIR",
            repo().join("tests/catalogs/spend").display().to_string(),
        ),
        ("RENDER_HOST", upstream.to_string()),
        ("MCP_LIMITS", "on".into()),
    ]
}

async fn render(url: &str, key: &str, args: Value) -> Value {
    let reply = Rpc::with_bearer(url, key)
        .call("render_job_start", args)
        .await;
    structured(&reply).clone()
}

/// Seconds until 00:00 UTC, as the server counts them.
fn until_midnight() -> u64 {
    86_400 - jiff::Timestamp::now().as_second() as u64 % 86_400
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_spend_runs_out_and_the_next_call_is_refused_until_the_reset() {
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let server = Server::start_with_env(&env(upstream));
    let url = server.url.clone();

    // 5 credits a second × 1 s: 5 of 12.
    let first = render(&url, ALICE, json!({"seconds": 1, "model": "fine"})).await;
    assert_eq!(first["status"], "ok", "{first}");
    // A dry run is priced (2) and reserved, sends nothing and gives it back: without the
    // refund, the next call (6) would not fit (5 + 2 + 6 > 12).
    let dry = render(&url, ALICE, json!({"seconds": 1, "dry_run": true})).await;
    assert_eq!(dry["status"], "ok", "{dry}");
    assert_eq!(jobs.created(), 1, "a dry run starts nothing");
    // 5 × 1.2 s = 6: 11 of 12.
    let second = render(&url, ALICE, json!({"seconds": 1.2, "model": "fine"})).await;
    assert_eq!(second["status"], "ok", "{second}");

    // 2 credits: more than the 1 left. Refused before the upstream, in credits, with the reset.
    let refused = render(&url, ALICE, json!({"seconds": 1})).await;
    assert_eq!(refused["status"], "rate_limited", "{refused}");
    assert_eq!(refused["scope"], "spend");
    assert_eq!(refused["_spend"]["unit"], "credits");
    assert_eq!(refused["_spend"]["remaining"], 1);
    assert_eq!(refused["_spend"]["limit"], 12);
    let retry = refused["retry_after_s"].as_u64().unwrap();
    assert!(retry.abs_diff(until_midnight()) <= 5, "{retry}");
    let hint = refused["hint"].as_str().unwrap();
    assert!(
        hint.contains("would spend 2 credits, but only 1 of your daily 12 credits on Renders")
            && hint.contains("(00:00 UTC)"),
        "{hint}"
    );
    assert_eq!(jobs.created(), 2, "the refused call reached no upstream");

    // What fits still runs (1 credit), and shows that nothing is left.
    let last = render(&url, ALICE, json!({"seconds": 0.5})).await;
    assert_eq!(last["status"], "ok", "{last}");
    assert_eq!(last["_spend"]["remaining"], 0, "{last}");
    let used_up = render(&url, ALICE, json!({"seconds": 0.5})).await;
    assert_eq!(used_up["status"], "rate_limited", "{used_up}");
    assert!(
        used_up["hint"]
            .as_str()
            .unwrap()
            .contains("daily Renders spend of 12 credits is used up"),
        "{used_up}"
    );

    // Bob has his own day.
    let bob = render(&url, BOB, json!({"seconds": 2, "model": "fine"})).await;
    assert_eq!(bob["status"], "ok", "{bob}");
    assert_eq!(jobs.created(), 4);

    // The audit lines: each call that started a render carries its spend, the dry run none,
    // and each refusal is a `rate_limited` line.
    let spent: Vec<(u64, String)> = server
        .stdout
        .events_where(4, |e| e["event"] == "tool_call" && e.get("spend").is_some())
        .iter()
        .map(|e| {
            (
                e["spend"].as_u64().unwrap(),
                e["spend_unit"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let credits = |n: u64| (n, "credits".to_string());
    assert_eq!(spent, [credits(5), credits(6), credits(1), credits(10)]);
    let limited = server
        .stdout
        .events_where(2, |e| e["event"] == "rate_limited");
    assert_eq!(limited.len(), 2, "{limited:?}");
    for e in &limited {
        assert_eq!(e["reason"], "spend_budget");
        assert_eq!(e["tool"], "render_job_start");
        assert!(e.get("spend").is_none(), "a refusal spent nothing: {e}");
    }
}

/// The count of a counter item in the table, if it is there.
async fn counter(client: &aws_sdk_dynamodb::Client, item: &str) -> Option<u64> {
    let item = client
        .get_item()
        .table_name(TABLE)
        .key("pk", AttributeValue::S(item.to_string()))
        .send()
        .await
        .ok()?
        .item?;
    item.get("n")?.as_n().ok()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spend_in_the_limits_table_holds_across_instances() {
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let moto = Moto::start();
    let client = moto.create_limits_table(TABLE).await;
    let mut env = env(upstream);
    env.extend(moto.env());
    env.extend([
        ("MCP_LIMITS_TABLE", TABLE.into()),
        ("MCP_LIMITS_TIMEOUT_MS", "5000".into()),
    ]);
    let instances = [Server::start_with_env(&env), Server::start_with_env(&env)];

    // 10 of Alice's 12 credits on one instance; the other knows them from the table.
    let first = render(
        &instances[0].url,
        ALICE,
        json!({"seconds": 2, "model": "fine"}),
    )
    .await;
    assert_eq!(first["status"], "ok", "{first}");
    let refused = render(
        &instances[1].url,
        ALICE,
        json!({"seconds": 1, "model": "fine"}),
    )
    .await;
    assert_eq!(refused["status"], "rate_limited", "{refused}");
    assert_eq!(refused["_spend"]["remaining"], 2, "{refused}");
    assert_eq!(jobs.created(), 1);
    let day = jiff::Timestamp::now()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date();
    assert_eq!(
        counter(&client, &format!("s#alice#render#{day}")).await,
        Some(10),
        "the refused call counts nowhere"
    );
    // What is left is still Alice's to spend, on either instance; Bob's day is his own.
    let fits = render(&instances[1].url, ALICE, json!({"seconds": 1})).await;
    assert_eq!(fits["status"], "ok", "{fits}");
    let bob = render(
        &instances[1].url,
        BOB,
        json!({"seconds": 2, "model": "fine"}),
    )
    .await;
    assert_eq!(bob["status"], "ok", "{bob}");
    assert_eq!(
        counter(&client, &format!("s#alice#render#{day}")).await,
        Some(12)
    );
    assert_eq!(
        counter(&client, &format!("s#bob#render#{day}")).await,
        Some(10)
    );
}
