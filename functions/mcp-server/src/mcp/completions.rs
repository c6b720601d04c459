//! `completion/complete` for prompt arguments and resource-template variables that declare
//! `complete:` in the catalog (a federated prompt's arguments: `remote_completions`). The values come from the pipeline's completion path
//! (`call::Pipeline::complete`: one list call through every stage, then a short cache), within
//! the caller's view: a prompt or template the caller cannot see is "not found", and a source
//! list tool it may not call offers nothing.
//!
//! A failing upstream answers a JSON-RPC error (-32603) whose message says the status and what
//! to do and whose `data` has `status`, `reason` and `hint`: the MCP specification lets
//! `completion/complete` fail with an error, and a client then offers no values, as it would
//! for an empty result, while the Inspector and SDK clients show why.

use std::time::Instant;

use catalog::{Param, Status};
use rmcp::ErrorData as McpError;
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, Reference};
use serde_json::{Map, Value, json};

use super::audit;
use super::context::CallContext;
use super::definitions::into_result;
use super::server::Mcp;
use crate::call::Outcome;

impl Mcp {
    /// The completion of one argument.
    pub async fn complete(
        &self,
        request: &CompleteRequestParams,
        ctx: &CallContext,
    ) -> Result<CompleteResult, McpError> {
        // A name no catalog prompt has may be a federated remote's: its remote completes it.
        if let Reference::Prompt(p) = &request.r#ref
            && self.inventory.registry.prompt(&p.name).is_none()
            && let Some((conn, prompt)) = self.find_remote_prompt(ctx.scope(), &p.name).await
        {
            return self
                .complete_remote_prompt(conn, &prompt, request, ctx)
                .await;
        }
        let started = Instant::now();
        let Some(param) = self.completable(&request.r#ref, &request.argument.name, ctx)? else {
            return Ok(CompleteResult::new(CompletionInfo::default()));
        };
        let Some(complete) = &param.complete else {
            return Ok(CompleteResult::new(CompletionInfo::default()));
        };
        let Some((conn, source)) = self.inventory.find(ctx.scope(), &complete.from) else {
            return Ok(CompleteResult::new(CompletionInfo::default()));
        };
        let deadline = self.completion_deadline(&ctx.request);
        let answer = self
            .pipeline
            .complete(
                conn,
                source,
                complete,
                &request.argument.value,
                crate::call::Request {
                    caller: &ctx.caller,
                    view: self.inventory.view(ctx.scope()),
                    deadline: &deadline,
                    admission: ctx.admission.as_ref(),
                    elicitation: crate::call::Elicitation::default(),
                    progress: &crate::progress::NONE,
                    jobs: crate::call::Jobs::Wait(&deadline),
                },
            )
            .await;
        // What the source tool was asked and answered; none when the cache answered.
        let asked = match &answer {
            Ok(done) => done.asked.as_ref(),
            Err(failed) => Some(failed.as_ref()),
        };
        self.audit_completion(source, &conn.catalog.connector, asked, ctx, started);
        match answer {
            Ok(done) => {
                let info = CompletionInfo::with_pagination(
                    done.values,
                    Some(done.total.min(u32::MAX as usize) as u32),
                    done.has_more,
                )
                .map_err(|e| McpError::internal_error(e, None))?;
                Ok(CompleteResult::new(info))
            }
            Err(refused) => Err(failed(&refused.1)),
        }
    }

    /// One audit line per completion, as a call of its source tool: `completion` (or
    /// `completion_cached`, no bytes sent) unless the outcome has its own reason.
    fn audit_completion(
        &self,
        source: &catalog::Tool,
        connector: &str,
        asked: Option<&(Map<String, Value>, Outcome)>,
        ctx: &CallContext,
        started: Instant,
    ) {
        let cached = asked.is_none();
        let (args, outcome) = asked
            .cloned()
            .unwrap_or_else(|| (Map::new(), Outcome::ok(Map::new())));
        let bytes = if cached { 0 } else { into_result(&outcome).1 };
        let event = audit::tool_call(
            &source.name,
            connector,
            source.risk,
            None,
            &args,
            &outcome,
            bytes,
            ctx,
            started.elapsed(),
        );
        let event = if outcome.reason.is_none() {
            event.reason(if cached {
                "completion_cached"
            } else {
                "completion"
            })
        } else {
            event
        };
        self.audit.write(&event);
    }

    /// The param a reference's argument names, when the caller may see the prompt or the
    /// resource template; a reference to nothing the caller can see is an error, an argument
    /// that is no param offers nothing.
    fn completable(
        &self,
        reference: &Reference,
        argument: &str,
        ctx: &CallContext,
    ) -> Result<Option<&Param>, McpError> {
        let view = self.inventory.view(ctx.scope());
        match reference {
            Reference::Prompt(p) => {
                let prompt = self
                    .inventory
                    .registry
                    .prompt(&p.name)
                    .filter(|(_, found)| view.allows_prompt(&found.name))
                    .map(|(_, found)| found)
                    .ok_or_else(|| {
                        McpError::invalid_params(
                            "Prompt not found. Call prompts/list for the available prompts.",
                            None,
                        )
                    })?;
                Ok(prompt.arguments.get(argument))
            }
            Reference::Resource(r) => {
                let tool = self
                    .inventory
                    .registry
                    .exposed()
                    .filter(|(_, t)| view.allows(&t.name))
                    .find(|(_, t)| t.resource.as_deref() == Some(r.uri.as_str()))
                    .map(|(_, t)| t)
                    .ok_or_else(|| {
                        McpError::invalid_params(
                            "Resource template not found. Call resources/templates/list for the \
                             available templates.",
                            None,
                        )
                    })?;
                Ok(tool.params.get(argument).map(Box::as_ref))
            }
            _ => Ok(None),
        }
    }
}

/// A completion whose list call failed: its status and hint, as a JSON-RPC error.
fn failed(outcome: &Outcome) -> McpError {
    let status = outcome.status.as_str();
    let hint = outcome
        .hint
        .clone()
        .unwrap_or_else(|| "Try again later.".into());
    let message = match outcome.status {
        Status::InvalidInput => format!("Completion refused ({status}): {hint}"),
        _ => format!("Completion unavailable ({status}): {hint}"),
    };
    McpError::internal_error(
        message,
        Some(json!({ "status": status, "reason": outcome.reason, "hint": hint })),
    )
}
