//! [`build`]: ranking, trends, newly failing and recovered tools, and the chart's series, from
//! the typed rows of both weeks.

use std::collections::BTreeMap;

use super::{
    Cause, Chart, Digest, FailingTool, Input, NewlyFailing, TOP_TOOLS, Totals, connector_failures,
    limits_hit, missing_capabilities, spend, tool_latency, writes,
};
use crate::period::Period;
use crate::rows::{DayRow, TotalRow};

/// Builds the digest; samples are attached afterwards with [`Digest::set_samples`].
pub fn build(input: Input) -> Digest {
    let Input {
        period,
        this_week,
        previous_totals,
        previous_latency,
        dashboard_url,
        trace_region,
        truncated_by_row_cap,
        unreadable_rows,
    } = input;
    let now = per_tool(&this_week.totals);
    let before = per_tool(&previous_totals);

    // Causes per tool; a tool with failure rows but no totals row still counts.
    let mut causes: BTreeMap<&str, Vec<Cause>> = BTreeMap::new();
    for f in &this_week.failures {
        // Queries over more than 50 log groups run in batches, so a group can come back twice.
        let list = causes.entry(&f.tool).or_default();
        match list
            .iter_mut()
            .find(|c| c.status == f.status && c.reason == f.reason)
        {
            Some(c) => {
                c.errors += f.errors;
                c.last_seen = c.last_seen.max(f.last_seen);
            }
            None => list.push(Cause {
                status: f.status.clone(),
                reason: f.reason.clone(),
                errors: f.errors,
                last_seen: f.last_seen,
            }),
        }
    }
    let mut failing: BTreeMap<&str, (u64, u64)> = now
        .iter()
        .filter(|(_, (_, errors))| *errors > 0)
        .map(|(tool, counts)| (*tool, *counts))
        .collect();
    for (tool, list) in &causes {
        let errors: u64 = list.iter().map(|c| c.errors).sum();
        let entry = failing.entry(tool).or_insert((0, 0));
        entry.1 = entry.1.max(errors);
        entry.0 = entry.0.max(entry.1);
    }

    let mut ranked: Vec<FailingTool> = failing
        .iter()
        .map(|(tool, (calls, errors))| {
            let mut list = causes.remove(tool).unwrap_or_default();
            list.sort_by(|a, b| {
                b.errors
                    .cmp(&a.errors)
                    .then_with(|| a.status.cmp(&b.status))
                    .then_with(|| a.reason.cmp(&b.reason))
            });
            let (previous_calls, previous_errors) = before.get(tool).copied().unwrap_or((0, 0));
            FailingTool {
                tool: tool.to_string(),
                calls: *calls,
                errors: *errors,
                previous_calls,
                previous_errors,
                last_seen: list.iter().filter_map(|c| c.last_seen).max(),
                causes: list,
                samples: Vec::new(),
                samples_note: None,
            }
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.errors
            .cmp(&a.errors)
            .then_with(|| {
                let (ra, rb) = (a.error_rate().unwrap_or(0.0), b.error_rate().unwrap_or(0.0));
                rb.total_cmp(&ra)
            })
            .then_with(|| a.tool.cmp(&b.tool))
    });

    let mut newly_failing: Vec<NewlyFailing> = ranked
        .iter()
        .filter(|t| t.is_new())
        .map(|t| NewlyFailing {
            tool: t.tool.clone(),
            errors: t.errors,
            called_before: t.previous_calls > 0,
        })
        .collect();
    newly_failing.sort_by(|a, b| b.errors.cmp(&a.errors).then_with(|| a.tool.cmp(&b.tool)));

    let recovered = before
        .iter()
        .filter(|(tool, (_, errors))| {
            *errors > 0 && now.get(*tool).is_some_and(|(c, e)| *c > 0 && *e == 0)
        })
        .map(|(tool, _)| tool.to_string())
        .collect();

    let mut totals = week_totals(&this_week.totals);
    totals.errors = totals.errors.max(ranked.iter().map(|t| t.errors).sum());
    totals.calls = totals.calls.max(totals.errors);
    totals.tools_failing = ranked.len();

    let others = ranked.split_off(ranked.len().min(TOP_TOOLS));
    let chart = chart(&period, &ranked, &this_week.per_day);
    Digest {
        period,
        totals,
        previous_totals: week_totals(&previous_totals),
        other_failing: (others.len(), others.iter().map(|t| t.errors).sum()),
        top: ranked,
        newly_failing,
        recovered,
        chart,
        limits_hit: limits_hit(&this_week.limits),
        latency: tool_latency(&this_week.latency, &previous_latency),
        missing: missing_capabilities(&this_week.missing),
        writes: writes(&this_week.writes),
        spend: spend(&this_week.spend),
        connectors: connector_failures(&this_week.totals, &previous_totals),
        dashboard_url,
        trace_region,
        truncated_by_row_cap,
        unreadable_rows,
    }
}

