//! `/connect/<connector>`: where a person connects their own upstream account for a connector
//! with `auth: oauth_user`. Three steps, each answering a redirect or a plain page
//! ([`Step`]); the HTTP edge (`http/connect.rs`) only maps them:
//!
//! 1. **start** (`GET /connect/<c>?for=…`): the link from a `connection_required` answer. Its
//!    ticket names the person it was made for. The browser is sent to *our* authorization
//!    server to sign in (authorization code with PKCE, a public client `MCP_CONNECT_CLIENT_ID`,
//!    the resource indicator of this server so the token is one we can check).
//! 2. **signed in** (`GET /connect/<c>/signed-in`): the code is exchanged and the token checked
//!    like any caller's; unless its subject is the person the link was made for, the page
//!    refuses (a forwarded link cannot attach someone else's account). Then the browser goes
//!    to the upstream's authorization endpoint (PKCE, scopes, `resource` where declared).
//! 3. **callback** (`GET /connect/<c>/callback`): the code is exchanged at the upstream's token
//!    endpoint (client id and secret from the deployment secret) and the grant stored in the
//!    vault under (our issuer, subject, connector, scopes).
//!
//! The flow belongs to the browser that started it (`browser`): step 1 sets a short-lived
//! `__Host-` cookie whose hash every later state carries, and steps 2 and 3 refuse a browser
//! without it, so a forwarded link (ours or the provider's) attaches nobody's account.
//!
//! Every state is a sealed ticket (`vault::ticket`: integrity, secrecy of the PKCE verifier
//! and the subject, 10 minutes) and single-use: its nonce is claimed in the idempotency ledger
//! (DynamoDB on Lambda, so across instances). Tokens and codes are never logged or shown.

pub(crate) mod browser;
mod page;
mod pkce;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use catalog::OAuthUser;
use serde::{Deserialize, Serialize};

pub(crate) use page::Page;

use crate::call::{Claim, LINK_PURPOSE, Ledger, LinkFor};
use crate::oauth::Verifier;
use crate::secrets::SecretStore;
use crate::upstream::token_endpoint as exchange;
use crate::vault::{EntryKey, Person, VaultStore, ticket};

/// How long a sign-in or an upstream authorization may take.
const STATE_TTL_S: u64 = 600;
const SIGNIN: &str = "connect-signin";
const UPSTREAM: &str = "connect-upstream";

/// What a step answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// 302 to this URL.
    Redirect(String),
    /// 302 to `to`, binding the browser: `Set-Cookie` with this value.
    Bind {
        to: String,
        cookie: String,
    },
    Page(Page),
}

/// The query of a redirect back to us.
#[derive(Debug, Default, Deserialize)]
pub struct Back {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
}

/// A connector people connect to.
#[derive(Debug, Clone)]
pub struct Declared {
    pub title: String,
    pub oauth: OAuthUser,
}

/// The state through our sign-in.
#[derive(Serialize, Deserialize)]
struct SignIn {
    /// The person the link was made for.
    p: String,
    c: String,
    v: String,
    n: String,
    /// The hash of the browser's binding secret.
    b: String,
}

/// The state through the upstream's authorization.
#[derive(Serialize, Deserialize)]
struct Authorize {
    i: String,
    s: String,
    c: String,
    v: String,
    n: String,
    b: String,
}

/// Everything the steps need, built once at start.
pub struct Connect {
    pub http: reqwest::Client,
    pub vault: Arc<dyn VaultStore>,
    pub verifier: Arc<Verifier>,
    pub secrets: Arc<SecretStore>,
    pub ledger: Arc<Ledger>,
    /// This server's public base URL (`https://host`), where `/connect/…` is.
    pub base: String,
    /// Our client at our own authorization server (public, PKCE).
    pub client_id: Option<String>,
    pub connectors: HashMap<String, Declared>,
    /// Our authorization server's endpoints (authorization, token), learned once.
    pub endpoints: Mutex<Option<(String, String)>>,
}

