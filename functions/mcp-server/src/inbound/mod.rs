//! Inbound webhooks: what an upstream pushes to `/inbound/<connector>` (its catalog's
//! `inbound`), checked (`proof`: the handshake's verify token, the body's HMAC), taken apart
//! into events (`events`; the steps of one body in order: `accept`), kept (`store`, under keyed digests, sealed, with a TTL, each event
//! once however often it is delivered) and read back per conversation by a tool that declares
//! `inbound` (`read`: newest first, and whether the reply window is open). Each body also adds
//! one entry per conversation a customer wrote in to the connector's index (`names`: the
//! conversation, its display name, its newest message's time; sealed like the events), which
//! a `conversations` tool reads newest first (`list`: "who wrote, what did Müller answer?").
//!
//! Behind the small [`InboundStore`] trait: in memory per process locally (`memory`), and on
//! Lambda a DynamoDB table (`table`) whose events are sealed with the vault's AES-256-GCM under
//! KMS data keys (the vault's `seal` and `KmsKeys`, the connector as encryption context).

mod accept;
mod events;
mod list;
mod memory;
mod names;
mod proof;
mod read;
mod table;

use std::future::Future;
use std::pin::Pin;

use catalog::InboundKind;
use serde::{Deserialize, Serialize};

pub(crate) use accept::{Accepted, Delivery, Refused, accept};
pub(crate) use events::{Found, found};
pub(crate) use list::{list, to_json as listed_json};
pub(crate) use memory::MemoryInbound;
pub use proof::sign;
pub(crate) use proof::{signed, token_matches};
pub(crate) use read::{read, rfc3339};
pub(crate) use table::{CONTEXT_KEY, TableInbound};

use crate::vault::VaultError;

/// What the inbound store could not do. Never carries an event, a number or a text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InboundError {
    /// The table or KMS could not answer (why, for the log).
    #[error("the inbound store is unavailable: {0}")]
    Unavailable(String),
    /// A stored event that does not open (altered, or moved to another slot).
    #[error("an inbound event could not be opened")]
    Corrupt,
}

/// The vault's sealing and data keys, as the inbound store's faults.
impl From<VaultError> for InboundError {
    fn from(e: VaultError) -> Self {
        match e {
            VaultError::Unavailable(why) => InboundError::Unavailable(why),
            VaultError::Key(what) => InboundError::Unavailable(what.to_string()),
            VaultError::Corrupt => InboundError::Corrupt,
        }
    }
}

/// A store's answer, later.
pub(crate) type InboundFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<T, InboundError>> + Send + 'a>>;

/// Where one event is kept: its conversation's key and its own, both keyed digests.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InboundSlot {
    /// `<connector>#<digest of the conversation>`.
    pub conversation: String,
    /// `<Unix seconds, 12 digits>#<digest of the event's id>`: newest last in the sort order,
    /// and the same for every delivery of one event.
    pub event: String,
}

impl InboundSlot {
    /// The slot of an event, its keys digested under the connector's signing secret.
    pub(crate) fn of(connector: &str, secret: &str, found: &Found<'_>) -> InboundSlot {
        let id = format!("{}\n{}", found.kind.as_str(), found.id);
        InboundSlot {
            conversation: conversation_key(connector, secret, &found.conversation),
            event: format!(
                "{:012}#{}",
                found.at,
                proof::keyed(secret, "event", &id, 16)
            ),
        }
    }
}

/// The stored key of a conversation.
pub(crate) fn conversation_key(connector: &str, secret: &str, conversation: &str) -> String {
    format!(
        "{connector}#{}",
        proof::keyed(secret, "conversation", conversation, 16)
    )
}

/// An event as kept: sealed whole on Lambda.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InboundRecord {
    pub kind: InboundKind,
    /// Unix seconds.
    pub at: u64,
    pub event: serde_json::Value,
}

/// Where events live. Times are Unix seconds, passed in.
pub trait InboundStore: Send + Sync {
    /// Keeps the event until `expires_at` unless its slot holds one already: whether it was new.
    fn add<'a>(
        &'a self,
        slot: &'a InboundSlot,
        record: &'a InboundRecord,
        expires_at: u64,
    ) -> InboundFuture<'a, bool>;

    /// The conversation's newest events not expired at `now`, newest first, at most `limit`.
    fn recent<'a>(
        &'a self,
        conversation: &'a str,
        limit: usize,
        now: u64,
    ) -> InboundFuture<'a, Vec<InboundRecord>>;
}
