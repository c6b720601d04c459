//! The HTTP edge, and the only place that knows axum: the router, request hygiene (request id,
//! no cookies), authentication (`auth`: API keys and OAuth tokens), the JSON-RPC body guard
//! (`jsonrpc`), `/health` (`health`), the OAuth resource metadata (`wellknown`), the pages where
//! a person connects their own upstream account (`connect`), the webhooks upstreams push
//! (`inbound`), the Host rules
//! (`hosts`), JSON error answers (`respond`), the session id that tells later requests what a
//! 2025-11-25 client declared (`declared`) and the state it receives, built once at start by
//! the composition root in `startup.rs` (`state`).
//!
//! A request reads downwards: [`app`] → `front` (request id, client IP; `limit::per_ip`, then
//! `origin::verify`, the front door's proof, when one is configured: every route, every
//! refusal counted before it is audited) → `pass`: `auth::authenticate` → `jsonrpc::guard` →
//! `limit::per_call` → the MCP service (`crate::mcp`) → `declared::with_session` on an
//! `initialize` that declared URL-mode elicitation.

pub(crate) mod auth;
pub(crate) mod client_ip;
mod connect;
mod connectors;
mod declared;
pub(crate) mod health;
pub(crate) mod hosts;
mod inbound;
mod issuer;
pub(crate) mod jsonrpc;
pub(crate) mod limit;
mod origin;
pub(crate) mod respond;
pub(crate) mod state;
mod tasks_v1;
mod traced;
pub(crate) mod wellknown;

pub use state::AppState;

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tracing::Instrument;

use crate::call::RequestMeta;
use crate::mcp;

/// Response header carrying the request id (API Gateway's on Lambda, generated locally).
pub(crate) const REQUEST_ID_HEADER: &str = "x-request-id";

/// The one router: `/mcp` and `/mcp/<profile>` (authenticated MCP), `/health` and, with OAuth
/// on, the resource metadata (no credentials).
pub fn app(state: AppState) -> Router {
    let service = Shared(Arc::new(mcp::service(state.mcp.clone(), transport(&state))));
    let mcp = Router::new()
        .route_service("/mcp", stages(&state, service.clone()))
        .route_service("/mcp/{profile}", stages(&state, service))
        // Other paths pass the same stages too (401 without credentials, else a JSON 404).
        .fallback_service(stages(&state, NotFound));
    // `/health`, the connect pages and the resource metadata need no credentials; they count
    // against the per-IP limit like `/mcp` (in `front`).
    let mut open = Router::new()
        .route("/health", get(health::health))
        // Authenticated like `/mcp`, by the handler itself (it answers HTML, not JSON-RPC).
        .route("/connectors", get(connectors::page))
        // Webhooks: the upstream proves itself (handshake token, body signature), not a caller.
        .route(
            "/inbound/{connector}",
            get(inbound::verify).post(inbound::accept),
        );
    if state.connect.is_some() {
        open = open
            .route("/connect/{connector}", get(connect::start))
            .route("/connect/{connector}/signed-in", get(connect::signed_in))
            .route("/connect/{connector}/callback", get(connect::callback))
            // "My connections": a person's own, seen and disconnected in the browser.
            .route("/connections", get(connect::connections))
            .route(
                "/connections/signed-in",
                get(connect::connections_signed_in),
            )
            .route(
                "/connections/disconnect",
                axum::routing::post(connect::connections_disconnect),
            );
    }
    if state.issuer.is_some() {
        use crate::issuer::metadata as at;
        use axum::routing::post;
        // The authorization server's front door, beside `/mcp` (http/issuer.rs).
        open = open
            .route(at::WELL_KNOWN, get(issuer::metadata))
            .route(at::JWKS, get(issuer::jwks))
            .route(at::REGISTER, post(issuer::register))
            .route(at::AUTHORIZE, get(issuer::authorize))
            .route(at::CALLBACK, get(issuer::callback))
            .route(at::CONSENT, post(issuer::consent))
            .route(at::TOKEN, post(issuer::token))
            .route(at::REVOKE, post(issuer::revoke));
    }
    if state.oauth.is_none() {
        // Without OAuth there is nothing to discover: a client probing for OAuth metadata gets a
        // plain 404 (a 401 made the Inspector start an interactive OAuth login).
        open = open.route(
            "/.well-known/{*rest}",
            get(|| async { StatusCode::NOT_FOUND }),
        );
    } else {
        let well_known = crate::oauth::discovery::WELL_KNOWN;
        open = open
            .route(
                well_known,
                get(wellknown::root).options(wellknown::preflight),
            )
            .route(
                &format!("{well_known}/{{*rest}}"),
                get(wellknown::suffixed).options(wellknown::preflight),
            );
    }
    open.with_state(state.clone())
        .merge(mcp)
        .layer(middleware::from_fn_with_state(state, front))
}

/// The edge's stages around `inner`, as one service: [`pass`] runs them in order. One service
/// rather than a middleware per stage: axum boxes each `from_fn` middleware's future and clones
/// the rest of the stack into it on every request (about 25 allocations a request for four).
fn stages<S>(state: &AppState, inner: S) -> Stages<S> {
    Stages {
        state: state.clone(),
        inner,
    }
}

#[derive(Clone)]
struct Stages<S> {
    state: AppState,
    inner: S,
}

