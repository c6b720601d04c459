//! The steering of a `tools/call`: which tool a name means (a meta tool, a catalog tool, a
//! remote MCP server's tool, or none the caller may see), the call through the pipeline with a
//! person's decision or a remote's state brought back, and how its `Outcome` reaches the client
//! (a result, a confirmation form, a remote's questions, a link to open, or a protocol error as
//! the outcome's `protocol_error` says), with one audit line per call.

use std::time::Instant;

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolRequestParams, CallToolResponse};
use serde_json::{Map, Value};

use super::context::CallContext;
use super::definitions::into_result;
use super::meta_answers::refused;
use super::progress::Watch;
use super::server::Mcp;
use super::{audit, confirm, link, meta};
use crate::call::{Outcome, ProtocolError};
use crate::contract::names;

impl Mcp {
    /// A `tools/call`: a meta tool (`search_tools`, `connections`, `call_tool`), else a
    /// catalog or remote tool by name; a name nobody can see is a protocol error, except
    /// through `call_tool`, where the model gets the closest names as a result.
    pub(super) async fn tool_call(
        &self,
        request: CallToolRequestParams,
        ctx: &CallContext,
    ) -> Answered {
        let started = Instant::now();
        let retry = Retry::of(&request)?;
        let arguments = request.arguments.unwrap_or_default();
        let result: CallToolResponse = match request.name.as_ref() {
            meta::SEARCH_TOOLS => self.search(&arguments, ctx, started).await.into(),
            meta::CONNECTIONS if self.has_connections => {
                self.connections(&arguments, ctx, started).await.into()
            }
            meta::CALL_TOOL => match meta::call_request(&arguments) {
                Err(hint) => refused(hint).into(),
                Ok((name, inner)) => {
                    match self
                        .call_catalog_tool(name, &inner, ctx, &retry, started)
                        .await
                    {
                        Some(r) => r?,
                        None => self.unknown_via_call_tool(name, ctx, started).into(),
                    }
                }
            },
            name => match self
                .call_catalog_tool(name, &arguments, ctx, &retry, started)
                .await
            {
                Some(r) => r?,
                None => {
                    self.audit.write(&audit::unknown_tool(
                        name,
                        &arguments,
                        ctx,
                        started.elapsed(),
                    ));
                    return Err(McpError::invalid_params(
                        self.unknown_tool_message(name, ctx),
                        None,
                    ));
                }
            },
        };
        Ok(result)
    }

    /// A catalog tool visible to this caller; `None` when there is none of that name (a name
    /// that is no plain name is looked up nowhere).
    /// A person's decision on a confirmation form is checked by the consent stage when
    /// accepted; a decline runs nothing.
    async fn call_catalog_tool(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        ctx: &CallContext,
        retry: &Retry,
        started: Instant,
    ) -> Option<Answered> {
        let name = names::plain_name(name).ok()?;
        if let Some((conn, tool)) = self.inventory.find(ctx.scope(), name) {
            return Some(
                self.call_target(conn, Target::Catalog(tool), arguments, ctx, retry, started)
                    .await,
            );
        }
        match self.find_remote(&ctx.caller, name).await? {
            super::remote::Found::Tool(conn, set) => {
                let remote = set.find(name)?;
                Some(
                    self.call_target(conn, Target::Remote(remote), arguments, ctx, retry, started)
                        .await,
                )
            }
            super::remote::Found::Connect(conn, outcome)
            | super::remote::Found::Withheld(conn, outcome) => {
                // Not listed to this caller yet, or withheld until reviewed again: answered
                // without the remote (an unknown remote tool is taken as `high`, its
                // annotations unread).
                let tool = Called {
                    name,
                    risk: catalog::Risk::High,
                    audit_event: None,
                };
                Some(self.answer(conn, tool, arguments, *outcome, ctx, started))
            }
        }
    }

    /// One call of a catalog or remote tool through the pipeline, with its audit line.
    async fn call_target(
        &self,
        conn: &crate::inventory::DeployedCatalog,
        target: Target<'_>,
        arguments: &Map<String, Value>,
        ctx: &CallContext,
        retry: &Retry,
        started: Instant,
    ) -> Answered {
        let tool = target.tool();
        let decision = retry.decision.as_ref();
        let deadline = self.deadline(&ctx.request);
        let job_wait = self.job_deadline(&ctx.request);
        let jobs = match ctx.tasks {
            true => crate::call::Jobs::Task {
                ttl_ms: ctx.task_ttl_ms,
            },
            false => crate::call::Jobs::Wait(&job_wait),
        };
        let outcome = match decision {
            Some(confirm::Decision::Declined) => {
                let mut o = confirm::declined(&tool.name);
                o.write = Some(crate::call::WriteFacts {
                    confirmed_by: Some("elicitation"),
                    ..Default::default()
                });
                o
            }
            _ => {
                let elicitation = crate::call::Elicitation {
                    available: ctx.can_elicit,
                    accepted: match decision {
                        Some(confirm::Decision::Accepted(state)) => Some(state.as_str()),
                        _ => None,
                    },
                    input_capabilities: Some(&ctx.input_capabilities),
                    resumed: retry.resume(),
                };
                Watch::around(ctx.watch.as_ref(), async |progress| {
                    let request = crate::call::Request {
                        caller: &ctx.caller,
                        view: self.inventory.view(ctx.scope()),
                        deadline: &deadline,
                        admission: ctx.admission.as_ref(),
                        elicitation,
                        progress,
                        jobs,
                    };
                    match target {
                        Target::Catalog(tool) => {
                            self.pipeline.call(conn, tool, arguments, request).await
                        }
                        Target::Remote(remote) => {
                            self.pipeline
                                .call_remote(conn, remote, arguments, request)
                                .await
                        }
                    }
                })
                .await
            }
        };
        let called = Called {
            name: &tool.name,
            risk: tool.risk,
            audit_event: tool.audit_event.as_deref(),
        };
        self.answer(conn, called, arguments, outcome, ctx, started)
    }

