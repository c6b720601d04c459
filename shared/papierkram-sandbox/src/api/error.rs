//! The upstream error envelope: `{type: "error", error_type, message, correlation_id}`.
//!
//! Handlers return [`ApiError`]; it travels in the response extensions and the middleware renders
//! it, because only the middleware knows the request's correlation id.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// Field order as the upstream sends it.
#[derive(Serialize)]
struct Envelope<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    error_type: String,
    message: &'a str,
    correlation_id: &'a str,
}

#[derive(Debug, Clone)]
pub(crate) struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// Seconds for a `retry-after` header.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    /// Rails' wording for a missing record, e.g. `Couldn't find Income::Invoice with 'id'=7`.
    pub(crate) fn record_not_found(model: &str, id: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            format!("Couldn't find {model} with 'id'={id}"),
        )
    }

    pub(crate) fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    /// `unauthorized`, `not_found`, `unprocessable_entity`, `too_many_requests`, …
    pub(crate) fn error_type(&self) -> String {
        self.status
            .canonical_reason()
            .unwrap_or("error")
            .to_lowercase()
            .replace(['\'', '-'], "")
            .replace(' ', "_")
    }

    pub(crate) fn envelope(&self, correlation_id: &str) -> String {
        let envelope = Envelope {
            kind: "error",
            error_type: self.error_type(),
            message: &self.message,
            correlation_id,
        };
        serde_json::to_string(&envelope).expect("plain strings serialize")
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        response.extensions_mut().insert(self);
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_types_are_snake_case_reason_phrases() {
        let t = |s| ApiError::new(s, "").error_type();
        assert_eq!(t(StatusCode::NOT_FOUND), "not_found");
        assert_eq!(t(StatusCode::UNPROCESSABLE_ENTITY), "unprocessable_entity");
        assert_eq!(t(StatusCode::TOO_MANY_REQUESTS), "too_many_requests");
        assert_eq!(t(StatusCode::BAD_GATEWAY), "bad_gateway");
        assert_eq!(t(StatusCode::from_u16(599).unwrap()), "error");
    }
}
