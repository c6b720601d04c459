//! Counters in memory: the local default, the per-IP limit everywhere, the fallback of an
//! instance whose shared table (`items`) fails, and what this instance booked in the table. A
//! [`Tally`] is "add to these counters, within their limits" for everything one tool call
//! counts, so one call is one round trip.

use std::collections::HashMap;
use std::sync::Mutex;

/// One counter to add to: its key (the counter and its window), the amount, a refund taken off
/// first (the unspent part of an earlier reservation), the limit it may not pass, and when it
/// may be forgotten (seconds since the epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub key: String,
    pub add: u64,
    pub refund: u64,
    pub limit: Option<u64>,
    pub expires: u64,
}

/// Everything one tool call counts. All of it or, when a hit would pass its limit, none (so a
/// refused call costs no one anything).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tally {
    pub hits: Vec<Hit>,
}

/// The answer to a tally: the new value of each hit, in order; or refused, naming the hits
/// (by index) that would have passed their limit, with their counts as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Counted {
    Values(Vec<u64>),
    Refused(Vec<(usize, u64)>),
}

/// Most counters kept in memory; past it, expired ones are dropped first and then, should a
/// flood of new keys (client IPs) keep coming, the fullest half is kept.
const MAX_COUNTERS: usize = 100_000;

#[derive(Debug, Default)]
pub(crate) struct MemoryStore {
    counters: Mutex<HashMap<String, (u64, u64)>>,
}

impl MemoryStore {
    /// Adds `add` to one counter and returns its new count.
    pub(crate) fn add(&self, key: &str, add: u64, expires: u64, now: u64) -> u64 {
        let mut counters = self.lock(now);
        let entry = live(&mut counters, key, expires, now);
        entry.0 += add;
        entry.0
    }

    /// A tally, with the same meaning as the shared table's.
    pub(crate) fn count(&self, tally: &Tally, now: u64) -> Counted {
        let mut counters = self.lock(now);
        let refused: Vec<(usize, u64)> = tally
            .hits
            .iter()
            .enumerate()
            .filter_map(|(i, h)| {
                let limit = h.limit?;
                let count = live(&mut counters, &h.key, h.expires, now).0;
                (count.saturating_sub(h.refund) + h.add > limit).then_some((i, count))
            })
            .collect();
        if !refused.is_empty() {
            return Counted::Refused(refused);
        }
        Counted::Values(apply(&mut counters, tally, now))
    }

    /// A tally the table admitted, booked here too, limits unchecked: the counts this
    /// instance knows of.
    pub(crate) fn book(&self, tally: &Tally, now: u64) -> Vec<u64> {
        let mut counters = self.lock(now);
        apply(&mut counters, tally, now)
    }

    /// A count the table reported: this instance knows at least that much.
    pub(crate) fn learn(&self, key: &str, count: u64, expires: u64, now: u64) {
        let mut counters = self.lock(now);
        let entry = live(&mut counters, key, expires, now);
        entry.0 = entry.0.max(count);
    }

    /// The count of a counter (0 when there is none).
    pub(crate) fn get(&self, key: &str, now: u64) -> u64 {
        let counters = self.lock(now);
        counters
            .get(key)
            .filter(|(_, expires)| *expires > now)
            .map_or(0, |(count, _)| *count)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.counters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    fn lock(&self, now: u64) -> std::sync::MutexGuard<'_, HashMap<String, (u64, u64)>> {
        let mut counters = self
            .counters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if counters.len() >= MAX_COUNTERS {
            prune(&mut counters, now);
        }
        counters
    }
}

fn apply(counters: &mut HashMap<String, (u64, u64)>, tally: &Tally, now: u64) -> Vec<u64> {
    tally
        .hits
        .iter()
        .map(|h| {
            let entry = live(counters, &h.key, h.expires, now);
            entry.0 = entry.0.saturating_sub(h.refund) + h.add;
            entry.0
        })
        .collect()
}

/// The counter under `key`, restarted at 0 when its window is over.
fn live<'a>(
    counters: &'a mut HashMap<String, (u64, u64)>,
    key: &str,
    expires: u64,
    now: u64,
) -> &'a mut (u64, u64) {
    // A key already counted is found without building an owned copy of it.
    if !counters.contains_key(key) {
        counters.insert(key.to_string(), (0, expires));
    }
    let entry = counters.get_mut(key).expect("inserted above");
    if entry.1 <= now {
        *entry = (0, expires);
    }
    entry
}

fn prune(counters: &mut HashMap<String, (u64, u64)>, now: u64) {
    counters.retain(|_, (_, expires)| *expires > now);
    if counters.len() >= MAX_COUNTERS {
        // Still full of live counters: keep the busier half (a flood's one-off keys go).
        let mut counts: Vec<u64> = counters.values().map(|(c, _)| *c).collect();
        let mid = counts.len() / 2;
        let (_, median, _) = counts.select_nth_unstable(mid);
        let median = *median;
        counters.retain(|_, (c, _)| *c > median);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(key: &str, add: u64, limit: Option<u64>) -> Hit {
        Hit {
            key: key.into(),
            add,
            refund: 0,
            limit,
            expires: 100,
        }
    }

    #[test]
    fn counts_add_up_per_key_and_restart_when_expired() {
        let store = MemoryStore::default();
        assert_eq!(store.add("a", 1, 60, 0), 1);
        assert_eq!(store.add("a", 2, 60, 1), 3);
        assert_eq!(store.add("a", 1, 120, 60), 1, "a new window");
    }

    #[test]
    fn a_tally_counts_nothing_once_a_limit_would_be_passed() {
        let store = MemoryStore::default();
        let tally = Tally {
            hits: vec![hit("calls", 1, Some(2)), hit("other", 5, None)],
        };
        assert_eq!(store.count(&tally, 0), Counted::Values(vec![1, 5]));
        assert_eq!(store.count(&tally, 0), Counted::Values(vec![2, 10]));
        assert_eq!(store.count(&tally, 0), Counted::Refused(vec![(0, 2)]));
        assert_eq!(store.get("other", 0), 10, "the refused tally added nothing");
    }

    #[test]
    fn a_refund_is_taken_off_before_the_limit_is_checked() {
        let store = MemoryStore::default();
        let reserve = Tally {
            hits: vec![hit("b", 3, Some(3))],
        };
        assert_eq!(store.count(&reserve, 0), Counted::Values(vec![3]));
        assert_eq!(store.count(&reserve, 0), Counted::Refused(vec![(0, 3)]));
        let mut returned = reserve.clone();
        returned.hits[0].refund = 2;
        returned.hits[0].add = 1;
        assert_eq!(store.count(&returned, 0), Counted::Values(vec![2]));
    }

    #[test]
    fn what_the_table_reported_raises_what_is_known() {
        let store = MemoryStore::default();
        store.book(
            &Tally {
                hits: vec![hit("b", 2, Some(5))],
            },
            0,
        );
        store.learn("b", 4, 100, 0);
        store.learn("b", 1, 100, 0);
        assert_eq!(store.get("b", 0), 4);
    }

    #[test]
    fn a_flood_of_keys_stays_bounded() {
        let store = MemoryStore::default();
        for i in 0..(MAX_COUNTERS + 10) {
            store.add(&format!("ip:{i}"), 1, 60, 0);
        }
        assert!(store.len() <= MAX_COUNTERS, "{}", store.len());
    }
}
