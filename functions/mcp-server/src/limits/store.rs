//! Where counters live. The in-memory store is the local default (and, on Lambda, per
//! instance); a shared store (DynamoDB) plugs in beside it. Counting is "add one and read the
//! new value" for several counters at once, so one call costs one store round trip.

use std::collections::HashMap;
use std::sync::Mutex;

/// One counter to add to: its key and when it may be forgotten (seconds since the epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub key: String,
    pub expires: u64,
}

/// Most counters kept in memory; past it, expired ones are dropped first and then, should a
/// flood of new keys (client IPs) keep coming, the fullest half is kept.
const MAX_COUNTERS: usize = 100_000;

#[derive(Debug, Default)]
pub struct MemoryStore {
    counters: Mutex<HashMap<String, (u64, u64)>>,
}

impl MemoryStore {
    /// Adds one to each counter and returns the new counts, in order.
    pub fn hit(&self, hits: &[Hit], now: u64) -> Vec<u64> {
        let mut counters = self
            .counters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if counters.len() >= MAX_COUNTERS {
            prune(&mut counters, now);
        }
        hits.iter()
            .map(|h| {
                let entry = counters.entry(h.key.clone()).or_insert((0, h.expires));
                if entry.1 <= now {
                    *entry = (0, h.expires);
                }
                entry.0 += 1;
                entry.0
            })
            .collect()
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

    fn hit(key: &str, expires: u64) -> Hit {
        Hit {
            key: key.into(),
            expires,
        }
    }

    #[test]
    fn counts_add_up_per_key_and_restart_when_expired() {
        let store = MemoryStore::default();
        assert_eq!(store.hit(&[hit("a", 60), hit("b", 60)], 0), [1, 1]);
        assert_eq!(store.hit(&[hit("a", 60)], 1), [2]);
        assert_eq!(store.hit(&[hit("a", 120)], 60), [1], "a new window");
    }

    #[test]
    fn a_flood_of_keys_stays_bounded() {
        let store = MemoryStore::default();
        for i in 0..(MAX_COUNTERS + 10) {
            store.hit(&[hit(&format!("ip:{i}"), 60)], 0);
        }
        assert!(store.len() <= MAX_COUNTERS, "{}", store.len());
    }
}
