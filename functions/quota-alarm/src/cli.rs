//! Commands: Lambda mode (when `AWS_LAMBDA_RUNTIME_API` is set), `run --local`, `alarms`.
//! Builds every dependency once, then runs.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use insights::LocalInsights;
use insights::cloudwatch::CloudWatchInsights;
use jiff::Timestamp;

use crate::config::Config;
use crate::handler::{self, Deps, handle};
use crate::local::NoProbes;
use crate::policy::{Policy, policies};
use crate::probe::{self, HttpProber};
use crate::{alarms, table};

pub const USAGE: &str = "\
usage: quota-alarm run --local AUDIT.jsonl [--local MORE.jsonl] [--catalog DIR] [--now RFC3339] [--emf]
                             (the per-connector table from audit files; --emf prints the metric
                              and decision lines the Lambda would write instead)
       quota-alarm alarms [--json] [--catalog DIR] [--namespace NS]
                             (the CloudWatch alarms infra creates from the catalogs)
       quota-alarm           (Lambda mode, when AWS_LAMBDA_RUNTIME_API is set)";

#[derive(Debug, PartialEq)]
pub enum Command {
    Lambda,
    Run {
        files: Vec<PathBuf>,
        catalog: Option<PathBuf>,
        now: Option<Timestamp>,
        emf: bool,
    },
    Alarms {
        json: bool,
        catalog: Option<PathBuf>,
        namespace: Option<String>,
    },
}

pub fn parse(args: impl IntoIterator<Item = String>, lambda: bool) -> anyhow::Result<Command> {
    let mut args = args.into_iter();
    let Some(command) = args.next() else {
        if lambda {
            return Ok(Command::Lambda);
        }
        bail!("no command given\n{USAGE}");
    };
    let mut catalog = None;
    let (mut files, mut now, mut emf, mut json, mut namespace) = (vec![], None, false, false, None);
    while let Some(flag) = args.next() {
        let mut value = || args.next().with_context(|| format!("{flag} needs a value"));
        match (command.as_str(), flag.as_str()) {
            (_, "--catalog") => catalog = Some(PathBuf::from(value()?)),
            ("run", "--local") => files.push(PathBuf::from(value()?)),
            ("run", "--emf") => emf = true,
            ("run", "--now") => {
                let v = value()?;
                now = Some(v.parse().with_context(|| {
                    format!("--now `{v}` is not an RFC 3339 time like 2026-05-20T10:00:00Z")
                })?);
            }
            ("alarms", "--json") => json = true,
            ("alarms", "--namespace") => namespace = Some(value()?),
            ("run" | "alarms", other) => bail!("unknown flag `{other}`\n{USAGE}"),
            _ => break,
        }
    }
    match command.as_str() {
        "run" if files.is_empty() => bail!("run needs --local AUDIT.jsonl\n{USAGE}"),
        "run" => Ok(Command::Run {
            files,
            catalog,
            now,
            emf,
        }),
        "alarms" => Ok(Command::Alarms {
            json,
            catalog,
            namespace,
        }),
        "-h" | "--help" | "help" => bail!("{USAGE}"),
        other => bail!("unknown command `{other}`\n{USAGE}"),
    }
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
            aws_sdk_cloudwatchlogs::Client::new(&aws),
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

    #[test]
    fn bad_invocations_explain_themselves() {
        let err = |s: &str| parse(args(s), false).unwrap_err().to_string();
        assert!(err("run").contains("--local"));
        assert!(err("run --local a --now tomorrow").contains("RFC 3339"));
        assert!(err("alarms --emf").contains("unknown flag `--emf`"));
        assert!(err("serve").contains("unknown command"));
        assert!(err("").contains("no command"));
        assert_eq!(parse(args(""), true).unwrap(), Command::Lambda);
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
        assert_eq!(plan["alarms"].as_array().unwrap().len(), 3);
    }
}
