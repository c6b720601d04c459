//! `GET /oauth/authorize`: the client's authorization request checked, then the person sent to
//! the company IdP to sign in. An unknown client or a redirect URI it did not register gets a
//! page, never a redirect (no open redirector); every other fault goes back to the client as
//! an RFC 6749 §4.1.2.1 error. PKCE S256 is required; `resource` (RFC 8707) must name our MCP
//! endpoint or one profile's; scopes must be profile claim values of this deployment.

use serde::{Deserialize, Serialize};

use super::store::Registration;
use super::{Answer, ClientError, Issuer, browser, page, pkce, redirect, settings, with_query};
use crate::vault::ticket;

/// The ticket purpose of the state through the IdP.
pub(super) const SIGNIN: &str = "issuer-signin";

/// The authorization request's parameters.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct AuthorizeQuery {
    pub response_type: Option<String>,
    pub client_id: Option<String>,
    pub redirect_uri: Option<String>,
    pub state: Option<String>,
    pub scope: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    pub resource: Option<String>,
    /// Who the client believes is signing in (OpenID Connect's `login_hint`): passed on to the
    /// IdP as it is, when short and printable, to preselect the account.
    pub login_hint: Option<String>,
}

/// The longest `login_hint` passed on.
const MAX_LOGIN_HINT: usize = 256;

/// The client's `login_hint`, when it is one worth passing on.
fn login_hint(q: &AuthorizeQuery) -> Option<&str> {
    let hint = q.login_hint.as_deref()?.trim();
    let usable = !hint.is_empty() && hint.len() <= MAX_LOGIN_HINT;
    (usable && !hint.contains(char::is_control)).then_some(hint)
}

/// A checked authorization request, carried through the sign-in and the consent form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct AuthRequest {
    pub c: String,
    pub r: String,
    /// The PKCE challenge.
    pub x: String,
    pub s: Option<String>,
    /// Scopes, space-separated.
    pub p: String,
    /// The resource.
    pub a: String,
}

/// The state through the IdP.
#[derive(Serialize, Deserialize)]
pub(super) struct SignInState {
    pub q: AuthRequest,
    /// Our PKCE verifier at the IdP, and the OIDC nonce (also the single-use claim).
    pub v: String,
    pub n: String,
    /// The hash of the browser's binding secret.
    pub b: String,
}

/// Why a request is refused: a page (client or redirect URI not to be trusted), or an error
/// sent back to the client's redirect URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum AuthorizeRefusal {
    Page(&'static str),
    Back {
        error: &'static str,
        description: String,
    },
}

/// The request checked against the client it names. Pure.
pub(super) fn check(
    q: &AuthorizeQuery,
    client: Option<&Registration>,
    resource_ok: impl Fn(&str) -> bool,
    scopes: &[&str],
    default_scopes: impl Fn(&str) -> Vec<String>,
) -> Result<AuthRequest, AuthorizeRefusal> {
    let (client, redirect) = trusted(q, client)?;
    let back = |error, description: String| AuthorizeRefusal::Back { error, description };
    if q.response_type.as_deref() != Some("code") {
        let why = "response_type must be code".to_string();
        return Err(back("unsupported_response_type", why));
    }
    let method = q.code_challenge_method.as_deref();
    let challenge = pkce::challenge(q.code_challenge.as_deref(), method)
        .map_err(|e| back("invalid_request", e.to_string()))?;
    let resource = q.resource.as_deref().unwrap_or_default();
    if !resource_ok(resource) {
        let why = "resource must name this server's MCP URL".to_string();
        return Err(back("invalid_target", why));
    }
    // `openid` is what many clients (and our own /connect) send out of habit: accepted and
    // left out, since no ID token is issued here (RFC 6749 §3.3 lets us grant less).
    let asked: Vec<&str> = q
        .scope
        .as_deref()
        .unwrap_or_default()
        .split_whitespace()
        .filter(|s| *s != "openid")
        .collect();
    let granted = match asked.iter().find(|s| !scopes.contains(s)) {
        Some(unknown) => {
            let why = format!("unknown scope `{}`", audit::bounded(unknown, 40));
            return Err(back("invalid_scope", why));
        }
        None if asked.is_empty() => default_scopes(resource).join(" "),
        None => asked.join(" "),
    };
    Ok(AuthRequest {
        c: client.id.clone(),
        r: redirect.to_string(),
        x: challenge,
        s: q.state.clone(),
        p: granted,
        a: resource.to_string(),
    })
}

