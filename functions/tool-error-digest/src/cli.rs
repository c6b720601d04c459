//! The command line outside Lambda:
//!
//! ```text
//! tool-error-digest run --local AUDIT.jsonl --out DIR [--now RFC3339]
//! ```
//!
//! Builds the digest for the seven full UTC days before `--now` (without it: the last full week
//! that has events in the file, or the seven days up to its last event when it spans less, so
//! a preview of fresh calls is not empty) and the seven before, from a JSON-lines audit log (what `mcp-server serve` writes to
//! stdout), and writes `digest.html`, `digest.txt`, `errors-per-day.png` and `message.eml` to
//! `DIR`. Sender, recipients, dashboard link and subject prefix come from the same variables as
//! on Lambda (see `config.rs`), with placeholder addresses when unset.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use jiff::Timestamp;

use crate::config::Config;
use crate::local;

pub const USAGE: &str = "usage: tool-error-digest run --local AUDIT.jsonl --out DIR [--now RFC3339]

Writes the weekly tool error digest for the 7 full UTC days before --now to DIR (without --now:
the last full week that has events in the file, or the 7 days up to its last event when it
spans less):
digest.html, digest.txt, errors-per-day.png (when there were failed calls) and message.eml.
On Lambda (AWS_LAMBDA_RUNTIME_API set) the binary serves the scheduled handler instead.";

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Help,
    RunLocal {
        audit_log: PathBuf,
        out_dir: PathBuf,
        now: Option<Timestamp>,
    },
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> anyhow::Result<Command> {
    let mut args = args.into_iter();
    match args.next().as_deref() {
        None | Some("-h" | "--help" | "help") => return Ok(Command::Help),
        Some("run") => {}
        Some(other) => bail!("unknown command `{other}`\n\n{USAGE}"),
    }
    let (mut audit_log, mut out_dir, mut now) = (None, None, None);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .with_context(|| format!("{flag} needs a value\n\n{USAGE}"))
        };
        match flag.as_str() {
            "--local" => audit_log = Some(PathBuf::from(value()?)),
            "--out" => out_dir = Some(PathBuf::from(value()?)),
            "--now" => {
                let text = value()?;
                let t = text
                    .parse::<Timestamp>()
                    .with_context(|| format!("--now `{text}` is not an RFC 3339 time"))?;
                now = Some(t);
            }
            "-h" | "--help" => return Ok(Command::Help),
            other => bail!("unknown option `{other}`\n\n{USAGE}"),
        }
    }
    let Some(audit_log) = audit_log else {
        bail!(
            "run needs --local AUDIT.jsonl (only the local run is available outside Lambda)\n\n{USAGE}"
        );
    };
    let Some(out_dir) = out_dir else {
        bail!("run needs --out DIR\n\n{USAGE}");
    };
    Ok(Command::RunLocal {
        audit_log,
        out_dir,
        now,
    })
}

/// Runs `command`, reporting to `out`.
pub async fn run(command: Command, config: &Config, out: &mut impl Write) -> anyhow::Result<()> {
    let Command::RunLocal {
        audit_log,
        out_dir,
        now,
    } = command
    else {
        writeln!(out, "{USAGE}")?;
        return Ok(());
    };
    let result = local::run(
        &audit_log,
        &out_dir,
        now,
        config.dashboard_url.clone(),
        &config.addresses,
    )
    .await?;
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
            Command::RunLocal {
                audit_log: "a.jsonl".into(),
                out_dir: "dir".into(),
                now: Some("2026-11-30T06:00:00Z".parse().unwrap()),
            }
        );
        assert!(matches!(
            parse(args("run --out d --local a")).unwrap(),
            Command::RunLocal { now: None, .. }
        ));
        assert_eq!(parse(args("")).unwrap(), Command::Help);
    }

    #[test]
    fn bad_command_lines_say_what_is_wrong() {
        for (line, needle) in [
            ("send", "unknown command `send`"),
            ("run --out d", "needs --local"),
            ("run --local a", "needs --out"),
            ("run --local a --out d --now monday", "not an RFC 3339 time"),
            ("run --local", "--local needs a value"),
            (
                "run --local a --out d --verbose",
                "unknown option `--verbose`",
            ),
        ] {
            let err = format!("{:#}", parse(args(line)).unwrap_err());
            assert!(err.contains(needle), "{line}: {err}");
        }
    }

    #[tokio::test]
    async fn local_run_writes_the_four_files() {
        let dir =
            std::env::temp_dir().join(format!("tool-error-digest-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("audit.jsonl");
        std::fs::write(&log, crate::fixture::jsonl()).unwrap();
        let out_dir = dir.join("out");
        let command = Command::RunLocal {
            audit_log: log,
            out_dir: out_dir.clone(),
            now: Some(crate::fixture::NOW.parse().unwrap()),
        };
        let config = Config::from_lookup(|_| None).unwrap();
        let mut report = Vec::new();
        run(command, &config, &mut report).await.unwrap();
        let report = String::from_utf8(report).unwrap();
        assert!(
            report.starts_with("6 tools failing, 2 new — week 48\n"),
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
                r#"{{"v":1,"ts":"{ts}","level":"info","event":"{event}","tool":"invoices_list","connector":"papierkram","status":"{status}","reason":"upstream_503"}}"#
            )
        };
        let text = [
            line(30, "ok"),
            line(20, "unavailable"),
            line(10, "unavailable"),
        ]
        .join("\n");
        std::fs::write(&log, text).unwrap();
        let command = Command::RunLocal {
            audit_log: log,
            out_dir: dir.join("out"),
            now: None,
        };
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
        assert!(text.contains("invoices_list"), "{text}");
        assert!(!text.contains("No tool calls"), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
