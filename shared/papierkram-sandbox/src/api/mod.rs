//! The HTTP face: the `/api/v1/…` endpoints (reads and writes) behind the upstream's auth, quota
//! and headers, plus the `/__sandbox/…` control plane.

mod bindings;
mod control;
mod documents;
mod error;
pub(crate) mod list;
mod resources;
mod routes;
pub(crate) mod write;

use crate::fault::FaultAction;
use crate::journal::{WriteLine, digest, logged_body};
use crate::state::{RequestLine, SandboxState, quota_month};
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use error::ApiError;
use jiff::{SignedDuration, Timestamp};
use std::time::Duration;

/// `retry-after` seconds on an injected 429.
pub const FAULT_RETRY_AFTER_SECS: u64 = 1;
/// Name of the session cookie the sandbox sets on every answer, as the upstream does.
pub const SESSION_COOKIE: &str = "sandbox_session";

/// The sandbox app: every upstream endpoint under `/api/v1/` and the `/__sandbox/` controls.
pub fn router(state: SandboxState) -> Router {
    routes::api()
        .merge(control::routes())
        .fallback(unknown_path)
        .layer(from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

async fn unknown_path(request: Request) -> ApiError {
    let message = format!(
        "No route matches [{}] {:?}",
        request.method(),
        request.uri().path()
    );
    ApiError::new(StatusCode::NOT_FOUND, message)
}

fn is_write(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD)
}

/// What the guard learned about a write's body before the handler ran.
struct WriteBody {
    bytes: usize,
    digest: String,
    body: Option<serde_json::Value>,
}

/// Order of business for an upstream request: log → injected fault → token → body (writes) →
/// quota → handler → write log → held-back answer (an injected answer delay).
async fn guard(State(st): State<SandboxState>, request: Request, next: Next) -> Response {
    let correlation_id = st.correlation_id();
    if request.uri().path().starts_with(control::PREFIX) {
        return render_error(next.run(request).await, &correlation_id);
    }
    let line = RequestLine {
        method: request.method().to_string(),
        path: request.uri().path().to_owned(),
        query: request.uri().query().map(str::to_owned),
    };
    st.record(line.clone());
    let write = is_write(request.method());
    let mut consumed = 0;
    let mut answer_delay = None;
    let mut seen_body = None;
    let response = match st.take_fault(&line.path, write) {
        Some(FaultAction::Status(code)) => injected(code).into_response(),
        fault => {
            match fault {
                Some(FaultAction::Delay(d)) => tokio::time::sleep(d).await,
                Some(FaultAction::DelayAnswer(d)) => answer_delay = Some(d),
                _ => {}
            }
            match authorize(&st, request, write).await {
                Err(refusal) => refusal,
                Ok((request, body)) => {
                    seen_body = body;
                    let cost = write::quota_cost(&line.method, &line.path);
                    if st.consume_quota(cost).is_none() {
                        let mut e = ApiError::new(
                            StatusCode::TOO_MANY_REQUESTS,
                            "Monthly API quota exhausted",
                        );
                        e.retry_after = Some(seconds_until_next_month(Timestamp::now()));
                        e.into_response()
                    } else {
                        consumed = cost;
                        next.run(request).await
                    }
                }
            }
        }
    };
    let mut response = render_error(response, &correlation_id);
    upstream_headers(&mut response, &st, consumed, &correlation_id);
    let status = response.status().as_u16();
    tracing::info!(
        method = %line.method,
        path = %line.path,
        status,
        "papierkram sandbox request"
    );
    if write {
        let record_id = response.extensions().get::<write::Touched>().map(|t| t.0);
        let body = seen_body.unwrap_or_else(|| WriteBody {
            bytes: 0,
            digest: digest(b""),
            body: None,
        });
        st.log_write(|seq| WriteLine {
            seq,
            method: line.method,
            path: line.path,
            query: line.query,
            status,
            at: Timestamp::now().to_string(),
            body_bytes: body.bytes,
            body_digest: body.digest,
            body: body.body,
            record_id,
            answer_delay_ms: answer_delay.map(|d: Duration| d.as_millis() as u64),
        });
    }
    if let Some(d) = answer_delay {
        // The write is applied and logged; only the answer is late.
        tokio::time::sleep(d).await;
    }
    response
}

/// Checks the token and, for a write, reads the body (refusing one that is too large); both
/// refusals happen before the quota is touched, as at the upstream.
async fn authorize(
    st: &SandboxState,
    request: Request,
    write: bool,
) -> Result<(Request, Option<WriteBody>), Response> {
    if !authorized(&request, st.token()) {
        return Err(
            ApiError::new(StatusCode::UNAUTHORIZED, "Invalid or missing API token").into_response(),
        );
    }
    if !write {
        return Ok((request, None));
    }
    let (request, bytes) = write::buffer(request)
        .await
        .map_err(IntoResponse::into_response)?;
    let body = WriteBody {
        bytes: bytes.len(),
        digest: digest(&bytes),
        body: logged_body(&bytes),
    };
    Ok((request, Some(body)))
}

fn injected(code: u16) -> ApiError {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut e = ApiError::new(status, "Injected fault (Papierkram sandbox)");
    e.retry_after = (status == StatusCode::TOO_MANY_REQUESTS).then_some(FAULT_RETRY_AFTER_SECS);
    e
}

fn authorized(request: &Request, token: &str) -> bool {
    let Some(value) = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    match value.split_once(' ') {
        Some((scheme, given)) => scheme.eq_ignore_ascii_case("bearer") && given.trim() == token,
        None => false,
    }
}

/// Turns an [`ApiError`] left in the extensions into the JSON envelope.
fn render_error(mut response: Response, correlation_id: &str) -> Response {
    let Some(err) = response.extensions_mut().remove::<ApiError>() else {
        return response;
    };
    *response.body_mut() = Body::from(err.envelope(correlation_id));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Some(secs) = err.retry_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    response
}

/// Headers every upstream answer carries: quota counters, request id, no-store, a session cookie.
fn upstream_headers(
    response: &mut Response,
    st: &SandboxState,
    consumed: u64,
    correlation_id: &str,
) {
    let quota = st.quota();
    let expires = Timestamp::now()
        .checked_add(SignedDuration::from_hours(14 * 24))
        .unwrap_or(Timestamp::MAX)
        .strftime("%a, %d %b %Y %H:%M:%S GMT");
    let session: String = correlation_id
        .chars()
        .filter(char::is_ascii_hexdigit)
        .collect();
    let cookie =
        format!("{SESSION_COOKIE}={session}; path=/; expires={expires}; HttpOnly; SameSite=Lax");
    let headers = response.headers_mut();
    if headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"))
    {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert("x-remaining-quota", HeaderValue::from(quota.remaining));
    headers.insert("x-consumed-quota", HeaderValue::from(consumed));
    if let Ok(id) = HeaderValue::from_str(correlation_id) {
        headers.insert("x-request-id", id);
    }
    if let Ok(cookie) = HeaderValue::from_str(&cookie) {
        headers.insert(header::SET_COOKIE, cookie);
    }
}

/// Until the next quota month starts (00:00 Berlin time on the first), when the quota refills.
fn seconds_until_next_month(now: Timestamp) -> u64 {
    let (_, next) = quota_month(now);
    (next.as_second() - now.as_second()).max(1) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_counts_to_the_next_berlin_month() {
        for (now, secs) in [
            ("2026-05-31T21:00:00Z", 3_600), // 23:00 CEST, June starts at 22:00Z
            ("2026-05-31T21:59:59Z", 1),     // one second before the refill
            ("2026-05-31T22:00:00Z", 2_592_000), // June 1st 00:00 CEST: 30 days to July
            ("2026-10-31T22:30:00Z", 1_800), // 23:30 CET, November starts at 23:00Z
            ("2026-12-31T22:59:00Z", 60),    // 23:59 CET, next year
            ("2026-03-28T23:00:00Z", 255_600), // 3 days, less the hour DST skips on Mar 29
        ] {
            let now: Timestamp = now.parse().unwrap();
            assert_eq!(seconds_until_next_month(now), secs, "{now}");
        }
    }
}
