//! The answers of the meta tools that call no catalog tool: `search_tools`, `connections`, and
//! `call_tool` naming a tool nobody can see (the closest names, as a result the model reads).
//! Each writes its own audit line.

use std::time::Instant;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

use super::context::CallContext;
use super::definitions::into_result;
use super::server::Mcp;
use super::{audit, meta};
use crate::call::Outcome;

impl Mcp {
    /// `call_tool` with a name nobody can see: a result the model reads, with the closest tools.
    pub(super) fn unknown_via_call_tool(
        &self,
        name: &str,
        ctx: &CallContext,
        started: Instant,
    ) -> CallToolResult {
        self.audit.write(&audit::unknown_tool(
            name,
            &Map::new(),
            ctx,
            started.elapsed(),
        ));
        let answer = self.inventory.search().search_in(
            &meta::closest_request(name),
            self.inventory.visibility(ctx.scope()),
        );
        let closest: Vec<&str> = answer.structured["tools"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_str().or(t["name"].as_str()))
                    .collect()
            })
            .unwrap_or_default();
        let closest = if closest.is_empty() {
            "none".to_string()
        } else {
            closest.join(", ")
        };
        into_result(&Outcome::failed(
            catalog::Status::NotFound,
            "unknown_tool",
            format!(
                "No tool `{name}`. Closest: {closest}. Use search_tools to find the right one."
            ),
        ))
        .0
    }

    /// `connections`: the caller's own connections, listed or one disconnected.
    pub(super) async fn connections(
        &self,
        arguments: &Map<String, Value>,
        ctx: &CallContext,
        started: Instant,
    ) -> CallToolResult {
        let outcome = match meta::connections_request(arguments) {
            Err(hint) => invalid(hint),
            Ok(request) => {
                let connectors: Vec<&catalog::Catalog> = self
                    .inventory
                    .registry
                    .catalogs
                    .iter()
                    .map(|c| &c.catalog)
                    .filter(|c| c.auth.oauth_user.is_some())
                    .collect();
                self.pipeline
                    .connections(&ctx.caller, &request, &connectors)
                    .await
            }
        };
        let (result, bytes) = into_result(&outcome);
        self.audit.write(&audit::connections(
            arguments,
            &outcome,
            bytes,
            ctx,
            started.elapsed(),
        ));
        result
    }

    /// `search_tools` over what the caller's view may see.
    pub(super) async fn search(
        &self,
        arguments: &Map<String, Value>,
        ctx: &CallContext,
        started: Instant,
    ) -> CallToolResult {
        let request = match meta::search_request(arguments) {
            Ok(r) => r,
            Err(hint) => {
                let (result, bytes) = into_result(&invalid(hint));
                self.audit.write(&audit::search(
                    arguments,
                    "invalid_input",
                    bytes,
                    None,
                    ctx,
                    started.elapsed(),
                ));
                return result;
            }
        };
        let with_remotes = self.search_index(&ctx.caller).await;
        let (index, visibility) = match &with_remotes {
            Some((index, visibility)) => (index.as_ref(), visibility),
            None => (
                self.inventory.search(),
                self.inventory.visibility(ctx.scope()),
            ),
        };
        let answer = index.search_in(&request, visibility);
        // What users looked for and did not find, for the digest: only the words the catalogs
        // know; the others (names, addresses: possibly personal) are only counted.
        let no_match = (answer.matched == 0).then(|| index.known_words(&request.query));
        self.audit.write(&audit::search(
            arguments,
            "ok",
            answer.bytes(),
            no_match,
            ctx,
            started.elapsed(),
        ));
        let mut result = CallToolResult::structured(answer.structured);
        result.content = vec![ContentBlock::text(answer.text)];
        result
    }
}

/// Arguments a meta tool refuses: an `invalid_argument` outcome with the hint.
fn invalid(hint: String) -> Outcome {
    Outcome::failed(catalog::Status::InvalidInput, "invalid_argument", hint)
}

/// The result for a meta tool's refused arguments.
pub(super) fn refused(hint: String) -> CallToolResult {
    into_result(&invalid(hint)).0
}
