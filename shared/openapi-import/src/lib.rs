//! Drafts a hosted-mcp tool catalog from an OpenAPI 3.0/3.1 document (JSON or YAML), with a
//! report of what a person has to decide: one candidate tool per operation, named
//! `<resource>_<verb>`, typed and bounded params, risk, paging, errors and auth as proposals
//! (`curate` entries the lint refuses), a description scaffold, and a selection of at most 30
//! core tools. A re-import compares a curated catalog with the current document instead of
//! overwriting it. Pure: text in, a [`catalog::Catalog`] and a [`Report`] out; apart from
//! [`read_document`] and [`write_whole`], the careful file reading and writing the command
//! uses.
//!
//! Try it: `cargo test -p openapi-import`, or `mcp-server import openapi SPEC --connector NAME`.

mod assemble;
mod auth;
mod chunks;
mod describe;
mod draft;
mod error;
mod files;
mod flow_depth;
mod habits;
mod naming;
mod params;
mod propose;
mod reimport;
mod report;
mod risk;
mod schema;
mod select;
mod spec;
mod yaml_out;

pub use error::ImportError;
pub use files::{FileError, read_document, write_whole};
pub use naming::MAX_EXPOSED_NAME;
pub use reimport::{Changes, reimport};
pub use report::{Counts, OperationReport, Report};
pub use select::Selection;

/// Most core tools a draft proposes (the lint's `listed_tools` budget).
pub const MAX_CORE: usize = 30;

/// Which operations to import: all, or a slice of a large document.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Slice {
    /// Every operation.
    #[default]
    All,
    /// Operations carrying any of these tags (case-insensitive).
    Tags(Vec<String>),
    /// Operations whose path starts with any of these prefixes (Graph's mail, calendar and
    /// drive: `/users/{user-id}/messages`, `/users/{user-id}/calendar`, …).
    PathPrefixes(Vec<String>),
}

impl Slice {
    /// Whether a path item at `path` may hold an operation of the slice: a path slice reads
    /// only its paths (the others are never parsed), a tag slice must read every one.
    pub fn may_hold(&self, path: &str) -> bool {
        match self {
            Slice::All | Slice::Tags(_) => true,
            Slice::PathPrefixes(prefixes) => prefixes.iter().any(|p| path.starts_with(p.as_str())),
        }
    }
}

/// Bounds on the work and memory of one import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The largest document read, bytes; a larger one is refused before parsing.
    pub max_bytes: usize,
    /// The longest `$ref` chain and `allOf` nesting followed.
    pub max_ref_hops: usize,
    /// Schema nodes visited per operation before the import stops with an error.
    pub max_schema_steps: usize,
    /// The deepest nesting of YAML flow collections (`[…]`, `{…}`): the YAML parser's work
    /// grows with size times this depth, so deeper is refused before parsing.
    pub max_flow_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 64 * 1024 * 1024,
            max_ref_hops: 32,
            max_schema_steps: 20_000,
            max_flow_depth: 64,
        }
    }
}

/// What to import and how much.
#[derive(Debug, Clone)]
pub struct Options {
    /// The connector name (snake_case); tools are exposed as `<connector>_<name>`.
    pub connector: String,
    /// Which operations.
    pub slice: Slice,
    /// Work and memory bounds.
    pub limits: Limits,
    /// Most tools in the draft (core and searchable); the rest are left out with a reason.
    pub max_tools: usize,
}

impl Options {
    /// Defaults for a connector: everything, default limits, at most 250 tools.
    pub fn new(connector: &str) -> Self {
        Options {
            connector: connector.to_string(),
            slice: Slice::All,
            limits: Limits::default(),
            max_tools: 250,
        }
    }
}

/// A drafted catalog and its report.
#[derive(Debug, Clone)]
pub struct Draft {
    /// The draft; it loads (`catalog::parse`) and the lint refuses it until curated.
    pub catalog: catalog::Catalog,
    /// What was proposed and why.
    pub report: Report,
}

impl Draft {
    /// The draft as catalog YAML with a header saying it is a draft.
    pub fn to_yaml(&self) -> Result<String, ImportError> {
        yaml_out::to_yaml(&self.catalog)
    }
}

/// Imports `text` (an OpenAPI 3.0/3.1 document) as a draft catalog.
pub fn import(text: &str, options: &Options) -> Result<Draft, ImportError> {
    assemble::import(text, options)
}
