//! The browser a sign-in belongs to (the consent page's CSRF defence): `/oauth/authorize`
//! sets a `__Host-` cookie holding a random secret, and the sign-in state and the consent form
//! carry its hash; the IdP's return and the consent POST are refused without the same cookie.
//! A consent form posted from another site, or a forwarded consent link, issues nothing.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The cookie's name: host-only, `Secure`, path `/`.
pub(crate) const COOKIE: &str = "__Host-mcp-authorize";

/// A new secret for the cookie and its hash for the states; `None` without entropy.
pub(crate) fn bind() -> Option<(String, String)> {
    let secret = crate::random::hex(32)?;
    let hash = hash(&secret);
    Some((secret, hash))
}

/// The `Set-Cookie` value. `SameSite=Lax` still sends it on the IdP's top-level redirect back;
/// a cross-site POST of the consent form comes without it.
pub(crate) fn set_cookie(secret: &str) -> String {
    let max_age = super::settings::FLOW_TTL_S;
    format!("{COOKIE}={secret}; Max-Age={max_age}; Path=/; Secure; HttpOnly; SameSite=Lax")
}

/// The secret among a request's `Cookie` header values.
pub(crate) fn from_cookies<'a>(headers: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    headers
        .into_iter()
        .flat_map(|h| h.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value)
        .filter(|v| !v.is_empty())
}

/// Whether the browser's secret is the one whose hash the state carries.
pub(crate) fn matches(secret: Option<&str>, state_hash: &str) -> bool {
    secret.is_some_and(|s| bool::from(hash(s).as_bytes().ct_eq(state_hash.as_bytes())))
}

fn hash(secret: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(secret.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_bound_browser_matches_and_the_cookie_is_host_only() {
        let (secret, hash) = bind().unwrap();
        assert!(matches(Some(&secret), &hash));
        assert!(!matches(None, &hash));
        assert!(!matches(Some(&bind().unwrap().0), &hash));
        let header = format!("a=1; {COOKIE}={secret}");
        assert_eq!(from_cookies([header.as_str()]), Some(secret.as_str()));
        let cookie = set_cookie("s");
        assert!(cookie.starts_with("__Host-") && cookie.contains("Secure"));
        assert!(cookie.contains("Path=/") && !cookie.contains("Domain"));
    }
}
