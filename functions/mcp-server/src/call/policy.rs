//! The policy stage: what the tool's risk level asks before it may run. Today a high or
//! critical tool needs `confirm: true`; consent by a person replaces that (issue "Writes with
//! consent").

use catalog::{Risk, Status, Tool};

use super::outcome::Outcome;
use crate::contract::args::ValidArgs;
use crate::contract::risk;

/// Why the policy stops a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    #[error(
        "`{tool}` is a {level}-risk action: {effect} Ask the user, then call again with confirm=true."
    )]
    ConfirmationRequired {
        tool: String,
        level: &'static str,
        effect: String,
    },
}

impl From<PolicyError> for Outcome {
    fn from(e: PolicyError) -> Self {
        match &e {
            PolicyError::ConfirmationRequired { .. } => Outcome::failed(
                Status::ConfirmationRequired,
                "confirmation_required",
                e.to_string(),
            ),
        }
    }
}

/// `Ok` when the call may go on.
pub fn check(tool: &Tool, valid: &ValidArgs) -> Result<(), PolicyError> {
    if !risk::needs_confirmation(tool) || valid.confirm {
        return Ok(());
    }
    Err(PolicyError::ConfirmationRequired {
        tool: tool.name.clone(),
        level: if tool.risk == Risk::Critical {
            "critical"
        } else {
            "high"
        },
        effect: tool
            .side_effects
            .clone()
            .unwrap_or_else(|| "It changes data upstream.".into()),
    })
}
