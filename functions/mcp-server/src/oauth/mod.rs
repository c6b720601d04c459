//! OAuth 2.1 resource server (the MCP authorization spec, RFC 9728, RFC 8707, RFC 6750): the
//! settings, the authorization server's signing keys, the access-token check, and the discovery
//! documents and challenges that send a client to sign in. The edge (`http::auth`) decides when
//! a bearer value is a token and turns the outcome into a caller or a refusal; nothing here
//! knows HTTP frameworks, profiles or the audit log.
//!
//! Reads downwards: `settings` → `keys` (JWKS cache) → `token` (one token's check) →
//! `discovery` (metadata and `WWW-Authenticate`); `url` splits a URL for the well-known paths.

pub(crate) mod discovery;
pub(crate) mod endpoints;
pub(crate) mod keys;
pub(crate) mod settings;
pub(crate) mod token;
pub(crate) mod url;

pub use settings::Settings;
pub(crate) use token::TokenError;
pub use token::Verifier;

/// Whether a bearer value has the shape of a JWT (three dot-separated parts); API keys do not.
pub(crate) fn looks_like_jwt(bearer: &str) -> bool {
    bearer.split('.').count() == 3 && bearer.len() > 16
}

/// What a token's claim values open on a path: `Ok(None)` the whole deployment, `Ok(Some(p))`
/// one profile; `Err(())` nothing here (the edge answers 403 naming the scopes that would).
/// `/mcp` needs a grant of everything, or exactly one granted profile (used as the view);
/// `/mcp/<p>` needs a grant of `p` or of everything.
#[allow(clippy::result_unit_err)]
pub(crate) fn access(
    settings: &Settings,
    values: &[String],
    path: Option<&str>,
) -> Result<Option<String>, ()> {
    let granted: Vec<Option<&str>> = settings
        .grants
        .iter()
        .filter(|g| values.contains(&g.value))
        .map(|g| g.profile.as_deref())
        .collect();
    let everything = granted.contains(&None);
    match path {
        Some(p) if everything || granted.contains(&Some(p)) => Ok(Some(p.to_string())),
        Some(_) => Err(()),
        None if everything => Ok(None),
        None => {
            let mut profiles: Vec<&str> = granted.into_iter().flatten().collect();
            profiles.dedup();
            match profiles.as_slice() {
                [only] => Ok(Some(only.to_string())),
                _ => Err(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jwt_shape() {
        assert!(looks_like_jwt("eyJhbGciOi.eyJzdWIiOi.c2ln"));
        assert!(!looks_like_jwt("e2e-key-0123456789abcdef"));
        assert!(!looks_like_jwt("a.b.c"));
    }

    #[test]
    fn grants_open_paths() {
        let pairs = [
            (settings::ISSUER, "https://login.example.com"),
            (settings::RESOURCE_URL, "https://mcp.example.com/mcp"),
            (
                settings::PROFILES,
                "mcp:tools=*,books:rw=books,tickets:rw=tickets",
            ),
        ];
        let s = Settings::from_env(&env_config::Env::new(env_config::pairs(&pairs)))
            .unwrap()
            .unwrap();
        let v = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(access(&s, &v(&["mcp:tools"]), None), Ok(None));
        assert_eq!(
            access(&s, &v(&["mcp:tools"]), Some("books")),
            Ok(Some("books".into()))
        );
        assert_eq!(
            access(&s, &v(&["books:rw"]), None),
            Ok(Some("books".into()))
        );
        assert_eq!(
            access(&s, &v(&["books:rw"]), Some("books")),
            Ok(Some("books".into()))
        );
        assert_eq!(access(&s, &v(&["books:rw"]), Some("tickets")), Err(()));
        assert_eq!(access(&s, &v(&["books:rw", "tickets:rw"]), None), Err(()));
        assert_eq!(access(&s, &v(&["openid", "profile"]), None), Err(()));
        assert_eq!(access(&s, &[], Some("books")), Err(()));
    }
}
