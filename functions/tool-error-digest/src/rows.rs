//! Typed query results. Logs Insights hands back every row as `(field, value)` strings
//! (GetQueryResults; the local engine's `to_results` has the same shape); each query's rows are
//! read into one of these types by column name, so column order and extra columns such as
//! `@ptr` do not matter.

use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;

use crate::period::date;
use crate::queries::{SAMPLE_ARG_KEYS, columns};

/// One result row: `(field, value)` pairs as GetQueryResults returns them.
pub type FieldRow = Vec<(String, String)>;

/// Shown for a group whose `tool` (or `status`) field was missing.
pub const MISSING: &str = "(none)";

/// A result row that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("result row {row:?}: {problem}")]
pub struct RowError {
    pub row: FieldRow,
    pub problem: String,
}

/// `top-failing-tools`: failed calls of one tool with one status and reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureRow {
    pub tool: String,
    pub status: String,
    pub reason: Option<String>,
    pub errors: u64,
    pub last_seen: Option<Timestamp>,
}

/// `tool-totals`: calls and failed calls of one connector's tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TotalRow {
    /// `None` for calls of no connector's tool (`search_tools`, the server's own tools).
    pub connector: Option<String>,
    pub tool: String,
    pub calls: u64,
    pub errors: u64,
}

/// `errors-per-day`: failed calls of one tool on one UTC day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayRow {
    pub day: Date,
    pub tool: String,
    pub errors: u64,
}

/// `failing-samples`: one failed call, without argument values (the audit line has none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub request_id: Option<String>,
    /// The request's trace id, when traces were on (`trace::url` makes the console link).
    pub trace_id: Option<String>,
    pub time: Option<Timestamp>,
    pub status: String,
    pub reason: Option<String>,
    pub arg_keys: Vec<String>,
    /// The call had more argument names than the query shows.
    pub more_arg_keys: bool,
}

/// `limits-hit`: requests or tool calls refused by one limit, for one user and key id (either
/// may be missing: an IP limit refuses before authentication).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitRow {
    /// `limit_ip`, `limit_caller`, `limit_daily` or `limit_budget`.
    pub reason: Option<String>,
    pub user: Option<String>,
    pub key_id: Option<String>,
    pub refused: u64,
}

/// `tool-latency`: one tool's calls and the percentiles of their `duration_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyRow {
    pub tool: String,
    pub calls: u64,
    /// Milliseconds; `None` when the column is missing (no numeric duration).
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
}

/// `missing-capabilities`: searches without a match (`tool_call` of `search_tools`, reason
/// `no_match:…`) or calls of an unknown tool (`tool_error`, reason `unknown_tool`) with one
/// event, tool and reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissRow {
    pub event: String,
    pub tool: String,
    pub reason: Option<String>,
    pub misses: u64,
}

/// `writes`: the write calls of one connector's tool. Each call counts in `calls` and in exactly
/// one other column (the query's comment defines them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteRow {
    pub connector: String,
    pub tool: String,
    pub counts: WriteCounts,
}

/// `spend`: what the calls of one connector's tool spent in the week, in the connector's unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpendRow {
    pub connector: String,
    /// `predictions`, `credits`.
    pub unit: String,
    pub tool: String,
    pub spent: u64,
    /// Calls that spent.
    pub calls: u64,
}

/// Write calls by how they ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteCounts {
    pub calls: u64,
    /// Ran upstream and succeeded (a new idempotency key or none).
    pub executed: u64,
    pub dry_runs: u64,
    /// Answered `confirmation_required` with a preview (token or form).
    pub asked: u64,
    /// A person declined the confirmation form; nothing ran.
    pub declined: u64,
    /// A confirmation token was refused.
    pub refused: u64,
    /// A critical write no person could confirm (`person_confirmation_required`).
    pub needs_person: u64,
    /// Answered from the idempotency ledger, not run again.
    pub replayed: u64,
    /// An idempotency key reused with other arguments.
    pub conflicts: u64,
    /// Sent before and its answer never recorded: someone must check upstream.
    pub outcome_unknown: u64,
    pub failed: u64,
}

impl std::ops::AddAssign for WriteCounts {
    fn add_assign(&mut self, o: WriteCounts) {
        self.calls += o.calls;
        self.executed += o.executed;
        self.dry_runs += o.dry_runs;
        self.asked += o.asked;
        self.declined += o.declined;
        self.refused += o.refused;
        self.needs_person += o.needs_person;
        self.replayed += o.replayed;
        self.conflicts += o.conflicts;
        self.outcome_unknown += o.outcome_unknown;
        self.failed += o.failed;
    }
}

