//! Remote MCP servers as upstreams (connectors with `mcp:`): a small JSON-RPC client over
//! Streamable HTTP that speaks either protocol generation, and each remote's tool list as local
//! contracts, cached per instance for the catalog's `tools_ttl_s`. One concern per module:
//! `wire` (bodies, headers, reading JSON or SSE answers), `transport` (one POST, one exchange),
//! `session` (which generation a remote speaks; its whole tool list), `tools` (the list as local
//! contracts, bounded), `text` (a remote's words cut and marked as its own), `result` (a call's
//! answer as a reply or a typed error), `pins` (a remote tool served only as it was
//! reviewed), `questions` (a remote's questions to the person,
//! screened and shown as its own), `complete` (a remote prompt argument's completion,
//! bounded), `watch` (the stream that marks the list stale when the remote says it changed);
//! this module keeps the per-remote cache and runs a call.
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
//!
//! A remote with `auth: oauth_user` is spoken to as each person, with their own token: its tool
//! list, generation and session are kept per person ([`Credentials::Person`]'s `owner`), never
//! shared between people (a remote may show each person other tools, and one person's session
//! never carries another's calls), and no `list_changed` stream is kept open per person (a
//! `list_changed` on a call's answer and `tools_ttl_s` refresh it). Without a person nothing is
//! sent.

mod complete;
mod param_headers;
mod pins;
mod prompts;
mod questions;
mod result;
mod session;
mod text;
mod tools;
mod transport;
mod watch;
mod wire;

pub(crate) use complete::RemoteCompletion;
pub(crate) use pins::REMOTE_TOOL_UNREVIEWED;
#[cfg(test)]
pub(crate) use prompts::RemoteArgument;
pub(crate) use prompts::{MAX_PROMPTS, RemotePrompt, RemotePrompts};
pub(crate) use tools::{MAX_LISTED, MAX_TOOLS, RemoteSet, RemoteTool};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::credentials::Credentials;
use super::deadline::Deadline;
use super::error::UpstreamError;
use super::meter::Meter;
use super::request::BuildError;
use super::{Reply, Upstream};
use crate::contract::args::{RemoteRound, ValidArgs};
use crate::inventory::DeployedCatalog;
use crate::progress::Progress;
use crate::secrets::SecretValues;
use transport::Auth;
use wire::Generation;

/// The largest answer read from a remote (a tool list with its schemas, or a call's result).
pub(crate) const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// The most `tools/list` pages followed.
const MAX_LIST_PAGES: usize = 20;
/// The progress token we send a remote when our client watches a call: the remote's
/// notifications on that request's own stream are the call's, whatever the token.
const PROGRESS_TOKEN: &str = "hosted-mcp";
/// A name the cached list does not know refetches the list, at most this often.
const REFRESH_ON_MISS: Duration = Duration::from_secs(5);
/// The most caches kept per instance (one per remote, and one per person of an `oauth_user`
/// remote); beyond it the people's caches no request uses are dropped.
const MAX_SLOTS: usize = 4_096;

/// What a request to a remote is: its method, the tool or prompt it names (`Mcp-Name`; none
/// for a method that names nothing in that header, `completion/complete`), and the
/// `Mcp-Param-*` headers of a tool call.
struct Forwarded<'a> {
    method: &'a str,
    name: Option<&'a str>,
    param_headers: &'a [(String, String)],
}

/// A multi-round request's round into its params (2026-07-28): the remote may ask what our
/// client declared it can answer (a form, sampling, its roots) and nothing else; a retry carries
/// the remote's own state and the answers back to it.
fn with_round(params: &mut Value, round: &RemoteRound) {
    params["_meta"] = json!({"io.modelcontextprotocol/clientCapabilities": round.capabilities});
    if let Some(state) = &round.state {
        params["requestState"] = state.clone().into();
    }
    if let Some(responses) = &round.responses {
        params["inputResponses"] = responses.clone();
    }
}

