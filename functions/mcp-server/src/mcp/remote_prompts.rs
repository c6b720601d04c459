//! Remote MCP servers' prompts on our surface: listed after the catalog prompts (as the
//! caller's profile allows, under the names the naming rule gives, fetched and cached with the
//! remote's tools) and got through us: `prompts/get` goes to the remote with the arguments, a
//! remote's questions reach our client with its state wrapped in ours, and each one is audited
//! (one line: the prompt, its connector, the argument keys, the outcome; never a value).
//! Only remotes spoken to as the deployment lend prompts: an `oauth_user` remote's lists are
//! each person's, and a prompt request carries no person's token.

use std::time::Instant;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequiredResult,
    Prompt as McpPrompt, PromptArgument,
};
use serde_json::{Map, Value, json};

use super::context::CallContext;
use super::server::Mcp;
use crate::call::{PromptAnswer, PromptFailure, PromptRequest, Resume};
use crate::inventory::{DeployedCatalog, Scope};
use crate::upstream::remote::RemotePrompt;
use crate::upstream::{Credentials, UpstreamError};

impl Mcp {
    /// The remote prompts a scope lists, after its catalog prompts; a remote that cannot be
    /// reached lists none (its tool list says so in the log).
    pub(super) async fn remote_prompts_listed(&self, scope: &Scope) -> Vec<McpPrompt> {
        let mut out = Vec::new();
        for conn in self.remote_connectors() {
            if conn.catalog.auth.oauth_user.is_some() {
                continue;
            }
            let Ok(set) = self
                .pipeline
                .upstream()
                .remote_tools(conn, Credentials::Deployment, false)
                .await
            else {
                continue;
            };
            out.extend(
                set.prompts
                    .prompts
                    .iter()
                    .filter(|p| self.remote_allowed(scope, conn, &p.name))
                    .map(definition),
            );
        }
        out
    }

    /// The remote connector and prompt of `name` for this scope; the list is fetched again once
    /// when it does not know the name (the remote may have added it).
    pub(super) async fn find_remote_prompt(
        &self,
        scope: &Scope,
        name: &str,
    ) -> Option<(&DeployedCatalog, RemotePrompt)> {
        let conn = self.inventory.registry.remote_of(name)?;
        if conn.catalog.auth.oauth_user.is_some() || !self.remote_allowed(scope, conn, name) {
            return None;
        }
        let upstream = self.pipeline.upstream();
        for refresh in [false, true] {
            let set = upstream
                .remote_tools(conn, Credentials::Deployment, refresh)
                .await
                .ok()?;
            if let Some(p) = set.prompts.find(name) {
                return Some((conn, p.clone()));
            }
        }
        None
    }

    /// `prompts/get` of a remote prompt: the remote's messages, its questions for the person,
    /// or a protocol error that says what failed.
    pub(super) async fn get_remote_prompt(
        &self,
        conn: &DeployedCatalog,
        prompt: &RemotePrompt,
        request: &GetPromptRequestParams,
        ctx: &CallContext,
    ) -> Result<GetPromptResponse, McpError> {
        let started = Instant::now();
        let arguments = request.arguments.clone().unwrap_or_default();
        super::tool_call::answers_are_objects(request.input_responses.as_ref())?;
        let responses = request
            .input_responses
            .as_ref()
            .map(|r| Value::Object(r.iter().map(|(k, v)| (k.clone(), v.clone())).collect()));
        let resume = (request.request_state.is_some() || responses.is_some()).then_some(Resume {
            state: request.request_state.as_deref(),
            responses: responses.as_ref(),
        });
        let deadline = self.deadline(&ctx.request);
        let answer = self
            .pipeline
            .get_remote_prompt(
                conn,
                prompt,
                PromptRequest {
                    caller: &ctx.caller,
                    arguments: &arguments,
                    input_capabilities: &ctx.input_capabilities,
                    resume,
                    deadline: &deadline,
                    admission: ctx.admission.as_ref(),
                },
            )
            .await;
        let answered = answer.and_then(|a| response(a, &ctx.input_capabilities));
        let (status, reason) = match &answered {
            Ok(GetPromptResponse::InputRequired(_)) => ("input_required", None),
            Ok(_) => ("ok", None),
            Err(PromptFailure::InvalidState(_)) => {
                ("invalid_input", Some(crate::call::INVALID_REQUEST_STATE))
            }
            Err(PromptFailure::OverBudget(_)) => ("rate_limited", Some(crate::call::BUDGET_REASON)),
            Err(PromptFailure::Upstream(e)) => ("upstream_error", Some(reason_of(e))),
        };
        self.audit.write(&super::audit::remote_prompt(
            &prompt.name,
            &conn.catalog.connector,
            &arguments,
            status,
            reason,
            ctx,
            started.elapsed(),
        ));
        answered.map_err(|f| failure(conn, prompt, f))
    }
}

