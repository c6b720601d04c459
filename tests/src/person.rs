//! What the offline twins of per-person upstreams (Google, Microsoft Graph) share: who a
//! request's bearer token names. A twin honours only an access token that the local OpenID
//! provider issued (`iss` its issuer, `aud` the twin's resource, not expired) and that it has
//! not been told to refuse. (It reads the token's claims; the signature is the provider's
//! business in these tests, as in connect.rs.)

use std::collections::HashSet;

use axum::http::HeaderMap;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// A JWT's claims, `Null` when it is none.
pub fn claims(jwt: &str) -> Value {
    jwt.split('.')
        .nth(1)
        .and_then(|p| URL_SAFE_NO_PAD.decode(p).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null)
}

/// The bearer token of a request, `""` without one.
pub fn bearer(headers: &HeaderMap) -> &str {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("")
}

/// Whom `token` names, when it is `issuer`'s, for `audience`, unexpired and not `refused`.
pub fn subject(
    token: &str,
    issuer: &str,
    audience: &str,
    refused: &HashSet<String>,
) -> Option<String> {
    let now = std::time::UNIX_EPOCH.elapsed().unwrap().as_secs();
    Some(claims(token))
        .filter(|c| c["iss"] == issuer && c["aud"] == audience)
        .filter(|c| c["exp"].as_u64().is_some_and(|e| e > now))
        .filter(|_| !refused.contains(token))
        .and_then(|c| c["sub"].as_str().map(str::to_string))
}
