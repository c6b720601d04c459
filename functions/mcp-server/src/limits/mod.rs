//! Edge protection: how many requests a client IP, tool calls a caller and tool calls the whole
//! deployment may make per window, and how many upstream requests a caller may spend per
//! connector per UTC day (its budget), counted in fixed windows (`window`).
//!
//! Pure counting over plain data; the HTTP edge decides what to count and answers 429, the call
//! pipeline spends budgets. Client IPs are counted in memory on each instance (`store`): a
//! request before authentication must not cost a table write, or a flood would become a bill.
//! A tool call's counters go to the shared table when one is configured (`shared`, `table`),
//! all of them in one tally: one round trip per call.
//!
//! Every limit is configurable and `0` turns it off (see `inventory::config`).

pub mod cidr;
pub mod probes;
pub mod shared;
pub mod store;
pub mod table;
pub mod window;

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use cidr::Cidr;
use shared::Counters;
use store::{Counted, Guard, Hit, MemoryStore, Tally};
use table::Table;
use window::Window;

/// Which limit a request ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// Requests per client IP per minute, before authentication.
    Ip,
    /// Tool calls per caller (API key or user) per minute.
    Caller,
    /// Tool calls of the whole deployment per UTC day.
    Daily,
    /// Upstream requests per caller and connector per UTC day.
    Budget,
}

impl LimitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LimitKind::Ip => "ip",
            LimitKind::Caller => "caller",
            LimitKind::Daily => "daily",
            LimitKind::Budget => "budget",
        }
    }
}

/// The configured limits; `0` is off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    pub per_ip_per_minute: u64,
    /// The IPv6 prefix length a client is counted under by the per-IP limit (IPv4: the address).
    pub ipv6_prefix: u8,
    pub per_caller_per_minute: u64,
    pub daily_calls: u64,
    /// Whether the catalogs' `caller_daily_budget`s apply.
    pub budgets: bool,
}

impl Thresholds {
    /// The defaults, sized for a ten-person company.
    pub const DEFAULT: Thresholds = Thresholds {
        per_ip_per_minute: 120,
        ipv6_prefix: 64,
        per_caller_per_minute: 60,
        daily_calls: 20_000,
        budgets: true,
    };
    /// Every limit and budget off (`MCP_LIMITS=off`).
    pub const OFF: Thresholds = Thresholds {
        per_ip_per_minute: 0,
        ipv6_prefix: 64,
        per_caller_per_minute: 0,
        daily_calls: 0,
        budgets: false,
    };
}

/// A limit that was reached: which, its size and window, and when it resets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {} limit of {limit} per {} is reached; it resets in {retry_after_s} s", scope.as_str(), window.name())]
pub struct Exceeded {
    pub scope: LimitKind,
    pub limit: u64,
    pub window: Window,
    pub retry_after_s: u64,
}

/// The counters of one request that passed: what is left of the tightest limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Passed {
    pub scope: LimitKind,
    pub limit: u64,
    pub remaining: u64,
    pub window: Window,
    pub reset_after_s: u64,
}

/// A caller's budget on one connector as counted when the call was admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub limit: u64,
    pub spent: u64,
    pub reset_after_s: u64,
}

impl Budget {
    pub fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.spent)
    }
}

/// What admitting a tool call found: the tightest HTTP-level limit, the caller's budgets (by
/// connector), and the `limiter` line due this minute, if one is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Admission {
    pub passed: Option<Passed>,
    /// Whose budgets these are: the key the call's spending is booked on.
    pub caller: String,
    pub budgets: BTreeMap<String, Budget>,
    pub report: Option<Report>,
}

/// The `limiter` line: whether this instance counts in memory, and the daily cap used.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    pub fallback: bool,
    pub daily_calls_used_pct: Option<f64>,
}

