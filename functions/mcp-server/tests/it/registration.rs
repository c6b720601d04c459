//! Dynamic registration under a flood (issue 46): 1,000 registrations from one address through
//! `app()` with `oneshot`, no sockets. The first 20 of the hour get a client; every one after
//! is refused with 429 `too_many_registrations`, a `Retry-After` to the next hour and no client,
//! before its body is read as metadata; another address still registers.

use std::net::SocketAddr;

use crate::common::{app_with, demo_catalogs, demo_secrets, send};
use axum::body::Body;
use axum::extract::ConnectInfo;
use http::{Request, StatusCode};
use serde_json::json;

const ORIGIN: &str = "https://mcp.example.com";

fn register(peer: &str) -> Request<Body> {
    let body = json!({"redirect_uris": ["http://127.0.0.1:1/cb"], "client_name": "flood"});
    let mut r = Request::post("/oauth/register")
        .header("host", "mcp.example.com")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let addr = SocketAddr::new(peer.parse().unwrap(), 40000);
    r.extensions_mut().insert(ConnectInfo(addr));
    r
}

#[tokio::test]
async fn a_thousand_registrations_from_one_address_get_twenty_clients() {
    let resource = format!("{ORIGIN}/mcp");
    let env = [
        ("MCP_LIMITS", "off"),
        ("MCP_ALLOWED_HOSTS", "mcp.example.com"),
        ("MCP_OAUTH_ISSUER", ORIGIN),
        ("MCP_RESOURCE_URL", resource.as_str()),
        ("MCP_AS_IDP_ISSUER", "https://login.example.com"),
        ("MCP_AS_IDP_CLIENT_ID", "ours"),
    ];
    let app = app_with(
        &env,
        demo_catalogs(),
        demo_secrets(&[], "127.0.0.1:1", None),
    );
    let (mut created, mut refused) = (Vec::new(), 0);
    for _ in 0..1000 {
        let (status, headers, body) = send(&app, register("198.51.100.7")).await;
        match status {
            StatusCode::CREATED => created.push(body["client_id"].as_str().unwrap().to_string()),
            StatusCode::TOO_MANY_REQUESTS => {
                assert_eq!(body["error"], "too_many_registrations", "{body}");
                assert!(body.get("client_id").is_none(), "{body}");
                let wait: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
                assert!((1..=3600).contains(&wait), "{wait}");
                refused += 1;
            }
            other => panic!("{other}: {body}"),
        }
    }
    assert_eq!((created.len(), refused), (20, 980));
    created.sort();
    created.dedup();
    assert_eq!(created.len(), 20, "distinct client ids");
    let (status, _, body) = send(&app, register("203.0.113.9")).await;
    assert_eq!(status, StatusCode::CREATED, "another address: {body}");
}
