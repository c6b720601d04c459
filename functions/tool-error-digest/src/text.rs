//! The plain-text rendering: what text-only mail clients show, and what the local run writes to
//! `digest.txt`.

use std::fmt::Write;

use crate::digest::{Digest, Miss, State};
use crate::period::Period;
use crate::render::{self, count, rate};
use crate::rows::Sample;

/// The digest as plain text (LF line ends; the MIME writer turns them into CRLF).
pub fn render(d: &Digest) -> String {
    let mut out = String::new();
    let w = &mut out;
    line(w, &d.subject());
    line(w, &format!("Tool error digest, {}", d.period.label()));
    line(w, "");
    line(w, &render::headline(d));
    for note in render::notes(d) {
        line(w, &format!("Note: {note}"));
    }
    if d.state() != State::NoCalls {
        line(w, "");
        totals(w, d);
    }
    if d.state() == State::Failing {
        top_tools(w, d);
        newly_failing(w, d);
        connectors(w, d);
    }
    recovered(w, d);
    if d.state() == State::Failing {
        per_day(w, d);
    }
    writes(w, d);
    spend(w, d);
    if d.state() != State::NoCalls {
        latency(w, d);
    }
    missing(w, d);
    limits_hit(w, d);
    if let Some(url) = &d.dashboard_url {
        line(w, "");
        line(w, &format!("Dashboard: {url}"));
    }
    out
}

/// The short mail sent when the digest could not be made.
pub fn render_failure(period: &Period, error: &str) -> String {
    let mut out = String::new();
    let w = &mut out;
    line(w, &failure_subject(period));
    line(w, "");
    line(
        w,
        &format!(
            "The tool error digest for {} could not be made:",
            period.label()
        ),
    );
    line(w, "");
    line(w, &format!("  {error}"));
    line(w, "");
    line(
        w,
        "The invocation failed, so the scheduler retries it; if retries fail too, the event goes \
         to the dead-letter queue. The function's log has the details.",
    );
    out
}

/// `Digest failed — week 48`.
pub fn failure_subject(period: &Period) -> String {
    format!("Digest failed — week {}", period.week())
}

fn line(w: &mut String, text: &str) {
    w.push_str(text);
    w.push('\n');
}

fn totals(w: &mut String, d: &Digest) {
    let (t, p) = (&d.totals, &d.previous_totals);
    let rows = [
        ("Calls", count(t.calls), count(p.calls)),
        (
            "Failed calls",
            count(t.errors),
            format!(
                "{}; {}",
                count(p.errors),
                render::change(p.errors, t.errors)
            ),
        ),
        ("Error rate", rate(t.error_rate()), rate(p.error_rate())),
        (
            "Tools failing",
            format!("{} of {}", t.tools_failing, t.tools_called),
            format!("{} of {}", p.tools_failing, p.tools_called),
        ),
    ];
    for (label, now, before) in rows {
        line(
            w,
            &format!("{label:<14} {now:>12}   (week before: {before})"),
        );
    }
}

fn top_tools(w: &mut String, d: &Digest) {
    line(w, "");
    line(w, "TOP FAILING TOOLS");
    for (i, t) in d.top.iter().enumerate() {
        line(w, "");
        let new = if t.is_new() { "  [NEW]" } else { "" };
        line(w, &format!("{}. {}{new}", i + 1, t.tool));
        line(
            w,
            &format!(
                "   {}; {}; last seen {}",
                render::tool_line(t),
                render::trend(t.previous_errors, t.errors),
                render::minute(t.last_seen)
            ),
        );
        let width = t
            .causes
            .iter()
            .map(|c| render::cause_of(c).chars().count())
            .max()
            .unwrap_or(0)
            .max("Status / reason".len());
        line(
            w,
            &format!(
                "   {:<width$}  {:>7}  Last seen",
                "Status / reason", "Failed"
            ),
        );
        for c in &t.causes {
            line(
                w,
                &format!(
                    "   {:<width$}  {:>7}  {}",
                    render::cause_of(c),
                    count(c.errors),
                    render::minute(c.last_seen)
                ),
            );
        }
        if !t.samples.is_empty() {
            line(w, "   Latest failed requests (argument names only):");
        }
        for s in &t.samples {
            sample(w, d, s);
        }
        if let Some(note) = &t.samples_note {
            line(w, &format!("   Samples unavailable: {note}"));
        }
    }
    if let Some(others) = render::others(d) {
        line(w, "");
        line(w, &others);
    }
}

