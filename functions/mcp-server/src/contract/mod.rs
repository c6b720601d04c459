//! The tool contract as the platform reads it, pure and shared by every stage: argument
//! validation (`args`, and `json_schema` for a remote tool's own schema), the list shape a
//! catalog's paging gives and its opaque `cursor` (`cursor`), the input schema clients see
//! (`schema`), what the risk level asks (`risk`), bounded name handling with "did you mean"
//! (`names`), records as resources (`resource`) and prompts rendered from their templates
//! (`prompt`).
//!
//! Nothing here knows HTTP, MCP or the upstream; everything else may use it.

pub(crate) mod args;
pub(crate) mod cursor;
pub(crate) mod json_schema;
pub(crate) mod names;
pub(crate) mod prompt;
pub(crate) mod resource;
pub(crate) mod risk;
pub(crate) mod schema;