pub struct Limits {
    settings: Thresholds,
    /// `caller_daily_budget` per connector.
    budgets: BTreeMap<String, u64>,
    ip: MemoryStore,
    calls: Counters,
    /// Upstream requests spent since the last tally, booked with the next one (whoever makes
    /// it), so spending costs no round trip of its own.
    pending: Mutex<Pending>,
    /// The minute (since the epoch) of the last `limiter` report.
    reported: AtomicU64,
}

#[derive(Debug, Default)]
struct Pending {
    day: u64,
    spent: BTreeMap<(String, String), u64>,
}

impl Limits {
    pub fn new(settings: Thresholds, budgets: BTreeMap<String, u64>, table: Option<Table>) -> Self {
        Limits {
            settings,
            budgets,
            ip: MemoryStore::default(),
            calls: Counters::new(table),
            pending: Mutex::default(),
            reported: AtomicU64::new(0),
        }
    }

    pub fn settings(&self) -> Thresholds {
        self.settings
    }

    /// One request from `ip` (any request to `/mcp`, before authentication), counted for its
    /// network ([`Cidr::around`]); requests without a known address share one counter.
    pub fn request_from(&self, ip: Option<IpAddr>, now: u64) -> Result<Option<Passed>, Exceeded> {
        let limit = self.settings.per_ip_per_minute;
        if limit == 0 {
            return Ok(None);
        }
        let start = Window::Minute.start(now);
        let network = match ip {
            Some(ip) => Cidr::around(ip, self.settings.ipv6_prefix).to_string(),
            None => "unknown".to_string(),
        };
        let hit = Hit {
            key: format!("ip:{network}:{start}"),
            add: 1,
            expires: start + 60,
        };
        let count = self.ip.hit(&[hit], now)[0];
        let reset_after_s = Window::Minute.reset_after(now);
        if count > limit {
            return Err(Exceeded {
                scope: LimitKind::Ip,
                limit,
                window: Window::Minute,
                retry_after_s: reset_after_s,
            });
        }
        Ok(Some(Passed {
            scope: LimitKind::Ip,
            limit,
            remaining: limit - count,
            window: Window::Minute,
            reset_after_s,
        }))
    }

    /// One tool call by `caller`: the caller's minute, the deployment's day and the caller's
    /// budgets, read and counted in one tally (with what earlier calls spent).
    pub async fn tool_call_by(&self, caller: &str, now: u64) -> Result<Admission, Exceeded> {
        let plan = self.plan(caller, now);
        if plan.tally.hits.is_empty() {
            return Ok(Admission {
                caller: caller.to_string(),
                ..Admission::default()
            });
        }
        let values = match self.calls.count(&plan.tally, now).await {
            Counted::Values(v) => v,
            Counted::Refused(current) => {
                // Nothing was counted: what was to be booked stays pending.
                self.restore_pending(Window::UtcDay.start(now), &plan.tally);
                let failed = plan.tally.failed_guard(&current).map(|g| g.hit);
                let limit = plan
                    .limits
                    .iter()
                    .find(|l| Some(l.hit) == failed)
                    .unwrap_or(&plan.limits[0]);
                return Err(Exceeded {
                    scope: limit.scope,
                    limit: limit.limit,
                    window: limit.window,
                    retry_after_s: limit.window.reset_after(now),
                });
            }
        };
        let passed = |l: &Counter| Passed {
            scope: l.scope,
            limit: l.limit,
            remaining: l.limit.saturating_sub(values[l.hit]),
            window: l.window,
            reset_after_s: l.window.reset_after(now),
        };
        let daily = plan.limits.iter().find(|l| l.scope == LimitKind::Daily);
        let report = self.report_due(now).then(|| Report {
            fallback: self.calls.degraded(),
            daily_calls_used_pct: daily.map(|l| values[l.hit] as f64 * 100.0 / l.limit as f64),
        });
        Ok(Admission {
            passed: plan.limits.iter().map(passed).min_by_key(|p| p.remaining),
            caller: caller.to_string(),
            budgets: plan
                .budgets
                .into_iter()
                .map(|(connector, limit, hit)| {
                    let budget = Budget {
                        limit,
                        spent: values[hit],
                        reset_after_s: Window::UtcDay.reset_after(now),
                    };
                    (connector, budget)
                })
                .collect(),
            report,
        })
    }

