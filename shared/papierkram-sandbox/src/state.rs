//! Shared sandbox state: the bearer token, the monthly quota, injected faults, the request log,
//! the account's data with every write applied, the write log and the outbox.
//! Cheap to clone; all clones share the same counters and data.

use crate::fault::{Fault, FaultAction};
use crate::journal::{OUTBOX_CAPACITY, OutboxMail, Ring, WRITE_LOG_CAPACITY, WriteLine};
use crate::model::DemoData;
use crate::model::ser::BerlinTime;
use crate::store::Store;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Span, Timestamp};
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, RwLock};

/// Token the sandbox accepts when none is configured.
pub const DEFAULT_TOKEN: &str = "sandbox-token";
/// Requests per month, as on a standard Papierkram plan.
pub const DEFAULT_MONTHLY_LIMIT: u64 = 10_000;
/// How many request lines `/__sandbox/requests` keeps.
pub const REQUEST_LOG_CAPACITY: usize = 500;

/// Europe/Berlin, whose calendar month is the quota window (as the connector's catalog declares).
/// A POSIX rule rather than the tz database: jiff parses it with just `std`, so the crate needs no
/// tzdb feature, and Berlin's current rule (in force since 1996) covers every month the sandbox
/// will see.
static BERLIN: LazyLock<TimeZone> = LazyLock::new(|| {
    TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").expect("the Europe/Berlin POSIX rule parses")
});

/// The quota month containing `now`: its first instant and the first instant of the next month.
pub(crate) fn quota_month(now: Timestamp) -> (Timestamp, Timestamp) {
    let first = BERLIN.to_datetime(now).date().first_of_month();
    let midnight = |months| {
        first
            .checked_add(Span::new().months(months))
            .and_then(|d| BERLIN.to_timestamp(d.at(0, 0, 0, 0)))
            .unwrap_or(Timestamp::MAX)
    };
    (midnight(0), midnight(1))
}

/// The wall clock in Germany, to the second, as records carry it in `created_at`/`updated_at`.
pub(crate) fn berlin_now() -> BerlinTime {
    let t = BERLIN.to_datetime(Timestamp::now());
    BerlinTime(t.date().at(t.hour(), t.minute(), t.second(), 0))
}

/// Today in Germany: the default document date and the date a delivery or payment is booked on.
pub(crate) fn berlin_today() -> Date {
    BERLIN.to_datetime(Timestamp::now()).date()
}

/// One request as the sandbox saw it. The `Authorization` header is never recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequestLine {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct QuotaSnapshot {
    pub limit: u64,
    pub used: u64,
    pub remaining: u64,
}

#[derive(Clone)]
pub struct SandboxState {
    inner: Arc<Inner>,
}

struct Inner {
    token: String,
    limit: AtomicU64,
    usage: Mutex<Usage>,
    faults: Mutex<Vec<Fault>>,
    requests: Mutex<VecDeque<RequestLine>>,
    request_count: AtomicU64,
    correlation: AtomicU64,
    store: RwLock<Store>,
    writes: Mutex<Ring<WriteLine>>,
    outbox: Mutex<Ring<OutboxMail>>,
}

/// Requests used in one quota month.
struct Usage {
    /// Start of the quota month `used` belongs to; [`Timestamp::MIN`] before the first request.
    month: Timestamp,
    used: u64,
}

const NO_USAGE: Usage = Usage {
    month: Timestamp::MIN,
    used: 0,
};