impl Connect {
    /// Step 1: the link, then our sign-in.
    pub async fn start(&self, connector: &str, link: Option<&str>, now: u64) -> Step {
        let declared = match self.declared(connector) {
            Ok(declared) => declared,
            Err(not_found) => return not_found,
        };
        let title = &declared.title;
        let keys = self.keys().await;
        let Some(link) = link else {
            return page(
                400,
                format!("Connect {title}"),
                format!(
                    "This page needs the link from your chat: ask the assistant to use a \
                     {title} tool, and open the link it gives you."
                ),
            );
        };
        let made_for: LinkFor = match ticket::open(&keys, LINK_PURPOSE, link, now) {
            Ok(l) => l,
            Err(ticket::TicketError::Expired) => {
                return page(
                    400,
                    "This link has expired",
                    format!(
                        "Links to connect {title} last 15 minutes. Ask the assistant to use a \
                         {title} tool again for a new one."
                    ),
                );
            }
            Err(_) => {
                return page(
                    400,
                    "This link is not valid",
                    "It was changed or does not come from this server. Use the link from your \
                     chat as it was given.",
                );
            }
        };
        if made_for.c != connector {
            return page(
                400,
                "This link is not valid",
                "It was made for another connector.",
            );
        }
        let Some(client_id) = &self.client_id else {
            return page(
                503,
                "Connecting is not set up",
                "This server has no sign-in client for connecting accounts; an operator must \
                 set MCP_CONNECT_CLIENT_ID.",
            );
        };
        let (authorize, _) = match self.our_endpoints().await {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(error = %e, "our authorization server's metadata is unavailable");
                return page(
                    503,
                    "Sign-in is unavailable",
                    "Please try again in a minute.",
                );
            }
        };
        let (Some(verifier), Some(nonce), Some(binding)) = (
            pkce::verifier(),
            crate::random::hex(16),
            browser::Binding::new(),
        ) else {
            return page(
                503,
                "Please try again",
                "The server could not make a sign-in request.",
            );
        };
        let state = SignIn {
            p: made_for.p,
            c: connector.to_string(),
            v: verifier.clone(),
            n: nonce,
            b: binding.hash,
        };
        let Ok(state) = ticket::issue(&keys, SIGNIN, &state, now + STATE_TTL_S) else {
            return page(
                503,
                "Please try again",
                "The server has no key to sign requests with.",
            );
        };
        let settings = self.verifier.settings();
        let scopes = std::iter::once("openid")
            .chain(settings.values_for(None))
            .collect::<Vec<_>>()
            .join(" ");
        let url = with_query(
            &authorize,
            &[
                ("response_type", "code"),
                ("client_id", client_id),
                ("redirect_uri", &self.redirect(connector, "signed-in")),
                ("scope", &scopes),
                ("state", &state),
                ("code_challenge", &pkce::challenge(&verifier)),
                ("code_challenge_method", "S256"),
                ("resource", &settings.resource),
            ],
        );
        Step::Bind {
            to: url,
            cookie: browser::set_cookie(&binding.secret, STATE_TTL_S),
        }
    }

    /// Step 2: back from our sign-in in the same browser; the same person, then the upstream.
    pub async fn signed_in(
        &self,
        connector: &str,
        back: &Back,
        browser: Option<&str>,
        now: u64,
    ) -> Step {
        let steps = async {
            let declared = self.declared(connector)?;
            let keys = self.keys().await;
            let state: SignIn = self
                .state(&keys, SIGNIN, back, connector, browser, now)
                .await?;
            let subject = self
                .same_person(&state, back, connector, &declared.title, now)
                .await?;
            self.to_upstream(connector, declared, &keys, subject, state.b, now)
                .await
        };
        steps.await.unwrap_or_else(|stop| stop)
    }

    /// The person our sign-in names, who must be the one the link was made for; `Err` is the
    /// page that says why not.
    async fn same_person(
        &self,
        state: &SignIn,
        back: &Back,
        connector: &str,
        title: &str,
        now: u64,
    ) -> Result<String, Step> {
        let not_signed_in = || {
            page(
                400,
                "You were not signed in",
                "Open the link from your chat again.",
            )
        };
        let (Some(code), Some(client_id)) = (&back.code, &self.client_id) else {
            return Err(not_signed_in());
        };
        let (_, token_endpoint) = self.our_endpoints().await.map_err(|_| {
            page(
                503,
                "Sign-in is unavailable",
                "Please try again in a minute.",
            )
        })?;
        let settings = self.verifier.settings();
        let client = exchange::Client {
            id: client_id,
            secret: None,
            resource: Some(&settings.resource),
        };
        let redirect_uri = self.redirect(connector, "signed-in");
        let what = exchange::Exchange::Code {
            code,
            verifier: &state.v,
            redirect_uri: &redirect_uri,
        };
        let grant = exchange::exchange(&self.http, &token_endpoint, &client, what, now)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "connect: our sign-in code was not exchanged");
                not_signed_in()
            })?;
        let identity = self
            .verifier
            .verify(&grant.access_token, None)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "connect: the sign-in token was refused");
                not_signed_in()
            })?;
        let person = Person::new(&settings.issuer, &identity.subject).map_err(|_| {
            page(
                400,
                "You were not signed in",
                "Your sign-in names no person.",
            )
        })?;
        if person.id() != state.p {
            tracing::warn!(
                connector,
                "connect: a link was opened by another person than it was made for"
            );
            return Err(page(
                403,
                "This link was made for someone else",
                format!(
                    "You signed in as another person than the one this link was made for, so \
                     no {title} account is connected. Each person connects with the link from \
                     their own chat."
                ),
            ));
        }
        Ok(identity.subject)
    }

    /// The redirect to the upstream's authorization for `subject`, its state bound to the
    /// browser (`binding`) that started the flow.
    async fn to_upstream(
        &self,
        connector: &str,
        declared: &Declared,
        keys: &[Vec<u8>],
        subject: String,
        binding: String,
        now: u64,
    ) -> Result<Step, Step> {
        let title = &declared.title;
        let secrets = self.secrets_or_retry().await?;
        let oauth = &declared.oauth;
        let Some(upstream_client) = secrets.field(connector, &oauth.client_id) else {
            return Err(page(
                503,
                format!("{title} is not set up"),
                format!("This server has no {title} client id yet; an operator must add it."),
            ));
        };
        let try_again = || {
            page(
                503,
                "Please try again",
                "The server could not make a request.",
            )
        };
        let (Some(verifier), Some(nonce)) = (pkce::verifier(), crate::random::hex(16)) else {
            return Err(try_again());
        };
        let next = Authorize {
            i: self.verifier.settings().issuer.clone(),
            s: subject,
            c: connector.to_string(),
            v: verifier.clone(),
            n: nonce,
            b: binding,
        };
        let Ok(next) = ticket::issue(keys, UPSTREAM, &next, now + STATE_TTL_S) else {
            return Err(page(
                503,
                "Please try again",
                "The server has no key to sign requests with.",
            ));
        };
        let scopes = oauth.scopes.join(" ");
        let redirect_uri = self.redirect(connector, "callback");
        let challenge = pkce::challenge(&verifier);
        let mut query = vec![
            ("response_type", "code"),
            ("client_id", upstream_client),
            ("state", next.as_str()),
            ("code_challenge_method", "S256"),
            ("redirect_uri", &redirect_uri),
            ("code_challenge", &challenge),
        ];
        if !scopes.is_empty() {
            query.push(("scope", &scopes));
        }
        if let Some(r) = &oauth.resource {
            query.push(("resource", r));
        }
        Ok(Step::Redirect(with_query(
            &oauth.authorization_endpoint,
            &query,
        )))
    }

    /// The connector at this address, or the page saying there is none.
    fn declared(&self, connector: &str) -> Result<&Declared, Step> {
        self.connectors.get(connector).ok_or_else(|| {
            page(
                404,
                "Not found",
                "There is nothing to connect at this address.",
            )
        })
    }

    /// Step 3: back from the upstream in the same browser; the grant into the vault.
    pub async fn callback(
        &self,
        connector: &str,
        back: &Back,
        browser: Option<&str>,
        now: u64,
    ) -> Step {
        let declared = match self.declared(connector) {
            Ok(declared) => declared,
            Err(not_found) => return not_found,
        };
        let title = &declared.title;
        if back.error.is_some() {
            return page(
                400,
                format!("{title} was not connected"),
                format!(
                    "{title} did not grant access (you may have declined). Nothing was stored; \
                     open the link from your chat again to retry."
                ),
            );
        }
        let keys = self.keys().await;
        let state: Authorize = match self
            .state(&keys, UPSTREAM, back, connector, browser, now)
            .await
        {
            Ok(s) => s,
            Err(step) => return step,
        };
        let Some(code) = &back.code else {
            return page(
                400,
                format!("{title} was not connected"),
                "No code came back.",
            );
        };
        let secrets = match self.secrets_or_retry().await {
            Ok(s) => s,
            Err(retry) => return retry,
        };
        let oauth = &declared.oauth;
        let Some(client_id) = secrets.field(connector, &oauth.client_id) else {
            return page(
                503,
                format!("{title} is not set up"),
                "No client id is configured.",
            );
        };
        let client = exchange::Client {
            id: client_id,
            secret: oauth
                .client_secret
                .as_deref()
                .and_then(|f| secrets.field(connector, f)),
            resource: oauth.resource.as_deref(),
        };
        let redirect_uri = self.redirect(connector, "callback");
        let what = exchange::Exchange::Code {
            code,
            verifier: &state.v,
            redirect_uri: &redirect_uri,
        };
        let grant = match exchange::exchange(&self.http, &oauth.token_endpoint, &client, what, now)
            .await
        {
            Ok(g) => g,
            Err(e) => {
                tracing::warn!(connector, error = %e, "connect: the upstream code was not exchanged");
                return page(
                    502,
                    format!("{title} was not connected"),
                    format!(
                        "{title} did not complete the connection. Open the link from your chat again."
                    ),
                );
            }
        };
        let key = Person::new(&state.i, &state.s)
            .and_then(|p| EntryKey::new(p, connector, oauth.scopes.iter()));
        let Ok(key) = key else {
            return page(
                400,
                format!("{title} was not connected"),
                "Your sign-in names no person.",
            );
        };
        if let Err(e) = self.vault.put(&key, &grant, now).await {
            tracing::error!(connector, error = %e, "connect: the grant could not be stored");
            return page(
                503,
                format!("{title} was not connected"),
                "Please try again in a minute.",
            );
        }
        tracing::info!(connector, "connect: a person connected their account");
        page(
            200,
            format!("{title} is connected"),
            format!(
                "Your {title} account is connected. You can close this page and ask the \
                 assistant again."
            ),
        )
    }

    /// A state ticket of this purpose and connector, from the browser that started the flow,
    /// opened and claimed once. Another browser is refused before the claim, so it cannot use
    /// up the state of the person it was forwarded by.
    async fn state<T: serde::de::DeserializeOwned + HasNonce>(
        &self,
        keys: &[Vec<u8>],
        purpose: &str,
        back: &Back,
        connector: &str,
        browser: Option<&str>,
        now: u64,
    ) -> Result<T, Step> {
        let again = "Open the link from your chat again.";
        let Some(state) = back.state.as_deref() else {
            return Err(page(400, "This request is not valid", again));
        };
        let state: T = match ticket::open(keys, purpose, state, now) {
            Ok(s) => s,
            Err(ticket::TicketError::Expired) => {
                return Err(page(400, "This request has expired", again));
            }
            Err(_) => return Err(page(400, "This request is not valid", again)),
        };
        if state.connector() != connector {
            return Err(page(400, "This request is not valid", again));
        }
        if !browser::matches(browser, state.browser()) {
            tracing::warn!(
                connector,
                "connect: a step arrived from another browser than the one that started it"
            );
            return Err(page(
                403,
                "Finish in the browser you started in",
                "This page belongs to a connection started in another browser, so nothing was \
                 connected. If you were sent this link, do not use it: open the link from your \
                 own chat instead.",
            ));
        }
        match self
            .ledger
            .claim(&format!("connect#{}", state.nonce()), purpose, now)
            .await
        {
            Claim::New => Ok(state),
            Claim::Unavailable(why) => {
                tracing::warn!(why, "connect: the single-use check is unavailable");
                Err(page(
                    503,
                    "Please try again",
                    "The server cannot check this request now.",
                ))
            }
            _ => Err(page(400, "This request was already used", again)),
        }
    }

    async fn keys(&self) -> Vec<Vec<u8>> {
        self.secrets
            .get()
            .await
            .map(|s| s.confirmation_keys.clone())
            .unwrap_or_default()
    }

    fn redirect(&self, connector: &str, step: &str) -> String {
        format!("{}/connect/{connector}/{step}", self.base)
    }

    /// Our authorization server's authorization and token endpoints (its metadata, once).
    async fn our_endpoints(&self) -> Result<(String, String), String> {
        if let Some(e) = self
            .endpoints
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            return Ok(e);
        }
        let issuer = &self.verifier.settings().issuer;
        let mut errors = Vec::new();
        for url in crate::oauth::keys::metadata_urls(issuer) {
            match self.metadata(&url).await {
                Ok(m) if m.issuer == *issuer => {
                    let e = (m.authorization_endpoint, m.token_endpoint);
                    *self.endpoints.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.clone());
                    return Ok(e);
                }
                Ok(_) => errors.push(format!("{url}: another issuer")),
                Err(e) => errors.push(e),
            }
        }
        Err(errors.join("; "))
    }

    async fn metadata(&self, url: &str) -> Result<Metadata, String> {
        let r = self
            .http
            .get(url)
            .timeout(exchange::TIMEOUT)
            .send()
            .await
            .map_err(|_| format!("{url}: unreachable"))?;
        if !r.status().is_success() {
            return Err(format!("{url}: HTTP {}", r.status().as_u16()));
        }
        let body = r.bytes().await.map_err(|_| format!("{url}: broke off"))?;
        if body.len() > 256 * 1024 {
            return Err(format!("{url}: too large"));
        }
        serde_json::from_slice(&body).map_err(|_| format!("{url}: not the expected JSON"))
    }
}

