//! `papierkram-sandbox [--addr 127.0.0.1:8768] [--token T] [--monthly-limit N]`: serves the
//! offline Papierkram API until Ctrl-C.

use papierkram_sandbox::cli::{Args, CliError};
use papierkram_sandbox::{SandboxState, router};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // `RUST_LOG` as `level` and `target=level` directives, else info.
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|v| v.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(tracing::Level::INFO));
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .finish()
        .with(filter)
        .init();
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(if e == CliError::Help { 0 } else { 2 });
        }
    };
    let state = SandboxState::new(args.token).with_monthly_limit(args.monthly_limit);
    let listener = tokio::net::TcpListener::bind(args.addr).await?;
    let base_url = format!("http://{}/api/v1", listener.local_addr()?);
    tracing::info!(%base_url, "papierkram sandbox listening");
    axum::serve(listener, router(state))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
