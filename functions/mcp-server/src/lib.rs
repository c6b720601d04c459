//! hosted-mcp's MCP server: MCP over Streamable HTTP (stateless, JSON replies) for protocol
//! generations 2025-11-25 and 2026-07-28, serving the tools declared in catalog files, on AWS
//! Lambda (API Gateway HTTP API) and locally.
//!
//! Run it locally with the shipped catalogs and no AWS account: `cargo run -p mcp-server -- serve`.
//! `app(state)` is the one router both modes use; tests drive it with `oneshot`.
//!
//! Modules, each depending only on the ones listed after it:
//!
//! - `commands`: the command line (`serve`, `lint`, `pages`, `smoke`, Lambda mode), apart from the
//!   request path;
//! - `startup`: the composition root: builds the state (clients, stores, inventory, pipeline)
//!   once and hands it to the edge;
//! - `http`: the edge (router, auth, `/health`, JSON-RPC guard, state), the only place that
//!   knows axum;
//! - `pages`: each connector's capability page from its catalog (the Markdown committed beside
//!   the catalog, and the HTML of `/connectors`);
//! - `connect`: `/connect/<connector>`, where a person connects their own upstream account
//!   (sign-in at our authorization server, then the upstream's, the grant into the vault);
//! - `mcp`: the rmcp adapter (handler, call context, meta tools, results, audit events), the
//!   only place that knows rmcp;
//! - `call`: one tool call as a pipeline of stage functions: validate → budget → dry run →
//!   consent → idempotency claim → upstream → shape → record → settle → cap;
//! - `upstream`: building, sending and classifying the upstream request; `upstream::remote`,
//!   our client of remote MCP servers;
//! - `inventory`: what the deployment serves and to whom (registry, per-profile views);
//! - `secrets`: the deployment secret, cached and re-read on rotation;
//! - `config`: every variable, parsed once (and the profiles);
//! - `search`: the BM25 tool index behind `search_tools`;
//! - `probes`: the `/health` probe claims shared through the limits table;
//! - `limits`: rate limits and the daily cap, counted in fixed windows;
//! - `oauth`: the OAuth resource server (settings, signing keys, token check, discovery);
//! - `progress`: a long call's progress as plain data and the sink it reports into;
//! - `tasks`: MCP tasks over upstream jobs, bound to their callers (in memory locally; one
//!   DynamoDB item each in the ledger's table on Lambda);
//! - `inbound`: the webhooks upstreams push to `/inbound/<connector>` (signature and handshake
//!   checks, the events in a body, their store) and the reads of a conversation;
//! - `vault`: each person's own upstream tokens (in memory locally; DynamoDB sealed with KMS
//!   data keys on Lambda);
//! - `telemetry`: OpenTelemetry traces (the exporter, the trace context at our edges), on
//!   when `MCP_OTLP_ENDPOINT` is set;
//! - `random`, `clock`: random hex (keys, nonces, request ids); the wall clock;
//! - `contract`: the tool contract as the platform reads it (arguments, schema, risk, names).
//!
//! Every module is private to the crate. What the binary, the tests and the benchmarks use is
//! re-exported below by name, and nothing else is public.

mod browser;
mod call;
mod clock;
mod commands;
mod config;
mod connect;
mod contract;
mod http;
mod inbound;
mod inventory;
mod issuer;
mod limits;
mod mcp;
mod oauth;
mod pages;
mod probes;
mod progress;
mod random;
mod search;
mod secrets;
mod startup;
mod tasks;
mod telemetry;
mod upstream;
mod vault;

pub use call::{Binding, Ledger, Signer, TableLedger};
pub use clock::now_s;
pub use commands::{Cli, run};
pub use config::{Config, EnvSnapshot, unknown_variables};
pub use connector::EMBEDDED_CATALOGS;
pub use http::{AppState, app};
pub use inbound::{InboundError, InboundRecord, InboundSlot, InboundStore, sign as sign_webhook};
pub use inventory::drafts::{DRAFT_MARK, Drafts};
pub use limits::{Cost, Limits, Thresholds};
pub use mcp::{Mcp, output_schema};
pub use oauth::{Settings, Verifier};
pub use search::{Detail, Doc, Index, MAX_ANSWER_BYTES, SearchAnswer, SearchRequest};
pub use secrets::{ApiKey, SecretLoader, SecretStore, SecretValues};
pub use startup::{Stores, load_served};
pub use tasks::{TableTasks, TaskStore};
pub use telemetry::{TelemetryError, Traces};
pub use vault::{
    EntryKey, Grant, KmsKeys, PARTITION_KEY, Person, SORT_KEY, TableVault, VaultError, VaultStore,
};

/// The HTTP client for upstream calls (compiled-in roots, no redirects, timeouts).
pub fn http_client() -> reqwest::Client {
    connector::http_client(concat!("hosted-mcp/", env!("CARGO_PKG_VERSION")))
}

/// Logs on stderr through `redactor` (stdout carries only the audit lines), and beside them the
/// traces' exporter when `MCP_OTLP_ENDPOINT` is set. Once, in `main`, within the Tokio runtime.
pub fn init_tracing(config: &Config, redactor: &audit::Redactor) -> Result<(), TelemetryError> {
    let spans = telemetry::layer(config.traces.as_ref())?;
    audit::init_tracing_with(
        config.json_logs,
        "info,rmcp=warn",
        Some(redactor.clone()),
        spans,
    );
    Ok(())
}
