//! Estimates (Angebote): one accepted per project, plus workshop offers of mixed fate.

use super::documents::{Draft, billing, customers, position, project_lines, totals};
use super::prng::Rng;
use super::projects::short_name;
use super::*;
use crate::model::*;

pub(crate) const FIRST_ESTIMATE_ID: u64 = 801;
/// Offers written in the last `OPEN_DAYS` days are draft or sent, older ones decided.
const OPEN_DAYS: i64 = 45;
const OPEN_OFFERS: usize = 6;

pub(super) fn estimates(d: &DemoData) -> Vec<Estimate> {
    let mut rng = Rng::new(SEED, 4);
    let customers = customers(d);
    let mut drafts: Vec<(Draft<'_>, bool)> = Vec::new();
    for p in &d.projects {
        let start = p.start_date.expect("demo projects have a start");
        let date = workday_from(add_days(start, -rng.range(5, 25)).max(FIRST_DAY));
        let customer = d.company(p.company_id).expect("project customer");
        let draft = Draft {
            date,
            customer,
            project: Some(p),
            name: format!("Angebot {}", p.name),
            supply_date: String::new(),
            lines: project_lines(&mut rng, true),
        };
        drafts.push((draft, true));
    }
    while drafts.len() < ESTIMATE_COUNT {
        let customer = *rng.pick(&customers);
        // The last few offers are still open on the snapshot date.
        let earliest = if drafts.len() + OPEN_OFFERS >= ESTIMATE_COUNT {
            add_days(AS_OF, -OPEN_DAYS)
        } else {
            FIRST_DAY
        };
        let date = random_workday(&mut rng, earliest, AS_OF);
        let lines = vec![position(3, 100 * rng.range(1, 3), 1), position(4, 100, 2)];
        let name = format!("Angebot Workshop {}", short_name(&customer.name));
        drafts.push((
            Draft {
                date,
                customer,
                project: None,
                name,
                supply_date: String::new(),
                lines,
            },
            false,
        ));
    }
    drafts.sort_by_key(|(e, _)| (e.date, e.customer.id));
    let mut numbered = 0;
    let mut out = Vec::new();
    for (i, (e, for_project)) in drafts.into_iter().enumerate() {
        let recent = e.date > add_days(AS_OF, -OPEN_DAYS);
        let state = match (for_project, recent) {
            (true, _) => EstimateState::Accepted,
            (false, true) if rng.chance(50) => EstimateState::Draft,
            (false, true) => EstimateState::Sent,
            (false, false) if rng.chance(60) => EstimateState::Rejected,
            (false, false) => EstimateState::Accepted,
        };
        let sent = state != EstimateState::Draft;
        numbered += usize::from(sent);
        let (total_net, total_vat, total_gross) = totals(&e.lines);
        out.push(Estimate {
            id: FIRST_ESTIMATE_ID + i as u64,
            name: e.name,
            document_date: e.date,
            customer_no: e.customer.customer_no.clone(),
            estimate_no: sent.then(|| format!("AN-{numbered:05}")),
            sent_on: sent.then_some(e.date),
            sent_via: sent.then(|| "email".into()),
            sent_to: if sent { e.customer.email.clone() } else { None },
            state,
            total_net,
            total_vat,
            total_gross,
            billing: billing(d, e.customer),
            customer_id: e.customer.id,
            contact_person_id: d.persons_of(e.customer.id).next().map(|p| p.id),
            project_id: e.project.map(|p| p.id),
            line_items: e.lines,
            ..Default::default()
        });
    }
    out
}
