//! `/health` for monitors and load balancers: no key needed, counted by the per-IP limit like
//! `/mcp` (`limit::per_ip`, in `http::front`), Host-checked like `/mcp`, and cheap.
//! `{ok, connectors: {name: status}}` where status is `ok`, `http_<code>`, `timeout`,
//! `unreachable`, `not_configured`, `secret_unavailable`, `no_probe`, `unused` (the secret holds
//! no field of a connector that needs some: this deployment does not use it, nothing is sent) or
//! `unknown` (another instance is probing and had no result yet); `ok` is false when any probe
//! fails.
//!
//! **One probe per connector per interval** (`MCP_HEALTH_INTERVAL_S`, 900 s by default) for the
//! whole deployment: with the limits table, instances claim the right to probe in it
//! ([`ProbeTable::claim`]): one instance probes and writes its result back, the others read that
//! result from the claim's answer. Every instance keeps what it learned until the next probe is
//! due, so it asks the table about a connector at most about once an interval. Without a table
//! (locally) the same cache is this process's own. **Fail safe:** when the table fails, the
//! instance probes on its own and keeps the result for the interval: never more often than a
//! per-process cache.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::sync::Mutex;

use super::AppState;
use crate::clock::now_ms;
use crate::probes::{ProbeTable, Turn};
use crate::upstream::UpstreamError;

/// How long past its probe timeout another instance's result is waited for.
const SETTLE: Duration = Duration::from_millis(500);
/// How often the table is asked while another instance's first result is awaited.
const POLL: Duration = Duration::from_millis(200);
/// The shortest time an answer without a fresh result is kept before the table is asked again.
const RETRY: Duration = Duration::from_secs(1);

/// What this instance knows of each connector's health, and where the probes are shared.
pub struct HealthCache {
    /// The shared probe results (the limits table); this process alone without.
    store: Option<ProbeTable>,
    interval: Duration,
    /// By connector: the status, and until when (ms since the epoch) it answers.
    known: Mutex<BTreeMap<String, (String, u64)>>,
    /// The minute a failing table was last logged.
    logged: AtomicU64,
}

pub(crate) async fn health(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if !super::hosts::host_allowed(&headers, &super::hosts::allowed_hosts(&state.config)) {
        return super::respond::error(
            StatusCode::FORBIDDEN,
            "forbidden",
            "Forbidden: Host header is not allowed",
        );
    }
    let connectors = statuses(&state).await;
    let ok = connectors
        .values()
        .all(|s| s == "ok" || s == "no_probe" || s == UNUSED);
    let code = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let mut response = (code, Json(json!({ "ok": ok, "connectors": connectors }))).into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    response
}

/// Each connector's status: what this instance knows while it is current, else the shared
/// (or, without a table, its own) probe. Callers arriving during a round wait for it instead of
/// starting their own.
async fn statuses(state: &AppState) -> BTreeMap<String, String> {
    let mut known = state.health.known.lock().await;
    let now = now_ms();
    let mut out = BTreeMap::new();
    let mut probes = tokio::task::JoinSet::new();
    for (i, conn) in state.inventory.registry.catalogs.iter().enumerate() {
        let name = conn.catalog.connector.to_string();
        if conn.catalog.health.is_none() && conn.catalog.mcp.is_none() {
            out.insert(name, "no_probe".to_string());
            continue;
        }
        if let Some((status, until)) = known.get(name.as_str())
            && now < *until
        {
            out.insert(name, status.clone());
            continue;
        }
        let state = state.clone();
        probes.spawn(async move {
            let (status, until) = status_of(&state, i).await;
            (name, status, until)
        });
    }
    while let Some(Ok((name, status, until))) = probes.join_next().await {
        known.insert(name.clone(), (status.clone(), until));
        out.insert(name, status);
    }
    out
}

/// The status of connector `i` and until when it answers: from the shared table when there is
/// one (probing only with this interval's claim), else from this process's own probe.
async fn status_of(state: &AppState, i: usize) -> (String, u64) {
    let health = &state.health;
    let interval = health.interval;
    let interval_ms = millis(interval);
    let Some(table) = &health.store else {
        let now = now_ms();
        return (probe(state, i).await, now + interval_ms);
    };
    let connector = &state.inventory.registry.catalogs[i].catalog.connector;
    loop {
        let now = now_ms();
        let turn = match table.claim(connector, now, interval).await {
            Ok(turn) => turn,
            Err(e) => {
                health.table_failed(connector, &e, now);
                return (probe(state, i).await, now + interval_ms);
            }
        };
        let (claimed_ms, last) = match turn {
            Turn::Mine { claimed_ms } => {
                let status = probe(state, i).await;
                if let Err(e) = table.record(connector, claimed_ms, &status).await {
                    health.table_failed(connector, &e, now);
                }
                return (status, claimed_ms + interval_ms);
            }
            Turn::Theirs { claimed_ms, last } => (claimed_ms, last),
        };
        let next_claim = claimed_ms + interval_ms;
        // The interval's result is in: it answers until the next probe is due.
        if let Some(p) = &last
            && p.probed_ms >= claimed_ms
        {
            return (p.status.clone(), next_claim);
        }
        // Another instance is probing (or went away before it recorded): an earlier result
        // answers until theirs is due; without one, its result is waited for that long.
        let due = claimed_ms + millis(state.config.health_timeout + SETTLE);
        let again = due.max(now + millis(RETRY)).min(next_claim);
        match last {
            Some(p) => return (p.status, again),
            None if now < due => tokio::time::sleep(POLL).await,
            None => return ("unknown".to_string(), again),
        }
    }
}

