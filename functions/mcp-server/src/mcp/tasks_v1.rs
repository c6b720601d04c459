//! MCP tasks in the 2025-11-25 generation's shapes, for the requests the edge hands on under our
//! own methods (`http/tasks_v1.rs`): a task-augmented `tools/call` answers `{task}`; `tasks/get`
//! the task itself (`ttl`, `pollInterval`; a job that failed upstream is `failed`, as that
//! generation words a tool error); `tasks/result` the tool result with the related-task
//! `_meta`, after waiting for the job as a call does; `tasks/cancel` the cancelled task (a
//! finished one is refused). `tasks/list` is not offered (the capability does not declare it).
//! The same records, claims and upstream reads as the 2026-07-28 extension (`tasks`).

use std::time::{Duration, Instant};

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ErrorCode};
use serde::Deserialize;
use serde_json::{Value, json};

use super::context::CallContext;
use super::definitions::into_result;
use super::server::Mcp;
use super::tasks::unknown;
use crate::call::Followed;
use crate::tasks::{Task, TaskStatus};

/// The methods the edge hands on: `<TASKS_V1_PREFIX><2025-11-25 method>`.
pub(crate) const TASKS_V1_PREFIX: &str = "hosted-mcp/2025-11-25/";

/// The `_meta` key a task's result names its task under.
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

#[derive(Deserialize)]
struct Augmented {
    #[serde(flatten)]
    call: CallToolRequestParams,
    task: TaskParams,
}

#[derive(Deserialize)]
struct TaskParams {
    ttl: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ById {
    task_id: String,
}

fn params<T: for<'de> Deserialize<'de>>(params: Option<Value>) -> Result<T, McpError> {
    serde_json::from_value(params.unwrap_or(Value::Null))
        .map_err(|e| McpError::invalid_params(format!("Invalid params: {e}"), None))
}

impl Mcp {
    /// One request of the 2025-11-25 task wire (`method` without our prefix).
    pub(super) async fn task_v1(
        &self,
        method: &str,
        raw: Option<Value>,
        mut ctx: CallContext,
    ) -> Result<Value, McpError> {
        match method {
            "tools/call" => {
                let Augmented { call, task } = params(raw)?;
                if !self.job_tools.contains_key(call.name.as_ref()) {
                    // `execution.taskSupport` is absent (forbidden) on every other tool.
                    return Err(McpError::new(
                        ErrorCode::METHOD_NOT_FOUND,
                        format!(
                            "`{}` does not run as a task: call it without `task`.",
                            crate::contract::names::shown(&call.name)
                        ),
                        None,
                    ));
                }
                ctx.tasks = true;
                ctx.task_ttl_ms = task.ttl;
                // Boxed: a whole tool call inside this request's future would hold both on the
                // worker's stack.
                match Box::pin(self.tool_call(call, &ctx)).await? {
                    CallToolResponse::Task(created) => Ok(json!({"task": v1(&created.task)})),
                    // Refused before any job started: the tool's answer says why.
                    CallToolResponse::Complete(result) => serde_json::to_value(result)
                        .map_err(|e| McpError::internal_error(e.to_string(), None)),
                    _ => Err(McpError::internal_error(
                        "the call asked for input, which a 2025-11-25 task cannot carry",
                        None,
                    )),
                }
            }
            "tasks/get" => {
                let ById { task_id } = params(raw)?;
                let Followed { task, .. } = self.followed(&task_id, &ctx).await?;
                Ok(v1_of(&task))
            }
            "tasks/result" => {
                let ById { task_id } = params(raw)?;
                let Followed { task, answer, .. } = self.waited(&task_id, &ctx).await?;
                let (result, _) = into_result(&answer);
                let mut result = serde_json::to_value(result)
                    .map_err(|e| McpError::internal_error(e.to_string(), None))?;
                result["_meta"] = json!({RELATED_TASK: {"taskId": task.id}});
                Ok(result)
            }
            "tasks/cancel" => {
                let ById { task_id } = params(raw)?;
                let Followed { task, .. } = self.followed(&task_id, &ctx).await?;
                if task.status.is_terminal() {
                    return Err(McpError::invalid_params(
                        format!(
                            "Task `{task_id}` already finished ({}); it cannot be cancelled.",
                            task.status.as_str()
                        ),
                        None,
                    ));
                }
                self.cancel_task(&task_id, &ctx).await?;
                let Followed { task, .. } = self.followed(&task_id, &ctx).await?;
                Ok(v1_of(&task))
            }
            other => Err(McpError::new(
                ErrorCode::METHOD_NOT_FOUND,
                other.to_string(),
                None,
            )),
        }
    }

    /// The task as the caller may see it (its job read first when a poll is due).
    async fn followed(&self, id: &str, ctx: &CallContext) -> Result<Followed, McpError> {
        Box::pin(self.follow_task(id, ctx))
            .await?
            .ok_or_else(|| unknown(id))
    }

    /// The task once its job ended, or as it stands when the wait a call gets is over.
    async fn waited(&self, id: &str, ctx: &CallContext) -> Result<Followed, McpError> {
        let until = Instant::now()
            + self
                .job_deadline(&ctx.request)
                .remaining()
                .unwrap_or_default();
        loop {
            let followed = self.followed(id, ctx).await?;
            let every = Duration::from_millis(followed.task.poll_every_ms);
            if followed.task.status.is_terminal() || Instant::now() + every >= until {
                return Ok(followed);
            }
            tokio::time::sleep(every).await;
        }
    }
}

/// A task of ours in the 2025-11-25 shape.
fn v1_of(task: &Task) -> Value {
    let mut wire = super::tasks::wire(task);
    if task.status == TaskStatus::Failed {
        wire.status = rmcp::model::TaskStatus::Failed;
    }
    v1(&wire)
}

/// A task in the 2025-11-25 shape: `ttl` and `pollInterval` in milliseconds.
fn v1(task: &rmcp::model::Task) -> Value {
    let mut v = json!({
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ttl": task.ttl_ms,
    });
    if let Some(every) = task.poll_interval_ms {
        v["pollInterval"] = every.into();
    }
    if let Some(message) = &task.status_message {
        v["statusMessage"] = message.clone().into();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::tests::working;

    #[test]
    fn a_task_in_the_older_shape_names_ttl_and_poll_interval_and_fails_as_failed() {
        let t = working("abc", "o", 0);
        let v = v1_of(&t);
        assert_eq!(v["taskId"], "abc");
        assert_eq!(v["ttl"], crate::tasks::DEFAULT_TTL_MS);
        assert_eq!(v["pollInterval"], 5000);
        assert!(
            v.get("ttlMs").is_none() && v.get("resultType").is_none(),
            "{v}"
        );
        let failed = Task {
            status: TaskStatus::Failed,
            ..t
        };
        assert_eq!(v1_of(&failed)["status"], "failed");
    }
}
