//! What a 2025-11-25 client declared at `initialize` and a later request must know, on a
//! stateless server: an `initialize` that declares URL-mode elicitation
//! (`capabilities.elicitation.url`) is answered with a session id that says so
//! (`mcp::url_session_id`), which the client sends with every later request. The MCP layer reads
//! it back (`mcp/link.rs`); nothing is stored, and the id grants nothing.

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use serde::de::IgnoredAny;

/// The request is an `initialize` that declares URL-mode elicitation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeclaresUrl;

#[derive(Deserialize)]
struct Initialize {
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    capabilities: Option<Capabilities>,
}

#[derive(Deserialize)]
struct Capabilities {
    elicitation: Option<Elicitation>,
}

#[derive(Deserialize)]
struct Elicitation {
    url: Option<IgnoredAny>,
}

/// Whether an `initialize` body declares URL-mode elicitation.
pub(crate) fn declares_url(body: &[u8]) -> bool {
    serde_json::from_slice::<Initialize>(body)
        .ok()
        .and_then(|i| i.params?.capabilities?.elicitation?.url)
        .is_some()
}

/// The answer to such an `initialize` gets its session id (unless it failed or has one).
pub(crate) fn with_session(response: &mut Response) {
    const SESSION: &str = "mcp-session-id";
    if response.status() != StatusCode::OK || response.headers().contains_key(SESSION) {
        return;
    }
    if let Some(id) = crate::mcp::url_session_id().and_then(|i| HeaderValue::from_str(&i).ok()) {
        response.headers_mut().insert(SESSION, id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_initialize_that_declares_urls_is_marked() {
        let url = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert!(declares_url(url));
        let form = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"elicitation":{}}}}"#;
        assert!(!declares_url(form));
        for other in [&b"{}"[..], b"[]", b"{\"params\": 3}", b"nonsense"] {
            assert!(!declares_url(other));
        }
        let mut ok = Response::new(axum::body::Body::empty());
        with_session(&mut ok);
        let id = ok.headers()["mcp-session-id"].to_str().unwrap();
        assert!(id.starts_with("hm1-url-"), "{id}");
        let mut failed = Response::new(axum::body::Body::empty());
        *failed.status_mut() = StatusCode::BAD_REQUEST;
        with_session(&mut failed);
        assert!(!failed.headers().contains_key("mcp-session-id"));
    }
}
