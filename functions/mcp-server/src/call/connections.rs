//! A person's own connections (connectors with `auth: oauth_user`): which are connected, and
//! disconnecting one: where the connector declares a `revocation_endpoint`, the grant is first
//! revoked there (RFC 7009, its refresh token, else its access token); then the entry leaves the
//! vault either way (a grant the upstream would not revoke stays until the person removes it in
//! their account, and the hint says so). Only the caller's own entries, found by their person
//! and nothing else; a caller without a person has none.

use catalog::{Catalog, Status};
use serde_json::{Map, Value, json};

use super::outcome::Outcome;
use super::{Caller, Pipeline};
use crate::inventory::Registry;
use crate::vault::{Connection, EntryKey, Person};

/// What the caller asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectionsRequest {
    List,
    Disconnect(String),
}

impl Pipeline {
    /// Lists or disconnects the caller's own connections among `connectors` (the deployment's
    /// `oauth_user` catalogs).
    pub async fn connections(
        &self,
        caller: &Caller,
        request: &ConnectionsRequest,
        connectors: &[&Catalog],
    ) -> Outcome {
        let Some(person) = &caller.person else {
            return Outcome::failed(
                Status::ConnectionRequired,
                "no_person",
                "Connections belong to a person, and this connection (an API key) names none. \
                 Use a client that signs in to this server with OAuth.",
            );
        };
        match request {
            ConnectionsRequest::List => self.list(person, connectors).await,
            ConnectionsRequest::Disconnect(name) => self.disconnect(person, name, connectors).await,
        }
    }

    /// The person's connections, as the vault holds them (no token); `Err` is the answer when
    /// the vault cannot be read.
    pub async fn connected(&self, person: &Person) -> Result<Vec<Connection>, Outcome> {
        self.vault.list(person).await.map_err(|e| {
            tracing::error!(error = %e, "vault unavailable for a list");
            unavailable()
        })
    }

    /// Every connector a person connects to, with whether this person is connected.
    async fn list(&self, person: &Person, connectors: &[&Catalog]) -> Outcome {
        let stored = match self.connected(person).await {
            Ok(l) => l,
            Err(unavailable) => return unavailable,
        };
        let rows: Vec<Value> = connectors
            .iter()
            .map(|c| row(c, stored.iter().find(|s| s.connector == c.connector)))
            .collect();
        let mut fields = Map::new();
        fields.insert("connections".into(), Value::Array(rows));
        Outcome::ok(fields)
    }

    /// The person's grant for `name` revoked upstream where it can be, then forgotten here.
    async fn disconnect(&self, person: &Person, name: &str, connectors: &[&Catalog]) -> Outcome {
        let Some(c) = connectors.iter().find(|c| c.connector == *name) else {
            let names: Vec<&str> = connectors.iter().map(|c| c.connector.as_str()).collect();
            return Outcome::failed(
                Status::InvalidInput,
                "unknown_connector",
                format!(
                    "`{name}` is no connector a person connects to here; one of: {}.",
                    names.join(", ")
                ),
            );
        };
        let scopes = c
            .auth
            .oauth_user
            .as_ref()
            .map(|o| o.scopes.clone())
            .unwrap_or_default();
        let Ok(key) = EntryKey::new(person.clone(), &c.connector, scopes.iter()) else {
            return unavailable();
        };
        let revoked = self.revoke_upstream(c, &key).await;
        match self.vault.remove(&key).await {
            Ok(had) => disconnected(c, had, revoked),
            Err(e) => {
                tracing::error!(error = %e, "vault unavailable for a disconnect");
                unavailable()
            }
        }
    }
}

/// One connector's row of the list, with the person's connection when there is one.
fn row(c: &Catalog, found: Option<&Connection>) -> Value {
    let mut row = json!({
        "connector": c.connector,
        "title": Registry::title(c),
        "connected": found.is_some(),
    });
    if let Some(s) = found {
        row["scopes"] = json!(s.scopes);
        row["connected_at"] = json!(s.connected_at);
        if let Some(e) = s.expires_at {
            row["token_expires_at"] = json!(e);
        }
    }
    row
}

/// What a disconnect did (`had`: an entry was forgotten; `revoked`: the upstream's word, when
/// asked), and a hint saying what is left to do.
fn disconnected(c: &Catalog, had: bool, revoked: Option<bool>) -> Outcome {
    let title = Registry::title(c);
    let mut fields = Map::new();
    fields.insert("connector".into(), json!(c.connector));
    fields.insert("disconnected".into(), json!(had));
    if let Some(r) = revoked {
        fields.insert("revoked_upstream".into(), json!(r));
    }
    let mut o = Outcome::ok(fields);
    o.hint = Some(if revoked == Some(true) {
        format!(
            "This server forgot your {title} connection, and {title} revoked \
             the access it granted."
        )
    } else if had {
        format!(
            "This server forgot your {title} connection. {title} may still \
             list the access it granted: remove it in your {title} account's \
             settings to revoke it there too."
        )
    } else {
        format!("You had no {title} connection here.")
    });
    o
}

impl Pipeline {
    /// Revokes the person's grant at the connector's revocation endpoint: `None` when none is
    /// declared or there is no grant, else whether the upstream revoked it.
    async fn revoke_upstream(&self, c: &Catalog, key: &EntryKey) -> Option<bool> {
        c.auth.oauth_user.as_ref()?.revocation_endpoint.as_ref()?;
        let stored = self.vault.get(key).await.ok().flatten()?;
        super::refresh::revoke(&self.upstream, c, &stored.grant).await
    }
}

fn unavailable() -> Outcome {
    Outcome::failed(
        Status::Unavailable,
        "vault_unavailable",
        "Your connections cannot be read right now; retry in a minute.",
    )
}
