//! A local CloudWatch Logs Insights engine for the part of the query language that `queries/`
//! uses, run over JSON-lines audit logs, so queries and dashboards can be tested without AWS.
//!
//! ```
//! use insights::{TimeRange, event_from_json_line, parse, run, to_results};
//!
//! let lines = [
//!     r#"{"ts":"2024-05-01T12:00:00.000Z","event":"tool_call","tool":"list_invoices","status":"ok"}"#,
//!     r#"{"ts":"2024-05-01T12:01:00.000Z","event":"tool_call","tool":"list_invoices","status":"not_found"}"#,
//! ];
//! let events: Vec<_> = lines.iter().filter_map(|l| event_from_json_line(l, "mcp")).collect();
//! let query = parse(
//!     r#"filter event in ["tool_call", "tool_error"]
//!        | stats count(*) as calls, sum(status != "ok") as errors by tool"#,
//! )?;
//! let range = TimeRange { start: "2024-05-01T00:00:00Z".parse()?, end: "2024-05-02T00:00:00Z".parse()? };
//! let rows = run(&query, &events, range)?;
//! assert_eq!(
//!     to_results(&rows),
//!     vec![vec![
//!         ("tool".to_string(), "list_invoices".to_string()),
//!         ("calls".to_string(), "2".to_string()),
//!         ("errors".to_string(), "1".to_string()),
//!     ]]
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Supported subset
//!
//! Commands separated by `|`, comments from `#` to the end of the line, lowercase keywords:
//!
//! - `fields expr [as name], ...` — columns to show; `expr` is a field or a filter expression.
//! - `filter expr` — `=`, `!=`, `<`, `<=`, `>`, `>=`; `and`, `or`, `not`, parentheses;
//!   `like "substring"`, `like /regex/`, `=~ /regex/`, `not like`; `in ["a", 1]`, `not in`;
//!   `ispresent(field)`.
//! - `parse [field] "glob * with * stars" as a, b` — glob mode only; the field defaults to
//!   `@message`.
//! - `stats agg [as name], ... [by field | bin(period) [as name], ...]` with `count(*)`,
//!   `count(x)`, `count_distinct(x)`, `sum(x)`, `avg(x)`, `min(x)`, `max(x)`, `latest(x)`,
//!   `earliest(x)`, `pct(x, p)`; `x` may be an expression such as `status != "ok"`.
//! - `sort column asc|desc` — one column; a field, an alias, or a stats column as written.
//! - `limit n` — 1 to 10,000.
//! - `display field, ...`
//!
//! Field names are bare (`tool`, `@timestamp`, `userIdentity.type`) or in backticks
//! (`` `foo-bar` ``). Anything else — other commands (`dedup`, `unnest`, ...), other functions
//! (`stddev`, `sortsFirst`, `strcontains`, `concat`, ...), arithmetic, regex `parse`,
//! `bin(1w)`, a second `stats`, multi-column `sort`, `sort` without `asc`/`desc`, uppercase
//! keywords, `@ptr`, `@ingestionTime` — is rejected by [`parse`] with a [`QueryError`] naming
//! the command, the line and column, and what is supported.
//!
//! # Semantics and sources
//!
//! AWS pages relied on (the module docs say which statement each rule comes from):
//! - Query syntax and functions:
//!   <https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CWL_QuerySyntax.html>,
//!   <https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CWL_QuerySyntax-operations-functions.html>
//! - Commands: `CWL_QuerySyntax-Fields.html`, `-Filter.html`, `-Parse.html`, `-Stats.html`,
//!   `-Sort.html`, `-Limit.html`, `-Display.html` under the same path.
//! - Discovered fields: <https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CWL_AnalyzeLogData-discoverable-fields.html>
//! - Time range and result shape: <https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_StartQuery.html>,
//!   <https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_GetQueryResults.html>
//!
//! In short: JSON fields are discovered with dot notation and array indexes (`arg_keys.0`; an
//! array itself is not a field), at most 200 per event; the time range includes both ends; at
//! most 10,000 rows are returned; comparisons are numeric when both sides are numbers; a missing
//! field fails every comparison except `!=`; `sort` uses AWS's natural order (non-numbers
//! before numbers); booleans are `1`/`0`.
//!
//! Where AWS is silent, this engine chooses, and the module docs say so: a JSON `null` is a
//! missing field; JSON booleans are `1`/`0`; without `sort`, events come newest first and
//! `stats` groups in ascending key order; `stats` over no rows returns no rows; a row missing a
//! `by` field forms its own group; `pct` is nearest-rank and `count_distinct` exact (AWS
//! approximates both); `to_results` leaves out null values.
//!
//! Not reproduced: `@ptr`, `@ingestionTime`, query statistics, and Hyperscan-only regex syntax
//! (regexes use `regex-lite`: no look-around, ASCII `\d`/`\w`).
//!
//! # On CloudWatch Logs
//!
//! [`cloudwatch::LogsQuery`] is what the scheduled functions query through. With the
//! `cloudwatch` feature, `cloudwatch::CloudWatchInsights` runs the query text on the service
//! (StartQuery, GetQueryResults until complete, StopQuery at the caller's deadline);
//! [`LocalInsights`] runs it here over JSON-lines files. Both return the same [`FieldRow`]s as
//! [`to_results`], so callers read both alike.

mod ast;
pub mod cloudwatch;
mod command_parser;
mod commands;
mod error;
mod eval;
mod event;
mod expr_parser;
mod lexer;
mod local;
mod parser;
mod stats;
mod timebin;
mod value;

use std::str::FromStr;

pub use error::QueryError;
pub use event::{Event, TimeRange, event_from_json_line};
pub use local::LocalInsights;
pub use value::Value;

