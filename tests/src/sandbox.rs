//! The Papierkram sandbox upstream on a loopback port, and `mcp-server` over its embedded
//! Papierkram catalog pointed at it: the start most end-to-end modules share.

use papierkram_sandbox::SandboxState;

use crate::{KEY, Server};

/// Starts the sandbox, which accepts `token`, on a port from the OS: its state (to plant data,
/// faults and read its request log) and the base URL of its API.
pub async fn start_sandbox(token: &str) -> (SandboxState, String) {
    let sandbox = SandboxState::new(token);
    let (addr, _task) = papierkram_sandbox::spawn(sandbox.clone())
        .await
        .expect("start the sandbox");
    (sandbox, format!("http://{addr}/api/v1"))
}

/// The Papierkram connector's environment: its API at `base`, reached with `token`, in the
/// account `sandbox`.
pub fn papierkram_env(base: &str, token: &str) -> Vec<(&'static str, String)> {
    vec![
        ("PAPIERKRAM_BASE_URL", base.to_string()),
        ("PAPIERKRAM_TOKEN", token.to_string()),
        ("PAPIERKRAM_SUBDOMAIN", "sandbox".to_string()),
    ]
}

/// `mcp-server` accepting the test key, its Papierkram connector at `base` reached with
/// `token`, and `extra` environment (set last: it may replace any of these).
pub fn start_papierkram_server(base: &str, token: &str, extra: &[(&str, &str)]) -> Server {
    let mut env = vec![("MCP_API_KEYS", format!("e2e:{KEY}"))];
    env.extend(papierkram_env(base, token));
    env.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
    Server::start_with_env(&env)
}

/// The sandbox accepting `token` and the server using it with `extra` environment.
pub async fn start_server_on_sandbox(
    token: &str,
    extra: &[(&str, &str)],
) -> (Server, SandboxState) {
    let (sandbox, base) = start_sandbox(token).await;
    (start_papierkram_server(&base, token, extra), sandbox)
}
