//! The deployment secret from AWS Secrets Manager (moto_server, real SDK): loading, rotation
//! refresh on an upstream 401, and a missing secret answered with 503 without a crash.

use integration_tests::{
    KEY, Moto, Rpc, Server, TempDir, env_refs, eventually, repo, server_binary, structured,
};
use papierkram_sandbox::SandboxState;
use serde_json::{Value, json};

fn secret_json(upstream: &str, token: &str) -> String {
    json!({
        "api_keys": {"e2e": KEY},
        "pseudonym_pepper": "moto-pepper-0123456789abcdef0123456789",
        "connectors": {"demo": {"host": upstream, "token": token}}
    })
    .to_string()
}

/// moto holding `secret_id` that names the sandbox's host and `token`, and the sandbox, which
/// wants `wanted`: the emulator, its Secrets Manager client, the sandbox and its host.
async fn secret_naming_the_sandbox(
    secret_id: &str,
    token: &str,
    wanted: &str,
) -> (Moto, aws_sdk_secretsmanager::Client, SandboxState, String) {
    let moto = Moto::start();
    let sm = moto.secrets_client().await;
    let sandbox = SandboxState::new(wanted);
    let (addr, _h) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
    let host = addr.to_string();
    sm.create_secret()
        .name(secret_id)
        .secret_string(secret_json(&host, token))
        .send()
        .await
        .unwrap();
    (moto, sm, sandbox, host)
}

/// Rotates the token in `secret_id` (naming `host`) to `token`.
async fn rotate(sm: &aws_sdk_secretsmanager::Client, secret_id: &str, host: &str, token: &str) {
    sm.put_secret_value()
        .secret_id(secret_id)
        .secret_string(secret_json(host, token))
        .send()
        .await
        .unwrap();
}

fn start_server(moto: &Moto, secret_id: &str) -> Server {
    start_server_with(moto, secret_id, &repo().join("tests/catalogs"), &[])
}

fn start_server_with(
    moto: &Moto,
    secret_id: &str,
    catalog: &std::path::Path,
    more: &[(&str, &str)],
) -> Server {
    let mut env: Vec<(&str, String)> = moto.env();
    env.push(("MCP_SECRET_ID", secret_id.to_string()));
    env.push(("MCP_SECRET_TTL_SECS", "3600".to_string()));
    env.extend(more.iter().map(|(k, v)| (*k, v.to_string())));
    let env: Vec<(&str, &str)> = env_refs(&env).collect();
    Server::start(&["--catalog", catalog.to_str().unwrap()], &env)
}

/// The test catalogs with the demo connector's `caller_daily_budget` set to `budget`.
fn catalogs_with_budget(budget: u64) -> TempDir {
    let dir = TempDir::new("secrets-catalogs");
    let source = repo().join("tests/catalogs");
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        // The folder's own catalogs only (documents/ and conformance/ are other deployments).
        if !path.is_file() {
            continue;
        }
        let mut text = std::fs::read_to_string(&path).unwrap();
        if path.extension().is_some_and(|e| e == "yaml") {
            let quota = "limit: 10000 }";
            assert!(text.contains(quota));
            text = text.replace(
                quota,
                &format!("limit: 10000, caller_daily_budget: {budget} }}"),
            );
        }
        std::fs::write(dir.path.join(path.file_name().unwrap()), text).unwrap();
    }
    dir
}

#[tokio::test]
async fn secret_is_loaded_from_secrets_manager_and_rotation_is_picked_up_on_401() {
    let (moto, sm, _sandbox, host) = secret_naming_the_sandbox(
        "hosted-mcp/e2e",
        "token-before-rotation",
        "token-after-rotation",
    )
    .await;
    let server = start_server(&moto, "hosted-mcp/e2e");
    let rpc = Rpc::new(&server.url);

    // Keys come from the secret.
    assert!(rpc.list().await.contains(&"demo_invoices_list".to_string()));

    // The upstream already wants the rotated token: the first call gets 401 with the cached
    // secret, re-reads the secret once, and retries.
    rotate(&sm, "hosted-mcp/e2e", &host, "token-after-rotation").await;
    let reply = rpc.call("demo_info_get", json!({})).await;
    assert_eq!(structured(&reply)["status"], "ok", "{reply}");
    assert!(server.stderr.shows("retrying with the re-read secret"));
}