impl Default for SandboxState {
    fn default() -> Self {
        SandboxState::new(DEFAULT_TOKEN)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not wedge the sandbox for the others.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Why a delivery could not be put into the outbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutboxFull;

impl SandboxState {
    pub fn new(token: impl Into<String>) -> Self {
        SandboxState {
            inner: Arc::new(Inner {
                token: token.into(),
                limit: AtomicU64::new(DEFAULT_MONTHLY_LIMIT),
                usage: Mutex::new(NO_USAGE),
                faults: Mutex::new(Vec::new()),
                requests: Mutex::new(VecDeque::new()),
                request_count: AtomicU64::new(0),
                correlation: AtomicU64::new(0),
                store: RwLock::new(Store::new(crate::demo_shared())),
                writes: Mutex::new(Ring::new(WRITE_LOG_CAPACITY)),
                outbox: Mutex::new(Ring::new(OUTBOX_CAPACITY)),
            }),
        }
    }

    pub fn with_monthly_limit(self, limit: u64) -> Self {
        self.inner.limit.store(limit, Ordering::SeqCst);
        self
    }

    pub fn token(&self) -> &str {
        &self.inner.token
    }

    /// The quota of the current month.
    pub fn quota(&self) -> QuotaSnapshot {
        self.quota_at(Timestamp::now())
    }

    /// Pretends the current month has already used up all but `remaining` requests.
    pub fn set_quota_remaining(&self, remaining: u64) {
        self.set_quota_remaining_at(Timestamp::now(), remaining);
    }

    /// Takes `cost` requests from the current month's quota; `None` (and nothing taken) when
    /// fewer than `cost` are left.
    pub(crate) fn consume_quota(&self, cost: u64) -> Option<QuotaSnapshot> {
        self.consume_quota_at(Timestamp::now(), cost)
    }

    fn quota_at(&self, now: Timestamp) -> QuotaSnapshot {
        let limit = self.inner.limit.load(Ordering::SeqCst);
        snapshot(limit, self.usage_at(now).used)
    }

    fn set_quota_remaining_at(&self, now: Timestamp, remaining: u64) {
        let limit = self.inner.limit.load(Ordering::SeqCst);
        *lock(&self.inner.usage) = Usage {
            month: quota_month(now).0,
            used: limit.saturating_sub(remaining),
        };
    }

    fn consume_quota_at(&self, now: Timestamp, cost: u64) -> Option<QuotaSnapshot> {
        let limit = self.inner.limit.load(Ordering::SeqCst);
        let mut usage = self.usage_at(now);
        if usage.used.saturating_add(cost) > limit {
            return None;
        }
        usage.used += cost;
        Some(snapshot(limit, usage.used))
    }

    /// The usage counter, started from 0 if `now` lies in a later quota month than its own.
    fn usage_at(&self, now: Timestamp) -> MutexGuard<'_, Usage> {
        let month = quota_month(now).0;
        let mut usage = lock(&self.inner.usage);
        // Only forwards: a clock stepping back a little must not wipe the month's usage.
        if month > usage.month {
            *usage = Usage { month, used: 0 };
        }
        usage
    }

    pub fn inject_fault(&self, fault: Fault) {
        lock(&self.inner.faults).push(fault);
    }

    pub fn faults(&self) -> Vec<Fault> {
        lock(&self.inner.faults).clone()
    }

    /// The action of the first fault matching `path` (and, for answer delays, a write), using up
    /// one of its `times`.
    pub(crate) fn take_fault(&self, path: &str, write: bool) -> Option<FaultAction> {
        let mut faults = lock(&self.inner.faults);
        let i = faults
            .iter()
            .position(|f| path.starts_with(&f.path_prefix) && f.action.matches(write))?;
        let action = faults[i].action;
        faults[i].times -= 1;
        if faults[i].times == 0 {
            faults.remove(i);
        }
        Some(action)
    }

    pub(crate) fn record(&self, line: RequestLine) {
        self.inner.request_count.fetch_add(1, Ordering::SeqCst);
        let mut log = lock(&self.inner.requests);
        if log.len() == REQUEST_LOG_CAPACITY {
            log.pop_front();
        }
        log.push_back(line);
    }

    /// Upstream requests since start or the last reset.
    pub fn request_count(&self) -> u64 {
        self.inner.request_count.load(Ordering::SeqCst)
    }

    /// The last `n` requests (at most [`REQUEST_LOG_CAPACITY`]), oldest first.
    pub fn last_requests(&self, n: usize) -> Vec<RequestLine> {
        let log = lock(&self.inner.requests);
        log.iter()
            .skip(log.len().saturating_sub(n))
            .cloned()
            .collect()
    }

    /// The account as reads see it now: the demo data with every write applied. The handle stays
    /// valid (and unchanged) while further writes go on.
    pub fn data(&self) -> Arc<DemoData> {
        self.read_store().snapshot()
    }

    fn read_store(&self) -> std::sync::RwLockReadGuard<'_, Store> {
        self.inner
            .store
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` with the store locked for writing: writes are applied one at a time, and a write
    /// that fails validation (returns `Err`) must leave the store as it was.
    pub(crate) fn write<R>(&self, f: impl FnOnce(&mut Store) -> R) -> R {
        let mut store = self
            .inner
            .store
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut store)
    }

    pub(crate) fn log_write(&self, line: impl FnOnce(u64) -> WriteLine) {
        let mut log = lock(&self.inner.writes);
        let seq = log.next_seq();
        log.push(line(seq));
    }

    /// Every write line kept (at most [`WRITE_LOG_CAPACITY`]), oldest first.
    pub fn writes(&self) -> Vec<WriteLine> {
        lock(&self.inner.writes).lines()
    }

    /// Write requests since start or the last reset, also those the log no longer keeps.
    pub fn write_count(&self) -> u64 {
        lock(&self.inner.writes).total()
    }

    /// Whether the outbox can take another e-mail.
    pub(crate) fn outbox_has_room(&self) -> bool {
        !lock(&self.inner.outbox).is_full()
    }

    /// Puts an e-mail into the outbox; refuses instead of dropping an older one.
    pub(crate) fn send_mail(&self, mail: impl FnOnce(u64) -> OutboxMail) -> Result<(), OutboxFull> {
        let mut outbox = lock(&self.inner.outbox);
        if outbox.is_full() {
            return Err(OutboxFull);
        }
        let seq = outbox.next_seq();
        outbox.push(mail(seq));
        Ok(())
    }

    /// The e-mails delivered invoices sent since start or the last reset, oldest first.
    pub fn outbox(&self) -> Vec<OutboxMail> {
        lock(&self.inner.outbox).lines()
    }

    /// Full quota again, no faults, empty request and write logs and outbox, and the data back to
    /// the demo account as generated.
    pub fn reset(&self) {
        *lock(&self.inner.usage) = NO_USAGE;
        lock(&self.inner.faults).clear();
        lock(&self.inner.requests).clear();
        self.inner.request_count.store(0, Ordering::SeqCst);
        self.write(|store| *store = Store::new(crate::demo_shared()));
        lock(&self.inner.writes).clear();
        lock(&self.inner.outbox).clear();
    }

    /// A fresh UUID-shaped id for the error envelope and `x-request-id`.
    pub(crate) fn correlation_id(&self) -> String {
        let n = self.inner.correlation.fetch_add(1, Ordering::Relaxed);
        let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15) ^ (Arc::as_ptr(&self.inner) as u64);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let hi = z ^ (z >> 31);
        format!(
            "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
            hi >> 32,
            (hi >> 16) & 0xffff,
            hi & 0xfff,
            n & 0xfff,
            n.wrapping_mul(0x2545_F491_4F6C_DD1D) & 0xffff_ffff_ffff
        )
    }
}

fn snapshot(limit: u64, used: u64) -> QuotaSnapshot {
    let used = used.min(limit);
    QuotaSnapshot {
        limit,
        used,
        remaining: limit - used,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_fire_the_given_number_of_times_then_disappear() {
        let s = SandboxState::default();
        s.inject_fault(Fault::status("/api/v1/income", 503).times(2));
        assert_eq!(s.take_fault("/api/v1/expense/vouchers", false), None);
        assert_eq!(
            s.take_fault("/api/v1/income/invoices", false),
            Some(FaultAction::Status(503))
        );
        assert_eq!(
            s.take_fault("/api/v1/income/invoices/1", true),
            Some(FaultAction::Status(503))
        );
        assert_eq!(s.take_fault("/api/v1/income/invoices", false), None);
    }

    #[test]
    fn quota_counts_down_and_stops_at_zero() {
        let s = SandboxState::default().with_monthly_limit(2);
        assert_eq!(s.consume_quota(1).map(|q| q.remaining), Some(1));
        assert_eq!(s.consume_quota(1).map(|q| q.remaining), Some(0));
        assert_eq!(s.consume_quota(1), None);
        s.reset();
        assert_eq!(
            s.quota(),
            QuotaSnapshot {
                limit: 2,
                used: 0,
                remaining: 2
            }
        );
    }

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn quota_month_is_the_calendar_month_in_berlin() {
        for (now, start, next) in [
            // CEST (UTC+2) in summer, CET (UTC+1) in winter.
            (
                "2026-05-31T21:59:59Z",
                "2026-04-30T22:00:00Z",
                "2026-05-31T22:00:00Z",
            ),
            (
                "2026-10-31T23:00:00Z",
                "2026-10-31T23:00:00Z",
                "2026-11-30T23:00:00Z",
            ),
            (
                "2026-12-31T23:30:00Z",
                "2026-12-31T23:00:00Z",
                "2027-01-31T23:00:00Z",
            ),
        ] {
            assert_eq!(quota_month(ts(now)), (ts(start), ts(next)), "{now}");
        }
    }

    #[test]
    fn quota_usage_starts_from_zero_in_a_new_berlin_month() {
        // Two requests, at `first` and `later`: `used` after the second one.
        for (first, later, used) in [
            ("2026-03-01T00:00:00Z", "2026-03-31T21:59:59Z", 2), // 23:59:59 CEST, still March
            ("2026-03-31T21:59:59Z", "2026-03-31T22:00:00Z", 1), // April 1st 00:00 CEST
            ("2026-10-31T22:00:00Z", "2026-10-31T22:59:59Z", 2), // 23:59:59 CET, still October
            ("2026-10-31T22:59:59Z", "2026-10-31T23:00:00Z", 1), // November 1st 00:00 CET
            ("2026-12-31T22:59:59Z", "2026-12-31T23:00:00Z", 1), // January 1st 2027
            ("2026-12-15T12:00:00Z", "2027-12-15T12:00:00Z", 1), // same month, a year later
        ] {
            let s = SandboxState::default();
            s.consume_quota_at(ts(first), 1);
            let q = s.consume_quota_at(ts(later), 1).unwrap();
            assert_eq!(q.used, used, "{first} then {later}");
        }
    }

    #[test]
    fn exhausted_quota_refills_when_the_berlin_month_ends() {
        let s = SandboxState::default().with_monthly_limit(2);
        s.set_quota_remaining_at(ts("2026-03-31T21:00:00Z"), 0);
        assert_eq!(s.consume_quota_at(ts("2026-03-31T21:59:59Z"), 1), None);
        assert_eq!(s.quota_at(ts("2026-03-31T21:59:59Z")).remaining, 0);
        assert_eq!(s.quota_at(ts("2026-03-31T22:00:00Z")).remaining, 2);
        let q = s.consume_quota_at(ts("2026-03-31T22:00:01Z"), 1);
        assert_eq!(q.map(|q| q.remaining), Some(1));
    }

    #[test]
    fn a_cost_larger_than_what_is_left_takes_nothing() {
        let s = SandboxState::default().with_monthly_limit(12);
        assert_eq!(s.consume_quota(10).map(|q| q.remaining), Some(2));
        assert_eq!(s.consume_quota(10), None);
        assert_eq!(s.quota().remaining, 2);
    }

    #[test]
    fn answer_delays_wait_for_a_write() {
        let s = SandboxState::default();
        let late = Fault::delay_answer("/api/v1/income", std::time::Duration::from_millis(5));
        s.inject_fault(late);
        assert_eq!(s.take_fault("/api/v1/income/invoices", false), None);
        assert!(matches!(
            s.take_fault("/api/v1/income/invoices", true),
            Some(FaultAction::DelayAnswer(_))
        ));
        assert!(s.faults().is_empty());
    }

    #[test]
    fn the_outbox_refuses_rather_than_drops() {
        let s = SandboxState::default();
        let mail = |seq| OutboxMail {
            seq,
            invoice_id: 1,
            invoice_no: "RE-1".into(),
            recipient: "a@b.example".into(),
            subject: "s".into(),
            body: String::new(),
            sent_at: String::new(),
        };
        for _ in 0..OUTBOX_CAPACITY {
            s.send_mail(mail).unwrap();
        }
        assert!(!s.outbox_has_room());
        assert_eq!(s.send_mail(mail), Err(OutboxFull));
        assert_eq!(s.outbox().len(), OUTBOX_CAPACITY);
        assert_eq!(s.outbox()[0].seq, 1, "the oldest is still there");
        s.reset();
        assert!(s.outbox().is_empty());
    }

    #[test]
    fn correlation_ids_are_uuid_shaped_and_distinct() {
        let s = SandboxState::default();
        let (a, b) = (s.correlation_id(), s.correlation_id());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(a.matches('-').count(), 4);
    }
}
