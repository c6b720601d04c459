//! The `stats` command: grouping and aggregation.
//!
//! Function semantics follow the query-syntax guide's "Stats aggregation functions" and
//! "non-aggregation functions" tables
//! (<https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CWL_QuerySyntax-operations-functions.html>):
//! `count(*)` "counts all events returned by the query, while count(fieldName) counts all
//! records that include the specified field name"; `count_distinct` "returns the number of unique
//! values" (exact here, approximate in AWS for high cardinality); `sum`/`avg` over the numeric
//! values; `min`/`max` by the `sort` order; `latest`/`earliest` "the value of fieldName from the
//! log event that has the latest [earliest] timestamp" — among events where it is present;
//! `pct(x, p)` the nearest-rank percentile, the smallest value with at least p% of values at or
//! below it (AWS computes an approximation).
//!
//! Column names are the alias, else the text as written: the guide's `stats count(*) as
//! exceptionCount by bin(1h)` names its columns `exceptionCount` and `bin(1h)`. Group columns
//! come first, then aggregates. A row missing a `by` field is grouped under a missing value.
//! Without a following `sort`, groups come out in ascending order of their keys, so `bin()`
//! buckets are chronological. No input rows give no output rows.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;

use crate::ast::{AggFunc, GroupKey, Stats};
use crate::eval::eval;
use crate::event::Record;
use crate::timebin::floor;
use crate::value::{Value, sort_cmp};

enum Acc {
    Count(u64),
    Distinct(HashSet<String>),
    Sum(Option<f64>),
    Avg(f64, u64),
    Extreme {
        best: Option<Value>,
        max: bool,
    },
    /// `(event time, input position, value)` of the chosen event.
    Pick {
        best: Option<(Option<Timestamp>, usize, Value)>,
        latest: bool,
    },
    Pct(Vec<f64>, f64),
}

impl Acc {
    fn new(func: AggFunc) -> Acc {
        match func {
            AggFunc::Count => Acc::Count(0),
            AggFunc::CountDistinct => Acc::Distinct(HashSet::new()),
            AggFunc::Sum => Acc::Sum(None),
            AggFunc::Avg => Acc::Avg(0.0, 0),
            AggFunc::Min => Acc::Extreme {
                best: None,
                max: false,
            },
            AggFunc::Max => Acc::Extreme {
                best: None,
                max: true,
            },
            AggFunc::Latest => Acc::Pick {
                best: None,
                latest: true,
            },
            AggFunc::Earliest => Acc::Pick {
                best: None,
                latest: false,
            },
            AggFunc::Pct(p) => Acc::Pct(Vec::new(), p),
        }
    }

    /// Adds one row's value; `position` orders rows with equal timestamps.
    fn add(&mut self, v: Value, ts: Option<Timestamp>, position: usize) {
        if v.is_null() {
            return;
        }
        match self {
            Acc::Count(n) => *n += 1,
            Acc::Distinct(seen) => {
                seen.insert(v.render());
            }
            Acc::Sum(sum) => {
                if let Some(x) = v.as_number() {
                    *sum = Some(sum.unwrap_or(0.0) + x);
                }
            }
            Acc::Avg(sum, n) => {
                if let Some(x) = v.as_number() {
                    *sum += x;
                    *n += 1;
                }
            }
            Acc::Extreme { best, max } => {
                let better = best.as_ref().is_none_or(|b| {
                    let o = sort_cmp(&v, b);
                    if *max { o.is_gt() } else { o.is_lt() }
                });
                if better {
                    *best = Some(v);
                }
            }
            Acc::Pick { best, latest } => {
                let better = best.as_ref().is_none_or(|(bt, bp, _)| {
                    let o = (ts, position).cmp(&(*bt, *bp));
                    if *latest { o.is_gt() } else { o.is_lt() }
                });
                if better {
                    *best = Some((ts, position, v));
                }
            }
            Acc::Pct(values, _) => {
                if let Some(x) = v.as_number() {
                    values.push(x);
                }
            }
        }
    }

    fn finish(self) -> Value {
        match self {
            Acc::Count(n) => Value::Num(n as f64),
            Acc::Distinct(seen) => Value::Num(seen.len() as f64),
            Acc::Sum(sum) => sum.map_or(Value::Null, Value::Num),
            Acc::Avg(_, 0) => Value::Null,
            Acc::Avg(sum, n) => Value::Num(sum / n as f64),
            Acc::Extreme { best, .. } => best.unwrap_or(Value::Null),
            Acc::Pick { best, .. } => best.map_or(Value::Null, |(_, _, v)| v),
            Acc::Pct(mut values, p) => {
                if values.is_empty() {
                    return Value::Null;
                }
                values.sort_by(f64::total_cmp);
                let rank = (p / 100.0 * values.len() as f64).ceil() as usize;
                Value::Num(values[rank.clamp(1, values.len()) - 1])
            }
        }
    }
}

