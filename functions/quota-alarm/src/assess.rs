//! The decision per connector: utilisation, burn rate, forecast and state, from plain data.
//!
//! Rules (all figures for the current window only):
//! - used = limit − latest remaining when a remaining figure was seen in the window, else the
//!   sum of the per-call costs reported in the window; neither → `unknown`, never 0 %.
//! - limit = the catalog's, else the latest reported one; none → `unknown`.
//! - burn rate per day = used / days elapsed since the window start (the whole length for a
//!   rolling window). No rate and no forecast until [`min_forecast_span`] has elapsed: a burst
//!   in the first hour of a month extrapolates to nonsense.
//! - days left = remaining / burn rate, capped at [`DAYS_LEFT_CAP`] (nothing burnt yet);
//!   exhaustion before the window's end is a warning even below the threshold.
//! - critical at or above the critical threshold or with nothing left; warn at or above the
//!   warning threshold or with a forecast exhaustion before the window ends; else ok.
//! - a balance (`quota.balance`: prepaid credits) is compared with the limit like any remaining
//!   figure, but gets no burn rate or forecast: it did not start the window full, and no
//!   window's end refills it.
//! - `n/a` when the catalog declares no quota header or body figure: nothing to measure.
//!
//! The thresholds, limit and window come from [`Policy`].

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use crate::policy::Policy;
use crate::usage::{ToolUsage, Usage};
use crate::window::{Bounds, Window};

/// Days left reported when nothing has been consumed yet (a metric cannot be infinite).
pub const DAYS_LEFT_CAP: f64 = 366.0;
/// Tools listed as the largest consumers.
pub const TOP_TOOLS: usize = 5;
const DAY_SECS: f64 = 86_400.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum State {
    #[serde(rename = "ok")]
    Ok,
    #[serde(rename = "warn")]
    Warn,
    #[serde(rename = "critical")]
    Critical,
    #[serde(rename = "unknown")]
    Unknown,
    #[serde(rename = "n/a")]
    NotApplicable,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Ok => "ok",
            State::Warn => "warn",
            State::Critical => "critical",
            State::Unknown => "unknown",
            State::NotApplicable => "n/a",
        }
    }
}

/// Where `used` came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UsedFrom {
    Remaining,
    ConsumedSum,
}

/// The outcome for one connector. `None` means unknown, never zero.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    pub connector: String,
    pub state: State,
    pub reason: String,
    pub window: Option<Window>,
    pub bounds: Option<Bounds>,
    pub limit: Option<i64>,
    pub used: Option<i64>,
    pub used_from: Option<UsedFrom>,
    pub remaining: Option<i64>,
    pub utilization_percent: Option<f64>,
    pub burn_per_day: Option<f64>,
    pub days_left: Option<f64>,
    /// Projected exhaustion; `None` when unknown or beyond [`DAYS_LEFT_CAP`].
    pub exhausts_at: Option<Timestamp>,
    pub exhausted_before_window_end: Option<bool>,
    pub last_seen: Option<Timestamp>,
    /// Audited calls with quota figures in the window, and the sum of their reported costs:
    /// against `used`, how much of the quota this platform spent.
    pub calls: u64,
    pub reported_cost: Option<i64>,
    pub top_tools: Vec<ToolUsage>,
}

/// The shortest stretch of a window a burn rate is extrapolated from: a tenth of the window,
/// at most a day.
pub fn min_forecast_span(bounds: &Bounds) -> SignedDuration {
    (bounds.length() / 10).min(SignedDuration::from_hours(24))
}

impl Assessment {
    fn blank(connector: &str) -> Self {
        Assessment {
            connector: connector.to_string(),
            state: State::Unknown,
            reason: String::new(),
            window: None,
            bounds: None,
            limit: None,
            used: None,
            used_from: None,
            remaining: None,
            utilization_percent: None,
            burn_per_day: None,
            days_left: None,
            exhausts_at: None,
            exhausted_before_window_end: None,
            last_seen: None,
            calls: 0,
            reported_cost: None,
            top_tools: Vec::new(),
        }
    }

