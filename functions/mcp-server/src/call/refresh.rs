//! Refresh: a person's grant renewed shortly before it expires, with rotation, one refresh at
//! a time per entry across instances. The instance that claims the entry's version (a
//! conditional write with a short lease) asks the upstream's token endpoint and replaces that
//! version; the others keep using the token while it is still valid, or wait briefly for the
//! new one. A refresh the upstream refuses (`invalid_grant`: revoked, expired, reused) clears
//! the entry and the person is asked to connect again; any other failure (unreachable, a 5xx,
//! our client refused) leaves the entry. An upstream 401 with a stored token tries the refresh
//! token once before the entry is cleared ([`after_refused`]), and an entry given up while it
//! still holds a refresh token is revoked at the provider ([`give_up`]).

use std::ops::ControlFlow;
use std::time::Duration;

use catalog::{Catalog, Status};

use super::credentials::{self, ConnectLinks};
use super::outcome::Outcome;
use super::stages::Flow;
use crate::inventory::{DeployedCatalog, Registry};
use crate::upstream::token_endpoint::{self, Client, Exchange, ExchangeError};
use crate::upstream::{PersonToken, Upstream};
use crate::vault::{EntryKey, Grant, Stored, VaultStore};

/// A grant is refreshed when it expires within this many seconds.
pub(super) const MARGIN_S: u64 = 60;
/// How long a claimed refresh holds the entry.
const LEASE_S: u64 = 30;
/// How long a call waits for another instance's refresh of an expired token.
const WAIT: Duration = Duration::from_secs(3);
const POLL: Duration = Duration::from_millis(100);

/// The token to send: the stored one, or a refreshed one.
pub(super) async fn fresh(
    vault: &dyn VaultStore,
    upstream: &Upstream,
    conn: &DeployedCatalog,
    key: &EntryKey,
    stored: Stored,
    connect: &ConnectLinks<'_>,
    now: u64,
) -> Flow<PersonToken> {
    let grant = &stored.grant;
    let due = grant.expires_at.is_some_and(|e| e <= now + MARGIN_S);
    let valid = grant.expires_at.is_none_or(|e| e > now);
    if !due {
        return ControlFlow::Continue(PersonToken::new(grant.access_token.clone()));
    }
    let keep = || ControlFlow::Continue(PersonToken::new(grant.access_token.clone()));
    let Some(refresh_token) = grant.refresh_token.clone() else {
        return if valid {
            keep()
        } else {
            ask_again(vault, conn, key, Some(grant), connect, now, "grant_expired").await
        };
    };
    match vault
        .claim_refresh(key, stored.version, now, now + LEASE_S)
        .await
    {
        Ok(true) => {}
        Ok(false) if valid => return keep(),
        Ok(false) => return wait_for_other(vault, conn, key, &stored, connect, now).await,
        Err(e) => {
            tracing::warn!(error = %e, "the vault could not take a refresh claim");
            return if valid { keep() } else { unavailable(conn) };
        }
    }
    match renew_claimed(
        vault,
        upstream,
        conn,
        key,
        &stored,
        refresh_token,
        connect,
        now,
    )
    .await
    {
        None if valid => keep(),
        None => unavailable(conn),
        Some(flow) => flow,
    }
}

