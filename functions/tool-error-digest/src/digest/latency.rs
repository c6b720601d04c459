//! The "Latency per tool" section: p50/p95/p99 of `duration_ms` per tool from the
//! `tool-latency` rows of both weeks, slowest p95 first.

use std::collections::BTreeMap;

use crate::rows::LatencyRow;

/// Tools shown; the rest are counted in one line.
pub const LATENCY_SHOWN: usize = 10;

/// One tool's call durations this week, and its p95 the week before.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolLatency {
    pub tool: String,
    pub calls: u64,
    /// Milliseconds.
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    /// `None` when the tool had no timed call the week before.
    pub previous_p95: Option<f64>,
}

/// One [`ToolLatency`] per tool called this week, highest p95 first (then by name).
///
/// A query over more than 50 log groups runs in batches, so a tool can come back once per batch;
/// percentiles of parts do not add up, so such a tool gets its calls summed and, per percentile,
/// the highest of the batches' (an upper bound, never an understatement).
pub fn tool_latency(this_week: &[LatencyRow], previous: &[LatencyRow]) -> Vec<ToolLatency> {
    let before = merged(previous);
    let mut tools: Vec<ToolLatency> = merged(this_week)
        .into_values()
        .filter(|r| r.calls > 0)
        .map(|r| ToolLatency {
            previous_p95: before.get(r.tool.as_str()).and_then(|p| p.p95),
            tool: r.tool,
            calls: r.calls,
            p50: r.p50,
            p95: r.p95,
            p99: r.p99,
        })
        .collect();
    tools.sort_by(|a, b| {
        let (pa, pb) = (a.p95.unwrap_or(-1.0), b.p95.unwrap_or(-1.0));
        pb.total_cmp(&pa).then_with(|| a.tool.cmp(&b.tool))
    });
    tools
}

fn merged(rows: &[LatencyRow]) -> BTreeMap<String, LatencyRow> {
    let mut map: BTreeMap<String, LatencyRow> = BTreeMap::new();
    for r in rows {
        match map.get_mut(&r.tool) {
            Some(m) => {
                m.calls += r.calls;
                m.p50 = higher(m.p50, r.p50);
                m.p95 = higher(m.p95, r.p95);
                m.p99 = higher(m.p99, r.p99);
            }
            None => {
                map.insert(r.tool.clone(), r.clone());
            }
        }
    }
    map
}

fn higher(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(tool: &str, calls: u64, p50: f64, p95: f64, p99: f64) -> LatencyRow {
        LatencyRow {
            tool: tool.into(),
            calls,
            p50: Some(p50),
            p95: Some(p95),
            p99: Some(p99),
        }
    }

    #[test]
    fn tools_are_ranked_by_p95_and_carry_last_weeks_p95() {
        let l = tool_latency(
            &[
                row("fast", 10, 5.0, 9.0, 10.0),
                row("slow", 3, 100.0, 900.0, 950.0),
                row("mid", 7, 50.0, 90.0, 99.0),
                row("also_mid", 7, 40.0, 90.0, 99.0),
            ],
            &[row("slow", 4, 100.0, 400.0, 500.0)],
        );
        let order: Vec<(&str, Option<f64>)> = l
            .iter()
            .map(|t| (t.tool.as_str(), t.previous_p95))
            .collect();
        assert_eq!(
            order,
            [
                ("slow", Some(400.0)),
                ("also_mid", None),
                ("mid", None),
                ("fast", None)
            ]
        );
    }

    #[test]
    fn batches_of_one_tool_sum_calls_and_keep_the_highest_percentiles() {
        let l = tool_latency(
            &[row("a", 10, 5.0, 50.0, 60.0), row("a", 5, 7.0, 40.0, 90.0)],
            &[],
        );
        assert_eq!(l.len(), 1);
        assert_eq!(
            (l[0].calls, l[0].p50, l[0].p95, l[0].p99),
            (15, Some(7.0), Some(50.0), Some(90.0))
        );
    }

    #[test]
    fn a_tool_without_a_p95_sorts_last() {
        let mut untimed = row("untimed", 2, 0.0, 0.0, 0.0);
        untimed.p95 = None;
        let l = tool_latency(&[untimed, row("z", 1, 1.0, 1.0, 1.0)], &[]);
        assert_eq!(l[1].tool, "untimed");
    }
}
