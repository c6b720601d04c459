//! Remote MCP servers as upstreams (connectors with `mcp:`): a small JSON-RPC client over
//! Streamable HTTP (`wire`) that speaks either protocol generation, and each remote's tool list
//! as local contracts (`tools`), cached per instance for the catalog's `tools_ttl_s`.
//!
//! Why not rmcp's client: it runs a long-lived session task per peer, which a Lambda instance
//! that answers one request at a time does not need, and it adds the SSE client stack to the
//! zip; a stateless POST per request over the `reqwest` client the REST upstreams already use
//! costs nothing more. Lazy: nothing is fetched at start, only when a request needs the tools.
//!
//! Which generation a remote speaks is learnt on first contact: `server/discover` (2026-07-28);
//! when the remote refuses it, the `initialize` handshake (2025-11-25), whose session is kept
//! with the tool list and renewed when the remote forgets it (HTTP 404).

mod tools;
mod wire;

pub use tools::{MAX_LISTED, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, MAX_TOOLS, RemoteSet, RemoteTool};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use catalog::Catalog;
use serde_json::{Map, Value, json};

use super::deadline::Deadline;
use super::error::{Refusal, UpstreamError};
use super::meter::Meter;
use super::request::{credential_error, fill_base};
use super::{Reply, Upstream};
use crate::contract::args::ValidArgs;
use crate::inventory::DeployedCatalog;
use crate::inventory::secrets::SecretValues;
use wire::{Answer, Generation};

/// The largest answer read from a remote (a tool list with its schemas, or a call's result).
pub const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// The most `tools/list` pages followed.
const MAX_LIST_PAGES: usize = 20;
/// A name the cached list does not know refetches the list, at most this often.
const REFRESH_ON_MISS: Duration = Duration::from_secs(5);

/// What one remote gave: its tools, when, and how it is spoken to.
struct Fetched {
    at: Instant,
    generation: Generation,
    tools: Arc<RemoteSet>,
}

