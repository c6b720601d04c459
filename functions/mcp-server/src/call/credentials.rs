//! The credentials stage: whose credentials the upstream request carries. Most connectors use
//! the deployment's (the catalog's `auth` over the secret). A connector with `auth: oauth_user`
//! acts as the person who asks, with their own upstream token from the vault, found by
//! (our issuer, their subject, connector, scopes) and nothing less:
//!
//! - a caller without a person (an API key) is refused with `connection_required`: no shared
//!   token stands in;
//! - a person without a stored token gets `connection_required` with `connect_url`, a link to
//!   `/connect/<connector>` made for them alone (a sealed ticket naming their id, 15 minutes);
//! - a person whose grant lacks a scope the tool declares (never asked for yet, or unticked on
//!   the upstream's consent screen) gets `connection_required` with a link that asks for the
//!   connector's scopes, those granted so far and the tool's (incremental consent); nothing is
//!   sent before;
//! - an upstream 401 with their token is answered in `refresh` (the refresh token tried once,
//!   else the entry cleared and they are asked to connect again).

use std::ops::ControlFlow;

use catalog::{OAuthUser, Status, Text};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::outcome::Outcome;
use super::stages::Flow;
use super::{Caller, scopes};
use crate::inventory::{DeployedCatalog, Registry};
use crate::vault::{EntryKey, Grant, Person, Stored, VaultError, VaultStore, ticket};

/// How long a connect link stays valid.
pub(crate) const LINK_TTL_S: u64 = 900;
/// The ticket purpose of a connect link.
pub(crate) const LINK_PURPOSE: &str = "connect-link";

/// What a connect link carries: whom it was made for, for which connector, and the scopes it
/// asks for beyond the connector's (a tool's, and those granted before).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LinkFor {
    /// The person's id ([`Person::id`]).
    pub p: String,
    pub c: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub x: Vec<String>,
}

/// Where people connect their accounts: the server's public base URL (the `/connect/…`
/// endpoints sit beside `/mcp`), and the keys its links are sealed with.
pub(super) struct ConnectLinks<'a> {
    pub base: Option<&'a str>,
    pub keys: &'a [Vec<u8>],
}

/// The entry a call of this connector reads, when it acts as a person.
pub(super) fn entry_key(
    conn: &DeployedCatalog,
    person: &Person,
) -> Option<Result<EntryKey, VaultError>> {
    let o: &OAuthUser = conn.catalog.auth.oauth_user.as_ref()?;
    Some(EntryKey::new(
        person.clone(),
        &conn.catalog.connector,
        o.scopes.iter(),
    ))
}

/// Credentials: `None` for the deployment's, the person's entry for an `oauth_user` connector
/// when it holds the scopes the tool needs (`needed`; its token refreshed next, `refresh`), or
/// the answer that asks them to connect (again, for more).
pub(super) async fn lookup(
    vault: &dyn VaultStore,
    conn: &DeployedCatalog,
    needed: &[Text],
    caller: &Caller,
    connect: &ConnectLinks<'_>,
    now: u64,
) -> Flow<Option<(EntryKey, Stored)>> {
    if conn.catalog.auth.oauth_user.is_none() {
        return ControlFlow::Continue(None);
    }
    let title = Registry::title(&conn.catalog);
    let Some(person) = &caller.person else {
        return ControlFlow::Break(Outcome::failed(
            Status::ConnectionRequired,
            "no_person",
            format!(
                "{title} acts with each person's own {title} account, and this connection (an \
                 API key) names no person. Use it from a client that signs in to this server \
                 with OAuth (claude.ai, ChatGPT, Cursor); no shared account stands in."
            ),
        ));
    };
    let key = match entry_key(conn, person) {
        Some(Ok(key)) => key,
        _ => {
            return ControlFlow::Break(Outcome::failed(
                Status::ConnectionRequired,
                "no_person",
                "Your sign-in names no usable person (its subject is empty or too long).",
            ));
        }
    };
    let asking = |reason, more: &[String]| {
        ControlFlow::Break(ask_to_connect(conn, person, connect, now, reason, more))
    };
    match vault.get(&key).await {
        Ok(Some(stored)) => {
            let base = &key_scopes(conn);
            match scopes::more_to_ask(base, needed, &stored.grant) {
                None => ControlFlow::Continue(Some((key, stored))),
                Some(more) => asking("scope_required", &more),
            }
        }
        Ok(None) => asking("not_connected", &[]),
        Err(VaultError::Corrupt) => {
            tracing::warn!(connector = %conn.catalog.connector, "a vault entry did not open; it is cleared");
            let _ = vault.remove(&key).await;
            asking("not_connected", &[])
        }
        Err(e) => {
            tracing::error!(connector = %conn.catalog.connector, error = %e, "vault unavailable");
            ControlFlow::Break(Outcome::failed(
                Status::Unavailable,
                "vault_unavailable",
                format!("Your {title} connection cannot be read right now; retry in a minute."),
            ))
        }
    }
}

