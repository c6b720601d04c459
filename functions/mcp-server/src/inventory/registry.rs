//! Which tools exist for this deployment: every catalog with its deployment settings, every
//! tool indexed by name, and the rule of which tools are exposed at all.

use std::collections::HashMap;

use catalog::{Catalog, Risk, Tool};
use rustc_hash::FxBuildHasher;

/// A connector's catalog as this deployment serves it: with its base URL and whether its raw
/// tools are exposed.
#[derive(Debug)]
pub struct DeployedCatalog {
    pub catalog: Catalog,
    /// The catalog's base URL or its `<CONNECTOR>_BASE_URL` override.
    pub base_url: String,
    pub expose_raw: bool,
}

impl DeployedCatalog {
    /// Where a tool's path goes: the tool's own `base_url` (an API on another host of the
    /// same vendor), else the deployment's.
    pub fn base_of<'a>(&'a self, tool: &'a Tool) -> &'a str {
        tool.base_url.as_deref().unwrap_or(&self.base_url)
    }
}

/// Every tool of every connector, indexed by name.
#[derive(Debug)]
pub struct Registry {
    pub catalogs: Vec<DeployedCatalog>,
    /// FxHash: the keys are the catalogs' own names, fixed at start (a caller only looks up,
    /// which no crafted name slows down).
    index: HashMap<catalog::Text, (usize, usize), FxBuildHasher>,
}

impl Registry {
    pub fn new(catalogs: Vec<DeployedCatalog>) -> Self {
        let tools = catalogs.iter().map(|c| c.catalog.tools.len()).sum();
        let mut index = HashMap::with_capacity_and_hasher(tools, FxBuildHasher);
        for (c, conn) in catalogs.iter().enumerate() {
            for (t, tool) in conn.catalog.tools.iter().enumerate() {
                index.insert(tool.name.clone(), (c, t));
            }
        }
        Registry { catalogs, index }
    }

    /// Whether a tool may be listed and called in this deployment.
    pub fn is_exposed(conn: &DeployedCatalog, tool: &Tool) -> bool {
        tool.risk != Risk::Forbidden && (!tool.raw || conn.expose_raw)
    }

    /// Tools a client may see and call, in catalog order.
    pub fn exposed(&self) -> impl Iterator<Item = (&DeployedCatalog, &Tool)> {
        self.catalogs.iter().flat_map(|c| {
            c.catalog
                .tools
                .iter()
                .filter(move |t| Self::is_exposed(c, t))
                .map(move |t| (c, t))
        })
    }

    /// A callable tool by name; hidden and forbidden tools are not found.
    pub fn find(&self, name: &str) -> Option<(&DeployedCatalog, &Tool)> {
        let (c, t) = *self.index.get(name)?;
        let conn = &self.catalogs[c];
        let tool = &conn.catalog.tools[t];
        Self::is_exposed(conn, tool).then_some((conn, tool))
    }

    /// The remote MCP connector (`mcp:` catalog) a tool name belongs to: the connector whose
    /// name, then `_`, begins it, the longest such ([`catalog::name_owner`]), when that one is
    /// a remote. Whether the remote lists a tool of that name is not known here.
    pub fn remote_of(&self, name: &str) -> Option<&DeployedCatalog> {
        let owner = catalog::name_owner(self.connectors(), name)?;
        self.catalogs
            .iter()
            .find(|c| c.catalog.connector == owner && c.catalog.mcp.is_some())
    }

    /// Every connector's name.
    pub fn connectors(&self) -> impl Iterator<Item = &str> {
        self.catalogs.iter().map(|c| c.catalog.connector.as_str())
    }

    /// A prompt by name, with its catalog; whether a scope may see it is the view's question.
    pub fn prompt(&self, name: &str) -> Option<(&DeployedCatalog, &catalog::Prompt)> {
        self.catalogs.iter().find_map(|c| {
            c.catalog
                .prompts
                .iter()
                .find(|p| p.name == name)
                .map(|p| (c, p))
        })
    }

    /// Every prompt, in catalog order.
    pub fn prompts(&self) -> impl Iterator<Item = (&DeployedCatalog, &catalog::Prompt)> {
        self.catalogs
            .iter()
            .flat_map(|c| c.catalog.prompts.iter().map(move |p| (c, p)))
    }

    /// The connector's display name (its title, else its name).
    pub fn title(catalog: &Catalog) -> &str {
        catalog.title.as_deref().unwrap_or(&catalog.connector)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(connector: &str) -> DeployedCatalog {
        let text =
            format!("connector: {connector}\nmcp:\n  url: https://x.test/mcp\n  allow: [\"*\"]\n");
        DeployedCatalog {
            catalog: catalog::parse("r.yaml", &text).unwrap(),
            base_url: String::new(),
            expose_raw: false,
        }
    }

    #[test]
    fn a_name_goes_to_the_remote_with_the_longest_prefix_whatever_the_order() {
        for order in [["evil", "evil_b"], ["evil_b", "evil"]] {
            let registry = Registry::new(order.iter().map(|c| remote(c)).collect());
            let of = |name: &str| {
                registry
                    .remote_of(name)
                    .map(|c| c.catalog.connector.as_str())
            };
            assert_eq!(of("evil_b_note_get"), Some("evil_b"));
            assert_eq!(of("evil_note_get"), Some("evil"));
            assert_eq!(of("evil_bnote_get"), Some("evil"));
            assert_eq!(of("evilnote"), None);
        }
    }
}
