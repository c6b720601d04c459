//! Remote MCP servers' tools on our surface: listed beside the catalog tools (core ones, as the
//! caller's profile allows) and found by name for a call. Their lists are fetched by the
//! upstream when a request first needs them; a remote that cannot be reached lists nothing and
//! says so in the log, while the catalog tools answer as always.

use std::sync::Arc;

use rmcp::model::Tool as McpTool;
use serde_json::{Value, json};

use super::definitions::annotations;
use super::server::Mcp;
use crate::contract::risk;
use crate::contract::schema::object;
use crate::inventory::{DeployedCatalog, Scope};
use crate::upstream::mcp::{RemoteSet, RemoteTool};

impl Mcp {
    /// The core remote tools a scope lists, after its catalog tools.
    pub(super) async fn remote_listed(&self, scope: &Scope) -> Vec<McpTool> {
        let mut out = Vec::new();
        for conn in self.remote_connectors() {
            let set = match self.pipeline.upstream().remote_tools(conn, false).await {
                Ok(set) => set,
                Err(e) => {
                    tracing::warn!(connector = %conn.catalog.connector, error = %e, "remote MCP server unavailable: its tools are not listed");
                    continue;
                }
            };
            out.extend(
                set.tools
                    .iter()
                    .filter(|t| t.tool.core && self.remote_allowed(scope, conn, &t.tool.name))
                    .map(definition),
            );
        }
        out
    }

    /// The remote connector and tool list that hold `name` for this scope; the list is
    /// fetched again once when it does not know the name (the remote may have added it).
    pub(super) async fn find_remote(
        &self,
        scope: &Scope,
        name: &str,
    ) -> Option<(&DeployedCatalog, Arc<RemoteSet>)> {
        let conn = self.remote_connectors().find(|c| {
            name.strip_prefix(c.catalog.connector.as_str())
                .is_some_and(|rest| rest.starts_with('_'))
        })?;
        if !self.remote_allowed(scope, conn, name) {
            return None;
        }
        let upstream = self.pipeline.upstream();
        let set = upstream.remote_tools(conn, false).await.ok()?;
        if set.find(name).is_some() {
            return Some((conn, set));
        }
        let set = upstream.remote_tools(conn, true).await.ok()?;
        set.find(name).is_some().then_some((conn, set))
    }

    fn remote_connectors(&self) -> impl Iterator<Item = &DeployedCatalog> {
        self.inventory
            .registry
            .catalogs
            .iter()
            .filter(|c| c.catalog.mcp.is_some())
    }

    fn remote_allowed(&self, scope: &Scope, conn: &DeployedCatalog, name: &str) -> bool {
        self.inventory
            .profiles
            .allows(scope.profile(), &conn.catalog.connector, name)
    }
}

/// A remote tool as listed: our name and description, the remote's input schema with the
/// platform's write arguments added, annotations from our risk and its read-only word.
fn definition(remote: &RemoteTool) -> McpTool {
    let tool = &remote.tool;
    let mut schema = (*remote.input_schema).clone();
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        if risk::is_write(tool) {
            props.insert("dry_run".into(), json!({"type": "boolean", "description": "true: show the exact call and its effects; nothing runs."}));
            props.insert("idempotency_key".into(), json!({"type": "string", "maxLength": crate::contract::args::MAX_IDEMPOTENCY_KEY, "description": "Send the same one when retrying, and the call runs once."}));
        }
        if risk::needs_confirmation(tool) {
            props.insert("confirmation_token".into(), json!({"type": "string", "description": "From the confirmation_required answer, after the user agreed to its preview; same arguments."}));
        }
    }
    McpTool::new(
        tool.name.clone(),
        tool.description.trim().to_string(),
        object(Value::Object(schema)),
    )
    .with_annotations(annotations(tool))
}
