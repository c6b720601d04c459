//! Remote MCP servers as upstreams (connectors with `mcp:`): a small JSON-RPC client over
//! Streamable HTTP that speaks either protocol generation, and each remote's tool list as local
//! contracts, cached per instance for the catalog's `tools_ttl_s`. One concern per module:
//! `wire` (bodies, headers, reading JSON or SSE answers), `transport` (one POST, one exchange),
//! `session` (which generation a remote speaks; its whole tool list), `tools` (the list as local
//! contracts, bounded), `result` (a call's answer as a reply or a typed error), `watch` (the
//! stream that marks the list stale when the remote says it changed); this module keeps the
//! per-remote cache and runs a call.
//!
//! Why not rmcp's client: enabling it adds no crate to the native build (the server already pulls
//! in its SSE stack), but it runs a long-lived session task per peer with its own handshake,
//! which a Lambda instance answering one request at a time does not need, and it hides what
//! this module must bound: each answer read to a cap, each request's time cut to the call's
//! deadline, an SSE stream read only until the response is in it. A stateless POST per request
//! over the `reqwest` client the REST upstreams already use keeps those in our hands. Lazy:
//! nothing is fetched at start, only when a request needs the tools.
//!
//! Which generation a remote speaks is learnt on first contact: `server/discover` (2026-07-28);
//! when the remote refuses it, the `initialize` handshake (2025-11-25), whose session is kept
//! with the tool list and renewed when the remote forgets it (HTTP 404).

mod param_headers;
mod result;
mod session;
mod tools;
mod transport;
mod watch;
mod wire;

pub use tools::{MAX_LISTED, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, MAX_TOOLS, RemoteSet, RemoteTool};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::deadline::Deadline;
use super::error::UpstreamError;
use super::meter::Meter;
use super::{Reply, Upstream};
use crate::contract::args::ValidArgs;
use crate::inventory::DeployedCatalog;
use crate::inventory::secrets::SecretValues;
use crate::progress::Progress;
use wire::Generation;

/// The largest answer read from a remote (a tool list with its schemas, or a call's result).
pub const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// The most `tools/list` pages followed.
const MAX_LIST_PAGES: usize = 20;
/// The progress token we send a remote when our client watches a call: the remote's
/// notifications on that request's own stream are the call's, whatever the token.
const PROGRESS_TOKEN: &str = "hosted-mcp";
/// A name the cached list does not know refetches the list, at most this often.
const REFRESH_ON_MISS: Duration = Duration::from_secs(5);

/// What one remote gave: its tools, when, and how it is spoken to.
struct Fetched {
    at: Instant,
    generation: Generation,
    tools: Arc<RemoteSet>,
    /// The remote said its list changed since (`watch`): fetched again on next need.
    stale: bool,
}

/// One remote's cache; its async lock makes concurrent first requests fetch once.
#[derive(Default)]
struct Slot {
    state: tokio::sync::Mutex<Option<Fetched>>,
    /// A watch stream runs for this remote.
    watching: std::sync::atomic::AtomicBool,
}

/// Every remote's cache, by connector; empty until a request needs a remote.
#[derive(Default)]
pub struct Remotes {
    slots: Mutex<HashMap<String, Arc<Slot>>>,
}

impl Remotes {
    fn slot(&self, connector: &str) -> Arc<Slot> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.entry(connector.to_string()).or_default().clone()
    }

    /// How many remotes have been contacted (a cold start contacts none).
    pub fn contacted(&self) -> usize {
        self.slots.lock().map_or(0, |s| s.len())
    }
}

impl Upstream {
    /// The remote's tools as local contracts, fetched when not cached, stale, or `refresh`ed
    /// (a name the cache did not know, at most every few seconds). Warnings about skipped
    /// tools are logged once per fetch.
    pub async fn remote_tools(
        &self,
        conn: &DeployedCatalog,
        refresh: bool,
    ) -> Result<Arc<RemoteSet>, UpstreamError> {
        let Some(remote) = &conn.catalog.mcp else {
            return Ok(Arc::default());
        };
        let slot = self.remotes.slot(&conn.catalog.connector);
        let mut state = slot.state.lock().await;
        let ttl = Duration::from_secs(remote.tools_ttl_s);
        if let Some(f) = state.as_ref() {
            let age = f.at.elapsed();
            if age < ttl && !f.stale && !(refresh && age >= REFRESH_ON_MISS) {
                return Ok(f.tools.clone());
            }
        }
        let secrets = self.secrets_for_remote().await?;
        let generation = match state.take() {
            Some(f) => f.generation,
            None => self.first_contact(conn, &secrets).await?,
        };
        let (generation, listed) = self.list_all(conn, &secrets, generation).await?;
        let set = RemoteSet::build(&conn.catalog.connector, remote, &listed);
        for warning in &set.warnings {
            tracing::warn!(connector = %conn.catalog.connector, "remote tool list: {warning}");
        }
        tracing::info!(connector = %conn.catalog.connector, tools = set.tools.len(), listed = listed.len(), "remote tools fetched");
        let tools = Arc::new(set);
        *state = Some(Fetched {
            at: Instant::now(),
            generation,
            tools: tools.clone(),
            stale: false,
        });
        drop(state);
        watch::Watch {
            http: self.http.clone(),
            secrets: self.secrets.clone(),
            conn: DeployedCatalog {
                catalog: conn.catalog.clone(),
                base_url: conn.base_url.clone(),
                expose_raw: conn.expose_raw,
            },
            slot,
        }
        .start();
        Ok(tools)
    }

