//! Projects of the customers, three tracker tasks each, and the hours booked on them.

use super::names::{COLORS, PROJECT_KINDS, TASKS, TIME_COMMENTS};
use super::pricing::FIRST_PROPOSITION_ID;
use super::prng::Rng;
use super::{
    AS_OF, FIRST_DAY, PROJECT_COUNT, SEED, TIME_ENTRIES_PER_TASK, add_days, at, random_workday,
};
use crate::model::ser::BerlinTime;
use crate::model::*;
use jiff::Span;

pub(crate) const FIRST_PROJECT_ID: u64 = 301;
pub(crate) const FIRST_TASK_ID: u64 = 2001;
pub(crate) const FIRST_TIME_ENTRY_ID: u64 = 7001;

/// The customer's name without its legal form, for project names.
pub(crate) fn short_name(name: &str) -> String {
    const FORMS: [&str; 9] = [
        "GmbH", "gGmbH", "KG", "AG", "e.K.", "e.V.", "OHG", "PartG", "mbB",
    ];
    name.split_whitespace()
        .filter(|w| !FORMS.contains(w))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn projects(companies: &[Company]) -> Vec<Project> {
    let mut rng = Rng::new(SEED, 2);
    let customers: Vec<&Company> = companies
        .iter()
        .filter(|c| c.contact_type == ContactType::Customer)
        .collect();
    let mut projects: Vec<Project> = (0..PROJECT_COUNT)
        .map(|p| {
            // The first 20 customers get a project; five of them a second one.
            let customer = if p < 20 {
                customers[p]
            } else {
                customers[(p - 20) * 2]
            };
            let (kind, description) = *rng.pick(&PROJECT_KINDS);
            let earliest = add_days(FIRST_DAY, (p as i64 * 600) / PROJECT_COUNT as i64);
            let start = random_workday(&mut rng, earliest, add_days(earliest, 30));
            let end = (!rng.chance(20)).then(|| add_days(start, rng.range(60, 240)));
            let created = at(
                add_days(start, -rng.range(3, 20)),
                10,
                rng.range(0, 59) as i8,
            );
            let archived = end.is_some_and(|e| e < add_days(AS_OF, -120));
            Project {
                name: format!("{kind} {}", short_name(&customer.name)),
                description: Some(description.into()),
                start_date: Some(start),
                end_date: end,
                record_state: if archived {
                    RecordState::Archived
                } else {
                    RecordState::Active
                },
                created_at: created,
                updated_at: created,
                company_id: customer.id,
                color: rng.pick(&COLORS).map(Into::into),
                default_proposition_id: Some(FIRST_PROPOSITION_ID),
                ..Default::default()
            }
        })
        .collect();
    projects.sort_by_key(|p| (p.start_date, p.company_id));
    for (i, p) in projects.iter_mut().enumerate() {
        p.id = FIRST_PROJECT_ID + i as u64;
    }
    projects
}

/// Konzeption is the owner's, Gestaltung the designer's, Umsetzung the developer's.
const TASK_USERS: [u64; 3] = [1, 3, 2];

pub(super) fn tasks(projects: &[Project]) -> Vec<Task> {
    let mut tasks = Vec::new();
    for p in projects {
        let done = p.end_date.is_some_and(|e| e < AS_OF);
        for (n, &(name, proposition)) in TASKS.iter().enumerate() {
            tasks.push(Task {
                id: FIRST_TASK_ID + tasks.len() as u64,
                name: name.into(),
                project_id: p.id,
                complete: Some(done),
                deadline: if n + 1 == TASKS.len() {
                    p.end_date
                } else {
                    None
                },
                record_state: p.record_state,
                created_at: p.created_at,
                updated_at: p.updated_at,
                proposition_id: Some(FIRST_PROPOSITION_ID + proposition as u64),
                user_id: Some(TASK_USERS[n]),
                ..Default::default()
            });
        }
    }
    tasks
}

pub(super) fn time_entries(projects: &[Project], tasks: &[Task]) -> Vec<TimeEntry> {
    let mut rng = Rng::new(SEED, 3);
    let mut entries = Vec::new();
    for task in tasks {
        let project = find(projects, task.project_id).expect("task of a known project");
        let start = project.start_date.expect("demo projects have a start");
        let last = project.end_date.map_or(AS_OF, |e| e.min(AS_OF));
        for _ in 0..TIME_ENTRIES_PER_TASK {
            let day = random_workday(&mut rng, start, last);
            let begin = at(day, rng.range(8, 15) as i8, 15 * rng.range(0, 3) as i8);
            let minutes = 15 * rng.range(2, 16);
            let end = BerlinTime(
                begin
                    .0
                    .checked_add(Span::new().minutes(minutes))
                    .expect("same day"),
            );
            let unbillable = rng.chance(10);
            let seconds = minutes as u64 * 60;
            let user_id = if rng.chance(20) {
                rng.range(1, 3) as u64
            } else {
                task.user_id.unwrap_or(1)
            };
            let logged = BerlinTime(
                end.0
                    .checked_add(Span::new().minutes(rng.range(1, 30)))
                    .expect("same day"),
            );
            let stamp = end.0;
            entries.push(TimeEntry {
                user_id,
                task_id: task.id,
                project_id: project.id,
                started_at: begin,
                ended_at: end,
                duration: seconds,
                comments: (*rng.pick(&TIME_COMMENTS)).into(),
                fingerprint: format!(
                    "{:04}{:02}{:02}{:02}{:02}{:02}{}",
                    stamp.year(),
                    stamp.month(),
                    stamp.day(),
                    stamp.hour(),
                    stamp.minute(),
                    stamp.second(),
                    rng.digits(3)
                ),
                record_state: RecordState::Active,
                billable_duration: if unbillable { 0 } else { seconds },
                unbillable,
                created_at: logged,
                updated_at: logged,
                ..Default::default()
            });
        }
    }
    entries.sort_by_key(|e| (e.started_at, e.task_id));
    for (i, e) in entries.iter_mut().enumerate() {
        e.id = FIRST_TIME_ENTRY_ID + i as u64;
    }
    entries
}
