//! MCP tasks on the wire (the 2026-07-28 extension `io.modelcontextprotocol/tasks`): a tool
//! call that started an upstream job answers its task; `tasks/get` reads it (the job read at
//! the upstream first when a poll is due) with the job's end inlined as the tool result;
//! `tasks/cancel` cancels the job upstream. A foreign, expired or unknown id is the same
//! `-32602`.
//!
//! A job that failed upstream is a tool result with `isError` (the tool ran; the upstream's job
//! did not succeed), so its task is `completed` with that result, as the extension says of tool
//! errors. `failed`, with a JSON-RPC error, is a job the upstream no longer knows (deleted, or its
//! records expired): no result of any kind came of the call.

use rmcp::ErrorData as McpError;
use rmcp::model::{CreateTaskResult, DetailedTask, GetTaskResult, TaskPayload, TaskStatus};

use super::context::CallContext;
use super::definitions::into_result;
use super::server::Mcp;
use crate::call::{Followed, Outcome, Question};
use crate::inventory::DeployedCatalog;
use crate::tasks::{Task, TaskStatus as Status};

impl Mcp {
    /// `tasks/get`: the task as it stands, its job read first when a poll is due.
    pub(super) async fn get_task(
        &self,
        id: &str,
        ctx: &CallContext,
    ) -> Result<GetTaskResult, McpError> {
        match self.follow_task(id, ctx).await? {
            Some(Followed {
                task,
                answer,
                questions,
                ..
            }) => Ok(GetTaskResult::new(detailed(&task, &answer, &questions))),
            None => Err(unknown(id)),
        }
    }

    /// The task `id` as the caller may see it, its job read first when a poll is due; `None`
    /// when the caller has no such task. The request that finds the job ended writes its call's
    /// audit line: the tool, the connector and how the job ended (no arguments: they were the
    /// start's, audited then).
    pub(super) async fn follow_task(
        &self,
        id: &str,
        ctx: &CallContext,
    ) -> Result<Option<Followed>, McpError> {
        let started = std::time::Instant::now();
        let deadline = self.deadline(&ctx.request);
        let request = self.task_request(ctx, &deadline);
        let found = self.served(ctx);
        let followed = self
            .pipeline
            .task(id, &found, request)
            .await
            .map_err(|e| unavailable(&e))?;
        if let Some(f) = followed.as_ref().filter(|f| f.ended)
            && let Some((_, tool)) = found(&f.task.connector, &f.task.tool)
        {
            self.audit_task(
                tool,
                &f.task.connector,
                &f.answer,
                "task_ended",
                ctx,
                started,
            );
        }
        Ok(followed)
    }

    /// `tasks/cancel`: the job cancelled upstream, then the task (an empty acknowledgement;
    /// the task's status tells how it ended).
    pub(super) async fn cancel_task(&self, id: &str, ctx: &CallContext) -> Result<(), McpError> {
        let started = std::time::Instant::now();
        let deadline = self.deadline(&ctx.request);
        let request = self.task_request(ctx, &deadline);
        let found = self.served(ctx);
        match self.pipeline.cancel_task(id, &found, request).await {
            Ok(Some((task, cancelled))) => {
                if cancelled {
                    self.audit_cancelled(&task, ctx, started);
                }
                Ok(())
            }
            Ok(None) => Err(unknown(id)),
            Err(e) => Err(unavailable(&e)),
        }
    }

