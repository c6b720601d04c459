//! The benchmark of calls as a person (`tests/bench/person.sh` runs it with a release build;
//! ignored in the test suite, which proves the same isolation with fewer calls in gsuite.rs and
//! refresh.rs). The shipped gsuite catalog against the offline Google twin, two server
//! instances sharing the vault on moto's DynamoDB and KMS (each table and KMS request counted by
//! a relay): two people connect through /connect, then
//! - 50 concurrent calls each, spread over both instances: each answer and each request the
//!   twin counts is the caller's own;
//! - one person disconnects on one instance: their next call on the other is asked to connect;
//! - latency: calls through us against the same request sent to the twin directly with the
//!   person's Google token, one at a time, interleaved; the added median and p95, the server's
//!   own time from the audit lines, and the vault requests per call. Once with the vault on
//!   moto, once with the embedded vault (no table: what the server itself adds).
//!
//! Figures are printed, never asserted: performance is not checked by timed tests.

use std::collections::BTreeMap;
use std::time::Instant;

use integration_tests::google::Twin;
use integration_tests::oidc::Op;
use integration_tests::{KEY, Rpc, Server, TempDir, free_port, interleaved_calls};
use serde_json::json;

use crate::connect::Browser;
use crate::gsuite::{SCOPES, catalog, mailbox};
use crate::vault::Aws;

/// Calls per person at once, over both instances.
const AT_ONCE: usize = 50;
/// Timed calls per side (through us, direct), after `WARMUP` untimed ones.
const TIMED: usize = 300;
const WARMUP: usize = 30;

/// A deployment of two instances for people to connect to: `vault` adds the table's
/// environment (None: each instance's embedded vault).
struct Deployment {
    op: Op,
    twin: Twin,
    api: String,
    one: Server,
    two: Option<Server>,
    _dir: TempDir,
}

async fn deploy(vault: Option<&Aws>) -> Deployment {
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let resource = format!("{base}/mcp");
    let google = format!("{resource}/google");
    let op = Op::start(&resource, &format!("mcp:tools {SCOPES}"));
    let accounts = BTreeMap::from([
        ("alice".to_string(), mailbox("alice")),
        ("bob".to_string(), mailbox("bob")),
    ]);
    let twin = Twin::new(op.issuer(), &google, accounts);
    let api = twin.clone().serve(free_port()).await;
    let (connect_client, _) = op
        .register_for(&[&format!("{base}/connect/gsuite/signed-in")], true)
        .await;
    let (client, secret) = op
        .register(&format!("{base}/connect/gsuite/callback"), false)
        .await;
    let dir = TempDir::new("person-bench");
    std::fs::write(dir.path.join("gsuite.yaml"), catalog(&op, &google, &api)).unwrap();
    let keys = format!("e2e:{KEY}");
    let mut env: Vec<(&str, String)> = vec![
        ("MCP_API_KEYS", keys),
        (
            "MCP_PSEUDONYM_PEPPER",
            "person-bench-pepper-0123456789abcdef".into(),
        ),
        ("MCP_OAUTH_ISSUER", op.issuer().into()),
        ("MCP_RESOURCE_URL", resource),
        ("MCP_CONNECT_CLIENT_ID", connect_client),
        ("MCP_CATALOG_DIR", dir.path.to_str().unwrap().into()),
        (
            "MCP_CONFIRMATION_KEYS",
            "bench-confirmation-key-0123456789ab".into(),
        ),
        ("MCP_LIMITS", "off".into()),
        ("GSUITE_BASE_URL", api.clone()),
        ("GSUITE_CLIENT_ID", client),
        ("GSUITE_CLIENT_SECRET", secret.unwrap()),
    ];
    env.extend(vault.map(Aws::server_env).unwrap_or_default());
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let one = Server::start_at(port, &[], &env);
    let two = vault.map(|_| Server::start(&[], &env));
    Deployment {
        op,
        twin,
        api,
        one,
        two,
        _dir: dir,
    }
}

impl Deployment {
    /// `who` connects through /connect on instance one; answers their bearer for us.
    async fn connect(&self, who: &str) -> String {
        let bearer = self.op.mint(json!({"claims": {"sub": who}})).await;
        let asked = Rpc::with_bearer(&self.one.url, &bearer)
            .tool("gsuite_mail_profile_get", json!({}))
            .await;
        let link = asked["connect_url"].as_str().expect("a connect link");
        let landed = Browser::new().open(link, who, None).await;
        assert_eq!(landed.status, 200, "{}", landed.body);
        bearer
    }
}

/// Median and 95th percentile of `samples` (ms).
fn spread(mut samples: Vec<f64>) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