    /// A call's outcome as the client gets it (a confirmation form, a remote's own request or
    /// a link to open where the client can show them, else the result; a 2025-11-25 client
    /// that declared URL-mode elicitation gets a link to connect as the
    /// `URLElicitationRequiredError`), with its audit line.
    fn answer(
        &self,
        conn: &crate::inventory::DeployedCatalog,
        tool: Called<'_>,
        arguments: &Map<String, Value>,
        outcome: Outcome,
        ctx: &CallContext,
        started: Instant,
    ) -> Answered {
        let refused = ctx
            .url_error
            .then(|| link::required_error(&outcome))
            .flatten();
        let asked = ctx
            .can_elicit
            .then(|| confirm::ask(tool.name, &outcome))
            .flatten()
            .or_else(|| passed_on(&outcome, &ctx.input_capabilities))
            .or_else(|| ctx.can_open_url.then(|| link::ask(&outcome)).flatten());
        let (result, bytes) = into_result(&outcome);
        let event = audit::tool_call(
            tool.name,
            &conn.catalog.connector,
            tool.risk,
            tool.audit_event,
            arguments,
            &outcome,
            bytes,
            ctx,
            started.elapsed(),
        );
        super::traced::answered(&event, tool.risk);
        self.audit.write(&event);
        if let Some(error) = refused {
            return Err(error);
        }
        if let Some(kind) = outcome.protocol_error {
            let older = !super::context::is_modern(ctx.protocol_version.as_deref());
            return Err(protocol_error(kind, &outcome, older));
        }
        if let Some(task) = &outcome.task {
            return Ok(CallToolResponse::Task(super::tasks::created(task)));
        }
        Ok(match asked {
            Some(input) => input.into(),
            None => result.into(),
        })
    }

    /// The protocol error for `tools/call` of an unknown name, with the closest name the caller
    /// may call.
    fn unknown_tool_message(&self, name: &str, ctx: &CallContext) -> String {
        let Ok(name) = names::plain_name(name) else {
            return format!(
                "Tool not found: `{}` is not a tool name. Call tools/list for the available tools.",
                names::shown(name)
            );
        };
        let suggestion = self
            .inventory
            .view(ctx.scope())
            .suggest(name)
            .map(|s| format!(" Did you mean `{s}`?"))
            .unwrap_or_default();
        format!("Tool not found: `{name}`.{suggestion} Call tools/list for the available tools.")
    }
}

/// What a retried call brought back: a person's decision on our confirmation form, or a remote
/// tool's state (wrapped in ours) with the client's answers to its questions.
struct Retry {
    decision: Option<confirm::Decision>,
    state: Option<String>,
    responses: Option<Value>,
}

/// A retry's `inputResponses` each answer an input request with that request's result, an
/// object; anything else is a protocol error naming the key.
pub(super) fn answers_are_objects(
    responses: Option<&rmcp::model::InputResponses>,
) -> Result<(), McpError> {
    match responses
        .iter()
        .copied()
        .flatten()
        .find(|(_, v)| !v.is_object())
    {
        Some((key, _)) => Err(McpError::invalid_params(
            format!(
                "inputResponses[{}] must be an object: the result of the input request it answers.",
                names::shown(key)
            ),
            None,
        )),
        None => Ok(()),
    }
}

impl Retry {
    /// What the request brought back; an answer that is no object (each answers an input
    /// request with that request's result) is a protocol error.
    fn of(request: &CallToolRequestParams) -> Result<Retry, McpError> {
        answers_are_objects(request.input_responses.as_ref())?;
        Ok(Retry {
            decision: confirm::decision(request),
            state: request.request_state.clone(),
            responses: request
                .input_responses
                .as_ref()
                .map(|r| Value::Object(r.iter().map(|(k, v)| (k.clone(), v.clone())).collect())),
        })
    }

