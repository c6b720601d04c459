//! The idempotency ledger: exactly-once writes. A write with an idempotency key (the
//! confirmation's nonce, or the caller's `idempotency_key`) claims the key before its upstream
//! request and records the (bounded) result after it. A repeat with the same key gets the
//! recorded result marked `replayed: true` and sends nothing; the same key with other arguments
//! is refused; a claim whose outcome never got recorded (a timeout after sending, a crash)
//! answers `outcome_unknown`, never a second request. Entries expire after [`TTL_S`].
//!
//! In memory per instance locally (`memory`); on Lambda one DynamoDB item per key (`table`),
//! so every instance sees every claim. The table fails closed: when it cannot be reached, a
//! keyed write is refused rather than risk running twice.

pub(super) mod memory;
pub(super) mod table;

use serde_json::Value;

pub(crate) use memory::MemoryLedger;
pub use table::TableLedger;

/// How long a key is remembered.
pub(super) const TTL_S: u64 = 24 * 3600;

/// What claiming a key found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// The key is this call's now: send the write, then record or release it.
    New,
    /// Done before with the same arguments: its recorded result.
    Replay(Value),
    /// Used before with other arguments.
    Conflict,
    /// Claimed before, no result recorded: in flight elsewhere, or lost after sending.
    Unknown,
    /// The ledger cannot answer now (why, for the log): the write must wait.
    Unavailable(String),
}

pub enum Ledger {
    Memory(MemoryLedger),
    Table(TableLedger),
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger::Memory(MemoryLedger::default())
    }
}

impl Ledger {
    pub async fn claim(&self, key: &str, digest: &str, now: u64) -> Claim {
        match self {
            Ledger::Memory(m) => m.claim(key, digest, now),
            Ledger::Table(t) => t.claim(key, digest, now).await,
        }
    }

    /// The result of a claimed write that happened. A failure leaves the claim without a
    /// result: a retry then answers `outcome_unknown`, which is true.
    pub async fn record(&self, key: &str, result: Value) {
        match self {
            Ledger::Memory(m) => m.record(key, result),
            Ledger::Table(t) => {
                if let Err(e) = t.record(key, &result).await {
                    tracing::error!(error = %e, "the write happened but its result was not recorded");
                }
            }
        }
    }

    /// Gives a claim back: nothing was sent, a retry may go ahead. A failure leaves the claim:
    /// a retry then answers `outcome_unknown` (safe, if not helpful).
    pub async fn release(&self, key: &str) {
        match self {
            Ledger::Memory(m) => m.release(key),
            Ledger::Table(t) => {
                if let Err(e) = t.release(key).await {
                    tracing::warn!(error = %e, "an unused write claim could not be released");
                }
            }
        }
    }
}