/// One person's calls through us and the same request at the twin, interleaved: the samples
/// (ms) of each side.
async fn timed(d: &Deployment, bearer: &str) -> (Vec<f64>, Vec<f64>) {
    let ours = Rpc::with_bearer(&d.one.url, bearer);
    let args = json!({"query": "in:inbox"});
    let answer = ours.tool("gsuite_mail_messages_search", args.clone()).await;
    assert_eq!(answer["status"], "ok", "{answer}");
    let token = d.twin.gate.tokens().last().cloned().unwrap();
    let direct = reqwest::Client::new();
    let url = format!(
        "{}/gmail/v1/users/me/messages?q=in%3Ainbox&maxResults=20",
        d.api
    );
    let (mut through, mut straight) = (Vec::new(), Vec::new());
    for i in 0..WARMUP + TIMED {
        let t = Instant::now();
        let answer = ours.tool("gsuite_mail_messages_search", args.clone()).await;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(answer["status"], "ok");
        let t = Instant::now();
        let reply = direct.get(&url).bearer_auth(&token).send().await.unwrap();
        assert_eq!(reply.status(), 200);
        reply.bytes().await.unwrap();
        let direct_ms = t.elapsed().as_secs_f64() * 1000.0;
        if i >= WARMUP {
            through.push(ms);
            straight.push(direct_ms);
        }
    }
    (through, straight)
}

/// The server's own time per call (`duration_ms` of its last `n` audit lines of the tool).
fn server_times(server: &Server, n: usize) -> Vec<f64> {
    let events = server.stdout.events_where(n, |e| {
        e["tool"] == "gsuite_mail_messages_search" && e["status"] == "ok"
    });
    events[events.len() - n..]
        .iter()
        .filter_map(|e| e["duration_ms"].as_f64())
        .collect()
}

fn report(label: &str, through: Vec<f64>, straight: Vec<f64>, server: Vec<f64>) {
    let ((tm, tp), (dm, dp), (sm, sp)) = (spread(through), spread(straight), spread(server));
    println!(
        "{label:24} through us {tm:6.2} / {tp:6.2} ms, twin directly {dm:6.2} / {dp:6.2} ms, \
         added {:6.2} / {:6.2} ms (median / p95); server time {sm:6.2} / {sp:6.2} ms",
        tm - dm,
        tp - dp
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "a benchmark: tests/bench/person.sh runs it with a release build"]
async fn calls_as_a_person_stay_apart_and_what_they_cost() {
    let aws = Aws::start().await;
    let d = deploy(Some(&aws)).await;
    let two = d.two.as_ref().unwrap();
    let alice = d.connect("alice").await;
    let bob = d.connect("bob").await;

    // 50 calls each at once over both instances: each sees only their own, counted at the twin.
    let (before_a, before_b) = (
        d.twin.gate.requests_of("alice"),
        d.twin.gate.requests_of("bob"),
    );
    let people = [("alice", alice.as_str()), ("bob", bob.as_str())];
    let tool = "gsuite_mail_threads_search";
    let (a, b) = tokio::join!(
        interleaved_calls(&d.one.url, tool, &people, AT_ONCE),
        interleaved_calls(&two.url, tool, &people, AT_ONCE),
    );
    for (who, answer) in a.into_iter().chain(b) {
        assert_eq!(answer["status"], "ok", "{who}: {answer}");
        let ids: Vec<&str> = answer["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["id"].as_str())
            .collect();
        assert!(ids.len() == 3 && ids.iter().all(|id| id.starts_with(&who)));
    }
    assert_eq!(d.twin.gate.requests_of("alice") - before_a, AT_ONCE);
    assert_eq!(d.twin.gate.requests_of("bob") - before_b, AT_ONCE);
    println!(
        "isolation: {AT_ONCE} calls each at once over two instances, each answered with their own"
    );

    // Latency with the vault on moto, and its requests per call.
    let (reads, kms) = (aws.dynamodb.count(), aws.kms.count());
    let (through, straight) = timed(&d, &alice).await;
    let calls = (WARMUP + TIMED + 1) as f64;
    report(
        "vault on moto (DynamoDB)",
        through,
        straight,
        server_times(&d.one, TIMED),
    );
    println!(
        "vault requests per call: {:.2} to DynamoDB, {:.2} to KMS",
        (aws.dynamodb.count() - reads) as f64 / calls,
        (aws.kms.count() - kms) as f64 / calls
    );

    // Bob disconnects on one instance; his next call on the other asks him to connect.
    let gone = Rpc::with_bearer(&d.one.url, &bob)
        .tool(
            "connections",
            json!({"action": "disconnect", "connector": "gsuite"}),
        )
        .await;
    assert_eq!(gone["disconnected"], true, "{gone}");
    let seen = d.twin.gate.requests_of("bob");
    let after = Rpc::with_bearer(&two.url, &bob).tool(tool, json!({})).await;
    assert_eq!(after["status"], "connection_required", "{after}");
    assert_eq!(d.twin.gate.requests_of("bob"), seen);
    println!("a disconnect on one instance: the next call on the other asks to connect");

    // The same with each instance's embedded vault: what the server itself adds.
    let local = deploy(None).await;
    let alice = local.connect("alice").await;
    let (through, straight) = timed(&local, &alice).await;
    report(
        "embedded vault",
        through,
        straight,
        server_times(&local.one, TIMED),
    );
}
