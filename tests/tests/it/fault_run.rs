//! The fault run (issue 23): the real server process with its limits and its idempotency ledger
//! in DynamoDB (the real SDK against `moto_server`) and the sandbox upstream, through four
//! faults: moto killed and restarted under load, the upstream answering 500 and hanging, the
//! authorization server unreachable, and the deployment secret unreadable at a cold start.
//! For each: what a client sees, that no write is lost or doubled (the sandbox's write log and
//! retries of confirmed writes, which replay or answer `outcome_unknown`), and that the limits
//! count in the table again. Each test prints one `fault run:` line with its figures
//! (`--nocapture`).
//!
//! A restarted moto comes back empty (a real table keeps its items), so after the restart only
//! writes first tried during or after the outage are retried.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use integration_tests::oidc::Op;
use integration_tests::{KEY, Moto, Rpc, Server, eventually, free_port, repo, structured};
use papierkram_sandbox::{Fault, SandboxState};
use serde_json::{Value, json};

const TOKEN: &str = "fault-token";
const LIMITS: &str = "hosted-mcp-limits";
const LEDGER: &str = "hosted-mcp-ledger";
const CONFIRMATION_KEY: &str = "fault-confirmation-key-0123456789abcdef";
const PEPPER: &str = "fault-pepper-0123456789abcdef0123456789";

/// The sandbox upstream and moto with the limits and ledger tables.
struct Stack {
    sandbox: SandboxState,
    host: String,
    moto: Moto,
    dynamodb: aws_sdk_dynamodb::Client,
}

impl Stack {
    async fn start() -> Stack {
        let sandbox = SandboxState::new(TOKEN);
        let (addr, _handle) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
        let moto = Moto::start();
        let dynamodb = create_tables(&moto).await;
        Stack {
            sandbox,
            host: addr.to_string(),
            moto,
            dynamodb,
        }
    }

    /// Limits on (generous, so only the faults refuse anything) and counted in the table, the
    /// ledger in the table, one confirmation key for every instance; plus `extra`.
    fn env(&self, extra: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
        let mut env = self.moto.env();
        env.extend([
            ("MCP_LIMITS", "on".into()),
            ("MCP_LIMITS_TABLE", LIMITS.into()),
            ("MCP_LEDGER_TABLE", LEDGER.into()),
            ("MCP_LIMITS_TIMEOUT_MS", "2000".into()),
            ("MCP_LIMIT_PER_CALLER_PER_MINUTE", "100000".into()),
            ("MCP_LIMIT_PER_IP_PER_MINUTE", "100000".into()),
        ]);
        env.extend_from_slice(extra);
        env
    }

    /// The secret's values from the environment (no Secrets Manager).
    fn local_secret(&self) -> Vec<(&'static str, String)> {
        vec![
            ("MCP_API_KEYS", format!("e2e:{KEY}")),
            ("DEMO_HOST", self.host.clone()),
            ("DEMO_TOKEN", TOKEN.into()),
            ("MCP_CONFIRMATION_KEYS", CONFIRMATION_KEY.into()),
            ("MCP_PSEUDONYM_PEPPER", PEPPER.into()),
        ]
    }

