//! Budget reservations and their refunds: a [`Reservation`] rides with a tool call, and what
//! the call did not send goes back as a refund that this instance's next tally carries (whoever
//! makes it), so settling costs no request of its own.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::store::{Hit, Tally};
use super::window::Window;

/// Requests reserved on a budget counter. Settling it books the part not sent as a refund,
/// which the next tally of this instance carries; dropping it unsettled books all of it.
#[derive(Debug)]
pub struct Reservation {
    connector: String,
    key: String,
    expires: u64,
    reserved: u64,
    settled: AtomicBool,
    refunds: Arc<Mutex<Refunds>>,
}

impl Reservation {
    /// `reserved` requests on the budget counter of `hit`, for a call on `connector`.
    pub(super) fn new(
        connector: String,
        hit: &Hit,
        reserved: u64,
        refunds: Arc<Mutex<Refunds>>,
    ) -> Self {
        Reservation {
            connector,
            key: hit.key.clone(),
            expires: hit.expires,
            reserved,
            settled: AtomicBool::new(false),
            refunds,
        }
    }

    /// Whether this reservation is on `connector`'s budget.
    pub(super) fn is_on(&self, connector: &str) -> bool {
        self.connector == connector
    }

    /// The call sent `sent` requests and is over: the rest is refunded now, once.
    pub(super) fn settle(&self, sent: u64) {
        if !self.settled.swap(true, Ordering::AcqRel) {
            self.refund(self.reserved.saturating_sub(sent));
        }
    }

    fn refund(&self, unsent: u64) {
        if unsent > 0 {
            let mut refunds = self
                .refunds
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            refunds
                .0
                .entry(self.key.clone())
                .or_insert((0, self.expires))
                .0 += unsent;
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // Never settled: the call sent nothing it reported, so all of it goes back.
        self.settle(0);
    }
}

/// Unspent reservations by counter key: the amount and the counter's expiry.
#[derive(Debug, Default)]
pub(super) struct Refunds(pub(super) BTreeMap<String, (u64, u64)>);

/// At most this many other counters' refunds ride with one tally (a transaction holds 100).
const REFUNDS_PER_TALLY: usize = 20;

impl Refunds {
    /// The refund waiting for counter `key`, taken.
    pub(super) fn take_of(&mut self, key: &str) -> u64 {
        self.0.remove(key).map_or(0, |(amount, _)| amount)
    }

    /// Up to [`REFUNDS_PER_TALLY`] waiting refunds of counters other than the tally's, taken;
    /// those of a day that is over are dropped (their counters count no more).
    pub(super) fn take_others(&mut self, day: u64, tally: &Tally) -> Vec<Hit> {
        self.0
            .retain(|_, (_, expires)| *expires > day + Window::UtcDay.seconds());
        let keys: Vec<String> = self
            .0
            .keys()
            .filter(|k| !tally.hits.iter().any(|h| &h.key == *k))
            .take(REFUNDS_PER_TALLY)
            .cloned()
            .collect();
        keys.into_iter()
            .filter_map(|key| {
                let (refund, expires) = self.0.remove(&key)?;
                Some(Hit {
                    key,
                    add: 0,
                    refund,
                    limit: None,
                    expires,
                })
            })
            .collect()
    }

    /// Puts a refused tally's refunds back.
    pub(super) fn restore(&mut self, tally: &Tally) {
        for hit in tally.hits.iter().filter(|h| h.refund > 0) {
            self.0.entry(hit.key.clone()).or_insert((0, hit.expires)).0 += hit.refund;
        }
    }
}
