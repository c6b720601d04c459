//! The job stage: a tool whose catalog declares `job` starts work that goes on after the
//! upstream answered (a prediction, a video). After the start, the call either
//!
//! - keeps a **task** (the client holds tasks): one record in the task store, bound to the
//!   caller, answered at once; later `tasks/get` requests read the job through [`Pipeline::task`],
//!   on whichever instance they reach; or
//! - **waits**, bounded (the client holds no tasks): it reads the job every `poll_every` until
//!   it finished or the wait is over, then answers its result, or `pending` with the read tool
//!   and id that fetch it later: never a timeout error.
//!
//! A read of the job is a call of the catalog's `read` tool by the same caller through the same
//! stages (credentials, upstream, shape); a cancel a call of its `cancel` tool. What the reads
//! say is judged in `read`, without I/O.

mod input;
mod read;

pub(crate) use input::Question;
pub(crate) use read::gone;

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use catalog::{Job, Status, Tool};
use serde_json::{Map, Value};

use super::{Caller, Outcome, Pipeline, Request, stages};
use crate::clock::now_ms;
use crate::inventory::{DeployedCatalog, Registry};
use crate::tasks::{self, Task, TaskStatus, Unavailable};
use crate::upstream::Deadline;
use read::{Follow, Read};

/// How long a call waits for its job when the client holds no tasks: below API Gateway's 30 s.
pub(crate) const DEFAULT_WAIT: Duration = Duration::from_secs(25);

/// What the client can do with a job that goes on.
#[derive(Debug, Clone, Copy)]
pub enum Jobs<'a> {
    /// It holds tasks: the call answers with one, kept `ttl_ms` when it asked for a time.
    Task { ttl_ms: Option<u64> },
    /// It holds none: the call waits for the job until this deadline.
    Wait(&'a Deadline),
}

/// A task as its caller reads it: the record, and the answer about its job as it stands.
pub struct Followed {
    pub task: Task,
    pub answer: Outcome,
    /// This request recorded the job's end (once per task, on whichever instance found it):
    /// the moment its call's outcome is known, for the audit line.
    pub ended: bool,
    /// What the job asks the person while it waits for input (`job.input`), each with its form.
    pub questions: Vec<Question>,
}

/// What a person's answers to a waiting task's questions came to.
pub struct Answered<'c> {
    /// The task as it then stands.
    pub task: Task,
    /// The tool that answered, and each answer's outcome (one call per question answered).
    pub answers: Option<(&'c Tool, Vec<Outcome>)>,
    /// A question was declined: the job was cancelled, and this request cancelled the task.
    pub cancelled: bool,
}

/// The owner a task is bound to: the API key, the user's pseudonym (`-` for a key alone) and
/// the profile (`*` for the whole deployment); a request differing in any sees no task.
pub(crate) fn owner_of(caller: &Caller) -> String {
    format!(
        "{}|{}|{}",
        caller.key_id,
        caller.user.as_deref().unwrap_or("-"),
        caller.scope.profile().unwrap_or("*"),
    )
}

/// The tool that reads the job and its one path parameter, which takes the id (the loader
/// checked both).
fn follow<'a>(conn: &'a DeployedCatalog, job: &Job) -> Option<Follow<'a>> {
    let (read, param) = by_id_tool(conn, &job.read)?;
    Some(Follow {
        title: Registry::title(&conn.catalog),
        read,
        param,
    })
}

/// The catalog's tool `name` and its one path parameter, which takes a job's id.
fn by_id_tool<'a>(conn: &'a DeployedCatalog, name: &str) -> Option<(&'a Tool, &'a str)> {
    let tool = conn.catalog.tools.iter().find(|t| t.name == name)?;
    let (_, path) = tool.http()?;
    let hole = catalog::placeholders(path).into_iter().next()?;
    let param = tool.params.keys().find(|k| k.as_str() == hole)?;
    Some((tool, param.as_str()))
}

/// The tool that answers the questions of a job that waits for a person.
fn answering<'a>(conn: &'a DeployedCatalog, job: &Job) -> Option<&'a Tool> {
    let name = &job.input.as_ref()?.answer;
    conn.catalog.tools.iter().find(|t| &t.name == name)
}

