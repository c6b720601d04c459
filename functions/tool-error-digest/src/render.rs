//! Wording and number formats shared by the text and HTML renderings, so both say the same.

use jiff::Timestamp;
use jiff::civil::{Date, Weekday};
use jiff::tz::TimeZone;

use crate::digest::{CONNECTOR_TOOLS_SHOWN, ConnectorFailures};
use crate::digest::{
    Cause, Digest, FailingTool, LATENCY_SHOWN, LIMITS_SHOWN, LimitHit, MISSING_SHOWN, Miss,
    NO_CALLER, NewlyFailing, State, ToolLatency, ToolWrites, Trend, WRITES_SHOWN,
};
use crate::digest::{ConnectorSpend, SPEND_TOOLS_SHOWN, ToolSpend};
use crate::rows::{Sample, WriteCounts};

/// `1,234,567`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `4.5 %`, `–` without calls.
pub fn rate(r: Option<f64>) -> String {
    match r {
        Some(r) => format!("{:.1} %", r * 100.0),
        None => "–".to_string(),
    }
}

/// `2026-11-29 17:50 UTC`.
pub fn minute(t: Option<Timestamp>) -> String {
    match t {
        Some(t) => t
            .to_zoned(TimeZone::UTC)
            .strftime("%Y-%m-%d %H:%M UTC")
            .to_string(),
        None => "unknown".to_string(),
    }
}

/// `2026-11-29 17:50:15 UTC`.
pub fn second(t: Option<Timestamp>) -> String {
    match t {
        Some(t) => t
            .to_zoned(TimeZone::UTC)
            .strftime("%Y-%m-%d %H:%M:%S UTC")
            .to_string(),
        None => "time unknown".to_string(),
    }
}

/// `Mon 23`.
pub fn day(d: Date) -> String {
    let name = match d.weekday() {
        Weekday::Monday => "Mon",
        Weekday::Tuesday => "Tue",
        Weekday::Wednesday => "Wed",
        Weekday::Thursday => "Thu",
        Weekday::Friday => "Fri",
        Weekday::Saturday => "Sat",
        Weekday::Sunday => "Sun",
    };
    format!("{name} {:02}", d.day())
}

/// `up 18 from 5`, `down 6 from 8`, `new (none the week before)`, `unchanged`.
pub fn trend(previous: u64, now: u64) -> String {
    match Trend::of(previous, now) {
        Trend::New => "new (none the week before)".to_string(),
        Trend::Up(n) => format!("up {} from {}", count(n), count(previous)),
        Trend::Down(n) => format!("down {} from {}", count(n), count(previous)),
        Trend::Unchanged => "unchanged".to_string(),
    }
}

/// `up 19`, `down 6`, `new`, `unchanged`: for totals, where the base is shown beside it.
pub fn change(previous: u64, now: u64) -> String {
    match Trend::of(previous, now) {
        Trend::New => "new".to_string(),
        Trend::Up(n) => format!("up {}", count(n)),
        Trend::Down(n) => format!("down {}", count(n)),
        Trend::Unchanged => "unchanged".to_string(),
    }
}

/// `1 failed call`, `5 failed calls`.
pub fn failed_calls(n: u64) -> String {
    let noun = if n == 1 { "call" } else { "calls" };
    format!("{} failed {noun}", count(n))
}

/// `invalid_input / invalid_argument`.
pub fn cause(status: &str, reason: Option<&str>) -> String {
    match reason {
        Some(r) => format!("{status} / {r}"),
        None => status.to_string(),
    }
}

pub fn cause_of(c: &Cause) -> String {
    cause(&c.status, c.reason.as_deref())
}

/// `23 failed of 120 calls (19.2 %)`.
pub fn tool_line(t: &FailingTool) -> String {
    format!(
        "{} failed of {} calls ({})",
        count(t.errors),
        count(t.calls),
        rate(t.error_rate())
    )
}

/// `idd, limit, …` (names only; the audit line never holds values).
pub fn arg_keys(s: &Sample) -> String {
    let mut keys = s.arg_keys.join(", ");
    if keys.is_empty() {
        keys.push_str("none");
    }
    if s.more_arg_keys {
        keys.push_str(", …");
    }
    keys
}