/// A remote's questions as the person may see them (`questions`), or why they are refused;
/// any other error as it is.
fn screened(conn: &DeployedCatalog, e: UpstreamError) -> UpstreamError {
    match (e, &conn.catalog.mcp) {
        (UpstreamError::RemoteInputRequired(asked), Some(remote)) => {
            let title = crate::inventory::Registry::title(&conn.catalog);
            match questions::screen(&conn.catalog.connector, title, remote, *asked) {
                Ok(asked) => UpstreamError::RemoteInputRequired(Box::new(asked)),
                Err(refused) => refused,
            }
        }
        (e, _) => e,
    }
}

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
    /// Every connector of the deployment: a remote's tool may not take a name that belongs to
    /// another (`catalog::name_owner`). Empty (`default`): no other connector to keep apart.
    deployment: Vec<String>,
}

impl Remotes {
    /// The caches of a deployment of these connectors (all of them, REST ones too).
    pub fn new(deployment: Vec<String>) -> Remotes {
        Remotes {
            slots: Mutex::default(),
            deployment,
        }
    }

    /// The cache of a remote as the deployment (`owner` none) or as one person.
    fn slot(&self, connector: &str, owner: Option<&str>) -> Arc<Slot> {
        let key = match owner {
            None => connector.to_string(),
            Some(owner) => format!("{connector}\u{0}{owner}"),
        };
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if !slots.contains_key(&key) && slots.len() >= MAX_SLOTS {
            slots.retain(|k, slot| !k.contains('\u{0}') || Arc::strong_count(slot) > 1);
        }
        slots.entry(key).or_default().clone()
    }

    /// How many remotes have been contacted (a cold start contacts none).
    pub fn contacted(&self) -> usize {
        self.slots.lock().map_or(0, |s| s.len())
    }
}

/// Whose remote: the slot's owner and the token, checked against the connector's `auth`.
fn scoped<'a>(
    conn: &DeployedCatalog,
    credentials: Credentials<'a>,
) -> Result<(Option<&'a str>, Option<&'a crate::upstream::PersonToken>), UpstreamError> {
    match (credentials, conn.catalog.auth.oauth_user.is_some()) {
        (Credentials::Person { owner, token }, true) => Ok((Some(owner), Some(token))),
        (Credentials::Deployment, false) => Ok((None, None)),
        (Credentials::Deployment, true) => Err(UpstreamError::NotConfigured(BuildError {
            status: catalog::Status::ConnectionRequired,
            hint: "This remote acts with each person's own account; no person's token was given."
                .into(),
        })),
        // A person's token never goes to a remote that takes the deployment's credentials.
        (Credentials::Person { .. }, false) => Ok((None, None)),
    }
}