/// The refusal of a tool that runs only as a task (`task: required`) to a client that holds no
/// tasks, before anything runs: the protocol error naming the extension it lacks.
pub(super) fn needs_a_task(tool: &Tool, jobs: Jobs<'_>) -> Option<Outcome> {
    let job = tool.job.as_deref()?;
    if job.task != catalog::TaskSupport::Required || matches!(jobs, Jobs::Task { .. }) {
        return None;
    }
    let mut refused = Outcome::failed(
        Status::InvalidInput,
        "task_required",
        format!(
            "`{}` runs only as an MCP task: call it from a client that declares the tasks \
             extension ({TASKS_EXTENSION}).",
            tool.name
        ),
    );
    refused.fields.insert(
        "required_capabilities".into(),
        serde_json::json!({"extensions": {TASKS_EXTENSION: {}}}),
    );
    refused.protocol_error = Some(super::ProtocolError::TaskRequired);
    Some(refused)
}

/// The MCP tasks extension's id (2026-07-28).
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

impl Pipeline {
    /// Job: after a tool that starts one answered, the job's task, or its end within the wait.
    /// Anything else (a refusal, a dry run, an answer without the job's id) passes as it is.
    pub(super) async fn job(
        &self,
        conn: &DeployedCatalog,
        tool: &Tool,
        job: &Job,
        started: Outcome,
        request: Request<'_>,
    ) -> Outcome {
        if started.status != Status::Ok || started.preview.is_some() {
            return started;
        }
        let Some(follow) = follow(conn, job) else {
            return started;
        };
        let data = started.fields.get("data").cloned().unwrap_or(Value::Null);
        let Some(job_id) = read::id(job, &data) else {
            tracing::warn!(tool = %tool.name, "a job's start answer holds no id where the catalog says");
            return started;
        };
        let now = now_ms();
        let every = u64::from(job.poll_every) * 1000;
        let begun = Task {
            id: String::new(),
            owner: owner_of(request.caller),
            connector: conn.catalog.connector.to_string(),
            tool: tool.name.to_string(),
            job_id,
            status: TaskStatus::Working,
            state: String::new(),
            created_ms: now,
            updated_ms: now,
            ttl_ms: tasks::DEFAULT_TTL_MS,
            poll_every_ms: every,
            next_poll_ms: now,
            end: None,
            asked: None,
        };
        let begun = read::advance(&begun, job, Read::Job(data), now);
        let mut answer = match request.jobs {
            Jobs::Task { ttl_ms } => self.keep(begun, ttl_ms, &follow).await,
            Jobs::Wait(wait) => {
                let ended = self.wait(conn, job, begun, &follow, wait, request).await;
                read::answer(job, &ended, &follow)
            }
        };
        answer.write = started.write;
        answer.http_status = started.http_status;
        answer.quota = started.quota;
        answer
    }

    /// Keeps the started job as a task; answered once any instance can read it. A store that
    /// cannot keep it still leaves the job running upstream: the answer says how to follow it.
    async fn keep(&self, begun: Task, ttl_ms: Option<u64>, follow: &Follow<'_>) -> Outcome {
        let task = tasks::new_id().map(|id| Task {
            id,
            ttl_ms: ttl_ms
                .unwrap_or(tasks::DEFAULT_TTL_MS)
                .clamp(tasks::MIN_TTL_MS, tasks::MAX_TTL_MS),
            ..begun.clone()
        });
        let kept = match task {
            Some(task) => self.tasks.create(&task).await.map(|()| task),
            None => Err(Unavailable("no entropy for a task id".into())),
        };
        match kept {
            Ok(task) => {
                let mut o = Outcome::ok(Map::new());
                // The audit line of the start; the request that finds the job ended writes
                // another, with how it ended.
                o.reason = Some("task_started".into());
                o.task = Some(Box::new(task));
                o
            }
            Err(e) => {
                tracing::error!(error = %e, "a started job could not be kept as a task");
                Outcome::failed(
                    Status::Unavailable,
                    "task_not_kept",
                    format!(
                        "{} started job {}, but it could not be kept as a task. Follow it with \
                         `{}` and `{}: {}`; do not start it again.",
                        follow.title, begun.job_id, follow.read.name, follow.param, begun.job_id
                    ),
                )
            }
        }
    }

    /// Reads the job every `poll_every` while it works and another read fits before `wait`
    /// runs out; the task as it then stands.
    async fn wait(
        &self,
        conn: &DeployedCatalog,
        job: &Job,
        mut task: Task,
        follow: &Follow<'_>,
        wait: &Deadline,
        request: Request<'_>,
    ) -> Task {
        let until = Instant::now() + wait.remaining().unwrap_or_default();
        let every = Duration::from_millis(task.poll_every_ms);
        while !task.status.is_terminal() && Instant::now() + every < until {
            tokio::time::sleep(every).await;
            let left = until.saturating_duration_since(Instant::now());
            let deadline = Deadline::after(request.deadline.budget().min(left));
            let read = self
                .read_job(conn, follow, &task.job_id, &deadline, request)
                .await;
            task = read::advance(&task, job, read, now_ms());
        }
        task
    }

