//! Refresh: a person's grant renewed shortly before it expires, with rotation, one refresh at
//! a time per entry across instances. The instance that claims the entry's version (a
//! conditional write with a short lease) asks the upstream's token endpoint and replaces that
//! version; the others keep using the token while it is still valid, or wait briefly for the
//! new one. A refresh the upstream refuses (revoked, expired, reused) clears the entry and the
//! person is asked to connect again; an upstream that cannot be reached leaves the entry.

use std::ops::ControlFlow;
use std::time::Duration;

use catalog::Status;

use super::credentials::{self, Connect};
use super::outcome::Outcome;
use super::stages::Flow;
use crate::inventory::{DeployedCatalog, Registry};
use crate::upstream::token_endpoint::{self, Client, Exchange, ExchangeError};
use crate::upstream::{PersonToken, Upstream};
use crate::vault::{EntryKey, Stored, VaultStore};

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
    connect: &Connect<'_>,
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
            ask_again(vault, conn, key, connect, now, "grant_expired").await
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
    match renew(upstream, conn, &refresh_token, now).await {
        Ok(mut renewed) => {
            // Rotation: a new refresh token replaces the old; none given keeps the old.
            if renewed.refresh_token.is_none() {
                renewed.refresh_token = Some(refresh_token);
            }
            match vault.replace(key, stored.version, &renewed).await {
                Ok(true) => {}
                Ok(false) => tracing::info!(
                    "a refreshed grant was not stored: the person connected again meanwhile"
                ),
                Err(e) => tracing::warn!(error = %e, "a refreshed grant was not stored"),
            }
            ControlFlow::Continue(PersonToken::new(renewed.access_token))
        }
        Err(ExchangeError::Refused(why)) => {
            tracing::info!(connector = %conn.catalog.connector, why, "a refresh was refused: the grant is cleared");
            ask_again(vault, conn, key, connect, now, "grant_refused").await
        }
        Err(e) => {
            tracing::warn!(connector = %conn.catalog.connector, error = %e, "a refresh failed");
            if valid { keep() } else { unavailable(conn) }
        }
    }
}

/// Another instance holds the refresh of an expired token: its result, read back.
async fn wait_for_other(
    vault: &dyn VaultStore,
    conn: &DeployedCatalog,
    key: &EntryKey,
    stored: &Stored,
    connect: &Connect<'_>,
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
    token_endpoint::exchange(&upstream.http, &oauth.token_endpoint, &client, what, now).await
}

async fn ask_again(
    vault: &dyn VaultStore,
    conn: &DeployedCatalog,
    key: &EntryKey,
    connect: &Connect<'_>,
    now: u64,
    reason: &str,
) -> Flow<PersonToken> {
    if let Err(e) = vault.remove(key).await {
        tracing::warn!(error = %e, "an ended grant could not be cleared from the vault");
    }
    ControlFlow::Break(credentials::ask_to_connect(
        conn,
        key.person(),
        connect,
        now,
        reason,
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