/// The failed call's trace in the X-Ray console: when the digest knows the region and the audit
/// line carries a trace id.
pub fn trace_link(d: &Digest, s: &Sample) -> Option<String> {
    crate::trace::url(d.trace_region.as_ref()?, s.trace_id.as_deref()?)
}

/// The title of the sections per connector.
pub const CONNECTORS_TITLE: &str = "Failures per connector";

/// What the sections per connector show.
pub fn connectors_legend() -> &'static str {
    "Each connector with failed calls this week, most failed first: its failing tools, and the \
     latest failed calls of its worst tool with a link to their trace where one was recorded."
}

/// `papierkram: 38 failed of 596 calls (6.4 %); up 17 from 21`.
pub fn connector_line(c: &ConnectorFailures) -> String {
    format!(
        "{}: {} failed of {} calls ({}); {}",
        c.connector,
        count(c.errors),
        count(c.calls),
        rate(c.error_rate()),
        trend(c.previous_errors, c.errors)
    )
}

/// `papierkram_invoice_get 23, contact_search 9, project_create 4, and 1 more tool with 1 failed
/// call`.
pub fn connector_tools(c: &ConnectorFailures) -> String {
    let shown = &c.tools[..c.tools.len().min(CONNECTOR_TOOLS_SHOWN)];
    let mut line: Vec<String> = shown
        .iter()
        .map(|(t, e)| format!("{t} {}", count(*e)))
        .collect();
    let rest = &c.tools[shown.len()..];
    if !rest.is_empty() {
        let n = rest.len();
        let failed: u64 = rest.iter().map(|(_, e)| e).sum();
        let tools = if n == 1 { "tool" } else { "tools" };
        line.push(format!(
            "and {n} more {tools} with {}",
            failed_calls(failed)
        ));
    }
    line.join(", ")
}

/// `Latest failures of papierkram_invoice_get, its worst tool`.
pub fn worst_heading(c: &ConnectorFailures) -> String {
    format!("Latest failures of {}, its worst tool", c.worst_tool())
}

pub fn request_id(s: &Sample) -> &str {
    s.request_id.as_deref().unwrap_or("(no request id)")
}

/// `contact_search: 4 failed calls (called the week before without failing)`.
pub fn newly_failing(n: &NewlyFailing) -> String {
    let before = if n.called_before {
        "called the week before without failing"
    } else {
        "not called the week before"
    };
    format!("{}: {} ({before})", n.tool, failed_calls(n.errors))
}

/// The sentence under the subject.
pub fn headline(d: &Digest) -> String {
    match d.state() {
        State::Failing => format!(
            "{} of {} tools called had failed calls: {} of {} calls ({}).",
            d.totals.tools_failing,
            d.totals.tools_called,
            count(d.totals.errors),
            count(d.totals.calls),
            rate(d.error_rate())
        ),
        State::AllClear => format!(
            "No failed tool calls: {} calls to {} tools, all ok.",
            count(d.totals.calls),
            d.totals.tools_called
        ),
        State::NoCalls => "No tool calls were found in the audit logs this week. If the server \
                           was in use, check which log groups the digest reads."
            .to_string(),
    }
}

/// Caveats that must not go unnoticed.
pub fn notes(d: &Digest) -> Vec<String> {
    let mut notes = Vec::new();
    if d.truncated_by_row_cap {
        notes.push(
            "A query returned the Logs Insights maximum of 10,000 rows, so some counts may be \
             incomplete."
                .to_string(),
        );
    }
    if d.unreadable_rows > 0 {
        notes.push(format!(
            "{} query result row(s) could not be read and are not counted; the function's log \
             has them.",
            d.unreadable_rows
        ));
    }
    match d.writes.total.outcome_unknown {
        0 => {}
        1 => notes.push("1 write has an unknown outcome and needs a check (see Writes).".into()),
        n => notes.push(format!(
            "{} writes have an unknown outcome and need a check (see Writes).",
            count(n)
        )),
    }
    notes
}

/// `And 2 more failing tools with 5 failed calls.`
pub fn others(d: &Digest) -> Option<String> {
    let (tools, errors) = d.other_failing;
    (tools > 0).then(|| {
        let noun = if tools == 1 { "tool" } else { "tools" };
        format!(
            "And {tools} more failing {noun} with {}.",
            failed_calls(errors)
        )
    })
}

