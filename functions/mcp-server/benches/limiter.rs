//! What the limiter costs a tool call, with the in-memory store (the local default and each
//! instance's fallback). The same `info_get` call goes through the whole app (`app()` with
//! `oneshot`, the Papierkram sandbox on loopback as the upstream) twice per round: once with
//! every limit and budget on (sized so none refuses) and once with `MCP_LIMITS=off`, the peer
//! measured in the same run. It reports both latency distributions, the difference and the
//! ratio, and the limiter's own counting (`request_from` + `tool_call_by`) timed alone.
//!
//! Run: `cargo bench -p mcp-server --bench limiter` (`ROUNDS=…` to change the 2,000 rounds).

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use audit::{AuditLog, Redactor};
use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use http::Request;
use http_body_util::BodyExt;
use mcp_server::config::{Config, Env};
use mcp_server::limits::{Limits, Settings};
use mcp_server::secrets::{ApiKey, SecretLoader, SecretStore, SecretValues};
use mcp_server::{AppState, app};
use serde_json::json;
use tower::ServiceExt;

const KEY: &str = "bench-key-0123456789abcdef";
const TOKEN: &str = "bench-token";

fn router(env: &[(&str, &str)]) -> Router {
    let config = Config::from(Env::from_pairs(env.iter().copied())).unwrap();
    let values = SecretValues {
        api_keys: vec![ApiKey::new("bench", KEY)],
        pepper: None,
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
        None,
    );
    app(state)
}

async fn call(router: &Router) -> Duration {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "info_get", "arguments": {}}});
    let mut request = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("authorization", format!("Bearer {KEY}"))
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

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

struct Stats {
    p50: f64,
    p99: f64,
    mean: f64,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| micros(samples[((samples.len() - 1) as f64 * q) as usize]);
    Stats {
        p50: at(0.5),
        p99: at(0.99),
        mean: samples.iter().map(|d| micros(*d)).sum::<f64>() / samples.len() as f64,
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2000);
    let sandbox = papierkram_sandbox::SandboxState::new(TOKEN).with_monthly_limit(u64::MAX / 2);
    let (addr, _handle) = papierkram_sandbox::spawn(sandbox).await.unwrap();
    let base = format!("http://{addr}/api/v1");
    let common = [("PAPIERKRAM_BASE_URL", base.as_str())];
    let limited = router(
        &[
            &common[..],
            &[
                ("MCP_LIMITS", "on"),
                ("MCP_LIMIT_PER_IP_PER_MINUTE", "100000000"),
                ("MCP_LIMIT_PER_CALLER_PER_MINUTE", "100000000"),
                ("MCP_LIMIT_DAILY_CALLS", "100000000"),
            ],
        ]
        .concat(),
    );
    let open = router(&[&common[..], &[("MCP_LIMITS", "off")]].concat());

    // Warm both (connections, caches), then alternate so drift hits both alike.
    for _ in 0..50 {
        call(&limited).await;
        call(&open).await;
    }
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        with.push(call(&limited).await);
        without.push(call(&open).await);
    }
    let (on, off) = (stats(with), stats(without));
    println!("tool call through app(), {rounds} rounds, microseconds:");
    println!(
        "  limits on  (in memory): p50 {:8.1}  p99 {:8.1}  mean {:8.1}",
        on.p50, on.p99, on.mean
    );
    println!(
        "  limits off (the peer):  p50 {:8.1}  p99 {:8.1}  mean {:8.1}",
        off.p50, off.p99, off.mean
    );
    println!(
        "  overhead: p50 {:+.1} µs, mean {:+.1} µs; ratio on/off: p50 {:.3}, mean {:.3}",
        on.p50 - off.p50,
        on.mean - off.mean,
        on.p50 / off.p50,
        on.mean / off.mean
    );

    // The limiter alone: one request's IP count and one tool call's tally, many callers.
    let limits = Limits::new(
        Settings {
            per_ip_per_minute: 100_000_000,
            per_caller_per_minute: 100_000_000,
            daily_calls: 100_000_000,
            budgets: true,
        },
        BTreeMap::from([("papierkram".to_string(), 100_000_000)]),
        None,
    );
    let now = mcp_server::limits::window::now_s();
    let n = 200_000u32;
    let started = Instant::now();
    for i in 0..n {
        let caller = format!("key{}", i % 10);
        limits.request_from("192.0.2.10", now).unwrap();
        limits.tool_call_by(&caller, now).await.unwrap();
        limits.spent(&caller, "papierkram", 1, now);
    }
    let per = started.elapsed() / n;
    println!(
        "limiter alone (IP count + tool-call tally + booking), {n} calls: {:.2} µs per call",
        micros(per)
    );
}
