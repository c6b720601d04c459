//! Wording and number formats shared by the text and HTML renderings, so both say the same.

use jiff::Timestamp;
use jiff::civil::{Date, Weekday};
use jiff::tz::TimeZone;

use crate::digest::{
    Cause, Digest, FailingTool, LIMITS_SHOWN, LimitHit, NO_CALLER, NewlyFailing, State, Trend,
};
use crate::rows::Sample;

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
            dashboard_url: None,
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
}