    /// A server with the test catalogs on `port` (0: any).
    fn server(&self, port: u16, env: &[(&'static str, String)]) -> Server {
        let catalog = repo().join("tests/catalogs");
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        Server::start_at(port, &["--catalog", catalog.to_str().unwrap()], &env)
    }

    fn invoice(&self, n: usize) -> u64 {
        self.sandbox.data().invoices[n].id
    }

    /// How often the sandbox archived invoice `id` (its write log also keeps the refused
    /// requests: an injected 500 is a line with nothing applied).
    fn archives(&self, id: u64) -> usize {
        self.archive_requests(id)
            .iter()
            .filter(|status| (200..300).contains(*status))
            .count()
    }

    /// The statuses the sandbox answered the archive requests for invoice `id` with.
    fn archive_requests(&self, id: u64) -> Vec<u16> {
        let path = format!("/income/invoices/{id}/archive");
        self.sandbox
            .writes()
            .iter()
            .filter(|w| w.path.ends_with(&path))
            .map(|w| w.status)
            .collect()
    }

    /// Writes the sandbox applied (answered 2xx).
    fn applied(&self) -> usize {
        self.sandbox
            .writes()
            .iter()
            .filter(|w| (200..300).contains(&w.status))
            .count()
    }

    /// The tool calls counted in the limits table (none while nothing is).
    async fn calls_counted(&self) -> Option<u64> {
        calls_counted(&self.dynamodb).await
    }
}

async fn create_tables(moto: &Moto) -> aws_sdk_dynamodb::Client {
    let client = moto.create_limits_table(LIMITS).await;
    moto.create_limits_table(LEDGER).await;
    client
}

/// The tool calls counted in the limits table (a fresh one per test), summed over its day
/// items (`d#<day>`, attribute `n`) so a run across midnight UTC adds up too. None while nothing
/// is counted (or the table is not there).
async fn calls_counted(client: &aws_sdk_dynamodb::Client) -> Option<u64> {
    let items = client
        .scan()
        .table_name(LIMITS)
        .send()
        .await
        .ok()?
        .items
        .unwrap_or_default();
    let count = |item: &std::collections::HashMap<String, AttributeValue>| {
        let pk = item.get("pk")?.as_s().ok()?;
        if !pk.starts_with("d#") {
            return None;
        }
        item.get("n")?.as_n().ok()?.parse::<u64>().ok()
    };
    let counts: Vec<u64> = items.iter().filter_map(count).collect();
    (!counts.is_empty()).then(|| counts.iter().sum())
}

fn status(reply: &Value) -> String {
    structured(reply)["status"]
        .as_str()
        .unwrap_or("none")
        .to_string()
}

fn hint(reply: &Value) -> String {
    structured(reply)["hint"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Asks to archive invoice `id` and returns the confirmed arguments.
async fn confirmed(rpc: &Rpc, id: u64) -> Value {
    let asked = rpc.call("demo_invoice_archive", json!({"id": id})).await;
    assert_eq!(status(&asked), "confirmation_required", "{asked}");
    json!({"id": id, "confirmation_token": structured(&asked)["confirmation_token"]})
}

fn tool_call(name: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": name, "arguments": args}})
}

/// Readers calling `demo_info_get` until stopped: each counts its answers (`"200 ok"`, …).
struct Load {
    stop: Arc<AtomicBool>,
    served: Arc<AtomicU64>,
    tasks: Vec<tokio::task::JoinHandle<BTreeMap<String, u64>>>,
}

impl Load {
    fn start(url: &str, readers: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let served = Arc::new(AtomicU64::new(0));
        let tasks = (0..readers)
            .map(|_| {
                let (rpc, stop, served) = (Rpc::new(url), stop.clone(), served.clone());
                tokio::spawn(async move {
                    let mut got = BTreeMap::new();
                    while !stop.load(Ordering::Relaxed) {
                        let response = rpc.post(tool_call("demo_info_get", json!({})), &[]).await;
                        let code = response.status().as_u16();
                        let reply: Value = response.json().await.unwrap_or(Value::Null);
                        *got.entry(format!("{code} {}", status(&reply))).or_default() += 1;
                        served.fetch_add(1, Ordering::Relaxed);
                    }
                    got
                })
            })
            .collect();
        Load {
            stop,
            served,
            tasks,
        }
    }

    fn served(&self) -> u64 {
        self.served.load(Ordering::Relaxed)
    }

    /// Waits until `n` more requests were answered.
    async fn more(&self, n: u64, what: &str) {
        let target = self.served() + n;
        eventually(what, Duration::from_secs(20), || async {
            (self.served() >= target).then_some(())
        })
        .await;
    }

    async fn stop(self) -> BTreeMap<String, u64> {
        self.stop.store(true, Ordering::Relaxed);
        let mut all = BTreeMap::new();
        for task in self.tasks {
            for (k, v) in task.await.unwrap() {
                *all.entry(k).or_default() += v;
            }
        }
        all
    }
}

/// moto (the limits and the ledger table) killed under load and restarted: reads go on (the
/// limits count in memory), confirmed writes are refused unsent (`unavailable`, the ledger
/// fails closed) and run exactly once when retried after the restart, and the limits count in
/// the restarted table again after their retry pause.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn moto_killed_and_restarted_mid_load() {
    let mut stack = Stack::start().await;
    let server = stack.server(0, &stack.env(&stack.local_secret()));
    let rpc = Rpc::new(&server.url);
    let load = Load::start(&server.url, 2);
    load.more(10, "the load runs").await;
    assert!(stack.calls_counted().await.is_some_and(|n| n >= 10));

    // Before: confirmed writes run once.
    let before: Vec<u64> = (0..2).map(|n| stack.invoice(n)).collect();
    let mut before_args = Vec::new();
    for &id in &before {
        let args = confirmed(&rpc, id).await;
        let done = rpc.call("demo_invoice_archive", args.clone()).await;
        assert_eq!(status(&done), "ok", "{done}");
        assert_eq!(stack.archives(id), 1);
        before_args.push(args);
    }

    stack.moto.kill();
    let at_kill = load.served();
    // While it is down: the writes are refused before anything is sent, a retry of a write
    // that ran is refused too (not sent again), and the reads go on.
    let during: Vec<u64> = (2..4).map(|n| stack.invoice(n)).collect();
    let mut during_args = Vec::new();
    let mut refused = Vec::new();
    for &id in &during {
        let args = confirmed(&rpc, id).await;
        let reply = rpc.call("demo_invoice_archive", args.clone()).await;
        assert_eq!(status(&reply), "unavailable", "{reply}");
        assert!(hint(&reply).contains("was not sent"), "{reply}");
        assert_eq!(reply["result"]["isError"], true);
        assert!(
            stack.archive_requests(id).is_empty(),
            "nothing sent while the ledger is down"
        );
        refused.push(status(&reply));
        during_args.push(args);
    }
    let retry = rpc
        .call("demo_invoice_archive", before_args[0].clone())
        .await;
    assert_eq!(status(&retry), "unavailable", "{retry}");
    refused.push(status(&retry));
    assert_eq!(
        stack.archive_requests(before[0]).len(),
        1,
        "a retry while down sends nothing"
    );
    load.more(10, "reads go on while moto is down").await;
    assert!(
        server.stderr.shows("counting in memory"),
        "the limits fell back to memory"
    );
    let during_outage = load.served() - at_kill;

    // Back (empty, as a restarted emulator is): the tables again, then the limits count there
    // once their retry pause is over.
    stack.moto = Moto::start_on(stack.moto.port());
    create_tables(&stack.moto).await;
    let at_restart = load.served();
    let counted = eventually(
        "the limits count in the restarted table",
        Duration::from_secs(20),
        || async { stack.calls_counted().await.filter(|n| *n >= 1) },
    )
    .await;
    assert!(server.stderr.shows("answers again"));

    // The writes refused while moto was down, retried with the same arguments: once each, and
    // a replay after.
    let mut replays = 0;
    for (&id, args) in during.iter().zip(&during_args) {
        let done = rpc.call("demo_invoice_archive", args.clone()).await;
        assert_eq!(status(&done), "ok", "{done}");
        let again = rpc.call("demo_invoice_archive", args.clone()).await;
        assert_eq!(structured(&again)["replayed"], true, "{again}");
        replays += 1;
        assert_eq!(stack.archives(id), 1, "one write for invoice {id}");
    }
    load.more(10, "the load goes on after the restart").await;
    // A freshly restarted emulator may answer one request too slowly and send the limits back
    // to memory for one more retry pause; the table then counts again.
    let later = eventually(
        "the restarted table keeps counting",
        Duration::from_secs(45),
        || async { stack.calls_counted().await.filter(|n| *n > counted) },
    )
    .await;
    let after_restart = load.served() - at_restart;
    let answers = load.stop().await;
    let requests: u64 = answers.values().sum();
    assert_eq!(
        answers.get("200 ok"),
        Some(&requests),
        "every read answered ok through the outage: {answers:?}"
    );
    let writes = stack.applied();
    assert_eq!(writes, 4, "{:?}", stack.sandbox.writes());
    assert_eq!(stack.sandbox.write_count(), 4, "no other write request");
    eprintln!(
        "fault run: moto killed mid-load: {requests} reads under load all 200 ok \
         ({during_outage} while moto was down, {after_restart} after the restart); \
         {} writes refused unsent while down {refused:?}; 4 distinct writes -> {writes} sandbox \
         writes, {replays} replays after the restart; limits table counting again \
         ({counted} -> {later} calls) after the retry pause",
        refused.len()
    );
}

/// The upstream answers 500, then hangs: reads are `unavailable` with a hint to retry later,
/// a write that got a 500 or no answer answers `outcome_unknown` on retry (never a second
/// request), the upstream is served normally once the fault is gone, and every tool call is
/// counted in the limits table exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upstream_answering_500_and_hanging() {
    let stack = Stack::start().await;
    let server = stack.server(0, &stack.env(&stack.local_secret()));
    let rpc = Rpc::new(&server.url);
    let mut tool_calls = 0u64;
    let mut statuses: BTreeMap<String, u64> = BTreeMap::new();
    let mut call = async |tool: &str, args: Value| {
        tool_calls += 1;
        let reply = rpc.call(tool, args).await;
        *statuses.entry(status(&reply)).or_default() += 1;
        reply
    };

    // 500 on reads: unavailable, not the caller's fault; then it answers again.
    stack
        .sandbox
        .inject_fault(Fault::status("/api/v1/info", 500).times(2));
    for _ in 0..2 {
        let reply = call("demo_info_get", json!({})).await;
        assert_eq!(status(&reply), "unavailable", "{reply}");
        assert!(hint(&reply).contains("HTTP 500"), "{reply}");
        assert_eq!(reply["result"]["isError"], true);
    }
    let reply = call("demo_info_get", json!({})).await;
    assert_eq!(status(&reply), "ok", "{reply}");

    // 500 on a write (nothing ran upstream): it may have happened as far as the server can
    // tell, so a retry answers outcome_unknown and sends nothing; a new confirmation writes once.
    let id = stack.invoice(0);
    let asked = call("demo_invoice_archive", json!({"id": id})).await;
    let args = json!({"id": id, "confirmation_token": structured(&asked)["confirmation_token"]});
    stack.sandbox.inject_fault(Fault::status(
        format!("/api/v1/income/invoices/{id}/archive"),
        500,
    ));
    let first = call("demo_invoice_archive", args.clone()).await;
    assert_eq!(status(&first), "unavailable", "{first}");
    let retry = call("demo_invoice_archive", args).await;
    assert_eq!(status(&retry), "outcome_unknown", "{retry}");
    assert!(hint(&retry).contains("whether it happened"), "{retry}");
    assert_eq!(
        stack.archive_requests(id),
        [500],
        "the 500 applied nothing, the retry sent nothing"
    );
    let asked = call("demo_invoice_archive", json!({"id": id})).await;
    let args = json!({"id": id, "confirmation_token": structured(&asked)["confirmation_token"]});
    let done = call("demo_invoice_archive", args).await;
    assert_eq!(status(&done), "ok", "{done}");
    assert_eq!(stack.archives(id), 1);

    // Hanging reads: unavailable after the catalog's timeout (2 s), not after the hang.
    stack
        .sandbox
        .inject_fault(Fault::delay("/api/v1/info", Duration::from_secs(20)));
    let started = Instant::now();
    let reply = call("demo_info_get", json!({})).await;
    let waited = started.elapsed();
    assert_eq!(status(&reply), "unavailable", "{reply}");
    assert!(hint(&reply).contains("did not answer within"), "{reply}");
    assert!(waited < Duration::from_secs(6), "{waited:?}");

    // A hanging write: the upstream applies it but answers after the timeout. The retry says
    // outcome_unknown; the sandbox has it once.
    let id = stack.invoice(1);
    let asked = call("demo_invoice_archive", json!({"id": id})).await;
    let args = json!({"id": id, "confirmation_token": structured(&asked)["confirmation_token"]});
    stack.sandbox.inject_fault(Fault::delay_answer(
        format!("/api/v1/income/invoices/{id}/archive"),
        Duration::from_secs(4),
    ));
    let first = call("demo_invoice_archive", args.clone()).await;
    assert_eq!(status(&first), "unavailable", "{first}");
    eventually(
        "the hanging write is in the sandbox",
        Duration::from_secs(10),
        || async { (stack.archives(id) == 1).then_some(()) },
    )
    .await;
    let retry = call("demo_invoice_archive", args).await;
    assert_eq!(status(&retry), "outcome_unknown", "{retry}");
    assert_eq!(stack.archives(id), 1, "no second write");

    // Recovered: the next read is served, and the limits counted every call once.
    let reply = call("demo_info_get", json!({})).await;
    assert_eq!(status(&reply), "ok", "{reply}");
    let counted = stack.calls_counted().await;
    assert_eq!(counted, Some(tool_calls), "{statuses:?}");
    let writes = stack.applied();
    assert_eq!(writes, 2, "{:?}", stack.sandbox.writes());
    assert_eq!(
        stack.sandbox.write_count(),
        3,
        "the 500, the write, the hung write"
    );
    eprintln!(
        "fault run: upstream 500 and hanging: {tool_calls} tool calls, {} upstream requests, \
         statuses {statuses:?}; a hung read answered after {:.1} s; 3 write requests (one \
         answered 500) -> {writes} applied, one per invoice (retries: outcome_unknown, nothing \
         resent); limits table counted {} calls",
        stack.sandbox.request_count(),
        waited.as_secs_f64(),
        counted.unwrap_or(0),
    );
}

/// The authorization server goes away: tokens whose signing keys are cached go on working
/// (writes included), a key id the server never saw is refused with 401, a cold instance
/// answers 503 until the provider is back; then a write confirmed before the outage replays
/// on the other instance (one ledger table) instead of running again, and the calls of both
/// instances are counted in the shared limits table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_authorization_server_unreachable() {
    const SCOPES: &str = "mcp:tools";
    let stack = Stack::start().await;
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let mut op = Op::start(&resource, SCOPES);
    let mut env = stack.env(&stack.local_secret());
    env.extend([
        ("MCP_OAUTH_ISSUER", op.issuer().to_string()),
        ("MCP_RESOURCE_URL", resource.clone()),
    ]);
    let warm = stack.server(port, &env);
    let as_alice = |url: &str, token: &str| Rpc {
        key: Some(token.to_string()),
        ..Rpc::new(url)
    };
    let alice = op
        .mint(json!({"claims": {"sub": "alice@example.com"}}))
        .await;
    let unknown_kid = op
        .mint(json!({"mode": "foreign-key", "header": {"kid": "rs-unknown"}}))
        .await;
    let rpc = as_alice(&warm.url, &alice);
    let mut admitted = 0u64;

    let reply = rpc.call("demo_invoices_list", json!({})).await;
    assert_eq!(status(&reply), "ok", "{reply}");
    let first = stack.invoice(0);
    let first_args = confirmed(&rpc, first).await;
    let done = rpc.call("demo_invoice_archive", first_args.clone()).await;
    assert_eq!(status(&done), "ok", "{done}");
    admitted += 3;

    op.kill();
    // Cached keys: the client sees nothing of the outage, writes included.
    let reply = rpc.call("demo_info_get", json!({})).await;
    assert_eq!(status(&reply), "ok", "{reply}");
    let second = stack.invoice(1);
    let args = confirmed(&rpc, second).await;
    let done = rpc.call("demo_invoice_archive", args).await;
    assert_eq!(status(&done), "ok", "{done}");
    admitted += 3;
    let body = tool_call("demo_info_get", json!({}));
    let refused = as_alice(&warm.url, &unknown_kid)
        .post(body.clone(), &[])
        .await;
    assert_eq!(refused.status(), 401);
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains("signing key is unknown"), "{challenge}");

