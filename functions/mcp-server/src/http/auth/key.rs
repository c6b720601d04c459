//! API keys: kept only as SHA-256 hashes; the presented key is hashed and compared against
//! every stored hash in constant time, so neither a match position nor a prefix leaks through
//! timing. The key's id, never the key, goes to the audit log. The end user named in
//! `x-user-email` counts only for keys trusted to assert it (`MCP_USER_HEADER_KEYS`).

use axum::http::HeaderMap;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::Denied;
use crate::call::Caller;
use crate::http::AppState;
use crate::secrets::{ApiKey, SecretValues};

/// The header some gateways use to pass the end user's identity.
pub(crate) const USER_EMAIL_HEADER: &str = "x-user-email";

/// Returns the id of the key that matches `presented`, if any.
pub(crate) fn verify(keys: &[ApiKey], presented: &str) -> Option<String> {
    let hash: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
    let mut found = None;
    for key in keys {
        // No early exit: every key is compared.
        if bool::from(key.hash.ct_eq(&hash)) {
            found = Some(key.id.clone());
        }
    }
    found
}

/// The caller of a valid key on this path.
pub(crate) fn caller(
    state: &AppState,
    secrets: &SecretValues,
    presented: &str,
    headers: &HeaderMap,
    path: Option<&str>,
) -> Result<Caller, Denied> {
    let key_id = verify(&secrets.api_keys, presented).ok_or(Denied::InvalidKey)?;
    let scope = state
        .inventory
        .profiles
        .scope_for(&key_id, path)
        .map_err(Denied::Scope)?;
    let trusted = state.config.user_header_keys.contains(&key_id);
    let asserted = headers
        .get(USER_EMAIL_HEADER)
        .filter(|_| trusted)
        .and_then(|v| v.to_str().ok());
    let user = match (asserted, secrets.pepper.as_deref()) {
        (None, _) => None,
        (Some(email), Some(pepper)) => {
            Some(audit::Pseudonymizer::new(pepper).pseudonym_of_email(email))
        }
        // Refused at start too; a secret reloaded without its pepper fails closed as well,
        // rather than folding every user of the gateway into one caller.
        (Some(_), None) => {
            tracing::error!(
                "refusing asserted users: the deployment secret has no pseudonym_pepper"
            );
            return Err(Denied::Unavailable(
                "The server cannot record who is calling (no pseudonym pepper in its secret); an \
                 operator must add one."
                    .into(),
            ));
        }
    };
    Ok(Caller {
        key_id,
        user,
        scope,
        // An API key names no person our authorization server signed in, even with a trusted
        // user header: it never opens anyone's vault entry.
        person: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_key_returns_its_id_only() {
        let keys = vec![
            ApiKey::new("a", "key-aaaaaaaaaaaaaaaa"),
            ApiKey::new("b", "key-bbbbbbbbbbbbbbbb"),
        ];
        assert_eq!(verify(&keys, "key-bbbbbbbbbbbbbbbb").as_deref(), Some("b"));
        assert_eq!(verify(&keys, "key-bbbbbbbbbbbbbbb"), None);
        assert_eq!(verify(&[], "anything"), None);
    }
}
