//! MCP tasks over upstream jobs: one record per task, bound to the caller who started it.
//!
//! A tool that starts an upstream job (its catalog declares `job`) answers a task-capable
//! client with a task instead of waiting. The task is a [`Task`] record: an unguessable id,
//! who may see it, which job of which tool it follows, its status, and the finished job once
//! there is one. Nothing runs after a response: whichever instance is asked for the task reads
//! the record and, when the job is not finished and its poll is due, claims the poll, reads the
//! job at the upstream once and records what it found (`call::job` does that; this module only
//! keeps records).
//!
//! The rules every store keeps, so a task means the same on every instance:
//! - a task is answered only to its owner; a foreign, expired or unknown id is the same `None`;
//! - a finished task (completed, failed, cancelled) never changes again; one that works or
//!   waits for input (`input_required`) is not finished;
//! - a poll is claimed by moving `next_poll_ms` on from the value the claimer read, so two
//!   instances never poll one job together, and a result is recorded only under that claim.
//!
//! In memory per instance locally (`memory`); on Lambda one DynamoDB item per task in the
//! ledger's table (`table`), created before the task is answered and read strongly consistent.

mod memory;
mod table;

use serde_json::Value;

pub(crate) use memory::MemoryTasks;
pub use table::TableTasks;

/// How long a task is kept when the client asks for nothing else: past the longest job the
/// upstreams run (half an hour) and the hour their outputs live.
pub(crate) const DEFAULT_TTL_MS: u64 = 3_600_000;
/// The longest a client may ask a task to be kept.
pub(crate) const MAX_TTL_MS: u64 = 24 * 3_600_000;
/// The shortest: a task must outlive the polls that finish it.
pub(crate) const MIN_TTL_MS: u64 = 60_000;

/// A task's status, as both task wires name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Working,
    /// The job waits for a person's answer to the questions the task holds.
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [
            TaskStatus::Working,
            TaskStatus::InputRequired,
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ]
        .into_iter()
        .find(|s| s.as_str() == word)
    }

    /// Finished: the status never changes again.
    pub fn is_terminal(self) -> bool {
        !matches!(self, TaskStatus::Working | TaskStatus::InputRequired)
    }
}

/// One task: who owns it, which job it follows, where that job stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Unguessable (128 random bits as hex): the id is all a client needs to ask.
    pub id: String,
    /// Who may see it: the API key, the user's pseudonym and the profile (`call::job`).
    pub owner: String,
    /// The connector and the tool that started the job.
    pub connector: String,
    pub tool: String,
    /// The upstream's id of the job.
    pub job_id: String,
    pub status: TaskStatus,
    /// The upstream's own word for the job's state when last read (empty before the first read
    /// of an upstream whose start answer names none).
    pub state: String,
    pub created_ms: u64,
    pub updated_ms: u64,
    /// How long the task is kept from its creation.
    pub ttl_ms: u64,
    /// How often the job is read at the upstream.
    pub poll_every_ms: u64,
    /// When the job may be read next; moved on by whoever claims a poll.
    pub next_poll_ms: u64,
    /// The finished job as the upstream last answered it (its `data`), or why it could not be
    /// read; none while it works.
    pub end: Option<Value>,
    /// The questions the job waits to have answered, `{key: message}` as the upstream last
    /// listed them (bounded, `call::job`); none unless it waits for input.
    pub asked: Option<Value>,
}

impl Task {
    pub fn expires_ms(&self) -> u64 {
        self.created_ms.saturating_add(self.ttl_ms)
    }

    /// Past its time to live: answered as unknown, whatever the store still holds.
    pub fn expired(&self, now_ms: u64) -> bool {
        now_ms >= self.expires_ms()
    }

    /// The job may be read at the upstream now.
    pub fn poll_due(&self, now_ms: u64) -> bool {
        !self.status.is_terminal() && now_ms >= self.next_poll_ms
    }

    /// Whether `owner` may see it now.
    fn visible_to(&self, owner: &str, now_ms: u64) -> bool {
        self.owner == owner && !self.expired(now_ms)
    }
}

/// A new task id: 128 random bits; none without entropy (a guessable id would be a way into
/// another caller's task).
pub(crate) fn new_id() -> Option<String> {
    crate::random::hex(16)
}

