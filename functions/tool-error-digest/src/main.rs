//! `tool-error-digest`: the scheduled Lambda when `AWS_LAMBDA_RUNTIME_API` is set, else the
//! local command line (`run --local`, see `cli.rs`).

use aws_config::BehaviorVersion;
use aws_json::{AwsJson, CLOUDWATCH_LOGS, SESV2};
use insights::cloudwatch::CloudWatchInsights;
use lambda_runtime::service_fn;
use tool_error_digest::handler::{self, Deps, Settings};
use tool_error_digest::{cli, config::Config, ses::SesMailer};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let result = run().await;
    if let Err(e) = &result {
        eprintln!("error: {e:#}"); // the command line's own report; tracing may not be set up
    }
    std::process::ExitCode::from(u8::from(result.is_err()))
}

async fn run() -> anyhow::Result<()> {
    // First, so --help and --version answer whatever the environment; bad arguments exit 2.
    let command = cli::parse(std::env::args_os().skip(1)).unwrap_or_else(|e| e.exit());
    let config = Config::from_env()?;
    audit::init_tracing(config.json_logs, "info", None); // stderr; stdout is the report
    if !config.lambda {
        return cli::run(command, &config, &mut std::io::stdout().lock()).await;
    }
    // Region and credentials from the SDK's chain; AWS_ENDPOINT_URL (or the service's own
    // AWS_ENDPOINT_URL_CLOUDWATCH_LOGS / _SESV2) points a client at a local endpoint in tests.
    let sdk = aws_config::defaults(BehaviorVersion::latest()).load().await;
    let http = reqwest::Client::builder()
        .timeout(config.api_timeout)
        .build()?;
    let env = |name: &str| std::env::var(name).ok();
    let logs = AwsJson::new(&sdk, CLOUDWATCH_LOGS, http.clone(), env)?;
    let ses = AwsJson::new(&sdk, SESV2, http, env)?;
    let deps = &Deps {
        logs: CloudWatchInsights::new(logs, handler::polling(config.query_timeout)),
        mail: SesMailer::new(ses),
        settings: Settings::from_config(&config),
    };
    // Boxed: the handler's future is deep enough to overflow the compiler's layout depth limit.
    let service = service_fn(move |event| Box::pin(handler::lambda(deps, event)));
    lambda_runtime::run(service)
        .await
        .map_err(|e| anyhow::anyhow!(e))
}
