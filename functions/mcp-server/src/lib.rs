//! hosted-mcp's MCP server: MCP over Streamable HTTP (stateless, JSON replies) for protocol
//! generations 2025-11-25 and 2026-07-28, serving the tools declared in catalog files, on AWS
//! Lambda (API Gateway HTTP API) and locally.
//!
//! Run it locally with the shipped catalogs and no AWS account: `cargo run -p mcp-server -- serve`.
//! `app(state)` is the one router both modes use; tests drive it with `oneshot`.

pub mod aggregate;
pub mod args;
pub mod auth;
pub mod cli;
pub mod config;
pub mod handler;
pub mod health;
pub mod lint;
pub mod profiles;
pub mod runtime;
pub mod search;
pub mod secrets;
pub mod shape;
pub mod smoke;
pub mod tools;
pub mod upstream;

use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::config::Config;
use crate::runtime::{Connector, Registry, Runtime};
use crate::secrets::SecretStore;

/// The catalogs shipped in the binary: the default when no catalog directory is configured.
pub const EMBEDDED_CATALOGS: &[(&str, &str)] = &[(
    "papierkram.yaml",
    include_str!("../catalogs/papierkram.yaml"),
)];

/// Response header carrying the request id (API Gateway's on Lambda, generated locally).
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Everything a request needs, built once at start.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub registry: Arc<Registry>,
    pub runtime: Arc<Runtime>,
    pub secrets: Arc<SecretStore>,
    pub audit: audit::AuditLog,
    /// Listed (core) tools with their connector, in catalog order.
    pub tool_defs: Arc<Vec<(String, rmcp::model::Tool)>>,
    /// `search_tools` and `call_tool`.
    pub meta_defs: Arc<[rmcp::model::Tool; 2]>,
    pub profiles: Arc<profiles::Profiles>,
    /// BM25 index over every exposed tool, built once.
    pub search: Arc<search::Index>,
    /// Which indexed tools each profile sees (`None`: the whole deployment), worked out once.
    pub visibility: Arc<std::collections::HashMap<Option<String>, search::Visibility>>,
    /// Local loopback testing only (conformance suite); `serve` refuses it on other addresses
    /// and Lambda mode never sets it.
    pub insecure_no_auth: bool,
}

impl AppState {
    pub fn new(
        config: Config,
        catalogs: Vec<catalog::Catalog>,
        secrets: Arc<SecretStore>,
        audit: audit::AuditLog,
        redactor: audit::Redactor,
        http: reqwest::Client,
    ) -> Self {
        let connectors = catalogs
            .into_iter()
            .map(|catalog| Connector {
                base_url: config
                    .env
                    .connector(&catalog.connector, config::BASE_URL_SUFFIX)
                    .map_or_else(|| catalog.base_url.clone(), str::to_string),
                expose_raw: config.expose_raw(&catalog.connector),
                catalog,
            })
            .collect();
        let registry = Registry::new(connectors);
        let output = Arc::new(tools::output_schema());
        // Only core tools are listed; the others stay callable by name (and through search).
        let tool_defs = registry
            .exposed()
            .filter(|(_, t)| t.core)
            .map(|(c, t)| (c.catalog.connector.clone(), tools::definition(t, &output)))
            .collect();
        let search = search::Index::build(
            registry
                .exposed()
                .map(|(c, t)| search::Doc::from_tool(&c.catalog.connector, t))
                .collect(),
        );
        let meta_defs = profiles::meta_tools(&output);
        let profiles = Arc::new(config.profiles.clone());
        let connector_of: std::collections::HashMap<&str, &str> = registry
            .exposed()
            .map(|(c, t)| (t.name.as_str(), c.catalog.connector.as_str()))
            .collect();
        let visibility = std::iter::once(None)
            .chain(profiles.names().map(|n| Some(n.to_string())))
            .map(|profile| {
                let check = |tool: &str| {
                    connector_of
                        .get(tool)
                        .is_some_and(|c| profiles.allows(profile.as_deref(), c, tool))
                };
                let v = search.visibility(&check);
                (profile, v)
            })
            .collect();
        AppState {
            runtime: Arc::new(Runtime {
                http,
                secrets: secrets.clone(),
                redactor,
                max_result_bytes: config.max_result_bytes,
            }),
            config: Arc::new(config),
            registry: Arc::new(registry),
            secrets,
            audit,
            tool_defs: Arc::new(tool_defs),
            meta_defs: Arc::new(meta_defs),
            profiles,
            search: Arc::new(search),
            visibility: Arc::new(visibility),
            insecure_no_auth: false,
        }
    }
}

