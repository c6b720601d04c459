//! JSON error answers of the edge, and its HTML pages' answers.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// A JSON error answer: `{error, message}` with the status.
pub(crate) fn error(status: StatusCode, error: &str, message: &str) -> Response {
    let body = serde_json::json!({ "error": error, "message": message });
    (status, axum::Json(body)).into_response()
}

/// 503 with a clear message: the server is up but cannot serve (e.g. the secret is missing).
pub(crate) fn unavailable(message: &str) -> Response {
    error(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message)
}

/// The content security policy of a page with no form.
pub(crate) const PAGE_CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";
/// The content security policy of a page whose forms post back here.
pub(crate) const FORM_CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'";

/// An HTML page: nothing cached (codes, states and tickets ride in these pages and URLs),
/// nothing leaked in a `Referer`, nothing loaded or framed beyond what `csp` allows.
pub(crate) fn html(status: StatusCode, html: String, csp: &'static str) -> Response {
    let mut response = (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        )],
        html,
    )
        .into_response();
    no_store_page(&mut response, csp);
    response
}

/// The headers every HTML answer and redirect of the pages carry.
pub(crate) fn no_store_page(response: &mut Response, csp: &'static str) {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(csp),
    );
}