    /// `tasks/update`: a person's answers to the questions of a task whose job waits for input,
    /// sent upstream (one audit line per answer, of the tool that sent it; a decline that
    /// cancelled the job writes the call's `task_cancelled` line). An empty acknowledgement
    /// whatever came of them: the next `tasks/get` shows where the job stands. An unknown task is
    /// refused.
    pub(super) async fn update_task(
        &self,
        id: &str,
        responses: &serde_json::Map<String, serde_json::Value>,
        ctx: &CallContext,
    ) -> Result<(), McpError> {
        let started = std::time::Instant::now();
        let deadline = self.deadline(&ctx.request);
        let request = self.task_request(ctx, &deadline);
        let found = self.served(ctx);
        let answered = match self
            .pipeline
            .answer_task(id, &found, responses, request)
            .await
        {
            Ok(Some(answered)) => answered,
            Ok(None) => return Err(unknown(id)),
            Err(e) => return Err(unavailable(&e)),
        };
        let task = &answered.task;
        if answered.cancelled {
            self.audit_cancelled(task, ctx, started);
        }
        for (tool, outcome) in answered
            .answers
            .iter()
            .flat_map(|(tool, outcomes)| outcomes.iter().map(move |o| (*tool, o)))
        {
            self.audit_task(tool, &task.connector, outcome, "task_input", ctx, started);
        }
        Ok(())
    }

    /// The call's end, as its audit line says it: cancelled on request, which failed nothing.
    fn audit_cancelled(&self, task: &Task, ctx: &CallContext, started: std::time::Instant) {
        if let Some((_, tool)) = self.served(ctx)(&task.connector, &task.tool) {
            let cancelled = Outcome::ok(serde_json::Map::new());
            self.audit_task(
                tool,
                &task.connector,
                &cancelled,
                "task_cancelled",
                ctx,
                started,
            );
        }
    }

    /// A task request's audit line: `tool`'s call on `connector` as `outcome` says, with
    /// `reason` where the outcome names none; no arguments (the start's line had them).
    fn audit_task(
        &self,
        tool: &catalog::Tool,
        connector: &str,
        outcome: &Outcome,
        reason: &str,
        ctx: &CallContext,
        started: std::time::Instant,
    ) {
        let (_, bytes) = into_result(outcome);
        let mut line = outcome.clone();
        line.reason.get_or_insert_with(|| reason.into());
        self.audit.write(&super::audit::tool_call(
            &tool.name,
            connector,
            tool.risk,
            tool.audit_event.as_deref(),
            &serde_json::Map::new(),
            &line,
            bytes,
            ctx,
            started.elapsed(),
        ));
    }

    /// Where a task's tool is served to this caller: its connector and tool, while the caller's
    /// profile still sees it.
    fn served<'a>(
        &'a self,
        ctx: &'a CallContext,
    ) -> impl Fn(&str, &str) -> Option<(&'a DeployedCatalog, &'a catalog::Tool)> + 'a {
        move |connector, tool| {
            self.inventory
                .find(ctx.scope(), tool)
                .filter(|(conn, _)| conn.catalog.connector == connector)
        }
    }

    /// The request a task's read or cancel runs as: the caller's, within the call deadline,
    /// counted on no budget (the start was).
    fn task_request<'a>(
        &'a self,
        ctx: &'a CallContext,
        deadline: &'a crate::upstream::Deadline,
    ) -> crate::call::Request<'a> {
        crate::call::Request {
            caller: &ctx.caller,
            view: self.inventory.view(ctx.scope()),
            deadline,
            admission: None,
            elicitation: crate::call::Elicitation::default(),
            progress: &crate::progress::NONE,
            jobs: crate::call::Jobs::Wait(deadline),
        }
    }
}

/// The answer to a call that started a job: its task.
pub(super) fn created(task: &Task) -> CreateTaskResult {
    CreateTaskResult::new(wire(task))
}

/// The task on the wire: status, times as ISO 8601, its time to live and poll interval.
pub(super) fn wire(task: &Task) -> rmcp::model::Task {
    let status = match task.status {
        Status::Working => TaskStatus::Working,
        Status::InputRequired => TaskStatus::InputRequired,
        Status::Failed if crate::call::job_gone(task) => TaskStatus::Failed,
        Status::Completed | Status::Failed => TaskStatus::Completed,
        Status::Cancelled => TaskStatus::Cancelled,
    };
    let state = match task.state.as_str() {
        "" => "started".to_string(),
        s => format!("`{s}`"),
    };
    rmcp::model::Task::new(
        task.id.clone(),
        status,
        crate::clock::iso_utc(task.created_ms),
        crate::clock::iso_utc(task.updated_ms),
    )
    .with_ttl_ms(task.ttl_ms)
    .with_poll_interval_ms(task.poll_every_ms)
    .with_status_message(format!("{} job {}: {state}.", task.connector, task.job_id))
}

