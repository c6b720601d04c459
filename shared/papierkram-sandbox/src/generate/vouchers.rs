//! Expense vouchers: five monthly contracts plus everyday spending.

use super::names::SUPPLIERS;
use super::prng::Rng;
use super::*;
use crate::model::*;

pub(crate) const FIRST_VOUCHER_ID: u64 = 5001;

/// (supplier index or none, voucher name, category, VAT, gross cents lo..=hi, paid by card)
type Kind = (
    Option<usize>,
    &'static str,
    &'static str,
    &'static str,
    (i64, i64),
    bool,
);

/// Monthly contracts, booked on the first working day of each month.
const MONTHLY: [Kind; 5] = [
    (
        Some(0),
        "Miete Büro",
        "Raumkosten",
        "19%",
        (142_800, 142_800),
        false,
    ),
    (
        Some(1),
        "Telefon und Internet",
        "Telekommunikation",
        "19%",
        (5_990, 5_990),
        false,
    ),
    (
        Some(2),
        "Server-Miete",
        "Server & Hosting",
        "19%",
        (8_925, 8_925),
        true,
    ),
    (
        Some(3),
        "Softwarelizenzen",
        "Software",
        "19%",
        (7_140, 7_140),
        true,
    ),
    (
        Some(4),
        "Leasingrate Firmenwagen",
        "Kfz-Leasing",
        "19%",
        (34_510, 34_510),
        false,
    ),
];

/// Everyday spending, drawn at random.
const OCCASIONAL: [Kind; 10] = [
    (
        Some(5),
        "Büromaterial",
        "Bürobedarf",
        "19%",
        (1_250, 18_000),
        false,
    ),
    (
        Some(6),
        "Bildlizenzen",
        "Bildrechte",
        "19%",
        (2_900, 24_900),
        true,
    ),
    (
        Some(7),
        "Fremdleistung Entwicklung",
        "Fremdleistungen",
        "19%",
        (80_000, 600_000),
        false,
    ),
    (
        Some(8),
        "Druckauftrag",
        "Druckkosten",
        "19%",
        (4_500, 42_000),
        false,
    ),
    (
        Some(9),
        "Fachliteratur",
        "Fachliteratur",
        "7%",
        (1_990, 8_900),
        false,
    ),
    (
        Some(10),
        "Kaffee für das Büro",
        "Betriebsbedarf",
        "7%",
        (1_800, 6_400),
        false,
    ),
    (
        Some(11),
        "Stromabschlag",
        "Energie",
        "19%",
        (11_000, 19_000),
        false,
    ),
    (
        None,
        "Bewirtung Kundentermin",
        "Bewirtungskosten",
        "19%",
        (3_500, 19_000),
        true,
    ),
    (
        None,
        "Bahnfahrt Kundentermin",
        "Reisekosten",
        "7%",
        (1_990, 13_900),
        true,
    ),
    (
        None,
        "Tanken Firmenwagen",
        "Kraftstoff",
        "19%",
        (4_500, 9_500),
        true,
    ),
];

/// Categories paid with the company credit card rather than from the current account.
pub(crate) fn paid_by_card(category: &str) -> bool {
    MONTHLY
        .iter()
        .chain(&OCCASIONAL)
        .any(|k| k.2 == category && k.5)
}

struct Pending {
    date: Date,
    kind: &'static Kind,
    name: String,
    amount: i64,
    project: Option<u64>,
}