/// `17 refused in the week. Caller: …`: the line under the "Limits hit" heading.
pub fn limits_summary(d: &Digest) -> String {
    format!(
        "{} refused. Caller: the user pseudonym, else the key id; {NO_CALLER} before \
         authentication (per-IP limit).",
        count(d.refused())
    )
}

/// The scope/caller pairs shown in detail.
pub fn limits_shown(d: &Digest) -> &[LimitHit] {
    &d.limits_hit[..d.limits_hit.len().min(LIMITS_SHOWN)]
}

/// `And 3 more scope/caller pairs with 4 refused.`
pub fn limits_others(d: &Digest) -> Option<String> {
    let rest = d.limits_hit.get(LIMITS_SHOWN..).unwrap_or_default();
    (!rest.is_empty()).then(|| {
        let noun = if rest.len() == 1 { "pair" } else { "pairs" };
        format!(
            "And {} more scope/caller {noun} with {} refused.",
            rest.len(),
            count(rest.iter().map(|h| h.refused).sum())
        )
    })
}

/// The section's title.
pub const SPEND_TITLE: &str = "Spend per connector and per tool";

/// What the section says it counts.
pub fn spend_legend() -> &'static str {
    "In each upstream's own unit, from the calls that started something there (a refused call, \
     a dry run or an upstream error spent nothing)."
}

/// `replicate: 47 predictions in 47 calls`.
pub fn spend_line(c: &ConnectorSpend) -> String {
    let calls = if c.calls == 1 { "call" } else { "calls" };
    format!(
        "{}: {} {} in {} {calls}",
        c.connector,
        count(c.spent),
        c.unit,
        count(c.calls)
    )
}

/// The tools of a connector shown in detail.
pub fn spend_tools_shown(c: &ConnectorSpend) -> &[ToolSpend] {
    &c.tools[..c.tools.len().min(SPEND_TOOLS_SHOWN)]
}

/// `And 2 more tools with 12 credits.`
pub fn spend_others(c: &ConnectorSpend) -> Option<String> {
    let rest = c.tools.get(SPEND_TOOLS_SHOWN..).unwrap_or_default();
    (!rest.is_empty()).then(|| {
        let noun = if rest.len() == 1 { "tool" } else { "tools" };
        format!(
            "And {} more {noun} with {} {}.",
            rest.len(),
            count(rest.iter().map(|t| t.spent).sum()),
            c.unit
        )
    })
}

/// `224 ms`, `12,480 ms` (whole milliseconds), `–` without a figure.
pub fn ms(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{} ms", count(v.round() as u64)),
        None => "–".to_string(),
    }
}

/// A p95 against the week before, in whole milliseconds: `up 12 ms`, `down 5 ms`,
/// `unchanged`, `new` (no timed call the week before).
pub fn latency_change(previous: Option<f64>, now: Option<f64>) -> String {
    match (previous, now) {
        (_, None) => "–".to_string(),
        (None, Some(_)) => "new".to_string(),
        (Some(p), Some(n)) => match Trend::of(p.round() as u64, n.round() as u64) {
            Trend::Up(d) => format!("up {} ms", count(d)),
            Trend::Down(d) => format!("down {} ms", count(d)),
            // A p95 of 0 ms rounded both weeks, or one that rose from 0 ms.
            Trend::New if n.round() > 0.0 => format!("up {} ms", count(n.round() as u64)),
            _ => "unchanged".to_string(),
        },
    }
}

/// `p95 (week before)`: `380 ms (up 12 ms)`.
pub fn latency_before(t: &ToolLatency) -> String {
    match t.previous_p95 {
        Some(p) => format!("{} ({})", ms(Some(p)), latency_change(Some(p), t.p95)),
        None => "– (new)".to_string(),
    }
}

/// The line under the "Latency per tool" heading.
pub fn latency_summary() -> &'static str {
    "duration_ms of each tool's calls, failed ones included, slowest p95 first; p95 week before \
     in brackets."
}

pub fn latency_shown(d: &Digest) -> &[ToolLatency] {
    &d.latency[..d.latency.len().min(LATENCY_SHOWN)]
}

/// `And 2 more tools with 40 calls, p95 at most 120 ms.`
pub fn latency_others(d: &Digest) -> Option<String> {
    let rest = d.latency.get(LATENCY_SHOWN..).unwrap_or_default();
    (!rest.is_empty()).then(|| {
        let noun = if rest.len() == 1 { "tool" } else { "tools" };
        let top = rest
            .iter()
            .filter_map(|t| t.p95)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
        format!(
            "And {} more {noun} with {} calls, p95 at most {}.",
            rest.len(),
            count(rest.iter().map(|t| t.calls).sum()),
            ms(top)
        )
    })
}