impl Upstream {
    /// The remote's tools as local contracts, fetched when not cached, stale, or `refresh`ed
    /// (a name the cache did not know, at most every few seconds). Warnings about skipped
    /// tools are logged once per fetch. An `oauth_user` remote's list is the person's
    /// (`credentials`), fetched with their token and kept for them alone.
    pub async fn remote_tools(
        &self,
        conn: &DeployedCatalog,
        credentials: Credentials<'_>,
        refresh: bool,
    ) -> Result<Arc<RemoteSet>, UpstreamError> {
        let Some(remote) = &conn.catalog.mcp else {
            return Ok(Arc::default());
        };
        let (owner, person) = scoped(conn, credentials)?;
        let slot = self.remotes.slot(&conn.catalog.connector, owner);
        let mut state = slot.state.lock().await;
        let ttl = Duration::from_secs(remote.tools_ttl_s);
        if let Some(f) = state.as_ref() {
            let age = f.at.elapsed();
            if age < ttl && !f.stale && !(refresh && age >= REFRESH_ON_MISS) {
                return Ok(f.tools.clone());
            }
        }
        let secrets = self.secrets_for_remote().await?;
        let auth = Auth {
            secrets: &secrets,
            person,
        };
        let (generation, completions) = match state.take() {
            Some(f) => (f.generation, f.tools.prompts.completions),
            None => {
                let c = self.contact(conn, &auth).await?;
                (c.generation, c.completions)
            }
        };
        let (generation, listed) = self
            .list_all(conn, &auth, generation, ("tools/list", "tools", MAX_TOOLS))
            .await?;
        let deployment = &self.remotes.deployment;
        let mut set = RemoteSet::build(&conn.catalog.connector, remote, &listed, deployment);
        let (generation, prompts) = self.list_prompts(conn, &auth, generation).await;
        set.prompts = RemotePrompts::build(
            &conn.catalog.connector,
            remote,
            &prompts,
            completions,
            deployment,
        );
        for warning in set.warnings.iter().chain(&set.prompts.warnings) {
            tracing::warn!(connector = %conn.catalog.connector, "remote tool list: {warning}");
        }
        tracing::info!(connector = %conn.catalog.connector, tools = set.tools.len(), prompts = set.prompts.prompts.len(), listed = listed.len(), "remote tools fetched");
        let tools = Arc::new(set);
        *state = Some(Fetched {
            at: Instant::now(),
            generation,
            tools: tools.clone(),
            stale: false,
        });
        drop(state);
        if owner.is_some() {
            // No stream is held open per person (see the module doc).
            return Ok(tools);
        }
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

    /// The remote's tools as this instance last fetched them for the deployment, without
    /// waiting or fetching: `None` when none are held or a fetch holds the cache this moment
    /// (and for an `oauth_user` remote, whose lists are each person's).
    pub fn held_remote_tools(&self, conn: &DeployedCatalog) -> Option<Arc<RemoteSet>> {
        let slot = {
            let slots = self.remotes.slots.lock().unwrap_or_else(|e| e.into_inner());
            slots.get(conn.catalog.connector.as_str()).cloned()
        }?;
        let state = slot.state.try_lock().ok()?;
        state.as_ref().map(|f| f.tools.clone())
    }

    /// `/health`'s probe of a remote: a first contact (`server/discover`, else `initialize`),
    /// which says whether it answers, speaks MCP and takes our credentials; its tool list is
    /// neither fetched nor touched.
    /// An `oauth_user` remote is probed without anyone's token (its 401 says it is up).
    pub async fn remote_probe(&self, conn: &DeployedCatalog) -> Result<(), UpstreamError> {
        let secrets = self.secrets_for_remote().await?;
        let auth = Auth {
            secrets: &secrets,
            person: None,
        };
        self.first_contact(conn, &auth).await.map(|_| ())
    }

    /// The person's cached tool list of an `oauth_user` remote when it is fresh: a call finds
    /// its tool without their token (the call's credentials stage reads it once).
    pub async fn cached_remote_tools(
        &self,
        conn: &DeployedCatalog,
        owner: &str,
    ) -> Option<Arc<RemoteSet>> {
        let remote = conn.catalog.mcp.as_ref()?;
        let slot = self.remotes.slot(&conn.catalog.connector, Some(owner));
        let state = slot.state.lock().await;
        let f = state.as_ref()?;
        (f.at.elapsed() < Duration::from_secs(remote.tools_ttl_s) && !f.stale)
            .then(|| f.tools.clone())
    }

    /// One `tools/call` of a remote tool with validated arguments, within the deadline and the
    /// meter's allowance, as the deployment or (an `oauth_user` remote) as the person; the
    /// answer as a [`Reply`] or a typed error.
    #[expect(
        clippy::too_many_arguments,
        reason = "fetch_reporting's arguments and the remote's name"
    )]
    pub(super) async fn remote_call(
        &self,
        conn: &DeployedCatalog,
        remote_name: &str,
        valid: &ValidArgs,
        deadline: &Deadline,
        meter: &Meter,
        credentials: Credentials<'_>,
        progress: &Progress,
    ) -> Result<Reply, UpstreamError> {
        let (owner, person) = scoped(conn, credentials)?;
        let secrets = self.secrets_for_remote().await?;
        let auth = &Auth {
            secrets: &secrets,
            person,
        };
        let slot = self.remotes.slot(&conn.catalog.connector, owner);
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
            None => self.first_contact(conn, auth).await?,
        };
        meter.turn(deadline).await?;
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
        if generation == Generation::Modern {
            with_round(&mut params, &valid.remote);
        }
        if progress.wanted() {
            // Our client watches: the remote's progress on this request's stream is passed on.
            params["_meta"]["progressToken"] = PROGRESS_TOKEN.into();
        }
        let params = params.as_object().cloned().unwrap_or_default();
        let exchanged = self
            .forward(
                conn,
                auth,
                &slot,
                generation,
                Forwarded {
                    method: "tools/call",
                    name: Some(remote_name),
                    param_headers: &param_headers,
                },
                params,
                deadline,
                progress,
            )
            .await?;
        result::call_result(&self.redactor, exchanged.answer).map_err(|e| screened(conn, e))
    }

    /// One `prompts/get` of a remote prompt with the caller's arguments, within the deadline:
    /// the remote's result as it came, or a typed error (its `input_required` too). On a
    /// 2026-07-28 remote the round goes as for a tool call: what our client can answer, and
    /// on a retry the remote's own state with the answers.
    pub async fn remote_prompt(
        &self,
        conn: &DeployedCatalog,
        remote_name: &str,
        arguments: &Map<String, Value>,
        round: &RemoteRound,
        deadline: &Deadline,
    ) -> Result<Map<String, Value>, UpstreamError> {
        let exchanged = self
            .deployment_request(
                conn,
                Forwarded {
                    method: "prompts/get",
                    name: Some(remote_name),
                    param_headers: &[],
                },
                |generation| {
                    let mut params = json!({"name": remote_name, "arguments": arguments});
                    if generation == Generation::Modern {
                        with_round(&mut params, round);
                    }
                    params.as_object().cloned().unwrap_or_default()
                },
                deadline,
            )
            .await?;
        result::prompt_result(&self.redactor, exchanged.answer).map_err(|e| screened(conn, e))
    }

    /// A request the deployment itself makes of its remote outside a tool call (a prompt, a
    /// completion), with the params built for the generation the remote speaks (learnt at
    /// first contact when not yet known). Prompts are the deployment's: an `oauth_user` remote
    /// lends none and is refused here.
    async fn deployment_request(
        &self,
        conn: &DeployedCatalog,
        sent: Forwarded<'_>,
        params: impl FnOnce(Generation) -> Map<String, Value>,
        deadline: &Deadline,
    ) -> Result<transport::Exchanged, UpstreamError> {
        let (owner, person) = scoped(conn, Credentials::Deployment)?;
        let secrets = self.secrets_for_remote().await?;
        let auth = &Auth {
            secrets: &secrets,
            person,
        };
        let slot = self.remotes.slot(&conn.catalog.connector, owner);
        let known = slot
            .state
            .lock()
            .await
            .as_ref()
            .map(|f| f.generation.clone());
        let generation = match known {
            Some(g) => g,
            None => self.first_contact(conn, auth).await?,
        };
        let params = params(generation.clone());
        self.forward(
            conn,
            auth,
            &slot,
            generation,
            sent,
            params,
            deadline,
            &crate::progress::NONE,
        )
        .await
    }

    /// The remote's prompts, every page; a remote without prompts (`-32601`) has none, and one
    /// that fails to list them is logged and lists none: its tools are served all the same.
    async fn list_prompts(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
        generation: Generation,
    ) -> (Generation, Vec<Value>) {
        let kept = generation.clone();
        match self
            .list_all(
                conn,
                auth,
                generation,
                ("prompts/list", "prompts", MAX_PROMPTS),
            )
            .await
        {
            Ok(listed) => listed,
            Err(UpstreamError::RemoteError { code: -32601, .. }) => (kept, Vec::new()),
            Err(e) => {
                tracing::warn!(connector = %conn.catalog.connector, error = %e, "remote prompt list unavailable: its prompts are not listed");
                (kept, Vec::new())
            }
        }
    }

    /// One request to the remote, renewing a session it forgot (HTTP 404) once; a remote that
    /// says its lists changed marks the cache stale (the generation and its watch are kept).
    #[allow(clippy::too_many_arguments)]
    async fn forward(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
        slot: &Slot,
        generation: Generation,
        sent: Forwarded<'_>,
        params: Map<String, Value>,
        deadline: &Deadline,
        progress: &Progress,
    ) -> Result<transport::Exchanged, UpstreamError> {
        let mut exchanged = self
            .exchange(
                conn,
                auth,
                &generation,
                sent.method,
                sent.name,
                sent.param_headers,
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
            let renewed = self.first_contact(conn, auth).await?;
            self.keep_generation(slot, renewed.clone()).await;
            exchanged = self
                .exchange(
                    conn,
                    auth,
                    &renewed,
                    sent.method,
                    sent.name,
                    sent.param_headers,
                    params,
                    deadline,
                    progress,
                )
                .await;
        }
        let exchanged = exchanged?;
        if exchanged.list_changed
            && let Some(f) = slot.state.lock().await.as_mut()
        {
            f.stale = true;
        }
        Ok(exchanged)
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