pub(super) fn vouchers(d: &DemoData) -> Vec<Voucher> {
    let mut rng = Rng::new(SEED, 6);
    let mut pending = Vec::new();
    for kind in &MONTHLY {
        let mut month = FIRST_DAY;
        while month <= LAST_DAY {
            let name = format!("{} {}", kind.1, month_name(month));
            pending.push(Pending {
                date: workday_from(month),
                kind,
                name,
                amount: kind.4.0,
                project: None,
            });
            month = add_months(month, 1);
        }
    }
    while pending.len() < VOUCHER_COUNT {
        let kind = rng.pick(&OCCASIONAL);
        let date = random_workday(&mut rng, FIRST_DAY, LAST_DAY);
        let project = match kind.2 {
            "Fremdleistungen" => Some(pick_project(d, &mut rng, date)),
            "Bildrechte" if rng.chance(50) => Some(pick_project(d, &mut rng, date)),
            _ => None,
        };
        let amount = rng.range(kind.4.0, kind.4.1);
        pending.push(Pending {
            date,
            kind,
            name: kind.1.into(),
            amount,
            project,
        });
    }
    pending.sort_by(|a, b| (a.date, &a.name, a.amount).cmp(&(b.date, &b.name, b.amount)));
    pending
        .into_iter()
        .enumerate()
        .map(|(i, p)| voucher(d, &mut rng, i, p))
        .collect()
}

/// A project running on `date`, or else the one that started last before it.
fn pick_project(d: &DemoData, rng: &mut Rng, date: Date) -> u64 {
    let running: Vec<&Project> = d
        .projects
        .iter()
        .filter(|p| p.start_date.is_some_and(|s| s <= date) && p.end_date.is_none_or(|e| e >= date))
        .collect();
    match running.as_slice() {
        [] => {
            d.projects
                .iter()
                .rev()
                .find(|p| p.start_date.is_some_and(|s| s <= date))
                .unwrap_or(&d.projects[0])
                .id
        }
        some => rng.pick(some).id,
    }
}

fn voucher(d: &DemoData, rng: &mut Rng, i: usize, p: Pending) -> Voucher {
    let (supplier, _, category, vat_rate, _, card) = *p.kind;
    let creditor = supplier.and_then(|s| d.companies.iter().find(|c| c.name == SUPPLIERS[s]));
    let mut lines = vec![line(&p.name, p.amount, category, vat_rate)];
    if category == "Druckkosten" && rng.chance(50) {
        lines[0].amount -= eur(690);
        lines.push(line("Versandpauschale", 690, category, vat_rate));
    }
    let due = if card || supplier.is_some_and(|s| s < 5) {
        p.date
    } else {
        add_days(p.date, 14)
    };
    let mut v = Voucher {
        id: FIRST_VOUCHER_ID + i as u64,
        name: p.name,
        due_date: Some(due),
        document_date: p.date,
        flagged: Some(false),
        provenance: "domestic".into(),
        voucher_no: format!("B-{:05}", i + 1),
        amount: eur(p.amount),
        invoice_amount: Decimal::ZERO,
        creditor_id: creditor.map(|c| c.id),
        project_id: p.project,
        line_items: lines,
        ..Default::default()
    };
    if category == "Bewirtungskosten" {
        let guest = d
            .persons
            .get(rng.below(d.persons.len() as u64) as usize)
            .expect("persons exist");
        let firm = d
            .company(guest.company_id)
            .map_or("Kunde", |c| c.name.as_str());
        v.entertainment_reason = format!("Projektbesprechung mit {firm}");
        v.entertainment_persons = vec![guest.full_name(), "Inga Hansen".into()];
    }
    let paid_on = workday_from(add_days(due, rng.range(0, 10)));
    if p.date < add_days(AS_OF, -30) && rng.chance(2) {
        v.state = VoucherState::Canceled;
        v.record_state = RecordState::Archived;
    } else if !rng.chance(3) && paid_on <= AS_OF {
        v.state = VoucherState::Paid;
        v.paid_on = Some(paid_on);
    } else {
        v.state = if due < AS_OF {
            VoucherState::Overdue
        } else {
            VoucherState::Unpaid
        };
    }
    v
}

fn line(name: &str, cents: i64, category: &str, vat_rate: &str) -> VoucherLineItem {
    VoucherLineItem {
        name: name.into(),
        amount: eur(cents),
        category: category.into(),
        vat_rate: vat_rate.into(),
        billing: None,
        depreciation: None,
    }
}
