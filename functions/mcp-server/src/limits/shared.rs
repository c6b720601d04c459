//! Where a tool call's tally goes: the shared table when there is one, and memory otherwise.
//! The table decides; what it admitted is booked in memory too, so this instance knows the
//! counts it shows (the table's transaction returns none), and a refusal's counts raise them.
//!
//! **Fail-open with a ceiling**: when the table errors or times out, this instance counts in
//! memory (the same limits, per instance), says so in the log at most once a minute, reports
//! it on the `limiter` line that an alarm watches, and asks the table again after
//! [`RETRY_AFTER_S`]; the first answer ends the fallback. While degraded, N instances may let
//! N times a limit through.

use std::sync::Mutex;

use super::items::{Items, TallyAnswer};
use super::store::{Counted, MemoryStore, Tally};

/// How long a failed table is left alone before a tool call tries it again.
pub(crate) const RETRY_AFTER_S: u64 = 5;
/// The fallback is logged at most this often.
const LOG_EVERY_S: u64 = 60;

pub(crate) struct Counters {
    table: Option<Items>,
    memory: MemoryStore,
    health: Mutex<Health>,
}

#[derive(Debug, Default)]
struct Health {
    /// Since when the table has been failing, if it is.
    failing_since: Option<u64>,
    retry_at: u64,
    logged_at: Option<u64>,
}

impl Counters {
    pub(crate) fn new(table: Option<Items>) -> Self {
        Counters {
            table,
            memory: MemoryStore::default(),
            health: Mutex::default(),
        }
    }

    /// Whether this instance counts in memory because its table failed.
    pub(crate) fn degraded(&self) -> bool {
        self.health().failing_since.is_some()
    }

    /// Counts a tally in the table, or in memory without one or while it fails.
    pub(crate) async fn count(&self, tally: &Tally, now: u64) -> Counted {
        let Some(table) = &self.table else {
            return self.memory.count(tally, now);
        };
        if self.health().retry_at > now {
            return self.memory.count(tally, now);
        }
        match table.count(tally).await {
            Ok(answer) => {
                let mut health = self.health();
                if let Some(since) = health.failing_since.take() {
                    tracing::warn!(
                        degraded_s = now.saturating_sub(since),
                        "limits: the counter table answers again; counting there"
                    );
                }
                health.logged_at = None;
                drop(health);
                match answer {
                    TallyAnswer::Admitted => Counted::Values(self.memory.book(tally, now)),
                    TallyAnswer::Refused(counts) => {
                        for &(i, count) in &counts {
                            if let Some(hit) = tally.hits.get(i) {
                                self.memory.learn(&hit.key, count, hit.expires, now);
                            }
                        }
                        Counted::Refused(counts)
                    }
                }
            }
            Err(e) => {
                let mut health = self.health();
                health.failing_since.get_or_insert(now);
                health.retry_at = now + RETRY_AFTER_S;
                if health.logged_at.is_none_or(|t| now >= t + LOG_EVERY_S) {
                    health.logged_at = Some(now);
                    tracing::error!(
                        error = %e,
                        "limits: counting in memory on this instance until the counter table answers"
                    );
                }
                drop(health);
                self.memory.count(tally, now)
            }
        }
    }

    /// What this instance knows of a counter.
    pub(crate) fn known(&self, key: &str, now: u64) -> u64 {
        self.memory.get(key, now)
    }

    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        self.health
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
