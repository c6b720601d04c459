//! The short in-process cache behind completions (`complete`, `remote_prompt_complete`): an answer is
//! kept [`TTL`] and at most [`MAX_ENTRIES`] are held, the oldest dropped when a new one would
//! exceed it. On Lambda it lives per instance, so a cold instance asks once more.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::inventory::DeployedCatalog;

/// How long an answer serves completions: long enough for a person typing a name, short
/// enough that a new customer shows up within the minute.
pub(crate) const TTL: Duration = Duration::from_secs(30);
/// The most answers kept.
pub(super) const MAX_ENTRIES: usize = 256;

/// Whether a connector's answers may be kept and served to everyone the deployment serves: it
/// acts as the deployment, not with each person's own account (`auth: oauth_user`). A person's
/// upstream data is never cached, so it reaches nobody else and, once they disconnect, not
/// them either: every completion of such a connector passes the credentials stage.
pub(super) fn shareable(conn: &DeployedCatalog) -> bool {
    conn.catalog.auth.oauth_user.is_none()
}

/// Recent answers by key, each kept for the cache's time to live.
#[derive(Debug)]
pub(super) struct ShortCache<K, V> {
    ttl: Duration,
    entries: Mutex<HashMap<K, (Instant, V)>>,
}

impl<K, V> Default for ShortCache<K, V> {
    fn default() -> Self {
        Self::with_ttl(TTL)
    }
}

impl<K, V> ShortCache<K, V> {
    fn with_ttl(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash + Clone, V: Clone> ShortCache<K, V> {
    /// The answer kept for `key`, when it is fresh.
    pub(super) fn get(&self, key: &K) -> Option<V> {
        let entries = self.entries.lock().ok()?;
        let (at, value) = entries.get(key)?;
        (at.elapsed() < self.ttl).then(|| value.clone())
    }

    /// Keeps `value` for `key`, dropping expired answers, then the oldest one when full.
    pub(super) fn put(&self, key: K, value: V) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        entries.retain(|_, (at, _)| at.elapsed() < self.ttl);
        if entries.len() >= MAX_ENTRIES
            && !entries.contains_key(&key)
            && let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone())
        {
            entries.remove(&oldest);
        }
        entries.insert(key, (Instant::now(), value));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().map(|e| e.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_served_for_its_key_and_the_cache_stays_bounded() {
        let cache = ShortCache::<usize, String>::default();
        cache.put(0, "zero".into());
        assert_eq!(cache.get(&0).as_deref(), Some("zero"));
        assert_eq!(cache.get(&1), None);
        for i in 0..MAX_ENTRIES + 10 {
            cache.put(i, i.to_string());
        }
        assert_eq!(cache.len(), MAX_ENTRIES);
        assert_eq!(cache.get(&0), None, "the oldest went first");
        let last = MAX_ENTRIES + 9;
        assert_eq!(cache.get(&last), Some(last.to_string()));
    }

    #[test]
    fn an_expired_answer_is_not_served_and_is_dropped_on_the_next_put() {
        let cache = ShortCache::<&str, u8>::with_ttl(Duration::ZERO);
        cache.put("a", 1);
        assert_eq!(cache.get(&"a"), None);
        cache.put("b", 2);
        assert_eq!(cache.len(), 1);
    }
}
