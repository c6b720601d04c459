//! Records as resources: each get tool that declares a `resource` template is listed by
//! `resources/templates/list` (for the caller's scope) and read by `resources/read` through
//! the same call pipeline as the tool (validation, profile check, limits and budget, quota,
//! audit line). An unknown URI, a tool the scope may not see and a record the upstream does
//! not have get the same answer, so a read cannot probe what exists.

use std::time::Instant;

use catalog::Status;
use rmcp::ErrorData as McpError;
use rmcp::model::{CacheScope, ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use serde_json::json;

use super::audit;
use super::context::CallContext;
use super::definitions::{blob, into_result};
use super::server::Mcp;
use crate::contract::resource;
use crate::inventory::Scope;

/// How long a client may treat a read record as fresh: records change, but not by the second.
pub(super) const READ_TTL_MS: u64 = 60_000;

const NOT_FOUND: &str = "No such record. Find ids with the connector's list tools (or \
                         search_tools), then read `<connector>://<entity>/<id>`.";

/// What a tool's resource reads as: JSON, or a document's one declared type (none to promise
/// for several or a whole kind).
fn mime_of(t: &catalog::Tool) -> Option<String> {
    match t.answer.as_ref().and_then(|a| a.binary.as_ref()) {
        Some(b) if b.mime.len() == 1 && !b.mime[0].ends_with("/*") => Some(b.mime[0].to_string()),
        Some(_) => None,
        None => Some("application/json".to_string()),
    }
}

impl Mcp {
    /// The fixed resources this scope may read: tools whose `resource` has no placeholder.
    pub fn static_resources(&self, scope: &Scope) -> Vec<Resource> {
        let view = self.inventory.view(scope);
        self.inventory
            .registry
            .exposed()
            .filter(|(_, t)| view.allows(&t.name))
            .filter_map(|(_, t)| {
                let uri = t.resource.as_deref().filter(|u| !u.contains('{'))?;
                let summary = t.description.split(". ").next().unwrap_or_default();
                let resource = Resource::new(uri, t.name.clone())
                    .with_description(summary.trim_end_matches('.').to_string());
                Some(match mime_of(t) {
                    Some(m) => resource.with_mime_type(m),
                    None => resource,
                })
            })
            .collect()
    }

    /// The resource templates this scope may read.
    pub fn resource_templates(&self, scope: &Scope) -> Vec<ResourceTemplate> {
        let view = self.inventory.view(scope);
        self.inventory
            .registry
            .exposed()
            .filter(|(_, t)| view.allows(&t.name))
            .filter_map(|(_, t)| {
                let template = t.resource.as_deref().filter(|u| u.contains('{'))?;
                let summary = t.description.split(". ").next().unwrap_or_default();
                let template = ResourceTemplate::new(template, t.name.clone())
                    .with_description(summary.trim_end_matches('.').to_string());
                Some(match mime_of(t) {
                    Some(m) => template.with_mime_type(m),
                    None => template,
                })
            })
            .collect()
    }

    /// One record by its URI.
    pub async fn read_resource(
        &self,
        uri: &str,
        ctx: &CallContext,
    ) -> Result<ReadResourceResult, McpError> {
        let started = Instant::now();
        // The URI is the client's own; echoing it (SEP-2164) tells it nothing new.
        let not_found = || McpError::resource_not_found(NOT_FOUND, Some(json!({ "uri": uri })));
        let view = self.inventory.view(ctx.scope());
        let found = self
            .inventory
            .registry
            .exposed()
            .filter(|(_, t)| view.allows(&t.name))
            .find_map(|(c, t)| resource::arguments(t, uri).map(|args| (c, t, args)));
        let Some((conn, tool, args)) = found else {
            self.audit
                .write(&audit::unknown_resource(ctx, started.elapsed()));
            return Err(not_found());
        };
        let deadline = self.deadline(&ctx.request);
        let outcome = self
            .pipeline
            .call(
                conn,
                tool,
                &args,
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
        let (_, bytes) = into_result(&outcome);
        self.audit.write(&audit::tool_call(
            &tool.name,
            &conn.catalog.connector,
            tool.risk,
            tool.audit_event.as_deref(),
            &args,
            &outcome,
            bytes,
            ctx,
            started.elapsed(),
        ));
        match outcome.status {
            // A document tool's record is its document; a JSON record stays JSON.
            Status::Ok if tool.answer.as_ref().is_some_and(|a| a.binary.is_some()) => {
                let document = outcome.attachments.first().map(|a| a.document());
                let contents = document.map(|d| blob(uri, d)).into_iter().collect();
                Ok(ReadResourceResult::new(contents)
                    .with_ttl_ms(READ_TTL_MS)
                    .with_cache_scope(CacheScope::Private))
            }
            Status::Ok => {
                let contents = ResourceContents::TextResourceContents {
                    uri: uri.to_string(),
                    mime_type: Some("application/json".into()),
                    text: outcome.to_json().to_string(),
                    meta: None,
                };
                Ok(ReadResourceResult::new(vec![contents])
                    .with_ttl_ms(READ_TTL_MS)
                    // The record is the company's, read with the caller's rights.
                    .with_cache_scope(CacheScope::Private))
            }
            Status::NotFound | Status::InvalidInput => Err(not_found()),
            _ => Err(McpError::internal_error(
                outcome
                    .hint
                    .clone()
                    .unwrap_or_else(|| outcome.status.as_str().into()),
                Some(outcome.to_json()),
            )),
        }
    }
}
