//! One test binary for this crate: each module below was a binary of its own.

mod common;
mod control;
mod demo_data;
mod http_api;
mod write_controls;
mod writes;
