//! The protected resource metadata (RFC 9728) at `/.well-known/oauth-protected-resource`, at
//! its path-suffixed form for `/mcp` and for each `/mcp/<profile>`: unauthenticated, public,
//! readable from browsers. Served only while OAuth is on.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use crate::oauth::discovery;

/// `GET /.well-known/oauth-protected-resource`.
pub(crate) async fn root(State(state): State<AppState>) -> Response {
    document(&state, "")
}

/// `GET /.well-known/oauth-protected-resource/{*rest}`.
pub(crate) async fn suffixed(State(state): State<AppState>, Path(rest): Path<String>) -> Response {
    document(&state, &format!("/{rest}"))
}

/// The CORS preflight of a browser client that sends extra headers.
pub(crate) async fn preflight() -> Response {
    with_headers(
        StatusCode::NO_CONTENT.into_response(),
        &[
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
            (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, OPTIONS"),
            (header::ACCESS_CONTROL_ALLOW_HEADERS, "*"),
        ],
    )
}

fn with_headers(
    mut response: Response,
    headers: &[(header::HeaderName, &'static str)],
) -> Response {
    for (name, value) in headers {
        response
            .headers_mut()
            .insert(name.clone(), HeaderValue::from_static(value));
    }
    response
}

fn document(state: &AppState, rest: &str) -> Response {
    let Some(settings) = state.oauth.as_ref().map(|v| v.settings()) else {
        return super::respond::error(StatusCode::NOT_FOUND, "not_found", "OAuth is off here.");
    };
    let profile = match discovery::resource_of_path(settings, rest) {
        Some(Some(p)) if !state.inventory.profiles.exists(p) => None,
        Some(profile) => Some(profile),
        None => None,
    };
    let Some(profile) = profile else {
        return super::respond::error(
            StatusCode::NOT_FOUND,
            "not_found",
            "No protected resource at this path: try /.well-known/oauth-protected-resource/mcp.",
        );
    };
    with_headers(
        Json(discovery::metadata(settings, profile)).into_response(),
        &[
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
            (header::CACHE_CONTROL, "public, max-age=300"),
        ],
    )
}
