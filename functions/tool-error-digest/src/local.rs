//! The local run: the `queries/` files through the shared local Logs Insights engine
//! ([`LocalInsights`]) over a JSON-lines audit log, the digest written to files instead of
//! mailed.

use std::path::{Path, PathBuf};

use anyhow::Context;
use insights::LocalInsights;
use jiff::Timestamp;

use crate::collect::{self, Links};
use crate::digest::Digest;
use crate::email::{self, Addresses, CHART_FILE, Email};
use crate::html;
use crate::period::{Period, preview_now};

/// `@log` of the local events: the audit log is the one log group the local run queries.
pub const LOCAL_LOG_GROUP: &str = "local";

/// What the local run wrote.
#[derive(Debug)]
pub struct LocalRun {
    pub digest: Digest,
    pub email: Email,
    pub files: Vec<PathBuf>,
    /// Lines of the input that were not audit events.
    pub skipped_lines: usize,
    /// Whether the period was chosen from the file's events (no `now` given).
    pub period_from_file: bool,
    /// Audit events in the file, and how many of them fall outside the period.
    pub events: usize,
    pub outside: usize,
}

/// Builds the digest for the week before `now` (without one: the week [`preview_now`] picks from
/// the file's events, so a preview of fresh data is not empty) from `audit_log` and writes
/// `digest.html` (the
/// mail's HTML with the chart loaded from the file beside it), `digest.txt`,
/// `errors-per-day.png` (when there were failed calls) and `message.eml` (the message exactly
/// as it would be sent) to `out_dir`.
pub async fn run(
    audit_log: &Path,
    out_dir: &Path,
    now: Option<Timestamp>,
    links: Links,
    to: &Addresses,
) -> anyhow::Result<LocalRun> {
    let text = std::fs::read_to_string(audit_log)
        .with_context(|| format!("reading {}", audit_log.display()))?;
    let engine = LocalInsights::from_jsonl(LOCAL_LOG_GROUP, &text);
    let times = event_times(&text);
    let period_from_file = now.is_none();
    let now = now
        .or_else(|| preview_now(&times))
        .unwrap_or_else(Timestamp::now);
    let week = Period::week_before(now).range();
    let outside = times.iter().filter(|t| !week.contains(**t)).count();
    let digest = collect::collect(&engine, engine.groups(), now, links).await?;
    let email = email::compose(&digest, to, now);
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let mut files = Vec::new();
    let mut write = |name: &str, bytes: &[u8]| -> anyhow::Result<()> {
        let path = out_dir.join(name);
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        files.push(path);
        Ok(())
    };
    // The file shows the chart from beside it; the mail's `cid:` works only inside the message.
    let chart_src = email.chart_png.as_ref().map(|_| CHART_FILE);
    write("digest.html", html::render(&digest, chart_src).as_bytes())?;
    write("digest.txt", email.text.as_bytes())?;
    match &email.chart_png {
        Some(png) => write(CHART_FILE, png)?,
        None => {
            // A chart left over from an earlier run would no longer match the digest.
            let stale = out_dir.join(CHART_FILE);
            if stale.exists() {
                std::fs::remove_file(&stale)
                    .with_context(|| format!("removing {}", stale.display()))?;
            }
        }
    }
    write("message.eml", email.raw.as_bytes())?;
    Ok(LocalRun {
        digest,
        email,
        files,
        skipped_lines: engine.skipped(),
        period_from_file,
        events: times.len(),
        outside,
    })
}

/// The `ts` of every audit event line.
fn event_times(jsonl: &str) -> Vec<Timestamp> {
    jsonl
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|v| v.get(audit::fields::TS)?.as_str()?.parse().ok())
        .collect()
}
