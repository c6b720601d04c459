//! A browser flow bound to the browser that started it (`/connect`'s and `/oauth/authorize`'s,
//! each under its own cookie). The first step sets a short-lived `__Host-` cookie holding a
//! random secret, and every state after it carries the secret's hash; a later step that
//! arrives without the same cookie is refused. So a flow can only be finished in the browser
//! that started it: a forwarded link, or a form posted from another site, approves nothing.
//!
//! `__Host-` pins the cookie to this host (no `Domain`), path `/` and `Secure`; `HttpOnly`
//! keeps it from scripts; `SameSite=Lax` still sends it on the top-level redirects back from
//! an identity provider or an upstream.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A new binding: the secret for the cookie and its hash for the states.
pub(crate) struct Binding {
    pub(crate) secret: String,
    pub(crate) hash: String,
}

impl Binding {
    /// `None` without entropy.
    pub(crate) fn new() -> Option<Self> {
        let secret = crate::random::hex(32)?;
        let hash = hash(&secret);
        Some(Binding { secret, hash })
    }
}

/// The `Set-Cookie` value that binds the browser under `name` for `max_age_s` seconds.
pub(crate) fn set_cookie(name: &str, secret: &str, max_age_s: u64) -> String {
    format!("{name}={secret}; Max-Age={max_age_s}; Path=/; Secure; HttpOnly; SameSite=Lax")
}

/// The secret of cookie `name` among a request's `Cookie` header values, if the browser sent one.
pub(crate) fn from_cookies<'a>(
    name: &str,
    headers: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    headers
        .into_iter()
        .flat_map(|h| h.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
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

    const NAME: &str = "__Host-mcp-connect";

    #[test]
    fn only_the_browser_holding_the_secret_matches_its_hash() {
        let b = Binding::new().unwrap();
        assert!(matches(Some(&b.secret), &b.hash));
        let other = Binding::new().unwrap();
        assert!(!matches(Some(&other.secret), &b.hash));
        assert!(!matches(None, &b.hash));
        assert!(!matches(Some(""), &b.hash));
    }

    #[test]
    fn the_secret_is_found_among_other_cookies() {
        let headers = ["a=1; __Host-mcp-connect=abc; b=2"];
        assert_eq!(from_cookies(NAME, headers), Some("abc"));
        assert_eq!(from_cookies(NAME, ["x-__Host-mcp-connect=abc"]), None);
        assert_eq!(from_cookies(NAME, ["__Host-mcp-connect="]), None);
        assert_eq!(
            from_cookies(NAME, ["a=1", "__Host-mcp-connect=z"]),
            Some("z")
        );
        assert_eq!(from_cookies("__Host-other", headers), None);
    }

    #[test]
    fn the_cookie_is_host_only_secure_and_http_only() {
        let c = set_cookie(NAME, "s", 600);
        assert!(c.starts_with("__Host-mcp-connect=s;"));
        for part in [
            "Path=/",
            "Secure",
            "HttpOnly",
            "SameSite=Lax",
            "Max-Age=600",
        ] {
            assert!(c.contains(part), "{c}");
        }
        assert!(!c.contains("Domain"));
    }
}