/// `7 searches found nothing (9 more words not in the search vocabulary, not logged); 4 calls named
/// no tool.`
pub fn missing_summary(d: &Digest) -> String {
    let m = &d.missing;
    let searches = m.search_count();
    let calls = m.unknown_tool_calls();
    format!(
        "{} {} found nothing ({} further {} not in the search vocabulary, not logged); {} {} \
         named no tool.",
        count(searches),
        if searches == 1 { "search" } else { "searches" },
        count(m.dropped_words),
        if m.dropped_words == 1 {
            "word"
        } else {
            "words"
        },
        count(calls),
        if calls == 1 { "call" } else { "calls" },
    )
}

/// A search group's words, `(no known word)` when the audit line kept none.
pub fn search_words(m: &Miss) -> &str {
    if m.what.is_empty() {
        "(no known word)"
    } else {
        &m.what
    }
}

/// One list of the missing-capabilities section, as both renderings show it.
pub struct MissingList<'a> {
    pub label: &'static str,
    pub unit: &'static str,
    pub list: &'a [Miss],
    /// Search groups (shown by their words) rather than tool names.
    pub searches: bool,
    /// The "and N more" wording: one, many, what is counted.
    pub names: (&'static str, &'static str, &'static str),
}

/// The section's two lists: search words, then unknown tools.
pub fn missing_lists(m: &crate::digest::MissingCapabilities) -> [MissingList<'_>; 2] {
    [
        MissingList {
            label: "Search words",
            unit: "Searches",
            list: &m.searches,
            searches: true,
            names: ("word group", "word groups", "searches"),
        },
        MissingList {
            label: "Unknown tool",
            unit: "Calls",
            list: &m.unknown_tools,
            searches: false,
            names: ("unknown tool", "unknown tools", "calls"),
        },
    ]
}

pub fn missing_shown(list: &[Miss]) -> &[Miss] {
    &list[..list.len().min(MISSING_SHOWN)]
}

/// `And 3 more word groups with 4 searches.`, `And 1 more unknown tool with 2 calls.`
pub fn missing_others(list: &[Miss], one: &str, many: &str, unit: &str) -> Option<String> {
    let rest = list.get(MISSING_SHOWN..).unwrap_or_default();
    (!rest.is_empty()).then(|| {
        let noun = if rest.len() == 1 { one } else { many };
        format!(
            "And {} more {noun} with {} {unit}.",
            rest.len(),
            count(rest.iter().map(|m| m.count).sum())
        )
    })
}

/// `1 dry run`, `2 dry runs`.
fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// The line under the "Writes" heading: every count, zeros included (the table leaves out
/// columns without any).
pub fn writes_summary(d: &Digest) -> String {
    let c = &d.writes.total;
    format!(
        "{} of write tools: {} executed, {}; {}, {} declined, {} refused, {} needing a person; \
         {} replayed, {}; {} with the outcome unknown, {} failed.",
        counted(c.calls, "call", "calls"),
        count(c.executed),
        counted(c.dry_runs, "dry run", "dry runs"),
        counted(c.asked, "confirmation asked", "confirmations asked"),
        count(c.declined),
        count(c.refused),
        count(c.needs_person),
        count(c.replayed),
        counted(c.conflicts, "idempotency conflict", "idempotency conflicts"),
        count(c.outcome_unknown),
        count(c.failed),
    )
}

/// What the section's words mean.
pub fn writes_legend() -> &'static str {
    "Declined: a person said no, nothing ran. Refused: a confirmation token that did not match \
     (expired, used, other arguments). Needs person: a critical write in a client without a \
     confirmation form. Replayed: answered from the idempotency ledger, not run again."
}

