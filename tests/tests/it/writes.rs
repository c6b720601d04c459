//! Writes with consent end to end, the real server process against the sandbox upstream (its
//! write log shows every write that reached it): dry runs send nothing; a critical write is
//! confirmed by a person through the real Python SDK's form (accepted: one write; declined:
//! none); the token flow for a high write, and tokens refused for another caller, another
//! tool, an expiry or a retired key; 20 concurrent identical confirmed calls make exactly one
//! upstream write (on the in-memory ledger and on the DynamoDB table); a write whose answer
//! comes too late answers `outcome_unknown` on retry, never a second write.

use std::time::Duration;

use integration_tests::{KEY, Rpc, Server, eventually, repo, structured};
use papierkram_sandbox::SandboxState;
use serde_json::{Value, json};

const TOKEN: &str = "writes-token";

async fn setup(env: &[(&str, &str)]) -> (Server, SandboxState, Rpc) {
    let sandbox = SandboxState::new(TOKEN);
    let (addr, _handle) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
    let (server, rpc) = server_on(&addr.to_string(), env);
    (server, sandbox, rpc)
}

/// A server with the test catalogs whose upstream is the sandbox at `host`.
fn server_on(host: &str, env: &[(&str, &str)]) -> (Server, Rpc) {
    let catalog = repo().join("tests/catalogs");
    let keys = format!("e2e:{KEY}");
    let mut all = vec![
        ("MCP_API_KEYS", keys.as_str()),
        ("DEMO_HOST", host),
        ("DEMO_TOKEN", TOKEN),
    ];
    all.extend_from_slice(env);
    let server = Server::start(&["--catalog", catalog.to_str().unwrap()], &all);
    let rpc = Rpc::new(&server.url);
    (server, rpc)
}

/// Invoice ids the sandbox knows, the nth of them.
fn invoice(sandbox: &SandboxState, n: usize) -> u64 {
    sandbox.data().invoices[n].id
}

/// The sandbox's writes to paths ending in `suffix`.
fn writes_to(sandbox: &SandboxState, suffix: &str) -> usize {
    sandbox
        .writes()
        .iter()
        .filter(|w| w.path.ends_with(suffix))
        .count()
}

fn confirm_client(url: &str, tool_name: &str, args: Value, answer: &str) -> Value {
    integration_tests::confirm_client(url, KEY, tool_name, &args, answer)
}

