//! One test binary for this crate: each module below was a binary of its own.

mod arguments;
mod cli;
mod common;
mod consent;
mod faults;
mod http;
#[cfg(feature = "import")]
mod import;
mod lambda;
mod limits;
mod paging;
mod prompts;
mod registration;
mod walks;
mod wire;
