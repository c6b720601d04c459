//! The vault: each person's own upstream tokens (connectors with `auth: oauth_user`). One entry
//! per (our issuer, the person's subject, connector, scopes), and every read, write and removal
//! names all four ([`EntryKey`] cannot be made with less): a caller without a person (an API
//! key) has no key to ask with, so it never gets anyone's token.
//!
//! Behind the small [`VaultStore`] trait: in memory per process locally (`memory`, the embedded
//! store of `serve`: connections last as long as the process), and on Lambda a DynamoDB table
//! (`table`) whose grants are sealed with AES-256-GCM (`seal`) under data keys from AWS KMS
//! (`keys`, envelope encryption with the person's id as encryption context). Every write adds
//! one to the entry's version; a refresh first claims the entry's version for a short lease and
//! then replaces only that version, so across instances one refresh runs at a time.

mod entry;
mod keys;
mod memory;
pub(crate) mod seal;
mod table;
pub(crate) mod ticket;

use std::future::Future;
use std::pin::Pin;

pub(crate) use entry::{Connection, Stored};
pub use entry::{EntryKey, Grant, Person};
pub use keys::KmsKeys;
pub(crate) use memory::MemoryVault;
pub use table::{PARTITION_KEY, SORT_KEY, TableVault};

/// What the vault could not do. Never carries a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VaultError {
    /// A key part missing or out of bounds.
    #[error("invalid vault key: {0}")]
    Key(&'static str),
    /// The store or KMS could not answer (why, for the log).
    #[error("the vault is unavailable: {0}")]
    Unavailable(String),
    /// An entry that does not open (altered, moved, or sealed for someone else).
    #[error("a vault entry could not be opened")]
    Corrupt,
}

/// A store's answer, later.
pub(crate) type VaultFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<T, VaultError>> + Send + 'a>>;

/// Where entries live. Times are Unix seconds, passed in (the logic above is testable without
/// a clock).
pub trait VaultStore: Send + Sync {
    /// The entry of exactly this key, if any.
    fn get<'a>(&'a self, key: &'a EntryKey) -> VaultFuture<'a, Option<Stored>>;

    /// A connection made (or made again): the grant replaces whatever the entry held, with a
    /// new version, and any refresh lease is dropped.
    fn put<'a>(&'a self, key: &'a EntryKey, grant: &'a Grant, now: u64) -> VaultFuture<'a, ()>;

    /// Takes the right to refresh the entry at `version` until `until`: `false` when another
    /// refresh holds an unexpired lease or the entry moved on (or is gone).
    fn claim_refresh<'a>(
        &'a self,
        key: &'a EntryKey,
        version: u64,
        now: u64,
        until: u64,
    ) -> VaultFuture<'a, bool>;

    /// The refreshed grant replaces the entry if it is still at `version` (the claim's); `false`
    /// when it moved on (a new connection came in between) or is gone.
    fn replace<'a>(
        &'a self,
        key: &'a EntryKey,
        version: u64,
        grant: &'a Grant,
    ) -> VaultFuture<'a, bool>;

    /// Removes the entry (disconnected, or its grant was revoked); whether there was one.
    fn remove<'a>(&'a self, key: &'a EntryKey) -> VaultFuture<'a, bool>;

    /// The person's connections, without tokens (at most `MAX_LISTED`).
    fn list<'a>(&'a self, person: &'a Person) -> VaultFuture<'a, Vec<Connection>>;
}

/// The most connections a list shows.
pub(crate) const MAX_LISTED: usize = 100;
