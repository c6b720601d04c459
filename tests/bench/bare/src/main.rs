//! `bench-bare --addr 127.0.0.1:PORT`: the physical yardstick of `tests/bench/run.sh`. rmcp's
//! Streamable HTTP service (stateless, JSON replies, as hosted-mcp configures it) on axum and
//! tokio with the workspace's versions and features, one tool `echo(text)`, nothing else: no
//! auth, no limits, no logging.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

#[derive(Clone)]
struct Echo {
    tool: Arc<Tool>,
}

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![(*self.tool).clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = match std::env::args().collect::<Vec<_>>().as_slice() {
        [_, flag, addr] if flag == "--addr" => addr.clone(),
        _ => "127.0.0.1:8768".to_owned(),
    };
    let Value::Object(schema) = json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }) else {
        unreachable!("a JSON object literal")
    };
    let echo = Echo {
        tool: Arc::new(Tool::new("echo", "Returns the text it is given.", schema)),
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let service = StreamableHttpService::new(
        move || Ok(echo.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    axum::serve(listener, app).await
}
