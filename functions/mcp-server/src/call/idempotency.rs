//! The idempotency stages of [`Pipeline::call`](super::Pipeline::call): a confirmed or keyed
//! write claims its key in the [`Ledger`](super::Ledger) before the upstream request, and the
//! ledger records what came of it after, so a retry replays the result instead of writing
//! twice.

use std::ops::ControlFlow;

use catalog::Status;
use serde_json::Value;

use super::Pipeline;
use super::consent::Consent;
use super::ledger::Claim;
use super::outcome::Outcome;
use super::stages::{Bound, Call, Executed, Flow};
use crate::upstream::Happened;

/// The most of a result the ledger keeps; a larger one is kept as its status and a hint.
pub(crate) const MAX_STORED_BYTES: usize = 64 * 1024;

impl Pipeline {
    /// Idempotency claim: the key a confirmed or keyed write runs under, claimed in the
    /// ledger; none for a call without one. A key used before answers now.
    pub(super) async fn claim(
        &self,
        call: &Call<'_>,
        bound: &Bound,
        consent: &Consent,
    ) -> Flow<Option<String>> {
        let key = match (consent, &call.valid.write.idempotency_key) {
            (Consent::Confirmed { nonce, .. }, _) => format!("confirmed:{nonce}"),
            (Consent::NotNeeded, Some(k)) if call.write => {
                format!("{}|{}|{k}", bound.who, bound.qualified)
            }
            _ => return ControlFlow::Continue(None),
        };
        let (outcome, idempotency) = match self.ledger.claim(&key, &bound.digest, bound.now).await {
            Claim::New => return ControlFlow::Continue(Some(key)),
            Claim::Replay(stored) => (Outcome::replayed(&stored), Some("replayed")),
            Claim::Conflict => (
                Outcome::failed(
                    Status::InvalidInput,
                    "idempotency_conflict",
                    "This idempotency_key was used for a call with other arguments. Use a new \
                     key for a new write; reuse a key only to retry the very same call.",
                ),
                Some("conflict"),
            ),
            Claim::Unknown => (unknown(call), Some("unknown")),
            Claim::Unavailable(why) => {
                tracing::error!(reason = %why, "the idempotency ledger cannot answer: write refused");
                let outcome = Outcome::failed(
                    Status::Unavailable,
                    "ledger_unavailable",
                    "This write cannot be made sure to run once right now, so it was not sent; \
                     try again in a minute with the same arguments.",
                );
                (outcome, None)
            }
        };
        ControlFlow::Break(call.facts(outcome, consent.channel(), idempotency))
    }

    /// Record: what came of a claimed write. Nothing sent gives the claim back; an unknown
    /// outcome keeps it, so a retry answers `outcome_unknown`.
    pub(super) async fn record(&self, key: &str, executed: &Executed) {
        match executed.happened {
            Happened::Unknown => {}
            Happened::No => self.ledger.release(key).await,
            Happened::Yes => self.ledger.record(key, stored(&executed.outcome)).await,
        }
    }
}

/// A claimed write's result as the ledger keeps it, bounded.
fn stored(outcome: &Outcome) -> Value {
    let full = outcome.to_json();
    if full.to_string().len() <= MAX_STORED_BYTES {
        return full;
    }
    serde_json::json!({
        "status": outcome.status.as_str(),
        "hint": "The write ran; its result was too large to keep for a replay. Read the record \
                 with the matching get tool.",
        "truncated": true,
    })
}

/// `outcome_unknown`: the write was sent before and its answer never recorded.
fn unknown(call: &Call<'_>) -> Outcome {
    let check = call
        .tool
        .current
        .as_deref()
        .map(|get| format!("check with {get}"))
        .unwrap_or_else(|| format!("check in {}", call.conn.catalog.connector));
    Outcome::failed(
        Status::OutcomeUnknown,
        "outcome_unknown",
        format!(
            "This write was sent before and its outcome is unknown (it may still be running, or \
             its answer was lost): {check} whether it happened before trying again, and retry \
             only with a new idempotency_key if it did not."
        ),
    )
}
