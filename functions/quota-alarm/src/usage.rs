//! Usage observations: the rows of `queries/quota-usage.insights` and their per-connector summary.
//!
//! Logs Insights answers with rows of `(field, value)` string pairs; the local run produces the
//! same pairs from audit lines (`local.rs`). Both go through [`UsageRow::from_fields`], so the
//! computation cannot tell them apart. Rows from several log groups or queries are merged here.

use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::query::columns;
use crate::window::Bounds;

/// One result row: a connector and tool, over one time range.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UsageRow {
    pub connector: String,
    pub tool: Option<String>,
    /// Calls that carried quota figures.
    pub calls: u64,
    /// Sum of the per-call cost the upstream reported (`x-consumed-quota` is per request).
    pub consumed: Option<i64>,
    /// Remaining quota on the latest of those calls.
    pub remaining: Option<i64>,
    /// Limit on the latest call that carried one.
    pub limit: Option<i64>,
    /// Time of the latest of those calls.
    pub last_seen: Option<Timestamp>,
}

/// A result row that cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RowError {
    #[error("result row has no `{}`", columns::CONNECTOR)]
    NoConnector,
    #[error("result field `{field}` has the value `{value}`, expected {expected}")]
    BadValue {
        field: String,
        value: String,
        expected: &'static str,
    },
}

impl UsageRow {
    /// Reads one row of `(field, value)` pairs. Unknown fields (`@ptr`) are ignored; empty
    /// values count as absent, as Insights leaves them for stats over no values.
    pub fn from_fields<'a>(
        fields: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, RowError> {
        let mut row = UsageRow::default();
        for (field, value) in fields {
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            match field {
                columns::CONNECTOR => row.connector = value.to_string(),
                columns::TOOL => row.tool = Some(value.to_string()),
                columns::CALLS => row.calls = number(field, value)?.max(0) as u64,
                columns::CONSUMED => row.consumed = Some(number(field, value)?),
                columns::REMAINING => row.remaining = Some(number(field, value)?),
                columns::LIMIT => row.limit = Some(number(field, value)?),
                columns::LAST_SEEN => row.last_seen = Some(timestamp(field, value)?),
                _ => {}
            }
        }
        if row.connector.is_empty() {
            return Err(RowError::NoConnector);
        }
        Ok(row)
    }
}

/// Insights prints integers, but sums and averages may come back as `12.0`.
fn number(field: &str, value: &str) -> Result<i64, RowError> {
    let bad = || RowError::BadValue {
        field: field.to_string(),
        value: value.to_string(),
        expected: "a number",
    };
    if let Ok(n) = value.parse::<i64>() {
        return Ok(n);
    }
    let f: f64 = value.parse().map_err(|_| bad())?;
    if f.is_finite() && f.abs() < 9.0e15 {
        Ok(f.round() as i64)
    } else {
        Err(bad())
    }
}

/// RFC 3339 (the audit `ts`), or Insights' own `2026-05-03 10:00:00.123` in UTC (`@timestamp`).
fn timestamp(field: &str, value: &str) -> Result<Timestamp, RowError> {
    value
        .parse::<Timestamp>()
        .or_else(|_| {
            value
                .parse::<jiff::civil::DateTime>()
                .and_then(|dt| dt.to_zoned(jiff::tz::TimeZone::UTC))
                .map(|z| z.timestamp())
        })
        .map_err(|_| RowError::BadValue {
            field: field.to_string(),
            value: value.to_string(),
            expected: "a timestamp",
        })
}

/// What one connector's rows say about its current window.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Usage {
    /// The latest remaining figure in the window, with when it was seen.
    pub remaining: Option<(i64, Timestamp)>,
    /// The latest limit reported in the window.
    pub limit: Option<i64>,
    /// Sum of the reported per-call costs in the window; `None` when no call reported one.
    pub consumed: Option<i64>,
    /// Calls with quota figures in the window.
    pub calls: u64,
    /// The latest such call.
    pub last_seen: Option<Timestamp>,
    /// Per tool, largest consumer first.
    pub tools: Vec<ToolUsage>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolUsage {
    pub tool: String,
    pub calls: u64,
    pub consumed: Option<i64>,
}

