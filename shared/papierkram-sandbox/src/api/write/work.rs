//! Projects and the time tracker: projects, tasks, time entries.
//!
//! Recordings: `Project_Requests/*` (create 201 without `location`, update via PUT 200,
//! archive/unarchive 200, delete 204), `Tracker_Tasks_Requests/*` (create 201, update via PUT 200;
//! no archive or delete recorded) and `Tracker_TimeEntries_Requests/*` (create 201 from
//! `entry_date` + `started_at_time`/`ended_at_time`, update via PUT 200, archive/unarchive 200; no
//! delete recorded).

use super::*;
use crate::model::{Project, Task, TimeEntry, User};
use jiff::civil::Date;
use std::sync::atomic::{AtomicU64, Ordering};

writable!(Project, projects, stamped);
writable!(Task, tasks, stamped);
archivable!(Project, TimeEntry);

impl Writable for TimeEntry {
    fn all_mut(d: &mut DemoData) -> &mut Vec<Self> {
        &mut d.time_entries
    }
    fn set_id(&mut self, id: u64) {
        self.id = id;
    }
    fn touch(&mut self, now: BerlinTime) {
        self.updated_at = now;
        self.fingerprint = fingerprint(now);
    }
    fn created(&mut self, now: BerlinTime) {
        self.created_at = now;
    }
}

impl Editable for Project {
    const APPLY: Apply<Self> = apply_project;
}

/// An update changes the fingerprint, as recorded.
impl Editable for TimeEntry {
    const APPLY: Apply<Self> = apply_entry;
}

/// Changes so far, so that two updates within one second still get different fingerprints.
static CHANGES: AtomicU64 = AtomicU64::new(0);

/// The upstream's fingerprint is the time of the last change as digits plus a few more; it
/// changes on every update (recorded).
fn fingerprint(now: BerlinTime) -> String {
    let n = CHANGES.fetch_add(1, Ordering::Relaxed);
    let t = now.0;
    format!(
        "{:04}{:02}{:02}{:02}{:02}{:02}{:03}",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        n % 1000
    )
}

fn apply_project(store: &Store, f: &Fields<'_>, p: &mut Project) -> Result<(), ApiError> {
    let d = store.data();
    if let Some(name) = still_required("Name", f.text("name")?)? {
        p.name = name;
    }
    if let Some(customer) = still_required("Kunde", f.reference("customer")?)? {
        p.company_id = referenced(&d.companies, "customer", customer)?.id;
    }
    assign(
        &mut p.default_proposition_id,
        optional_reference(f, "default_proposition", &d.propositions)?,
    );
    assign(&mut p.description, f.raw_text("description")?);
    assign(&mut p.start_date, f.date("start_date")?);
    assign(&mut p.end_date, f.date("end_date")?);
    assign(&mut p.flagged, f.boolean("flagged")?);
    assign(&mut p.budget_type, f.text("budget_type")?);
    assign(&mut p.budget_money, f.text_or_number("budget_money")?);
    assign(&mut p.budget_time, f.text_or_number("budget_time")?);
    assign(&mut p.budget_time_unit, f.text("budget_time_unit")?);
    assign(&mut p.color, f.text("color")?);
    Ok(())
}

/// `POST /projects` → 201 with the project's detail (the upstream sends no `location` here).
pub(crate) async fn create_project(
    State(st): State<SandboxState>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    let mut required = Required::default();
    required.check("Name", f.text("name")?.flatten());
    required.check("Kunde", f.reference("customer")?.flatten());
    required.done()?;
    st.write(|store| {
        let mut project = Project::default();
        apply_project(store, &f, &mut project)?;
        insert(store, project, |_| None)
    })
}

/// `DELETE /projects/{id}` → 204; refused while tasks or documents belong to the project.
pub(crate) async fn delete_project(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    remove::<Project>(&st, &id, |store, p| {
        let d = store.data();
        let pid = Some(p.id);
        let used = d.tasks.iter().any(|t| t.project_id == p.id)
            || d.invoices.iter().any(|i| i.project_id == pid)
            || d.estimates.iter().any(|e| e.project_id == pid)
            || d.vouchers.iter().any(|v| v.project_id == pid);
        if used {
            return Err(in_use(
                Project::MODEL,
                "Aufgaben, Rechnungen, Angebote oder Belege",
            ));
        }
        Ok(())
    })
}

fn apply_task(store: &Store, f: &Fields<'_>, t: &mut Task) -> Result<(), ApiError> {
    let d = store.data();
    if let Some(name) = still_required("Name", f.text("name")?)? {
        t.name = name;
    }
    if let Some(project) = still_required("Projekt", f.reference("project")?)? {
        t.project_id = referenced(&d.projects, "project", project)?.id;
    }
    assign(
        &mut t.proposition_id,
        optional_reference(f, "proposition", &d.propositions)?,
    );
    if let Some(user) = f.reference("user")? {
        if let Some(id) = user {
            user_of(d, id)?;
        }
        t.user_id = user;
    }
    assign(&mut t.relative_costs, f.text_or_number("relative_costs")?);
    assign(&mut t.complete, f.boolean("complete")?);
    assign(&mut t.deadline, f.date("deadline")?);
    assign(&mut t.flagged, f.boolean("flagged")?);
    Ok(())
}

