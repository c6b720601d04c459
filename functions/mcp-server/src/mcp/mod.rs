//! The MCP surface, and the only place that knows rmcp: the handler (`handler`), the steering
//! of a `tools/call` it delegates to (`tool_call`), the call context (`context`), confirmation
//! by a person through the client (`confirm`), a link to connect a person's own account as a
//! URL-mode elicitation (`link`), the meta tools with their schemas and argument parsing (`meta`), tool definitions and results
//! (`definitions`), remote MCP servers' tools (`remote`), resources (`resources`), prompts
//! (`prompts`; a remote's: `remote_prompts`), completions of prompt arguments and
//! resource-template variables (`completions`; a federated prompt's: `remote_completions`),
//! progress notifications of a watched call (`progress`), each scope's `tools/list` (`lists`,
//! built on the scope's first `tools/list`; `lint` measures them too), the audit events
//! (`audit`) and a `tools/call`'s span (`traced`).
//!
//! [`Mcp`] (`server`) holds what every MCP request needs, built once at start (a scope's
//! `tools/list` on its first request); [`service`] is the Streamable HTTP service the edge mounts.

mod audit;
mod completions;
mod confirm;
mod context;
mod definitions;
mod handler;
mod link;
pub(crate) mod lists;
mod meta;
mod meta_answers;
mod progress;
pub(crate) mod prompts;
mod remote;
mod remote_completions;
mod remote_prompts;
mod resources;
mod server;
mod tasks;
mod tasks_v1;
mod tool_call;
mod traced;

pub(crate) use context::is_modern;
pub use definitions::output_schema;
pub(crate) use link::url_session_id;
pub(crate) use meta::{CALL_TOOL, CONNECTIONS as CONNECTIONS_TOOL};
pub use server::Mcp;
pub(crate) use tasks_v1::TASKS_V1_PREFIX;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

/// The transport settings the edge decides (hosts, origins, body limit).
pub(crate) struct Transport {
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
}

/// rmcp's Streamable HTTP service over [`Mcp`].
pub(crate) type Service = StreamableHttpService<handler::McpHandler, NeverSessionManager>;

/// The stateless Streamable HTTP service (JSON replies) over [`Mcp`].
pub(crate) fn service(mcp: Arc<Mcp>, transport: Transport) -> Service {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_allowed_hosts(transport.allowed_hosts)
        .with_allowed_origins(transport.allowed_origins)
        // An empty origin list rejects every browser origin instead of allowing all.
        .enforce_origin_validation()
        .with_max_request_body_bytes(transport.max_body_bytes);
    StreamableHttpService::new(
        move || Ok(handler::McpHandler { mcp: mcp.clone() }),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}
