//! Remote MCP servers' tools on our surface: listed beside the catalog tools (core ones, as the
//! caller's profile allows), found by `search_tools` (all of them) and by name for a call. Their
//! lists are fetched by the upstream when a request first needs them; a remote that cannot be
//! reached lists nothing and says so in the log, while the catalog tools answer as always.
//!
//! A remote with `auth: oauth_user` shows each person the list fetched with their own token
//! (`call::RemoteTools`); to a caller not connected yet it lists nothing, and a call of a name of
//! its connector answers what any of its tools would: `connection_required` with the person's
//! link (as a URL elicitation where the client declares one).
//!
//! Search runs over one index of the catalog tools and every fetched remote tool, rebuilt only
//! when a remote's list was fetched again (the lists are shared `Arc`s, so "again" is a pointer
//! comparison).

use std::sync::Arc;

use rmcp::model::Tool as McpTool;
use serde_json::{Value, json};

use super::definitions::annotations;
use super::server::Mcp;
use crate::call::{Caller, Outcome, RemoteTools};
use crate::contract::risk;
use crate::contract::schema::object;
use crate::inventory::{DeployedCatalog, Scope};
use crate::search;
use crate::upstream::remote::{RemoteSet, RemoteTool};

/// Where a tool name of a remote connector leads.
pub(super) enum Found<'a> {
    /// The tool, in the list that holds it.
    Tool(&'a DeployedCatalog, Arc<RemoteSet>),
    /// The caller must connect their account first: the call's answer.
    Connect(&'a DeployedCatalog, Box<Outcome>),
    /// The remote changed the tool since it was reviewed, or it was never pinned (`pins`):
    /// the call's answer.
    Withheld(&'a DeployedCatalog, Box<Outcome>),
}

/// The search index over catalog and remote tools, with the remote lists it was built from.
#[derive(Default)]
pub(super) struct RemoteSearch {
    built: std::sync::Mutex<Option<(Vec<usize>, Arc<search::Index>)>>,
}

impl Mcp {
    /// A remote's tools for this caller; `None` (logged) when there are none to show.
    async fn tools_for(&self, conn: &DeployedCatalog, caller: &Caller) -> Option<Arc<RemoteSet>> {
        match self.pipeline.remote_tools(conn, caller, false).await {
            RemoteTools::Tools(set) => Some(set),
            RemoteTools::Connect(_) => {
                tracing::debug!(connector = %conn.catalog.connector, "remote tools not listed: the caller has not connected");
                None
            }
            RemoteTools::Unavailable(e) => {
                tracing::warn!(connector = %conn.catalog.connector, error = %e, "remote MCP server unavailable: its tools are not listed");
                None
            }
        }
    }

    /// The core remote tools a caller's scope lists, after its catalog tools.
    pub(super) async fn remote_listed(&self, caller: &Caller) -> Vec<McpTool> {
        let scope = &caller.scope;
        let mut out = Vec::new();
        for conn in self.remote_connectors() {
            let Some(set) = self.tools_for(conn, caller).await else {
                continue;
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

    /// Whether the scope may call remote tools that are not listed (then the meta tools are).
    pub(super) async fn remote_has_hidden(&self, caller: &Caller) -> bool {
        let scope = &caller.scope;
        for conn in self.remote_connectors() {
            if let Some(set) = self.tools_for(conn, caller).await
                && set
                    .tools
                    .iter()
                    .any(|t| !t.tool.core && self.remote_allowed(scope, conn, &t.tool.name))
            {
                return true;
            }
        }
        false
    }

    /// The index `search_tools` runs over for this scope, with what the scope may see of it:
    /// the inventory's own when no remote is configured.
    pub(super) async fn search_index(
        &self,
        caller: &Caller,
    ) -> Option<(Arc<search::Index>, search::Visibility)> {
        let scope = &caller.scope;
        let remotes: Vec<&DeployedCatalog> = self.remote_connectors().collect();
        if remotes.is_empty() {
            return None;
        }
        let mut sets = Vec::with_capacity(remotes.len());
        for conn in remotes {
            if let Some(set) = self.tools_for(conn, caller).await {
                sets.push((conn, set));
            }
        }
        let key: Vec<usize> = sets.iter().map(|(_, s)| Arc::as_ptr(s) as usize).collect();
        let index = {
            let mut built = self
                .remote_search
                .built
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            match built.as_ref() {
                Some((k, index)) if *k == key => index.clone(),
                _ => {
                    let mut docs: Vec<search::Doc> = self
                        .inventory
                        .registry
                        .exposed()
                        .map(|(c, t)| search::Doc::from_tool(&c.catalog, t))
                        .collect();
                    for (conn, set) in &sets {
                        docs.extend(set.tools.iter().map(|t| doc(&conn.catalog.connector, t)));
                    }
                    let index = Arc::new(search::Index::build(docs));
                    *built = Some((key, index.clone()));
                    index
                }
            }
        };
        let view = self.inventory.view(scope);
        let visibility = index.visibility(&|name| {
            view.allows(name)
                || sets.iter().any(|(conn, set)| {
                    set.find(name).is_some() && self.remote_allowed(scope, conn, name)
                })
        });
        Some((index, visibility))
    }

    /// The remote connector and tool list that hold `name` for this caller; the list is
    /// fetched again once when it does not know the name (the remote may have added it). A
    /// caller who must connect first gets that answer for any name of the connector.
    pub(super) async fn find_remote(&self, caller: &Caller, name: &str) -> Option<Found<'_>> {
        let conn = self.inventory.registry.remote_of(name)?;
        if !self.remote_allowed(&caller.scope, conn, name) {
            return None;
        }
        for refresh in [false, true] {
            match self.pipeline.remote_tools(conn, caller, refresh).await {
                RemoteTools::Tools(set) if set.find(name).is_some() => {
                    return Some(Found::Tool(conn, set));
                }
                RemoteTools::Tools(set) if set.withheld.contains_key(name) => {
                    return Some(Found::Withheld(conn, Box::new(withheld(conn, name))));
                }
                RemoteTools::Tools(_) => {}
                RemoteTools::Connect(answer) => return Some(Found::Connect(conn, answer)),
                RemoteTools::Unavailable(_) => return None,
            }
        }
        None
    }

    /// A remote tool's definition as listed, from the list this instance already holds (no
    /// fetch, no wait): what rmcp checks `Mcp-Param-*` headers against (SEP-2243) before the
    /// request reaches the handler. Who may call it is the call's question, as for any name.
    pub(super) fn cached_remote_definition(&self, name: &str) -> Option<McpTool> {
        let conn = self.inventory.registry.remote_of(name)?;
        let set = self.pipeline.upstream().held_remote_tools(conn)?;
        set.find(name).map(definition)
    }

    pub(super) fn remote_connectors(&self) -> impl Iterator<Item = &DeployedCatalog> {
        self.inventory
            .registry
            .catalogs
            .iter()
            .filter(|c| c.catalog.mcp.is_some())
    }

    pub(super) fn remote_allowed(&self, scope: &Scope, conn: &DeployedCatalog, name: &str) -> bool {
        self.inventory
            .profiles
            .allows(scope.profile(), &conn.catalog.connector, name)
    }
}

/// The answer to a call of a withheld remote tool: it needs a new review before it is served.
fn withheld(conn: &DeployedCatalog, name: &str) -> Outcome {
    let title = crate::inventory::Registry::title(&conn.catalog);
    Outcome::failed(
        catalog::Status::Unavailable,
        crate::upstream::remote::REMOTE_TOOL_UNREVIEWED,
        format!(
            "{title} changed `{name}` since it was reviewed (its description, schema or \
             annotations), or it was never reviewed: it is withheld until an operator reviews \
             it again and updates its pin in the catalog. Retrying will not help; use another \
             tool or tell the person."
        ),
    )
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
        tool.description.trimmed(),
        object(Value::Object(schema)),
    )
    .with_annotations(annotations(tool))
}

/// A remote tool as a search document: our name and description, the remote's parameters.
fn doc(connector: &str, remote: &RemoteTool) -> search::Doc {
    let definition = definition(remote);
    search::Doc {
        name: remote.tool.name.to_string(),
        connector: connector.to_string(),
        description: remote.tool.description.to_string(),
        params: remote
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().take(64).cloned().collect())
            .unwrap_or_default(),
        schema: Value::Object((*definition.input_schema).clone()),
        writes: remote.tool.risk > catalog::Risk::Low,
    }
}