/// After an upstream 401 with the person's stored token: the grant's refresh token, tried
/// once (the access token may have been revoked or ended early while the grant lives on),
/// gives a new token to ask with; without one, or refused, the entry is cleared and the
/// person asked to connect again.
pub(super) async fn after_refused(
    vault: &dyn VaultStore,
    upstream: &Upstream,
    conn: &DeployedCatalog,
    key: &EntryKey,
    connect: &ConnectLinks<'_>,
    now: u64,
) -> Flow<PersonToken> {
    let stored = match vault.get(key).await {
        Ok(Some(stored)) => stored,
        Ok(None) => {
            return ControlFlow::Break(credentials::ask_to_connect(
                conn,
                key.person(),
                connect,
                now,
                "grant_refused",
                &[],
            ));
        }
        Err(e) => {
            tracing::warn!(error = %e, "the vault could not be read after a refused token");
            return unavailable(conn);
        }
    };
    let Some(refresh_token) = stored.grant.refresh_token.clone() else {
        return ask_again(
            vault,
            conn,
            key,
            Some(&stored.grant),
            connect,
            now,
            "grant_refused",
        )
        .await;
    };
    match vault
        .claim_refresh(key, stored.version, now, now + LEASE_S)
        .await
    {
        Ok(true) => {}
        Ok(false) => return wait_for_other(vault, conn, key, &stored, connect, now).await,
        Err(e) => {
            tracing::warn!(error = %e, "the vault could not take a refresh claim");
            return unavailable(conn);
        }
    }
    match renew_claimed(
        vault,
        upstream,
        conn,
        key,
        &stored,
        refresh_token,
        connect,
        now,
    )
    .await
    {
        None => unavailable(conn),
        Some(flow) => flow,
    }
}

/// The upstream refused even a freshly renewed token: the entry is cleared, and its grant,
/// which still holds a refresh token we would otherwise abandon, is revoked at the provider
/// where the connector declares a revocation endpoint.
pub(super) async fn give_up(
    vault: &dyn VaultStore,
    upstream: &Upstream,
    conn: &DeployedCatalog,
    key: &EntryKey,
    connect: &ConnectLinks<'_>,
    now: u64,
) -> Outcome {
    let ended = vault.get(key).await.ok().flatten();
    if let Some(stored) = &ended {
        revoke(upstream, &conn.catalog, &stored.grant).await;
    }
    let grant = ended.as_ref().map(|s| &s.grant);
    match ask_again(vault, conn, key, grant, connect, now, "grant_refused").await {
        ControlFlow::Break(outcome) => outcome,
        ControlFlow::Continue(_) => unreachable!("asking again always answers"),
    }
}

/// Revokes `grant` at the connector's revocation endpoint: `None` when none is declared,
/// else whether the provider revoked it.
pub(super) async fn revoke(upstream: &Upstream, c: &Catalog, grant: &Grant) -> Option<bool> {
    let oauth = c.auth.oauth_user.as_ref()?;
    let endpoint = oauth.revocation_endpoint.as_deref()?;
    let Ok(secrets) = upstream.secrets.get().await else {
        return Some(false);
    };
    let field = |f: &str| secrets.field(&c.connector, f);
    let owned = |f: &str| field(f).map(str::to_string);
    let Ok(endpoint) = catalog::fill_base_url(endpoint, owned) else {
        return Some(false);
    };
    let Some(id) = field(&oauth.client_id) else {
        return Some(false);
    };
    let client = Client {
        id,
        secret: oauth.client_secret.as_deref().and_then(field),
        resource: None,
    };
    match token_endpoint::revoke(&upstream.http, &endpoint, &client, grant).await {
        Ok(()) => Some(true),
        Err(e) => {
            tracing::warn!(connector = %c.connector, error = %e, "a grant was not revoked at the upstream");
            Some(false)
        }
    }
}

/// The refresh of a claimed entry: the renewed grant stored in place of the claimed version,
/// or a refused grant cleared (the answer asks to connect again); `None` for a failure that
/// leaves the entry as it was.
#[allow(clippy::too_many_arguments)]
async fn renew_claimed(
    vault: &dyn VaultStore,
    upstream: &Upstream,
    conn: &DeployedCatalog,
    key: &EntryKey,
    stored: &Stored,
    refresh_token: String,
    connect: &ConnectLinks<'_>,
    now: u64,
) -> Option<Flow<PersonToken>> {
    match renew(upstream, conn, &refresh_token, now).await {
        Ok(mut renewed) => {
            // Rotation: a new refresh token replaces the old; none given keeps the old.
            if renewed.refresh_token.is_none() {
                renewed.refresh_token = Some(refresh_token);
            }
            // A refresh keeps the scopes granted unless the answer names them.
            if renewed.scopes.is_none() {
                renewed.scopes = stored.grant.scopes.clone();
            }
            match vault.replace(key, stored.version, &renewed).await {
                Ok(true) => {}
                Ok(false) => tracing::info!(
                    "a refreshed grant was not stored: the person connected again meanwhile"
                ),
                Err(e) => tracing::warn!(error = %e, "a refreshed grant was not stored"),
            }
            Some(ControlFlow::Continue(PersonToken::new(
                renewed.access_token,
            )))
        }
        Err(ExchangeError::Refused(why)) => {
            tracing::info!(connector = %conn.catalog.connector, why, "a refresh was refused: the grant is cleared");
            let grant = Some(&stored.grant);
            Some(ask_again(vault, conn, key, grant, connect, now, "grant_refused").await)
        }
        Err(e) => {
            tracing::warn!(connector = %conn.catalog.connector, error = %e, "a refresh failed");
            None
        }
    }
}