/// One failed call: time, request id, cause, argument names, and its trace when linked.
fn sample(w: &mut String, d: &Digest, s: &Sample) {
    let trace = render::trace_link(d, s)
        .map(|url| format!("  trace: {url}"))
        .unwrap_or_default();
    line(
        w,
        &format!(
            "   - {}  {}  {}  args: {}{trace}",
            render::second(s.time),
            render::request_id(s),
            render::cause(&s.status, s.reason.as_deref()),
            render::arg_keys(s)
        ),
    );
}

fn connectors(w: &mut String, d: &Digest) {
    if d.connectors.is_empty() {
        return;
    }
    line(w, "");
    line(w, &render::CONNECTORS_TITLE.to_uppercase());
    line(w, render::connectors_legend());
    for c in &d.connectors {
        line(w, "");
        line(w, &render::connector_line(c));
        line(
            w,
            &format!("   Failing tools: {}", render::connector_tools(c)),
        );
        if !c.worst.is_empty() {
            line(w, &format!("   {}:", render::worst_heading(c)));
        }
        for s in &c.worst {
            sample(w, d, s);
        }
        if let Some(note) = &c.samples_note {
            line(w, &format!("   Samples unavailable: {note}"));
        }
    }
}

fn newly_failing(w: &mut String, d: &Digest) {
    line(w, "");
    line(w, "NEWLY FAILING (no failed call the week before)");
    if d.newly_failing.is_empty() {
        line(w, "- none");
    }
    for n in &d.newly_failing {
        line(w, &format!("- {}", render::newly_failing(n)));
    }
}

fn recovered(w: &mut String, d: &Digest) {
    if d.recovered.is_empty() {
        return;
    }
    line(w, "");
    line(
        w,
        "RECOVERED (failed the week before, called without failing this week)",
    );
    for tool in &d.recovered {
        line(w, &format!("- {tool}"));
    }
}

fn limits_hit(w: &mut String, d: &Digest) {
    if d.limits_hit.is_empty() {
        return;
    }
    let shown = render::limits_shown(d);
    let scope_width = shown
        .iter()
        .map(|h| h.scope.chars().count())
        .max()
        .unwrap_or(0)
        .max("Scope".len());
    let caller_width = shown
        .iter()
        .map(|h| h.caller.chars().count())
        .max()
        .unwrap_or(0)
        .max("Caller".len());
    line(w, "");
    line(
        w,
        "LIMITS HIT (requests and tool calls refused by a rate limit or budget)",
    );
    line(w, &render::limits_summary(d));
    line(
        w,
        &format!(
            "{:<scope_width$}  {:<caller_width$}  {:>7}",
            "Scope", "Caller", "Refused"
        ),
    );
    for h in shown {
        line(
            w,
            &format!(
                "{:<scope_width$}  {:<caller_width$}  {:>7}",
                h.scope,
                h.caller,
                count(h.refused)
            ),
        );
    }
    if let Some(others) = render::limits_others(d) {
        line(w, &others);
    }
}

