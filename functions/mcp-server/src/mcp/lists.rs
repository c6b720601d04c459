//! Each scope's `tools/list`, worked out once from the inventory, and what it costs a model:
//! the part it reads on every turn (names, descriptions, input schemas) and the whole answer,
//! against the budgets [`MAX_READ_BYTES`] and [`MAX_BYTES`] that the catalog lint enforces.

use std::collections::HashMap;

use rmcp::model::Tool as McpTool;
use serde_json::json;

use super::{definitions, meta};
use crate::inventory::{Inventory, Scope};

/// The most a `tools/list` may ask a model to read: names, descriptions, input schemas.
pub const MAX_READ_BYTES: usize = 16 * 1024;
/// The most a whole `tools/list` result may be.
pub const MAX_BYTES: usize = 24 * 1024;

/// Every scope's listed tools: its core tools (and a profile's `+` tools) in catalog order, then
/// the meta tools where there is something to discover.
pub fn build(inventory: &Inventory) -> HashMap<Scope, Vec<McpTool>> {
    let output = std::sync::Arc::new(definitions::output_schema());
    let meta_tools = meta::tools(&output);
    let has_connections = inventory
        .registry
        .catalogs
        .iter()
        .any(|c| c.catalog.auth.oauth_user.is_some());
    let definitions: HashMap<&str, McpTool> = inventory
        .registry
        .exposed()
        .map(|(c, t)| (t.name.as_str(), definitions::definition(&c.catalog, t)))
        .collect();
    let scopes = std::iter::once(Scope::Deployment).chain(
        inventory
            .profiles
            .names()
            .map(|n| Scope::Profile(n.to_string())),
    );
    scopes
        .map(|scope| {
            let view = inventory.view(&scope);
            let mut tools: Vec<McpTool> = view
                .listed
                .iter()
                .filter_map(|(_, name)| definitions.get(name.as_str()).cloned())
                .collect();
            // Progressive disclosure only where there is something to discover.
            if view.has_hidden {
                tools.extend(meta_tools.iter().cloned());
            }
            // Each person's own connections, where some connector acts with one.
            if has_connections {
                tools.push(meta::connections_tool());
            }
            (scope, tools)
        })
        .collect()
}

/// The size of a `tools/list` result, compact JSON bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Names, descriptions and input schemas: what a model reads.
    pub read: usize,
    /// The whole result (`{"tools": [...]}`).
    pub total: usize,
}

impl Size {
    pub fn of(tools: &[McpTool]) -> Size {
        let bytes = |v: serde_json::Value| serde_json::to_vec(&v).map_or(0, |b| b.len());
        Size {
            read: tools
                .iter()
                .map(|t| {
                    bytes(json!({"name": t.name, "description": t.description,
                                 "inputSchema": t.input_schema}))
                })
                .sum(),
            total: bytes(json!({ "tools": tools })),
        }
    }

    pub fn within_budget(self) -> bool {
        self.read <= MAX_READ_BYTES && self.total <= MAX_BYTES
    }
}
