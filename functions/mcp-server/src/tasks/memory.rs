//! Tasks in memory, per instance: the local default (tests and `serve`). The same conditions
//! as the table's, under one lock.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{Task, TaskStatus, Unavailable};

/// The most tasks one instance keeps; past it, expired ones go first, then new tasks wait.
pub(crate) const MAX_TASKS: usize = 10_000;

#[derive(Debug, Default)]
pub struct MemoryTasks {
    tasks: Mutex<HashMap<String, Task>>,
}

impl MemoryTasks {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Task>> {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn create(&self, task: &Task) -> Result<(), Unavailable> {
        let mut tasks = self.lock();
        if tasks.len() >= MAX_TASKS {
            tasks.retain(|_, t| !t.expired(task.created_ms));
            if tasks.len() >= MAX_TASKS {
                return Err(Unavailable("too many tasks are being kept".into()));
            }
        }
        if tasks.contains_key(&task.id) {
            return Err(Unavailable("the task id is taken".into()));
        }
        tasks.insert(task.id.clone(), task.clone());
        Ok(())
    }

    pub fn get(&self, id: &str) -> Option<Task> {
        self.lock().get(id).cloned()
    }

    pub fn claim_poll(&self, task: &Task, next_poll_ms: u64) -> bool {
        self.update(&task.id, task.next_poll_ms, |t| {
            t.next_poll_ms = next_poll_ms
        })
    }

    pub fn record(&self, found: &Task, claimed_next_ms: u64) -> bool {
        self.update(&found.id, claimed_next_ms, |t| *t = found.clone())
    }

    pub fn cancel(&self, cancelled: &Task) -> bool {
        let mut tasks = self.lock();
        match tasks.get_mut(&cancelled.id) {
            Some(t) if !t.status.is_terminal() => {
                t.status = TaskStatus::Cancelled;
                t.updated_ms = cancelled.updated_ms;
                true
            }
            _ => false,
        }
    }

    /// Changes an unfinished task whose next poll is still `next_poll_ms`.
    fn update(&self, id: &str, next_poll_ms: u64, change: impl FnOnce(&mut Task)) -> bool {
        let mut tasks = self.lock();
        match tasks.get_mut(id) {
            Some(t) if !t.status.is_terminal() && t.next_poll_ms == next_poll_ms => {
                change(t);
                true
            }
            _ => false,
        }
    }
}