    // A cold instance never saw the keys: 503 saying why, nothing reaches the upstream; API
    // keys work there all along.
    let cold = stack.server(0, &env);
    let requests_before = stack.sandbox.request_count();
    let ask = tool_call("demo_invoice_archive", json!({"id": stack.invoice(2)}));
    let answer = as_alice(&cold.url, &alice).post(ask.clone(), &[]).await;
    assert_eq!(answer.status(), 503);
    let answer: Value = answer.json().await.unwrap();
    assert!(
        answer["message"]
            .as_str()
            .unwrap_or_default()
            .contains("signing keys cannot be loaded"),
        "{answer}"
    );
    assert_eq!(stack.sandbox.request_count(), requests_before);
    let by_key = Rpc::new(&cold.url).call("demo_info_get", json!({})).await;
    assert_eq!(status(&by_key), "ok", "{by_key}");
    admitted += 1;
    let during_outage = stack.applied();

    // Back (new keys under the same key ids): the cold instance loads them after its pause.
    let back = Op::start_on(op.port(), &resource, SCOPES);
    let alice = back
        .mint(json!({"claims": {"sub": "alice@example.com"}}))
        .await;
    let rpc = as_alice(&cold.url, &alice);
    let waited = Instant::now();
    eventually(
        "the cold instance loads the keys once the provider is back",
        Duration::from_secs(15),
        || async {
            let answer = rpc.post(body.clone(), &[]).await;
            (answer.status() == 200).then_some(())
        },
    )
    .await;
    let recovered_after = waited.elapsed();
    admitted += 1;
    // The write confirmed before the outage, retried on the other instance: replayed.
    let again = rpc.call("demo_invoice_archive", first_args).await;
    assert_eq!(structured(&again)["replayed"], true, "{again}");
    let third = stack.invoice(2);
    let args = confirmed(&rpc, third).await;
    let done = rpc.call("demo_invoice_archive", args).await;
    assert_eq!(status(&done), "ok", "{done}");
    admitted += 3;
    for id in [first, second, third] {
        assert_eq!(stack.archives(id), 1, "invoice {id}");
    }
    let writes = stack.applied();
    assert_eq!(writes, 3, "{:?}", stack.sandbox.writes());
    assert_eq!(stack.sandbox.write_count(), 3, "no other write request");
    // Every admitted call of both instances counted in the shared table; the refused ones not.
    let counted = stack.calls_counted().await;
    assert_eq!(counted, Some(admitted));
    eprintln!(
        "fault run: authorization server unreachable: cached keys kept 2 calls and a write ok \
         ({during_outage} writes by then), an unknown key id 401, a cold instance 503 until \
         the provider was back (keys loaded {:.1} s after its restart); 3 writes -> {writes} \
         sandbox writes, the pre-outage write replayed on the other instance; {admitted} \
         admitted calls, {} counted in the limits table",
        recovered_after.as_secs_f64(),
        counted.unwrap_or(0),
    );
}

