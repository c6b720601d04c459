//! The sealed states a flow carries through a sign-in and an upstream's authorization, and
//! their claim: opened from the browser that started the flow, once.

use serde::{Deserialize, Serialize};

use super::{Back, Connect, Step, browser, page};
use crate::call::Claim;
use crate::vault::ticket;

/// How long a sign-in or an upstream authorization may take.
pub(super) const STATE_TTL_S: u64 = 600;
/// The ticket purpose of the state through our sign-in.
pub(super) const SIGNIN: &str = "connect-signin";
/// The ticket purpose of the state through the upstream's authorization.
pub(super) const UPSTREAM: &str = "connect-upstream";

/// The state through our sign-in.
#[derive(Default, Serialize, Deserialize)]
pub(super) struct SignIn {
    /// The person the link was made for.
    pub(super) p: String,
    pub(super) c: String,
    pub(super) v: String,
    pub(super) n: String,
    /// The hash of the browser's binding secret.
    pub(super) b: String,
    /// The scopes the link asks for beyond the connector's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) x: Vec<String>,
}

/// The state through the upstream's authorization.
#[derive(Serialize, Deserialize)]
pub(super) struct Authorize {
    pub(super) i: String,
    pub(super) s: String,
    pub(super) c: String,
    pub(super) v: String,
    pub(super) n: String,
    pub(super) b: String,
    /// Every scope asked for, the connector's first.
    pub(super) x: Vec<String>,
}

pub(super) trait HasNonce {
    fn nonce(&self) -> &str;
    fn connector(&self) -> &str;
    /// The hash of the binding secret of the browser that started the flow.
    fn browser(&self) -> &str;
}

impl HasNonce for SignIn {
    fn nonce(&self) -> &str {
        &self.n
    }
    fn connector(&self) -> &str {
        &self.c
    }
    fn browser(&self) -> &str {
        &self.b
    }
}

impl HasNonce for Authorize {
    fn nonce(&self) -> &str {
        &self.n
    }
    fn connector(&self) -> &str {
        &self.c
    }
    fn browser(&self) -> &str {
        &self.b
    }
}

impl Connect {
    /// A state ticket of this purpose and connector, from the browser that started the flow,
    /// opened and claimed once. Another browser is refused before the claim, so it cannot use
    /// up the state of the person it was forwarded by.
    pub(super) async fn state<T: serde::de::DeserializeOwned + HasNonce>(
        &self,
        keys: &[Vec<u8>],
        purpose: &str,
        back: &Back,
        connector: &str,
        browser: Option<&str>,
        now: u64,
    ) -> Result<T, Step> {
        let again = "Open the link from your chat again.";
        let Some(state) = back.state.as_deref() else {
            return Err(page(400, "This request is not valid", again));
        };
        let state: T = match ticket::open(keys, purpose, state, now) {
            Ok(s) => s,
            Err(ticket::TicketError::Expired) => {
                return Err(page(400, "This request has expired", again));
            }
            Err(_) => return Err(page(400, "This request is not valid", again)),
        };
        if state.connector() != connector {
            return Err(page(400, "This request is not valid", again));
        }
        if !browser::matches(browser, state.browser()) {
            tracing::warn!(
                connector,
                "connect: a step arrived from another browser than the one that started it"
            );
            return Err(page(
                403,
                "Finish in the browser you started in",
                "This page belongs to a connection started in another browser, so nothing was \
                 connected. If you were sent this link, do not use it: open the link from your \
                 own chat instead.",
            ));
        }
        match self
            .ledger
            .claim(&format!("connect#{}", state.nonce()), purpose, now)
            .await
        {
            Claim::New => Ok(state),
            Claim::Unavailable(why) => {
                tracing::warn!(why, "connect: the single-use check is unavailable");
                Err(page(
                    503,
                    "Please try again",
                    "The server cannot check this request now.",
                ))
            }
            _ => Err(page(400, "This request was already used", again)),
        }
    }
}