/// A type read from one result row.
pub trait FromRow: Sized {
    fn from_row(row: &Cells<'_>) -> Result<Self, String>;
}

/// Reads every row; the rows that cannot be read come back as errors for the caller to report.
pub fn read_rows<T: FromRow>(rows: &[FieldRow]) -> (Vec<T>, Vec<RowError>) {
    let mut read = Vec::new();
    let mut errors = Vec::new();
    for row in rows {
        match T::from_row(&Cells(row)) {
            Ok(value) => read.push(value),
            Err(problem) => errors.push(RowError {
                row: row.clone(),
                problem,
            }),
        }
    }
    (read, errors)
}

/// The cells of one row, by column name. An empty value counts as missing.
pub struct Cells<'a>(&'a [(String, String)]);

impl Cells<'_> {
    pub fn get(&self, column: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(field, _)| field == column)
            .map(|(_, value)| value.as_str())
            .filter(|v| !v.is_empty())
    }

    fn text(&self, column: &str) -> String {
        self.get(column).unwrap_or(MISSING).to_string()
    }

    fn count(&self, column: &str) -> Result<u64, String> {
        let value = self
            .get(column)
            .ok_or_else(|| format!("no `{column}` column"))?;
        parse_count(value).ok_or_else(|| format!("`{column}` is `{value}`, not a count"))
    }

    /// A `sum()` column: missing reads as 0, like `errors` in [`TotalRow`].
    fn sum(&self, column: &str) -> Result<u64, String> {
        match self.get(column) {
            None => Ok(0),
            Some(_) => self.count(column),
        }
    }

    fn millis(&self, column: &str) -> Result<Option<f64>, String> {
        self.get(column)
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .filter(|ms| ms.is_finite() && *ms >= 0.0)
                    .ok_or_else(|| format!("`{column}` is `{v}`, not milliseconds"))
            })
            .transpose()
    }

    fn time(&self, column: &str) -> Result<Option<Timestamp>, String> {
        self.get(column)
            .map(|v| parse_time(v).ok_or_else(|| format!("`{column}` is `{v}`, not a time")))
            .transpose()
    }
}

/// Counts render as whole numbers; `sum()` may render `12.0` in other front ends.
fn parse_count(value: &str) -> Option<u64> {
    if let Ok(n) = value.parse::<u64>() {
        return Some(n);
    }
    let f: f64 = value.parse().ok()?;
    (f >= 0.0 && f.fract() == 0.0 && f < 1e15).then_some(f as u64)
}

/// An RFC 3339 time (the audit `ts`) or Insights' `2026-11-29 17:50:15.811` (UTC, for
/// `@timestamp` and `bin()`).
pub fn parse_time(value: &str) -> Option<Timestamp> {
    if let Ok(t) = value.parse::<Timestamp>() {
        return Some(t);
    }
    let civil: DateTime = value.parse().ok()?;
    civil.to_zoned(TimeZone::UTC).ok().map(|z| z.timestamp())
}

impl FromRow for FailureRow {
    fn from_row(row: &Cells<'_>) -> Result<Self, String> {
        Ok(FailureRow {
            tool: row.text(columns::TOOL),
            status: row.text(columns::STATUS),
            reason: row.get(columns::REASON).map(str::to_string),
            errors: row.count(columns::ERRORS)?,
            last_seen: row.time(columns::LAST_SEEN)?,
        })
    }
}

impl FromRow for TotalRow {
    fn from_row(row: &Cells<'_>) -> Result<Self, String> {
        Ok(TotalRow {
            connector: row.get(columns::CONNECTOR).map(str::to_string),
            tool: row.text(columns::TOOL),
            calls: row.count(columns::CALLS)?,
            // `sum()` over no values is missing rather than 0 in the local engine.
            errors: match row.get(columns::ERRORS) {
                None => 0,
                Some(_) => row.count(columns::ERRORS)?,
            },
        })
    }
}

impl FromRow for DayRow {
    fn from_row(row: &Cells<'_>) -> Result<Self, String> {
        let day = row
            .time(columns::DAY)?
            .ok_or_else(|| format!("no `{}` column", columns::DAY))?;
        Ok(DayRow {
            day: date(day),
            tool: row.text(columns::TOOL),
            errors: row.count(columns::ERRORS)?,
        })
    }
}

