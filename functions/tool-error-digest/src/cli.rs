//! The command line outside Lambda:
//!
//! ```text
//! tool-error-digest run --local AUDIT.jsonl --out DIR [--now RFC3339] [--trace-region REGION]
//! ```
//!
//! Builds the digest for the seven full UTC days before `--now` (without it: the last full week
//! that has events in the file, or the seven days up to its last event when it spans less, so
//! a preview of fresh calls is not empty) and the seven before, from a JSON-lines audit log (what `mcp-server serve` writes to
//! stdout), and writes `digest.html`, `digest.txt`, `errors-per-day.png` and `message.eml` to
//! `DIR`. Sender, recipients, dashboard link and subject prefix come from the same variables as
//! on Lambda (see `config.rs`), with placeholder addresses when unset. Failed calls whose audit
//! line has a `trace_id` link to their trace in the X-Ray console of `--trace-region` (else of
//! `AWS_REGION`; with neither, no links).

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};
use jiff::Timestamp;

use crate::collect::Links;
use crate::config::Config;
use crate::local;
use crate::trace::Region;

/// The weekly tool error digest from the audit logs.
///
/// On Lambda (AWS_LAMBDA_RUNTIME_API set) the binary serves the scheduled handler; elsewhere
/// `run --local` previews the digest from an audit log.
#[derive(Debug, Parser)]
#[command(name = "tool-error-digest", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Writes the digest of an audit log to a directory.
    ///
    /// digest.html, digest.txt, errors-per-day.png (when calls failed) and message.eml, for the
    /// 7 full UTC days before --now and the 7 before. Without --now: the last full week that has
    /// events in the file, or the 7 days up to its last event when it spans less.
    #[command(name = "run")]
    RunLocal {
        /// JSON-lines audit log, e.g. what `mcp-server serve` writes to stdout (outside Lambda
        /// the only source).
        #[arg(long = "local", value_name = "AUDIT.jsonl")]
        audit_log: PathBuf,
        /// Directory for the four files (created when missing).
        #[arg(long = "out", value_name = "DIR")]
        out_dir: PathBuf,
        /// The report time: the digest covers the 7 full UTC days before it.
        #[arg(long, value_name = "RFC3339", value_parser = rfc3339)]
        now: Option<Timestamp>,
        /// The region whose X-Ray console the trace links of failed calls open, e.g.
        /// eu-central-1 (default: AWS_REGION; with neither, no trace links).
        #[arg(long, value_name = "REGION")]
        trace_region: Option<Region>,
    },
}

/// Parses the arguments after the program name; `None` is no command (the help).
pub fn parse<T: Into<OsString> + Clone>(
    args: impl IntoIterator<Item = T>,
) -> Result<Option<Command>, clap::Error> {
    let args = std::iter::once(OsString::from("tool-error-digest"))
        .chain(args.into_iter().map(Into::into));
    Ok(Cli::try_parse_from(args)?.command)
}

fn rfc3339(text: &str) -> Result<Timestamp, String> {
    text.parse()
        .map_err(|_| "not an RFC 3339 time like 2026-11-30T06:00:00Z".to_string())
}

