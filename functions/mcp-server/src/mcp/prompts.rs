//! Catalog prompts over MCP: `prompts/list` from each scope's view (worked out once at start,
//! with `ttlMs` and `cacheScope` like `tools/list`) and `prompts/get`, which validates the
//! arguments like a tool call's and renders the template (`contract::prompt`). A prompt the
//! caller's profile may not use is "not found", as an unknown name is.

use std::collections::HashMap;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    ContentBlock, GetPromptResult, Prompt as McpPrompt, PromptArgument, PromptMessage,
    ResourceContents, Role,
};
use serde_json::{Map, Value, json};

use super::server::Mcp;
use crate::contract::prompt::Carried;
use crate::contract::{names, prompt};
use crate::inventory::{Inventory, Scope};

/// The most a `prompts/list` result may be: clients fetch it with the tools, and a person, not
/// the model, reads it (the catalog lint enforces it).
pub(crate) const MAX_BYTES: usize = 8 * 1024;

/// The size of a `prompts/list` result, compact JSON bytes.
pub(crate) fn bytes(prompts: &[McpPrompt]) -> usize {
    serde_json::to_vec(&json!({ "prompts": prompts })).map_or(0, |b| b.len())
}

/// Every scope's prompts, in catalog order.
pub(crate) fn build(inventory: &Inventory) -> HashMap<Scope, Vec<McpPrompt>> {
    let all: HashMap<&str, McpPrompt> = inventory
        .registry
        .prompts()
        .map(|(_, p)| (p.name.as_str(), definition(p)))
        .collect();
    std::iter::once(Scope::Deployment)
        .chain(
            inventory
                .profiles
                .names()
                .map(|n| Scope::Profile(n.to_string())),
        )
        .map(|scope| {
            let listed = inventory
                .view(&scope)
                .prompts
                .iter()
                .filter_map(|name| all.get(name.as_str()).cloned())
                .collect();
            (scope, listed)
        })
        .collect()
}

/// A catalog prompt as `prompts/list` shows it: arguments with their description, a hint of
/// their type, and whether they are required.
fn definition(p: &catalog::Prompt) -> McpPrompt {
    let arguments = p
        .arguments
        .iter()
        .map(|(name, param)| {
            let mut description = param.description.as_deref().unwrap_or_default().to_string();
            if let Some(kind) = kind_hint(param) {
                description = format!("{description} ({kind})").trim_start().to_string();
            }
            PromptArgument::new(name.clone())
                .with_description(description)
                .with_required(param.required)
        })
        .collect();
    let mut out = McpPrompt::new(p.name.clone(), Some(p.description.trim()), Some(arguments));
    if let Some(title) = &p.title {
        out = out.with_title(title.clone());
    }
    out
}

/// What a form field should hold, since prompt arguments travel as strings.
fn kind_hint(p: &catalog::Param) -> Option<String> {
    use catalog::ParamType::{
        Array, Boolean, Date, Datetime, Integer, Number, String as Text, TimeZone,
    };
    let bounds = match (p.min, p.max) {
        (Some(lo), Some(hi)) => format!(" {lo} to {hi}"),
        (Some(lo), None) => format!(" from {lo}"),
        (None, Some(hi)) => format!(" up to {hi}"),
        (None, None) => String::new(),
    };
    match p.kind {
        Integer => Some(format!("integer{bounds}")),
        Number => Some(format!("number{bounds}")),
        Boolean => Some("true or false".into()),
        Date => Some("date YYYY-MM-DD".into()),
        Datetime => Some("date and time with its zone, 2026-05-04T10:00[Europe/Berlin]".into()),
        TimeZone => Some("IANA time zone, Europe/Berlin".into()),
        Text => p
            .choices
            .as_ref()
            .map(|c| format!("one of {}", c.join(", "))),
        Array => None,
    }
}

impl Mcp {
    /// The prompts a scope lists.
    pub fn prompts(&self, scope: &Scope) -> Vec<McpPrompt> {
        self.prompts.get(scope).cloned().unwrap_or_default()
    }

    /// `prompts/get`: the rendered messages, or a protocol error naming what to fix (an
    /// unknown prompt; an argument that fails validation, with the tool call's hint).
    pub fn get_prompt(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<GetPromptResult, McpError> {
        let found = names::plain_name(name)
            .ok()
            .and_then(|n| self.inventory.registry.prompt(n))
            .filter(|(_, p)| self.inventory.view(scope).allows_prompt(&p.name));
        let Some((_, p)) = found else {
            return Err(McpError::invalid_params(
                format!(
                    "Prompt not found: `{}`. Call prompts/list for the available prompts.",
                    names::shown(name)
                ),
                None,
            ));
        };
        let messages = prompt::render(p, arguments).map_err(|e| {
            McpError::invalid_params(
                format!("Invalid arguments for prompt `{}`: {}", p.name, e.hint),
                Some(json!({ "status": "invalid_input", "hint": e.hint })),
            )
        })?;
        let messages = messages
            .into_iter()
            .flat_map(|m| {
                let role = match m.role {
                    catalog::PromptRole::User => Role::User,
                    catalog::PromptRole::Assistant => Role::Assistant,
                };
                // An MCP message holds one content: what a message carries follows its text.
                let carried = m.carries.map(|c| match c {
                    Carried::Resource {
                        uri,
                        mime_type,
                        text,
                    } => PromptMessage::new(
                        role.clone(),
                        ContentBlock::resource(ResourceContents::TextResourceContents {
                            uri,
                            mime_type: Some(mime_type),
                            text,
                            meta: None,
                        }),
                    ),
                    Carried::Image { mime_type, data } => {
                        PromptMessage::new(role.clone(), ContentBlock::image(data, mime_type))
                    }
                });
                std::iter::once(PromptMessage::new_text(role.clone(), m.text)).chain(carried)
            })
            .collect();
        Ok(GetPromptResult::new(messages).with_description(p.description.trim()))
    }
}