impl FromRow for Sample {
    fn from_row(row: &Cells<'_>) -> Result<Self, String> {
        Ok(Sample {
            request_id: row.get(columns::REQUEST_ID).map(str::to_string),
            trace_id: row.get(columns::TRACE_ID).map(str::to_string),
            time: row.time(columns::TS)?,
            status: row.text(columns::STATUS),
            reason: row.get(columns::REASON).map(str::to_string),
            arg_keys: (0..SAMPLE_ARG_KEYS)
                .filter_map(|i| row.get(&columns::arg_key(i)).map(str::to_string))
                .collect(),
            more_arg_keys: row.get(columns::MORE_ARG_KEYS) == Some("1"),
        })
    }
}

impl FromRow for LimitRow {
    fn from_row(row: &Cells<'_>) -> Result<Self, String> {
        Ok(LimitRow {
            reason: row.get(columns::REASON).map(str::to_string),
            user: row.get(columns::USER).map(str::to_string),
            key_id: row.get(columns::KEY_ID).map(str::to_string),
            refused: row.count(columns::REFUSED)?,
        })
    }
}

impl FromRow for LatencyRow {
    fn from_row(row: &Cells<'_>) -> Result<Self, String> {
        Ok(LatencyRow {
            tool: row.text(columns::TOOL),
            calls: row.count(columns::CALLS)?,
            p50: row.millis(columns::P50)?,
            p95: row.millis(columns::P95)?,
            p99: row.millis(columns::P99)?,
        })
    }
}

impl FromRow for MissRow {
    fn from_row(row: &Cells<'_>) -> Result<Self, String> {
        Ok(MissRow {
            event: row.text(columns::EVENT),
            tool: row.text(columns::TOOL),
            reason: row.get(columns::REASON).map(str::to_string),
            misses: row.count(columns::MISSES)?,
        })
    }
}

impl FromRow for SpendRow {
    fn from_row(row: &Cells<'_>) -> Result<Self, String> {
        Ok(SpendRow {
            connector: row.text(columns::CONNECTOR),
            unit: row.text(columns::SPEND_UNIT),
            tool: row.text(columns::TOOL),
            spent: row.sum(columns::SPENT)?,
            calls: row.count(columns::CALLS)?,
        })
    }
}

