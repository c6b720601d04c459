//! The request's span (when traces are on): named after the route it takes, never the path a
//! client wrote, and a child of the client's `traceparent` when it sent one.

use axum::extract::Request;
use tracing::field::Empty;

/// The span of one request, its status recorded by the caller when answered.
pub(super) fn span(request: &Request) -> tracing::Span {
    let span = tracing::info_span!(
        target: audit::SPAN_TARGET,
        "request",
        otel.kind = "server",
        http.request.method = request.method().as_str(),
        http.route = route(request.uri().path()),
        http.response.status_code = Empty,
    );
    crate::telemetry::accept(&span, request.headers());
    span
}

/// The route a path takes, as the router declares it: a fixed word, whatever the client sent.
fn route(path: &str) -> &'static str {
    let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
    let more = path.trim_start_matches('/').contains('/');
    match (first, more) {
        ("mcp", false) => "/mcp",
        ("mcp", true) => "/mcp/{profile}",
        ("health", _) => "/health",
        ("connectors", _) => "/connectors",
        ("connect", _) => "/connect/{connector}",
        ("connections", _) => "/connections",
        ("inbound", _) => "/inbound/{connector}",
        (".well-known", _) => "/.well-known",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_is_a_word_of_ours_never_the_clients_path() {
        assert_eq!(route("/mcp"), "/mcp");
        assert_eq!(route("/mcp/finance"), "/mcp/{profile}");
        assert_eq!(route("/connect/google/callback"), "/connect/{connector}");
        assert_eq!(route("/someone@example.com"), "other");
        assert_eq!(route("/"), "other");
    }
}
