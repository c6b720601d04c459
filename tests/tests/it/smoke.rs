//! `mcp-server smoke` against local servers: it passes on a correct deployment and fails,
//! naming the checks, on a misconfigured one.

use std::process::Command;

use integration_tests::{KEY, Server, server_binary};
use papierkram_sandbox::SandboxState;

async fn server(extra_env: &[(&str, &str)]) -> (Server, tokio::task::JoinHandle<()>) {
    let (addr, handle) = papierkram_sandbox::spawn(SandboxState::new("smoke-token"))
        .await
        .unwrap();
    let base = format!("http://{addr}/api/v1");
    let keys = format!("e2e:{KEY}");
    let mut env = vec![
        ("MCP_API_KEYS", keys.as_str()),
        ("PAPIERKRAM_BASE_URL", base.as_str()),
        ("PAPIERKRAM_TOKEN", "smoke-token"),
        ("PAPIERKRAM_SUBDOMAIN", "nordlicht"),
    ];
    for (k, v) in extra_env {
        env.retain(|(name, _)| name != k);
        env.push((k, v));
    }
    (Server::start(&[], &env), handle)
}

fn smoke(url: &str, key: &str) -> (bool, String) {
    let out = Command::new(server_binary())
        .args(["smoke", "--url", url, "--key", key])
        .output()
        .expect("run smoke");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smoke_passes_against_a_correct_server() {
    let (server, _h) = server(&[]).await;
    let (ok, out) = smoke(&server.url, KEY);
    assert!(ok, "{out}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("ok ")).count(),
        8,
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smoke_fails_when_raw_tools_are_exposed() {
    let (server, _h) = server(&[("PAPIERKRAM_EXPOSE_RAW", "true")]).await;
    let (ok, out) = smoke(&server.url, KEY);
    assert!(!ok, "{out}");
    assert!(
        out.contains("FAIL tools/list") && out.contains("FAIL raw tool hidden"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smoke_fails_with_a_wrong_key_or_a_broken_upstream() {
    let (server, _h) = server(&[("PAPIERKRAM_TOKEN", "not-the-sandbox-token")]).await;
    let (ok, out) = smoke(&server.url, KEY);
    assert!(!ok);
    assert!(
        out.contains("FAIL /health") && out.contains("FAIL read-only tool call"),
        "{out}"
    );
    let (ok, out) = smoke(&server.url, "wrong-key-0123456789");
    assert!(!ok);
    assert!(out.contains("FAIL initialize"), "{out}");
}
