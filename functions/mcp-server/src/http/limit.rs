//! The HTTP-level limits as two stages: requests per client IP before authentication, and
//! tool calls per caller and per deployment day after it. Over a limit is HTTP 429 with
//! `Retry-After` (seconds), `RateLimit-Policy`/`RateLimit` headers and a JSON body naming the
//! limit and when it resets; every refusal leaves a `rate_limited` audit line with the scope
//! (never the IP). An admitted tool call carries its [`Admission`] (the caller's budgets) down
//! to the call pipeline, and the first call of each minute writes the `limiter` line.

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::AppState;
use super::jsonrpc::{RpcMethod, RpcTarget};
use crate::call::Caller;
use crate::call::RequestMeta;
use crate::clock::now_s;
use crate::limits::{Admission, Cost, Exceeded, LimitKind, Report};

const RATELIMIT: HeaderName = HeaderName::from_static("ratelimit");
const RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");

/// Before authentication: one request of this client IP, or the 429 that refuses it.
#[expect(
    clippy::result_large_err,
    reason = "a stage hands on the request or answers in its place; both are HTTP values"
)]
pub(crate) fn per_ip(state: &AppState, request: Request) -> Result<Request, Response> {
    let ip = request
        .extensions()
        .get::<RequestMeta>()
        .and_then(|m| m.client_ip);
    match state.limits.request_from(ip, now_s()) {
        Ok(_) => Ok(request),
        Err(e) => Err(refuse(state, &e, None)),
    }
}

/// What is left of an admitted call's tightest limit, for its answer's `RateLimit` headers.
pub(crate) struct Headroom(Option<crate::limits::Passed>);

impl Headroom {
    /// The `RateLimit-Policy`/`RateLimit` headers of the limit that came closest, if any.
    pub(crate) fn mark(self, response: &mut Response) {
        if let Some(p) = self.0 {
            add_headers(
                response,
                p.scope,
                p.limit,
                p.window.seconds(),
                p.remaining,
                p.reset_after_s,
            );
        }
    }
}

/// After authentication: a `tools/call` counts against the caller's minute and the day, and so
/// do a record read and a completion, which run a tool too. An admitted call carries its
/// [`Admission`] on; a refused one gets the 429.
pub(crate) async fn per_call(
    state: &AppState,
    mut request: Request,
) -> Result<(Request, Headroom), Response> {
    let method = request.extensions().get::<RpcMethod>();
    // A record read and a completion run a tool too: they count like a tool call.
    let is_call = method.is_some_and(|m| {
        matches!(
            m.0.as_str(),
            "tools/call" | "resources/read" | "completion/complete"
        ) || (m.0 == "prompts/get"
            && request
                .extensions()
                .get::<RpcTarget>()
                .is_some_and(|t| remote_prompt(&state.inventory.registry, &t.0)))
    });
    let cost = match (method, request.extensions().get::<RpcTarget>()) {
        (Some(m), Some(t)) if is_call => cost_of(state, &m.0, &t.0),
        _ => None,
    };
    let caller = is_call
        .then(|| request.extensions().get::<Caller>().cloned())
        .flatten();
    let Some(caller) = caller else {
        return Ok((request, Headroom(None)));
    };
    let who = caller.who();
    match state.limits.tool_call_by(&who, cost, now_s()).await {
        Ok(admission) => {
            if let Some(report) = admission.report {
                write_report(state, report);
            }
            let headroom = Headroom(admission.passed);
            request.extensions_mut().insert::<Admission>(admission);
            Ok((request, headroom))
        }
        Err(e) => Err(refuse(state, &e, Some(&caller))),
    }
}

/// Whether a `prompts/get` names a remote MCP server's prompt (no catalog prompt has the name
/// and a remote connector's begins it): it sends one request to the remote, so it counts like
/// a tool call; a catalog prompt is a template and sends none.
fn remote_prompt(registry: &crate::inventory::Registry, name: &str) -> bool {
    registry.prompt(name).is_none() && registry.remote_of(name).is_some()
}

