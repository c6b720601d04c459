//! `quota-alarm`: Lambda mode when `AWS_LAMBDA_RUNTIME_API` is set, else the local commands
//! (`run --local`, `alarms`). See `cli.rs` for the commands and `handler.rs` for the run.

use clap::Parser;
use quota_alarm::{cli, config::Config};

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
    let cli = cli::Cli::parse();
    let config = Config::from_env()?;
    // Logs go to stderr; stdout carries the table, or the EMF and decision lines.
    audit::init_tracing(config.json_logs, "info", None);
    let command = cli.into_command(config.lambda).unwrap_or_else(|e| e.exit());
    cli::run(command, config, &mut std::io::stdout().lock()).await
}
