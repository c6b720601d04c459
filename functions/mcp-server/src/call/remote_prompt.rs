//! A remote MCP server's prompt got through us (`prompts/get`): the caller's arguments go to the
//! remote as they came (prompt arguments are strings the remote checks), and a remote that asks
//! the person gets its state wrapped in ours, bound to the caller, the prompt and its
//! arguments, exactly as a remote tool's (`rounds`); a retry brings back only a genuine one.

use serde_json::{Map, Value};

use super::rounds::{self, Asking};
use super::{Caller, Pipeline, Resume, budget};
use crate::contract::args::ValidArgs;
use crate::inventory::DeployedCatalog;
use crate::upstream::remote::RemotePrompt;
use crate::upstream::{Deadline, RemoteInput, UpstreamError};

/// Who asks for which prompt, with what, and what came back from an earlier round.
pub struct PromptRequest<'a> {
    pub caller: &'a Caller,
    pub arguments: &'a Map<String, Value>,
    /// What our client can answer of input requests (passed on to the remote).
    pub input_capabilities: &'a Map<String, Value>,
    pub resume: Option<Resume<'a>>,
    pub deadline: &'a Deadline,
    /// What the edge admitted: the connector's budget reservation (one request), settled here.
    pub admission: Option<&'a crate::limits::Admission>,
}

/// The remote's answer: its `GetPromptResult` as it came, or its questions for the person with
/// the state wrapped in ours.
#[derive(Debug)]
pub enum PromptAnswer {
    Got(Map<String, Value>),
    Asks(Box<RemoteInput>),
}

/// Why a remote prompt gave no answer: a `requestState` this server did not issue for this
/// request (its hint says so), or the remote's failure.
#[derive(Debug)]
pub enum PromptFailure {
    InvalidState(String),
    /// The caller's daily budget on the connector is used up (the hint says until when).
    OverBudget(String),
    Upstream(UpstreamError),
}

impl Pipeline {
    /// One `prompts/get` of a remote prompt.
    pub async fn get_remote_prompt(
        &self,
        conn: &DeployedCatalog,
        prompt: &RemotePrompt,
        request: PromptRequest<'_>,
    ) -> Result<PromptAnswer, PromptFailure> {
        let connector = &conn.catalog.connector;
        let asking = Asking::Prompt(&prompt.name);
        let budget = request
            .admission
            .and_then(|a| a.budgets.get(connector.as_str()).copied());
        budget::admit(conn, budget)
            .map_err(|refused| PromptFailure::OverBudget(refused.hint.unwrap_or_default()))?;
        let mut valid = ValidArgs {
            values: request
                .arguments
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            ..ValidArgs::default()
        };
        let keys = self.confirmation_keys().await;
        // Without keys no question can be passed on (its state could not be signed).
        if !keys.is_empty() {
            valid.remote.capabilities = request.input_capabilities.clone();
        }
        if let Some(resume) = request.resume {
            rounds::resume(&keys, request.caller, connector, asking, &mut valid, resume).map_err(
                |refused| {
                    debug_assert_eq!(
                        refused.protocol_error,
                        Some(super::ProtocolError::InvalidRequestState)
                    );
                    PromptFailure::InvalidState(refused.hint.unwrap_or_default())
                },
            )?;
        }
        let arguments: Map<String, Value> = valid
            .values
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let answer = self
            .upstream
            .remote_prompt(
                conn,
                &prompt.remote_name,
                &arguments,
                &valid.remote,
                request.deadline,
            )
            .await;
        if let Some(a) = request.admission {
            self.limits.settle(a, connector, 1);
        }
        match answer {
            Ok(result) => Ok(PromptAnswer::Got(result)),
            Err(UpstreamError::RemoteInputRequired(asked)) => {
                match rounds::seal(&keys, request.caller, connector, asking, &valid, *asked) {
                    Some(sealed) => Ok(PromptAnswer::Asks(sealed)),
                    // A question we cannot wrap is not passed on: the remote's answer stays a
                    // failure, worded as its asking.
                    None => Err(PromptFailure::Upstream(UpstreamError::RemoteError {
                        code: -32021,
                        message: Some(
                            "the remote prompt asks for input this deployment cannot pass on"
                                .into(),
                        ),
                    })),
                }
            }
            Err(e) => Err(PromptFailure::Upstream(e)),
        }
    }
}