    /// The remote's tools as this instance last fetched them, without waiting or fetching:
    /// `None` when none are held or a fetch holds the cache this moment.
    pub fn cached_remote_tools(&self, conn: &DeployedCatalog) -> Option<Arc<RemoteSet>> {
        let slot = {
            let slots = self.remotes.slots.lock().unwrap_or_else(|e| e.into_inner());
            slots.get(&conn.catalog.connector).cloned()
        }?;
        let state = slot.state.try_lock().ok()?;
        state.as_ref().map(|f| f.tools.clone())
    }

    /// `/health`'s probe of a remote: a first contact (`server/discover`, else `initialize`),
    /// which says whether it answers, speaks MCP and takes our credentials; its tool list is
    /// neither fetched nor touched.
    pub async fn remote_probe(&self, conn: &DeployedCatalog) -> Result<(), UpstreamError> {
        let secrets = self.secrets_for_remote().await?;
        self.first_contact(conn, &secrets).await.map(|_| ())
    }

    /// One `tools/call` of a remote tool with validated arguments, within the deadline and the
    /// meter's allowance; the answer as a [`Reply`] or a typed error.
    pub(super) async fn remote_call(
        &self,
        conn: &DeployedCatalog,
        remote_name: &str,
        valid: &ValidArgs,
        deadline: &Deadline,
        meter: &Meter,
        progress: &Progress,
    ) -> Result<Reply, UpstreamError> {
        let secrets = self.secrets_for_remote().await?;
        let slot = self.remotes.slot(&conn.catalog.connector);
        let (generation, schema) = {
            let state = slot.state.lock().await;
            let schema = state.as_ref().and_then(|f| {
                f.tools
                    .tools
                    .iter()
                    .find(|t| t.remote_name == remote_name)
                    .map(|t| t.input_schema.clone())
            });
            (state.as_ref().map(|f| f.generation.clone()), schema)
        };
        let generation = match generation {
            Some(g) => g,
            None => self.first_contact(conn, &secrets).await?,
        };
        meter.take()?;
        let arguments: Map<String, Value> = valid
            .values
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // Arguments the remote's schema marks `x-mcp-header` travel as headers too (SEP-2243).
        let param_headers = match (&generation, &schema) {
            (Generation::Modern, Some(schema)) => param_headers::of(schema, &arguments),
            _ => Vec::new(),
        };
        let mut params = json!({"name": remote_name, "arguments": arguments});
        let round = &valid.remote;
        if generation == Generation::Modern {
            // The remote may ask what our client declared it can answer (a form, sampling, its
            // roots) and nothing else; a retry carries the remote's own state and the answers
            // back to it.
            params["_meta"] =
                json!({"io.modelcontextprotocol/clientCapabilities": round.capabilities});
            if let Some(state) = &round.state {
                params["requestState"] = state.clone().into();
            }
            if let Some(responses) = &round.responses {
                params["inputResponses"] = responses.clone();
            }
        }
        if progress.wanted() {
            // Our client watches: the remote's progress on this request's stream is passed on.
            params["_meta"]["progressToken"] = PROGRESS_TOKEN.into();
        }
        let params = params.as_object().cloned().unwrap_or_default();
        let mut exchanged = self
            .exchange(
                conn,
                &secrets,
                &generation,
                "tools/call",
                Some(remote_name),
                &param_headers,
                params.clone(),
                deadline,
                progress,
            )
            .await;
        if let (Err(UpstreamError::Refused(r)), Generation::Handshake { .. }) =
            (&exchanged, &generation)
            && r.http_status == 404
        {
            // The remote forgot the session: a new handshake, then the call once more.
            let renewed = self.first_contact(conn, &secrets).await?;
            self.keep_generation(&slot, renewed.clone()).await;
            exchanged = self
                .exchange(
                    conn,
                    &secrets,
                    &renewed,
                    "tools/call",
                    Some(remote_name),
                    &param_headers,
                    params,
                    deadline,
                    progress,
                )
                .await;
        }
        let exchanged = exchanged?;
        if exchanged.list_changed {
            // The next request that needs the tools fetches them again (the generation and
            // its session are kept, and so is the watch).
            if let Some(f) = slot.state.lock().await.as_mut() {
                f.stale = true;
            }
        }
        result::call_result(&self.redactor, exchanged.answer)
    }

    async fn keep_generation(&self, slot: &Slot, generation: Generation) {
        if let Some(f) = slot.state.lock().await.as_mut() {
            f.generation = generation;
        }
    }

    async fn secrets_for_remote(&self) -> Result<Arc<SecretValues>, UpstreamError> {
        self.secrets.get().await.map_err(|e| {
            tracing::error!(error = %e, "secret unavailable for a remote MCP server");
            UpstreamError::SecretUnavailable
        })
    }
}
