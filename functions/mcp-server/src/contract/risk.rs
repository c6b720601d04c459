//! What a tool's declared risk level asks of a call before it may run.

use catalog::{Risk, Tool};

/// Whether a tool takes the confirmation flag (risky writes).
pub fn needs_confirmation(tool: &Tool) -> bool {
    matches!(tool.risk, Risk::High | Risk::Critical)
}
