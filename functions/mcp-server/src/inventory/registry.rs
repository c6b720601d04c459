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

    /// The remote MCP connector (`mcp:` catalog) a tool name belongs to: the one whose name,
    /// then `_`, begins it. Whether the remote lists a tool of that name is not known here.
    pub fn remote_of(&self, name: &str) -> Option<&DeployedCatalog> {
        self.catalogs.iter().find(|c| {
            c.catalog.mcp.is_some()
                && name
                    .strip_prefix(c.catalog.connector.as_str())
                    .is_some_and(|rest| rest.starts_with('_'))
        })
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
