//! The browser a connect flow belongs to: [`crate::browser`]'s binding under the cookie
//! `__Host-mcp-connect`, so a link forwarded to someone else (ours, or the provider's
//! authorization page we redirect to) attaches nobody's account, whoever approves it.

pub(super) use crate::browser::{Binding, matches};

/// The cookie's name.
pub(crate) const COOKIE: &str = "__Host-mcp-connect";

/// The `Set-Cookie` value that binds the browser for `max_age_s` seconds.
pub(crate) fn set_cookie(secret: &str, max_age_s: u64) -> String {
    crate::browser::set_cookie(COOKIE, secret, max_age_s)
}

/// The binding secret among a request's `Cookie` header values, if the browser sent one.
pub(crate) fn from_cookies<'a>(headers: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    crate::browser::from_cookies(COOKIE, headers)
}
