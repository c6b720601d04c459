//! The vault in memory, per process: the local store of `serve` and the tests. Tokens live as
//! long as the process and are never written anywhere.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{
    Connection, EntryKey, Grant, MAX_LISTED, Person, Stored, VaultError, VaultFuture, VaultStore,
};

/// The most entries one process keeps; a new connection past it is refused.
const MAX_ENTRIES: usize = 100_000;

#[derive(Debug)]
struct Entry {
    stored: Stored,
    connected_at: u64,
}

#[derive(Debug, Default)]
pub(crate) struct MemoryVault {
    /// By person id, then slot.
    entries: Mutex<HashMap<String, HashMap<String, Entry>>>,
    /// The last version given out, by any entry: versions only grow, so a connection made
    /// again after a removal never gets a version a refresh in flight still holds.
    last_version: AtomicU64,
}

impl MemoryVault {
    fn next_version(&self) -> u64 {
        self.last_version.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn with<T>(&self, f: impl FnOnce(&mut HashMap<String, HashMap<String, Entry>>) -> T) -> T {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut entries)
    }

    fn entry<T>(&self, key: &EntryKey, f: impl FnOnce(Option<&mut Entry>) -> T) -> T {
        self.with(|all| {
            f(all
                .get_mut(&key.person().id())
                .and_then(|p| p.get_mut(&key.slot())))
        })
    }
}

impl VaultStore for MemoryVault {
    fn get<'a>(&'a self, key: &'a EntryKey) -> VaultFuture<'a, Option<Stored>> {
        let found = self.entry(key, |e| e.map(|e| e.stored.clone()));
        Box::pin(async move { Ok(found) })
    }

