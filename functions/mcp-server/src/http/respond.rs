//! JSON error answers of the edge.

use axum::http::StatusCode;
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