struct Group {
    key: Vec<Value>,
    accs: Vec<Acc>,
}

pub(crate) fn run(stats: &Stats, rows: Vec<Record>) -> Vec<Record> {
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<Vec<Option<String>>, usize> = HashMap::new();
    for (position, row) in rows.iter().enumerate() {
        let key: Vec<Value> = stats
            .groups
            .iter()
            .map(|g| match &g.key {
                GroupKey::Field(name) => row.get(name).clone(),
                GroupKey::Bin(period) => row
                    .ts
                    .map_or(Value::Null, |t| Value::Time(floor(t, *period))),
            })
            .collect();
        let lookup: Vec<Option<String>> = key
            .iter()
            .map(|v| (!v.is_null()).then(|| v.render()))
            .collect();
        let slot = *index.entry(lookup).or_insert_with(|| {
            groups.push(Group {
                key,
                accs: stats.aggs.iter().map(|a| Acc::new(a.func)).collect(),
            });
            groups.len() - 1
        });
        for (acc, agg) in groups[slot].accs.iter_mut().zip(&stats.aggs) {
            // count(*) counts every row; the marker is any present value.
            let v = agg.arg.as_ref().map_or(Value::Bool(true), |e| eval(e, row));
            acc.add(v, row.ts, position);
        }
    }
    groups.sort_by(|a, b| {
        a.key
            .iter()
            .zip(&b.key)
            .map(|(x, y)| sort_cmp(x, y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    groups
        .into_iter()
        .map(|g| {
            let mut out = Record::default();
            for (group, value) in stats.groups.iter().zip(g.key) {
                out.set(&group.name, value);
            }
            for (agg, acc) in stats.aggs.iter().zip(g.accs) {
                out.set(&agg.name, acc.finish());
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::testutil::{column, events, results};

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn calls() -> Vec<crate::Event> {
        events(&[
            (
                "2024-05-01T12:00:00Z",
                r#"{"tool":"a","status":"ok","duration_ms":10,"user":"u1"}"#,
            ),
            (
                "2024-05-01T12:04:00Z",
                r#"{"tool":"a","status":"invalid_input","duration_ms":30,"user":"u2"}"#,
            ),
            (
                "2024-05-01T12:07:00Z",
                r#"{"tool":"b","status":"ok","duration_ms":"20","user":"u1"}"#,
            ),
            (
                "2024-05-01T12:09:00Z",
                r#"{"tool":"a","duration_ms":"slow","user":"u1"}"#,
            ),
        ])
    }

    #[test]
    fn count_star_counts_rows_and_count_field_counts_rows_with_the_field() {
        // Functions table: "count() (or count(*)) counts all events returned by the query, while
        // count(fieldName) counts all records that include the specified field name".
        assert_eq!(
            results("stats count(*), count(), count(status)", &calls()),
            vec![pairs(&[
                ("count(*)", "4"),
                ("count()", "4"),
                ("count(status)", "3")
            ])]
        );
    }

    #[test]
    fn count_distinct_counts_unique_values() {
        // "Returns the number of unique values for the field."
        assert_eq!(
            column("stats count_distinct(user) as users", &calls(), "users"),
            ["2"]
        );
    }

    #[test]
    fn sum_avg_min_max_use_the_numeric_values() {
        // "The sum [average] of the values in the specified field"; min/max "of the values for
        // this log field". The non-numeric "slow" is not a number and is skipped by sum/avg.
        let got = results(
            "stats sum(duration_ms) as s, avg(duration_ms) as a, min(duration_ms) as lo, max(duration_ms) as hi",
            &calls(),
        );
        assert_eq!(
            got,
            vec![pairs(&[
                ("s", "60"),
                ("a", "20"),
                ("lo", "slow"),
                ("hi", "30")
            ])]
        );
        // With only numbers, min is the smallest number.
        let q = "filter duration_ms != \"slow\" | stats min(duration_ms) as lo";
        assert_eq!(column(q, &calls(), "lo"), ["10"]);
    }

    #[test]
    fn latest_and_earliest_follow_the_event_time() {
        // "Returns the value of fieldName from the log event that has the latest [earliest]
        // timestamp in the queried logs." Events are given out of order on purpose.
        let mut ev = calls();
        ev.reverse();
        let got = results(
            "stats latest(status) as last, earliest(status) as first, latest(@timestamp) as seen",
            &ev,
        );
        assert_eq!(
            got,
            vec![pairs(&[
                ("last", "ok"),
                ("first", "ok"),
                ("seen", "2024-05-01 12:09:00.000")
            ])]
        );
        // Among the events that have the field: the latest event has no status.
        assert_eq!(
            column(
                "filter tool = \"a\" | stats latest(status) as s",
                &calls(),
                "s"
            ),
            ["invalid_input"]
        );
    }

    #[test]
    fn pct_is_the_nearest_rank_percentile() {
        // "pct(@duration, 95) returns the @duration value at which 95 percent of the values ...
        // are lower than this value".
        let body: Vec<String> = (1..=20).map(|i| format!(r#"{{"d":{i}}}"#)).collect();
        let items: Vec<(&str, &str)> = body
            .iter()
            .map(|b| ("2024-05-01T12:00:00Z", b.as_str()))
            .collect();
        let got = results(
            "stats pct(d, 95), pct(d, 50), pct(d, 100), pct(d, 0)",
            &events(&items),
        );
        assert_eq!(
            got,
            vec![pairs(&[
                ("pct(d, 95)", "19"),
                ("pct(d, 50)", "10"),
                ("pct(d, 100)", "20"),
                ("pct(d, 0)", "1")
            ])]
        );
    }

    #[test]
    fn by_groups_rows_and_puts_group_columns_first() {
        // "stats avg (f1) by f2 calculates the average value of f1 for each unique value of f2";
        // a row without the by-field forms its own group, listed first.
        let got = results(
            "stats count(*) as n, avg(duration_ms) by tool, status",
            &calls(),
        );
        assert_eq!(
            got,
            vec![
                pairs(&[("tool", "a"), ("n", "1")]),
                pairs(&[
                    ("tool", "a"),
                    ("status", "invalid_input"),
                    ("n", "1"),
                    ("avg(duration_ms)", "30")
                ]),
                pairs(&[
                    ("tool", "a"),
                    ("status", "ok"),
                    ("n", "1"),
                    ("avg(duration_ms)", "10")
                ]),
                pairs(&[
                    ("tool", "b"),
                    ("status", "ok"),
                    ("n", "1"),
                    ("avg(duration_ms)", "20")
                ]),
            ]
        );
    }

    #[test]
    fn bin_groups_by_time_bucket_in_time_order() {
        // Stats guide: `stats avg(myfield1) by bin(5m)` makes "a data point created every five
        // minutes"; the query-syntax guide names the group column `bin(1h)` for `by bin(1h)`.
        let got = results("stats count(*) by bin(5m)", &calls());
        assert_eq!(
            got,
            vec![
                pairs(&[("bin(5m)", "2024-05-01 12:00:00.000"), ("count(*)", "2")]),
                pairs(&[("bin(5m)", "2024-05-01 12:05:00.000"), ("count(*)", "2")]),
            ]
        );
    }

    #[test]
    fn aliases_can_be_sorted_on() {
        // Query-syntax guide: `stats avg(f1) as myAvgF1 | sort myAvgF1 desc`.
        let q = "stats avg(duration_ms) as myAvg by tool | sort myAvg desc";
        assert_eq!(column(q, &calls(), "tool"), ["a", "b"]);
        let q = "stats count(*) by tool | sort count(*) asc";
        assert_eq!(column(q, &calls(), "tool"), ["b", "a"]);
    }

    #[test]
    fn sum_of_a_comparison_counts_matching_rows() {
        // Comparisons are 1/0 values, so this counts calls whose status is not "ok" (a missing
        // status counts as not "ok").
        let q = r#"stats count(*) as calls, sum(status != "ok") as errors by tool"#;
        assert_eq!(
            results(q, &calls()),
            vec![
                pairs(&[("tool", "a"), ("calls", "3"), ("errors", "2")]),
                pairs(&[("tool", "b"), ("calls", "1"), ("errors", "0")])
            ]
        );
    }

    #[test]
    fn no_rows_in_means_no_rows_out() {
        assert!(results("filter tool = \"zzz\" | stats count(*)", &calls()).is_empty());
        // An aggregate with no values is missing, so it is left out of the result.
        assert_eq!(
            results("stats count(*) as n, sum(nope) as s", &calls()),
            vec![pairs(&[("n", "4")])]
        );
    }
}
