//! Redirect URIs (OAuth 2.1 §2.3.1, RFC 8252): what a client may register, and whether an
//! authorization request's redirect URI is one it registered. Exact string match always, with
//! one exception: a loopback `http` redirect matches on any port (a native client picks a free
//! port at each sign-in). Pure.

/// Why a redirect URI cannot be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RedirectError {
    #[error("`{0}` is not an absolute URI")]
    NotAbsolute(String),
    #[error("`{0}` has a fragment")]
    Fragment(String),
    #[error("`{0}`: plain http is allowed only to a loopback address (127.0.0.1, [::1])")]
    PlainHttp(String),
    #[error("`{0}`: scheme not allowed (javascript, data, file, …)")]
    Scheme(String),
}

/// The longest redirect URI accepted.
const MAX_LEN: usize = 2000;

/// Whether `uri` may be registered: https; http only to a loopback IP literal (`localhost` is
/// refused, RFC 8252 §8.3: a name can resolve elsewhere); a private-use scheme of a native
/// app (`com.example.app:/cb`), never one a browser runs or reads locally.
pub(crate) fn check(uri: &str) -> Result<(), RedirectError> {
    let parsed = reqwest::Url::parse(uri).map_err(|_| RedirectError::NotAbsolute(short(uri)))?;
    if uri.len() > MAX_LEN {
        return Err(RedirectError::NotAbsolute(short(uri)));
    }
    if parsed.fragment().is_some() || uri.contains('#') {
        return Err(RedirectError::Fragment(short(uri)));
    }
    match parsed.scheme() {
        "https" if parsed.host_str().is_some_and(|h| !h.is_empty()) => Ok(()),
        "https" => Err(RedirectError::NotAbsolute(short(uri))),
        "http" if is_loopback(&parsed) => Ok(()),
        "http" => Err(RedirectError::PlainHttp(short(uri))),
        "javascript" | "data" | "file" | "blob" | "about" | "vbscript" | "ftp" | "ws" | "wss" => {
            Err(RedirectError::Scheme(short(uri)))
        }
        // A private-use scheme names its owner (reverse domain, with a dot).
        s if s.contains('.') => Ok(()),
        _ => Err(RedirectError::Scheme(short(uri))),
    }
}

/// Whether `requested` is one of `registered`: equal as strings, or both loopback `http` URIs
/// that differ only in the port.
pub(crate) fn matches(registered: &[String], requested: &str) -> bool {
    if registered.iter().any(|r| r == requested) {
        return true;
    }
    let Ok(asked) = reqwest::Url::parse(requested) else {
        return false;
    };
    if asked.scheme() != "http" || !is_loopback(&asked) {
        return false;
    }
    registered.iter().any(|r| {
        reqwest::Url::parse(r).is_ok_and(|mut r| {
            let mut asked = asked.clone();
            r.scheme() == "http"
                && is_loopback(&r)
                && r.set_port(None).is_ok()
                && asked.set_port(None).is_ok()
                && r.as_str() == asked.as_str()
        })
    })
}

/// The host a consent page names: the redirect's host, or its scheme for a native app.
pub(crate) fn shown_host(uri: &str) -> String {
    match reqwest::Url::parse(uri) {
        Ok(u) => u
            .host_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("{}:", u.scheme())),
        Err(_) => short(uri),
    }
}

/// A loopback IP literal (never a name: RFC 8252 §8.3).
fn is_loopback(url: &reqwest::Url) -> bool {
    url.host_str()
        .map(|h| h.trim_start_matches('[').trim_end_matches(']'))
        .and_then(|h| h.parse::<std::net::IpAddr>().ok())
        .is_some_and(|ip| ip.is_loopback())
}

fn short(uri: &str) -> String {
    audit::bounded(uri, 120)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_loopback_http_and_private_schemes_register_others_do_not() {
        for ok in [
            "https://claude.ai/api/mcp/auth_callback",
            "http://127.0.0.1:33418/callback",
            "http://[::1]/cb",
            "com.example.app:/oauth",
            "cursor.app://anysphere.cursor-mcp/oauth/callback",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for bad in [
            "http://localhost:8080/cb",
            "http://evil.example.com/cb",
            "https://claude.ai/cb#frag",
            "javascript:alert(1)",
            "data:text/html,x",
            "file:///etc/passwd",
            "myapp:/cb",
            "/relative",
            "",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn exact_match_except_the_port_of_a_loopback_redirect() {
        let registered = vec![
            "https://claude.ai/api/mcp/auth_callback".to_string(),
            "http://127.0.0.1:33418/callback".to_string(),
        ];
        assert!(matches(
            &registered,
            "https://claude.ai/api/mcp/auth_callback"
        ));
        assert!(matches(&registered, "http://127.0.0.1:50000/callback"));
        assert!(matches(&registered, "http://127.0.0.1/callback"));
        for bad in [
            "https://claude.ai/api/mcp/auth_callback/",
            "https://claude.ai/api/mcp/auth_callback?x=1",
            "https://claude.ai.evil.com/api/mcp/auth_callback",
            "http://127.0.0.1:50000/other",
            "http://[::1]:33418/callback",
            "https://127.0.0.1:33418/callback",
        ] {
            assert!(!matches(&registered, bad), "{bad}");
        }
    }

    #[test]
    fn consent_shows_the_host_or_the_scheme() {
        assert_eq!(shown_host("https://claude.ai/api/cb"), "claude.ai");
        assert_eq!(shown_host("com.example.app:/cb"), "com.example.app:");
    }
}
