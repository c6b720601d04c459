//! hosted-mcp's MCP server: MCP over Streamable HTTP (stateless, JSON replies) for protocol
//! generations 2025-11-25 and 2026-07-28, serving the tools declared in catalog files, on AWS
//! Lambda (API Gateway HTTP API) and locally.
//!
//! Run it locally with the shipped catalogs and no AWS account: `cargo run -p mcp-server -- serve`.
//! `app(state)` is the one router both modes use; tests drive it with `oneshot`.
//!
//! Modules, each depending only on the ones listed after it:
//!
//! - `commands`: the command line (`serve`, `lint`, `smoke`, Lambda mode), apart from the
//!   request path;
//! - `startup`: the composition root: builds the state (clients, stores, inventory, pipeline)
//!   once and hands it to the edge;
//! - `http`: the edge (router, auth, `/health`, JSON-RPC guard, state), the only place that
//!   knows axum;
//! - `connect`: `/connect/<connector>`, where a person connects their own upstream account
//!   (sign-in at our authorization server, then the upstream's, the grant into the vault);
//! - `mcp`: the rmcp adapter (handler, call context, meta tools, results, audit events), the
//!   only place that knows rmcp;
//! - `call`: one tool call as a pipeline of stage functions: validate → budget → dry run →
//!   consent → idempotency claim → upstream → shape → record → settle → cap;
//! - `upstream`: building, sending and classifying the upstream request;
//! - `inventory`: what the deployment serves and to whom (registry, profiles, per-profile views,
//!   config, secrets);
//! - `search`: the BM25 tool index behind `search_tools`;
//! - `limits`: rate limits and the daily cap, counted in fixed windows;
//! - `oauth`: the OAuth resource server (settings, signing keys, token check, discovery);
//! - `progress`: a long call's progress as plain data and the sink it reports into;
//! - `vault`: each person's own upstream tokens (in memory locally; DynamoDB sealed with KMS
//!   data keys on Lambda);
//! - `random`: random hex (keys, nonces, request ids);
//! - `contract`: the tool contract as the platform reads it (arguments, schema, risk, names).

pub mod call;
pub mod clock;
pub mod commands;
pub mod config;
pub mod connect;
pub mod contract;
pub mod http;
pub mod inventory;
pub mod limits;
pub mod mcp;
pub mod oauth;
pub mod probes;
pub mod progress;
pub mod random;
pub mod search;
pub mod secrets;
pub mod startup;
pub mod upstream;
pub mod vault;

pub use connector::EMBEDDED_CATALOGS;
pub use http::{AppState, app};
pub use startup::Stores;

/// The HTTP client for upstream calls (compiled-in roots, no redirects, timeouts).
pub fn http_client() -> reqwest::Client {
    connector::http_client(concat!("hosted-mcp/", env!("CARGO_PKG_VERSION")))
}
