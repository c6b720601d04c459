//! Counters in memory: the local default, the per-IP limit everywhere, and the fallback of an
//! instance whose shared table (`table`) fails. A [`Tally`] is "add to these counters and read
//! the new values" for everything one tool call counts, so one call is one round trip.

use std::collections::HashMap;
use std::sync::Mutex;

/// One counter to add to: its key, the amount, and when it may be forgotten (seconds since the
/// epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub key: String,
    pub add: u64,
    pub expires: u64,
}

/// Everything one tool call counts: hits on the counters of one day (`item`, kept until
/// `expires`), counters of that day no longer needed (`stale`), and `guards` that refuse the
/// whole tally, counting nothing, when a counter would pass its limit (so a refused call
/// costs no one else anything).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    pub item: String,
    pub expires: u64,
    pub hits: Vec<Hit>,
    pub stale: Vec<String>,
    pub guards: Vec<Guard>,
}

/// `hits[hit]` may not go past `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guard {
    pub hit: usize,
    pub limit: u64,
}

/// The answer to a tally: the new value of each hit, in order; or refused by a guard, with
/// the values as they are (so the caller can tell which guard).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counted {
    Values(Vec<u64>),
    Refused(Vec<u64>),
}

impl Tally {
    /// The first guard that `values` (the counters before this tally) fail.
    pub fn failed_guard(&self, values: &[u64]) -> Option<Guard> {
        self.guards.iter().copied().find(|g| {
            let add = self.hits.get(g.hit).map_or(0, |h| h.add);
            values.get(g.hit).is_some_and(|v| v + add > g.limit)
        })
    }
}

/// Most counters kept in memory; past it, expired ones are dropped first and then, should a
/// flood of new keys (client IPs) keep coming, the fullest half is kept.
const MAX_COUNTERS: usize = 100_000;

#[derive(Debug, Default)]
pub struct MemoryStore {
    counters: Mutex<HashMap<String, (u64, u64)>>,
}

impl MemoryStore {
    /// Adds to each counter and returns the new counts, in order.
    pub fn hit(&self, hits: &[Hit], now: u64) -> Vec<u64> {
        let mut counters = self.lock(now);
        hits.iter()
            .map(|h| {
                let entry = live(&mut counters, &h.key, h.expires, now);
                entry.0 += h.add;
                entry.0
            })
            .collect()
    }

    /// A tally, with the same meaning as the shared table's.
    pub fn count(&self, tally: &Tally, now: u64) -> Counted {
        let key = |hit: &Hit| format!("{}/{}", tally.item, hit.key);
        let mut counters = self.lock(now);
        if !tally.guards.is_empty() {
            let current: Vec<u64> = tally
                .hits
                .iter()
                .map(|h| live(&mut counters, &key(h), h.expires, now).0)
                .collect();
            if tally.failed_guard(&current).is_some() {
                return Counted::Refused(current);
            }
        }
        for stale in &tally.stale {
            counters.remove(&format!("{}/{stale}", tally.item));
        }
        Counted::Values(
            tally
                .hits
                .iter()
                .map(|h| {
                    let entry = live(&mut counters, &key(h), h.expires, now);
                    entry.0 += h.add;
                    entry.0
                })
                .collect(),
        )
    }

    pub fn len(&self) -> usize {
        self.counters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    fn hit(key: &str, add: u64, expires: u64) -> Hit {
        Hit {
            key: key.into(),
            add,
            expires,
        }
    }

    #[test]
    fn counts_add_up_per_key_and_restart_when_expired() {
        let store = MemoryStore::default();
        assert_eq!(store.hit(&[hit("a", 1, 60), hit("b", 1, 60)], 0), [1, 1]);
        assert_eq!(store.hit(&[hit("a", 2, 60)], 1), [3]);
        assert_eq!(store.hit(&[hit("a", 1, 120)], 60), [1], "a new window");
    }

    #[test]
    fn a_guarded_tally_counts_nothing_once_its_limit_is_reached() {
        let store = MemoryStore::default();
        let tally = Tally {
            item: "day".into(),
            expires: 100,
            hits: vec![hit("calls", 1, 100), hit("other", 5, 100)],
            stale: vec![],
            guards: vec![Guard { hit: 0, limit: 2 }],
        };
        assert_eq!(store.count(&tally, 0), Counted::Values(vec![1, 5]));
        assert_eq!(store.count(&tally, 0), Counted::Values(vec![2, 10]));
        assert_eq!(store.count(&tally, 0), Counted::Refused(vec![2, 10]));
        assert_eq!(tally.failed_guard(&[2, 10]), Some(tally.guards[0]));
        let unguarded = Tally {
            guards: vec![],
            ..tally
        };
        assert_eq!(
            store.count(&unguarded, 0),
            Counted::Values(vec![3, 15]),
            "the refused tally added nothing"
        );
    }

    #[test]
    fn stale_counters_are_dropped() {
        let store = MemoryStore::default();
        let mut tally = Tally {
            item: "day".into(),
            expires: 100,
            hits: vec![hit("m1", 1, 100)],
            stale: vec![],
            guards: vec![],
        };
        store.count(&tally, 0);
        tally.hits = vec![hit("m2", 1, 100)];
        tally.stale = vec!["m1".into()];
        store.count(&tally, 0);
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn a_flood_of_keys_stays_bounded() {
        let store = MemoryStore::default();
        for i in 0..(MAX_COUNTERS + 10) {
            store.hit(&[hit(&format!("ip:{i}"), 1, 60)], 0);
        }
        assert!(store.len() <= MAX_COUNTERS, "{}", store.len());
    }
}
