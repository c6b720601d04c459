//! Who called and with what client, read once per request from the HTTP request the edge
//! handed down and the request's `_meta`. Client-supplied strings are bounded here, before
//! anything logs them.

use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};

use crate::call::Caller;
use crate::call::RequestMeta;
use crate::inventory::Scope;
use crate::limits::Admission;

/// Client names are cut to this many characters, versions to [`MAX_VERSION`].
const MAX_CLIENT: usize = 64;
const MAX_VERSION: usize = 32;

#[derive(Debug, Clone)]
pub struct CallContext {
    pub caller: Caller,
    /// Client name and version, bounded and reduced to safe characters.
    pub client: Option<(String, String)>,
    pub protocol_version: Option<String>,
    pub request: RequestMeta,
    /// What the edge's limits counted for this tool call (the caller's budgets).
    pub admission: Option<Admission>,
    /// The client can show a person a form: 2026-07-28 with the elicitation capability.
    pub can_elicit: bool,
    /// What the client declared it can answer of an input request (2026-07-28): its
    /// `elicitation`, `sampling` and `roots` capabilities as sent; empty for other clients.
    pub input_capabilities: serde_json::Map<String, serde_json::Value>,
    /// The client declared URL-mode elicitation (2026-07-28): a link to connect an account is
    /// offered as one.
    pub can_open_url: bool,
    /// A 2025-11-25 client whose session id says it declared URL-mode elicitation at
    /// `initialize` (`mcp/link.rs`): a link to connect is answered as the
    /// `URLElicitationRequiredError`.
    pub url_error: bool,
    /// The client holds MCP tasks (2026-07-28: it declared the extension
    /// `io.modelcontextprotocol/tasks`): a tool that starts an upstream job answers a task.
    pub tasks: bool,
    /// How long the client asked a task to be kept (2025-11-25: `params.task.ttl`).
    pub task_ttl_ms: Option<u64>,
    /// Where a long call's progress goes: the client sent a `progressToken` and reads an event
    /// stream.
    pub(super) watch: Option<super::progress::Watch>,
}

impl CallContext {
    /// The context of an rmcp request; a request without a caller identity is refused (the
    /// edge always sets one; without it the request would see the whole deployment).
    pub fn of(context: &RequestContext<RoleServer>) -> Result<Self, McpError> {
        let parts = context.extensions.get::<http::request::Parts>();
        let caller = parts
            .and_then(|p| p.extensions.get::<Caller>().cloned())
            .ok_or_else(|| McpError::invalid_request("no caller identity on this request", None))?;
        let request = parts
            .and_then(|p| p.extensions.get::<RequestMeta>().cloned())
            .unwrap_or_default();
        let header_version = parts
            .and_then(|p| p.headers.get("mcp-protocol-version"))
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let protocol_version = context
            .meta
            .protocol_version()
            .map(|v| v.to_string())
            .or(header_version)
            .map(|v| audit::bounded(&v, MAX_VERSION));
        let per_request = is_modern(protocol_version.as_deref());
        let declared = context.meta.client_capabilities();
        let elicitation = declared.as_ref().and_then(|c| c.elicitation.clone());
        let input_capabilities = if per_request {
            declared
                .as_ref()
                .map(|c| input_capabilities(&serde_json::to_value(c).unwrap_or_default()))
                .unwrap_or_default()
        } else {
            serde_json::Map::new()
        };
        let can_elicit = per_request && elicitation.is_some();
        let can_open_url = per_request && elicitation.is_some_and(|e| e.url.is_some());
        let session = parts
            .and_then(|p| p.headers.get("mcp-session-id"))
            .and_then(|v| v.to_str().ok());
        let url_error = !per_request && super::link::declares_url(session);
        Ok(CallContext {
            caller,
            client: context.meta.client_info().map(|c| {
                (
                    audit::bounded(&c.name, MAX_CLIENT),
                    audit::bounded(&c.version, MAX_VERSION),
                )
            }),
            protocol_version,
            request,
            admission: parts.and_then(|p| p.extensions.get::<Admission>().cloned()),
            can_elicit,
            input_capabilities,
            can_open_url,
            url_error,
            tasks: context
                .client_capabilities()
                .is_some_and(|c| c.supports_tasks()),
            task_ttl_ms: None,
            watch: super::progress::Watch::of(context),
        })
    }

    pub fn scope(&self) -> &Scope {
        &self.caller.scope
    }
}

/// The protocol generation that sends everything per request (`_meta`, no handshake), and the
/// tasks extension instead of 2025-11-25's task wire.
const MODERN: &str = "2026-07-28";

/// Whether a request's protocol version is of that generation (dates compare as text).
pub(crate) fn is_modern(version: Option<&str>) -> bool {
    version >= Some(MODERN)
}

/// The capabilities an input request uses (SEP-2322: a form, a sampling request, the roots), as
/// the client declared them; the others (extensions, tasks…) are no remote's business.
fn input_capabilities(declared: &serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    ["elicitation", "sampling", "roots"]
        .into_iter()
        .filter_map(|k| Some((k.to_string(), declared.get(k)?.clone())))
        .filter(|(_, v)| v.is_object())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_capabilities_an_input_request_uses_are_kept() {
        let declared = json!({"sampling": {}, "roots": {"listChanged": true},
                              "extensions": {"io.modelcontextprotocol/tasks": {}}, "experimental": {}});
        let kept = input_capabilities(&declared);
        assert_eq!(
            serde_json::Value::Object(kept),
            json!({"sampling": {}, "roots": {"listChanged": true}})
        );
        assert!(input_capabilities(&json!({"elicitation": null})).is_empty());
    }
}
