//! One run over all connectors: which time ranges to query, then the decisions from the rows.
//!
//! Connectors whose windows start at the same instant share a query; the Lambda and the local
//! run both call [`ranges`], fetch rows per range their own way, then [`evaluate`].

use insights::TimeRange;
use jiff::Timestamp;

use crate::assess::{Assessment, assess};
use crate::policy::Policy;
use crate::usage::{UsageRow, summarize};

/// Every connector of the catalogs, with its quota policy if it declares one.
pub type Connectors = [(String, Option<Policy>)];

/// The distinct ranges to query at `now`, each a window start up to now, earliest start first.
pub fn ranges(connectors: &Connectors, now: Timestamp) -> Vec<TimeRange> {
    let mut out: Vec<TimeRange> = connectors
        .iter()
        .filter_map(|(_, p)| p.as_ref().filter(|p| p.measurable))
        .filter_map(|p| p.bounds(now))
        .map(|b| TimeRange {
            start: b.start,
            end: now,
        })
        .collect();
    out.sort_by_key(|r| (r.start, r.end));
    out.dedup();
    out
}

/// The decision for every connector, from the rows each range's query returned.
pub fn evaluate(
    connectors: &Connectors,
    now: Timestamp,
    results: &[(TimeRange, Vec<UsageRow>)],
) -> Vec<Assessment> {
    connectors
        .iter()
        .map(|(name, policy)| match policy {
            None => Assessment::undeclared(name),
            Some(p) => {
                let usage = p
                    .bounds(now)
                    .map(|b| {
                        let rows: Vec<UsageRow> = results
                            .iter()
                            .filter(|(r, _)| r.start == b.start)
                            .flat_map(|(_, rows)| rows.iter().cloned())
                            .collect();
                        summarize(name, &rows, &b, now)
                    })
                    .unwrap_or_default();
                assess(p, now, &usage)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assess::State;
    use crate::usage::tests::{row, ts};
    use crate::window::{Window, Zone};

    fn connectors() -> Vec<(String, Option<Policy>)> {
        let month = Policy {
            connector: "papierkram".into(),
            window: Some(Window::CalendarMonth(Zone::new("Europe/Berlin").unwrap())),
            limit: Some(10_000),
            warn_percent: 80,
            critical_percent: 95,
            measurable: true,
            balance: false,
        };
        let day = Policy {
            connector: "daily".into(),
            window: Some(Window::Day(Zone::new("Europe/Berlin").unwrap())),
            limit: Some(100),
            ..month.clone()
        };
        let same_month = Policy {
            connector: "other".into(),
            ..month.clone()
        };
        vec![
            ("papierkram".into(), Some(month)),
            ("daily".into(), Some(day)),
            ("other".into(), Some(same_month)),
            ("plain".into(), None),
        ]
    }

    #[test]
    fn connectors_sharing_a_window_start_share_a_query() {
        let now = ts("2026-05-10T12:00:00Z");
        let r = ranges(&connectors(), now);
        let starts: Vec<Timestamp> = r.iter().map(|r| r.start).collect();
        assert_eq!(
            starts,
            [ts("2026-04-30T22:00:00Z"), ts("2026-05-09T22:00:00Z")]
        );
        assert!(r.iter().all(|r| r.end == now));
    }

    #[test]
    fn each_connector_reads_only_its_own_window_rows() {
        let now = ts("2026-05-10T12:00:00Z");
        let r = ranges(&connectors(), now);
        let mut daily_row = row("daily_get", 40, Some(60), "2026-05-10T11:00:00Z");
        daily_row.connector = "daily".into();
        daily_row.limit = Some(100);
        // The month query also saw yesterday's daily calls; the day query did not.
        let mut daily_in_month = daily_row.clone();
        daily_in_month.calls = 90;
        let results = vec![
            (
                r[0],
                vec![
                    row(
                        "papierkram_invoices_list",
                        10,
                        Some(9_000),
                        "2026-05-10T11:00:00Z",
                    ),
                    daily_in_month,
                ],
            ),
            (r[1], vec![daily_row]),
        ];
        let out = evaluate(&connectors(), now, &results);
        let by_name = |n: &str| out.iter().find(|a| a.connector == n).unwrap();
        assert_eq!(by_name("papierkram").utilization_percent, Some(10.0));
        assert_eq!(by_name("daily").used, Some(40));
        assert_eq!(by_name("daily").top_tools[0].calls, 40);
        assert_eq!(by_name("other").state, State::Unknown);
        assert_eq!(by_name("plain").state, State::NotApplicable);
    }
}