/// The task with what it came to: the tool result once the job ended, or the error when no
/// result could come of it (the upstream no longer knows the job); while the job waits for
/// input, its questions as forms.
fn detailed(task: &Task, answer: &Outcome, questions: &[Question]) -> DetailedTask {
    let payload = match task.status {
        Status::Working => TaskPayload::Working,
        Status::InputRequired => TaskPayload::InputRequired {
            input_requests: questions.iter().filter_map(asking).collect(),
        },
        Status::Cancelled => TaskPayload::Cancelled,
        Status::Failed if crate::call::job_gone(task) => {
            let error = McpError::internal_error(
                answer.hint.clone().unwrap_or_default(),
                Some(serde_json::json!({"status": answer.status.as_str()})),
            );
            match serde_json::to_value(error) {
                Ok(serde_json::Value::Object(error)) => TaskPayload::Failed { error },
                _ => TaskPayload::Failed {
                    error: Default::default(),
                },
            }
        }
        Status::Completed | Status::Failed => {
            let (result, _) = into_result(answer);
            match serde_json::to_value(result) {
                Ok(serde_json::Value::Object(result)) => TaskPayload::Completed { result },
                _ => TaskPayload::Completed {
                    result: Default::default(),
                },
            }
        }
    };
    DetailedTask::new(wire(task), payload)
}

/// A question as the elicitation request that asks it.
fn asking(q: &Question) -> Option<(String, rmcp::model::InputRequest)> {
    let request = serde_json::json!({
        "method": "elicitation/create",
        "params": {"mode": "form", "message": q.message, "requestedSchema": q.form}
    });
    Some((q.key.clone(), serde_json::from_value(request).ok()?))
}

pub(super) fn unknown(id: &str) -> McpError {
    McpError::invalid_params(
        format!(
            "Task not found: `{}` is no task of yours (unknown, or expired).",
            crate::contract::names::shown(id)
        ),
        None,
    )
}

pub(super) fn unavailable(e: &crate::tasks::Unavailable) -> McpError {
    tracing::error!(error = %e, "a task request found no store");
    McpError::internal_error("The task store did not answer; ask again shortly.", None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::tests::working;
    use serde_json::json;

    #[test]
    fn a_task_goes_on_the_wire_with_its_times_and_intervals() {
        let t = working("abc", "o", 1_700_000_000_123);
        let v = serde_json::to_value(created(&t)).unwrap();
        assert_eq!(v["resultType"], "task");
        assert_eq!(v["taskId"], "abc");
        assert_eq!(v["status"], "working");
        assert_eq!(v["createdAt"], "2023-11-14T22:13:20.123Z");
        assert_eq!(v["ttlMs"], json!(crate::tasks::DEFAULT_TTL_MS));
        assert_eq!(v["pollIntervalMs"], 5000);
        assert!(v.get("ttl").is_none() && v.get("requestState").is_none());
    }

    #[test]
    fn a_job_that_failed_upstream_is_a_completed_task_with_an_error_result() {
        let t = Task {
            status: Status::Failed,
            ..working("abc", "o", 0)
        };
        let answer = Outcome::failed(catalog::Status::Error, "job_failed", "It failed.");
        let v = serde_json::to_value(GetTaskResult::new(detailed(&t, &answer, &[]))).unwrap();
        assert_eq!(v["status"], "completed");
        assert_eq!(v["result"]["isError"], true);
        assert_eq!(v["result"]["structuredContent"]["status"], "error");
        assert_eq!(v["resultType"], "complete");
    }
}