/// `POST /tracker/tasks` → 201 with the task, its project, proposition and user.
pub(crate) async fn create_task(
    State(st): State<SandboxState>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    let mut required = Required::default();
    required.check("Name", f.text("name")?.flatten());
    required.check("Projekt", f.reference("project")?.flatten());
    required.done()?;
    st.write(|store| {
        let mut task = Task::default();
        apply_task(store, &f, &mut task)?;
        insert(store, task, |t| {
            Some(format!("/zeiterfassung/aufgaben/{}", t.id))
        })
    })
}

/// `PUT|PATCH /tracker/tasks/{id}` → 200. Moving a task to another project moves its time
/// entries along, so an entry's `project_id` is always its task's.
pub(crate) async fn update_task(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    change_and::<Task>(
        &st,
        &id,
        |store, t| apply_task(store, &f, t),
        |d, t| {
            for e in d.time_entries.iter_mut().filter(|e| e.task_id == t.id) {
                e.project_id = t.project_id;
            }
        },
    )
}

/// The account's users have no endpoint of their own, hence no [`Resource`].
fn user_of(d: &DemoData, id: u64) -> Result<&User, ApiError> {
    find(&d.users, id).ok_or_else(|| refused(format!("user: Couldn't find User with 'id'={id}")))
}

/// The parts of a time entry a body may set.
struct Times {
    day: Option<Date>,
    start: Option<(i8, i8)>,
    end: Option<(i8, i8)>,
}

fn apply_entry(store: &Store, f: &Fields<'_>, e: &mut TimeEntry) -> Result<(), ApiError> {
    let d = store.data();
    let times = Times {
        day: still_required("Datum", f.date("entry_date")?)?,
        start: still_required("Startzeit", f.time_of_day("started_at_time")?)?,
        end: still_required("Endzeit", f.time_of_day("ended_at_time")?)?,
    };
    if let Some(task) = still_required("Aufgabe", f.reference("task")?)? {
        let task = referenced(&d.tasks, "task", task)?;
        e.task_id = task.id;
        e.project_id = task.project_id;
    }
    if let Some(user) = still_required("Benutzer", f.reference("user")?)? {
        e.user_id = user_of(d, user)?.id;
    }
    if let Some(comments) = f.raw_text("comments")? {
        e.comments = comments.unwrap_or_default();
    }
    if let Some(unbillable) = f.boolean("unbillable")? {
        e.unbillable = unbillable.unwrap_or(false);
    }
    let day = times.day.unwrap_or(e.started_at.date());
    let (sh, sm) = times
        .start
        .unwrap_or((e.started_at.0.hour(), e.started_at.0.minute()));
    let (eh, em) = times
        .end
        .unwrap_or((e.ended_at.0.hour(), e.ended_at.0.minute()));
    let (start, end) = (day.at(sh, sm, 0, 0), day.at(eh, em, 0, 0));
    if end <= start {
        return Err(refused("Endzeit muss nach der Startzeit liegen"));
    }
    e.started_at = BerlinTime(start);
    e.ended_at = BerlinTime(end);
    e.duration = end.duration_since(start).as_secs().unsigned_abs();
    e.billable_duration = if e.unbillable { 0 } else { e.duration };
    Ok(())
}

/// `POST /tracker/time_entries` → 201 with the entry, its project, task, user and invoice.
/// Without a `user` the entry is the account owner's (the user the API token belongs to).
pub(crate) async fn create_time_entry(
    State(st): State<SandboxState>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    let mut required = Required::default();
    required.check("Datum", f.date("entry_date")?.flatten());
    required.check("Startzeit", f.time_of_day("started_at_time")?.flatten());
    required.check("Endzeit", f.time_of_day("ended_at_time")?.flatten());
    required.check("Aufgabe", f.reference("task")?.flatten());
    required.done()?;
    st.write(|store| {
        let mut entry = TimeEntry {
            user_id: store.data().users.first().map_or(1, |u| u.id),
            ..Default::default()
        };
        apply_entry(store, &f, &mut entry)?;
        insert(store, entry, |e| {
            Some(format!("/zeiterfassung/buchungen/{}", e.id))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn fingerprints_are_the_change_time_as_digits_and_never_repeat() {
        let t = BerlinTime(date(2026, 12, 1).at(9, 5, 7, 0));
        let (a, b) = (fingerprint(t), fingerprint(t));
        assert!(a.starts_with("20261201090507") && a.len() == 17, "{a}");
        assert_ne!(a, b);
    }
}
