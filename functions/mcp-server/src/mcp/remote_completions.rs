//! `completion/complete` of a federated prompt's argument: the prompt is found in the caller's
//! view (one it cannot see is "not found", as for a catalog prompt), the values come from the
//! remote (`call::Pipeline::complete_remote_prompt`: one request, only to a remote that
//! declared `completions`, on the caller's budget, or a recent answer from its short cache),
//! and each completion is audited like a catalog one: the prompt's name, its connector, the
//! argument's name (never what was typed), `status` and `reason` (`completion`,
//! `completion_cached`, or the failure's).
//!
//! A failure answers a JSON-RPC error (-32603) whose `data` has `status` and `reason`, as a
//! catalog completion whose list call failed: the client offers no values and can show why.

use std::time::Instant;

use rmcp::ErrorData as McpError;
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo};
use serde_json::{Map, Value, json};

use super::context::CallContext;
use super::server::Mcp;
use crate::call::{PromptCompletion, PromptFailure, RemoteCompleted};
use crate::inventory::DeployedCatalog;
use crate::upstream::UpstreamError;
use crate::upstream::remote::RemotePrompt;

impl Mcp {
    /// The remote's values for one argument of its prompt, or an error saying what failed.
    pub(super) async fn complete_remote_prompt(
        &self,
        conn: &DeployedCatalog,
        prompt: &RemotePrompt,
        request: &CompleteRequestParams,
        ctx: &CallContext,
    ) -> Result<CompleteResult, McpError> {
        let started = Instant::now();
        let context: Map<String, Value> = request
            .context
            .as_ref()
            .and_then(|c| c.arguments.as_ref())
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let deadline = self.completion_deadline(&ctx.request);
        let answer = self
            .pipeline
            .complete_remote_prompt(
                conn,
                prompt,
                PromptCompletion {
                    caller: &ctx.caller,
                    argument: &request.argument.name,
                    typed: &request.argument.value,
                    context: &context,
                    deadline: &deadline,
                    admission: ctx.admission.as_ref(),
                },
            )
            .await;
        let (status, reason) = match &answer {
            Ok(RemoteCompleted::Asked(_)) => ("ok", "completion"),
            Ok(RemoteCompleted::Cached(_)) => ("ok", "completion_cached"),
            Ok(RemoteCompleted::NotOffered) => ("ok", "completion_not_offered"),
            Err(f) => (status_of(f), reason_of(f)),
        };
        let argument = Map::from_iter([(request.argument.name.clone(), Value::Null)]);
        let event = super::audit::remote_prompt(
            &prompt.name,
            &conn.catalog.connector,
            &argument,
            status,
            answer.as_ref().err().map(reason_of),
            ctx,
            started.elapsed(),
        )
        .reason(reason);
        self.audit.write(&event);
        match answer {
            Ok(RemoteCompleted::Asked(got) | RemoteCompleted::Cached(got)) => {
                CompletionInfo::with_pagination(
                    got.values,
                    Some(got.total.min(u32::MAX as usize) as u32),
                    got.has_more,
                )
                .map(CompleteResult::new)
                .map_err(|e| McpError::internal_error(e, None))
            }
            Ok(RemoteCompleted::NotOffered) => Ok(CompleteResult::new(CompletionInfo::default())),
            Err(f) => Err(failed(conn, prompt, f)),
        }
    }
}

fn status_of(f: &PromptFailure) -> &'static str {
    match f {
        PromptFailure::OverBudget(_) => "rate_limited",
        PromptFailure::InvalidState(_) => "invalid_input",
        PromptFailure::Upstream(UpstreamError::RemoteError { code: -32602, .. }) => "invalid_input",
        PromptFailure::Upstream(_) => "unavailable",
    }
}

fn reason_of(f: &PromptFailure) -> &'static str {
    match f {
        PromptFailure::OverBudget(_) => crate::call::BUDGET_REASON,
        PromptFailure::InvalidState(_) => crate::call::INVALID_REQUEST_STATE,
        PromptFailure::Upstream(e) => super::remote_prompts::reason_of(e),
    }
}

/// A failed completion as a JSON-RPC error naming the connector and the prompt, with the
/// remote's words on one line when it sent any.
fn failed(conn: &DeployedCatalog, prompt: &RemotePrompt, f: PromptFailure) -> McpError {
    let (status, reason) = (status_of(&f), reason_of(&f));
    let message = match &f {
        PromptFailure::OverBudget(hint) | PromptFailure::InvalidState(hint) => {
            format!("Completion refused ({status}): {hint}")
        }
        PromptFailure::Upstream(e) => {
            let said = e
                .message()
                .map(|m| format!(" The remote said: {m}"))
                .unwrap_or_default();
            format!(
                "Completion unavailable ({status}): the remote MCP server of `{}` could not \
                 complete prompt `{}`: {e}. Type the value instead.{said}",
                conn.catalog.connector, prompt.name
            )
        }
    };
    McpError::internal_error(message, Some(json!({"status": status, "reason": reason})))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_says_its_status_and_reason() {
        let timeout = PromptFailure::Upstream(UpstreamError::Unreachable);
        assert_eq!(
            (status_of(&timeout), reason_of(&timeout)),
            ("unavailable", "unreachable")
        );
        let refused = PromptFailure::Upstream(UpstreamError::RemoteError {
            code: -32602,
            message: None,
        });
        assert_eq!(status_of(&refused), "invalid_input");
        let spent = PromptFailure::OverBudget("used up".into());
        assert_eq!(
            (status_of(&spent), reason_of(&spent)),
            ("rate_limited", crate::call::BUDGET_REASON)
        );
    }
}