/// The HTTP client for upstream calls: rustls, no cookies, no redirects to other hosts.
///
/// It trusts Mozilla's root certificates compiled into the binary (`webpki-root-certs`) rather
/// than the system store: the platform verifier read and parsed `/etc/ssl/certs` while the
/// client was built, 12–15 ms of every cold start against 0.2 ms for these (measured on the
/// CI machine). Updating the roots means updating the crate.
pub fn http_client() -> reqwest::Client {
    let roots = webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok());
    reqwest::Client::builder()
        .tls_certs_only(roots)
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(std::time::Duration::from_secs(5))
        .user_agent(concat!("hosted-mcp/", env!("CARGO_PKG_VERSION")))
        .build()
        .expect("static client configuration")
}

/// The transport settings: stateless, JSON replies, real host names, origins checked.
fn transport_config(config: &Config) -> StreamableHttpServerConfig {
    let mut hosts: Vec<String> = config.allowed_hosts.clone();
    let mut origins: Vec<String> = config.allowed_origins.clone();
    if !config.lambda {
        // Local runs also serve browser tools on this machine (the Inspector UI); a rebinding
        // attack still fails the Host check.
        hosts.extend(["localhost", "127.0.0.1", "::1"].map(String::from));
        origins.extend(["http://localhost:*", "http://127.0.0.1:*"].map(String::from));
    }
    StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        // An empty origin list rejects every browser origin instead of allowing all.
        .enforce_origin_validation()
        .with_max_request_body_bytes(config.max_body_bytes)
}

/// The one router: `/mcp` (authenticated MCP) and `/health`.
pub fn app(state: AppState) -> Router {
    let handler_state = state.clone();
    let mcp = StreamableHttpService::new(
        move || {
            Ok(handler::McpHandler {
                state: handler_state.clone(),
            })
        },
        Arc::new(NeverSessionManager::default()),
        transport_config(&state.config),
    );
    let authed = Router::new()
        .route_service("/mcp", mcp.clone())
        .route_service("/mcp/{profile}", mcp)
        .route("/health", get(health::health))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            auth::require_key,
        ))
        .with_state(state);
    authed.layer(middleware::from_fn(hygiene))
}

/// Request id in, no cookies out.
async fn hygiene(mut request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get("x-amzn-requestid")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .unwrap_or_else(new_request_id);
    if let Ok(v) = HeaderValue::from_str(&id) {
        request.headers_mut().insert(REQUEST_ID_HEADER, v.clone());
        let mut response = next.run(request).await;
        response.headers_mut().remove(header::SET_COOKIE);
        response.headers_mut().insert(REQUEST_ID_HEADER, v);
        return response;
    }
    let mut response = next.run(request).await;
    response.headers_mut().remove(header::SET_COOKIE);
    response
}

fn new_request_id() -> String {
    let mut bytes = [0u8; 8];
    // Without entropy an id is still useful for correlation; fall back to the clock.
    if getrandom::fill(&mut bytes).is_err() {
        bytes = (std::time::UNIX_EPOCH
            .elapsed()
            .unwrap_or_default()
            .as_nanos() as u64)
            .to_be_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 503 with a clear message: the server is up but cannot serve (e.g. the secret is missing).
pub fn unavailable(message: &str) -> Response {
    let body = serde_json::json!({ "error": "unavailable", "message": message });
    (StatusCode::SERVICE_UNAVAILABLE, axum::Json(body)).into_response()
}