/// One remote's cache; its async lock makes concurrent first requests fetch once.
#[derive(Default)]
struct Slot {
    state: tokio::sync::Mutex<Option<Fetched>>,
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

/// One JSON-RPC exchange's outcome: the answer, the session the remote named, and whether
/// the remote said its tool list changed on the way.
struct Exchanged {
    answer: Answer,
    session: Option<String>,
    list_changed: bool,
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
            if age < ttl && !(refresh && age >= REFRESH_ON_MISS) {
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
        });
        Ok(tools)
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
    ) -> Result<Reply, UpstreamError> {
        let secrets = self.secrets_for_remote().await?;
        let slot = self.remotes.slot(&conn.catalog.connector);
        let generation = {
            let state = slot.state.lock().await;
            state.as_ref().map(|f| f.generation.clone())
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
        let mut params = json!({"name": remote_name, "arguments": arguments});
        let round = &valid.remote;
        if generation == Generation::Modern {
            // Only a client that can show a form lets the remote ask for input; a retry carries
            // the remote's own state and the answers back to it.
            let capabilities = if round.can_elicit {
                json!({"elicitation": {"form": {}}})
            } else {
                json!({})
            };
            params["_meta"] = json!({"io.modelcontextprotocol/clientCapabilities": capabilities});
            if let Some(state) = &round.state {
                params["requestState"] = state.clone().into();
            }
            if let Some(responses) = &round.responses {
                params["inputResponses"] = responses.clone();
            }
        }
        let params = params.as_object().cloned().unwrap_or_default();
        let mut exchanged = self
            .exchange(
                conn,
                &secrets,
                &generation,
                "tools/call",
                Some(remote_name),
                params.clone(),
                deadline,
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
                    params,
                    deadline,
                )
                .await;
        }
        let exchanged = exchanged?;
        if exchanged.list_changed {
            // The next request that needs the tools fetches them again.
            *slot.state.lock().await = None;
        }
        self.call_result(exchanged.answer)
    }

    async fn keep_generation(&self, slot: &Slot, generation: Generation) {
        if let Some(f) = slot.state.lock().await.as_mut() {
            f.generation = generation;
        }
    }

    /// A `tools/call` answer as a reply: `structuredContent`, else the text content joined.
    fn call_result(&self, answer: Answer) -> Result<Reply, UpstreamError> {
        let result = match answer {
            Answer::Error { code, message } => {
                return Err(UpstreamError::RemoteError {
                    code,
                    message: self.one_line(&message),
                });
            }
            Answer::Result(r) => r,
        };
        if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            return Err(UpstreamError::RemoteInputRequired(Box::new(
                super::error::RemoteInput {
                    requests: result.get("inputRequests").cloned().unwrap_or(Value::Null),
                    state: result
                        .get("requestState")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                },
            )));
        }
        let text: Vec<&str> = result
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("text").and_then(Value::as_str))
            .collect();
        let text = text.join("\n");
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            return Err(UpstreamError::RemoteToolFailed {
                message: self.one_line(&text),
            });
        }
        let body = match result.get("structuredContent") {
            Some(s @ Value::Object(_)) => s.clone(),
            _ => serde_json::from_str::<Value>(&text)
                .ok()
                .filter(Value::is_object)
                .unwrap_or(Value::String(text)),
        };
        Ok(Reply {
            http_status: 200,
            body,
            quota: None,
            next: None,
        })
    }

    /// A remote's words for `upstream_message`: one line, bounded, redacted.
    fn one_line(&self, text: &str) -> Option<String> {
        let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        (!line.is_empty()).then(|| audit::bounded(&self.redactor.redact(&line), 500))
    }

    async fn secrets_for_remote(&self) -> Result<Arc<SecretValues>, UpstreamError> {
        self.secrets.get().await.map_err(|e| {
            tracing::error!(error = %e, "secret unavailable for a remote MCP server");
            UpstreamError::SecretUnavailable
        })
    }

    /// The generation the remote speaks: `server/discover` first, the handshake when refused.
    async fn first_contact(
        &self,
        conn: &DeployedCatalog,
        secrets: &SecretValues,
    ) -> Result<Generation, UpstreamError> {
        let deadline = Deadline::after(remote_timeout(&conn.catalog));
        let modern = self
            .exchange(
                conn,
                secrets,
                &Generation::Modern,
                "server/discover",
                None,
                Map::new(),
                &deadline,
            )
            .await;
        match modern {
            Ok(Exchanged {
                answer: Answer::Result(r),
                ..
            }) if r
                .get("supportedVersions")
                .and_then(Value::as_array)
                .is_some_and(|v| v.iter().any(|x| x == wire::MODERN)) =>
            {
                return Ok(Generation::Modern);
            }
            Err(
                e @ (UpstreamError::Unreachable
                | UpstreamError::Timeout { .. }
                | UpstreamError::SecretUnavailable
                | UpstreamError::NotConfigured(_)),
            ) => return Err(e),
            Err(UpstreamError::Refused(r)) if matches!(r.http_status, 401 | 403) => {
                return Err(UpstreamError::Refused(r));
            }
            _ => {}
        }
        let fresh = Generation::Handshake { session: None };
        let deadline = Deadline::after(remote_timeout(&conn.catalog));
        let init = self
            .exchange(
                conn,
                secrets,
                &fresh,
                "initialize",
                None,
                wire::initialize_params(),
                &deadline,
            )
            .await?;
        if let Answer::Error { code, message } = init.answer {
            return Err(UpstreamError::RemoteError {
                code,
                message: self.one_line(&message),
            });
        }
        let generation = Generation::Handshake {
            session: init.session,
        };
        self.notify(
            conn,
            secrets,
            &generation,
            "notifications/initialized",
            &deadline,
        )
        .await?;
        Ok(generation)
    }

    /// Every page of `tools/list` (at most [`MAX_LIST_PAGES`]), renewing a forgotten session
    /// once.
    async fn list_all(
        &self,
        conn: &DeployedCatalog,
        secrets: &SecretValues,
        mut generation: Generation,
    ) -> Result<(Generation, Vec<Value>), UpstreamError> {
        let mut listed = Vec::new();
        let mut cursor: Option<String> = None;
        let mut renewed = false;
        for _ in 0..MAX_LIST_PAGES {
            let mut params = Map::new();
            if let Some(c) = &cursor {
                params.insert("cursor".into(), c.clone().into());
            }
            let deadline = Deadline::after(remote_timeout(&conn.catalog));
            let exchanged = match self
                .exchange(
                    conn,
                    secrets,
                    &generation,
                    "tools/list",
                    None,
                    params,
                    &deadline,
                )
                .await
            {
                Err(UpstreamError::Refused(r))
                    if r.http_status == 404
                        && !renewed
                        && matches!(generation, Generation::Handshake { .. }) =>
                {
                    renewed = true;
                    generation = self.first_contact(conn, secrets).await?;
                    listed.clear();
                    cursor = None;
                    continue;
                }
                other => other?,
            };
            let mut result = match exchanged.answer {
                Answer::Result(r) => r,
                Answer::Error { code, message } => {
                    return Err(UpstreamError::RemoteError {
                        code,
                        message: self.one_line(&message),
                    });
                }
            };
            if let Some(Value::Array(tools)) = result.remove("tools") {
                listed.extend(tools);
            }
            cursor = result
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if cursor.is_none() || listed.len() > MAX_TOOLS {
                break;
            }
        }
        Ok((generation, listed))
    }

    async fn notify(
        &self,
        conn: &DeployedCatalog,
        secrets: &SecretValues,
        generation: &Generation,
        method: &str,
        deadline: &Deadline,
    ) -> Result<(), UpstreamError> {
        let body = wire::body(generation, None, method, Map::new());
        let (status, _, _) = self
            .post(conn, secrets, generation, method, None, &body, deadline)
            .await?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(refusal(status))
        }
    }

    /// One JSON-RPC request and its response.
    #[allow(clippy::too_many_arguments)]
    async fn exchange(
        &self,
        conn: &DeployedCatalog,
        secrets: &SecretValues,
        generation: &Generation,
        method: &str,
        name: Option<&str>,
        params: Map<String, Value>,
        deadline: &Deadline,
    ) -> Result<Exchanged, UpstreamError> {
        let id = 1;
        let body = wire::body(generation, Some(id), method, params);
        let (status, headers, bytes) = self
            .post(conn, secrets, generation, method, name, &body, deadline)
            .await?;
        if !(200..300).contains(&status) {
            // A JSON-RPC error may come with a 4xx (the stateless generation maps them).
            if let Ok(Answer::Error { code, message }) =
                wire::response(headers.content_type.as_deref(), &bytes, id)
                && status != 404
                && !matches!(status, 401 | 403)
                && method != "server/discover"
            {
                return Err(UpstreamError::RemoteError {
                    code,
                    message: self.one_line(&message),
                });
            }
            return Err(refusal(status));
        }
        let answer = wire::response(headers.content_type.as_deref(), &bytes, id).map_err(|_| {
            UpstreamError::RemoteError {
                code: -32603,
                message: Some("the remote sent no JSON-RPC response".into()),
            }
        })?;
        let list_changed = headers
            .content_type
            .as_deref()
            .is_some_and(|c| c.starts_with("text/event-stream"))
            && bytes
                .windows(b"notifications/tools/list_changed".len())
                .any(|w| w == b"notifications/tools/list_changed");
        Ok(Exchanged {
            answer,
            session: headers.session,
            list_changed,
        })
    }

    /// One POST to the remote with its credentials, a timeout cut to the deadline and a capped
    /// answer.
    #[allow(clippy::too_many_arguments)]
    async fn post(
        &self,
        conn: &DeployedCatalog,
        secrets: &SecretValues,
        generation: &Generation,
        method: &str,
        name: Option<&str>,
        body: &Value,
        deadline: &Deadline,
    ) -> Result<(u16, AnswerHeaders, Vec<u8>), UpstreamError> {
        let catalog = &conn.catalog;
        let url = fill_base(catalog, &conn.base_url, secrets)?;
        let url = reqwest::Url::parse(&url).map_err(|_| super::request::BuildError {
            status: catalog::Status::Error,
            hint: "The remote MCP server's URL could not be built; check mcp.url.".into(),
        })?;
        let out_of_time = || UpstreamError::Deadline {
            budget_ms: deadline.budget().as_millis() as u64,
        };
        let timeout = deadline
            .timeout(remote_timeout(catalog))
            .ok_or_else(out_of_time)?;
        let field = |f: &str| secrets.field(&catalog.connector, f).map(str::to_string);
        let mut request =
            connector::authenticate(self.http.post(url).timeout(timeout), &catalog.auth, field)
                .map_err(|e| credential_error(catalog, &e))?
                // Replaces the REST upstreams' `Accept: application/json`: a Streamable HTTP server
                // refuses (406) a client that does not take both.
                .headers(reqwest::header::HeaderMap::from_iter([(
                    reqwest::header::ACCEPT,
                    reqwest::header::HeaderValue::from_static(
                        "application/json, text/event-stream",
                    ),
                )]))
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.to_string());
        for (k, v) in wire::headers(generation, method, name) {
            request = request.header(k, v);
        }
        let timed_out = |e: &reqwest::Error| {
            if e.is_timeout() && deadline.remaining().is_none() {
                out_of_time()
            } else if e.is_timeout() {
                UpstreamError::Timeout {
                    after_ms: timeout.as_millis() as u64,
                }
            } else {
                UpstreamError::Unreachable
            }
        };
        let mut response = request.send().await.map_err(|e| timed_out(&e))?;
        let status = response.status().as_u16();
        let header = |n: &str| {
            response
                .headers()
                .get(n)
                .and_then(|v| v.to_str().ok())
                .map(|v| audit::bounded(v, 200))
        };
        let headers = AnswerHeaders {
            content_type: header("content-type"),
            session: header("mcp-session-id"),
        };
        let too_large = UpstreamError::TooLarge {
            limit: MAX_ANSWER_BYTES,
            http_status: status,
            quota: None,
        };
        let sse = headers
            .content_type
            .as_deref()
            .is_some_and(|c| c.starts_with("text/event-stream"));
        let mut bytes = Vec::new();
        // Complete SSE events already parsed, and bytes already searched for an event's end:
        // each byte is looked at a bounded number of times.
        let (mut parsed, mut searched) = (0, 0);
        while let Some(chunk) = response.chunk().await.map_err(|e| timed_out(&e))? {
            if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(too_large);
            }
            bytes.extend_from_slice(&chunk);
            // An SSE stream that already holds the response is complete; a stream the remote
            // keeps open after it is not waited for.
            if sse {
                let end = wire::last_event_end(&bytes, searched);
                searched = bytes.len();
                if let Some(end) = end.filter(|e| *e > parsed) {
                    if wire::response(Some("text/event-stream"), &bytes[parsed..end], 1).is_ok() {
                        break;
                    }
                    parsed = end;
                }
            }
        }
        Ok((status, headers, bytes))
    }
}

/// The headers of a remote's answer that matter.
struct AnswerHeaders {
    content_type: Option<String>,
    session: Option<String>,
}

fn refusal(status: u16) -> UpstreamError {
    if status == 408 || status == 504 {
        return UpstreamError::Unreachable;
    }
    UpstreamError::Refused(Box::new(Refusal {
        http_status: status,
        message: None,
        quota: None,
        retry_after_s: None,
    }))
}

/// One request's time: the remote's `timeout_ms`, else the catalog's.
fn remote_timeout(catalog: &Catalog) -> Duration {
    Duration::from_millis(
        catalog
            .mcp
            .as_ref()
            .and_then(|m| m.timeout_ms)
            .unwrap_or(catalog.timeout_ms),
    )
}