    /// A round to resume (a remote's, or an argument asked of the person): a state that is no
    /// answer to our own confirmation form, or answers that came without a state.
    fn resume(&self) -> Option<crate::call::Resume<'_>> {
        match (&self.decision, &self.state, &self.responses) {
            (None, None, None) | (Some(_), _, _) => None,
            (None, state, responses) => Some(crate::call::Resume {
                state: state.as_deref(),
                responses: responses.as_ref(),
            }),
        }
    }
}

/// A remote tool's questions for the person, as our `input_required` result (its state is
/// already wrapped in ours by the pipeline), when the client declared it can answer input
/// requests at all (the remote was told exactly what it declared).
fn passed_on(
    outcome: &Outcome,
    input_capabilities: &Map<String, Value>,
) -> Option<rmcp::model::InputRequiredResult> {
    if input_capabilities.is_empty() {
        return None;
    }
    let asked = outcome.input_required.as_ref()?;
    let requests: rmcp::model::InputRequests =
        serde_json::from_value(asked.requests.clone()).ok()?;
    Some(rmcp::model::InputRequiredResult::new(
        Some(requests),
        asked.state.clone(),
    ))
}

/// A tool call's answer: the response, or a protocol error (`URLElicitationRequiredError`).
type Answered = Result<CallToolResponse, McpError>;

/// What a call's audit line says of the tool.
#[derive(Clone, Copy)]
struct Called<'a> {
    name: &'a str,
    risk: catalog::Risk,
    audit_event: Option<&'a str>,
}

/// What a call runs: a catalog tool, or a remote MCP server's tool under its local contract.
#[derive(Clone, Copy)]
enum Target<'a> {
    Catalog(&'a catalog::Tool),
    Remote(&'a crate::upstream::remote::RemoteTool),
}

impl Target<'_> {
    fn tool(&self) -> &catalog::Tool {
        match self {
            Target::Catalog(t) => t,
            Target::Remote(r) => &r.tool,
        }
    }
}

/// The JSON-RPC error an outcome marked as a protocol error becomes; `older`: the request is of
/// the 2025-11-25 generation.
fn protocol_error(kind: ProtocolError, outcome: &Outcome, older: bool) -> McpError {
    match kind {
        // 2025-11-25 says "method not found" when a task-only tool is called without a task.
        ProtocolError::TaskRequired if older => McpError::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            outcome.hint.clone().unwrap_or_default(),
            None,
        ),
        // A requestState that fails its integrity check is a protocol error (SEP-2322), not a
        // tool's answer: the client sent something no server of ours issued.
        ProtocolError::InvalidRequestState => {
            McpError::invalid_params(outcome.hint.clone().unwrap_or_default(), None)
        }
        // The remote heard exactly what our client declared, so its verdict is ours: the
        // protocol error `-32021` naming what is missing (HTTP 400 on 2026-07-28).
        ProtocolError::MissingClientCapability | ProtocolError::TaskRequired => {
            let required = outcome
                .fields
                .get("required_capabilities")
                .cloned()
                .and_then(|v| serde_json::from_value(v).ok())
                .unwrap_or_default();
            McpError::missing_required_client_capability(required)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use catalog::Status;
    use serde_json::json;

    #[test]
    fn each_protocol_error_becomes_its_json_rpc_code() {
        let mut o = Outcome::failed(Status::InvalidInput, "any_reason", "Start over.");
        o.fields.insert(
            "required_capabilities".into(),
            json!({"elicitation": {"form": {}}}),
        );
        for (kind, code) in [
            (ProtocolError::InvalidRequestState, -32602),
            (ProtocolError::MissingClientCapability, -32021),
        ] {
            let e = protocol_error(kind, &o, false);
            assert_eq!(e.code.0, code, "{kind:?}");
        }
        let e = protocol_error(ProtocolError::InvalidRequestState, &o, false);
        assert_eq!(e.message, "Start over.", "the hint is the message");
        let e = protocol_error(ProtocolError::MissingClientCapability, &o, false);
        let data = serde_json::to_value(e.data).unwrap();
        assert!(data.to_string().contains("elicitation"), "{data}");
    }

    #[test]
    fn a_task_only_tool_called_without_a_task_is_each_generations_error() {
        let mut o = Outcome::failed(Status::InvalidInput, "task_required", "Only as a task.");
        o.fields.insert(
            "required_capabilities".into(),
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
        );
        let newer = protocol_error(ProtocolError::TaskRequired, &o, false);
        assert_eq!(newer.code.0, -32021);
        assert!(
            serde_json::to_string(&newer.data)
                .unwrap()
                .contains("io.modelcontextprotocol/tasks")
        );
        let older = protocol_error(ProtocolError::TaskRequired, &o, true);
        assert_eq!(
            (older.code.0, older.message.as_ref()),
            (-32601, "Only as a task.")
        );
    }

    #[test]
    fn the_reason_alone_decides_no_protocol_error() {
        let o = Outcome::failed(
            Status::InvalidInput,
            crate::call::INVALID_REQUEST_STATE,
            "h",
        );
        assert_eq!(o.protocol_error, None, "only where it is made is it marked");
    }
}
