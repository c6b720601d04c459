//! The offline Papierkram upstream for `serve` without Papierkram credentials. Only builds with
//! the `sandbox` feature (on by default); the Lambda zip is built without it and refuses instead.

use anyhow::Context as _;

use crate::config::EnvSnapshot;

/// Starts the sandbox on a loopback port; the environment it returns points the papierkram
/// connector at it.
#[cfg(feature = "sandbox")]
pub(super) async fn start(env: EnvSnapshot) -> anyhow::Result<EnvSnapshot> {
    let sandbox = papierkram_sandbox::SandboxState::default();
    let token = sandbox.token().to_string();
    let (addr, _task) = papierkram_sandbox::spawn(sandbox)
        .await
        .context("starting the Papierkram sandbox")?;
    let base_url = format!("http://{addr}/api/v1");
    tracing::warn!(
        sandbox = %base_url,
        "no Papierkram credentials configured (PAPIERKRAM_TOKEN): the papierkram tools \
         answer from the offline sandbox with demo data, not a real account"
    );
    Ok(env
        .with("PAPIERKRAM_BASE_URL", &base_url)
        .with("PAPIERKRAM_TOKEN", &token)
        .with("PAPIERKRAM_SUBDOMAIN", "sandbox"))
}

/// A build without the sandbox (the Lambda zip) names what is missing instead.
#[cfg(not(feature = "sandbox"))]
pub(super) async fn start(_env: EnvSnapshot) -> anyhow::Result<EnvSnapshot> {
    Err(anyhow::anyhow!(
        "no Papierkram credentials configured (PAPIERKRAM_TOKEN), and this build has no offline \
         sandbox (built without the `sandbox` feature, as the Lambda zip is): set PAPIERKRAM_TOKEN \
         and PAPIERKRAM_SUBDOMAIN, or run `cargo run -p mcp-server -- serve`"
    ))
    .context("starting the Papierkram sandbox")
}
