//! `/health` for monitors and load balancers: no key needed, Host-checked like `/mcp`, and
//! cheap. `{ok, connectors: {name: status}}` where status is `ok`, `http_<code>`, `timeout`,
//! `unreachable`, `not_configured`, `secret_unavailable` or `no_probe`; `ok` is false when any
//! probe fails. Probe results are cached for [`HEALTH_CACHE`], so whatever the number of
//! callers, each connector costs at most one upstream request per period.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::sync::Mutex;

use super::AppState;
use crate::upstream::UpstreamError;

/// How long one round of probes answers `/health`.
pub const HEALTH_CACHE: Duration = Duration::from_secs(60);

/// The last probe round, shared by every caller.
#[derive(Debug, Default)]
pub struct HealthCache {
    last: Mutex<Option<(Instant, BTreeMap<String, String>)>>,
}

pub async fn health(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if !super::hosts::host_allowed(&headers, &super::hosts::allowed_hosts(&state.config)) {
        return super::respond::error(
            StatusCode::FORBIDDEN,
            "forbidden",
            "Forbidden: Host header is not allowed",
        );
    }
    let connectors = statuses(&state).await;
    let ok = connectors.values().all(|s| s == "ok" || s == "no_probe");
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

/// The cached statuses, probed anew when older than [`HEALTH_CACHE`]. Callers arriving during a
/// probe round wait for it instead of starting their own.
async fn statuses(state: &AppState) -> BTreeMap<String, String> {
    let mut last = state.health.last.lock().await;
    if let Some((at, statuses)) = last.as_ref()
        && at.elapsed() < HEALTH_CACHE
    {
        return statuses.clone();
    }
    let fresh = probe_all(state).await;
    *last = Some((Instant::now(), fresh.clone()));
    fresh
}

async fn probe_all(state: &AppState) -> BTreeMap<String, String> {
    let mut probes = tokio::task::JoinSet::new();
    let mut out = BTreeMap::new();
    for (i, conn) in state.inventory.registry.catalogs.iter().enumerate() {
        let Some(probe) = conn.catalog.health.as_ref() else {
            out.insert(conn.catalog.connector.clone(), "no_probe".to_string());
            continue;
        };
        let (inventory, mcp) = (state.inventory.clone(), state.mcp.clone());
        let (path, timeout) = (probe.get.clone(), state.config.health_timeout);
        probes.spawn(async move {
            let conn = &inventory.registry.catalogs[i];
            let result = mcp.pipeline.upstream().probe(conn, &path, timeout).await;
            (conn.catalog.connector.clone(), status_word(&result))
        });
    }
    while let Some(Ok((name, status))) = probes.join_next().await {
        out.insert(name, status);
    }
    out
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

/// The shared cache, for the state.
pub fn cache() -> Arc<HealthCache> {
    Arc::new(HealthCache::default())
}