impl<S> tower::Service<Request> for Stages<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> ResponseFuture {
        let state = self.state.clone();
        let inner = self.inner.clone();
        Box::pin(async move { Ok(pass(&state, request, inner).await) })
    }
}

/// One `/mcp` request through the stages: authentication, the JSON-RPC body guard and the
/// per-call limits, then `inner` (the MCP service); each stage either hands the request on or
/// answers in its place. From the guard on, every error answer is JSON-RPC.
async fn pass<S>(state: &AppState, request: Request, inner: S) -> Response
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
{
    match auth::authenticate(state, request).await {
        Ok(request) => jsonrpc::as_json(called(state, request, inner).await).await,
        Err(refused) => refused,
    }
}

/// An authenticated request: the body guard, the per-call limits, the MCP service.
async fn called<S>(state: &AppState, request: Request, mut inner: S) -> Response
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
{
    let checked = async {
        let request = jsonrpc::guard(state.config.max_body_bytes, request).await?;
        let limits = tracing::info_span!(target: audit::SPAN_TARGET, "limits");
        limit::per_call(state, request).instrument(limits).await
    };
    match checked.await {
        Ok((request, headroom)) => {
            let declares_url = request
                .extensions()
                .get::<declared::DeclaresUrl>()
                .is_some();
            let declares_tasks = request.extensions().get::<tasks_v1::Declares>().copied();
            let Ok(mut response) = inner.call(request).await;
            headroom.mark(&mut response);
            if declares_url {
                declared::with_session(&mut response);
            }
            let jobs = state.mcp.job_tools();
            match declares_tasks {
                Some(what) if !jobs.is_empty() => tasks_v1::declared(response, what, jobs).await,
                _ => response,
            }
        }
        Err(refused) => refused,
    }
}

/// A service behind an `Arc`, so the clone axum makes for each request costs no allocation
/// (rmcp's service carries its whole configuration, host and origin lists included).
struct Shared<T>(Arc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

type ResponseFuture = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

impl tower::Service<Request> for Shared<mcp::Service> {
    type Response = Response;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> ResponseFuture {
        let service = self.0.clone();
        Box::pin(async move { Ok(service.handle(request).await.map(Body::new)) })
    }
}

/// axum's default fallback: an empty 404 (the JSON-RPC guard words it).
#[derive(Clone)]
struct NotFound;

impl tower::Service<Request> for NotFound {
    type Response = Response;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Request) -> Self::Future {
        std::future::ready(Ok(StatusCode::NOT_FOUND.into_response()))
    }
}

/// The hosts and origins clients may use, and the body limit.
fn transport(state: &AppState) -> mcp::Transport {
    mcp::Transport {
        allowed_hosts: hosts::allowed_hosts(&state.config),
        allowed_origins: hosts::allowed_origins(&state.config),
        max_body_bytes: state.config.max_body_bytes,
    }
}

/// The front of every route: request facts in (id, client IP, the invocation's time left),
/// the per-IP limit counted, then the front door's proof checked (`origin::verify`), so a
/// flood of refused requests is limited like any other; no cookies out but a connect page's
/// browser binding (`connect::BindBrowser`), the id on the answer.
async fn front(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let span = traced::span(&request);
    let mut meta = request_meta(&request, &state.config.trusted_proxies);
    meta.span = crate::telemetry::RequestSpan(span.clone());
    let id = HeaderValue::from_str(&meta.id).ok();
    request.extensions_mut().insert(meta);
    let admitted = async {
        let request = limit::per_ip(&state, request)?;
        origin::verify(&state, request.headers()).await?;
        Ok::<_, Response>(request)
    };
    let mut response = async {
        match admitted.await {
            Ok(request) => next.run(request).await,
            Err(refused) => refused,
        }
    }
    .instrument(span.clone())
    .await;
    span.record("http.response.status_code", response.status().as_u16());
    drop(span);
    if state.config.lambda {
        // Before the instance is frozen: the exporter's thread would send them only later.
        crate::telemetry::flush().await;
    }
    response.headers_mut().remove(header::SET_COOKIE);
    if let Some(connect::BindBrowser(cookie)) = response.extensions_mut().remove() {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    if let Some(id) = id {
        response.headers_mut().insert(REQUEST_ID_HEADER, id);
    }
    response
}

/// API Gateway's request id and the invocation's deadline on Lambda; a new id locally.
fn request_meta(request: &Request, trusted_proxies: &[crate::limits::cidr::Cidr]) -> RequestMeta {
    use lambda_http::RequestExt;
    use lambda_http::request::RequestContext;
    let gateway_id = match request.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(c)) => c.request_id.clone(),
        _ => None,
    };
    let time_left = request.lambda_context_ref().and_then(|c| {
        let now = std::time::UNIX_EPOCH.elapsed().ok()?.as_millis() as u64;
        Some(Duration::from_millis(c.deadline.checked_sub(now)?))
    });
    RequestMeta {
        id: gateway_id
            .map(|id| audit::bounded(&id, 64))
            .unwrap_or_else(new_request_id),
        time_left,
        client_ip: client_ip::client_ip(request, trusted_proxies),
        span: Default::default(),
    }
}

/// Without entropy an id is still useful for correlation: the clock's.
fn new_request_id() -> String {
    crate::random::hex_or_clock(8)
}