/// `(calls, errors)` per tool, adding up duplicate rows (one per log group batch).
fn week_totals(rows: &[TotalRow]) -> Totals {
    let by_tool = per_tool(rows);
    Totals {
        calls: by_tool.values().map(|t| t.0).sum(),
        errors: by_tool.values().map(|t| t.1).sum(),
        tools_called: by_tool.values().filter(|t| t.0 > 0).count(),
        tools_failing: by_tool.values().filter(|t| t.1 > 0).count(),
    }
}

fn per_tool(rows: &[TotalRow]) -> BTreeMap<&str, (u64, u64)> {
    let mut map: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for r in rows {
        let entry = map.entry(&r.tool).or_default();
        entry.0 += r.calls;
        entry.1 += r.errors;
    }
    map
}

fn chart(period: &Period, top: &[FailingTool], per_day: &[DayRow]) -> Chart {
    let days = period.days();
    let series = top
        .iter()
        .map(|t| {
            let counts = days
                .iter()
                .map(|d| {
                    per_day
                        .iter()
                        .filter(|r| r.tool == t.tool && r.day == *d)
                        .map(|r| r.errors)
                        .sum()
                })
                .collect();
            (t.tool.clone(), counts)
        })
        .collect();
    Chart { days, series }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::{SAMPLES_PER_TOOL, State, TOP_TOOLS, ThisWeek, Trend};
    use crate::rows::{FailureRow, Sample};
    use jiff::civil::Date;

    fn total(tool: &str, calls: u64, errors: u64) -> TotalRow {
        TotalRow {
            connector: Some("papierkram".into()),
            tool: tool.into(),
            calls,
            errors,
        }
    }

    fn failure(tool: &str, status: &str, reason: &str, errors: u64, last: &str) -> FailureRow {
        FailureRow {
            tool: tool.into(),
            status: status.into(),
            reason: Some(reason.into()),
            errors,
            last_seen: Some(last.parse().unwrap()),
        }
    }

    fn input(this: ThisWeek, previous: Vec<TotalRow>) -> Input {
        Input {
            period: Period::week_before("2026-11-30T06:00:00Z".parse().unwrap()),
            this_week: this,
            previous_totals: previous,
            previous_latency: vec![],
            dashboard_url: None,
            trace_region: None,
            truncated_by_row_cap: false,
            unreadable_rows: 0,
        }
    }

    #[test]
    fn digest_ranks_tools_by_error_count_then_rate_then_name() {
        let this = ThisWeek {
            totals: vec![
                total("a", 100, 5),
                total("b", 10, 5),
                total("c", 50, 9),
                total("d", 10, 0),
                total("e", 10, 5),
            ],
            ..ThisWeek::default()
        };
        let d = build(input(this, vec![]));
        let order: Vec<&str> = d.top.iter().map(|t| t.tool.as_str()).collect();
        assert_eq!(order, ["c", "b", "e", "a"]);
        assert_eq!(d.totals.calls, 180);
        assert_eq!(d.totals.errors, 24);
        assert_eq!(d.totals.tools_failing, 4);
        assert_eq!(d.totals.tools_called, 5);
    }

    #[test]
    fn only_five_tools_are_detailed_and_the_rest_summed() {
        let totals = (0..8)
            .map(|i| total(&format!("t{i}"), 20, 10 - i))
            .collect();
        let this = ThisWeek {
            totals,
            ..ThisWeek::default()
        };
        let d = build(input(this, vec![]));
        assert_eq!(d.top.len(), TOP_TOOLS);
        assert_eq!(d.other_failing, (3, 3 + 4 + 5));
    }

    #[test]
    fn causes_are_sorted_and_last_seen_is_the_latest() {
        let this = ThisWeek {
            totals: vec![total("a", 20, 6)],
            failures: vec![
                failure("a", "upstream_error", "timeout", 2, "2026-11-28T10:00:00Z"),
                failure(
                    "a",
                    "invalid_input",
                    "invalid_argument",
                    4,
                    "2026-11-25T10:00:00Z",
                ),
            ],
            ..ThisWeek::default()
        };
        let d = build(input(this, vec![]));
        let a = &d.top[0];
        assert_eq!(a.causes[0].status, "invalid_input");
        assert_eq!(a.causes[1].errors, 2);
        assert_eq!(a.last_seen, Some("2026-11-28T10:00:00Z".parse().unwrap()));
    }

    #[test]
    fn trend_and_newly_failing_compare_with_the_week_before() {
        let this = ThisWeek {
            totals: vec![
                total("a", 20, 6),
                total("b", 20, 2),
                total("c", 5, 1),
                total("d", 9, 0),
            ],
            ..ThisWeek::default()
        };
        let previous = vec![
            total("a", 20, 3),
            total("b", 20, 8),
            total("c", 5, 0),
            total("d", 9, 4),
        ];
        let d = build(input(this, previous));
        let trend = |name: &str| d.top.iter().find(|t| t.tool == name).unwrap().trend();
        assert_eq!(trend("a"), Trend::Up(3));
        assert_eq!(trend("b"), Trend::Down(6));
        assert_eq!(trend("c"), Trend::New);
        assert_eq!(
            d.newly_failing,
            [NewlyFailing {
                tool: "c".into(),
                errors: 1,
                called_before: true
            }]
        );
        assert_eq!(d.recovered, ["d"]);
        assert_eq!(d.subject(), "3 tools failing, 1 new — week 48");
    }

    #[test]
    fn clean_week_is_all_clear_and_sent_unless_turned_off() {
        let this = ThisWeek {
            totals: vec![total("a", 20, 0)],
            ..ThisWeek::default()
        };
        let d = build(input(this, vec![]));
        assert_eq!(d.state(), State::AllClear);
        assert_eq!(d.subject(), "All clear — week 48");
        assert!(d.should_send(true));
        assert!(!d.should_send(false));
    }

    #[test]
    fn a_week_without_calls_is_always_sent() {
        let d = build(input(ThisWeek::default(), vec![total("a", 3, 0)]));
        assert_eq!(d.state(), State::NoCalls);
        assert_eq!(d.subject(), "No tool calls — week 48");
        assert!(d.should_send(false));
        assert_eq!(d.error_rate(), None);
    }

    #[test]
    fn one_failing_tool_is_singular_and_none_new_is_said() {
        let this = ThisWeek {
            totals: vec![total("a", 20, 2)],
            ..ThisWeek::default()
        };
        let d = build(input(this, vec![total("a", 20, 1)]));
        assert_eq!(d.subject(), "1 tool failing, none new — week 48");
    }

    #[test]
    fn failure_rows_without_totals_still_count() {
        let this = ThisWeek {
            failures: vec![failure("x", "internal", "panic", 3, "2026-11-24T00:00:00Z")],
            ..ThisWeek::default()
        };
        let d = build(input(this, vec![]));
        assert_eq!(d.totals.errors, 3);
        assert_eq!(d.top[0].calls, 3);
        assert_eq!(d.state(), State::Failing);
    }

    #[test]
    fn chart_has_one_series_per_top_tool_over_the_seven_days() {
        let day = |s: &str| s.parse::<Date>().unwrap();
        let this = ThisWeek {
            totals: vec![total("a", 20, 5), total("b", 20, 1)],
            failures: vec![],
            per_day: vec![
                DayRow {
                    day: day("2026-11-23"),
                    tool: "a".into(),
                    errors: 4,
                },
                DayRow {
                    day: day("2026-11-29"),
                    tool: "a".into(),
                    errors: 1,
                },
                DayRow {
                    day: day("2026-11-29"),
                    tool: "b".into(),
                    errors: 1,
                },
                DayRow {
                    day: day("2026-11-22"),
                    tool: "a".into(),
                    errors: 9,
                },
            ],
            ..ThisWeek::default()
        };
        let d = build(input(this, vec![]));
        assert_eq!(d.chart.days.len(), 7);
        assert_eq!(
            d.chart.series[0],
            ("a".to_string(), vec![4, 0, 0, 0, 0, 0, 1])
        );
        assert_eq!(d.chart.series[1].1, vec![0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(d.chart.max_day_total(), 4);
    }

    #[test]
    fn samples_are_capped_per_tool() {
        let this = ThisWeek {
            totals: vec![total("a", 20, 5)],
            ..ThisWeek::default()
        };
        let mut d = build(input(this, vec![]));
        let sample = Sample {
            request_id: Some("r".into()),
            trace_id: None,
            time: None,
            status: "s".into(),
            reason: None,
            arg_keys: vec![],
            more_arg_keys: false,
        };
        d.set_samples("a", vec![sample; 5]);
        assert_eq!(d.top[0].samples.len(), SAMPLES_PER_TOOL);
    }
}