/// Whether `id` has the form of the ids [`new_id`] makes: 32 lower-case hex digits.
fn is_id(id: &str) -> bool {
    id.len() == 32
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The store could not answer: the task request fails rather than guess.
#[derive(Debug, thiserror::Error)]
#[error("the task store did not answer: {0}")]
pub struct Unavailable(pub String);

/// Where tasks are kept.
pub enum TaskStore {
    Memory(MemoryTasks),
    Table(TableTasks),
}

impl Default for TaskStore {
    fn default() -> Self {
        TaskStore::Memory(MemoryTasks::default())
    }
}

impl TaskStore {
    /// Keeps a new task; returns once any instance can read it.
    pub async fn create(&self, task: &Task) -> Result<(), Unavailable> {
        match self {
            TaskStore::Memory(m) => m.create(task),
            TaskStore::Table(t) => t.create(task).await,
        }
    }

    /// The task, when `owner` may see it now; a foreign, expired or unknown id is `None`, and
    /// so is anything that is no id of ours (looked up nowhere).
    pub async fn get(
        &self,
        id: &str,
        owner: &str,
        now_ms: u64,
    ) -> Result<Option<Task>, Unavailable> {
        if !is_id(id) {
            return Ok(None);
        }
        let task = match self {
            TaskStore::Memory(m) => m.get(id),
            TaskStore::Table(t) => t.get(id).await?,
        };
        Ok(task.filter(|t| t.visible_to(owner, now_ms)))
    }

    /// Claims the due poll of `task` as read: its next poll moves to `next_poll_ms`, if nobody
    /// moved it since and the task still works. `false`: someone else polls, or it finished.
    pub async fn claim_poll(&self, task: &Task, next_poll_ms: u64) -> Result<bool, Unavailable> {
        match self {
            TaskStore::Memory(m) => Ok(m.claim_poll(task, next_poll_ms)),
            TaskStore::Table(t) => t.claim_poll(task, next_poll_ms).await,
        }
    }

    /// Records what a claimed poll found (`found`: the task as it now stands), if the claim
    /// (`claimed_next_ms`) still holds and the task still works; `false` when it did not hold.
    pub async fn record(&self, found: &Task, claimed_next_ms: u64) -> Result<bool, Unavailable> {
        match self {
            TaskStore::Memory(m) => Ok(m.record(found, claimed_next_ms)),
            TaskStore::Table(t) => t.record(found, claimed_next_ms).await,
        }
    }

    /// Marks an unfinished task cancelled (at `now_ms`); a finished one stays as it is. The task as
    /// it then stands, or `None` when `owner` has no such task.
    pub async fn cancel(
        &self,
        id: &str,
        owner: &str,
        now_ms: u64,
    ) -> Result<Option<Task>, Unavailable> {
        let Some(task) = self.get(id, owner, now_ms).await? else {
            return Ok(None);
        };
        if task.status.is_terminal() {
            return Ok(Some(task));
        }
        let cancelled = Task {
            status: TaskStatus::Cancelled,
            updated_ms: now_ms,
            ..task
        };
        let changed = match self {
            TaskStore::Memory(m) => m.cancel(&cancelled),
            TaskStore::Table(t) => t.cancel(&cancelled).await?,
        };
        match changed {
            true => Ok(Some(cancelled)),
            // It finished in the meantime: as it stands now.
            false => self.get(id, owner, now_ms).await,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two ids of the form [`new_id`] makes.
    const T1: &str = "00000000000000000000000000000001";
    const T2: &str = "00000000000000000000000000000002";

    /// A working task of `owner` created at `now`, polled every 5 s.
    pub(crate) fn working(id: &str, owner: &str, now: u64) -> Task {
        Task {
            id: id.into(),
            owner: owner.into(),
            connector: "replicate".into(),
            tool: "replicate_prediction_create".into(),
            job_id: "p1".into(),
            status: TaskStatus::Working,
            state: "starting".into(),
            created_ms: now,
            updated_ms: now,
            ttl_ms: DEFAULT_TTL_MS,
            poll_every_ms: 5_000,
            next_poll_ms: now + 5_000,
            end: None,
            asked: None,
        }
    }

    #[tokio::test]
    async fn a_task_is_seen_by_its_owner_only_and_not_after_its_time() {
        let store = TaskStore::default();
        let t = working(T1, "k|u|*", 1_000);
        store.create(&t).await.unwrap();
        assert_eq!(
            store.get(T1, "k|u|*", 2_000).await.unwrap(),
            Some(t.clone())
        );
        for (id, owner, at) in [
            (T1, "k|other|*", 2_000),
            (T1, "k|u|books", 2_000),
            (T2, "k|u|*", 2_000),
            (T1, "k|u|*", t.expires_ms()),
        ] {
            assert_eq!(
                store.get(id, owner, at).await.unwrap(),
                None,
                "{id} {owner} {at}"
            );
        }
    }

    #[tokio::test]
    async fn what_is_no_id_of_ours_is_looked_up_nowhere() {
        let store = TaskStore::default();
        let long = "a".repeat(100_000);
        let upper = T1.replace('1', "A");
        for id in [
            "",
            "t1",
            upper.as_str(),
            &long,
            "0000000000000000000000000000000g",
        ] {
            assert_eq!(store.get(id, "o", 0).await.unwrap(), None);
        }
        assert_eq!(new_id().map(|i| is_id(&i)), Some(true));
    }

    #[tokio::test]
    async fn one_claim_wins_a_poll_and_only_its_result_is_recorded() {
        let store = TaskStore::default();
        let t = working(T1, "o", 0);
        store.create(&t).await.unwrap();
        assert!(store.claim_poll(&t, 10_000).await.unwrap());
        assert!(
            !store.claim_poll(&t, 10_001).await.unwrap(),
            "read before the first claim"
        );
        let done = Task {
            status: TaskStatus::Completed,
            next_poll_ms: 10_000,
            end: Some(serde_json::json!({"output": "x"})),
            ..t.clone()
        };
        assert!(
            !store.record(&done, 9_999).await.unwrap(),
            "not under that claim"
        );
        assert!(store.record(&done, 10_000).await.unwrap());
        assert_eq!(store.get(T1, "o", 1).await.unwrap(), Some(done));
    }

    #[tokio::test]
    async fn a_finished_task_never_changes() {
        let store = TaskStore::default();
        let t = working(T1, "o", 0);
        store.create(&t).await.unwrap();
        let cancelled = store.cancel(T1, "o", 7).await.unwrap().unwrap();
        assert_eq!(cancelled.status, TaskStatus::Cancelled);
        let late = Task {
            status: TaskStatus::Completed,
            ..t.clone()
        };
        assert!(!store.record(&late, t.next_poll_ms).await.unwrap());
        assert!(!store.claim_poll(&cancelled, 99).await.unwrap());
        let again = store.cancel(T1, "o", 9).await.unwrap().unwrap();
        assert_eq!((again.status, again.updated_ms), (TaskStatus::Cancelled, 7));
        assert_eq!(store.cancel(T1, "someone", 9).await.unwrap(), None);
    }
}