fn writes(w: &mut String, d: &Digest) {
    if d.writes.is_empty() {
        return;
    }
    let shown = render::writes_shown(d);
    let columns = render::write_columns(d);
    let by_connector = d.writes.several_connectors();
    // Cells per row: tool, connector, then the counts.
    let mut rows: Vec<Vec<String>> = vec![
        ["Tool", "Connector"]
            .into_iter()
            .chain(columns.iter().map(|c| c.header))
            .map(str::to_string)
            .collect(),
    ];
    for t in shown {
        let mut cells = vec![t.tool.clone(), t.connector.clone()];
        cells.extend(columns.iter().map(|c| count((c.count)(&t.counts))));
        rows.push(cells);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    line(w, "");
    line(
        w,
        "WRITES (calls of write tools: run, previewed, confirmed, refused)",
    );
    line(w, &render::writes_summary(d));
    line(w, render::writes_legend());
    if let Some(check) = render::writes_check(d) {
        line(w, &format!("Check: {check}"));
    }
    for cells in &rows {
        let mut out = format!("{:<w$}", cells[0], w = widths[0]);
        if by_connector {
            let _ = write!(out, "  {:<w$}", cells[1], w = widths[1]);
        }
        for (cell, width) in cells.iter().zip(&widths).skip(2) {
            let _ = write!(out, "  {cell:>width$}");
        }
        line(w, &out);
    }
    if let Some(others) = render::writes_others(d) {
        line(w, &others);
    }
}

fn spend(w: &mut String, d: &Digest) {
    if d.spend.is_empty() {
        return;
    }
    line(w, "");
    line(w, &render::SPEND_TITLE.to_uppercase());
    line(w, render::spend_legend());
    for c in &d.spend {
        line(w, &render::spend_line(c));
        let shown = render::spend_tools_shown(c);
        let width = shown
            .iter()
            .map(|t| t.tool.chars().count())
            .max()
            .unwrap_or(0);
        for t in shown {
            line(
                w,
                &format!("  {:<width$}  {:>9} {}", t.tool, count(t.spent), c.unit),
            );
        }
        if let Some(others) = render::spend_others(c) {
            line(w, &format!("  {others}"));
        }
    }
}

fn latency(w: &mut String, d: &Digest) {
    if d.latency.is_empty() {
        return;
    }
    let shown = render::latency_shown(d);
    let tool_width = shown
        .iter()
        .map(|t| t.tool.chars().count())
        .max()
        .unwrap_or(0)
        .max("Tool".len());
    let row = |tool: &str, calls: &str, p50: &str, p95: &str, p99: &str, before: &str| {
        format!("{tool:<tool_width$}  {calls:>7}  {p50:>9}  {p95:>9}  {p99:>9}  {before}")
    };
    line(w, "");
    line(w, "LATENCY PER TOOL");
    line(w, render::latency_summary());
    line(
        w,
        &row("Tool", "Calls", "p50", "p95", "p99", "p95 week before"),
    );
    for t in shown {
        line(
            w,
            row(
                &t.tool,
                &count(t.calls),
                &render::ms(t.p50),
                &render::ms(t.p95),
                &render::ms(t.p99),
                &render::latency_before(t),
            )
            .trim_end(),
        );
    }
    if let Some(others) = render::latency_others(d) {
        line(w, &others);
    }
}

fn missing(w: &mut String, d: &Digest) {
    let m = &d.missing;
    if m.is_empty() {
        return;
    }
    line(w, "");
    line(
        w,
        "MISSING CAPABILITIES (searches that found nothing, calls of tools that do not exist)",
    );
    line(w, &render::missing_summary(d));
    for render::MissingList {
        label,
        unit,
        list,
        searches,
        names: (one, many, counted),
    } in render::missing_lists(m)
    {
        if list.is_empty() {
            continue;
        }
        let shown = render::missing_shown(list);
        let what = |miss: &Miss| -> String {
            if searches {
                render::search_words(miss).to_string()
            } else {
                miss.what.clone()
            }
        };
        let width = shown
            .iter()
            .map(|m| what(m).chars().count())
            .max()
            .unwrap_or(0)
            .max(label.len());
        line(w, &format!("{label:<width$}  {unit:>8}"));
        for miss in shown {
            line(
                w,
                &format!("{:<width$}  {:>8}", what(miss), count(miss.count)),
            );
        }
        if let Some(others) = render::missing_others(list, one, many, counted) {
            line(w, &others);
        }
    }
}

fn per_day(w: &mut String, d: &Digest) {
    let width = d
        .chart
        .series
        .iter()
        .map(|(tool, _)| tool.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    line(w, "");
    line(w, "FAILED CALLS PER DAY (top tools)");
    let mut header = format!("{:<width$}", "");
    for day in &d.chart.days {
        let _ = write!(header, "  {:>6}", render::day(*day));
    }
    line(w, &header);
    for (tool, counts) in &d.chart.series {
        let mut row = format!("{tool:<width$}");
        for n in counts {
            let _ = write!(row, "  {:>6}", count(*n));
        }
        line(w, &row);
    }
}
