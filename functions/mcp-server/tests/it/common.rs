//! What the `app()` tests share: an app over given catalogs, secret values and environment,
//! with its audit lines in memory, and one request sent through it with `oneshot`.
// Each test file uses its own part of this.
#![allow(dead_code)]

use std::collections::HashMap;
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use audit::{AuditLog, MemorySink, Redactor};
use axum::Router;
use axum::body::Body;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use mcp_server::{ApiKey, SecretLoader, SecretStore, SecretValues};
use mcp_server::{AppState, app};
use mcp_server::{Config, EnvSnapshot};
use serde_json::Value;
use tower::ServiceExt;

pub(crate) struct TestApp {
    pub router: Router,
    pub audit: MemorySink,
    /// The MCP state behind `router`, to ask what it has built so far.
    pub mcp: Arc<mcp_server::Mcp>,
}

/// The test catalogs (`tests/catalogs`: the demo connector).
pub(crate) fn demo_catalogs() -> Vec<catalog::Catalog> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/catalogs");
    catalog::load_dir(&dir).unwrap()
}

/// Secret values with these `(id, key)` API keys and the demo connector at `host`.
pub(crate) fn demo_secrets(
    keys: &[(&str, &str)],
    host: &str,
    pepper: Option<&[u8]>,
) -> SecretValues {
    SecretValues {
        origin_verify: Vec::new(),
        idp_client_secret: None,
        api_keys: keys.iter().map(|(id, key)| ApiKey::new(id, key)).collect(),
        pepper: pepper.map(<[u8]>::to_vec),
        confirmation_keys: vec![b"tests-confirmation-key-0123456789abcdef".to_vec()],
        connectors: HashMap::from([(
            "demo".to_string(),
            HashMap::from([
                ("host".to_string(), host.to_string()),
                ("token".to_string(), "t".to_string()),
            ]),
        )]),
    }
}

/// The API key [`tool_result`] sends, accepted by [`connector_secrets`].
pub(crate) const TOOL_KEY: &str = "test-key-0123456789abcdef";

/// Secret values with the API key [`TOOL_KEY`] and one connector's secret fields.
pub(crate) fn connector_secrets(connector: &str, fields: &[(&str, &str)]) -> SecretValues {
    SecretValues {
        origin_verify: Vec::new(),
        idp_client_secret: None,
        api_keys: vec![ApiKey::new("tester", TOOL_KEY)],
        pepper: None,
        confirmation_keys: vec![b"tests-confirmation-key-0123456789abcdef".to_vec()],
        connectors: HashMap::from([(
            connector.to_string(),
            fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )]),
    }
}

/// The JSON-RPC body of a `tools/call` of `name` with `args`.
pub(crate) fn tools_call(name: &str, args: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": {"name": name, "arguments": args}})
}

/// `tools/call` of `name` with `args` (protocol 2025-11-25, key [`TOOL_KEY`]): the whole
/// `result`, after checking the reply is a 200.
pub(crate) async fn call_result(app: &TestApp, name: &str, args: Value) -> Value {
    let request = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("authorization", format!("Bearer {TOOL_KEY}"))
        .body(Body::from(tools_call(name, args).to_string()))
        .unwrap();
    let (status, _, body) = send(app, request).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["result"].clone()
}

/// `tools/call` of `name` with `args` (protocol 2025-11-25, key [`TOOL_KEY`]): the result's
/// `structuredContent`.
pub(crate) async fn tool_result(app: &TestApp, name: &str, args: Value) -> Value {
    call_result(app, name, args).await["structuredContent"].clone()
}

/// The app over `catalogs` and `values`, configured by `env`.
pub(crate) fn app_with(
    env: &[(&str, &str)],
    catalogs: Vec<catalog::Catalog>,
    values: SecretValues,
) -> TestApp {
    let store = SecretStore::new(
        SecretLoader::Static(Arc::new(values)),
        Duration::from_secs(300),
        Redactor::new(),
    );
    app_with_store(env, catalogs, store)
}

/// The app over `catalogs` with its secret from `store` (a Secrets Manager one, say).
pub(crate) fn app_with_store(
    env: &[(&str, &str)],
    catalogs: Vec<catalog::Catalog>,
    store: SecretStore,
) -> TestApp {
    let config = Config::from(EnvSnapshot::from_pairs(env.iter().copied())).unwrap();
    let (state, sink) = app_state(config, catalogs, store);
    TestApp {
        mcp: state.mcp.clone(),
        router: app(state),
        audit: sink,
    }
}

/// The app's state from `config`, `catalogs` and `store`, with the default stores and its
/// audit lines in memory.
pub(crate) fn app_state(
    config: Config,
    catalogs: Vec<catalog::Catalog>,
    store: SecretStore,
) -> (AppState, MemorySink) {
    let (audit, sink) = AuditLog::memory();
    let state = AppState::new(
        config,
        catalogs,
        Arc::new(store),
        audit,
        Redactor::new(),
        mcp_server::http_client(),
        Default::default(),
    );
    (state, sink)
}

/// The tool names of a `tools/list` reply, in its order.
pub(crate) fn listed_names(body: &Value) -> Vec<String> {
    body["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// Serves `router` on a loopback port from the OS: a fake upstream for a test's connector.
pub(crate) async fn serve_fake_upstream(router: Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    addr
}

/// Sends one request; the body as JSON (a JSON string of the text when it is none).
pub(crate) async fn send(app: &TestApp, request: Request<Body>) -> (StatusCode, HeaderMap, Value) {
    let response = app.router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, headers, body)
}

/// Runs the built `mcp-server` binary with `args`, outside Lambda and without a catalog
/// directory from the caller's shell: its exit code, stdout and stderr.
pub(crate) fn run_mcp_server(args: &[&str]) -> (Option<i32>, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_mcp-server"))
        .args(args)
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .env_remove("MCP_CATALOG_DIR")
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (status.code(), text(stdout), text(stderr))
}
