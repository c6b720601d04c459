//! Dynamic client registration (RFC 7591) as this server allows it: public clients only
//! (`token_endpoint_auth_method: none`, PKCE), the code and refresh grants, redirect URIs by
//! the rules of `redirect`; a name bounded for the consent page. Pure: the request in, the
//! client (or why not) out; the edge limits registrations per IP and stores the client.

use serde::Deserialize;
use serde_json::{Value, json};

use super::redirect;
use super::store::Registration;

/// The most redirect URIs one client registers.
const MAX_REDIRECTS: usize = 10;
/// The longest client name kept.
const MAX_NAME: usize = 80;

/// The metadata a client sends (fields this server does not use are ignored).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Request {
    #[serde(default)]
    pub redirect_uris: Vec<String>,
    #[serde(default)]
    pub client_name: Option<String>,
    #[serde(default)]
    pub token_endpoint_auth_method: Option<String>,
    #[serde(default)]
    pub grant_types: Option<Vec<String>>,
    #[serde(default)]
    pub response_types: Option<Vec<String>>,
}

/// An RFC 7591 §3.2.2 error: `invalid_redirect_uri` or `invalid_client_metadata`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MetadataError {
    pub error: &'static str,
    pub description: String,
}

fn metadata(description: impl Into<String>) -> MetadataError {
    MetadataError {
        error: "invalid_client_metadata",
        description: description.into(),
    }
}

/// The client `request` registers as `id`, alive until `expires_at` unless used.
pub(crate) fn register(
    request: Request,
    id: String,
    expires_at: u64,
) -> Result<Registration, MetadataError> {
    redirects(&request.redirect_uris)?;
    public_code_client(&request)?;
    let name = request
        .client_name
        .map(|n| {
            n.chars()
                .filter(|c| !c.is_control())
                .take(MAX_NAME)
                .collect::<String>()
        })
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "an unnamed client".to_string());
    Ok(Registration {
        id,
        name,
        redirect_uris: request.redirect_uris,
        expires_at,
    })
}

/// 1 to [`MAX_REDIRECTS`] redirect URIs, each by the rules of `redirect`.
fn redirects(uris: &[String]) -> Result<(), MetadataError> {
    let refused = |description| MetadataError {
        error: "invalid_redirect_uri",
        description,
    };
    if uris.is_empty() || uris.len() > MAX_REDIRECTS {
        return Err(refused(format!(
            "register 1 to {MAX_REDIRECTS} redirect_uris"
        )));
    }
    uris.iter()
        .try_for_each(|uri| redirect::check(uri).map_err(|e| refused(e.to_string())))
}

/// A public client (`none`) of the code flow (`code`; the code and refresh grants).
fn public_code_client(request: &Request) -> Result<(), MetadataError> {
    if let Some(other) = request
        .token_endpoint_auth_method
        .as_deref()
        .filter(|m| *m != "none")
    {
        return Err(metadata(format!(
            "token_endpoint_auth_method `{}`: only `none` (a public client with PKCE)",
            audit::bounded(other, 40)
        )));
    }
    let grants = request.grant_types.as_deref().unwrap_or_default();
    let allowed = |g: &&String| matches!(g.as_str(), "authorization_code" | "refresh_token");
    if let Some(g) = grants.iter().find(|g| !allowed(g)) {
        return Err(metadata(format!(
            "grant_type `{}`: only authorization_code and refresh_token",
            audit::bounded(g, 40)
        )));
    }
    let responses = request.response_types.as_deref().unwrap_or_default();
    if responses.iter().any(|r| r != "code") {
        return Err(metadata("response_types: only `code`"));
    }
    Ok(())
}

/// The RFC 7591 §3.2.1 answer.
pub(crate) fn answer(client: &Registration, issued_at: u64) -> Value {
    json!({
        "client_id": client.id,
        "client_id_issued_at": issued_at,
        "client_name": client.name,
        "redirect_uris": client.redirect_uris,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(redirects: &[&str]) -> Request {
        Request {
            redirect_uris: redirects.iter().map(|s| s.to_string()).collect(),
            client_name: Some("Claude\u{7}".into()),
            ..Request::default()
        }
    }

    #[test]
    fn a_public_client_with_good_redirects_registers() {
        let c = register(
            request(&["http://127.0.0.1:33418/callback"]),
            "c1".into(),
            9,
        )
        .unwrap();
        assert_eq!(
            (c.id.as_str(), c.name.as_str(), c.expires_at),
            ("c1", "Claude", 9)
        );
        assert_eq!(answer(&c, 1)["token_endpoint_auth_method"], "none");
    }

    #[test]
    fn bad_redirects_secrets_and_other_grants_are_refused() {
        let e = register(request(&["http://evil.example.com/cb"]), "c".into(), 9).unwrap_err();
        assert_eq!(e.error, "invalid_redirect_uri");
        assert_eq!(
            register(request(&[]), "c".into(), 9).unwrap_err().error,
            "invalid_redirect_uri"
        );
        let mut secret = request(&["https://a.example/cb"]);
        secret.token_endpoint_auth_method = Some("client_secret_basic".into());
        assert_eq!(
            register(secret, "c".into(), 9).unwrap_err().error,
            "invalid_client_metadata"
        );
        let mut implicit = request(&["https://a.example/cb"]);
        implicit.grant_types = Some(vec!["implicit".into()]);
        assert!(register(implicit, "c".into(), 9).is_err());
        let mut token = request(&["https://a.example/cb"]);
        token.response_types = Some(vec!["token".into()]);
        assert!(register(token, "c".into(), 9).is_err());
    }
}
