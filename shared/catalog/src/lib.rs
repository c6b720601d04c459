//! Tool catalogs for hosted-mcp: the YAML contract format (one file per upstream API), loading
//! with errors that name file, line and problem, and the structural checks every runtime relies
//! on. The JSON Schema for editors is `catalog.schema.json` in this crate's folder.
//!
//! Try it: `cargo test -p catalog`.

mod answer;
mod body;
mod curation;
mod gather;
mod headers;
mod load;
mod message;
mod model;
mod names;
mod pack;
mod paging;
mod parts;
mod prompt;
mod quota;
mod remote;
mod request;
mod rules;
#[cfg(test)]
mod schema_sync;
mod select;
mod template;
mod wire;

pub use answer::{MAX_BINARY_BYTES, essence};
pub use body::{fill as fill_body, placeholder as body_placeholder};
pub use curation::{Pending, pending as pending_curation, tool_pending as tool_pending_curation};
pub use gather::gather;
pub use load::{LoadError, catalog_files, load_dir, load_dir_files, load_sources, parse};
pub use message::{MESSAGE as MESSAGE_KEY, compose as compose_message, encode_messages, encoded};
pub use model::*;
pub use names::{RESERVED_TOOL_NAMES, owner as name_owner, refusal as name_refusal};
pub use pack::{PackError, load_packed, pack};
pub use paging::{Ask, PageRead, Pager, link_next, pointer_of_dotted};
pub use parts::{base64url as decode_base64, decode_parts};
pub use quota::{MAX_BODY_FIGURE, QuotaFigures};
pub use remote::{glob_match, local_name};
pub use request::{Credential, CredentialError, fill_base_url, fill_secret_template};
pub use rules::{
    MAX_POLL_EVERY, MAX_PREFER_WAIT, MAX_SPEND_AMOUNT, MAX_SPEND_LIMIT, MAX_TOOL_NAME,
};
pub use template::placeholders;
pub use wire::MAX_SCOPES;

/// Marks the parts of a drafted tool description a person still has to write (the importer's
/// scaffold); the lint refuses a description that still contains it.
pub const SCAFFOLD_MARKER: &str = "CURATE:";

/// Parameter names the platform adds itself (list shape, confirmation); catalogs may not use them.
pub const RESERVED_PARAMS: &[&str] = &[
    "page",
    "page_size",
    "fields",
    "count_only",
    "cursor",
    "confirm",
    "dry_run",
    "idempotency_key",
    "confirmation_token",
];