/// The client and a redirect URI it registered: only then may an error go back to it.
fn trusted<'a>(
    q: &'a AuthorizeQuery,
    client: Option<&'a Registration>,
) -> Result<(&'a Registration, &'a str), AuthorizeRefusal> {
    let client = client.ok_or(AuthorizeRefusal::Page(
        "This client is not registered here (or its registration expired).",
    ))?;
    let redirect = q.redirect_uri.as_deref().unwrap_or_default();
    if !redirect::matches(&client.redirect_uris, redirect) {
        return Err(AuthorizeRefusal::Page(
            "The redirect URI is not one this client registered.",
        ));
    }
    Ok((client, redirect))
}

/// An error sent back to the client (RFC 6749 §4.1.2.1, RFC 9207 `iss`).
pub(super) fn error_back(
    redirect: &str,
    state: Option<&str>,
    issuer: &str,
    error: &str,
    text: &str,
) -> String {
    let mut pairs = vec![
        ("error", error),
        ("error_description", text),
        ("iss", issuer),
    ];
    pairs.extend(state.map(|s| ("state", s)));
    with_query(redirect, &pairs)
}

impl Issuer {
    /// `GET /oauth/authorize`.
    pub(crate) async fn authorize(&self, q: &AuthorizeQuery, now: u64) -> Answer {
        let client = match q.client_id.as_deref() {
            Some(id) => match self.client(id, now).await {
                Ok(c) => c,
                Err(ClientError::Unavailable) => {
                    return page(503, "Please try again", "Sign-in is unavailable right now.");
                }
                Err(ClientError::Document(e)) => {
                    return page(400, "This client cannot sign in here", e.to_string());
                }
            },
            None => None,
        };
        let scopes: Vec<&str> = self.oauth.grants.iter().map(|g| g.value.as_str()).collect();
        let asked = match check(
            q,
            client.as_ref(),
            |r| self.resource_ok(r),
            &scopes,
            |r| self.default_scopes(r),
        ) {
            Ok(asked) => asked,
            Err(AuthorizeRefusal::Page(text)) => {
                return page(400, "This sign-in request is not valid", text);
            }
            Err(AuthorizeRefusal::Back { error, description }) => {
                let to = error_back(
                    q.redirect_uri.as_deref().unwrap_or_default(),
                    q.state.as_deref(),
                    &self.settings.issuer,
                    error,
                    &description,
                );
                return Answer::Redirect(to);
            }
        };
        let hint = login_hint(q);
        self.to_idp(asked, hint, now)
            .await
            .unwrap_or_else(|stop| stop)
    }

    /// The browser bound, then sent to the IdP with a sealed state (and the client's
    /// `login_hint`, if any).
    async fn to_idp(
        &self,
        asked: AuthRequest,
        hint: Option<&str>,
        now: u64,
    ) -> Result<Answer, Answer> {
        let unavailable = || {
            page(
                503,
                "Sign-in is unavailable",
                "Please try again in a minute.",
            )
        };
        let (authorize, _) = self.idp.endpoints().await.map_err(|e| {
            tracing::warn!(error = %e, "issuer: the identity provider's endpoints are unknown");
            unavailable()
        })?;
        let (secret, hash) = browser::bind().ok_or_else(unavailable)?;
        let verifier = crate::random::hex(32).ok_or_else(unavailable)?;
        let nonce = crate::random::hex(16).ok_or_else(unavailable)?;
        let challenge = pkce_challenge(&verifier);
        let state = SignInState {
            q: asked,
            v: verifier,
            n: nonce.clone(),
            b: hash,
        };
        let keys = self.keys().await;
        let ticket = ticket::issue(&keys, SIGNIN, &state, now + settings::FLOW_TTL_S)
            .map_err(|_| unavailable())?;
        let callback = self.url(super::metadata::CALLBACK);
        let mut query = vec![
            ("response_type", "code"),
            ("client_id", self.idp.client_id()),
            ("redirect_uri", &callback),
            ("scope", "openid email profile"),
            ("state", &ticket),
            ("nonce", &nonce),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
        ];
        query.extend(hint.map(|h| ("login_hint", h)));
        let to = with_query(&authorize, &query);
        Ok(Answer::Bind {
            to,
            cookie: browser::set_cookie(&secret),
        })
    }

    /// Our MCP endpoint, or one profile's.
    fn resource_ok(&self, resource: &str) -> bool {
        let base = &self.oauth.resource;
        resource == base
            || resource
                .strip_prefix(base.as_str())
                .and_then(|rest| rest.strip_prefix('/'))
                .is_some_and(|p| self.profiles.iter().any(|known| known == p))
    }

