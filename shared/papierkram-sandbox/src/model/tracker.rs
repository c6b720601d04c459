//! Projects and the time tracker (tasks, time entries).

use super::RecordState;
use super::ser::{BerlinTime, opt_date, type_tag};
use jiff::civil::Date;
use serde::Serialize;

type_tag!(ProjectTag => "project");
type_tag!(TaskTag => "task");
type_tag!(TimeEntryTag => "time_entry");

/// `GET /projects` entry; the detail adds customer, default proposition, tasks, invoices, vouchers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Project {
    #[serde(rename = "type")]
    pub kind: ProjectTag,
    pub id: u64,
    pub name: String,
    pub description: Option<String>,
    #[serde(with = "opt_date")]
    pub start_date: Option<Date>,
    #[serde(with = "opt_date")]
    pub end_date: Option<Date>,
    pub flagged: Option<bool>,
    pub budget_type: Option<String>,
    pub budget_money: Option<String>,
    pub budget_time: Option<String>,
    pub budget_time_unit: Option<String>,
    pub customer_default: bool,
    pub record_state: RecordState,
    pub created_at: BerlinTime,
    pub updated_at: BerlinTime,
    pub company_id: u64,
    pub color: Option<String>,
    #[serde(skip)]
    pub default_proposition_id: Option<u64>,
}

/// `GET /tracker/tasks` entry; the detail adds project, proposition and user.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Task {
    #[serde(rename = "type")]
    pub kind: TaskTag,
    pub id: u64,
    pub name: String,
    pub project_id: u64,
    pub relative_costs: Option<String>,
    pub complete: Option<bool>,
    #[serde(with = "opt_date")]
    pub deadline: Option<Date>,
    pub flagged: Option<bool>,
    pub record_state: RecordState,
    pub created_at: BerlinTime,
    pub updated_at: BerlinTime,
    #[serde(skip)]
    pub proposition_id: Option<u64>,
    #[serde(skip)]
    pub user_id: Option<u64>,
}

/// `GET /tracker/time_entries` entry; durations are seconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TimeEntry {
    #[serde(rename = "type")]
    pub kind: TimeEntryTag,
    pub id: u64,
    pub user_id: u64,
    pub task_id: u64,
    pub project_id: u64,
    pub invoice_id: Option<u64>,
    pub started_at: BerlinTime,
    pub ended_at: BerlinTime,
    pub duration: u64,
    pub comments: String,
    pub fingerprint: String,
    pub record_state: RecordState,
    pub billable_duration: u64,
    pub unbillable: bool,
    pub created_at: BerlinTime,
    pub updated_at: BerlinTime,
}

/// `{type: "task", id, name, project_id}` as a project detail lists its tasks.
#[derive(Debug, Clone, Serialize)]
pub struct TaskRef<'a> {
    #[serde(rename = "type")]
    pub kind: TaskTag,
    pub id: u64,
    pub name: &'a str,
    pub project_id: u64,
}

impl<'a> From<&'a Task> for TaskRef<'a> {
    fn from(t: &'a Task) -> Self {
        TaskRef {
            kind: TaskTag,
            id: t.id,
            name: &t.name,
            project_id: t.project_id,
        }
    }
}