use event::Record;
use parser::MAX_ROWS;

/// One result row: `(column, value)` in column order. A column the row has no value for holds
/// [`Value::Null`].
pub type Row = Vec<(String, Value)>;

/// One result row as GetQueryResults returns it: `(field, value)` strings.
pub type FieldRow = Vec<(String, String)>;

/// A parsed query, checked against the supported subset.
#[derive(Debug, Clone)]
pub struct Query {
    commands: Vec<ast::Command>,
    text: String,
}

impl Query {
    /// The query as written.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl FromStr for Query {
    type Err = QueryError;

    fn from_str(text: &str) -> Result<Query, QueryError> {
        parse(text)
    }
}

/// Parses `text`, rejecting anything outside the supported subset.
pub fn parse(text: &str) -> Result<Query, QueryError> {
    Ok(Query {
        commands: parser::parse_query(text)?,
        text: text.to_string(),
    })
}

/// Runs `query` over the events inside `range` (both ends included), returning at most 10,000
/// rows. Events need not be sorted. Every check happens in [`parse`], so this does not fail
/// today; the `Result` leaves room for run-time limits.
pub fn run(query: &Query, events: &[Event], range: TimeRange) -> Result<Vec<Row>, QueryError> {
    let rows = events
        .iter()
        .filter(|e| range.contains(e.timestamp))
        .map(Record::from_event)
        .collect();
    let (rows, columns) = commands::execute(&query.commands, rows);
    Ok(rows
        .iter()
        .take(MAX_ROWS)
        .map(|row| {
            columns
                .iter()
                .map(|c| (c.clone(), row.get(c).clone()))
                .collect()
        })
        .collect())
}

/// The rows as GetQueryResults returns them: `field`/`value` string pairs, values rendered by
/// [`Value::render`]. Null values are left out: GetQueryResults says "Only the fields requested
/// in the query are returned" but not what happens to a requested field an event lacks; leaving
/// it out is this engine's assumption, so read results by field name, not by position.
pub fn to_results(rows: &[Row]) -> Vec<FieldRow> {
    rows.iter()
        .map(|row| {
            row.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), v.render()))
                .collect()
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;

    /// Events from `(RFC 3339 time, JSON body)` pairs; the body gets no `ts` of its own.
    pub(crate) fn events(items: &[(&str, &str)]) -> Vec<Event> {
        items
            .iter()
            .map(|(ts, body)| Event {
                timestamp: ts.parse().unwrap(),
                message: body.to_string(),
                log_group: "123456789012:/aws/lambda/mcp".into(),
                log_stream: "2024/05/01/[$LATEST]abc".into(),
            })
            .collect()
    }

    pub(crate) fn all_time() -> TimeRange {
        TimeRange {
            start: "2000-01-01T00:00:00Z".parse().unwrap(),
            end: "2100-01-01T00:00:00Z".parse().unwrap(),
        }
    }

    /// Runs `query` over `events` and renders the result like GetQueryResults.
    pub(crate) fn results(query: &str, events: &[Event]) -> Vec<Vec<(String, String)>> {
        to_results(&run(&parse(query).unwrap(), events, all_time()).unwrap())
    }

    /// The rendered values of one column, row by row ("" when absent).
    pub(crate) fn column(query: &str, events: &[Event], name: &str) -> Vec<String> {
        results(query, events)
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v)
                    .unwrap_or_default()
            })
            .collect()
    }

    pub(crate) fn error(query: &str) -> String {
        parse(query).unwrap_err().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{all_time, events};

    #[test]
    fn run_keeps_only_events_inside_the_inclusive_range() {
        // StartQuery: both startTime and endTime are "included in the query".
        let ev = events(&[
            ("2024-05-01T00:00:00Z", r#"{"n":1}"#),
            ("2024-05-01T12:00:00Z", r#"{"n":2}"#),
            ("2024-05-02T00:00:00Z", r#"{"n":3}"#),
            ("2024-05-02T00:00:00.001Z", r#"{"n":4}"#),
        ]);
        let range = TimeRange {
            start: "2024-05-01T00:00:00Z".parse().unwrap(),
            end: "2024-05-02T00:00:00Z".parse().unwrap(),
        };
        let rows = run(&parse("stats count(*) as n").unwrap(), &ev, range).unwrap();
        assert_eq!(rows, vec![vec![("n".to_string(), Value::Num(3.0))]]);
    }

    #[test]
    fn at_most_ten_thousand_rows_come_back_without_limit() {
        // Limit guide: "If you omit limit, the query will return as many as 10,000 log events".
        let body = r#"{"n":1}"#;
        let items = vec![("2024-05-01T00:00:00Z", body); 10_001];
        let rows = run(&parse("fields n").unwrap(), &events(&items), all_time()).unwrap();
        assert_eq!(rows.len(), 10_000);
    }

    #[test]
    fn rows_keep_null_columns_and_results_drop_them() {
        // GetQueryResults: "Only the fields requested in the query are returned".
        let ev = events(&[("2024-05-01T00:00:00Z", r#"{"tool":"a"}"#)]);
        let rows = run(&parse("fields tool, reason").unwrap(), &ev, all_time()).unwrap();
        assert_eq!(
            rows,
            vec![vec![
                ("tool".into(), Value::Str("a".into())),
                ("reason".into(), Value::Null)
            ]]
        );
        assert_eq!(
            to_results(&rows),
            vec![vec![("tool".to_string(), "a".to_string())]]
        );
    }

    #[test]
    fn query_parses_from_str_and_keeps_its_text() {
        let q: Query = "fields tool".parse().unwrap();
        assert_eq!(q.text(), "fields tool");
        assert!("fields".parse::<Query>().is_err());
    }
}
