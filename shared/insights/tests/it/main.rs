//! One test binary for this crate: each module below was a binary of its own.

mod end_to_end;
