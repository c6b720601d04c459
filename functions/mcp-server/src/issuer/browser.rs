//! The browser a sign-in belongs to (the consent page's CSRF defence): [`crate::browser`]'s
//! binding under the cookie `__Host-mcp-authorize`, set at `/oauth/authorize`; the sign-in
//! state and the consent form carry its hash, and the IdP's return and the consent POST are
//! refused without the same cookie. A consent form posted from another site, or a forwarded
//! consent link, issues nothing.

pub(crate) use crate::browser::matches;

/// The cookie's name: host-only, `Secure`, path `/`.
pub(crate) const COOKIE: &str = "__Host-mcp-authorize";

/// A new secret for the cookie and its hash for the states; `None` without entropy.
pub(crate) fn bind() -> Option<(String, String)> {
    crate::browser::Binding::new().map(|b| (b.secret, b.hash))
}

/// The `Set-Cookie` value, for as long as a sign-in and its consent page may take.
pub(crate) fn set_cookie(secret: &str) -> String {
    crate::browser::set_cookie(COOKIE, secret, super::settings::FLOW_TTL_S)
}

/// The secret among a request's `Cookie` header values.
pub(crate) fn from_cookies<'a>(headers: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    crate::browser::from_cookies(COOKIE, headers)
}
