//! What the offline twins of per-person upstreams (Google, Microsoft Graph) share: who a
//! request's bearer token names. A twin honours only an access token that the local OpenID
//! provider issued (`iss` its issuer, `aud` the twin's resource, not expired) and that it has
//! not been told to refuse. (It reads the token's claims; the signature is the provider's
//! business in these tests, as in connect.rs.)

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::http::HeaderMap;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// Who may call a twin, and what it saw: the provider's unexpired tokens for the twin's
/// audience are let in and counted per person; every token sent is kept (the tests check none
/// was printed); a token the test refuses is refused from then on, as an expired one is.
/// Cloned, it is the same gate (the twin's handlers and the test share it).
#[derive(Clone, Default)]
pub struct Gate(Arc<Mutex<Seen>>);

#[derive(Default)]
struct Seen {
    issuer: String,
    audience: String,
    requests: BTreeMap<String, usize>,
    tokens: Vec<String>,
    refused: HashSet<String>,
}

impl Gate {
    /// Letting in tokens of `issuer` for `audience`.
    pub fn new(issuer: &str, audience: &str) -> Gate {
        let seen = Seen {
            issuer: issuer.to_string(),
            audience: audience.to_string(),
            ..Seen::default()
        };
        Gate(Arc::new(Mutex::new(seen)))
    }

    fn seen(&self) -> MutexGuard<'_, Seen> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The person a request's bearer token names, counted; `None`: the twin answers its 401.
    pub fn admit(&self, headers: &HeaderMap) -> Option<String> {
        let token = bearer(headers);
        let mut seen = self.seen();
        seen.tokens.push(token.to_string());
        let who = subject(token, &seen.issuer, &seen.audience, &seen.refused)?;
        *seen.requests.entry(who.clone()).or_default() += 1;
        Some(who)
    }

    /// Whether the request's token holds one of `any_of` in its `scope` claim (what the person
    /// allowed at the provider).
    pub fn holds(&self, headers: &HeaderMap, any_of: &[&str]) -> bool {
        let scope = claims(bearer(headers))["scope"]
            .as_str()
            .unwrap_or("")
            .to_string();
        scope.split(' ').any(|s| any_of.contains(&s))
    }

    /// Requests let in for `who` (a subject) so far.
    pub fn requests_of(&self, who: &str) -> usize {
        self.seen().requests.get(who).copied().unwrap_or(0)
    }

    /// Every bearer token sent, in order.
    pub fn tokens(&self) -> Vec<String> {
        self.seen().tokens.clone()
    }

    /// From now on `token` is refused with 401, as an expired access token is.
    pub fn refuse(&self, token: &str) {
        self.seen().refused.insert(token.to_string());
    }
}

/// A JWT's claims, `Null` when it is none.
pub fn claims(jwt: &str) -> Value {
    jwt.split('.')
        .nth(1)
        .and_then(|p| URL_SAFE_NO_PAD.decode(p).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null)
}

/// The bearer token of a request, `""` without one.
fn bearer(headers: &HeaderMap) -> &str {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("")
}

/// Whom `token` names, when it is `issuer`'s, for `audience`, unexpired and not `refused`.
fn subject(token: &str, issuer: &str, audience: &str, refused: &HashSet<String>) -> Option<String> {
    let now = std::time::UNIX_EPOCH.elapsed().unwrap().as_secs();
    Some(claims(token))
        .filter(|c| c["iss"] == issuer && c["aud"] == audience)
        .filter(|c| c["exp"].as_u64().is_some_and(|e| e > now))
        .filter(|_| !refused.contains(token))
        .and_then(|c| c["sub"].as_str().map(str::to_string))
}
