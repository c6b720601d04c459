//! The authorization server's store in memory, per process: `serve`'s and the tests'. Bounded:
//! past [`MAX_ENTRIES`] in a map, the expired entries go first, then the whole map is refused
//! rather than grown (a flood of registrations cannot exhaust memory).

use std::collections::HashMap;
use std::sync::Mutex;

use super::store::{Code, IssuerStore, Refresh, Registration, StoreError, StoreFuture, Taken};

/// The most entries of one kind kept.
const MAX_ENTRIES: usize = 50_000;

#[derive(Default)]
pub(crate) struct MemoryIssuer {
    inner: Mutex<Maps>,
}

#[derive(Default)]
struct Maps {
    registrations: HashMap<(String, u64), u32>,
    clients: HashMap<String, Registration>,
    /// A code and whether it was taken.
    codes: HashMap<String, (Code, bool)>,
    refresh: HashMap<String, (Refresh, bool)>,
    revoked: HashMap<String, ()>,
    claimed: HashMap<String, u64>,
}

fn ready<'a, T: Send + 'a>(value: Result<T, StoreError>) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

fn full() -> StoreError {
    StoreError::Unavailable("the in-memory store is full".into())
}

/// Room for one more entry, dropping what `expired` says is gone first.
fn room<V>(map: &mut HashMap<String, V>, expired: impl Fn(&V) -> bool) -> Result<(), StoreError> {
    if map.len() >= MAX_ENTRIES {
        map.retain(|_, v| !expired(v));
    }
    if map.len() >= MAX_ENTRIES {
        return Err(full());
    }
    Ok(())
}

/// A single-use take: fresh once, then replayed; the family comes from the entry.
fn take<T: Clone>(
    map: &mut HashMap<String, (T, bool)>,
    hash: &str,
    alive: impl Fn(&T) -> bool,
    family: impl Fn(&T) -> String,
) -> Taken<T> {
    match map.get_mut(hash) {
        Some((value, true)) => Taken::Replayed {
            family: family(value),
        },
        Some((value, used)) if alive(value) => {
            *used = true;
            Taken::Fresh(value.clone())
        }
        _ => Taken::Missing,
    }
}

impl MemoryIssuer {
    fn with<T>(&self, f: impl FnOnce(&mut Maps) -> Result<T, StoreError>) -> Result<T, StoreError> {
        f(&mut self.inner.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl IssuerStore for MemoryIssuer {
    fn note_registration<'a>(&'a self, ip: &'a str, window: u64) -> StoreFuture<'a, u32> {
        ready(self.with(|m| {
            m.registrations.retain(|(_, w), _| *w >= window);
            if m.registrations.len() >= MAX_ENTRIES {
                return Err(full());
            }
            let n = m.registrations.entry((ip.to_string(), window)).or_default();
            *n += 1;
            Ok(*n)
        }))
    }

    fn put_client<'a>(&'a self, client: &'a Registration) -> StoreFuture<'a, ()> {
        let now = crate::clock::now_s();
        ready(self.with(|m| {
            room(&mut m.clients, |c| c.expires_at <= now)?;
            m.clients.insert(client.id.clone(), client.clone());
            Ok(())
        }))
    }

    fn client<'a>(&'a self, id: &'a str, now: u64) -> StoreFuture<'a, Option<Registration>> {
        ready(self.with(|m| Ok(m.clients.get(id).filter(|c| c.expires_at > now).cloned())))
    }

    fn put_code<'a>(&'a self, hash: &'a str, code: &'a Code) -> StoreFuture<'a, ()> {
        let now = crate::clock::now_s();
        ready(self.with(|m| {
            room(&mut m.codes, |(c, _)| c.expires_at <= now)?;
            m.codes.insert(hash.to_string(), (code.clone(), false));
            Ok(())
        }))
    }

    fn take_code<'a>(&'a self, hash: &'a str, now: u64) -> StoreFuture<'a, Taken<Code>> {
        ready(self.with(|m| {
            Ok(take(
                &mut m.codes,
                hash,
                |c| c.expires_at > now,
                |c| c.grant.family.clone(),
            ))
        }))
    }

    fn put_refresh<'a>(&'a self, hash: &'a str, refresh: &'a Refresh) -> StoreFuture<'a, ()> {
        let now = crate::clock::now_s();
        ready(self.with(|m| {
            room(&mut m.refresh, |(r, _)| r.expires_at <= now)?;
            m.refresh.insert(hash.to_string(), (refresh.clone(), false));
            Ok(())
        }))
    }

    fn take_refresh<'a>(&'a self, hash: &'a str, now: u64) -> StoreFuture<'a, Taken<Refresh>> {
        ready(self.with(|m| {
            Ok(take(
                &mut m.refresh,
                hash,
                |r| r.expires_at > now,
                |r| r.grant.family.clone(),
            ))
        }))
    }

    fn refresh<'a>(&'a self, hash: &'a str) -> StoreFuture<'a, Option<Refresh>> {
        ready(self.with(|m| Ok(m.refresh.get(hash).map(|(r, _)| r.clone()))))
    }

    fn revoke_family<'a>(&'a self, family: &'a str) -> StoreFuture<'a, ()> {
        ready(self.with(|m| {
            room(&mut m.revoked, |_| false)?;
            m.revoked.insert(family.to_string(), ());
            Ok(())
        }))
    }

    fn family_revoked<'a>(&'a self, family: &'a str) -> StoreFuture<'a, bool> {
        ready(self.with(|m| Ok(m.revoked.contains_key(family))))
    }

    fn claim<'a>(&'a self, nonce: &'a str, expires_at: u64) -> StoreFuture<'a, bool> {
        let now = crate::clock::now_s();
        ready(self.with(|m| {
            if m.claimed.contains_key(nonce) {
                return Ok(false);
            }
            room(&mut m.claimed, |until| *until <= now)?;
            m.claimed.insert(nonce.to_string(), expires_at);
            Ok(true)
        }))
    }
}