impl ToolUsage {
    /// What ranks a tool: its reported cost, else its call count.
    pub fn weight(&self) -> i64 {
        self.consumed
            .unwrap_or_else(|| i64::try_from(self.calls).unwrap_or(i64::MAX))
    }
}

/// Merges one connector's rows (any number of log groups and queries) for the window `bounds`
/// as seen at `now`.
///
/// Rows last seen outside `[start, now]` are dropped: a remaining figure from before the window
/// started says nothing about this window, so utilisation starts from nothing at every reset.
/// The latest remaining figure wins even when it is higher than an earlier one — the counter
/// goes up when the upstream resets. Ties prefer the lower figure.
pub fn summarize(connector: &str, rows: &[UsageRow], bounds: &Bounds, now: Timestamp) -> Usage {
    let mut usage = Usage::default();
    let mut limit_at: Option<Timestamp> = None;
    let mut tools: BTreeMap<String, ToolUsage> = BTreeMap::new();
    let in_window = |t: Timestamp| t >= bounds.start && t <= now;
    for row in rows.iter().filter(|r| r.connector == connector) {
        let seen = row.last_seen;
        if seen.is_some_and(|t| !in_window(t)) {
            continue;
        }
        usage.calls += row.calls;
        if let Some(c) = row.consumed {
            usage.consumed = Some(usage.consumed.unwrap_or(0) + c);
        }
        usage.last_seen = usage.last_seen.max(seen);
        if let (Some(remaining), Some(at)) = (row.remaining, seen) {
            let newer = match usage.remaining {
                None => true,
                Some((r, t)) => at > t || (at == t && remaining < r),
            };
            if newer {
                usage.remaining = Some((remaining, at));
            }
        }
        if let Some(limit) = row.limit
            && (usage.limit.is_none() || seen > limit_at)
        {
            usage.limit = Some(limit);
            limit_at = seen;
        }
        let name = row.tool.clone().unwrap_or_else(|| "(none)".to_string());
        let tool = tools.entry(name.clone()).or_insert(ToolUsage {
            tool: name,
            calls: 0,
            consumed: None,
        });
        tool.calls += row.calls;
        if let Some(c) = row.consumed {
            tool.consumed = Some(tool.consumed.unwrap_or(0) + c);
        }
    }
    let mut tools: Vec<ToolUsage> = tools.into_values().collect();
    tools.sort_by(|a, b| b.weight().cmp(&a.weight()).then(a.tool.cmp(&b.tool)));
    usage.tools = tools;
    usage
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    pub(crate) fn row(tool: &str, calls: u64, remaining: Option<i64>, seen: &str) -> UsageRow {
        UsageRow {
            connector: "papierkram".into(),
            tool: Some(tool.into()),
            calls,
            consumed: Some(calls as i64),
            remaining,
            limit: Some(10_000),
            last_seen: Some(ts(seen)),
        }
    }

    fn may() -> Bounds {
        Bounds::between(ts("2026-04-30T22:00:00Z"), ts("2026-05-31T22:00:00Z"))
    }

    #[test]
    fn insights_row_reads_numbers_timestamps_and_ignores_pointers() {
        let row = UsageRow::from_fields([
            ("connector", "papierkram"),
            ("tool", "papierkram_invoices_list"),
            ("calls", "42"),
            ("consumed", "42.0"),
            ("remaining", "9958"),
            ("window_limit", "10000"),
            ("last_seen", "2026-05-03T10:00:00.123Z"),
            ("@ptr", "CmAKJgoiMTIzNDU2"),
        ])
        .unwrap();
        assert_eq!(row.calls, 42);
        assert_eq!(row.consumed, Some(42));
        assert_eq!(row.remaining, Some(9958));
        assert_eq!(row.last_seen, Some(ts("2026-05-03T10:00:00.123Z")));
    }

    #[test]
    fn insights_row_accepts_the_insights_timestamp_format_and_empty_values() {
        let row = UsageRow::from_fields([
            ("connector", "papierkram"),
            ("remaining", ""),
            ("last_seen", "2026-05-03 10:00:00.123"),
        ])
        .unwrap();
        assert_eq!(row.remaining, None);
        assert_eq!(row.last_seen, Some(ts("2026-05-03T10:00:00.123Z")));
    }

    #[test]
    fn insights_row_without_connector_or_with_garbage_is_an_error() {
        assert_eq!(
            UsageRow::from_fields([("calls", "1")]),
            Err(RowError::NoConnector)
        );
        let err = UsageRow::from_fields([("connector", "x"), ("remaining", "lots")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("remaining") && err.contains("lots"), "{err}");
    }

    #[test]
    fn latest_remaining_wins_across_tools_and_log_groups() {
        let rows = [
            row(
                "papierkram_invoices_list",
                10,
                Some(9_000),
                "2026-05-10T08:00:00Z",
            ),
            // Another log group saw a later call of the same tool.
            row(
                "papierkram_invoices_list",
                5,
                Some(8_990),
                "2026-05-10T09:00:00Z",
            ),
            row(
                "papierkram_info_get",
                1,
                Some(9_500),
                "2026-05-09T09:00:00Z",
            ),
        ];
        let u = summarize("papierkram", &rows, &may(), ts("2026-05-11T00:00:00Z"));
        assert_eq!(u.remaining, Some((8_990, ts("2026-05-10T09:00:00Z"))));
        assert_eq!(u.calls, 16);
        assert_eq!(u.consumed, Some(16));
        assert_eq!(u.tools[0].tool, "papierkram_invoices_list");
        assert_eq!(u.tools[0].calls, 15);
    }

    #[test]
    fn a_figure_from_before_the_window_start_does_not_count() {
        let rows = [row(
            "papierkram_invoices_list",
            900,
            Some(100),
            "2026-04-30T21:59:59Z",
        )];
        let u = summarize("papierkram", &rows, &may(), ts("2026-05-01T06:00:00Z"));
        assert_eq!(u, Usage::default());
    }

    #[test]
    fn counter_going_up_after_a_reset_is_taken_as_is() {
        // The upstream reset a little late: the first calls of May still saw April's figure.
        let rows = [
            row(
                "papierkram_invoices_list",
                3,
                Some(120),
                "2026-05-01T00:05:00Z",
            ),
            row(
                "papierkram_info_get",
                1,
                Some(9_999),
                "2026-05-01T02:00:00Z",
            ),
        ];
        let u = summarize("papierkram", &rows, &may(), ts("2026-05-01T03:00:00Z"));
        assert_eq!(u.remaining, Some((9_999, ts("2026-05-01T02:00:00Z"))));
    }

    #[test]
    fn other_connectors_and_future_rows_are_ignored() {
        let mut other = row("x_get", 7, Some(1), "2026-05-02T00:00:00Z");
        other.connector = "other".into();
        let future = row("papierkram_info_get", 1, Some(1), "2026-05-20T00:00:00Z");
        let u = summarize(
            "papierkram",
            &[other, future],
            &may(),
            ts("2026-05-10T00:00:00Z"),
        );
        assert_eq!(u, Usage::default());
    }

    #[test]
    fn tools_rank_by_reported_cost_then_calls_then_name() {
        let mut a = row("a_list", 10, None, "2026-05-02T00:00:00Z");
        a.consumed = Some(50);
        let b = row("b_list", 20, None, "2026-05-02T00:00:00Z");
        let mut c = row("c_list", 20, None, "2026-05-02T00:00:00Z");
        c.consumed = None;
        let u = summarize("papierkram", &[c, b, a], &may(), ts("2026-05-03T00:00:00Z"));
        let order: Vec<&str> = u.tools.iter().map(|t| t.tool.as_str()).collect();
        assert_eq!(order, ["a_list", "b_list", "c_list"]);
    }
}