/// The audit lines of `tool_name`, at least `at_least` of them.
fn audit_of(server: &Server, tool_name: &str, at_least: usize) -> Vec<Value> {
    server
        .stdout
        .events_where(at_least, |e| e["tool"] == tool_name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_sends_no_write_upstream() {
    let (server, sandbox, rpc) = setup(&[]).await;
    for (tool_name, action) in [
        ("demo_invoice_archive", "archive"),
        ("demo_invoice_deliver", "deliver"),
    ] {
        let reply = rpc.call(tool_name, json!({"id": 1, "dry_run": true})).await;
        let r = structured(&reply);
        assert_eq!(r["status"], "ok", "{reply}");
        assert_eq!(r["dry_run"], true);
        assert_eq!(r["preview"]["request"]["method"], "POST");
        assert_eq!(
            r["preview"]["request"]["path"],
            format!("/api/v1/income/invoices/1/{action}")
        );
    }
    assert_eq!(sandbox.write_count(), 0, "{:?}", sandbox.writes());
    let lines = audit_of(&server, "demo_invoice_deliver", 1);
    assert_eq!(lines[0]["dry_run"], true);
    assert_eq!(lines[0]["audit_event"], "invoice.delivered");
    assert_eq!(lines[0]["risk"], "critical");
}

/// The real SDK client with a form: accepted, the invoice goes out once; declined, nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_accepts_or_declines_a_critical_write_in_the_clients_form() {
    let (server, sandbox, rpc) = setup(&[]).await;
    let [one, two, three] = [0, 1, 2].map(|n| invoice(&sandbox, n));
    let accepted = confirm_client(
        &server.url,
        "demo_invoice_deliver",
        json!({"id": one}),
        "accept",
    );
    assert!(accepted.get("error").is_none(), "{accepted}");
    assert_eq!(accepted["is_error"], false, "{accepted}");
    assert_eq!(accepted["structured"]["status"], "ok", "{accepted}");
    let form = &accepted["elicitations"][0];
    let message = form["message"].as_str().unwrap();
    // The person's words: the action, the invoice, the risk; no request and no advice meant
    // for the model.
    assert!(
        message.starts_with("The assistant asks to do this in Demo Books: invoice deliver.\n"),
        "{message}"
    );
    assert!(
        message.contains(&format!("\nInvoice: {one}\n")),
        "{message}"
    );
    assert!(message.contains("cannot be called back"), "{message}");
    for meant_for_the_model in ["POST", "/deliver", "idempotency"] {
        assert!(!message.contains(meant_for_the_model), "{message}");
    }
    assert_eq!(
        writes_to(&sandbox, &format!("/income/invoices/{one}/deliver")),
        1
    );

    let declined = confirm_client(
        &server.url,
        "demo_invoice_deliver",
        json!({"id": two}),
        "decline",
    );
    assert_eq!(declined["structured"]["declined"], true, "{declined}");
    assert!(
        declined["structured"]["hint"]
            .as_str()
            .unwrap()
            .contains("did nothing")
    );
    assert_eq!(
        writes_to(&sandbox, &format!("/income/invoices/{two}/deliver")),
        0
    );

    // Without a form (no elicitation capability, or the 2025-11-25 generation), a critical
    // write is refused: a token would only prove the model saw the preview.
    let none = confirm_client(
        &server.url,
        "demo_invoice_deliver",
        json!({"id": three}),
        "none",
    );
    assert_eq!(
        none["structured"]["status"], "confirmation_required",
        "{none}"
    );
    assert!(none["structured"].get("confirmation_token").is_none());
    let reply = rpc.call("demo_invoice_deliver", json!({"id": three})).await;
    assert_eq!(structured(&reply)["status"], "confirmation_required");
    assert_eq!(
        writes_to(&sandbox, &format!("/income/invoices/{three}/deliver")),
        0
    );

    let lines = audit_of(&server, "demo_invoice_deliver", 4);
    let channels: Vec<(&str, &str, &str)> = lines
        .iter()
        .map(|e| {
            (
                e["status"].as_str().unwrap_or(""),
                e["confirmation"].as_str().unwrap_or("-"),
                e["reason"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert!(
        channels.contains(&("ok", "elicitation", "-")),
        "{channels:?}"
    );
    assert!(
        channels.contains(&("ok", "elicitation", "declined")),
        "{channels:?}"
    );
}

/// A state the client tampers with, replays or moves to other arguments is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tampered_replayed_and_retargeted_states_are_refused() {
    let (_server, sandbox, rpc) = setup(&[]).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
    });
    let call = |args: Value, state: Option<&str>| {
        let mut params = json!({"name": "demo_invoice_deliver", "arguments": args, "_meta": meta});
        if let Some(s) = state {
            params["requestState"] = s.into();
            params["inputResponses"] =
                json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
        }
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    };
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "demo_invoice_deliver"),
    ];
    let post = |body: Value| {
        let mut r = rpc
            .http
            .post(&rpc.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .bearer_auth(KEY)
            .body(body.to_string());
        for (k, v) in headers {
            r = r.header(k, v);
        }
        async move { r.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let [four, five] = [3, 4].map(|n| invoice(&sandbox, n));
    let asked = post(call(json!({"id": four}), None)).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let state = asked["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let result = |r: &Value| r["result"]["structuredContent"].clone();

    // One character changed (to another one: the token may already hold an `A` there).
    let other = if &state[10..11] == "A" { "B" } else { "A" };
    let tampered = format!("{}{other}{}", &state[..10], &state[11..]);
    let r = post(call(json!({"id": four}), Some(&tampered))).await;
    assert!(
        result(&r)["hint"].as_str().unwrap().contains("not valid"),
        "{r}"
    );
    let r = post(call(json!({"id": five}), Some(&state))).await;
    assert!(
        result(&r)["hint"]
            .as_str()
            .unwrap()
            .contains("arguments differ"),
        "{r}"
    );
    assert_eq!(sandbox.write_count(), 0);

    let r = post(call(json!({"id": four}), Some(&state))).await;
    assert_eq!(result(&r)["status"], "ok", "{r}");
    let again = post(call(json!({"id": four}), Some(&state))).await;
    assert_eq!(result(&again)["replayed"], true, "{again}");
    let path = format!("/income/invoices/{four}/deliver");
    assert_eq!(writes_to(&sandbox, &path), 1, "replayed, not resent");
}

/// A confirmation token is refused, with a hint and without a write, when another caller brings
/// it, when it is used for another tool, or when it has expired (signed with the deployment's
/// own key, so only the expiry is wrong). Keys rotate: a server that lists a new key first and
/// the old one second still accepts the old token; one that dropped the old key refuses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_of_other_callers_other_tools_expired_or_retired_keys_are_refused() {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use mcp_server::{Binding, Signer};

    const OLD: &str = "old-confirmation-key-0123456789abcdef";
    const NEW: &str = "new-confirmation-key-0123456789abcdef";
    const OTHER: &str = "other-key-0123456789abcdef";
    let keys = format!("e2e:{KEY},other:{OTHER}");
    let sandbox = SandboxState::new(TOKEN);
    let (addr, _handle) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
    let host = addr.to_string();
    let start = |confirmation_keys: &str| {
        server_on(
            &host,
            &[
                ("MCP_API_KEYS", keys.as_str()),
                ("MCP_CONFIRMATION_KEYS", confirmation_keys),
                ("MCP_TOKEN_CONFIRMS_CRITICAL", "*"),
            ],
        )
    };
    let (_old_server, rpc) = start(OLD);
    let other = Rpc {
        key: Some(OTHER.into()),
        ..Rpc::new(&rpc.url)
    };
    let id = invoice(&sandbox, 2);
    let asked = rpc.call("demo_invoice_archive", json!({"id": id})).await;
    let token = structured(&asked)["confirmation_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no token: {asked}"))
        .to_string();
    let hint = |reply: &Value| {
        let s = structured(reply);
        assert_eq!(s["status"], "invalid_input", "{reply}");
        s["hint"].as_str().unwrap().to_string()
    };
    let confirmed = json!({"id": id, "confirmation_token": token});

    let r = other.call("demo_invoice_archive", confirmed.clone()).await;
    assert!(hint(&r).contains("another caller"), "{r}");
    let r = rpc.call("demo_invoice_deliver", confirmed.clone()).await;
    assert!(hint(&r).contains("another tool"), "{r}");

    // The same binding, signed with the same key, but expired a second ago.
    let payload = token.split('.').next().unwrap();
    let mut binding: Binding =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    binding.e = jiff::Timestamp::now().as_second() as u64 - 1;
    let expired = Signer::new(&[OLD.as_bytes().to_vec()])
        .issue(binding)
        .unwrap();
    let r = rpc
        .call(
            "demo_invoice_archive",
            json!({"id": id, "confirmation_token": expired}),
        )
        .await;
    assert!(hint(&r).contains("expired"), "{r}");
    assert_eq!(sandbox.write_count(), 0, "nothing refused was written");

    // Rotation: the old key retired to second place still verifies; dropped, it does not.
    let (_retired, rpc) = start(&format!("{NEW},{OLD}"));
    let (_dropped, dropped) = start(NEW);
    let r = dropped
        .call("demo_invoice_archive", confirmed.clone())
        .await;
    assert!(hint(&r).contains("not valid"), "{r}");
    assert_eq!(sandbox.write_count(), 0);
    let r = rpc.call("demo_invoice_archive", confirmed).await;
    assert_eq!(structured(&r)["status"], "ok", "{r}");
    assert_eq!(
        writes_to(&sandbox, &format!("/income/invoices/{id}/archive")),
        1
    );
}

/// The token flow for a high write, 20 times at once with the same confirmation: one write,
/// on the in-memory ledger and on the DynamoDB table (the real SDK against moto, its requests
/// passed one at a time as DynamoDB serializes the writes to one item).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_identical_confirmed_calls_make_one_upstream_write() {
    let (server, sandbox, rpc) = setup(&[]).await;
    twenty_at_once(&server, &sandbox, &rpc).await;
    let table = LedgerTable::start().await;
    let (server, sandbox, rpc) = setup(&table.env()).await;
    twenty_at_once(&server, &sandbox, &rpc).await;
    assert!(table.relay.count() >= 20, "the table was asked");
}

async fn twenty_at_once(server: &Server, sandbox: &SandboxState, rpc: &Rpc) {
    let six = invoice(sandbox, 5);
    let path = format!("/income/invoices/{six}/archive");
    let asked = rpc.call("demo_invoice_archive", json!({"id": six})).await;
    assert_eq!(
        structured(&asked)["status"],
        "confirmation_required",
        "{asked}"
    );
    let token = structured(&asked)["confirmation_token"]
        .as_str()
        .unwrap()
        .to_string();
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let (url, token) = (server.url.clone(), token.clone());
        calls.spawn(async move {
            let rpc = Rpc::new(&url);
            rpc.call(
                "demo_invoice_archive",
                json!({"id": six, "confirmation_token": token}),
            )
            .await
        });
    }
    let mut statuses = Vec::new();
    while let Some(reply) = calls.join_next().await {
        statuses.push(
            structured(&reply.unwrap())["status"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    assert_eq!(writes_to(sandbox, &path), 1, "{statuses:?}");
    assert!(
        statuses.iter().all(|s| s == "ok" || s == "outcome_unknown"),
        "{statuses:?}"
    );
    assert!(statuses.iter().any(|s| s == "ok"), "{statuses:?}");
    // After it finished, the same confirmation replays the recorded result.
    let again = rpc
        .call(
            "demo_invoice_archive",
            json!({"id": six, "confirmation_token": token}),
        )
        .await;
    assert_eq!(structured(&again)["replayed"], true, "{again}");
    assert_eq!(writes_to(sandbox, &path), 1);
}

/// The upstream accepts the write but answers after the call's deadline: the retry with the
/// same idempotency key answers outcome_unknown and sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_answered_too_late_is_outcome_unknown_on_retry_not_a_duplicate() {
    let (_server, sandbox, rpc) = setup(&[("MCP_CALL_DEADLINE_MS", "800")]).await;
    sandbox.inject_fault(papierkram_sandbox::Fault::delay_answer(
        "/api/v1/income/invoices/7/archive",
        Duration::from_millis(2500),
    ));
    let asked = rpc.call("demo_invoice_archive", json!({"id": 7})).await;
    let token = structured(&asked)["confirmation_token"]
        .as_str()
        .unwrap()
        .to_string();
    let args = json!({"id": 7, "confirmation_token": token});
    let first = rpc.call("demo_invoice_archive", args.clone()).await;
    assert_ne!(structured(&first)["status"], "ok", "{first}");
    // The late answer arrives at the sandbox after the server gave up: it did happen.
    eventually(
        "the delayed archive reaches the sandbox",
        Duration::from_secs(10),
        || {
            let n = writes_to(&sandbox, "/income/invoices/7/archive");
            async move { (n == 1).then_some(()) }
        },
    )
    .await;
    let retry = rpc.call("demo_invoice_archive", args).await;
    assert_eq!(structured(&retry)["status"], "outcome_unknown", "{retry}");
    assert!(
        structured(&retry)["hint"]
            .as_str()
            .unwrap()
            .contains("whether it happened")
    );
    assert_eq!(
        writes_to(&sandbox, "/income/invoices/7/archive"),
        1,
        "no second write"
    );
}

/// On Lambda the ledger is a DynamoDB table (the real SDK against moto here): two server
/// instances share it, so a confirmed write that ran on one replays on the other, never runs
/// twice. A relay in front of moto counts what the ledger costs: a confirmed write two
/// requests (the claim, the recorded result), a replay one, a read or a confirmation asked
/// none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_table_is_shared_by_instances_and_costs_two_requests_a_write() {
    let table = LedgerTable::start().await;
    let relay = &table.relay;
    let env = table.env();
    let sandbox = SandboxState::new(TOKEN);
    let (addr, _handle) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
    let (_a, rpc_a) = server_on(&addr.to_string(), &env);
    let (_b, rpc_b) = server_on(&addr.to_string(), &env);

    let id = invoice(&sandbox, 8);
    let path = format!("/income/invoices/{id}/archive");
    assert_eq!(
        structured(&rpc_a.call("demo_invoices_list", json!({})).await)["status"],
        "ok"
    );
    let asked = rpc_a.call("demo_invoice_archive", json!({"id": id})).await;
    assert_eq!(relay.count(), 0, "reads and asking cost the ledger nothing");
    let token = structured(&asked)["confirmation_token"]
        .as_str()
        .unwrap()
        .to_string();
    let args = json!({"id": id, "confirmation_token": token});
    let done = rpc_a.call("demo_invoice_archive", args.clone()).await;
    assert_eq!(structured(&done)["status"], "ok", "{done}");
    assert_eq!(relay.count(), 2, "claim + record");
    let replay = rpc_b.call("demo_invoice_archive", args).await;
    assert_eq!(structured(&replay)["replayed"], true, "{replay}");
    assert_eq!(relay.count(), 3, "a replay is one refused claim");
    assert_eq!(
        writes_to(&sandbox, &path),
        1,
        "one write across both instances"
    );
}

/// The ledger's DynamoDB table on moto, behind a relay that counts the table's requests.
struct LedgerTable {
    _moto: integration_tests::Moto,
    relay: integration_tests::proxy::CountingProxy,
    env: Vec<(&'static str, String)>,
}

impl LedgerTable {
    async fn start() -> LedgerTable {
        let moto = integration_tests::Moto::start();
        moto.create_limits_table("hosted-mcp-ledger").await;
        let relay = integration_tests::proxy::CountingProxy::start(
            format!("127.0.0.1:{}", moto.port()).parse().unwrap(),
            "DynamoDB_20120810.",
        )
        .await;
        let mut env: Vec<(&str, String)> = moto
            .env()
            .into_iter()
            .map(|(k, v)| {
                if k == "AWS_ENDPOINT_URL" {
                    (k, relay.endpoint())
                } else {
                    (k, v)
                }
            })
            .collect();
        env.push(("MCP_LEDGER_TABLE", "hosted-mcp-ledger".into()));
        // Every instance signs with the same deployment key, as on Lambda.
        env.push((
            "MCP_CONFIRMATION_KEYS",
            "shared-confirmation-key-0123456789abcdef".into(),
        ));
        LedgerTable {
            _moto: moto,
            relay,
            env,
        }
    }

    /// What a server process needs to keep its ledger in the table.
    fn env(&self) -> Vec<(&str, &str)> {
        self.env.iter().map(|(k, v)| (*k, v.as_str())).collect()
    }
}