    fn put<'a>(&'a self, key: &'a EntryKey, grant: &'a Grant, now: u64) -> VaultFuture<'a, ()> {
        let done = self.with(|all| {
            let count: usize = all.values().map(HashMap::len).sum();
            let person = all.entry(key.person().id()).or_default();
            let new = !person.contains_key(&key.slot());
            if new && count >= MAX_ENTRIES {
                return Err(VaultError::Unavailable(
                    "too many connections in memory".into(),
                ));
            }
            person.insert(
                key.slot(),
                Entry {
                    stored: Stored {
                        grant: grant.clone(),
                        version: self.next_version(),
                        refreshing_until: None,
                    },
                    connected_at: now,
                },
            );
            Ok(())
        });
        Box::pin(async move { done })
    }

    fn claim_refresh<'a>(
        &'a self,
        key: &'a EntryKey,
        version: u64,
        now: u64,
        until: u64,
    ) -> VaultFuture<'a, bool> {
        let won = self.entry(key, |e| match e {
            Some(e)
                if e.stored.version == version
                    && e.stored.refreshing_until.is_none_or(|u| u < now) =>
            {
                e.stored.refreshing_until = Some(until);
                true
            }
            _ => false,
        });
        Box::pin(async move { Ok(won) })
    }

    fn replace<'a>(
        &'a self,
        key: &'a EntryKey,
        version: u64,
        grant: &'a Grant,
    ) -> VaultFuture<'a, bool> {
        let done = self.entry(key, |e| match e {
            Some(e) if e.stored.version == version => {
                e.stored = Stored {
                    grant: grant.clone(),
                    version: self.next_version(),
                    refreshing_until: None,
                };
                true
            }
            _ => false,
        });
        Box::pin(async move { Ok(done) })
    }

    fn remove<'a>(&'a self, key: &'a EntryKey) -> VaultFuture<'a, bool> {
        let had = self.with(|all| {
            let id = key.person().id();
            let had = all
                .get_mut(&id)
                .and_then(|p| p.remove(&key.slot()))
                .is_some();
            if all.get(&id).is_some_and(HashMap::is_empty) {
                all.remove(&id);
            }
            had
        });
        Box::pin(async move { Ok(had) })
    }

    fn list<'a>(&'a self, person: &'a Person) -> VaultFuture<'a, Vec<Connection>> {
        let mut list: Vec<Connection> = self.with(|all| {
            all.get(&person.id())
                .into_iter()
                .flatten()
                .filter_map(|(slot, e)| {
                    let grant = &e.stored.grant;
                    let c = Connection::from_slot(slot, grant.expires_at, e.connected_at)?;
                    let granted = grant.scopes.as_ref().map(|g| g.iter().map(String::as_str));
                    Some(c.holding(granted))
                })
                .collect()
        });
        list.sort_by(|a, b| (&a.connector, &a.scopes).cmp(&(&b.connector, &b.scopes)));
        list.truncate(MAX_LISTED);
        Box::pin(async move { Ok(list) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(sub: &str, connector: &str, scopes: &[&str]) -> EntryKey {
        let person = Person::new("https://id.example", sub).unwrap();
        EntryKey::new(person, connector, scopes.iter().copied()).unwrap()
    }

    fn grant(token: &str) -> Grant {
        Grant {
            access_token: token.into(),
            refresh_token: Some(format!("{token}-refresh")),
            expires_at: Some(1000),
            scopes: None,
        }
    }

    #[tokio::test]
    async fn each_person_gets_their_own_token_and_nobody_elses() {
        let v = MemoryVault::default();
        let alice = key("alice", "mail", &["read"]);
        let bob = key("bob", "mail", &["read"]);
        v.put(&alice, &grant("alice-token"), 1).await.unwrap();
        v.put(&bob, &grant("bob-token"), 2).await.unwrap();
        assert_eq!(
            v.get(&alice).await.unwrap().unwrap().grant.access_token,
            "alice-token"
        );
        assert_eq!(
            v.get(&bob).await.unwrap().unwrap().grant.access_token,
            "bob-token"
        );
        assert_eq!(
            v.get(&key("alice", "mail", &["read", "send"]))
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            v.get(&key("alice", "calendar", &["read"])).await.unwrap(),
            None
        );
        let listed = v.list(alice.person()).await.unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].connector.as_str(), listed[0].connected_at),
            ("mail", 1)
        );
        assert!(v.remove(&alice).await.unwrap());
        assert!(!v.remove(&alice).await.unwrap());
        assert_eq!(v.get(&alice).await.unwrap(), None);
        assert!(v.get(&bob).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn one_refresh_at_a_time_and_only_of_the_version_read() {
        let v = MemoryVault::default();
        let k = key("alice", "mail", &["read"]);
        v.put(&k, &grant("one"), 1).await.unwrap();
        let version = v.get(&k).await.unwrap().unwrap().version;
        assert!(v.claim_refresh(&k, version, 10, 40).await.unwrap());
        assert!(
            !v.claim_refresh(&k, version, 11, 41).await.unwrap(),
            "leased"
        );
        assert!(
            v.claim_refresh(&k, version, 41, 70).await.unwrap(),
            "lease ran out"
        );
        assert!(v.replace(&k, version, &grant("two")).await.unwrap());
        assert!(
            !v.replace(&k, version, &grant("three")).await.unwrap(),
            "moved on"
        );
        let now = v.get(&k).await.unwrap().unwrap();
        assert_eq!(
            (now.grant.access_token.as_str(), now.version),
            ("two", version + 1)
        );
        assert_eq!(now.refreshing_until, None);
        v.put(&k, &grant("reconnected"), 50).await.unwrap();
        assert!(
            !v.claim_refresh(&k, version + 1, 51, 80).await.unwrap(),
            "a new connection"
        );
    }

    #[tokio::test]
    async fn a_refresh_in_flight_never_restores_or_overwrites_after_a_disconnect() {
        let v = MemoryVault::default();
        let k = key("alice", "mail", &["read"]);
        v.put(&k, &grant("one"), 1).await.unwrap();
        let first = v.get(&k).await.unwrap().unwrap().version;
        assert!(v.claim_refresh(&k, first, 10, 40).await.unwrap());
        assert!(v.remove(&k).await.unwrap());
        assert!(!v.replace(&k, first, &grant("stale")).await.unwrap());
        assert_eq!(v.get(&k).await.unwrap(), None, "not restored");
        v.put(&k, &grant("again"), 20).await.unwrap();
        let second = v.get(&k).await.unwrap().unwrap().version;
        assert!(second > first, "versions never go back");
        assert!(!v.replace(&k, first, &grant("stale")).await.unwrap());
        assert_eq!(
            v.get(&k).await.unwrap().unwrap().grant.access_token,
            "again"
        );
    }
}