/// Runs `command`, reporting to `out`.
pub async fn run(
    command: Option<Command>,
    config: &Config,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let Some(Command::RunLocal {
        audit_log,
        out_dir,
        now,
        trace_region,
    }) = command
    else {
        write!(out, "{}", Cli::command().render_help())?;
        return Ok(());
    };
    let links = Links {
        dashboard_url: config.dashboard_url.clone(),
        trace_region: trace_region.or_else(|| config.trace_region.clone()),
    };
    let result = local::run(&audit_log, &out_dir, now, links, &config.addresses).await?;
    writeln!(out, "{}", result.email.subject)?;
    writeln!(out, "period: {}", result.digest.period.label())?;
    if result.period_from_file {
        writeln!(
            out,
            "  the last full week with events in the file (the 7 days up to its last event when \
             it spans less); --now picks another"
        )?;
    }
    writeln!(
        out,
        "{} of {} audit event(s) in the file fall outside the period",
        result.outside, result.events
    )?;
    if result.skipped_lines > 0 {
        writeln!(
            out,
            "skipped {} line(s) of {} that are not audit events",
            result.skipped_lines,
            audit_log.display()
        )?;
    }
    for file in &result.files {
        writeln!(out, "wrote {}", file.display())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn run_local_takes_log_out_and_optional_now() {
        let c = parse(args(
            "run --local a.jsonl --out dir --now 2026-11-30T06:00:00Z",
        ))
        .unwrap();
        assert_eq!(
            c,
            Some(Command::RunLocal {
                audit_log: "a.jsonl".into(),
                out_dir: "dir".into(),
                now: Some("2026-11-30T06:00:00Z".parse().unwrap()),
                trace_region: None,
            })
        );
        assert!(matches!(
            parse(args("run --out d --local a")).unwrap(),
            Some(Command::RunLocal { now: None, .. })
        ));
        let with_region = parse(args("run --local a --out d --trace-region eu-west-1")).unwrap();
        assert!(matches!(
            with_region,
            Some(Command::RunLocal { trace_region: Some(r), .. }) if r.to_string() == "eu-west-1"
        ));
        assert_eq!(parse(args("")).unwrap(), None);
    }

    /// clap's messages: each names the command or flag at fault.
    #[test]
    fn bad_command_lines_name_the_flag() {
        for (line, needle) in [
            ("send", "unrecognized subcommand 'send'"),
            ("run --out d", "--local <AUDIT.jsonl>"),
            ("run --local a", "--out <DIR>"),
            (
                "run --local a --out d --now monday",
                "invalid value 'monday' for '--now <RFC3339>': not an RFC 3339 time",
            ),
            (
                "run --local",
                "a value is required for '--local <AUDIT.jsonl>'",
            ),
            (
                "run --local a --out d --trace-region eu-west-1.evil",
                "invalid value 'eu-west-1.evil' for '--trace-region <REGION>': `eu-west-1.evil` is not an AWS region name",
            ),
            (
                "run --local a --out d --verbose",
                "unexpected argument '--verbose'",
            ),
        ] {
            let err = parse(args(line)).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{line}");
            let err = err.to_string();
            assert!(err.contains(needle), "{line}: {err}");
        }
    }

    #[test]
    fn clap_configuration_is_consistent() {
        Cli::command().debug_assert();
    }

    #[tokio::test]
    async fn no_command_prints_the_help() {
        let config = Config::from_lookup(|_| None).unwrap();
        let mut out = Vec::new();
        run(None, &config, &mut out).await.unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("Usage: tool-error-digest [COMMAND]"), "{out}");
    }

    #[tokio::test]
    async fn local_run_writes_the_four_files() {
        let dir =
            std::env::temp_dir().join(format!("tool-error-digest-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("audit.jsonl");
        std::fs::write(&log, crate::fixture::jsonl()).unwrap();
        let out_dir = dir.join("out");
        let command = Some(Command::RunLocal {
            audit_log: log,
            out_dir: out_dir.clone(),
            now: Some(crate::fixture::NOW.parse().unwrap()),
            trace_region: None,
        });
        let config = Config::from_lookup(|_| None).unwrap();
        let mut report = Vec::new();
        run(command, &config, &mut report).await.unwrap();
        let report = String::from_utf8(report).unwrap();
        assert!(
            report.starts_with("7 tools failing, 2 new — week 48\n"),
            "{report}"
        );
        assert!(report.contains("skipped 1 line(s)"), "{report}");
        for name in [
            "digest.html",
            "digest.txt",
            "errors-per-day.png",
            "message.eml",
        ] {
            let bytes = std::fs::read(out_dir.join(name)).unwrap();
            assert!(!bytes.is_empty(), "{name}");
        }
        let eml = std::fs::read_to_string(out_dir.join("message.eml")).unwrap();
        assert!(eml.contains("To: ops@localhost.invalid\r\n"));
        assert!(eml.contains("Content-ID: <errors-per-day@tool-error-digest>\r\n"));
        let html = std::fs::read_to_string(out_dir.join("digest.html")).unwrap();
        assert!(
            html.contains("<img src=\"errors-per-day.png\""),
            "the preview loads the file"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn trace_links_open_the_flags_region_else_aws_region() {
        let dir =
            std::env::temp_dir().join(format!("tool-error-digest-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("audit.jsonl");
        std::fs::write(&log, crate::fixture::jsonl()).unwrap();
        let config = Config::from_lookup(|name| {
            (name == crate::config::TRACE_REGION).then(|| "eu-west-1".to_string())
        })
        .unwrap();
        for (flag, region) in [(None, "eu-west-1"), (Some("us-east-2"), "us-east-2")] {
            let command = Some(Command::RunLocal {
                audit_log: log.clone(),
                out_dir: dir.join("out"),
                now: Some(crate::fixture::NOW.parse().unwrap()),
                trace_region: flag.map(|r| r.parse().unwrap()),
            });
            run(command, &config, &mut Vec::new()).await.unwrap();
            let text = std::fs::read_to_string(dir.join("out/digest.txt")).unwrap();
            let link = format!(
                "trace: https://{region}.console.aws.amazon.com/cloudwatch/home?region={region}#xray:traces/1-"
            );
            assert!(text.contains(&link), "{flag:?}: {text}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The README's path: serve, make some calls, preview at once. Without `--now` the preview
    /// covers the file's days, not the (empty) week before today.
    #[tokio::test]
    async fn a_preview_without_now_finds_the_calls_just_made() {
        let dir =
            std::env::temp_dir().join(format!("tool-error-digest-fresh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("audit.jsonl");
        let now = Timestamp::now();
        let line = |minutes_ago: i64, status: &str| {
            let ts = now - jiff::SignedDuration::from_mins(minutes_ago);
            let event = if status == "ok" {
                "tool_call"
            } else {
                "tool_error"
            };
            format!(
                r#"{{"v":1,"ts":"{ts}","level":"info","event":"{event}","tool":"papierkram_invoices_list","connector":"papierkram","status":"{status}","reason":"upstream_503"}}"#
            )
        };
        let text = [
            line(30, "ok"),
            line(20, "unavailable"),
            line(10, "unavailable"),
        ]
        .join("\n");
        std::fs::write(&log, text).unwrap();
        let command = Some(Command::RunLocal {
            audit_log: log,
            out_dir: dir.join("out"),
            now: None,
            trace_region: None,
        });
        let config = Config::from_lookup(|_| None).unwrap();
        let mut report = Vec::new();
        run(command, &config, &mut report).await.unwrap();
        let report = String::from_utf8(report).unwrap();
        assert!(
            report.contains("the last full week with events in the file"),
            "{report}"
        );
        assert!(
            report.contains("0 of 3 audit event(s) in the file fall outside"),
            "{report}"
        );
        let text = std::fs::read_to_string(dir.join("out/digest.txt")).unwrap();
        assert!(text.contains("papierkram_invoices_list"), "{text}");
        assert!(!text.contains("No tool calls"), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
