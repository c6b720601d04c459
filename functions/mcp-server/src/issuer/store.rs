//! What the authorization server keeps, and the small trait that keeps it: registered clients,
//! one-time codes and refresh tokens (each under the SHA-256 of its value, never the value),
//! the refresh families a reuse revokes, the consent forms used, and the registrations per IP.
//! In memory per process for `serve` and the tests (`memory`); on DynamoDB for Lambda
//! (`table`).

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

/// A registered client (RFC 7591).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Registration {
    pub id: String,
    /// `client_name`, shown on the consent page (escaped).
    pub name: String,
    pub redirect_uris: Vec<String>,
    /// Unix seconds after which the registration is gone; pushed on when a code is issued.
    pub expires_at: u64,
}

/// The grant a code or a refresh token stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Approval {
    pub client_id: String,
    /// The identity provider's subject.
    pub subject: String,
    /// Space-separated scopes (profile claim values).
    pub scope: String,
    /// The resource (RFC 8707) the access tokens are for: their `aud`.
    pub resource: String,
    /// The refresh family: every refresh token descending from one code.
    pub family: String,
}

/// A one-time authorization code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Code {
    pub grant: Approval,
    pub redirect_uri: String,
    /// The PKCE S256 challenge of the authorization request.
    pub challenge: String,
    pub expires_at: u64,
}

/// A refresh token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Refresh {
    pub grant: Approval,
    pub expires_at: u64,
}

/// What taking a code or a refresh token found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Taken<T> {
    /// Unused and unexpired: now used.
    Fresh(T),
    /// Used before: a replay. The family it belongs to, to revoke.
    Replayed { family: String },
    /// Unknown or expired.
    Missing,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StoreError {
    #[error("the authorization server's store is unavailable: {0}")]
    Unavailable(String),
}

pub(crate) type StoreFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Keys are SHA-256 hashes ([`hash`]) of codes and tokens; `now` comes from the caller.
pub(crate) trait IssuerStore: Send + Sync {
    /// Counts one registration from `ip` in the window starting at `window`; the count after it.
    fn note_registration<'a>(&'a self, ip: &'a str, window: u64) -> StoreFuture<'a, u32>;
    fn put_client<'a>(&'a self, client: &'a Registration) -> StoreFuture<'a, ()>;
    /// The client, unless unknown or expired at `now`.
    fn client<'a>(&'a self, id: &'a str, now: u64) -> StoreFuture<'a, Option<Registration>>;
    fn put_code<'a>(&'a self, hash: &'a str, code: &'a Code) -> StoreFuture<'a, ()>;
    /// Takes the code once; a second take is [`Taken::Replayed`].
    fn take_code<'a>(&'a self, hash: &'a str, now: u64) -> StoreFuture<'a, Taken<Code>>;
    fn put_refresh<'a>(&'a self, hash: &'a str, refresh: &'a Refresh) -> StoreFuture<'a, ()>;
    /// Takes the refresh token once (rotation); a second take is [`Taken::Replayed`].
    fn take_refresh<'a>(&'a self, hash: &'a str, now: u64) -> StoreFuture<'a, Taken<Refresh>>;
    /// The refresh token under `hash`, used or not (revocation ends its family either way).
    fn refresh<'a>(&'a self, hash: &'a str) -> StoreFuture<'a, Option<Refresh>>;
    /// Revokes every refresh token of the family, now and later.
    fn revoke_family<'a>(&'a self, family: &'a str) -> StoreFuture<'a, ()>;
    fn family_revoked<'a>(&'a self, family: &'a str) -> StoreFuture<'a, bool>;
    /// Claims a single-use value (a consent form's nonce) until `expires_at`: `false` if claimed.
    fn claim<'a>(&'a self, nonce: &'a str, expires_at: u64) -> StoreFuture<'a, bool>;
}

/// The SHA-256 of a code or token (base64url): what the store keys it by.
pub(crate) fn hash(value: &str) -> String {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(value.as_bytes()))
}