/// A rotation under a daily budget of 1: the call reserves its one request, the upstream
/// answers 401, and the resend with the re-read secret still goes out (the caller's budget pays
/// for one answer, not for the deployment's rotation); the next call finds the budget spent.
#[tokio::test]
async fn a_resend_after_rotation_is_not_charged_twice_to_the_callers_budget() {
    let (moto, sm, sandbox, host) = secret_naming_the_sandbox(
        "hosted-mcp/budget",
        "token-before-rotation",
        "token-after-rotation",
    )
    .await;
    let catalogs = catalogs_with_budget(1);
    let server = start_server_with(
        &moto,
        "hosted-mcp/budget",
        &catalogs.path,
        &[("MCP_LIMITS", "on")],
    );
    let rpc = Rpc::new(&server.url);
    assert!(rpc.list().await.contains(&"demo_invoices_list".to_string()));
    rotate(&sm, "hosted-mcp/budget", &host, "token-after-rotation").await;
    let reply = rpc.call("demo_info_get", json!({})).await;
    assert_eq!(structured(&reply)["status"], "ok", "{reply}");
    assert!(server.stderr.shows("retrying with the re-read secret"));
    assert_eq!(sandbox.request_count(), 2, "the 401 and the resend");
    let reply = rpc.call("demo_info_get", json!({})).await;
    assert_eq!(structured(&reply)["status"], "rate_limited", "{reply}");
    assert_eq!(sandbox.request_count(), 2, "a spent budget sends nothing");
}

#[tokio::test]
async fn a_wrong_token_is_retried_once_then_unauthorized_naming_the_secret_fields() {
    let (moto, _sm, sandbox, _host) =
        secret_naming_the_sandbox("hosted-mcp/wrong", "a-wrong-token", "the-right-token").await;
    let server = start_server(&moto, "hosted-mcp/wrong");
    let rpc = Rpc::new(&server.url);
    let reply = rpc.call("demo_info_get", json!({})).await;
    let result = structured(&reply);
    assert_eq!(result["status"], "unauthorized", "{reply}");
    let hint = result["hint"].as_str().unwrap();
    assert!(hint.contains("connectors.demo.{host,token}"), "{hint}");
    assert_eq!(
        sandbox.request_count(),
        2,
        "one call, one retry after re-reading the secret"
    );

    // The token stays wrong: later calls answer unauthorized without re-reading the secret
    // each time (at most one re-read per 30 s), so one request upstream per call.
    for _ in 0..3 {
        let reply = rpc.call("demo_info_get", json!({})).await;
        assert_eq!(structured(&reply)["status"], "unauthorized", "{reply}");
    }
    assert_eq!(sandbox.request_count(), 5);
    assert!(server.stderr.shows("not re-reading yet"));
    let log = server.stderr.joined();
    assert_eq!(
        log.matches("retrying with the re-read secret").count(),
        1,
        "{log}"
    );
    assert!(log.contains("not re-reading yet"), "{log}");
}

#[tokio::test]
async fn missing_secret_answers_503_and_the_server_keeps_running() {
    let moto = Moto::start();
    let server = start_server(&moto, "hosted-mcp/does-not-exist");
    let rpc = Rpc::new(&server.url);
    for _ in 0..2 {
        let response = rpc
            .post(
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
                &[],
            )
            .await;
        assert_eq!(response.status(), 503);
        let body: serde_json::Value = response.json().await.unwrap();
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("deployment secret"),
            "{body}"
        );
    }
    assert!(server.stderr.shows("was not found"), "the log says why");

    // Once the secret exists, the same process recovers without a restart.
    let sm = moto.secrets_client().await;
    sm.create_secret()
        .name("hosted-mcp/does-not-exist")
        .secret_string(secret_json("127.0.0.1:1", "t"))
        .send()
        .await
        .unwrap();
    // After the server's retry pause the next request loads it.
    eventually(
        "the secret is loaded after the retry pause",
        std::time::Duration::from_secs(15),
        || async {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
            let reply: Value = rpc.post(body, &[]).await.json().await.ok()?;
            let tools = reply["result"]["tools"].as_array()?;
            tools
                .iter()
                .any(|t| t["name"] == "demo_invoice_get")
                .then_some(())
        },
    )
    .await;
}

#[tokio::test]
async fn a_key_trusted_to_assert_users_without_a_pepper_refuses_the_start() {
    let moto = Moto::start();
    let sm = moto.secrets_client().await;
    let without_pepper = json!({"api_keys": {"gateway": KEY}}).to_string();
    sm.create_secret()
        .name("hosted-mcp/no-pepper")
        .secret_string(without_pepper)
        .send()
        .await
        .unwrap();
    let catalog = repo().join("tests/catalogs");
    let out = std::process::Command::new(server_binary())
        .args(["serve", "--addr", "127.0.0.1:0", "--catalog"])
        .arg(&catalog)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(moto.env())
        .env("MCP_SECRET_ID", "hosted-mcp/no-pepper")
        .env("MCP_USER_HEADER_KEYS", "gateway")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "it started: {stderr}");
    assert!(
        stderr.contains("MCP_USER_HEADER_KEYS") && stderr.contains("pseudonym_pepper"),
        "{stderr}"
    );
}