    /// The scopes a request without `scope` gets: those that open its resource.
    fn default_scopes(&self, resource: &str) -> Vec<String> {
        let profile = resource
            .strip_prefix(self.oauth.resource.as_str())
            .and_then(|r| r.strip_prefix('/'));
        self.oauth
            .values_for(profile)
            .into_iter()
            .take(1)
            .map(str::to_string)
            .collect()
    }
}

fn pkce_challenge(verifier: &str) -> String {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    fn client() -> Registration {
        Registration {
            id: "c1".into(),
            name: "Claude".into(),
            redirect_uris: vec!["http://127.0.0.1:33418/callback".into()],
            expires_at: 9,
        }
    }

    fn query() -> AuthorizeQuery {
        AuthorizeQuery {
            response_type: Some("code".into()),
            client_id: Some("c1".into()),
            redirect_uri: Some("http://127.0.0.1:40000/callback".into()),
            state: Some("st".into()),
            scope: Some("mcp:tools".into()),
            code_challenge: Some(CHALLENGE.into()),
            code_challenge_method: Some("S256".into()),
            resource: Some("https://mcp.example.com/mcp".into()),
            login_hint: None,
        }
    }

    fn run(q: &AuthorizeQuery, c: Option<&Registration>) -> Result<AuthRequest, AuthorizeRefusal> {
        check(
            q,
            c,
            |r| r == "https://mcp.example.com/mcp",
            &["mcp:tools", "books:rw"],
            |_| vec!["mcp:tools".into()],
        )
    }

    #[test]
    fn a_good_request_is_carried_through() {
        let asked = run(&query(), Some(&client())).unwrap();
        assert_eq!(
            (asked.p.as_str(), asked.x.as_str()),
            ("mcp:tools", CHALLENGE)
        );
        let mut q = query();
        q.scope = None;
        assert_eq!(run(&q, Some(&client())).unwrap().p, "mcp:tools");
    }

    #[test]
    fn unknown_clients_and_foreign_redirects_get_a_page_never_a_redirect() {
        assert!(matches!(
            run(&query(), None),
            Err(AuthorizeRefusal::Page(_))
        ));
        let mut q = query();
        q.redirect_uri = Some("https://evil.example.com/callback".into());
        assert!(matches!(
            run(&q, Some(&client())),
            Err(AuthorizeRefusal::Page(_))
        ));
    }

    #[test]
    fn a_login_hint_is_passed_on_only_when_short_and_printable() {
        let hint = |h: &str| {
            let q = AuthorizeQuery {
                login_hint: Some(h.to_string()),
                ..query()
            };
            login_hint(&q).map(str::to_string)
        };
        assert_eq!(
            hint(" anna@example.com ").as_deref(),
            Some("anna@example.com")
        );
        assert_eq!(hint(""), None);
        assert_eq!(hint("a\nb"), None);
        assert_eq!(hint(&"a".repeat(MAX_LOGIN_HINT + 1)), None);
        assert_eq!(login_hint(&query()), None);
    }

    #[test]
    fn pkce_resource_and_scope_faults_go_back_to_the_client() {
        let error = |q: AuthorizeQuery| match run(&q, Some(&client())) {
            Err(AuthorizeRefusal::Back { error, .. }) => error,
            other => panic!("{other:?}"),
        };
        let mut q = query();
        q.code_challenge_method = Some("plain".into());
        assert_eq!(error(q), "invalid_request");
        let mut q = query();
        q.code_challenge = None;
        assert_eq!(error(q), "invalid_request");
        let mut q = query();
        q.resource = Some("https://other.example.com/mcp".into());
        assert_eq!(error(q), "invalid_target");
        let mut q = query();
        q.resource = None;
        assert_eq!(error(q), "invalid_target");
        let mut q = query();
        q.scope = Some("admin".into());
        assert_eq!(error(q), "invalid_scope");
        // `openid` is left out, not refused: alone it means the resource's default.
        for (asked, granted) in [("openid books:rw", "books:rw"), ("openid", "mcp:tools")] {
            let mut q = query();
            q.scope = Some(asked.into());
            assert_eq!(run(&q, Some(&client())).unwrap().p, granted);
        }
        let mut q = query();
        q.response_type = Some("token".into());
        assert_eq!(error(q), "unsupported_response_type");
    }
}
