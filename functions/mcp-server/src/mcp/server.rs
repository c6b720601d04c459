//! What every MCP request needs, built once at start: the inventory, the call pipeline, the
//! audit log and each scope's `tools/list` (each built on its scope's first `tools/list`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{Prompt as McpPrompt, Tool as McpTool};

use super::{lists, prompts};
use crate::call::Pipeline;
use crate::call::RequestMeta;
use crate::inventory::{Inventory, Scope};
use crate::upstream::Deadline;

/// Margin kept between a tool call's deadline and the end of the Lambda invocation, so the
/// call can still answer and write its audit line.
pub(super) const INVOCATION_MARGIN: Duration = Duration::from_secs(2);

/// Everything an MCP request needs, built once at start.
pub struct Mcp {
    pub inventory: Arc<Inventory>,
    pub pipeline: Pipeline,
    pub audit: ::audit::AuditLog,
    pub redactor: ::audit::Redactor,
    /// Each scope's `tools/list`, worked out on its first request.
    lists: lists::Lists,
    /// Each scope's `prompts/list`, worked out once.
    pub(super) prompts: HashMap<Scope, Vec<McpPrompt>>,
    /// Whether any catalog declares prompts (the `prompts` capability).
    pub(super) has_prompts: bool,
    /// Whether any prompt argument or tool param declares `complete`, or a remote MCP server
    /// is federated (the `completions` capability).
    pub(super) has_completions: bool,
    /// The most a tool call may take (the Lambda timeout minus a margin).
    pub call_deadline: Duration,
    /// How long a client may cache `tools/list` (the catalog changes only on deploy).
    pub list_ttl: Duration,
    /// Whether lists differ by caller (profiles configured): `cacheScope: private`.
    pub lists_are_private: bool,
    /// `search_tools` over catalog and remote tools, once remotes were fetched.
    pub(super) remote_search: super::remote::RemoteSearch,
    /// Whether some connector acts with each person's own account (`connections` is listed).
    pub(super) has_connections: bool,
    /// The tools that start an upstream job, and whether they run only as tasks (the tasks
    /// extension is declared when there are any).
    pub(super) job_tools: std::collections::HashMap<String, catalog::TaskSupport>,
}

impl Mcp {
    pub fn new(
        inventory: Arc<Inventory>,
        pipeline: Pipeline,
        audit: ::audit::AuditLog,
        redactor: ::audit::Redactor,
        call_deadline: Duration,
        list_ttl: Duration,
    ) -> Self {
        let lists = lists::Lists::new(inventory.clone());
        let lists_are_private = inventory.profiles.names().next().is_some();
        let prompts = prompts::build(&inventory);
        let catalogs = || inventory.registry.catalogs.iter().map(|c| &c.catalog);
        // A remote MCP server may have prompts: known only once asked, so a deployment that
        // federates one declares the capability (and may list none).
        let has_prompts = catalogs().any(|c| !c.prompts.is_empty() || c.mcp.is_some());
        // Likewise its prompts' arguments may be completable: known only once asked.
        let has_completions = catalogs().any(|c| {
            c.mcp.is_some()
                || c.prompts
                    .iter()
                    .flat_map(|p| p.arguments.values())
                    .chain(
                        c.tools
                            .iter()
                            .flat_map(|t| t.params.values().map(Box::as_ref)),
                    )
                    .any(|p| p.complete.is_some())
        });
        let has_connections = catalogs().any(|c| c.auth.oauth_user.is_some());
        let job_tools = catalogs()
            .flat_map(|c| c.tools.iter())
            .filter_map(|t| Some((t.name.to_string(), t.job.as_deref()?.task)))
            .collect();
        Mcp {
            job_tools,
            has_connections,
            inventory,
            pipeline,
            audit,
            redactor,
            lists,
            prompts,
            has_prompts,
            has_completions,
            call_deadline,
            list_ttl,
            lists_are_private,
            remote_search: Default::default(),
        }
    }

    /// The tools that start an upstream job, answered as tasks to clients that hold them, and
    /// whether they run only so.
    pub fn job_tools(&self) -> &std::collections::HashMap<String, catalog::TaskSupport> {
        &self.job_tools
    }

    /// The tools a scope lists.
    pub fn listed(&self, scope: &Scope) -> Vec<McpTool> {
        self.lists.get(scope).to_vec()
    }

    /// How many tools the whole deployment lists (without building its list).
    pub fn listed_count(&self) -> usize {
        self.lists.count(&Scope::Deployment)
    }

    /// How many scopes' `tools/list` were built so far (a cold instance: none).
    pub fn lists_built(&self) -> usize {
        self.lists.built()
    }

    /// One call's deadline: the configured budget, cut to what the Lambda invocation has left.
    pub fn deadline(&self, request: &RequestMeta) -> Deadline {
        within_invocation(self.call_deadline, request)
    }

    /// How long a call waits for the upstream job it started, when the client holds no tasks:
    /// the pipeline's wait, cut to what the Lambda invocation has left.
    pub(super) fn job_deadline(&self, request: &RequestMeta) -> Deadline {
        within_invocation(self.pipeline.job_wait(), request)
    }

    /// A completion's deadline: the call's, and at most `COMPLETION_DEADLINE`.
    pub(super) fn completion_deadline(&self, request: &RequestMeta) -> Deadline {
        Deadline::after(
            self.deadline(request)
                .remaining()
                .unwrap_or_default()
                .min(COMPLETION_DEADLINE),
        )
    }
}

/// The longest a completion may wait for its upstream or remote: a person is typing.
const COMPLETION_DEADLINE: Duration = Duration::from_secs(5);

/// A deadline of `budget`, cut to what the Lambda invocation has left (less the margin an
/// answer and its audit line need).
fn within_invocation(budget: Duration, request: &RequestMeta) -> Deadline {
    Deadline::after(match request.time_left {
        Some(left) => budget.min(left.saturating_sub(INVOCATION_MARGIN)),
        None => budget,
    })
}