/// The connector a call's tool (or the resource read's tool, or the prompt or resource
/// template a completion names) belongs to, and the upstream requests it may send: what its
/// budget reservation asks for (a completion: one list page, or one request to the remote of a
/// federated prompt; a remote MCP tool: one call).
/// None for a name no tool has (the call answers that without an upstream request).
fn cost_of(state: &AppState, method: &str, target: &str) -> Option<Cost> {
    let registry = &state.inventory.registry;
    if method == "prompts/get" {
        // A remote MCP server's prompt: one `prompts/get` to the remote.
        return registry.remote_of(target).map(|conn| Cost {
            connector: conn.catalog.connector.to_string(),
            requests: 1,
        });
    }
    let (conn, tool) = if method == "tools/call" {
        let name = crate::contract::names::plain_name(target).ok()?;
        match registry.find(name) {
            Some(found) => found,
            // A remote MCP server's tool: one `tools/call` to the remote.
            None => {
                return registry.remote_of(name).map(|conn| Cost {
                    connector: conn.catalog.connector.to_string(),
                    requests: 1,
                });
            }
        }
    } else if method == "completion/complete" {
        // One list call at most, on the connector of the prompt or the resource template; a
        // federated prompt's: one `completion/complete` to its remote.
        let conn = match registry.prompt(target) {
            Some((conn, _)) => conn,
            None => match registry
                .exposed()
                .find(|(_, t)| t.resource.as_deref() == Some(target))
            {
                Some((conn, _)) => conn,
                None => registry.remote_of(target)?,
            },
        };
        return Some(Cost {
            connector: conn.catalog.connector.to_string(),
            requests: 1,
        });
    } else {
        registry
            .exposed()
            .find(|(_, t)| crate::contract::resource::arguments(t, target).is_some())?
    };
    Some(Cost {
        connector: conn.catalog.connector.to_string(),
        requests: crate::call::requests_at_most(tool),
    })
}

/// The `limiter` line (EMF metrics `limiter_fallback`, `daily_calls_used_pct`).
fn write_report(state: &AppState, report: Report) {
    let event = audit::AuditEvent::new(audit::EventKind::Limiter)
        .limiter(report.fallback, report.daily_calls_used_pct);
    state.audit.write(&event);
}

fn refuse(state: &AppState, e: &Exceeded, caller: Option<&Caller>) -> Response {
    let mut event = audit::AuditEvent::new(audit::EventKind::RateLimited)
        .status("rate_limited")
        .reason(format!("limit_{}", e.scope.as_str()))
        .http_status(429);
    if let Some(c) = caller {
        event = event.key_id(c.key_id.clone());
        if let Some(u) = &c.user {
            event = event.user(u.clone());
        }
    }
    if !e.repeated {
        state.audit.write(&event);
    }
    let message = match e.scope {
        LimitKind::Ip => format!(
            "Too many requests from this address: {} a minute at most. Retry after {} s.",
            e.limit, e.retry_after_s
        ),
        LimitKind::Caller => format!(
            "Too many tool calls: {} a minute per caller at most. Retry after {} s; a model \
             calling in a loop should stop and ask the user.",
            e.limit, e.retry_after_s
        ),
        // Budgets and spending are answered by the call pipeline as tool results, not here.
        LimitKind::Daily | LimitKind::Budget | LimitKind::Spend => format!(
            "This deployment's {} tool calls for today (UTC) are used up; they reset in {} s. \
             Tell the user, or ask an operator.",
            e.limit, e.retry_after_s
        ),
    };
    let body = json!({
        "error": "rate_limited",
        "scope": e.scope.as_str(),
        "limit": e.limit,
        "window": e.window.name(),
        "retry_after_s": e.retry_after_s,
        "message": message,
    });
    let mut response = (StatusCode::TOO_MANY_REQUESTS, axum::Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(e.retry_after_s));
    add_headers(
        &mut response,
        e.scope,
        e.limit,
        e.window.seconds(),
        0,
        e.retry_after_s,
    );
    response
}

/// `RateLimit-Policy: "caller";q=60;w=60` and `RateLimit: "caller";r=12;t=37`
/// (draft-ietf-httpapi-ratelimit-headers).
fn add_headers(
    response: &mut Response,
    scope: LimitKind,
    limit: u64,
    window_s: u64,
    remaining: u64,
    reset_s: u64,
) {
    let name = scope.as_str();
    let headers = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&format!("\"{name}\";q={limit};w={window_s}")) {
        headers.insert(RATELIMIT_POLICY, v);
    }
    if let Ok(v) = HeaderValue::from_str(&format!("\"{name}\";r={remaining};t={reset_s}")) {
        headers.insert(RATELIMIT, v);
    }
}