/// A connector that needs secrets and has none in the deployment secret: shipped (embedded)
/// but not used by this deployment, so it does not make `/health` fail.
const UNUSED: &str = "unused";

async fn probe(state: &AppState, i: usize) -> String {
    let conn = &state.inventory.registry.catalogs[i];
    if conn.catalog.mcp.is_some() {
        let upstream = state.mcp.pipeline.upstream();
        let timeout = state.config.health_timeout;
        let result = tokio::time::timeout(timeout, upstream.remote_probe(conn))
            .await
            .unwrap_or(Err(UpstreamError::Timeout {
                after_ms: timeout.as_millis() as u64,
            }));
        if conn.catalog.auth.oauth_user.is_some() {
            return per_person_status(&result);
        }
        return status_word(&result);
    }
    let Some(probe) = conn.catalog.health.as_ref() else {
        return "no_probe".to_string();
    };
    let upstream = state.mcp.pipeline.upstream();
    if !conn.catalog.secrets.is_empty()
        && upstream.holds_secrets_of(&conn.catalog.connector).await == Some(false)
    {
        return UNUSED.to_string();
    }
    let result = upstream
        .probe(conn, &probe.get, state.config.health_timeout)
        .await;
    if conn.catalog.auth.oauth_user.is_some() {
        return per_person_status(&result);
    }
    status_word(&result)
}

/// A connector that acts with each person's own account is probed without anyone's token: a
/// 401 or 403 then says the upstream is up and answering, which is all a probe can learn.
fn per_person_status(result: &Result<(), UpstreamError>) -> String {
    match result {
        Err(e) if matches!(e.http_status(), Some(401 | 403)) => "ok".into(),
        other => status_word(other),
    }
}

fn status_word(result: &Result<(), UpstreamError>) -> String {
    match result {
        Ok(()) => "ok".into(),
        Err(UpstreamError::Timeout { .. } | UpstreamError::Deadline { .. }) => "timeout".into(),
        Err(UpstreamError::Unreachable) => "unreachable".into(),
        Err(UpstreamError::SecretUnavailable) => "secret_unavailable".into(),
        Err(UpstreamError::NotConfigured(_)) => "not_configured".into(),
        Err(e) => match e.http_status() {
            Some(code) if !(200..300).contains(&code) => format!("http_{code}"),
            _ => "bad_answer".into(),
        },
    }
}

impl HealthCache {
    /// Logs a failing table at most once a minute; the instance probes on its own meanwhile.
    fn table_failed(&self, connector: &str, e: &crate::limits::table::TableError, now_ms: u64) {
        let minute = now_ms / 60_000;
        if self.logged.swap(minute, Ordering::Relaxed) != minute {
            tracing::warn!(
                connector,
                error = %e,
                "health: the probe table failed; this instance probes on its own, once an interval"
            );
        }
    }
}

/// The cache for the state: probes shared through `store` when there is one, one per
/// connector per `interval`.
pub(crate) fn cache(store: Option<ProbeTable>, interval: Duration) -> Arc<HealthCache> {
    Arc::new(HealthCache {
        store,
        interval,
        known: Mutex::default(),
        logged: AtomicU64::new(u64::MAX),
    })
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod per_person_tests {
    use super::*;
    use crate::upstream::Refusal;

    fn refused(code: u16) -> Result<(), UpstreamError> {
        Err(UpstreamError::Refused(Box::new(Refusal {
            http_status: code,
            message: None,
            quota: None,
            retry_after_s: None,
            code: None,
        })))
    }

    #[test]
    fn a_per_person_upstream_that_refuses_the_tokenless_probe_is_up() {
        assert_eq!(per_person_status(&refused(401)), "ok");
        assert_eq!(per_person_status(&refused(403)), "ok");
        assert_eq!(per_person_status(&refused(503)), "http_503");
        assert_eq!(
            per_person_status(&Err(UpstreamError::Unreachable)),
            "unreachable"
        );
        assert_eq!(status_word(&refused(401)), "http_401");
    }
}
