//! Edge protection through `app()` with `oneshot`: each limit at its boundary (the request at
//! the limit passes, the next is refused with `Retry-After`, `RateLimit` headers and a JSON body),
//! the client IP from the socket or API Gateway's request context and never from a forged
//! `X-Forwarded-For`, and a `rate_limited` audit line without the IP.

use std::net::SocketAddr;
use std::time::Duration;

use crate::common::{TestApp, app_with, demo_catalogs, demo_secrets, send};
use axum::body::Body;
use axum::extract::ConnectInfo;
use http::{Request, StatusCode};
use mcp_server::now_s;
use serde_json::json;

const KEY: &str = "test-key-0123456789abcdef";
const OTHER: &str = "other-key-0123456789abcdef";

fn test_app(env: &[(&str, &str)]) -> TestApp {
    let secrets = demo_secrets(&[("tester", KEY), ("other", OTHER)], "127.0.0.1:1", None);
    app_with(env, demo_catalogs(), secrets)
}

fn request(method: &str, key: &str, peer: &str, forwarded: Option<&str>) -> Request<Body> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method,
                      "params": {"name": "demo_info_get", "arguments": {}}});
    let mut r = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("authorization", format!("Bearer {key}"));
    if let Some(f) = forwarded {
        r = r.header("x-forwarded-for", f);
    }
    let mut r = r.body(Body::from(body.to_string())).unwrap();
    let addr = SocketAddr::new(peer.parse().unwrap(), 40000);
    r.extensions_mut().insert(ConnectInfo(addr));
    r
}

/// The `rate_limited` audit events so far.
fn rate_limited(app: &TestApp) -> Vec<audit::AuditEvent> {
    app.audit
        .events()
        .into_iter()
        .filter(|e| e.event == audit::EventKind::RateLimited)
        .collect()
}

/// Runs a boundary scenario inside one clock minute: near the end of a minute it waits for the
/// next, so the counters cannot start over halfway (a scenario takes milliseconds).
async fn within_one_minute<F, Fut>(scenario: F)
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let into_minute = now_s() % 60;
    if into_minute >= 55 {
        tokio::time::sleep(Duration::from_secs(61 - into_minute)).await;
    }
    scenario().await;
}

#[tokio::test]
async fn the_ip_limit_refuses_the_request_after_the_limit_with_retry_after() {
    within_one_minute(|| async {
        let app = test_app(&[("MCP_LIMIT_PER_IP_PER_MINUTE", "3")]);
        for _ in 0..3 {
            let (status, _, body) =
                send(&app, request("tools/list", KEY, "198.51.100.7", None)).await;
            assert_eq!(status, StatusCode::OK, "{body}");
        }
        // A forged X-Forwarded-For does not make it another client.
        let forged = request("tools/list", KEY, "198.51.100.7", Some("203.0.113.99"));
        let (status, headers, body) = send(&app, forged).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
        let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=60).contains(&retry), "{retry}");
        assert_eq!(body["scope"], json!("ip"));
        assert_eq!(body["limit"], json!(3));
        assert_eq!(body["retry_after_s"], json!(retry));
        assert_eq!(headers["ratelimit-policy"], "\"ip\";q=3;w=60");
        assert_eq!(headers["ratelimit"], format!("\"ip\";r=0;t={retry}"));
        // Counted before authentication: a wrong key from that address is refused the same way.
        let (status, _, _) = send(
            &app,
            request("tools/list", "wrong-key-0123456789", "198.51.100.7", None),
        )
        .await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        let (status, _, _) = send(&app, request("tools/list", KEY, "198.51.100.8", None)).await;
        assert_eq!(status, StatusCode::OK, "another address has its own minute");
        // Two refusals in the minute, one audit line: a flood costs one line per address.
        let refused = rate_limited(&app);
        assert_eq!(refused.len(), 1);
        assert!(
            refused
                .iter()
                .all(|e| e.reason.as_deref() == Some("limit_ip"))
        );
        assert!(
            refused.iter().all(|e| e.key_id.is_none()),
            "counted before authentication"
        );
        let lines = app.audit.lines().join("\n");
        assert!(
            !lines.contains("198.51.100") && !lines.contains("203.0.113"),
            "no IP in audit lines"
        );
    })
    .await;
}