/// Secrets Manager cannot be reached when the server starts: every request is answered 503
/// naming the deployment secret, nothing reaches the upstream or the limits table; once it
/// answers, the same process serves after its retry pause, a write runs once and replays,
/// and its calls are counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_secret_unreadable_at_a_cold_start() {
    const SECRET: &str = "hosted-mcp/fault";
    let stack = Stack::start().await;
    // Secrets Manager at its own endpoint, where nothing listens yet.
    let secrets_port = free_port();
    let env = stack.env(&[
        ("MCP_SECRET_ID", SECRET.into()),
        ("MCP_SECRET_TTL_SECS", "3600".into()),
        (
            "AWS_ENDPOINT_URL_SECRETS_MANAGER",
            format!("http://127.0.0.1:{secrets_port}"),
        ),
    ]);
    let server = stack.server(0, &env);
    let rpc = Rpc::new(&server.url);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let ask = tool_call("demo_invoice_archive", json!({"id": stack.invoice(0)}));
    let mut refused = Vec::new();
    for body in [&list, &ask] {
        let answer = rpc.post(body.clone(), &[]).await;
        refused.push(answer.status().as_u16());
        assert_eq!(answer.status(), 503);
        let answer: Value = answer.json().await.unwrap();
        assert!(
            answer["message"]
                .as_str()
                .unwrap_or_default()
                .contains("deployment secret"),
            "{answer}"
        );
    }
    assert_eq!(stack.sandbox.request_count(), 0);
    assert_eq!(stack.calls_counted().await, None, "nothing counted");

    // Secrets Manager answers (another moto, there), with the secret.
    let secrets = Moto::start_on(secrets_port);
    let secret = json!({
        "api_keys": {"e2e": KEY},
        "pseudonym_pepper": PEPPER,
        "confirmation_keys": [CONFIRMATION_KEY],
        "connectors": {"demo": {"host": stack.host, "token": TOKEN}}
    });
    secrets
        .secrets_client()
        .await
        .create_secret()
        .name(SECRET)
        .secret_string(secret.to_string())
        .send()
        .await
        .unwrap();
    let waited = Instant::now();
    eventually(
        "the secret loads after the retry pause",
        Duration::from_secs(15),
        || async {
            let reply: Value = rpc.post(list.clone(), &[]).await.json().await.ok()?;
            reply["result"]["tools"].as_array().map(|_| ())
        },
    )
    .await;
    let recovered_after = waited.elapsed();

    let id = stack.invoice(0);
    let args = confirmed(&rpc, id).await;
    let done = rpc.call("demo_invoice_archive", args.clone()).await;
    assert_eq!(status(&done), "ok", "{done}");
    let again = rpc.call("demo_invoice_archive", args).await;
    assert_eq!(structured(&again)["replayed"], true, "{again}");
    let reply = rpc.call("demo_info_get", json!({})).await;
    assert_eq!(status(&reply), "ok", "{reply}");
    assert_eq!(stack.archives(id), 1);
    let writes = stack.applied();
    assert_eq!(writes, 1);
    assert_eq!(stack.sandbox.write_count(), 1, "no other write request");
    let counted = stack.calls_counted().await;
    assert_eq!(counted, Some(4), "the four tool calls after the recovery");
    eprintln!(
        "fault run: secret unreadable at a cold start: {} requests answered {refused:?} \
         (0 upstream requests, 0 counted) until Secrets Manager answered, served {:.1} s after; \
         1 write -> {writes} sandbox write, its retry replayed; {} calls counted in the limits \
         table",
        refused.len(),
        recovered_after.as_secs_f64(),
        counted.unwrap_or(0),
    );
}
