//! What each scope sees, computed once at start: the core tools it lists, every tool it may
//! call, whether the meta tools are offered, and the prompts it may use (those whose every
//! named tool it may call); its search visibility on its first search, since the search index
//! itself is built only then. The visibility rule itself is [`Profiles::allows`]; this module
//! applies it, and nothing else does.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use super::registry::Registry;
use crate::config::profiles::{Profiles, Scope};
use crate::search;

#[derive(Debug)]
pub struct View {
    /// Core tools this scope lists, as `(connector, tool)` names in catalog order.
    pub listed: Vec<(String, String)>,
    /// Whether tools exist beyond the listed ones (then `search_tools` and `call_tool` are listed).
    pub has_hidden: bool,
    /// The search index's view of the callable tools, on first search: [`View::visibility`].
    visibility: OnceLock<search::Visibility>,
    /// Sorted, so a suggestion among equally close names is always the same one.
    callable: BTreeSet<catalog::Text>,
    /// Prompts whose every named tool this scope may call, in catalog order: a prompt that
    /// sends the model to a tool it cannot call would only fail.
    pub prompts: Vec<String>,
}

impl View {
    pub fn new(registry: &Registry, profiles: &Profiles, scope: &Scope) -> Self {
        let allowed: Vec<(&str, &catalog::Tool)> = registry
            .exposed()
            .filter(|(c, t)| profiles.allows(scope.profile(), &c.catalog.connector, &t.name))
            .map(|(c, t)| (c.catalog.connector.as_str(), t))
            .collect();
        let callable: BTreeSet<catalog::Text> =
            allowed.iter().map(|(_, t)| t.name.clone()).collect();
        let listed =
            |c: &str, t: &catalog::Tool| t.core || profiles.lists(scope.profile(), c, &t.name);
        View {
            listed: allowed
                .iter()
                .filter(|(c, t)| listed(c, t))
                .map(|(c, t)| (c.to_string(), t.name.to_string()))
                .collect(),
            has_hidden: allowed.iter().any(|(c, t)| !listed(c, t)),
            visibility: OnceLock::new(),
            prompts: registry
                .prompts()
                .filter(|(_, p)| p.tools.iter().all(|t| callable.contains(t.as_str())))
                .map(|(_, p)| p.name.to_string())
                .collect(),
            callable,
        }
    }

    /// A view of nothing.
    pub fn empty() -> Self {
        View {
            listed: Vec::new(),
            has_hidden: false,
            visibility: OnceLock::new(),
            callable: BTreeSet::new(),
            prompts: Vec::new(),
        }
    }

    /// The tools of `index` this scope may find, worked out once, on the first call. `index`
    /// is always the inventory's own ([`super::Inventory::visibility`]); a view of nothing
    /// finds nothing in any index.
    pub(super) fn visibility(&self, index: &search::Index) -> &search::Visibility {
        self.visibility
            .get_or_init(|| index.visibility(&|name| self.callable.contains(name)))
    }

    /// The tool of this scope closest to a mistyped name: never one the scope cannot call.
    pub fn suggest(&self, name: &str) -> Option<&str> {
        crate::contract::names::closest(name, self.callable.iter().map(catalog::Text::as_str))
    }

    /// Whether this scope may use the prompt.
    pub fn allows_prompt(&self, prompt: &str) -> bool {
        self.prompts.iter().any(|p| p == prompt)
    }

    /// Whether this scope may call the (exposed) tool.
    pub fn allows(&self, tool: &str) -> bool {
        self.callable.contains(tool)
    }
}
