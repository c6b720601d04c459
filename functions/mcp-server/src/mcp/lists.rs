//! Each scope's `tools/list`, worked out from the inventory on the scope's first `tools/list`,
//! and what it costs a model: the part it reads on every turn (names, descriptions, input
//! schemas) and the whole answer, against the budgets [`MAX_READ_BYTES`] and [`MAX_BYTES`] that
//! the catalog lint enforces.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use rmcp::model::Tool as McpTool;
use serde_json::json;

use super::{definitions, meta};
use crate::inventory::{Inventory, Scope};

/// The most a `tools/list` may ask a model to read: names, descriptions, input schemas.
pub(crate) const MAX_READ_BYTES: usize = 16 * 1024;
/// The most a whole `tools/list` result may be.
pub(crate) const MAX_BYTES: usize = 24 * 1024;

/// Every scope's `tools/list`, each built on that scope's first request, exactly once
/// (concurrent first requests wait for the one build). A cold instance answers `initialize`
/// and `tools/call` without building any, and a `tools/list` builds only its own scope's: the
/// definitions of the tools it lists, never the search index.
pub(crate) struct Lists {
    inventory: Arc<Inventory>,
    scopes: HashMap<Scope, OnceLock<Vec<McpTool>>>,
}

impl Lists {
    /// One empty slot per scope of the inventory; nothing is built yet.
    pub(crate) fn new(inventory: Arc<Inventory>) -> Self {
        let scopes = inventory
            .scopes()
            .map(|scope| (scope.clone(), OnceLock::new()))
            .collect();
        Lists { inventory, scopes }
    }

    /// The tools a scope lists, built on first use. Scopes come from the inventory, so every
    /// one has a list; an unknown one (a bug) lists nothing.
    pub(crate) fn get(&self, scope: &Scope) -> &[McpTool] {
        self.scopes
            .get(scope)
            .map_or(&[], |list| list.get_or_init(|| of(&self.inventory, scope)))
    }

    /// How many tools a scope lists, without building its list.
    pub(crate) fn count(&self, scope: &Scope) -> usize {
        Plan::of(&self.inventory, scope).len()
    }

    /// How many scopes' lists were built so far (a cold instance: none).
    pub(crate) fn built(&self) -> usize {
        self.scopes.values().filter(|l| l.get().is_some()).count()
    }
}

/// Every scope's `tools/list` at once, for the lint, which judges each.
pub(crate) fn build(inventory: &Inventory) -> HashMap<Scope, Vec<McpTool>> {
    inventory
        .scopes()
        .map(|scope| (scope.clone(), of(inventory, scope)))
        .collect()
}

/// What a scope lists, before any definition is built: its core tools (and a profile's `+`
/// tools) in catalog order, then the meta tools where there is something to discover, then
/// `connections` where a listed tool acts with each person's own account, or a remote MCP server
/// does (its tools are listed per person once connected); elsewhere it stays callable by name,
/// so a scope whose per-person tools are found through search pays nothing for it in its list.
struct Plan<'a> {
    core: &'a [(String, String)],
    meta: bool,
    connections: bool,
}

impl<'a> Plan<'a> {
    fn of(inventory: &'a Inventory, scope: &Scope) -> Self {
        let view = inventory.view(scope);
        Plan {
            core: &view.listed,
            // Progressive disclosure only where there is something to discover.
            meta: view.has_hidden,
            connections: inventory.registry.catalogs.iter().any(|c| {
                c.catalog.auth.oauth_user.is_some()
                    && (c.catalog.mcp.is_some()
                        || view.listed.iter().any(|(n, _)| *n == c.catalog.connector))
            }),
        }
    }

    fn len(&self) -> usize {
        self.core.len()
            + if self.meta { meta::TOOL_COUNT } else { 0 }
            + usize::from(self.connections)
    }
}

/// One scope's listed tools, as its [`Plan`] says.
fn of(inventory: &Inventory, scope: &Scope) -> Vec<McpTool> {
    let plan = Plan::of(inventory, scope);
    let mut tools: Vec<McpTool> = plan
        .core
        .iter()
        .filter_map(|(_, name)| inventory.registry.find(name))
        .map(|(c, t)| definitions::definition(&c.catalog, t))
        .collect();
    if plan.meta {
        tools.extend(meta::tools(&Arc::new(definitions::output_schema())));
    }
    if plan.connections {
        tools.push(meta::connections_tool());
    }
    tools
}

/// The size of a `tools/list` result, compact JSON bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Size {
    /// Names, descriptions and input schemas: what a model reads.
    pub read: usize,
    /// The whole result (`{"tools": [...]}`).
    pub total: usize,
}

impl Size {
    pub(crate) fn of(tools: &[McpTool]) -> Size {
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

    pub(crate) fn within_budget(self) -> bool {
        self.read <= MAX_READ_BYTES && self.total <= MAX_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped catalogs with two profiles, the way `serve` deploys them.
    fn inventory() -> Arc<Inventory> {
        Arc::new(crate::inventory::shipped(
            "accounting=papierkram/*,sevdesk/*;calendar=+calcom/*",
        ))
    }

    fn names(tools: &[McpTool]) -> Vec<&str> {
        tools.iter().map(|t| t.name.as_ref()).collect()
    }

    #[test]
    fn a_list_is_built_on_its_first_request_only_and_once() {
        let inventory = inventory();
        let lists = Lists::new(inventory.clone());
        assert_eq!(lists.built(), 0, "nothing is built at start");
        let calendar = Scope::Profile("calendar".into());
        // Counting (the start-up warning) builds nothing.
        let count = lists.count(&calendar);
        assert_eq!(lists.built(), 0);
        let first = lists.get(&calendar);
        assert_eq!(first.len(), count);
        assert_eq!(lists.built(), 1, "only the scope asked for");
        assert!(std::ptr::eq(first, lists.get(&calendar)), "built once");
        assert!(
            !inventory.search_is_built(),
            "listing needs no search index"
        );
    }

    #[test]
    fn concurrent_first_requests_share_one_list() {
        let lists = Lists::new(inventory());
        let lists = &lists;
        let built: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(move || lists.get(&Scope::Deployment).as_ptr() as usize))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(built.windows(2).all(|w| w[0] == w[1]), "{built:?}");
        assert_eq!(lists.built(), 1);
    }

    #[test]
    fn a_count_is_the_length_of_the_list_it_did_not_build() {
        let inventory = inventory();
        let lists = Lists::new(inventory.clone());
        let scopes: Vec<Scope> = inventory.scopes().cloned().collect();
        assert_eq!(scopes.len(), 3, "the deployment and two profiles");
        for scope in &scopes {
            let count = lists.count(scope);
            assert_eq!(lists.get(scope).len(), count, "{scope:?}");
        }
        // The calendar profile lists every Cal.com tool and no meta tool; the deployment lists
        // the core tools and the meta tools, since more are found with search_tools.
        let calendar = names(lists.get(&Scope::Profile("calendar".into())));
        assert!(
            calendar.iter().all(|n| n.starts_with("calcom_")),
            "{calendar:?}"
        );
        let deployment = names(lists.get(&Scope::Deployment));
        assert!(deployment.contains(&meta::SEARCH_TOOLS), "{deployment:?}");
        assert!(lists.get(&Scope::Profile("nobody".into())).is_empty());
    }
}
