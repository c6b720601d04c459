//! `mcp-server`: Lambda mode when `AWS_LAMBDA_RUNTIME_API` is set, else the local commands
//! (`serve`, `lint`, `smoke`). See `commands/` for the commands and `http/` for the router.

use audit::Redactor;
use clap::Parser;
use mcp_server::{Cli, Config, EnvSnapshot};

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
    // First, so --help and --version answer whatever the environment; bad arguments exit 2.
    let cli = Cli::parse();
    let env = EnvSnapshot::local();
    let config = Config::parse(&env)?;
    let redactor = Redactor::new();
    // Logs go to stderr through the redactor; stdout carries only audit lines; traces by OTLP.
    mcp_server::init_tracing(&config, &redactor)?;
    for u in mcp_server::unknown_variables(&env) {
        let meant = u
            .meant
            .map(|m| format!("; did you mean {m}?"))
            .unwrap_or_default();
        tracing::warn!(
            "{} is not a variable this server reads, so it is ignored{meant}",
            u.name
        );
    }
    let command = cli.into_command(config.lambda).unwrap_or_else(|e| e.exit());
    mcp_server::run(command, config, env, redactor).await
}
