//! Edge protection: how many requests a client IP, tool calls a caller and tool calls the whole
//! deployment may make per window, and how many upstream requests a caller may spend per
//! connector per UTC day (its budget), counted in fixed windows (`window`).
//!
//! Pure counting over plain data; the HTTP edge decides what to count and answers 429, the call
//! pipeline spends budgets. Client IPs are counted in memory on each instance (`store`): a
//! request before authentication must not cost a table write, or a flood would become a bill.
//! A tool call's counters go to the shared table when one is configured (`shared`, `items`),
//! all of them in one tally: one round trip per call.
//!
//! **Budgets are reserved, not checked.** A tool call's tally reserves the upstream requests
//! it may send (one; every page for an aggregation, at most what is left) on the caller's
//! budget item, on the condition that the budget holds them, in the same all-or-nothing
//! request as its minute and the day. A [`Reservation`] (`reservation`) rides with the call;
//! the pipeline settles it with what was sent, and what was not sent goes back with this
//! instance's next tally (whoever makes it), so settling costs no request of its own. Settling
//! books that refund at once, before the answer leaves: the reservation itself is dropped only
//! when the MCP service's task lets go of the request, which may be after the client has its
//! answer and sent the next call. A reservation dropped unsettled (the call never got that far)
//! returns all of it.
//!
//! **Spending** (`spend`) is reserved the same way on the item of the caller's spend on a
//! connector, in the upstream's own unit; the call pipeline makes that tally once the call's
//! arguments are valid, as only they say what the call spends.
//!
//! **An upstream's own rate** (`pace`) is no limit of ours but the upstream's: its requests take
//! turns, shared by every instance through the same table.
//!
//! Every limit is configurable and `0` turns it off (see `config`).

pub(crate) mod cidr;
pub(crate) mod items;
mod pace;
mod reservation;
pub(crate) mod shared;
mod spend;
pub(crate) mod store;
pub(crate) mod table;
pub(crate) mod window;

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cidr::Cidr;
pub(crate) use pace::{Pace, Turn};
use reservation::Refunds;
pub(crate) use reservation::Reservation;
use shared::Counters;
pub(crate) use spend::{SpendRefused, Spending};
use store::{Counted, Hit, MemoryStore, Tally};
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
    /// What a caller may spend per connector per UTC day, in the upstream's unit.
    Spend,
}

impl LimitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LimitKind::Ip => "ip",
            LimitKind::Caller => "caller",
            LimitKind::Daily => "daily",
            LimitKind::Budget => "budget",
            LimitKind::Spend => "spend",
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
    /// An earlier request of this window was refused already (only the first refusal of an
    /// address's minute is audited: a flood costs one line, not one per request).
    pub repeated: bool,
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

/// A caller's budget on one connector as counted when the call was admitted: what was spent
/// or reserved before it (as far as this instance knows), and what this call reserved (0: none
/// left).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub limit: u64,
    pub spent: u64,
    pub reserved: u64,
    pub reset_after_s: u64,
}

/// What a tool call may cost: the upstream requests it may send at most, on its connector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cost {
    pub connector: String,
    pub requests: u64,
}

impl Budget {
    pub fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.spent)
    }
}

/// What admitting a tool call found: the tightest HTTP-level limit, the caller's budget on the
/// call's connector (with its reservation), and the `limiter` line due this minute, if one is.
#[derive(Debug, Clone, Default)]
pub struct Admission {
    pub passed: Option<Passed>,
    /// Whose budgets these are.
    pub caller: String,
    pub budgets: BTreeMap<String, Budget>,
    /// The budget reserved for this call, returned (less what it sent) when the last copy of
    /// the admission is dropped, whatever became of the call.
    pub reservation: Option<Arc<Reservation>>,
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
    /// Unspent reservations, returned with the next tally (whoever makes it), so settling
    /// costs no round trip of its own.
    refunds: Arc<Mutex<Refunds>>,
    /// The minute (since the epoch) of the last `limiter` report.
    reported: AtomicU64,
    /// The turns of the upstreams' own rates (`quota.rate`), kept whatever the limits above.
    pace: Pace,
}

impl Limits {
    pub fn new(settings: Thresholds, budgets: BTreeMap<String, u64>, table: Option<Table>) -> Self {
        Limits {
            settings,
            budgets,
            ip: MemoryStore::default(),
            calls: Counters::new(table.as_ref().map(Table::items)),
            refunds: Arc::default(),
            reported: AtomicU64::new(0),
            pace: Pace::new(table.as_ref().map(Table::parts)),
        }
    }

