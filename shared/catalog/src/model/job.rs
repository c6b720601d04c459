//! An upstream job: a tool whose call starts work that goes on after the upstream answered (a
//! prediction, a video generation), and how to follow it to its end.

use serde::{Deserialize, Serialize};

use super::text::Text;

/// How to follow the job a tool starts: where its id and state are, the tools that read and
/// cancel it, what its states mean, and where its result is. The same declaration serves every
/// upstream that runs jobs; the server runs such a call as an MCP task.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// Where the job's id is in the start answer, a JSON pointer (`/id`).
    pub id: Text,
    /// Where the job's state is, in the start answer and in `read`'s answer (`/status`).
    pub state: Text,
    /// The get tool of this catalog that returns the job; its one path parameter takes the id.
    pub read: Text,
    /// The tool of this catalog that cancels the job, its one path parameter taking the id;
    /// unset when the upstream cannot cancel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<Text>,
    /// The upstream's states, each under the task status it means.
    pub states: JobStates,
    /// Where the result is in the finished job (`/output`); the whole job when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Text>,
    /// Where a failed job says why (`/error`, `/failure`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Text>,
    /// Where the finished job's media are: each pointer names a URL string or an array of them
    /// (`/output`), passed on as links or, within the output cap, as content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<Text>,
    /// Seconds between two reads of the job at the upstream.
    #[serde(default = "five_seconds")]
    pub poll_every: u32,
    /// Seconds the upstream may hold the start request until the job is done (sent as
    /// `Prefer: wait=N`), for upstreams that offer it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefer_wait: Option<u32>,
    /// Seconds the upstream keeps a finished job's output before deleting it; the result says
    /// until when it can be fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_lives: Option<u32>,
    /// Whether a client must hold MCP tasks to call the tool: `optional` (the default: a client
    /// without tasks gets the call waited for) or `required` (it is refused, naming the tasks
    /// capability it lacks).
    #[serde(default, skip_serializing_if = "TaskSupport::is_optional")]
    pub task: TaskSupport,
    /// A job that waits for a person while it runs (its `states.input_required`): where it
    /// lists its open questions and the tool that answers one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<JobInput>,
}

/// The questions a waiting job asks a person, and how an answer goes back: one call of the
/// `answer` tool per question, its path taking the job's id and then the question's key, its
/// other parameters the form the person fills in.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JobInput {
    /// Where the waiting job lists its open questions, a JSON pointer to an object keyed by
    /// each question's key (`/questions`).
    pub questions: Text,
    /// Where a question says what it asks, a JSON pointer within the question (`/message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Text>,
    /// The write tool of this catalog that answers one question.
    pub answer: Text,
}

/// Whether a tool that starts a job runs for clients without MCP tasks.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TaskSupport {
    /// Waited for within a bounded time, then `pending`.
    #[default]
    Optional,
    /// Only as a task: a client without tasks is refused.
    Required,
}

impl TaskSupport {
    pub fn is_optional(&self) -> bool {
        *self == TaskSupport::Optional
    }

    /// The word `execution.taskSupport` uses (2025-11-25).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// The upstream's job states under the MCP task status each means. A state that is in no list
/// is read as still working, and said so in the task's status message.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JobStates {
    /// Not finished yet (`starting`, `processing`; `PENDING`, `THROTTLED`, `RUNNING`).
    pub working: Vec<Text>,
    /// Finished with a result (`succeeded`).
    pub completed: Vec<Text>,
    /// Finished without one (`failed`).
    pub failed: Vec<Text>,
    /// Cancelled (`canceled`, `CANCELLED`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cancelled: Vec<Text>,
    /// Waiting for a person's answer to the questions `input` points at.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_required: Vec<Text>,
}

fn five_seconds() -> u32 {
    5
}