#[derive(Deserialize)]
struct Metadata {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
}

trait HasNonce {
    fn nonce(&self) -> &str;
    fn connector(&self) -> &str;
    /// The hash of the binding secret of the browser that started the flow.
    fn browser(&self) -> &str;
}

impl HasNonce for SignIn {
    fn nonce(&self) -> &str {
        &self.n
    }
    fn connector(&self) -> &str {
        &self.c
    }
    fn browser(&self) -> &str {
        &self.b
    }
}

impl HasNonce for Authorize {
    fn nonce(&self) -> &str {
        &self.n
    }
    fn connector(&self) -> &str {
        &self.c
    }
    fn browser(&self) -> &str {
        &self.b
    }
}

impl Connect {
    /// The deployment's secrets, or the page that asks the person to try again.
    async fn secrets_or_retry(&self) -> Result<Arc<crate::secrets::SecretValues>, Step> {
        self.secrets.get().await.map_err(|_| {
            page(
                503,
                "Please try again",
                "The server's settings are unavailable.",
            )
        })
    }
}

fn page(status: u16, title: impl Into<String>, text: impl Into<String>) -> Step {
    Step::Page(Page::new(status, title, text))
}

/// `url` with these query pairs appended.
fn with_query(url: &str, pairs: &[(&str, &str)]) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            u.query_pairs_mut().extend_pairs(pairs);
            u.to_string()
        }
        Err(_) => url.to_string(),
    }
}