/// What someone must look at: the writes whose outcome is unknown, by tool and connector.
pub fn writes_check(d: &Digest) -> Option<String> {
    let n = d.writes.total.outcome_unknown;
    (n > 0).then(|| {
        let tools: Vec<String> = d
            .writes
            .unknown()
            .map(|t| {
                format!(
                    "{} ({}) {}",
                    t.tool,
                    t.connector,
                    count(t.counts.outcome_unknown)
                )
            })
            .collect();
        let (has, was, it) = if n == 1 {
            ("write has", "It was sent and its answer", "it")
        } else {
            ("writes have", "They were sent and their answers", "each")
        };
        format!(
            "{} {has} an unknown outcome: {}. {was} never recorded: look {it} up with the \
             matching get or list tool before anyone tries again.",
            count(n),
            tools.join(", ")
        )
    })
}

/// One count column of the "Writes" table.
pub struct WriteColumn {
    pub header: &'static str,
    pub count: fn(&WriteCounts) -> u64,
    /// Shown even when no tool has any.
    pub always: bool,
    /// A count someone must act on (drawn as a warning in HTML).
    pub check: bool,
}

const fn column(header: &'static str, count: fn(&WriteCounts) -> u64) -> WriteColumn {
    WriteColumn {
        header,
        count,
        always: false,
        check: false,
    }
}

/// Every count column, in table order.
pub const WRITE_COLUMNS: &[WriteColumn] = &[
    WriteColumn {
        always: true,
        ..column("Calls", |c| c.calls)
    },
    WriteColumn {
        always: true,
        ..column("Executed", |c| c.executed)
    },
    column("Dry runs", |c| c.dry_runs),
    column("Asked", |c| c.asked),
    column("Declined", |c| c.declined),
    column("Refused", |c| c.refused),
    column("Needs person", |c| c.needs_person),
    column("Replayed", |c| c.replayed),
    column("Conflicts", |c| c.conflicts),
    WriteColumn {
        check: true,
        ..column("Unknown", |c| c.outcome_unknown)
    },
    column("Failed", |c| c.failed),
];

/// The columns the table shows: calls and executed, and the others with a count this week.
pub fn write_columns(d: &Digest) -> Vec<&'static WriteColumn> {
    WRITE_COLUMNS
        .iter()
        .filter(|c| c.always || (c.count)(&d.writes.total) > 0)
        .collect()
}

pub fn writes_shown(d: &Digest) -> &[ToolWrites] {
    &d.writes.tools[..d.writes.tools.len().min(WRITES_SHOWN)]
}

