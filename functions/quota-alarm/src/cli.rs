//! Commands: Lambda mode (when `AWS_LAMBDA_RUNTIME_API` is set), `run --local`, `alarms`.
//! Builds every dependency once, then runs.

use std::convert::Infallible;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use aws_json::{AwsJson, CLOUDWATCH_LOGS};
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use insights::LocalInsights;
use insights::cloudwatch::CloudWatchInsights;
use jiff::Timestamp;

use crate::config::{self, Config};
use crate::handler::{self, Deps, handle};
use crate::local::NoProbes;
use crate::policy::{Policy, policies};
use crate::probe::{self, HttpProber};
use crate::{alarms, table};

/// Upstream quota utilisation, forecast and EMF metrics per connector.
///
/// Without a command and with AWS_LAMBDA_RUNTIME_API set the binary serves the scheduled
/// handler (Lambda mode); elsewhere it runs one of the commands.
#[derive(Debug, Parser)]
#[command(name = "quota-alarm", version)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, PartialEq, Subcommand)]
pub enum Command {
    #[command(skip)]
    Lambda,
    /// The per-connector table from audit files, as the Lambda would assess them.
    Run {
        /// JSON-lines audit log (one log group); repeat for more.
        #[arg(long = "local", value_name = "AUDIT.jsonl", required = true)]
        files: Vec<PathBuf>,
        /// Catalog directory; the shipped catalogs when unset.
        #[arg(long, value_name = "DIR", env = config::CATALOG_DIR, value_parser = any_path)]
        catalog: Option<PathBuf>,
        /// The time of the run (default: now).
        #[arg(long, value_name = "RFC3339", value_parser = rfc3339)]
        now: Option<Timestamp>,
        /// Print the metric and decision lines the Lambda would write instead of the table.
        #[arg(long)]
        emf: bool,
    },
    /// The CloudWatch alarms infra creates from the catalogs.
    Alarms {
        /// The plan as JSON (what infra reads).
        #[arg(long)]
        json: bool,
        /// Catalog directory; the shipped catalogs when unset.
        #[arg(long, value_name = "DIR", env = config::CATALOG_DIR, value_parser = any_path)]
        catalog: Option<PathBuf>,
        /// Metrics namespace (default: HostedMcp).
        #[arg(long, value_name = "NS", env = config::EMF_NAMESPACE)]
        namespace: Option<String>,
    },
}

/// Parses the arguments after the program name (see [`Cli::into_command`]).
pub fn parse<T: Into<OsString> + Clone>(
    args: impl IntoIterator<Item = T>,
    lambda: bool,
) -> Result<Command, clap::Error> {
    let args =
        std::iter::once(OsString::from("quota-alarm")).chain(args.into_iter().map(Into::into));
    Cli::try_parse_from(args)?.into_command(lambda)
}

impl Cli {
    /// The command to run: none means Lambda mode, only on Lambda. A blank variable behind
    /// `--catalog` or `--namespace` counts as unset, as in `Config`.
    pub fn into_command(self, lambda: bool) -> Result<Command, clap::Error> {
        let blank = |p: &PathBuf| p.as_os_str().is_empty();
        Ok(match self.command {
            None if lambda => Command::Lambda,
            None => {
                return Err(Cli::command().error(
                    ErrorKind::MissingSubcommand,
                    "no command given (Lambda mode needs AWS_LAMBDA_RUNTIME_API)",
                ));
            }
            Some(Command::Run {
                files,
                catalog,
                now,
                emf,
            }) => Command::Run {
                files,
                catalog: catalog.filter(|p| !blank(p)),
                now,
                emf,
            },
            Some(Command::Alarms {
                json,
                catalog,
                namespace,
            }) => Command::Alarms {
                json,
                catalog: catalog.filter(|p| !blank(p)),
                namespace: namespace.filter(|n| !n.trim().is_empty()),
            },
            Some(Command::Lambda) => Command::Lambda,
        })
    }
}

fn any_path(text: &str) -> Result<PathBuf, Infallible> {
    Ok(PathBuf::from(text))
}

fn rfc3339(text: &str) -> Result<Timestamp, String> {
    text.parse()
        .map_err(|_| "not an RFC 3339 time like 2026-05-20T10:00:00Z".to_string())
}

/// Runs a command; output goes to `out` (stdout in `main`).
pub async fn run(command: Command, config: Config, out: &mut impl Write) -> anyhow::Result<()> {
    let catalog_dir = |flag: &Option<PathBuf>| flag.clone().or_else(|| config.catalog_dir.clone());
    match command {
        Command::Alarms {
            json,
            catalog,
            namespace,
        } => {
            let connectors = connectors(catalog_dir(&catalog))?;
            let namespace = namespace.unwrap_or_else(|| config.namespace.clone());
            let plan = alarms::plan(&connectors, &namespace);
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&plan)?)?;
            } else {
                for a in &plan.alarms {
                    writeln!(
                        out,
                        "{}: {} >= {} ({}/{} x {} s) — {}",
                        a.id,
                        a.metric_name,
                        a.threshold,
                        a.datapoints_to_alarm,
                        a.evaluation_periods,
                        a.period_seconds,
                        a.description
                    )?;
                }
                for s in &plan.skipped {
                    writeln!(out, "{}: no alarms ({})", s.connector, s.reason)?;
                }
            }
        }
        Command::Run {
            files,
            catalog,
            now,
            emf,
        } => {
            // Each file is a log group; the run is the Lambda's with the local engine answering
            // the query, and without probes (no upstream is called locally).
            let mut logs = LocalInsights::default();
            for file in &files {
                let text = std::fs::read_to_string(file)
                    .with_context(|| format!("reading {}", file.display()))?;
                logs.add_jsonl(&file.display().to_string(), &text);
            }
            let deps = Deps {
                log_groups: logs.groups().to_vec(),
                logs,
                prober: NoProbes,
                probes: Default::default(),
                connectors: connectors(catalog_dir(&catalog))?,
                namespace: config.namespace.clone(),
                log_group_prefix: None,
            };
            let now = now.unwrap_or_else(Timestamp::now);
            let outcome = handle(&deps, now).await?;
            if emf {
                for line in &outcome.lines {
                    writeln!(out, "{line}")?;
                }
            } else {
                write!(out, "{}", table::render(&outcome.assessments, now))?;
                writeln!(
                    out,
                    "\n{} audit events read, {} other lines skipped",
                    deps.logs.events(),
                    deps.logs.skipped()
                )?;
            }
        }
        // Boxed: the runtime and SDK futures are deep enough to overflow the layout query.
        Command::Lambda => Box::pin(lambda(config)).await?,
    }
    Ok(())
}