    /// The tally of one tool call: the day's calls and the caller's minute (each guarded by
    /// its limit; the day's first, as the longer wait), the caller's budgets, and the pending
    /// spending of everyone (booked with it).
    fn plan(&self, caller: &str, now: u64) -> Plan {
        let s = self.settings;
        let day = Window::UtcDay.start(now);
        let day_end = day + Window::UtcDay.seconds();
        let minute = (now - day) / 60;
        let mut plan = Plan {
            tally: Tally {
                item: format!("calls#{}", date(day)),
                // Kept a day past its end: DynamoDB's TTL sweeps it up later.
                expires: day_end + Window::UtcDay.seconds(),
                hits: Vec::new(),
                stale: Vec::new(),
                guards: Vec::new(),
            },
            limits: Vec::new(),
            budgets: Vec::new(),
        };
        if s.daily_calls > 0 {
            plan.limit(
                LimitKind::Daily,
                s.daily_calls,
                Window::UtcDay,
                "calls".into(),
                day_end,
            );
        }
        if s.per_caller_per_minute > 0 {
            let key = format!("m#{caller}#{minute}");
            let end = Window::Minute.start(now) + 60;
            plan.limit(
                LimitKind::Caller,
                s.per_caller_per_minute,
                Window::Minute,
                key,
                end,
            );
            if let Some(previous) = minute.checked_sub(1) {
                plan.tally.stale.push(format!("m#{caller}#{previous}"));
            }
        }
        if !s.budgets {
            return plan;
        }
        let mut flush = self.take_pending(day);
        for (connector, limit) in &self.budgets {
            let add = flush
                .remove(&(caller.to_string(), connector.clone()))
                .unwrap_or(0);
            plan.budgets
                .push((connector.clone(), *limit, plan.tally.hits.len()));
            plan.tally
                .hits
                .push(budget_hit(caller, connector, add, day_end));
        }
        for ((who, connector), add) in &flush {
            plan.tally
                .hits
                .push(budget_hit(who, connector, *add, day_end));
        }
        plan
    }

    /// `requests` upstream requests that `caller`'s call on `connector` sent, booked with the
    /// next tally.
    pub fn spent(&self, caller: &str, connector: &str, requests: u64, now: u64) {
        if !self.settings.budgets || requests == 0 || !self.budgets.contains_key(connector) {
            return;
        }
        let day = Window::UtcDay.start(now);
        let mut pending = self.lock_pending();
        if pending.day != day {
            *pending = Pending {
                day,
                spent: BTreeMap::new(),
            };
        }
        *pending
            .spent
            .entry((caller.to_string(), connector.to_string()))
            .or_insert(0) += requests;
    }

    fn take_pending(&self, day: u64) -> BTreeMap<(String, String), u64> {
        let mut pending = self.lock_pending();
        let spent = std::mem::take(&mut pending.spent);
        // Spending of a day that is over is not booked on the new one.
        if pending.day == day {
            spent
        } else {
            BTreeMap::new()
        }
    }