    /// A connector whose catalog declares no quota.
    pub fn undeclared(connector: &str) -> Self {
        Assessment {
            state: State::NotApplicable,
            reason: "no quota declared in the catalog".into(),
            ..Assessment::blank(connector)
        }
    }
}

/// Decides one connector at `now` from its summarized usage in the current window.
pub fn assess(policy: &Policy, now: Timestamp, usage: &Usage) -> Assessment {
    let bounds = policy.bounds(now);
    let mut a = Assessment {
        window: policy.window.clone(),
        bounds,
        limit: policy.limit.or(usage.limit),
        last_seen: usage.last_seen,
        calls: usage.calls,
        reported_cost: usage.consumed,
        top_tools: usage.tools.iter().take(TOP_TOOLS).cloned().collect(),
        ..Assessment::blank(&policy.connector)
    };
    if !policy.measurable {
        a.state = State::NotApplicable;
        a.reason =
            "the catalog names no quota header (remaining or consumed, nor a header family) and no body figure: nothing to measure".into();
        return a;
    }
    let (Some(window), Some(bounds)) = (&policy.window, bounds) else {
        a.reason = "the catalog declares no quota window".into();
        return a;
    };
    let show = |t: Timestamp| t.to_zoned(window.time_zone()).strftime("%Y-%m-%d %H:%M %Z");
    let Some(limit) = a.limit else {
        a.reason = "no limit: the catalog declares none and no call reported one".into();
        return a;
    };
    let (used, from) = match (usage.remaining, usage.consumed) {
        (Some((remaining, _)), _) => ((limit - remaining).max(0), UsedFrom::Remaining),
        (None, Some(consumed)) => (consumed.max(0), UsedFrom::ConsumedSum),
        (None, None) => {
            a.reason = format!(
                "no quota figures since the window started at {}: no traffic, and no probe yet",
                show(bounds.start)
            );
            return a;
        }
    };
    let remaining = (limit - used).max(0);
    let utilization = used as f64 / limit as f64 * 100.0;
    (a.used, a.used_from, a.remaining) = (Some(used), Some(from), Some(remaining));
    a.utilization_percent = Some(utilization);

    let elapsed = now.duration_since(bounds.start);
    let elapsed_days = elapsed.as_secs_f64() / DAY_SECS;
    let can_forecast =
        !policy.balance && elapsed >= min_forecast_span(&bounds) && elapsed_days > 0.0;
    if can_forecast {
        a.burn_per_day = Some(used as f64 / elapsed_days);
    }
    if policy.balance {
        // Nothing to forecast: `used` is not what went since the window started full.
    } else if remaining == 0 {
        a.days_left = Some(0.0);
        a.exhausts_at = Some(now);
        a.exhausted_before_window_end = Some(true);
    } else if let Some(burn) = a.burn_per_day {
        let days = if burn > 0.0 {
            (remaining as f64 / burn).min(DAYS_LEFT_CAP)
        } else {
            DAYS_LEFT_CAP
        };
        a.days_left = Some(days);
        if days < DAYS_LEFT_CAP {
            let at = now.checked_add(SignedDuration::from_secs_f64(days * DAY_SECS));
            a.exhausts_at = at.ok();
        }
        a.exhausted_before_window_end = Some(a.exhausts_at.is_some_and(|t| t < bounds.end));
    }

    let figures = format!("{utilization:.1} % used ({used} of {limit})");
    let forecast = match (a.burn_per_day, a.exhausts_at) {
        _ if policy.balance && remaining == 0 => "used up until a purchase refills it".into(),
        _ if policy.balance => {
            "a balance, refilled by purchase and not by the window's reset: no forecast".into()
        }
        _ if remaining == 0 => format!("used up until {}", show(bounds.end)),
        _ if !can_forecast => "too early in the window to forecast".to_string(),
        (Some(burn), Some(at)) if at < bounds.end => format!(
            "at {burn:.1}/day it runs out {}, before the reset at {}",
            show(at),
            show(bounds.end)
        ),
        (burn, _) => format!(
            "at {:.1}/day it lasts past {}",
            burn.unwrap_or(0.0),
            show(bounds.end)
        ),
    };
    (a.state, a.reason) = if remaining == 0 || utilization >= f64::from(policy.critical_percent) {
        (
            State::Critical,
            format!(
                "{figures}, at or above the critical {} %; {forecast}",
                policy.critical_percent
            ),
        )
    } else if utilization >= f64::from(policy.warn_percent) {
        (
            State::Warn,
            format!(
                "{figures}, at or above the warning {} %; {forecast}",
                policy.warn_percent
            ),
        )
    } else if a.exhausted_before_window_end == Some(true) {
        (State::Warn, format!("{figures}, but {forecast}"))
    } else {
        (State::Ok, format!("{figures}; {forecast}"))
    };
    if from == UsedFrom::ConsumedSum {
        a.reason
            .push_str(" (from the summed per-call costs: no remaining figure was reported)");
    }
    if let Some(seen) = usage.last_seen
        && now.duration_since(seen) > SignedDuration::from_hours(1)
    {
        a.reason.push_str(&format!(
            "; latest figure from {}, no traffic since",
            show(seen)
        ));
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::tests::ts;
    use crate::window::Zone;

    fn policy(window: Window) -> Policy {
        Policy {
            connector: "papierkram".into(),
            window: Some(window),
            limit: Some(10_000),
            warn_percent: 80,
            critical_percent: 95,
            measurable: true,
            balance: false,
        }
    }

    fn berlin_month() -> Policy {
        policy(Window::CalendarMonth(Zone::new("Europe/Berlin").unwrap()))
    }

    fn seen(remaining: Option<i64>, consumed: Option<i64>, at: &str) -> Usage {
        Usage {
            remaining: remaining.map(|r| (r, ts(at))),
            limit: Some(10_000),
            consumed,
            calls: 1,
            last_seen: Some(ts(at)),
            tools: Vec::new(),
        }
    }

    struct Case {
        name: &'static str,
        policy: Policy,
        now: &'static str,
        usage: Usage,
        state: State,
        utilization: Option<f64>,
        burn: Option<f64>,
        days_left: Option<f64>,
        exhausts_at: Option<&'static str>,
    }

    fn close(a: Option<f64>, b: Option<f64>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() < 0.01,
            (None, None) => true,
            _ => false,
        }
    }

    #[test]
    fn utilisation_burn_rate_forecast_and_state_per_case() {
        let cases = [
            Case {
                // May 2026 in Berlin starts 2026-04-30T22:00Z; 10 days in, 2,000 used.
                name: "steady burn lasts past the reset",
                policy: berlin_month(),
                now: "2026-05-10T22:00:00Z",
                usage: seen(Some(8_000), None, "2026-05-10T21:59:00Z"),
                state: State::Ok,
                utilization: Some(20.0),
                burn: Some(200.0),
                days_left: Some(40.0),
                exhausts_at: Some("2026-06-19T22:00:00Z"),
            },
            Case {
                name: "below the threshold but forecast to run out before the reset",
                policy: berlin_month(),
                now: "2026-05-10T22:00:00Z",
                usage: seen(Some(5_000), None, "2026-05-10T21:59:00Z"),
                state: State::Warn,
                utilization: Some(50.0),
                burn: Some(500.0),
                days_left: Some(10.0),
                exhausts_at: Some("2026-05-20T22:00:00Z"),
            },
            Case {
                name: "at the warning threshold",
                policy: berlin_month(),
                now: "2026-05-28T22:00:00Z",
                usage: seen(Some(2_000), None, "2026-05-28T21:00:00Z"),
                state: State::Warn,
                utilization: Some(80.0),
                burn: Some(8_000.0 / 28.0),
                days_left: Some(7.0),
                exhausts_at: Some("2026-06-04T22:00:00Z"),
            },
            Case {
                name: "at the critical threshold",
                policy: berlin_month(),
                now: "2026-05-28T22:00:00Z",
                usage: seen(Some(500), None, "2026-05-28T21:00:00Z"),
                state: State::Critical,
                utilization: Some(95.0),
                burn: Some(9_500.0 / 28.0),
                days_left: Some(500.0 / (9_500.0 / 28.0)),
                exhausts_at: None,
            },
            Case {
                name: "used up",
                policy: berlin_month(),
                now: "2026-05-20T22:00:00Z",
                usage: seen(Some(0), None, "2026-05-20T21:00:00Z"),
                state: State::Critical,
                utilization: Some(100.0),
                burn: Some(500.0),
                days_left: Some(0.0),
                exhausts_at: Some("2026-05-20T22:00:00Z"),
            },
            Case {
                name: "no figures since the reset is unknown, not 0 %",
                policy: berlin_month(),
                now: "2026-05-01T06:00:00Z",
                usage: Usage::default(),
                state: State::Unknown,
                utilization: None,
                burn: None,
                days_left: None,
                exhausts_at: None,
            },
            Case {
                name: "first call after the reset: figures, but too early to forecast",
                policy: berlin_month(),
                now: "2026-05-01T06:00:00Z",
                usage: seen(Some(9_990), None, "2026-05-01T05:00:00Z"),
                state: State::Ok,
                utilization: Some(0.1),
                burn: None,
                days_left: None,
                exhausts_at: None,
            },
            Case {
                name: "only consumed figures: summed",
                policy: berlin_month(),
                now: "2026-05-10T22:00:00Z",
                usage: seen(None, Some(1_000), "2026-05-10T21:00:00Z"),
                state: State::Ok,
                utilization: Some(10.0),
                burn: Some(100.0),
                days_left: Some(90.0),
                exhausts_at: Some("2026-08-08T22:00:00Z"),
            },
            Case {
                name: "nothing burnt yet caps days left",
                policy: berlin_month(),
                now: "2026-05-10T22:00:00Z",
                usage: seen(Some(10_000), None, "2026-05-10T21:00:00Z"),
                state: State::Ok,
                utilization: Some(0.0),
                burn: Some(0.0),
                days_left: Some(DAYS_LEFT_CAP),
                exhausts_at: None,
            },
            Case {
                // The day of the spring switch has 23 hours; 12 of them elapsed at 13:00 CEST.
                name: "day window across the March switch",
                policy: Policy {
                    limit: Some(1_200),
                    ..policy(Window::Day(Zone::new("Europe/Berlin").unwrap()))
                },
                now: "2026-03-29T11:00:00Z",
                usage: seen(Some(900), None, "2026-03-29T10:59:00Z"),
                state: State::Ok,
                utilization: Some(25.0),
                burn: Some(600.0),
                days_left: Some(1.5),
                exhausts_at: Some("2026-03-30T23:00:00Z"),
            },
            Case {
                name: "rolling window",
                policy: Policy {
                    limit: Some(1_000),
                    ..policy(Window::RollingHours(24))
                },
                now: "2026-05-10T12:00:00Z",
                usage: seen(Some(600), None, "2026-05-10T11:59:00Z"),
                state: State::Ok,
                utilization: Some(40.0),
                burn: Some(400.0),
                days_left: Some(1.5),
                exhausts_at: Some("2026-05-12T00:00:00Z"),
            },
        ];
        for c in cases {
            let a = assess(&c.policy, ts(c.now), &c.usage);
            assert_eq!(a.state, c.state, "{}: {}", c.name, a.reason);
            assert!(
                close(a.utilization_percent, c.utilization),
                "{}: utilisation {:?}",
                c.name,
                a.utilization_percent
            );
            assert!(
                close(a.burn_per_day, c.burn),
                "{}: burn {:?}",
                c.name,
                a.burn_per_day
            );
            assert!(
                close(a.days_left, c.days_left),
                "{}: days left {:?}",
                c.name,
                a.days_left
            );
            if let Some(at) = c.exhausts_at {
                assert_eq!(a.exhausts_at, Some(ts(at)), "{}", c.name);
            }
            assert!(!a.reason.is_empty(), "{}", c.name);
        }
    }

    #[test]
    fn october_month_burn_rate_counts_the_extra_hour() {
        // October 2026 in Berlin: 745 hours. At the end of its last day 745 h have elapsed.
        let a = assess(
            &berlin_month(),
            ts("2026-10-31T22:59:00Z"),
            &seen(Some(10_000 - 745), None, "2026-10-31T22:58:00Z"),
        );
        let b = a.bounds.unwrap();
        assert_eq!(b.start, ts("2026-09-30T22:00:00Z"));
        assert_eq!(b.end, ts("2026-10-31T23:00:00Z"));
        let per_hour = a.burn_per_day.unwrap() / 24.0;
        assert!(
            (per_hour - 745.0 / (745.0 - 1.0 / 60.0)).abs() < 0.001,
            "{per_hour}"
        );
    }

    #[test]
    fn reason_names_threshold_forecast_and_local_times() {
        let a = assess(
            &berlin_month(),
            ts("2026-05-10T22:00:00Z"),
            &seen(Some(5_000), None, "2026-05-10T21:59:00Z"),
        );
        assert_eq!(
            a.reason,
            "50.0 % used (5000 of 10000), but at 500.0/day it runs out 2026-05-21 00:00 CEST, \
             before the reset at 2026-06-01 00:00 CEST"
        );
        let a = assess(
            &berlin_month(),
            ts("2026-05-28T22:00:00Z"),
            &seen(Some(500), None, "2026-05-27T09:00:00Z"),
        );
        assert!(a.reason.contains("critical 95 %"), "{}", a.reason);
        assert!(
            a.reason
                .ends_with("latest figure from 2026-05-27 11:00 CEST, no traffic since"),
            "{}",
            a.reason
        );
    }

    #[test]
    fn a_balance_is_compared_with_the_limit_without_a_forecast() {
        // Runway: the credit balance against the tier's monthly credits, 3 days into May.
        let balance = Policy {
            balance: true,
            ..policy(Window::CalendarMonth(Zone::new("UTC").unwrap()))
        };
        let now = ts("2026-05-04T00:00:00Z");
        let at = |remaining: i64| {
            assess(
                &balance,
                now,
                &seen(Some(remaining), None, "2026-05-03T23:00:00Z"),
            )
        };
        let low = at(1_500);
        assert_eq!(low.state, State::Warn, "{}", low.reason);
        assert_eq!(low.utilization_percent, Some(85.0));
        assert_eq!(
            low.reason,
            "85.0 % used (8500 of 10000), at or above the warning 80 %; a balance, refilled by \
             purchase and not by the window's reset: no forecast"
        );
        // 75 % "used" in three days would run out before the month ends if the month had
        // started full; a balance did not, so it is ok.
        let fine = at(2_500);
        assert_eq!(fine.state, State::Ok, "{}", fine.reason);
        assert_eq!(
            (
                fine.burn_per_day,
                fine.days_left,
                fine.exhausted_before_window_end
            ),
            (None, None, None)
        );
        let windowed = Policy {
            balance: false,
            ..balance.clone()
        };
        let forecast = assess(
            &windowed,
            now,
            &seen(Some(2_500), None, "2026-05-03T23:00:00Z"),
        );
        assert_eq!(forecast.state, State::Warn, "{}", forecast.reason);
        let empty = at(0);
        assert_eq!(empty.state, State::Critical);
        assert!(
            empty
                .reason
                .ends_with("used up until a purchase refills it"),
            "{}",
            empty.reason
        );
    }

    #[test]
    fn without_headers_or_window_or_limit_nothing_is_claimed() {
        let usage = seen(Some(5_000), None, "2026-05-10T21:59:00Z");
        let now = ts("2026-05-10T22:00:00Z");
        let no_headers = Policy {
            measurable: false,
            ..berlin_month()
        };
        assert_eq!(assess(&no_headers, now, &usage).state, State::NotApplicable);
        let no_window = Policy {
            window: None,
            ..berlin_month()
        };
        let a = assess(&no_window, now, &usage);
        assert_eq!((a.state, a.utilization_percent), (State::Unknown, None));
        let no_limit = Policy {
            limit: None,
            ..berlin_month()
        };
        let unlimited = Usage {
            limit: None,
            ..usage.clone()
        };
        let a = assess(&no_limit, now, &unlimited);
        assert_eq!((a.state, a.utilization_percent), (State::Unknown, None));
        // A reported limit stands in for a missing declaration.
        assert_eq!(
            assess(&no_limit, now, &usage).utilization_percent,
            Some(50.0)
        );
    }
}
