//! `/health`: a cheap probe of each upstream with a short timeout.
//!
//! `{ok, connectors: {name: status}}` where status is `ok`, `http_<code>`, `timeout`,
//! `unreachable`, `not_configured` or `no_probe`; `ok` is false when any probe fails.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::AppState;
use crate::upstream::{self, Failure};

pub async fn health(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    let secrets = match state.secrets.get().await {
        Ok(s) => s,
        Err(_) => {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({"ok": false, "error": "deployment secret unavailable"})),
            );
        }
    };
    let mut probes = tokio::task::JoinSet::new();
    for (i, conn) in state.registry.connectors.iter().enumerate() {
        let Some(probe) = conn.catalog.health.as_ref() else {
            continue;
        };
        let state = state.clone();
        let secrets = secrets.clone();
        let path = probe.get.clone();
        probes.spawn(async move {
            let conn = &state.registry.connectors[i];
            let catalog = &conn.catalog;
            let url = upstream::fill_base(catalog, &conn.base_url, &secrets)
                .ok()
                .and_then(|base| {
                    reqwest::Url::parse(&format!("{}{path}", base.trim_end_matches('/'))).ok()
                });
            let status = match url {
                None => "not_configured".to_string(),
                Some(url) => {
                    let reply = upstream::send(
                        &state.runtime.http,
                        catalog,
                        catalog::Method::Get,
                        url,
                        None,
                        &secrets,
                        state.config.health_timeout,
                    )
                    .await;
                    match reply {
                        Ok(r) if (200..300).contains(&r.status) => "ok".to_string(),
                        Ok(r) => format!("http_{}", r.status),
                        Err(Ok(Failure::Timeout)) => "timeout".to_string(),
                        Err(Ok(Failure::Unreachable)) => "unreachable".to_string(),
                        Err(Err(_)) => "not_configured".to_string(),
                    }
                }
            };
            (catalog.connector.clone(), status)
        });
    }
    let mut connectors = BTreeMap::new();
    for conn in &state.registry.connectors {
        if conn.catalog.health.is_none() {
            connectors.insert(conn.catalog.connector.clone(), "no_probe".to_string());
        }
    }
    while let Some(Ok((name, status))) = probes.join_next().await {
        connectors.insert(name, status);
    }
    let ok = connectors.values().all(|s| s == "ok" || s == "no_probe");
    let code = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (code, Json(json!({ "ok": ok, "connectors": connectors })))
}
