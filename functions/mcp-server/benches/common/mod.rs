//! What the app benchmarks share: the app built from an environment (the shipped catalogs,
//! a static secret, audit lines into a sink), one `papierkram_info_get` call through it with `oneshot`,
//! and latency statistics.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use audit::{AuditLog, Redactor};
use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use http::Request;
use http_body_util::BodyExt;
use mcp_server::{ApiKey, SecretLoader, SecretStore, SecretValues};
use mcp_server::{AppState, app};
use mcp_server::{Config, EnvSnapshot};
use serde_json::json;
use tower::ServiceExt;

pub(crate) const KEY: &str = "bench-key-0123456789abcdef";
pub(crate) const TOKEN: &str = "bench-token";

pub(crate) fn router(env: &[(&str, &str)]) -> Router {
    let config = Config::from(EnvSnapshot::from_pairs(env.iter().copied())).unwrap();
    let values = SecretValues {
        origin_verify: Vec::new(),
        idp_client_secret: None,
        api_keys: vec![ApiKey::new("bench", KEY)],
        pepper: Some(b"bench-pepper-0123456789abcdef0123".to_vec()),
        confirmation_keys: Vec::new(),
        connectors: HashMap::from([(
            "papierkram".to_string(),
            HashMap::from([
                ("subdomain".to_string(), "bench".to_string()),
                ("token".to_string(), TOKEN.to_string()),
            ]),
        )]),
    };
    let store = SecretStore::new(
        SecretLoader::Static(Arc::new(values)),
        Duration::from_secs(300),
        Redactor::new(),
    );
    // The audit lines go nowhere: their cost is the same either way.
    let audit = AuditLog::from_writer(std::io::sink(), None);
    // The shipped catalogs, with a budget that this many calls cannot spend.
    let mut catalogs = connector::load(None).unwrap();
    for c in &mut catalogs {
        if let Some(q) = c.quota.as_mut() {
            q.caller_daily_budget = Some(100_000_000);
        }
    }
    let state = AppState::new(
        config,
        catalogs,
        Arc::new(store),
        audit,
        Redactor::new(),
        mcp_server::http_client(),
        Default::default(),
    );
    app(state)
}

/// One `papierkram_info_get` call with the API key.
pub(crate) async fn call(router: &Router) -> Duration {
    call_as(router, KEY).await
}

/// One `papierkram_info_get` call with `bearer` (an API key or an access token).
pub(crate) async fn call_as(router: &Router, bearer: &str) -> Duration {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "papierkram_info_get", "arguments": {}}});
    let mut request = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("authorization", format!("Bearer {bearer}"))
        .body(Body::from(body.to_string()))
        .unwrap();
    let peer: SocketAddr = "192.0.2.10:40000".parse().unwrap();
    request.extensions_mut().insert(ConnectInfo(peer));
    let started = Instant::now();
    let response = router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let elapsed = started.elapsed();
    assert!(
        bytes.windows(11).any(|w| w == b"\"status\":\"o"),
        "not an ok result: {}",
        String::from_utf8_lossy(&bytes)
    );
    elapsed
}

pub(crate) fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

pub(crate) struct Stats {
    pub p50: f64,
    pub p99: f64,
    pub mean: f64,
}

pub(crate) fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| micros(samples[((samples.len() - 1) as f64 * q) as usize]);
    Stats {
        p50: at(0.5),
        p99: at(0.99),
        mean: samples.iter().map(|d| micros(*d)).sum::<f64>() / samples.len() as f64,
    }
}

/// `ROUNDS` from the environment, else `default`.
pub(crate) fn rounds(default: usize) -> usize {
    std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(default)
}

/// The Papierkram sandbox on loopback, its base URL.
pub(crate) async fn sandbox() -> String {
    let sandbox = papierkram_sandbox::SandboxState::new(TOKEN).with_monthly_limit(u64::MAX / 2);
    let (addr, _handle) = papierkram_sandbox::spawn(sandbox).await.unwrap();
    format!("http://{addr}/api/v1")
}

/// The p50/p99/mean line of one side.
pub(crate) fn line(name: &str, s: &Stats) -> String {
    format!(
        "  {name:<24} p50 {:8.1}  p99 {:8.1}  mean {:8.1}",
        s.p50, s.p99, s.mean
    )
}