    /// One read of the job: its `read` tool called by the same caller within `deadline`.
    async fn read_job(
        &self,
        conn: &DeployedCatalog,
        follow: &Follow<'_>,
        job_id: &str,
        deadline: &Deadline,
        request: Request<'_>,
    ) -> Read {
        match self
            .by_id(conn, follow.read, follow.param, job_id, deadline, request)
            .await
        {
            Some(outcome) => Read::of(&outcome),
            None => Read::NotNow,
        }
    }

    /// A call of `tool` with the job's id as its one argument; `None` when the id does not
    /// pass the tool's contract (a catalog whose read cannot take its own job's id).
    async fn by_id(
        &self,
        conn: &DeployedCatalog,
        tool: &Tool,
        param: &str,
        job_id: &str,
        deadline: &Deadline,
        request: Request<'_>,
    ) -> Option<Outcome> {
        let arguments = Map::from_iter([(param.to_string(), Value::String(job_id.into()))]);
        match self
            .following(conn, tool, &arguments, deadline, request)
            .await
        {
            Ok(outcome) => Some(outcome),
            Err(refused) => {
                tracing::error!(tool = %tool.name, hint = ?refused.hint, "a job's id does not pass the tool that follows it");
                None
            }
        }
    }

    /// A call of `tool` that follows a job the caller started: part of that call, so counted on
    /// no budget (the start was), within `deadline`. `Err`: the arguments do not pass its
    /// contract.
    async fn following(
        &self,
        conn: &DeployedCatalog,
        tool: &Tool,
        arguments: &Map<String, Value>,
        deadline: &Deadline,
        request: Request<'_>,
    ) -> Result<Outcome, Outcome> {
        let valid = match stages::validate(conn, tool, arguments) {
            ControlFlow::Continue(valid) => valid,
            ControlFlow::Break(refused) => return Err(refused),
        };
        let request = Request {
            deadline,
            admission: None,
            ..request
        };
        // Boxed: this call of the stages sits inside the call that started the job, whose
        // future would otherwise hold both.
        Ok(Box::pin(self.validated(conn, tool, &valid, request)).await)
    }