impl FromRow for WriteRow {
    fn from_row(row: &Cells<'_>) -> Result<Self, String> {
        Ok(WriteRow {
            connector: row.text(columns::CONNECTOR),
            tool: row.text(columns::TOOL),
            counts: WriteCounts {
                calls: row.count(columns::CALLS)?,
                executed: row.sum(columns::EXECUTED)?,
                dry_runs: row.sum(columns::DRY_RUNS)?,
                asked: row.sum(columns::ASKED)?,
                declined: row.sum(columns::DECLINED)?,
                refused: row.sum(columns::REFUSED)?,
                needs_person: row.sum(columns::NEEDS_PERSON)?,
                replayed: row.sum(columns::REPLAYED)?,
                conflicts: row.sum(columns::CONFLICTS)?,
                outcome_unknown: row.sum(columns::OUTCOME_UNKNOWN)?,
                failed: row.sum(columns::FAILED)?,
            },
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn row(pairs: &[(&str, &str)]) -> FieldRow {
        pairs
            .iter()
            .map(|(f, v)| (f.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn rows_are_read_by_column_name_in_any_order() {
        let rows = [row(&[
            ("last_seen", "2026-11-29T17:50:15.811Z"),
            ("errors", "7"),
            ("@ptr", "CmAKJwoj"),
            ("reason", "invalid_argument"),
            ("status", "invalid_input"),
            ("tool", "papierkram_invoice_get"),
        ])];
        let (read, errors) = read_rows::<FailureRow>(&rows);
        assert!(errors.is_empty());
        assert_eq!(
            read,
            [FailureRow {
                tool: "papierkram_invoice_get".into(),
                status: "invalid_input".into(),
                reason: Some("invalid_argument".into()),
                errors: 7,
                last_seen: Some("2026-11-29T17:50:15.811Z".parse().unwrap()),
            }]
        );
    }

    #[test]
    fn missing_group_fields_read_as_none() {
        let (read, _) = read_rows::<FailureRow>(&[row(&[("errors", "2")])]);
        assert_eq!(read[0].tool, MISSING);
        assert_eq!(read[0].status, MISSING);
        assert_eq!(read[0].reason, None);
        assert_eq!(read[0].last_seen, None);
    }

    #[test]
    fn unreadable_rows_are_returned_as_errors_not_dropped() {
        let rows = [
            row(&[("tool", "a"), ("calls", "3"), ("errors", "1")]),
            row(&[("tool", "b"), ("calls", "many")]),
            row(&[("tool", "c")]),
        ];
        let (read, errors) = read_rows::<TotalRow>(&rows);
        assert_eq!(read.len(), 1);
        assert_eq!(errors.len(), 2);
        assert!(
            errors[0].to_string().contains("`calls` is `many`"),
            "{}",
            errors[0]
        );
        assert!(errors[1].problem.contains("no `calls` column"));
    }

    #[test]
    fn insights_time_format_and_float_counts_are_understood() {
        let (read, errors) = read_rows::<DayRow>(&[row(&[
            ("day", "2026-11-24 00:00:00.000"),
            ("tool", "x"),
            ("errors", "4.0"),
        ])]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(read[0].day.to_string(), "2026-11-24");
        assert_eq!(read[0].errors, 4);
    }

    #[test]
    fn samples_collect_arg_keys_in_position_order() {
        let (read, _) = read_rows::<Sample>(&[row(&[
            ("ts", "2026-11-29T17:50:15.811Z"),
            ("request_id", "538edf04d6337b6e"),
            ("status", "invalid_input"),
            ("arg_keys.1", "limit"),
            ("arg_keys.0", "idd"),
            ("more_arg_keys", "0"),
        ])]);
        assert_eq!(read[0].arg_keys, ["idd", "limit"]);
        assert!(!read[0].more_arg_keys);
        assert_eq!(read[0].reason, None);
    }

    #[test]
    fn limit_rows_keep_missing_user_and_key_id_as_none() {
        let (read, errors) = read_rows::<LimitRow>(&[
            row(&[
                ("reason", "limit_caller"),
                ("user", "u_5e0c5b7d1a2f9c3e"),
                ("key_id", "dev"),
                ("refused", "7"),
            ]),
            row(&[("reason", "limit_ip"), ("refused", "4")]),
            row(&[("reason", "limit_ip")]),
        ]);
        assert_eq!(
            read,
            [
                LimitRow {
                    reason: Some("limit_caller".into()),
                    user: Some("u_5e0c5b7d1a2f9c3e".into()),
                    key_id: Some("dev".into()),
                    refused: 7,
                },
                LimitRow {
                    reason: Some("limit_ip".into()),
                    user: None,
                    key_id: None,
                    refused: 4,
                },
            ]
        );
        assert!(errors[0].problem.contains("no `refused` column"));
    }

    #[test]
    fn latency_rows_read_fractional_milliseconds_and_refuse_text() {
        let (read, errors) = read_rows::<LatencyRow>(&[
            row(&[
                ("tool", "papierkram_invoice_get"),
                ("calls", "120"),
                ("p50", "224.125"),
                ("p95", "395.125"),
                ("p99", "412.125"),
            ]),
            row(&[("tool", "x"), ("calls", "1"), ("p95", "slow")]),
        ]);
        assert_eq!(read[0].p95, Some(395.125));
        assert_eq!(read[0].calls, 120);
        assert!(errors[0].problem.contains("`p95` is `slow`"), "{errors:?}");
    }

    #[test]
    fn miss_rows_keep_event_tool_and_reason() {
        let (read, errors) = read_rows::<MissRow>(&[row(&[
            ("event", "tool_call"),
            ("tool", "search_tools"),
            ("reason", "no_match:mahnung +2"),
            ("misses", "3"),
        ])]);
        assert!(errors.is_empty());
        assert_eq!(read[0].reason.as_deref(), Some("no_match:mahnung +2"));
        assert_eq!(read[0].misses, 3);
    }

    #[test]
    fn write_rows_read_every_count_and_a_missing_sum_as_zero() {
        let (read, errors) = read_rows::<WriteRow>(&[
            row(&[
                ("connector", "papierkram"),
                ("tool", "papierkram_invoice_cancel"),
                ("calls", "9"),
                ("executed", "2"),
                ("dry_runs", "2"),
                ("asked", "3"),
                ("declined", "1"),
                ("refused", "0"),
                ("needs_person", "0"),
                ("replayed", "0"),
                ("conflicts", "0"),
                ("outcome_unknown", "1"),
                ("failed", "0.0"),
            ]),
            row(&[("tool", "x"), ("calls", "1")]),
            row(&[("tool", "y"), ("calls", "1"), ("executed", "yes")]),
        ]);
        assert_eq!(read[0].connector, "papierkram");
        assert_eq!(
            read[0].counts,
            WriteCounts {
                calls: 9,
                executed: 2,
                dry_runs: 2,
                asked: 3,
                declined: 1,
                outcome_unknown: 1,
                ..WriteCounts::default()
            }
        );
        assert_eq!(read[1].connector, MISSING);
        assert_eq!(read[1].counts.executed, 0);
        assert!(
            errors[0].problem.contains("`executed` is `yes`"),
            "{errors:?}"
        );
    }
}
