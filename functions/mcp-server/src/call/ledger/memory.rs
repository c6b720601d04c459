//! The ledger in memory, per instance: the local default (tests and `serve`).

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;

use super::{Claim, TTL_S};

/// The most keys one instance remembers; past it, expired ones go first, then new claims wait.
pub(crate) const MAX_ENTRIES: usize = 100_000;

#[derive(Debug)]
struct Entry {
    digest: String,
    expires: u64,
    result: Option<Value>,
}

#[derive(Debug, Default)]
pub struct MemoryLedger {
    entries: Mutex<HashMap<String, Entry>>,
}

impl MemoryLedger {
    pub fn claim(&self, key: &str, digest: &str, now: u64) -> Claim {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = entries.get(key).filter(|e| e.expires > now) {
            return match (&e.result, e.digest == digest) {
                (_, false) => Claim::Conflict,
                (Some(result), true) => Claim::Replay(result.clone()),
                (None, true) => Claim::Unknown,
            };
        }
        if entries.len() >= MAX_ENTRIES {
            entries.retain(|_, e| e.expires > now);
            if entries.len() >= MAX_ENTRIES {
                return Claim::Unavailable("too many writes are being tracked".into());
            }
        }
        entries.insert(
            key.to_string(),
            Entry {
                digest: digest.to_string(),
                expires: now + TTL_S,
                result: None,
            },
        );
        Claim::New
    }

    /// The result of a claimed write (it happened, or the upstream refused it).
    pub fn record(&self, key: &str, result: Value) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = entries.get_mut(key) {
            e.result = Some(result);
        }
    }

    /// Gives a claim back: nothing was sent, a retry may go ahead.
    pub fn release(&self, key: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_key_runs_once_replays_its_result_and_refuses_other_arguments() {
        let l = MemoryLedger::default();
        assert_eq!(l.claim("k", "args-1", 100), Claim::New);
        assert_eq!(l.claim("k", "args-1", 101), Claim::Unknown, "in flight");
        l.record("k", json!({"status": "ok"}));
        assert_eq!(
            l.claim("k", "args-1", 102),
            Claim::Replay(json!({"status": "ok"}))
        );
        assert_eq!(l.claim("k", "args-2", 102), Claim::Conflict);
        assert_eq!(l.claim("k", "args-2", 100 + TTL_S), Claim::New, "expired");
        assert_eq!(l.claim("r", "a", 1), Claim::New);
        l.release("r");
        assert_eq!(l.claim("r", "a", 2), Claim::New, "released");
    }

    #[test]
    fn concurrent_claims_of_one_key_let_exactly_one_through() {
        let l = std::sync::Arc::new(MemoryLedger::default());
        let handles: Vec<_> = (0..20)
            .map(|_| {
                let l = l.clone();
                std::thread::spawn(move || l.claim("same", "args", 5))
            })
            .collect();
        let claims: Vec<Claim> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(claims.iter().filter(|c| **c == Claim::New).count(), 1);
        assert_eq!(claims.iter().filter(|c| **c == Claim::Unknown).count(), 19);
    }
}
