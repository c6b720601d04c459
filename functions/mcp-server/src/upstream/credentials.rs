//! Whose credentials an upstream request carries: the deployment's (the catalog's `auth` over
//! the secret) or one person's own access token (`auth: oauth_user`, from the vault). The
//! token never shows in a `Debug` print, and the inbound token of our own caller is never one
//! of them.

use std::fmt;

/// A person's upstream access token.
#[derive(Clone, PartialEq, Eq)]
pub struct PersonToken(String);

impl PersonToken {
    pub fn new(token: impl Into<String>) -> Self {
        PersonToken(token.into())
    }

    pub(super) fn secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for PersonToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PersonToken([redacted])")
    }
}

/// What a request authenticates with.
#[derive(Debug, Clone, Copy, Default)]
pub enum Credentials<'a> {
    /// The catalog's `auth` with the deployment secret's fields (or none).
    #[default]
    Deployment,
    /// `Authorization: Bearer <the person's own token>`; `owner` is the person's id
    /// ([`Person::id`](crate::vault::Person::id)), which keys what is kept per person (a remote
    /// MCP server's tool list and session).
    Person {
        owner: &'a str,
        token: &'a PersonToken,
    },
}