fn connectors(dir: Option<PathBuf>) -> anyhow::Result<Vec<(String, Option<Policy>)>> {
    let loaded = connector::load(dir.as_deref()).context("loading catalogs")?;
    Ok(policies(&loaded)?)
}

/// Lambda mode: the client and catalogs once, then one run per scheduled event.
async fn lambda(config: Config) -> anyhow::Result<()> {
    let aws = aws_config::load_from_env().await;
    let loaded = connector::load(config.catalog_dir.as_deref()).context("loading catalogs")?;
    let deps = Deps {
        logs: CloudWatchInsights::new(
            AwsJson::new(&aws, CLOUDWATCH_LOGS, probe::http_client(), |name| {
                std::env::var(name).ok()
            })?,
            handler::polling(config.query_timeout),
        ),
        prober: HttpProber {
            http: probe::http_client(),
            secret: config
                .secret_id
                .clone()
                .map(|id| (aws_sdk_secretsmanager::Client::new(&aws), id)),
            base_urls: Default::default(),
        },
        probes: probe::specs(&loaded),
        connectors: policies(&loaded)?,
        namespace: config.namespace.clone(),
        log_groups: config.log_groups.clone(),
        log_group_prefix: config.log_group_prefix.clone(),
    };
    let deps = &deps;
    let service = lambda_runtime::service_fn(
        move |event: lambda_runtime::LambdaEvent<serde_json::Value>| async move {
            let now = Timestamp::now();
            let schedule_id = event
                .payload
                .get("id")
                .and_then(|v| v.as_str())
                .unwrap_or("");
            tracing::info!(schedule_id, request_id = %event.context.request_id, "quota run");
            let outcome = handle(deps, now)
                .await
                .inspect_err(|e| tracing::error!(error = %e, "quota run failed"))?;
            // The EMF and decision lines own stdout, as the audit writer does in the server.
            let mut stdout = std::io::stdout().lock();
            for line in &outcome.lines {
                let _ = writeln!(stdout, "{line}");
            }
            Ok::<_, crate::handler::HandlerError>(outcome.summary())
        },
    );
    lambda_runtime::run(service)
        .await
        .map_err(|e| anyhow::anyhow!("lambda runtime: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn run_local_takes_files_catalog_now_and_emf() {
        let c = parse(
            args("run --local a.jsonl --local b.jsonl --catalog cat --now 2026-05-20T10:00:00Z --emf"),
            false,
        )
        .unwrap();
        assert_eq!(
            c,
            Command::Run {
                files: vec!["a.jsonl".into(), "b.jsonl".into()],
                catalog: Some("cat".into()),
                now: Some("2026-05-20T10:00:00Z".parse().unwrap()),
                emf: true,
            }
        );
    }

    /// clap's messages: each names the command or flag at fault, exit code 2.
    #[test]
    fn bad_invocations_explain_themselves() {
        let err = |s: &str| {
            let e = parse(args(s), false).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{s}");
            e.to_string()
        };
        assert!(err("run").contains("--local <AUDIT.jsonl>"));
        assert!(
            err("run --local a --now tomorrow")
                .contains("invalid value 'tomorrow' for '--now <RFC3339>': not an RFC 3339 time")
        );
        assert!(err("alarms --emf").contains("unexpected argument '--emf'"));
        assert!(err("serve").contains("unrecognized subcommand 'serve'"));
        assert!(err("").contains("no command given"));
        assert_eq!(parse(args(""), true).unwrap(), Command::Lambda);
    }

    #[test]
    fn clap_configuration_is_consistent() {
        Cli::command().debug_assert();
    }

    #[tokio::test]
    async fn alarms_json_is_the_plan() {
        let config = Config::from_lookup(|_| None).unwrap();
        let mut out = Vec::new();
        run(
            parse(args("alarms --json"), false).unwrap(),
            config,
            &mut out,
        )
        .await
        .unwrap();
        let plan: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(plan["namespace"], "HostedMcp");
        let ids: Vec<&str> = plan["alarms"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| a["id"].as_str())
            .collect();
        assert_eq!(
            ids,
            [
                "quota-papierkram-warn",
                "quota-papierkram-critical",
                "quota-papierkram-forecast",
                "quota-runway-warn",
                "quota-runway-critical"
            ]
        );
    }
}