#[tokio::test]
async fn refusals_at_the_front_door_are_counted_before_they_are_audited() {
    within_one_minute(|| async {
        let mut secrets = demo_secrets(&[("tester", KEY)], "127.0.0.1:1", None);
        secrets.origin_verify = vec!["front-door-proof-0123456789".into()];
        let app = app_with(
            &[
                ("MCP_LIMIT_PER_IP_PER_MINUTE", "3"),
                ("MCP_ORIGIN_VERIFY_HEADER", "x-origin-verify"),
            ],
            demo_catalogs(),
            secrets,
        );
        let mut statuses = Vec::new();
        for _ in 0..50 {
            // Around the front door: no proof.
            let (status, _, _) = send(&app, request("tools/list", KEY, "198.51.100.9", None)).await;
            statuses.push(status.as_u16());
        }
        assert_eq!(statuses[..3], [403, 403, 403], "{statuses:?}");
        assert!(statuses[3..].iter().all(|s| *s == 429), "{statuses:?}");
        let lines = app.audit.events();
        assert_eq!(
            lines.len(),
            4,
            "three refusals at the door and the first over the limit: {lines:?}"
        );
        assert_eq!(rate_limited(&app).len(), 1);
    })
    .await;
}

#[tokio::test]
async fn ipv6_clients_are_counted_by_their_64_prefix() {
    within_one_minute(|| async {
        let app = test_app(&[("MCP_LIMIT_PER_IP_PER_MINUTE", "3")]);
        let statuses: Vec<StatusCode> =
            statuses_from(&app, (1..=20).map(|n| format!("2001:db8:7:1::{n:x}"))).await;
        assert_eq!(
            statuses.iter().filter(|s| **s == StatusCode::OK).count(),
            3,
            "20 addresses of one /64 are one client: {statuses:?}"
        );
        let (status, _, _) = send(&app, request("tools/list", KEY, "2001:db8:7:2::1", None)).await;
        assert_eq!(status, StatusCode::OK, "the next /64 has its own minute");
    })
    .await;
}

async fn statuses_from(app: &TestApp, addresses: impl Iterator<Item = String>) -> Vec<StatusCode> {
    let mut statuses = Vec::new();
    for address in addresses {
        let (status, _, _) = send(app, request("tools/list", KEY, &address, None)).await;
        statuses.push(status);
    }
    statuses
}

#[tokio::test]
async fn the_caller_limit_counts_tool_calls_only_and_names_itself() {
    within_one_minute(|| async {
        let app = test_app(&[("MCP_LIMIT_PER_CALLER_PER_MINUTE", "2")]);
        for left in [1, 0] {
            let (status, headers, body) =
                send(&app, request("tools/call", KEY, "198.51.100.7", None)).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            let ratelimit = headers["ratelimit"].to_str().unwrap();
            assert!(
                ratelimit.starts_with(&format!("\"caller\";r={left};t=")),
                "{ratelimit}"
            );
        }
        let (status, _, _) = send(&app, request("tools/list", KEY, "198.51.100.7", None)).await;
        assert_eq!(status, StatusCode::OK, "tools/list is no tool call");
        let (status, headers, body) =
            send(&app, request("tools/call", KEY, "198.51.100.7", None)).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
        assert_eq!(body["scope"], json!("caller"));
        assert!(
            body["message"].as_str().unwrap().contains("2 a minute"),
            "{body}"
        );
        assert!(headers.contains_key("retry-after"));
        let (status, _, _) = send(&app, request("tools/call", OTHER, "198.51.100.7", None)).await;
        assert_eq!(status, StatusCode::OK, "another caller has its own minute");
        let refused = rate_limited(&app);
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].reason.as_deref(), Some("limit_caller"));
        assert_eq!(refused[0].key_id.as_deref(), Some("tester"));
        assert_eq!(refused[0].http_status, Some(429));
    })
    .await;
}

#[tokio::test]
async fn the_daily_cap_holds_for_the_whole_deployment() {
    let app = test_app(&[
        ("MCP_LIMIT_DAILY_CALLS", "3"),
        ("MCP_LIMIT_PER_CALLER_PER_MINUTE", "0"),
    ]);
    for key in [KEY, OTHER, KEY] {
        let (status, _, body) = send(&app, request("tools/call", key, "198.51.100.7", None)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let (status, headers, body) =
        send(&app, request("tools/call", OTHER, "198.51.100.9", None)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(body["scope"], json!("daily"));
    assert_eq!(body["window"], json!("utc_day"));
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(
        retry.abs_diff(86_400 - now_s() % 86_400) <= 1,
        "until UTC midnight: {retry}"
    );
}

#[tokio::test]
async fn limits_off_counts_nothing() {
    let app = test_app(&[("MCP_LIMITS", "off"), ("MCP_LIMIT_PER_IP_PER_MINUTE", "1")]);
    for _ in 0..5 {
        let (status, headers, _) =
            send(&app, request("tools/call", KEY, "198.51.100.7", None)).await;
        assert_eq!(status, StatusCode::OK);
        assert!(!headers.contains_key("ratelimit"));
    }
}