    /// The turns of the upstreams' own rates.
    pub fn pace(&self) -> &Pace {
        &self.pace
    }

    pub fn settings(&self) -> Thresholds {
        self.settings
    }

    /// One request from `ip` (any request to `/mcp`, before authentication), counted for its
    /// network (`Cidr::around`); requests without a known address share one counter.
    pub fn request_from(&self, ip: Option<IpAddr>, now: u64) -> Result<Option<Passed>, Exceeded> {
        let limit = self.settings.per_ip_per_minute;
        if limit == 0 {
            return Ok(None);
        }
        let start = Window::Minute.start(now);
        let key = match ip {
            Some(ip) => format!("ip:{}:{start}", Cidr::around(ip, self.settings.ipv6_prefix)),
            None => format!("ip:unknown:{start}"),
        };
        let count = self.ip.add(&key, 1, start + 60, now);
        let reset_after_s = Window::Minute.reset_after(now);
        if count > limit {
            return Err(Exceeded {
                scope: LimitKind::Ip,
                limit,
                window: Window::Minute,
                retry_after_s: reset_after_s,
                repeated: count > limit + 1,
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

    /// One tool call by `caller` that may cost `cost`: the caller's minute and the deployment's
    /// day counted, and the requests it may send reserved on the caller's budget, in one
    /// tally that admits or refuses all of it (with the refunds of earlier calls).
    ///
    /// A budget with nothing left is no refusal here: the call is admitted with nothing
    /// reserved (and counted nowhere), and the pipeline answers it as a tool result.
    pub async fn tool_call_by(
        &self,
        caller: &str,
        cost: Option<Cost>,
        now: u64,
    ) -> Result<Admission, Exceeded> {
        let budget = cost
            .filter(|_| self.settings.budgets)
            .and_then(|c| Some((self.budgets.get(&c.connector).copied()?, c)))
            .filter(|(limit, _)| *limit > 0);
        let mut plan = self.plan(caller, budget.as_ref(), now);
        if plan.tally.hits.is_empty() {
            return Ok(Admission {
                caller: caller.to_string(),
                ..Admission::default()
            });
        }
        // A reservation refused while the budget had something left (another instance spent
        // meanwhile) is tried once more for what is left.
        let mut tried_smaller = false;
        let values = loop {
            match self.calls.count(&plan.tally, now).await {
                Counted::Values(v) => break v,
                Counted::Refused(failed) => {
                    self.restore(&plan);
                    if let Some(answer) =
                        self.after_refusal(&mut plan, &failed, caller, now, tried_smaller)
                    {
                        return answer;
                    }
                    tried_smaller = true;
                }
            }
        };
        Ok(self.admitted(plan, &values, caller, now))
    }

    /// A tally refused on `failed`: the limit it passed, the daily limit, or the budget. A
    /// budget with something left (`None`) is asked again for only that, once.
    fn after_refusal(
        &self,
        plan: &mut Plan,
        failed: &[(usize, u64)],
        caller: &str,
        now: u64,
        tried_smaller: bool,
    ) -> Option<Result<Admission, Exceeded>> {
        let on_limit = failed
            .iter()
            .find_map(|(hit, _)| plan.limits.iter().find(|l| l.hit == *hit));
        if let Some(limit) = on_limit {
            return Some(Err(Exceeded {
                scope: limit.scope,
                limit: limit.limit,
                window: limit.window,
                retry_after_s: limit.window.reset_after(now),
                repeated: false,
            }));
        }
        let Some(b) = plan
            .budget
            .as_mut()
            .filter(|b| failed.iter().any(|(h, _)| *h == b.hit))
        else {
            return Some(Err(self.daily_exceeded(now)));
        };
        let count = failed.iter().find(|(h, _)| *h == b.hit).map_or(0, |f| f.1);
        let spent = count.saturating_sub(plan.tally.hits[b.hit].refund);
        let left = b.limit.saturating_sub(spent);
        if left == 0 || tried_smaller {
            return Some(Ok(self.nothing_left(caller, b, now)));
        }
        b.reserved = b.reserved.min(left);
        let reserved = b.reserved;
        let refund = self.take_refund_of(&plan.tally.hits[b.hit].key);
        let hit = &mut plan.tally.hits[b.hit];
        hit.add = reserved;
        hit.refund = refund;
        let others = self.take_refunds(Window::UtcDay.start(now), &plan.tally);
        plan.tally.hits.truncate(plan.fixed);
        plan.tally.hits.extend(others);
        None
    }

    /// The admission of a tally counted to `values`: the tightest limit passed, the budget and
    /// its reservation, and the periodic report when one is due.
    fn admitted(&self, plan: Plan, values: &[u64], caller: &str, now: u64) -> Admission {
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
        let mut admission = Admission {
            passed: plan.limits.iter().map(passed).min_by_key(|p| p.remaining),
            caller: caller.to_string(),
            report,
            ..Admission::default()
        };
        if let Some(b) = plan.budget {
            let hit = &plan.tally.hits[b.hit];
            admission.budgets.insert(
                b.connector.clone(),
                Budget {
                    limit: b.limit,
                    spent: values[b.hit].saturating_sub(b.reserved),
                    reserved: b.reserved,
                    reset_after_s: Window::UtcDay.reset_after(now),
                },
            );
            admission.reservation = Some(Arc::new(Reservation::new(
                b.connector,
                hit,
                b.reserved,
                Arc::clone(&self.refunds),
            )));
        }
        admission
    }

    /// What a call admitted with `admission` sent on `connector`, once it is over: its
    /// reservation is settled and the rest booked for the next tally at once (not when the
    /// admission is dropped, which may be after the caller's next call; the first settle counts).
    pub fn settle(&self, admission: &Admission, connector: &str, sent: u64) {
        if let Some(r) = &admission.reservation
            && r.is_on(connector)
        {
            r.settle(sent);
        }
    }

    /// The answer for a budget with nothing left: admitted, nothing reserved, counted nowhere.
    fn nothing_left(&self, caller: &str, b: &Reserve, now: u64) -> Admission {
        Admission {
            caller: caller.to_string(),
            budgets: BTreeMap::from([(
                b.connector.clone(),
                Budget {
                    limit: b.limit,
                    spent: b.limit,
                    reserved: 0,
                    reset_after_s: Window::UtcDay.reset_after(now),
                },
            )]),
            ..Admission::default()
        }
    }

    fn daily_exceeded(&self, now: u64) -> Exceeded {
        Exceeded {
            scope: LimitKind::Daily,
            limit: self.settings.daily_calls,
            window: Window::UtcDay,
            retry_after_s: Window::UtcDay.reset_after(now),
            repeated: false,
        }
    }

    /// The tally of one tool call: the day's calls and the caller's minute (each within its
    /// limit; the day's first, as the longer wait), the reservation on the caller's budget,
    /// and refunds of earlier calls.
    fn plan(&self, caller: &str, budget: Option<&(u64, Cost)>, now: u64) -> Plan {
        let s = self.settings;
        let day = Window::UtcDay.start(now);
        let day_end = day + Window::UtcDay.seconds();
        let mut plan = Plan {
            tally: Tally::default(),
            limits: Vec::new(),
            budget: None,
            fixed: 0,
        };
        if s.daily_calls > 0 {
            plan.limit(
                LimitKind::Daily,
                s.daily_calls,
                Window::UtcDay,
                format!("d#{}", date(day)),
                day_end,
            );
        }
        if s.per_caller_per_minute > 0 {
            let start = Window::Minute.start(now);
            plan.limit(
                LimitKind::Caller,
                s.per_caller_per_minute,
                Window::Minute,
                format!("m#{caller}#{start}"),
                start + 60,
            );
        }
        if let Some((limit, cost)) = budget {
            let key = format!("b#{caller}#{}#{}", cost.connector, date(day));
            let refund = self.take_refund_of(&key);
            // What this instance knows was spent or reserved: at most what is left is asked
            // (at least one request: the table decides).
            let known = self.calls.known(&key, now).saturating_sub(refund);
            let reserved = cost.requests.min(limit.saturating_sub(known)).max(1);
            plan.budget = Some(Reserve {
                connector: cost.connector.clone(),
                limit: *limit,
                reserved,
                hit: plan.tally.hits.len(),
            });
            plan.tally.hits.push(Hit {
                key,
                add: reserved,
                refund,
                limit: Some(*limit),
                // Kept a day past its end: a late refund finds it.
                expires: day_end + Window::UtcDay.seconds(),
            });
        }
        plan.fixed = plan.tally.hits.len();
        let others = self.take_refunds(day, &plan.tally);
        plan.tally.hits.extend(others);
        plan
    }

    /// The refund waiting for counter `key`, taken.
    fn take_refund_of(&self, key: &str) -> u64 {
        self.lock_refunds().take_of(key)
    }

    /// Waiting refunds of other counters than the tally's, taken (see [`Refunds::take_others`]).
    fn take_refunds(&self, day: u64, tally: &Tally) -> Vec<Hit> {
        self.lock_refunds().take_others(day, tally)
    }

    /// Puts a refused tally's refunds back.
    fn restore(&self, plan: &Plan) {
        self.lock_refunds().restore(&plan.tally);
    }

    fn lock_refunds(&self) -> std::sync::MutexGuard<'_, Refunds> {
        self.refunds
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// True once a minute per instance (the first call of each minute).
    fn report_due(&self, now: u64) -> bool {
        let minute = now / 60;
        self.reported.swap(minute, Ordering::Relaxed) != minute
    }
}

/// A tool call's tally and where in it each limit's and the budget's counter is.
struct Plan {
    tally: Tally,
    limits: Vec<Counter>,
    budget: Option<Reserve>,
    /// The hits before the other counters' refunds.
    fixed: usize,
}

/// The reservation on the call's budget: its connector, limit, amount, and its hit.
struct Reserve {
    connector: String,
    limit: u64,
    reserved: u64,
    hit: usize,
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
        self.tally.hits.push(Hit {
            key,
            add: 1,
            refund: 0,
            limit: Some(limit),
            expires,
        });
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
        assert!(limits.tool_call_by("a", None, NOW).await.is_ok());
        assert!(limits.tool_call_by("a", None, NOW).await.is_ok());
        let caller = limits.tool_call_by("a", None, NOW).await.unwrap_err();
        assert_eq!(caller.scope, LimitKind::Caller);
        assert_eq!(caller.retry_after_s, 43);
        // A refused call counts nowhere: b still gets the day's third call, not a fourth.
        let b = limits.tool_call_by("b", None, NOW).await.unwrap();
        assert_eq!(b.passed.unwrap().scope, LimitKind::Daily);
        assert_eq!(b.passed.unwrap().remaining, 0);
        let daily = limits.tool_call_by("b", None, NOW).await.unwrap_err();
        assert_eq!(daily.scope, LimitKind::Daily);
        assert_eq!(daily.retry_after_s, 86_400 - (10 * 3600 + 21 * 60 + 17));
        assert_eq!(
            limits
                .tool_call_by("a", None, NOW + 86_400)
                .await
                .unwrap()
                .passed
                .unwrap()
                .remaining,
            1,
            "a new day and minute: the caller's minute is the tighter"
        );
    }

    fn papierkram(requests: u64) -> Option<Cost> {
        Some(Cost {
            connector: "papierkram".into(),
            requests,
        })
    }

    #[tokio::test]
    async fn a_call_reserves_its_requests_and_returns_what_it_did_not_send() {
        let limits = limits(Thresholds::DEFAULT);
        let first = limits.tool_call_by("a", papierkram(1), NOW).await.unwrap();
        assert_eq!(first.budgets["papierkram"].reserved, 1);
        assert_eq!(first.budgets["papierkram"].remaining(), 10);
        limits.settle(&first, "papierkram", 1);
        drop(first);
        // An aggregation asks for every page, at most what is left: 9.
        let aggregation = limits
            .tool_call_by("a", papierkram(200), NOW)
            .await
            .unwrap();
        assert_eq!(aggregation.budgets["papierkram"].spent, 1);
        assert_eq!(aggregation.budgets["papierkram"].reserved, 9);
        // While it runs, nothing is left for anyone else.
        let meanwhile = limits.tool_call_by("a", papierkram(1), NOW).await.unwrap();
        assert_eq!(meanwhile.budgets["papierkram"].reserved, 0);
        assert!(meanwhile.reservation.is_none());
        limits.settle(&aggregation, "papierkram", 3);
        drop(aggregation);
        // The 6 it did not send come back with the next call: 4 spent, this one reserves 1.
        let next = limits.tool_call_by("a", papierkram(1), NOW).await.unwrap();
        assert_eq!(next.budgets["papierkram"].spent, 4);
        assert_eq!(next.budgets["papierkram"].reserved, 1);
        // A call dropped without settling (it sent nothing) returns all of it.
        drop(next);
        let after = limits.tool_call_by("a", papierkram(1), NOW).await.unwrap();
        assert_eq!(after.budgets["papierkram"].spent, 4);
        // Other callers and tomorrow have their own budgets.
        let b = limits.tool_call_by("b", papierkram(1), NOW).await.unwrap();
        assert_eq!(b.budgets["papierkram"].spent, 0);
        let tomorrow = limits
            .tool_call_by("a", papierkram(1), NOW + 86_400)
            .await
            .unwrap();
        assert_eq!(tomorrow.budgets["papierkram"].spent, 0);
        // No budget on a connector without one.
        let other = limits
            .tool_call_by(
                "a",
                Some(Cost {
                    connector: "unbudgeted".into(),
                    requests: 1,
                }),
                NOW,
            )
            .await
            .unwrap();
        assert!(other.budgets.is_empty() && other.reservation.is_none());
    }

    /// The MCP service lets go of a call's admission on its own task, possibly after the caller
    /// has the answer and sent the next call: what the settled call did not send must already
    /// be back (it was not: the next call found the whole budget reserved and was refused).
    #[tokio::test]
    async fn a_settled_call_returns_what_it_did_not_send_before_its_admission_is_dropped() {
        let limits = limits(Thresholds::DEFAULT);
        let aggregation = limits
            .tool_call_by("a", papierkram(200), NOW)
            .await
            .unwrap();
        assert_eq!(aggregation.budgets["papierkram"].reserved, 10);
        limits.settle(&aggregation, "papierkram", 3);
        let next = limits
            .tool_call_by("a", papierkram(200), NOW)
            .await
            .unwrap();
        assert_eq!(next.budgets["papierkram"].spent, 3);
        assert_eq!(next.budgets["papierkram"].reserved, 7);
        // Settled once: a second settle and the late drop give nothing back twice.
        limits.settle(&aggregation, "papierkram", 0);
        drop(aggregation);
        limits.settle(&next, "papierkram", 7);
        drop(next);
        let spent = limits.tool_call_by("a", papierkram(1), NOW).await.unwrap();
        assert_eq!(spent.budgets["papierkram"].spent, 10);
        assert_eq!(spent.budgets["papierkram"].reserved, 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_calls_reserve_exactly_the_budget() {
        let limits = Arc::new(self::limits(Thresholds::DEFAULT));
        let calls: Vec<_> = (0..40)
            .map(|_| {
                let limits = Arc::clone(&limits);
                tokio::spawn(async move {
                    let admission = limits.tool_call_by("a", papierkram(1), NOW).await.unwrap();
                    let reserved = admission.budgets["papierkram"].reserved;
                    // Held until every call has been admitted or refused.
                    (reserved, admission)
                })
            })
            .collect();
        let mut held = Vec::new();
        for call in calls {
            held.push(call.await.unwrap());
        }
        let reserved: u64 = held.iter().map(|(r, _)| r).sum();
        assert_eq!(reserved, 10, "a budget of 10");
    }

    #[tokio::test]
    async fn a_refused_call_keeps_the_refunds_it_carried() {
        let limits = limits(Thresholds {
            daily_calls: 1,
            budgets: true,
            ..Thresholds::OFF
        });
        let first = limits.tool_call_by("a", papierkram(5), NOW).await.unwrap();
        assert_eq!(first.budgets["papierkram"].reserved, 5);
        limits.settle(&first, "papierkram", 1);
        drop(first);
        assert_eq!(
            limits
                .tool_call_by("b", papierkram(1), NOW)
                .await
                .unwrap_err()
                .scope,
            LimitKind::Daily
        );
        let key = format!("b#a#papierkram#{}", date(Window::UtcDay.start(NOW)));
        assert_eq!(limits.lock_refunds().0[&key].0, 4);
    }

    #[tokio::test]
    async fn a_limiter_report_is_due_once_a_minute() {
        let limits = limits(Thresholds {
            daily_calls: 200,
            ..Thresholds::OFF
        });
        let report = limits
            .tool_call_by("a", None, NOW)
            .await
            .unwrap()
            .report
            .unwrap();
        assert_eq!(report.daily_calls_used_pct, Some(0.5));
        assert!(!report.fallback);
        assert_eq!(
            limits
                .tool_call_by("a", None, NOW + 1)
                .await
                .unwrap()
                .report,
            None
        );
        assert!(
            limits
                .tool_call_by("a", None, NOW + 60)
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
            let admission = limits.tool_call_by("a", None, NOW).await.unwrap();
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