    /// Puts a refused tally's budget amounts (`b#caller#connector`) back.
    fn restore_pending(&self, day: u64, tally: &Tally) {
        let mut pending = self.lock_pending();
        if pending.day != day {
            pending.day = day;
            pending.spent.clear();
        }
        for hit in tally.hits.iter().filter(|h| h.add > 0) {
            if let Some((who, connector)) =
                hit.key.strip_prefix("b#").and_then(|k| k.rsplit_once('#'))
            {
                *pending
                    .spent
                    .entry((who.to_string(), connector.to_string()))
                    .or_insert(0) += hit.add;
            }
        }
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// True once a minute per instance (the first call of each minute).
    fn report_due(&self, now: u64) -> bool {
        let minute = now / 60;
        self.reported.swap(minute, Ordering::Relaxed) != minute
    }
}

/// A tool call's tally and where in it each limit's and budget's counter is.
struct Plan {
    tally: Tally,
    limits: Vec<Counter>,
    /// Connector, budget, index of its counter.
    budgets: Vec<(String, u64, usize)>,
}

/// A limited counter of a tally.
struct Counter {
    scope: LimitKind,
    limit: u64,
    window: Window,
    hit: usize,
}

impl Plan {
    /// One more call on a counter that `limit` guards.
    fn limit(&mut self, scope: LimitKind, limit: u64, window: Window, key: String, expires: u64) {
        let hit = self.tally.hits.len();
        self.limits.push(Counter {
            scope,
            limit,
            window,
            hit,
        });
        self.tally.guards.push(Guard { hit, limit });
        self.tally.hits.push(Hit {
            key,
            add: 1,
            expires,
        });
    }
}

fn budget_hit(caller: &str, connector: &str, add: u64, expires: u64) -> Hit {
    Hit {
        key: format!("b#{caller}#{connector}"),
        add,
        expires,
    }
}

/// `2026-12-01` for a day's start.
fn date(day_start: u64) -> String {
    jiff::Timestamp::from_second(day_start as i64)
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date().to_string())
        .unwrap_or_else(|_| day_start.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_796_120_477; // 10:21:17 UTC: 43 s left in the minute

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    fn limits(settings: Thresholds) -> Limits {
        Limits::new(
            settings,
            BTreeMap::from([("papierkram".to_string(), 10)]),
            None,
        )
    }

    #[test]
    fn the_request_at_the_limit_passes_and_the_next_is_refused_until_the_window_ends() {
        let limits = limits(Thresholds {
            per_ip_per_minute: 3,
            ..Thresholds::OFF
        });
        for left in [2, 1, 0] {
            let passed = limits.request_from(ip("192.0.2.1"), NOW).unwrap().unwrap();
            assert_eq!(passed.remaining, left);
        }
        let refused = limits.request_from(ip("192.0.2.1"), NOW).unwrap_err();
        assert_eq!(refused.scope, LimitKind::Ip);
        assert_eq!(refused.retry_after_s, 43);
        assert!(limits.request_from(ip("192.0.2.2"), NOW).is_ok(), "per IP");
        assert!(
            limits.request_from(ip("192.0.2.1"), NOW + 43).is_ok(),
            "the next minute"
        );
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64_prefix_unless_configured_otherwise() {
        let limits = limits(Thresholds {
            per_ip_per_minute: 3,
            ..Thresholds::OFF
        });
        // 20 addresses of one /64: one client.
        let passed = (1..=20)
            .filter(|n| {
                limits
                    .request_from(ip(&format!("2001:db8:1:2::{n:x}")), NOW)
                    .is_ok()
            })
            .count();
        assert_eq!(passed, 3);
        assert!(
            limits.request_from(ip("2001:db8:1:3::1"), NOW).is_ok(),
            "the next /64"
        );
        let per_address = self::limits(Thresholds {
            per_ip_per_minute: 3,
            ipv6_prefix: 128,
            ..Thresholds::OFF
        });
        for n in 1..=20 {
            assert!(
                per_address
                    .request_from(ip(&format!("2001:db8:1:2::{n:x}")), NOW)
                    .is_ok()
            );
        }
    }

    #[tokio::test]
    async fn tool_calls_count_per_caller_and_against_the_daily_cap() {
        let limits = limits(Thresholds {
            per_caller_per_minute: 2,
            daily_calls: 3,
            ..Thresholds::OFF
        });
        assert!(limits.tool_call_by("a", NOW).await.is_ok());
        assert!(limits.tool_call_by("a", NOW).await.is_ok());
        let caller = limits.tool_call_by("a", NOW).await.unwrap_err();
        assert_eq!(caller.scope, LimitKind::Caller);
        assert_eq!(caller.retry_after_s, 43);
        // A refused call counts nowhere: b still gets the day's third call, not a fourth.
        let b = limits.tool_call_by("b", NOW).await.unwrap();
        assert_eq!(b.passed.unwrap().scope, LimitKind::Daily);
        assert_eq!(b.passed.unwrap().remaining, 0);
        let daily = limits.tool_call_by("b", NOW).await.unwrap_err();
        assert_eq!(daily.scope, LimitKind::Daily);
        assert_eq!(daily.retry_after_s, 86_400 - (10 * 3600 + 21 * 60 + 17));
        assert_eq!(
            limits
                .tool_call_by("a", NOW + 86_400)
                .await
                .unwrap()
                .passed
                .unwrap()
                .remaining,
            1,
            "a new day and minute: the caller's minute is the tighter"
        );
    }

    #[tokio::test]
    async fn spending_is_booked_with_the_next_call_and_read_back_as_the_budget() {
        let limits = limits(Thresholds::DEFAULT);
        let first = limits.tool_call_by("a", NOW).await.unwrap();
        assert_eq!(first.budgets["papierkram"].remaining(), 10);
        limits.spent("a", "papierkram", 7, NOW);
        limits.spent("b", "papierkram", 2, NOW);
        limits.spent("a", "unbudgeted", 5, NOW);
        let second = limits.tool_call_by("a", NOW + 1).await.unwrap();
        assert_eq!(second.budgets["papierkram"].spent, 7);
        assert_eq!(second.budgets["papierkram"].remaining(), 3);
        // b's spending went with a's tally: b sees it on its first call.
        let b = limits.tool_call_by("b", NOW + 2).await.unwrap();
        assert_eq!(b.budgets["papierkram"].spent, 2);
        // Yesterday's spending is not booked on today.
        limits.spent("a", "papierkram", 3, NOW);
        let tomorrow = limits.tool_call_by("a", NOW + 86_400).await.unwrap();
        assert_eq!(tomorrow.budgets["papierkram"].spent, 0);
    }

    #[tokio::test]
    async fn a_refused_call_keeps_what_was_to_be_booked() {
        let limits = limits(Thresholds {
            daily_calls: 1,
            budgets: true,
            ..Thresholds::OFF
        });
        limits.tool_call_by("a", NOW).await.unwrap();
        limits.spent("a", "papierkram", 4, NOW);
        assert_eq!(
            limits.tool_call_by("a", NOW).await.unwrap_err().scope,
            LimitKind::Daily
        );
        assert_eq!(
            limits.lock_pending().spent[&("a".into(), "papierkram".into())],
            4
        );
    }

    #[tokio::test]
    async fn a_limiter_report_is_due_once_a_minute() {
        let limits = limits(Thresholds {
            daily_calls: 200,
            ..Thresholds::OFF
        });
        let report = limits.tool_call_by("a", NOW).await.unwrap().report.unwrap();
        assert_eq!(report.daily_calls_used_pct, Some(0.5));
        assert!(!report.fallback);
        assert_eq!(
            limits.tool_call_by("a", NOW + 1).await.unwrap().report,
            None
        );
        assert!(
            limits
                .tool_call_by("a", NOW + 60)
                .await
                .unwrap()
                .report
                .is_some()
        );
    }

    #[tokio::test]
    async fn zero_turns_a_limit_off() {
        let limits = limits(Thresholds::OFF);
        for _ in 0..1000 {
            let admission = limits.tool_call_by("a", NOW).await.unwrap();
            assert_eq!(admission.passed, None);
            assert!(admission.budgets.is_empty());
            assert_eq!(limits.request_from(ip("192.0.2.1"), NOW), Ok(None));
        }
    }

    #[test]
    fn days_are_named_by_their_utc_date() {
        assert_eq!(date(Window::UtcDay.start(NOW)), "2026-12-01");
    }
}