/// Another instance holds the refresh of an expired token: its result, read back.
async fn wait_for_other(
    vault: &dyn VaultStore,
    conn: &DeployedCatalog,
    key: &EntryKey,
    stored: &Stored,
    connect: &ConnectLinks<'_>,
    now: u64,
) -> Flow<PersonToken> {
    let until = tokio::time::Instant::now() + WAIT;
    while tokio::time::Instant::now() < until {
        tokio::time::sleep(POLL).await;
        match vault.get(key).await {
            Ok(Some(s)) if s.version != stored.version => {
                return ControlFlow::Continue(PersonToken::new(s.grant.access_token));
            }
            Ok(None) => {
                return ControlFlow::Break(credentials::ask_to_connect(
                    conn,
                    key.person(),
                    connect,
                    now,
                    "grant_refused",
                    &[],
                ));
            }
            _ => {}
        }
    }
    unavailable(conn)
}

async fn renew(
    upstream: &Upstream,
    conn: &DeployedCatalog,
    refresh_token: &str,
    now: u64,
) -> Result<crate::vault::Grant, ExchangeError> {
    let Some(oauth) = conn.catalog.auth.oauth_user.as_ref() else {
        return Err(ExchangeError::Unreachable("no oauth_user".into()));
    };
    let secrets = upstream
        .secrets
        .get()
        .await
        .map_err(|_| ExchangeError::Unreachable("the deployment secret".into()))?;
    let connector = &conn.catalog.connector;
    let id = secrets
        .field(connector, &oauth.client_id)
        .ok_or_else(|| ExchangeError::Unreachable("no client id".into()))?;
    let client = Client {
        id,
        secret: oauth
            .client_secret
            .as_deref()
            .and_then(|f| secrets.field(connector, f)),
        resource: oauth.resource.as_deref(),
    };
    let what = Exchange::Refresh {
        token: refresh_token,
    };
    let field = |f: &str| secrets.field(connector, f).map(str::to_string);
    let endpoint = catalog::fill_base_url(&oauth.token_endpoint, field)
        .map_err(|e| ExchangeError::Unreachable(e.to_string()))?;
    token_endpoint::exchange(&upstream.http, &endpoint, &client, what, now).await
}

/// The entry cleared, and the person asked to connect again: for the connector's scopes and
/// those the ended grant (`was`) held beyond them.
async fn ask_again(
    vault: &dyn VaultStore,
    conn: &DeployedCatalog,
    key: &EntryKey,
    was: Option<&Grant>,
    connect: &ConnectLinks<'_>,
    now: u64,
    reason: &str,
) -> Flow<PersonToken> {
    if let Err(e) = vault.remove(key).await {
        tracing::warn!(error = %e, "an ended grant could not be cleared from the vault");
    }
    let more = was.map(|g| credentials::kept(conn, g)).unwrap_or_default();
    ControlFlow::Break(credentials::ask_to_connect(
        conn,
        key.person(),
        connect,
        now,
        reason,
        &more,
    ))
}

fn unavailable(conn: &DeployedCatalog) -> Flow<PersonToken> {
    let title = Registry::title(&conn.catalog);
    ControlFlow::Break(Outcome::failed(
        Status::Unavailable,
        "refresh_unavailable",
        format!("Your {title} connection could not be renewed right now; retry in a minute."),
    ))
}