fn key_scopes(conn: &DeployedCatalog) -> &[Text] {
    let o = conn.catalog.auth.oauth_user.as_ref();
    o.map(|o| o.scopes.as_slice()).unwrap_or_default()
}

/// The scopes `grant` holds beyond the connector's, to ask for again when it ends.
pub(super) fn kept(conn: &DeployedCatalog, grant: &Grant) -> Vec<String> {
    scopes::kept(key_scopes(conn), grant)
}

/// `connection_required` with the person's own link, when one can be made; the link asks for
/// the `more` scopes beyond the connector's too.
pub(super) fn ask_to_connect(
    conn: &DeployedCatalog,
    person: &Person,
    connect: &ConnectLinks<'_>,
    now: u64,
    reason: &str,
    more: &[String],
) -> Outcome {
    let title = Registry::title(&conn.catalog);
    let connector = &conn.catalog.connector;
    let link = LinkFor {
        p: person.id(),
        c: connector.to_string(),
        x: more.to_vec(),
    };
    let url = connect.base.and_then(|base| {
        let t = ticket::issue(connect.keys, LINK_PURPOSE, &link, now + LINK_TTL_S).ok()?;
        Some(format!("{base}/connect/{connector}?for={t}"))
    });
    let (again, state) = match reason {
        "grant_refused" | "grant_expired" => (
            format!("{title} no longer accepts your connection (revoked or expired). "),
            "which is not connected yet",
        ),
        "scope_required" => (
            String::new(),
            "which is connected without the access this tool needs (not asked for yet, or \
             not allowed)",
        ),
        _ => (String::new(), "which is not connected yet"),
    };
    let mut outcome = match &url {
        Some(_) => Outcome::failed(
            Status::ConnectionRequired,
            reason,
            format!(
                "{again}This tool acts with your own {title} account, {state}. Ask the \
                 person to open connect_url in a browser (they sign in, then {title} asks \
                 them to allow access; the link is theirs alone and lasts {} minutes), then \
                 call this tool again.",
                LINK_TTL_S / 60
            ),
        ),
        None => Outcome::failed(
            Status::ConnectionRequired,
            reason,
            format!(
                "{again}This tool acts with your own {title} account, which is not connected, \
                 and this server has no public URL to connect it at (an operator must set \
                 MCP_RESOURCE_URL)."
            ),
        ),
    };
    outcome
        .fields
        .insert("connector".into(), Value::String(connector.to_string()));
    if let Some(url) = url {
        outcome
            .fields
            .insert("connect_url".into(), Value::String(url));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::Scope;
    use crate::vault::{Grant, MemoryVault};

    const MAIL: &str = r#"connector: mail
title: Mail
base_url: "https://mail.example"
secrets: [client_id]
auth:
  oauth_user:
    authorization_endpoint: "https://id.mail.example/authorize"
    token_endpoint: "https://id.mail.example/token"
    client_id: client_id
    scopes: [mail.read]
tools:
  - { name: mail_messages_list, risk: low, description: d, get: /messages }
  - { name: mail_message_send, risk: low, description: d, get: /send, scopes: [mail.send] }
"#;

    fn conn(yaml: &str) -> DeployedCatalog {
        let catalog = catalog::parse("mail.yaml", yaml).unwrap();
        DeployedCatalog {
            base_url: catalog.base_url.to_string(),
            expose_raw: false,
            catalog,
        }
    }

    fn caller(subject: Option<&str>) -> Caller {
        Caller {
            key_id: "oauth".into(),
            user: None,
            scope: Scope::Deployment,
            person: subject.map(|s| Person::new("https://id.example", s).unwrap()),
        }
    }

    fn keys() -> Vec<Vec<u8>> {
        vec![b"confirmation-key-0123456789abcdef".to_vec()]
    }

    fn refused(flow: Flow<Option<(EntryKey, Stored)>>) -> Outcome {
        match flow {
            ControlFlow::Break(o) => o,
            ControlFlow::Continue(_) => panic!("expected a refusal"),
        }
    }

    #[tokio::test]
    async fn each_person_gets_their_own_token_and_an_api_key_gets_none() {
        let vault = MemoryVault::default();
        let mail = conn(MAIL);
        let keys = keys();
        let connect = ConnectLinks {
            base: Some("https://mcp.example"),
            keys: &keys,
        };
        for (who, token) in [("alice", "alice-token"), ("bob", "bob-token")] {
            let person = caller(Some(who)).person.unwrap();
            let key = entry_key(&mail, &person).unwrap().unwrap();
            let grant = Grant {
                access_token: token.into(),
                refresh_token: None,
                expires_at: None,
                scopes: None,
            };
            vault.put(&key, &grant, 1).await.unwrap();
        }
        for (who, token) in [("alice", "alice-token"), ("bob", "bob-token")] {
            let flow = lookup(
                &vault,
                &mail,
                &mail.catalog.tools[0].scopes,
                &caller(Some(who)),
                &connect,
                10,
            )
            .await;
            let ControlFlow::Continue(Some((_, got))) = flow else {
                panic!("{who} has a token")
            };
            assert_eq!(got.grant.access_token, token);
        }
        let o = refused(
            lookup(
                &vault,
                &mail,
                &mail.catalog.tools[0].scopes,
                &caller(None),
                &connect,
                10,
            )
            .await,
        );
        assert_eq!(
            (o.status, o.reason.as_deref()),
            (Status::ConnectionRequired, Some("no_person"))
        );
        assert!(!o.fields.contains_key("connect_url"));
        assert!(o.hint.unwrap().contains("no shared account"));
        // A connector without oauth_user keeps the deployment's credentials.
        let plain = conn(
            "connector: shop\nbase_url: https://x\ntools:\n  - { name: shop_a_get, risk: low, description: d, get: /a }\n",
        );
        let flow = lookup(
            &vault,
            &plain,
            &plain.catalog.tools[0].scopes,
            &caller(None),
            &connect,
            10,
        )
        .await;
        assert!(matches!(flow, ControlFlow::Continue(None)));
    }

    #[tokio::test]
    async fn a_person_without_a_token_gets_a_link_made_for_them_alone() {
        let vault = MemoryVault::default();
        let mail = conn(MAIL);
        let keys = keys();
        let connect = ConnectLinks {
            base: Some("https://mcp.example"),
            keys: &keys,
        };
        let o = refused(
            lookup(
                &vault,
                &mail,
                &mail.catalog.tools[0].scopes,
                &caller(Some("carol")),
                &connect,
                10,
            )
            .await,
        );
        assert_eq!(o.status, Status::ConnectionRequired);
        assert_eq!(o.reason.as_deref(), Some("not_connected"));
        let url = o.fields["connect_url"].as_str().unwrap();
        let t = url
            .strip_prefix("https://mcp.example/connect/mail?for=")
            .unwrap();
        let link: LinkFor = ticket::open(&keys, LINK_PURPOSE, t, 11).unwrap();
        assert_eq!(link.p, caller(Some("carol")).person.unwrap().id());
        assert_eq!(link.c, "mail");
        assert!(!url.contains("carol"), "the link names nobody in the clear");
        assert!(
            link.x.is_empty(),
            "a first connect asks for the connector's scopes"
        );
        assert!(ticket::open::<LinkFor>(&keys, LINK_PURPOSE, t, 10 + LINK_TTL_S).is_err());
    }

    #[tokio::test]
    async fn a_tool_needing_a_scope_not_granted_asks_for_it_with_those_held() {
        let vault = MemoryVault::default();
        let mail = conn(MAIL);
        let (list, send) = (&mail.catalog.tools[0], &mail.catalog.tools[1]);
        let keys = keys();
        let connect = ConnectLinks {
            base: Some("https://mcp.example"),
            keys: &keys,
        };
        let dave = caller(Some("dave"));
        let key = entry_key(&mail, dave.person.as_ref().unwrap())
            .unwrap()
            .unwrap();
        let grant = |scopes: Option<&[&str]>| Grant {
            access_token: "t".into(),
            refresh_token: None,
            expires_at: None,
            scopes: scopes.map(|s| s.iter().map(|s| s.to_string()).collect()),
        };
        // Stored before scopes were kept: the connector's, which lack mail.send.
        vault.put(&key, &grant(None), 1).await.unwrap();
        let ok = lookup(&vault, &mail, &list.scopes, &dave, &connect, 10).await;
        assert!(matches!(ok, ControlFlow::Continue(Some(_))));
        let o = refused(lookup(&vault, &mail, &send.scopes, &dave, &connect, 10).await);
        assert_eq!(o.reason.as_deref(), Some("scope_required"));
        assert!(
            o.hint
                .unwrap()
                .contains("without the access this tool needs")
        );
        let t = o.fields["connect_url"]
            .as_str()
            .unwrap()
            .split("for=")
            .nth(1);
        let link: LinkFor = ticket::open(&keys, LINK_PURPOSE, t.unwrap(), 11).unwrap();
        assert_eq!(link.x, ["mail.send"]);
        // Granted with the resource's URL and other case: held. An extra scope granted before
        // is asked for again with the next one.
        vault
            .put(
                &key,
                &grant(Some(&["https://api.mail.example/Mail.Send", "mail.read"])),
                2,
            )
            .await
            .unwrap();
        let held = lookup(&vault, &mail, &send.scopes, &dave, &connect, 10).await;
        assert!(matches!(held, ControlFlow::Continue(Some(_))));
        let g = grant(Some(&["mail.read", "mail.labels"]));
        let base = &mail.catalog.auth.oauth_user.as_ref().unwrap().scopes;
        let more = scopes::more_to_ask(base, &send.scopes, &g).unwrap();
        assert_eq!(more, ["mail.labels", "mail.send"]);
        assert_eq!(kept(&mail, &g), ["mail.labels"]);
        // Unticked on the consent screen: a connector scope missing from the grant is asked again.
        let unticked = grant(Some(&[]));
        assert!(scopes::more_to_ask(base, &list.scopes, &unticked).is_none());
        assert_eq!(
            scopes::more_to_ask(base, &send.scopes, &unticked).unwrap(),
            ["mail.send"]
        );
    }
}
