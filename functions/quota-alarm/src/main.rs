//! `quota-alarm`: Lambda mode when `AWS_LAMBDA_RUNTIME_API` is set, else the local commands
//! (`run --local`, `alarms`). See `cli.rs` for the commands and `handler.rs` for the run.

use quota_alarm::{cli, config::Config};
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
    // Logs go to stderr; stdout carries the table, or the EMF and decision lines.
    let logs = tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr);
    if config.json_logs {
        logs.json().init();
    } else {
        logs.with_ansi(false).init();
    }
    let command = cli::parse(std::env::args().skip(1), config.lambda)?;
    cli::run(command, config, &mut std::io::stdout().lock()).await
}
