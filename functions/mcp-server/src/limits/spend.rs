//! Spending limits: what a caller may spend on a connector per UTC day in the upstream's own
//! unit (`quota.caller_daily_spend`), counted on the item `s#<caller>#<connector>#<date>` like
//! a budget. A call's spend depends on its validated arguments (credits per second × the
//! `duration` it asks for), which the edge has not seen, so the call pipeline reserves it in a
//! tally of its own, once the arguments are valid and before anything is sent; only calls of
//! tools that spend make it. The reservation is exact (all or nothing, within the limit, in
//! the table when there is one) and rides with the call; a call that started nothing settles
//! it with nothing spent and the whole amount goes back with this instance's next tally.

use std::sync::Arc;

use super::Limits;
use super::reservation::Reservation;
use super::store::{Counted, Hit, Tally};
use super::window::Window;

/// A spend reserved for one call: the limit, what was spent before it (as counted with the
/// reservation), the amount, and when the day resets.
#[derive(Debug)]
pub struct Spending {
    pub limit: u64,
    pub spent_before: u64,
    pub amount: u64,
    pub reset_after_s: u64,
    reservation: Arc<Reservation>,
}

impl Spending {
    /// What is left of the day's limit once this call's spend is counted.
    pub fn remaining(&self) -> u64 {
        self.limit
            .saturating_sub(self.spent_before.saturating_add(self.amount))
    }

    /// The call is over: `started` keeps the amount spent, otherwise all of it goes back.
    pub fn settle(&self, started: bool) {
        self.reservation
            .settle(if started { self.amount } else { 0 });
    }
}

/// A spend the day's limit could not hold: the limit, what was spent (as counted when
/// refused), what the call asked for, and when the day resets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpendRefused {
    pub limit: u64,
    pub spent: u64,
    pub amount: u64,
    pub reset_after_s: u64,
}

impl SpendRefused {
    pub fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.spent)
    }
}

impl Limits {
    /// Reserves `amount` of `caller`'s daily spend on `connector` (limit `limit`): one tally
    /// with the refunds of earlier calls. `None` when spending is not counted (budgets off, or
    /// a call that spends nothing).
    pub async fn spend(
        &self,
        caller: &str,
        connector: &str,
        limit: u64,
        amount: u64,
        now: u64,
    ) -> Option<Result<Spending, SpendRefused>> {
        if !self.settings.budgets || limit == 0 || amount == 0 {
            return None;
        }
        let day = Window::UtcDay.start(now);
        let key = format!("s#{caller}#{connector}#{}", super::date(day));
        let hit = Hit {
            refund: self.take_refund_of(&key),
            key,
            add: amount,
            limit: Some(limit),
            // Kept a day past its end: a late refund finds it.
            expires: day + 2 * Window::UtcDay.seconds(),
        };
        let mut tally = Tally { hits: vec![hit] };
        let others = self.take_refunds(day, &tally);
        tally.hits.extend(others);
        let reset_after_s = Window::UtcDay.reset_after(now);
        match self.calls.count(&tally, now).await {
            Counted::Values(values) => {
                let hit = &tally.hits[0];
                Some(Ok(Spending {
                    limit,
                    spent_before: values[0].saturating_sub(amount),
                    amount,
                    reset_after_s,
                    reservation: Arc::new(Reservation::new(
                        connector.to_string(),
                        hit,
                        amount,
                        Arc::clone(&self.refunds),
                    )),
                }))
            }
            Counted::Refused(failed) => {
                self.lock_refunds().restore(&tally);
                let count = failed.iter().find(|(i, _)| *i == 0).map_or(limit, |f| f.1);
                Some(Err(SpendRefused {
                    limit,
                    spent: count.saturating_sub(tally.hits[0].refund).min(limit),
                    amount,
                    reset_after_s,
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::limits::Thresholds;

    const NOW: u64 = 1_796_120_477; // 2026-12-01 10:21:17 UTC

    fn limits() -> Limits {
        Limits::new(Thresholds::DEFAULT, BTreeMap::new(), None)
    }

    #[tokio::test]
    async fn a_spend_past_the_limit_is_refused_with_what_is_left_and_the_reset() {
        let limits = limits();
        let first = limits
            .spend("a", "runway", 100, 60, NOW)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((first.spent_before, first.remaining()), (0, 40));
        first.settle(true);
        let refused = limits
            .spend("a", "runway", 100, 50, NOW)
            .await
            .unwrap()
            .unwrap_err();
        assert_eq!(refused.remaining(), 40);
        assert_eq!(refused.amount, 50);
        assert_eq!(refused.reset_after_s, 86_400 - (10 * 3600 + 21 * 60 + 17));
        // What fits is still taken, and another caller and tomorrow have their own.
        let fits = limits
            .spend("a", "runway", 100, 40, NOW)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(fits.remaining(), 0);
        fits.settle(true);
        assert!(
            limits
                .spend("b", "runway", 100, 100, NOW)
                .await
                .unwrap()
                .is_ok()
        );
        assert!(
            limits
                .spend("a", "runway", 100, 1, NOW + 86_400)
                .await
                .unwrap()
                .is_ok()
        );
    }

    #[tokio::test]
    async fn a_call_that_started_nothing_gets_its_spend_back() {
        let limits = limits();
        let nothing = limits
            .spend("a", "replicate", 2, 2, NOW)
            .await
            .unwrap()
            .unwrap();
        nothing.settle(false);
        let again = limits
            .spend("a", "replicate", 2, 2, NOW)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            again.spent_before, 0,
            "the refund came back with this tally"
        );
        again.settle(true);
        // Settled once: dropping it later gives nothing back.
        drop(again);
        assert!(
            limits
                .spend("a", "replicate", 2, 1, NOW)
                .await
                .unwrap()
                .is_err()
        );
        // Dropped unsettled (the call never got that far): all of it goes back.
        let other = limits
            .spend("b", "replicate", 2, 2, NOW)
            .await
            .unwrap()
            .unwrap();
        drop(other);
        assert!(
            limits
                .spend("b", "replicate", 2, 2, NOW)
                .await
                .unwrap()
                .is_ok()
        );
    }

    #[tokio::test]
    async fn spending_is_not_counted_with_budgets_off_or_for_a_free_call() {
        let off = Limits::new(Thresholds::OFF, BTreeMap::new(), None);
        assert!(off.spend("a", "runway", 1, 5, NOW).await.is_none());
        assert!(limits().spend("a", "runway", 1, 0, NOW).await.is_none());
    }
}
