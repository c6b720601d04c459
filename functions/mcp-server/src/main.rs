//! `mcp-server`: Lambda mode when `AWS_LAMBDA_RUNTIME_API` is set, else the local commands
//! (`serve`). See `cli.rs` for the commands and `lib.rs` for the router.

use audit::{RedactingMakeWriter, Redactor};
use mcp_server::{cli, config::Config};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // The command line's own error report (tracing may not be set up yet).
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> anyhow::Result<()> {
    let config = Config::from_env()?;
    let redactor = Redactor::new();
    // Logs go to stderr through the redactor; stdout carries only audit lines.
    let logs = tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn")),
        )
        .with_writer(RedactingMakeWriter::stderr(redactor.clone()));
    if config.json_logs {
        logs.json().init();
    } else {
        logs.with_ansi(false).init();
    }
    let command = cli::parse(std::env::args().skip(1), config.lambda)?;
    cli::run(command, config, redactor).await
}
