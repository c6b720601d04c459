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
//!
//! One file per step (`start`, `signed_in`, `callback`); the sealed states and their claim in
//! `state`, our authorization server's endpoints in `endpoints`.

pub(crate) mod browser;
mod callback;
mod endpoints;
mod mine;
pub(crate) mod page;
mod pkce;
mod signed_in;
mod start;
mod state;

use crate::oauth::url::with_query;
use std::collections::HashMap;
use std::sync::Arc;

use catalog::OAuthUser;
use serde::Deserialize;

pub(crate) use mine::{Mine, html as connections_html};
pub(crate) use page::Page;

use crate::call::Ledger;
use crate::oauth::Verifier;
use crate::secrets::SecretStore;
use crate::vault::VaultStore;

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
    /// The scopes its tools declare beyond the connector's: all a link may ask for more.
    pub more: Vec<String>,
}

impl Declared {
    /// The scopes an authorization asks for: the connector's, then those of `more` the link
    /// names that a tool declares (a link asks for nothing else).
    fn asked(&self, link: &[String]) -> Vec<String> {
        let base = self.oauth.scopes.iter().map(|s| s.to_string());
        let declared = |s: &&String| self.more.iter().any(|m| m == *s);
        let mut scopes: Vec<String> = base.collect();
        for s in link.iter().filter(declared) {
            if !scopes.contains(s) {
                scopes.push(s.clone());
            }
        }
        scopes
    }
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
    pub(crate) endpoints: crate::oauth::endpoints::Endpoints,
}

impl Connect {
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

/// The deployment's client id at the connector's upstream, or the page that says an operator
/// must add it (the sign-in and the callback both need it).
fn upstream_client_id<'a>(
    secrets: &'a crate::secrets::SecretValues,
    connector: &str,
    declared: &Declared,
) -> Result<&'a str, Step> {
    let title = &declared.title;
    secrets
        .field(connector, &declared.oauth.client_id)
        .ok_or_else(|| {
            page(
                503,
                format!("{title} is not set up"),
                format!("This server has no {title} client id yet; an operator must add it."),
            )
        })
}

/// One of the upstream's OAuth endpoints with its `{field}` placeholders filled from the
/// deployment secret (a tenant id in Entra's path), as the base URL's are.
fn upstream_endpoint(
    secrets: &crate::secrets::SecretValues,
    connector: &str,
    declared: &Declared,
    endpoint: &str,
) -> Result<String, Step> {
    let field = |f: &str| secrets.field(connector, f).map(str::to_string);
    catalog::fill_base_url(endpoint, field).map_err(|e| {
        let title = &declared.title;
        page(
            503,
            format!("{title} is not set up"),
            format!(
                "This server's {title} settings are incomplete ({e}); an operator must fix them."
            ),
        )
    })
}

fn page(status: u16, title: impl Into<String>, text: impl Into<String>) -> Step {
    Step::Page(Page::new(status, title, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_upstream_client_id_is_one_page_for_the_operator() {
        let secret = |fields: &str| {
            crate::secrets::parse_secret(
                "s",
                &format!(r#"{{"connectors":{{"mail":{{{fields}}}}}}}"#),
                &audit::Redactor::new(),
                &crate::secrets::Addresses::new(),
            )
            .unwrap()
        };
        let declared = Declared {
            title: "Mail".into(),
            oauth: OAuthUser {
                client_id: "client_id".into(),
                ..OAuthUser::default()
            },
            more: Vec::new(),
        };
        let set = secret(r#""client_id":"abc""#);
        assert!(matches!(
            upstream_client_id(&set, "mail", &declared),
            Ok("abc")
        ));
        let unset = secret(r#""other":"x""#);
        let Err(Step::Page(page)) = upstream_client_id(&unset, "mail", &declared) else {
            panic!("no page for a missing client id");
        };
        assert_eq!(
            (page.status, page.title.as_str()),
            (503, "Mail is not set up")
        );
        assert!(
            page.text.contains("an operator must add it"),
            "{}",
            page.text
        );
    }

    #[test]
    fn a_link_asks_for_the_connectors_scopes_and_only_declared_ones_more() {
        let declared = Declared {
            title: "Mail".into(),
            oauth: OAuthUser {
                scopes: vec!["mail.read".into()],
                ..OAuthUser::default()
            },
            more: vec!["contacts.read".into(), "mail.send".into()],
        };
        assert_eq!(declared.asked(&[]), ["mail.read"]);
        let link = ["mail.send".into(), "admin.all".into(), "mail.read".into()];
        assert_eq!(declared.asked(&link), ["mail.read", "mail.send"]);
    }
}
