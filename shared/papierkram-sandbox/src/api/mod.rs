//! The HTTP face: `/api/v1/…` read endpoints behind the upstream's auth, quota and headers, plus
//! the `/__sandbox/…` control plane.

mod bindings;
mod control;
mod error;
pub mod list;
mod resources;

use crate::model::*;
use crate::state::{FaultAction, RequestLine, SandboxState, quota_month};
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::handler::Handler;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};
use error::ApiError;
use jiff::{SignedDuration, Timestamp};
use resources::{info, list, person, persons, show};

/// `retry-after` seconds on an injected 429.
pub const FAULT_RETRY_AFTER_SECS: u64 = 1;
/// Name of the session cookie the sandbox sets on every answer, as the upstream does.
pub const SESSION_COOKIE: &str = "sandbox_session";

/// The sandbox app: every upstream read endpoint under `/api/v1/` and the `/__sandbox/` controls.
pub fn router(state: SandboxState) -> Router {
    Router::new()
        .route("/api/v1/info", read(info))
        .route("/api/v1/income/invoices", read(list::<Invoice>))
        .route("/api/v1/income/invoices/{id}", read(show::<Invoice>))
        .route("/api/v1/income/estimates", read(list::<Estimate>))
        .route("/api/v1/income/estimates/{id}", read(show::<Estimate>))
        .route("/api/v1/income/propositions", read(list::<Proposition>))
        .route(
            "/api/v1/income/propositions/{id}",
            read(show::<Proposition>),
        )
        .route("/api/v1/income/payment_terms", read(list::<PaymentTerm>))
        .route(
            "/api/v1/income/payment_terms/{id}",
            read(show::<PaymentTerm>),
        )
        .route("/api/v1/expense/vouchers", read(list::<Voucher>))
        .route("/api/v1/expense/vouchers/{id}", read(show::<Voucher>))
        .route("/api/v1/contact/companies", read(list::<Company>))
        .route("/api/v1/contact/companies/{id}", read(show::<Company>))
        .route(
            "/api/v1/contact/companies/{company_id}/persons",
            read(persons),
        )
        .route(
            "/api/v1/contact/companies/{company_id}/persons/{id}",
            read(person),
        )
        .route("/api/v1/projects", read(list::<Project>))
        .route("/api/v1/projects/{id}", read(show::<Project>))
        .route("/api/v1/tracker/tasks", read(list::<Task>))
        .route("/api/v1/tracker/tasks/{id}", read(show::<Task>))
        .route("/api/v1/tracker/time_entries", read(list::<TimeEntry>))
        .route("/api/v1/tracker/time_entries/{id}", read(show::<TimeEntry>))
        .route(
            "/api/v1/banking/bank_connections",
            read(list::<BankConnection>),
        )
        .route(
            "/api/v1/banking/bank_connections/{id}",
            read(show::<BankConnection>),
        )
        .route(
            "/api/v1/banking/transactions",
            read(list::<BankTransaction>),
        )
        .route(
            "/api/v1/banking/transactions/{id}",
            read(show::<BankTransaction>),
        )
        .merge(control::routes())
        .fallback(unknown_path)
        .layer(from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// GET (and HEAD); any other method gets the envelope instead of an empty 405.
fn read<H, T>(handler: H) -> MethodRouter<SandboxState>
where
    H: Handler<T, SandboxState>,
    T: 'static,
{
    get(handler).fallback(read_only)
}

async fn read_only() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "The Papierkram sandbox is read-only",
    )
}

async fn unknown_path(request: Request) -> ApiError {
    let message = format!(
        "No route matches [{}] {:?}",
        request.method(),
        request.uri().path()
    );
    ApiError::new(StatusCode::NOT_FOUND, message)
}

/// Order of business for an upstream request: log → injected fault → token → quota → handler.
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
    let mut consumed = 0;
    let response = match st.take_fault(request.uri().path()) {
        Some(FaultAction::Status(code)) => injected(code).into_response(),
        delay => {
            if let Some(FaultAction::Delay(d)) = delay {
                tokio::time::sleep(d).await;
            }
            if !authorized(&request, st.token()) {
                ApiError::new(StatusCode::UNAUTHORIZED, "Invalid or missing API token")
                    .into_response()
            } else if st.consume_quota().is_none() {
                let mut e =
                    ApiError::new(StatusCode::TOO_MANY_REQUESTS, "Monthly API quota exhausted");
                e.retry_after = Some(seconds_until_next_month(Timestamp::now()));
                e.into_response()
            } else {
                consumed = 1;
                next.run(request).await
            }
        }
    };
    let mut response = render_error(response, &correlation_id);
    upstream_headers(&mut response, &st, consumed, &correlation_id);
    tracing::info!(
        method = %line.method,
        path = %line.path,
        status = response.status().as_u16(),
        "papierkram sandbox request"
    );
    response
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