/// `And 2 more write tools with 5 calls, 3 executed.`
pub fn writes_others(d: &Digest) -> Option<String> {
    let rest = d.writes.tools.get(WRITES_SHOWN..).unwrap_or_default();
    (!rest.is_empty()).then(|| {
        let noun = if rest.len() == 1 { "tool" } else { "tools" };
        format!(
            "And {} more write {noun} with {}, {} executed.",
            rest.len(),
            counted(rest.iter().map(|t| t.counts.calls).sum(), "call", "calls"),
            count(rest.iter().map(|t| t.counts.executed).sum())
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_and_rates_rounded() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(rate(Some(0.04545)), "4.5 %");
        assert_eq!(rate(None), "–");
    }

    #[test]
    fn trends_say_direction_and_base() {
        assert_eq!(trend(5, 23), "up 18 from 5");
        assert_eq!(trend(8, 2), "down 6 from 8");
        assert_eq!(trend(0, 2), "new (none the week before)");
        assert_eq!(trend(3, 3), "unchanged");
        assert_eq!(change(26, 45), "up 19");
        assert_eq!(failed_calls(1), "1 failed call");
    }

    #[test]
    fn times_and_days_are_utc() {
        let t: Timestamp = "2026-11-29T17:50:15.811Z".parse().unwrap();
        assert_eq!(minute(Some(t)), "2026-11-29 17:50 UTC");
        assert_eq!(second(Some(t)), "2026-11-29 17:50:15 UTC");
        assert_eq!(day("2026-11-23".parse().unwrap()), "Mon 23");
    }

    #[test]
    fn limits_beyond_the_shown_ones_are_summed_in_one_line() {
        use crate::digest::{Input, ThisWeek, build};
        use crate::period::Period;
        use crate::rows::LimitRow;
        let limits = (0..LIMITS_SHOWN as u64 + 2)
            .map(|i| LimitRow {
                reason: Some("limit_caller".into()),
                user: None,
                key_id: Some(format!("key{i:02}")),
                refused: 20 - i,
            })
            .collect();
        let d = build(Input {
            period: Period::week_before("2026-11-30T06:00:00Z".parse().unwrap()),
            this_week: ThisWeek {
                limits,
                ..ThisWeek::default()
            },
            previous_totals: vec![],
            previous_latency: vec![],
            dashboard_url: None,
            trace_region: None,
            truncated_by_row_cap: false,
            unreadable_rows: 0,
        });
        assert_eq!(limits_shown(&d).len(), LIMITS_SHOWN);
        assert_eq!(limits_shown(&d)[0].caller, "key00");
        assert_eq!(
            limits_others(&d).as_deref(),
            Some("And 2 more scope/caller pairs with 19 refused.")
        );
        let text = crate::text::render(&d);
        assert!(text.contains("caller  key09        11\n"), "{text}");
        assert!(!text.contains("key10"), "{text}");
        assert!(text.contains("And 2 more scope/caller pairs with 19 refused.\n"));
        assert!(crate::html::render(&d, None).contains("And 2 more scope/caller pairs"));
    }

    #[test]
    fn writes_beyond_the_shown_tools_are_summed_and_zero_columns_left_out() {
        use crate::digest::{Input, ThisWeek, build};
        use crate::period::Period;
        use crate::rows::WriteRow;
        let writes = (0..WRITES_SHOWN as u64 + 2)
            .map(|i| WriteRow {
                connector: "papierkram".into(),
                tool: format!("tool{i:02}"),
                counts: WriteCounts {
                    calls: 30 - i,
                    executed: 20 - i,
                    dry_runs: 12 - i,
                    ..WriteCounts::default()
                },
            })
            .collect();
        let d = build(Input {
            period: Period::week_before("2026-11-30T06:00:00Z".parse().unwrap()),
            this_week: ThisWeek {
                writes,
                ..ThisWeek::default()
            },
            previous_totals: vec![],
            previous_latency: vec![],
            dashboard_url: None,
            trace_region: None,
            truncated_by_row_cap: false,
            unreadable_rows: 0,
        });
        assert_eq!(writes_shown(&d).len(), WRITES_SHOWN);
        assert_eq!(
            writes_others(&d).as_deref(),
            Some("And 2 more write tools with 39 calls, 19 executed.")
        );
        let headers: Vec<&str> = write_columns(&d).iter().map(|c| c.header).collect();
        assert_eq!(headers, ["Calls", "Executed", "Dry runs"]);
        assert_eq!(writes_check(&d), None);
        let text = crate::text::render(&d);
        assert!(
            text.contains("Tool    Calls  Executed  Dry runs\ntool00     30        20        12\n"),
            "{text}"
        );
        assert!(!text.contains("tool10"), "{text}");
        assert!(text.contains("And 2 more write tools with 39 calls, 19 executed.\n"));
        assert!(crate::html::render(&d, None).contains("And 2 more write tools"));
    }

    #[test]
    fn latency_is_whole_milliseconds_and_changes_compare_rounded_figures() {
        assert_eq!(ms(Some(224.125)), "224 ms");
        assert_eq!(ms(Some(12_480.6)), "12,481 ms");
        assert_eq!(ms(None), "–");
        assert_eq!(latency_change(Some(380.4), Some(392.2)), "up 12 ms");
        assert_eq!(latency_change(Some(380.0), Some(375.0)), "down 5 ms");
        assert_eq!(latency_change(Some(380.4), Some(379.9)), "unchanged");
        assert_eq!(latency_change(Some(0.2), Some(3.0)), "up 3 ms");
        assert_eq!(latency_change(None, Some(3.0)), "new");
        assert_eq!(latency_change(Some(3.0), None), "–");
    }

    #[test]
    fn missing_capabilities_beyond_the_shown_ones_are_summed_in_one_line() {
        let list: Vec<Miss> = (0..MISSING_SHOWN as u64 + 3)
            .map(|i| Miss {
                what: format!("w{i}"),
                count: 20 - i,
            })
            .collect();
        assert_eq!(missing_shown(&list).len(), MISSING_SHOWN);
        assert_eq!(
            missing_others(&list, "word group", "word groups", "searches").as_deref(),
            Some("And 3 more word groups with 27 searches.")
        );
        assert_eq!(missing_others(&list[..2], "a", "b", "c"), None);
        assert_eq!(
            search_words(&Miss {
                what: String::new(),
                count: 1
            }),
            "(no known word)"
        );
    }
}
