//! Running the `queries/` files for the digest's two weeks and reading the results, against
//! whatever runs Logs Insights queries ([`LogsQuery`]): CloudWatch Logs on Lambda or the local
//! engine (`local.rs`). The same code builds the digest in both.

use insights::cloudwatch::LogsQuery;
use jiff::Timestamp;

use crate::digest::{self, Digest, Input, ThisWeek};
use crate::period::Period;
use crate::queries;
use crate::rows::{FromRow, read_rows};
use crate::trace::Region;

/// Logs Insights returns at most this many rows; a result this long may be cut.
pub const MAX_ROWS: usize = 10_000;

/// A Logs Insights query that gave no results: the shared client's (the local engine reports
/// a query it refuses as a failed `StartQuery`, as CloudWatch would).
pub use insights::cloudwatch::CloudWatchError as QueryError;

/// Which query failed, and for which week.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{query} query for {week} failed: {source}")]
pub struct CollectError {
    /// The `queries/` file name without extension.
    pub query: &'static str,
    /// `2026-11-23 to 2026-11-29 (UTC)`.
    pub week: String,
    #[source]
    pub source: QueryError,
}

/// Where the digest's links lead: the dashboard, and the console region of the traces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links {
    pub dashboard_url: Option<String>,
    pub trace_region: Option<Region>,
}

/// Runs every digest query for the week before `now` and the week before that, and builds the
/// digest with samples for its top tools and each failing connector's worst tool.
pub async fn collect<Q: LogsQuery>(
    logs: &Q,
    groups: &[String],
    now: Timestamp,
    links: Links,
) -> Result<Digest, CollectError> {
    let period = Period::week_before(now);
    let mut run = Runner {
        logs,
        groups,
        truncated: false,
        unreadable: 0,
    };
    let this_week = ThisWeek {
        totals: run
            .typed("tool-totals", period, queries::TOOL_TOTALS)
            .await?,
        failures: run
            .typed("top-failing-tools", period, queries::TOP_FAILING_TOOLS)
            .await?,
        per_day: run
            .typed("errors-per-day", period, queries::ERRORS_PER_DAY)
            .await?,
        limits: run.typed("limits-hit", period, queries::LIMITS_HIT).await?,
        latency: run
            .typed("tool-latency", period, queries::TOOL_LATENCY)
            .await?,
        missing: run
            .typed(
                "missing-capabilities",
                period,
                queries::MISSING_CAPABILITIES,
            )
            .await?,
        writes: run.typed("writes", period, queries::WRITES).await?,
        spend: run.typed("spend", period, queries::SPEND).await?,
    };
    let previous_totals = run
        .typed("tool-totals", period.previous(), queries::TOOL_TOTALS)
        .await?;
    let previous_latency = run
        .typed("tool-latency", period.previous(), queries::TOOL_LATENCY)
        .await?;
    let mut digest = digest::build(Input {
        period,
        this_week,
        previous_totals,
        previous_latency,
        dashboard_url: links.dashboard_url,
        trace_region: links.trace_region,
        truncated_by_row_cap: false,
        unreadable_rows: 0,
    });
    for tool in digest.sample_tools() {
        match queries::failing_samples(&tool) {
            Ok(query) => {
                let samples = run.typed("failing-samples", period, &query).await?;
                digest.set_samples(&tool, samples);
            }
            Err(e) => digest.set_samples_note(&tool, e.to_string()),
        }
    }
    digest.truncated_by_row_cap = run.truncated;
    digest.unreadable_rows = run.unreadable;
    Ok(digest)
}

struct Runner<'a, Q> {
    logs: &'a Q,
    groups: &'a [String],
    truncated: bool,
    unreadable: usize,
}

impl<Q: LogsQuery> Runner<'_, Q> {
    async fn typed<T: FromRow>(
        &mut self,
        name: &'static str,
        period: Period,
        query: &str,
    ) -> Result<Vec<T>, CollectError> {
        let rows = self
            .logs
            .rows(self.groups, period.range(), query)
            .await
            .map_err(|source| CollectError {
                query: name,
                week: period.label(),
                source,
            })?;
        if rows.len() >= MAX_ROWS {
            tracing::warn!(query = name, rows = rows.len(), "result hit the row cap");
            self.truncated = true;
        }
        let (typed, errors) = read_rows(&rows);
        for e in &errors {
            tracing::warn!(query = name, error = %e, "unreadable result row");
        }
        self.unreadable += errors.len();
        Ok(typed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::FieldRow;
    use crate::rows::tests::row;
    use insights::TimeRange;
    use insights::cloudwatch::seconds;

    /// Answers `tool-totals` with `totals`, every other query with nothing.
    struct Canned {
        totals: Vec<FieldRow>,
    }

    impl LogsQuery for Canned {
        async fn rows(
            &self,
            _groups: &[String],
            _range: TimeRange,
            query: &str,
        ) -> Result<Vec<FieldRow>, QueryError> {
            Ok(if query == queries::TOOL_TOTALS {
                self.totals.clone()
            } else {
                Vec::new()
            })
        }

        async fn groups_with_prefix(&self, _prefix: &str) -> Result<Vec<String>, QueryError> {
            Ok(Vec::new())
        }
    }

    fn now() -> Timestamp {
        "2026-11-30T06:00:00Z".parse().unwrap()
    }

    #[test]
    fn query_seconds_of_consecutive_weeks_do_not_overlap() {
        let week = Period::week_before(now());
        let (start, end) = seconds(week.range());
        let (prev_start, prev_end) = seconds(week.previous().range());
        assert_eq!(end - start, 7 * 86_400 - 1);
        assert_eq!(prev_end + 1, start);
        assert_eq!(prev_start + 7 * 86_400, start);
    }

    #[tokio::test]
    async fn a_result_at_the_row_cap_is_flagged_in_the_digest() {
        let totals = (0..MAX_ROWS)
            .map(|i| row(&[("tool", &format!("t{i}")), ("calls", "1"), ("errors", "0")]))
            .collect();
        let d = collect(&Canned { totals }, &[], now(), Links::default())
            .await
            .unwrap();
        assert!(d.truncated_by_row_cap);
        assert!(crate::text::render(&d).contains("maximum of 10,000 rows"));
    }

    #[tokio::test]
    async fn unreadable_rows_are_counted_and_said() {
        let totals = vec![
            row(&[("tool", "a"), ("calls", "5"), ("errors", "1")]),
            row(&[("tool", "b"), ("calls", "lots")]),
        ];
        let d = collect(&Canned { totals }, &[], now(), Links::default())
            .await
            .unwrap();
        assert!(!d.truncated_by_row_cap);
        // Once for this week, once for the week before.
        assert_eq!(d.unreadable_rows, 2);
        assert_eq!(d.totals.calls, 5);
        assert!(crate::text::render(&d).contains("2 query result row(s) could not be read"));
    }

    #[tokio::test]
    async fn tool_names_that_cannot_be_queried_get_a_note_instead_of_samples() {
        let totals = vec![row(&[
            ("tool", "bad\"name"),
            ("calls", "5"),
            ("errors", "5"),
        ])];
        let d = collect(&Canned { totals }, &[], now(), Links::default())
            .await
            .unwrap();
        let note = d.top[0].samples_note.as_deref().unwrap();
        assert!(note.contains("not queryable"), "{note}");
        assert!(crate::text::render(&d).contains("Samples unavailable"));
    }
}
