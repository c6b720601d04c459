//! The catalog file format: one YAML file per upstream API, every tool a contract. One module
//! per concern; everything is re-exported here, so `catalog::Tool` and `crate::model::Tool` name
//! the same type.
//!
//! `catalog.schema.json` beside this crate describes the same format for editors; a test keeps
//! the two in step.

mod connection;
mod inbound;
mod job;
mod kinds;
mod paging;
mod param;
mod price;
mod prompt;
mod quota;
mod spend;
mod text;
mod tool;
mod top;

pub use connection::*;
pub use inbound::*;
pub use job::*;
pub use kinds::*;
pub use paging::*;
pub use param::*;
pub use price::*;
pub use prompt::*;
pub use quota::*;
pub use spend::*;
pub use text::Text;
pub(crate) use text::{packing, unpacking};
pub use tool::*;
pub use top::*;