/// The remote's answer as ours: its result read as a `GetPromptResult`, or its questions as
/// our `input_required` result when the client declared it can answer any.
fn response(
    answer: PromptAnswer,
    input_capabilities: &Map<String, Value>,
) -> Result<GetPromptResponse, PromptFailure> {
    let not_a_prompt = || {
        PromptFailure::Upstream(UpstreamError::RemoteError {
            code: -32603,
            message: Some("the remote's answer is no prompt result".into()),
        })
    };
    match answer {
        // Its messages and description under our result type (a 2025-11-25 remote sends none;
        // rmcp clears it for a client of that generation); the remote's `_meta` is its own.
        PromptAnswer::Got(result) => {
            let got = serde_json::from_value::<GetPromptResult>(Value::Object(result))
                .map_err(|_| not_a_prompt())?;
            let ours = GetPromptResult::new(got.messages);
            Ok(match got.description {
                Some(d) => ours.with_description(d),
                None => ours,
            }
            .into())
        }
        PromptAnswer::Asks(asked) if !input_capabilities.is_empty() => {
            let requests: rmcp::model::InputRequests =
                serde_json::from_value(asked.requests).map_err(|_| not_a_prompt())?;
            Ok(InputRequiredResult::new(Some(requests), asked.state).into())
        }
        PromptAnswer::Asks(_) => Err(PromptFailure::Upstream(UpstreamError::RemoteError {
            code: -32021,
            message: Some(
                "the remote prompt asks for input, and the client declared no way to answer it"
                    .into(),
            ),
        })),
    }
}

/// A remote prompt's failure as a protocol error naming the prompt, its connector and what
/// went wrong (the remote's own words, one line, redacted, when it sent any).
fn failure(conn: &DeployedCatalog, prompt: &RemotePrompt, failure: PromptFailure) -> McpError {
    let e = match failure {
        PromptFailure::InvalidState(hint) => return McpError::invalid_params(hint, None),
        PromptFailure::OverBudget(hint) => {
            return McpError::internal_error(
                hint,
                Some(json!({"status": "rate_limited", "reason": crate::call::BUDGET_REASON})),
            );
        }
        PromptFailure::Upstream(e) => e,
    };
    if let UpstreamError::RemoteNeedsCapability { required } = &e {
        return McpError::missing_required_client_capability(
            serde_json::from_value(Value::Object(required.clone())).unwrap_or_default(),
        );
    }
    let said = e
        .message()
        .map(|m| format!(" The remote said: {m}"))
        .unwrap_or_default();
    let message = format!(
        "The remote MCP server of `{}` could not give prompt `{}`: {e}.{said}",
        conn.catalog.connector, prompt.name
    );
    let data = Some(json!({"status": "upstream_error", "reason": reason_of(&e)}));
    match e {
        // The remote refused the arguments: the caller fixes them.
        UpstreamError::RemoteError { code: -32602, .. } => McpError::invalid_params(message, data),
        _ => McpError::internal_error(message, data),
    }
}

/// The audit reason of a remote prompt's failure.
pub(super) fn reason_of(e: &UpstreamError) -> &'static str {
    match e {
        UpstreamError::Timeout { .. } | UpstreamError::Deadline { .. } => "timeout",
        UpstreamError::Unreachable => "unreachable",
        UpstreamError::SecretUnavailable | UpstreamError::NotConfigured(_) => "not_configured",
        UpstreamError::Refused(_) => "refused",
        UpstreamError::RemoteNeedsCapability { .. } => crate::upstream::REMOTE_NEEDS_CAPABILITY,
        UpstreamError::RemoteQuestionRefused(_) => crate::upstream::REMOTE_QUESTION_REFUSED,
        UpstreamError::RemoteError { code: -32602, .. } => "remote_invalid_params",
        _ => "remote_error",
    }
}

/// A remote prompt as listed: our name, the remote's title, description and arguments.
fn definition(p: &RemotePrompt) -> McpPrompt {
    let arguments = p
        .arguments
        .iter()
        .map(|a| {
            let arg = PromptArgument::new(a.name.clone()).with_required(a.required);
            match &a.description {
                Some(d) => arg.with_description(d.clone()),
                None => arg,
            }
        })
        .collect();
    let mut out = McpPrompt::new(p.name.clone(), p.description.as_deref(), Some(arguments));
    if let Some(title) = &p.title {
        out = out.with_title(title.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::RemoteInput;

    #[test]
    fn a_remote_answer_of_either_generation_is_our_complete_result() {
        let older = json!({"description": "d", "_meta": {"remote": true},
            "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}]});
        let Ok(GetPromptResponse::Complete(got)) = response(
            PromptAnswer::Got(older.as_object().cloned().unwrap()),
            &Map::new(),
        ) else {
            panic!("a complete result");
        };
        assert_eq!(got.result_type, Some(rmcp::model::ResultType::COMPLETE));
        assert_eq!((got.description.as_deref(), got.meta), (Some("d"), None));
        assert_eq!(got.messages.len(), 1);
        let bad = json!({"messages": "none"});
        assert!(matches!(
            response(
                PromptAnswer::Got(bad.as_object().cloned().unwrap()),
                &Map::new()
            ),
            Err(PromptFailure::Upstream(UpstreamError::RemoteError {
                code: -32603,
                ..
            }))
        ));
    }

    #[test]
    fn a_remote_question_reaches_only_a_client_that_can_answer() {
        let asked = || {
            PromptAnswer::Asks(Box::new(RemoteInput {
                requests: json!({"who": {"method": "elicitation/create", "params": {
                    "message": "Who?", "requestedSchema": {"type": "object", "properties": {}}}}}),
                state: Some("ours".into()),
            }))
        };
        let can = json!({"elicitation": {}}).as_object().cloned().unwrap();
        let Ok(GetPromptResponse::InputRequired(r)) = response(asked(), &can) else {
            panic!("the question is passed on");
        };
        assert_eq!(r.request_state.as_deref(), Some("ours"));
        assert!(matches!(
            response(asked(), &Map::new()),
            Err(PromptFailure::Upstream(UpstreamError::RemoteError {
                code: -32021,
                ..
            }))
        ));
    }
}