    /// The task `id` as the caller may see it; when its job works and a poll is due, the job is
    /// read at the upstream first, under a claim so no two instances read it together.
    /// `find` names the deployed connector and tool of a task (none: no longer served to this
    /// caller, and the task is answered as it stands). `None`: no such task for this caller.
    pub async fn task<'c>(
        &self,
        id: &str,
        find: impl Fn(&str, &str) -> Option<(&'c DeployedCatalog, &'c Tool)>,
        request: Request<'_>,
    ) -> Result<Option<Followed>, Unavailable> {
        let now = now_ms();
        let Some(mut task) = self.tasks.get(id, &owner_of(request.caller), now).await? else {
            return Ok(None);
        };
        let found = find(&task.connector, &task.tool);
        let Some((conn, job, follow)) = found.and_then(|(conn, tool)| {
            let job = tool.job.as_deref()?;
            Some((conn, job, follow(conn, job)?))
        }) else {
            return Ok(Some(Followed {
                ended: false,
                questions: Vec::new(),
                answer: Outcome::failed(
                    Status::NotFound,
                    "job_not_served",
                    format!(
                        "The tool that started job {} is no longer served here.",
                        task.job_id
                    ),
                ),
                task,
            }));
        };
        let mut ended = false;
        if task.poll_due(now) {
            let claimed = now.saturating_add(task.poll_every_ms);
            if self.tasks.claim_poll(&task, claimed).await? {
                let read = self
                    .read_job(conn, &follow, &task.job_id, request.deadline, request)
                    .await;
                let seen = Task {
                    next_poll_ms: claimed,
                    ..read::advance(&task, job, read, now_ms())
                };
                // The claim already moved the next poll on: a read that changed nothing is
                // not written again.
                let changed = (seen.status, &seen.state, &seen.asked)
                    != (task.status, &task.state, &task.asked);
                task = if !changed {
                    Task {
                        next_poll_ms: claimed,
                        ..task
                    }
                } else if self.tasks.record(&seen, claimed).await? {
                    ended = seen.status.is_terminal();
                    seen
                } else {
                    // Cancelled meanwhile: as it now stands.
                    let owner = owner_of(request.caller);
                    match self.tasks.get(id, &owner, now_ms()).await? {
                        Some(now_is) => now_is,
                        None => return Ok(None),
                    }
                };
            }
        }
        let questions = match (task.status, answering(conn, job)) {
            (TaskStatus::InputRequired, Some(tool)) => input::questions(&task, tool, follow.title),
            _ => Vec::new(),
        };
        Ok(Some(Followed {
            answer: read::answer(job, &task, &follow),
            task,
            ended,
            questions,
        }))
    }

    /// Cancels the task `id`: its job is cancelled upstream through the catalog's `cancel`
    /// tool, then the task is marked cancelled. A job the upstream would not cancel (it
    /// finished first, or the upstream is down) keeps its task as the next read finds it; a job
    /// no tool can cancel is only no longer followed. The task as it then stands, and whether
    /// this request cancelled it; `None`: no such task for this caller.
    pub async fn cancel_task<'c>(
        &self,
        id: &str,
        find: impl Fn(&str, &str) -> Option<(&'c DeployedCatalog, &'c Tool)>,
        request: Request<'_>,
    ) -> Result<Option<(Task, bool)>, Unavailable> {
        let owner = owner_of(request.caller);
        let Some(task) = self.tasks.get(id, &owner, now_ms()).await? else {
            return Ok(None);
        };
        if task.status.is_terminal() {
            return Ok(Some((task, false)));
        }
        let cancel = find(&task.connector, &task.tool).and_then(|(conn, tool)| {
            let (cancel, param) = by_id_tool(conn, tool.job.as_deref()?.cancel.as_deref()?)?;
            Some((conn, cancel, param))
        });
        if let Some((conn, cancel, param)) = cancel {
            let outcome = self
                .by_id(conn, cancel, param, &task.job_id, request.deadline, request)
                .await;
            if outcome.is_none_or(|o| o.status != Status::Ok) {
                return Ok(Some((task, false)));
            }
        }
        let now_is = self.tasks.cancel(id, &owner, now_ms()).await?;
        Ok(now_is.map(|t| {
            let cancelled = t.status == TaskStatus::Cancelled;
            (t, cancelled)
        }))
    }

    /// A person's answers (`responses`, by question key) to the questions of the waiting task
    /// `id`: each accepted one sent upstream through the job's `answer` tool, one call per
    /// question; a key the task does not ask is ignored. A declined (or dismissed) question
    /// cancels the job, as `tasks/cancel` does: the person said it should not go on. Answered,
    /// the job falls due to be read at once, so the next `tasks/get` shows what it asks now.
    /// `None`: no such task for this caller.
    pub async fn answer_task<'c>(
        &self,
        id: &str,
        find: impl Fn(&str, &str) -> Option<(&'c DeployedCatalog, &'c Tool)>,
        responses: &Map<String, Value>,
        request: Request<'_>,
    ) -> Result<Option<Answered<'c>>, Unavailable> {
        let owner = owner_of(request.caller);
        let Some(task) = self.tasks.get(id, &owner, now_ms()).await? else {
            return Ok(None);
        };
        let asked = task.asked.as_ref().and_then(Value::as_object);
        let open: Vec<(&String, &Value)> = responses
            .iter()
            .filter(|(key, _)| asked.is_some_and(|a| a.contains_key(key.as_str())))
            .collect();
        let served = find(&task.connector, &task.tool)
            .and_then(|(conn, tool)| Some((conn, answering(conn, tool.job.as_deref()?)?)));
        let (Some((conn, tool)), false) = (served, open.is_empty()) else {
            return Ok(Some(Answered {
                task,
                answers: None,
                cancelled: false,
            }));
        };
        if open
            .iter()
            .any(|(_, r)| r.get("action").and_then(Value::as_str) != Some("accept"))
        {
            let (task, cancelled) = match self.cancel_task(id, &find, request).await? {
                Some(cancelled) => cancelled,
                None => return Ok(None),
            };
            return Ok(Some(Answered {
                task,
                answers: None,
                cancelled,
            }));
        }
        let mut outcomes = Vec::new();
        for (key, response) in open {
            let content = response.get("content").and_then(Value::as_object);
            let Some(arguments) =
                input::arguments(tool, &task.job_id, key, content.unwrap_or(&Map::new()))
            else {
                continue;
            };
            let outcome = self
                .following(conn, tool, &arguments, request.deadline, request)
                .await;
            outcomes.push(outcome.unwrap_or_else(|refused| refused));
        }
        // Read the job again at the next `tasks/get` (a poll under way keeps its claim).
        self.tasks.claim_poll(&task, now_ms()).await?;
        Ok(Some(Answered {
            task,
            answers: Some((tool, outcomes)),
            cancelled: false,
        }))
    }
}
