//! Outgoing invoices (Ausgangsrechnungen) and the document helpers estimates share.

use super::pricing::PROPOSITIONS;
use super::prng::Rng;
use super::projects::short_name;
use super::*;
use crate::model::*;
use std::collections::BTreeMap;

pub(crate) const FIRST_INVOICE_ID: u64 = 1001;
/// Customers (by position among customers) on a monthly hosting and maintenance contract.
const RETAINERS: std::ops::Range<usize> = 20..25;
const PROJECT_INVOICES: usize = 170;

/// A document before ids, numbers and states are assigned.
pub(super) struct Draft<'a> {
    pub date: Date,
    pub customer: &'a Company,
    pub project: Option<&'a Project>,
    pub name: String,
    pub supply_date: String,
    pub lines: Vec<LineItem>,
}

pub(super) fn billing(d: &DemoData, c: &Company) -> Billing {
    let person = d.persons_of(c.id).next();
    Billing {
        company: c.name.clone(),
        email: c.email.clone(),
        ust_idnr: c.ust_idnr.clone().unwrap_or_default(),
        street: c.postal_street.clone().unwrap_or_default(),
        zip: c.postal_zip.clone().unwrap_or_default(),
        city: c.postal_city.clone().unwrap_or_default(),
        country: c.postal_country.clone(),
        contact_person: Some(person.map(Person::full_name).unwrap_or_default()),
        department: Some(String::new()),
    }
}

/// A position priced from the price list; `hundredths` is the quantity × 100.
pub(super) fn position(index: usize, hundredths: i64, position: usize) -> LineItem {
    let item = PROPOSITIONS[index];
    let quantity = Decimal::new(hundredths, 2);
    let price = eur(item.cents);
    LineItem {
        line_item_type: "position".into(),
        position_in_group: format!("{position}."),
        name: item.name.into(),
        description: None,
        quantity,
        unit: if hundredths == 100 {
            item.one
        } else {
            item.many
        }
        .into(),
        price,
        vat_rate: if item.vat_rate_id == 2 { "7%" } else { "19%" }.into(),
        total_net: (quantity * price).round_dp(2),
        proposition: None,
    }
}

/// Net, VAT (per rate, rounded per rate) and gross of a document.
pub(crate) fn totals(lines: &[LineItem]) -> (Decimal, Decimal, Decimal) {
    let mut by_rate: BTreeMap<&str, Decimal> = BTreeMap::new();
    for l in lines {
        *by_rate.entry(l.vat_rate.as_str()).or_default() += l.total_net;
    }
    let net: Decimal = by_rate.values().sum();
    let tax: Decimal = by_rate
        .iter()
        .map(|(rate, net)| vat(*net, rate.trim_end_matches('%').parse().expect("percent")))
        .sum();
    (net, tax, net + tax)
}

/// Hours in quarter steps between `lo` and `hi`, as hundredths.
fn hours(rng: &mut Rng, lo: i64, hi: i64) -> i64 {
    25 * rng.range(lo * 4, hi * 4)
}

pub(super) fn project_lines(rng: &mut Rng, big: bool) -> Vec<LineItem> {
    let scale = if big { 3 } else { 1 };
    let mut lines = vec![position(0, hours(rng, 4, 30 * scale), 1)];
    if rng.chance(60) {
        lines.push(position(1, hours(rng, 2, 16 * scale), lines.len() + 1));
    }
    if rng.chance(50) {
        lines.push(position(2, hours(rng, 1, 6 * scale), lines.len() + 1));
    }
    match rng.below(12) {
        0 => lines.push(position(3, 100 * rng.range(1, 2), lines.len() + 1)),
        1 => lines.push(position(8, 100, lines.len() + 1)),
        2 => lines.push(position(9, 100 * rng.range(1, 5), lines.len() + 1)),
        _ => {}
    }
    lines
}

pub(super) fn customers(d: &DemoData) -> Vec<&Company> {
    d.companies
        .iter()
        .filter(|c| c.contact_type == ContactType::Customer)
        .collect()
}

fn invoice_drafts<'a>(d: &'a DemoData, rng: &mut Rng) -> Vec<Draft<'a>> {
    let customers = customers(d);
    let mut drafts = Vec::new();
    for (n, customer) in customers[RETAINERS].iter().enumerate() {
        let mut month = FIRST_DAY;
        while month <= LAST_DAY {
            let mut lines = vec![position(5 + n % 2, 100, 1), position(7, 100, 2)];
            if rng.chance(30) {
                lines.push(position(0, hours(rng, 1, 4), 3));
            }
            let supply_date = format!("{} - {}", german(month), german(month.last_of_month()));
            let name = format!("Hosting & Wartung {}", month_name(month));
            drafts.push(Draft {
                date: workday_from(month),
                customer,
                project: None,
                name,
                supply_date,
                lines,
            });
            month = add_months(month, 1);
        }
    }
    for k in 0..PROJECT_INVOICES {
        let p = &d.projects[k % d.projects.len()];
        let start = p.start_date.expect("demo projects have a start");
        let until = p.end_date.map_or(AS_OF, |e| add_days(e, 21));
        let date = random_workday(rng, add_days(start, 14), until);
        let customer = d.company(p.company_id).expect("project customer");
        let name = format!("{} – Leistungen {}", p.name, month_name(date));
        let supply_date = format!("{} - {}", german(date.first_of_month()), german(date));
        drafts.push(Draft {
            date,
            customer,
            project: Some(p),
            name,
            supply_date,
            lines: project_lines(rng, false),
        });
    }
    let walk_ins = &customers[RETAINERS.end..];
    while drafts.len() < INVOICE_COUNT {
        let customer = *rng.pick(walk_ins);
        let date = random_workday(rng, FIRST_DAY, LAST_DAY);
        let lines = vec![position(if rng.chance(50) { 3 } else { 4 }, 100, 1)];
        let name = format!("{} {}", lines[0].name, short_name(&customer.name));
        drafts.push(Draft {
            date,
            customer,
            project: None,
            name,
            supply_date: german(date),
            lines,
        });
    }
    drafts.sort_by(|a, b| (a.date, a.customer.id, &a.name).cmp(&(b.date, b.customer.id, &b.name)));
    drafts
}

pub(super) fn invoices(d: &DemoData) -> Vec<Invoice> {
    let mut rng = Rng::new(SEED, 5);
    let drafts = invoice_drafts(d, &mut rng);
    let mut numbered = 0;
    let mut out = Vec::with_capacity(drafts.len());
    for (i, doc) in drafts.into_iter().enumerate() {
        let term = find(&d.payment_terms, doc.customer.payment_term_id).expect("customer term");
        let due = due_date(doc.date, term);
        let (total_net, total_vat, total_gross) = totals(&doc.lines);
        let mut invoice = Invoice {
            id: FIRST_INVOICE_ID + i as u64,
            name: doc.name,
            type_of: String::new(),
            document_date: doc.date,
            due_date: due,
            supply_date: doc.supply_date,
            customer_no: doc.customer.customer_no.clone(),
            state: InvoiceState::Draft,
            total_net,
            total_vat,
            total_gross,
            outstanding_amount: total_gross,
            billing: billing(d, doc.customer),
            customer_id: doc.customer.id,
            contact_person_id: d.persons_of(doc.customer.id).next().map(|p| p.id),
            project_id: doc.project.map(|p| p.id),
            payment_term_id: term.id,
            line_items: doc.lines,
            ..Default::default()
        };
        // Recent work is often still a draft; now and then one is simply forgotten.
        let draft_odds = if doc.date > add_days(AS_OF, -30) {
            50
        } else {
            1
        };
        if rng.chance(draft_odds) {
            out.push(invoice);
            continue;
        }
        numbered += 1;
        let email = doc.customer.delivery_method.as_deref() == Some("email");
        invoice.invoice_no = Some(format!("RE-{numbered:05}"));
        invoice.sent_on = Some(doc.date);
        invoice.sent_via = Some(if email { "email" } else { "pdf" }.into());
        invoice.sent_to = if email {
            doc.customer.email.clone()
        } else {
            None
        };
        let paid_at = workday_from(add_days(due, rng.range(-10, 20)).max(doc.date));
        let never_pays = rng.chance(6);
        if doc.date < add_days(AS_OF, -30) && rng.chance(3) {
            invoice.state = InvoiceState::Canceled;
            invoice.name.push_str(" (storniert)");
            invoice.record_state = RecordState::Archived;
        } else if !never_pays && paid_at <= AS_OF {
            invoice.state = InvoiceState::Paid;
            invoice.paid_at_date = Some(paid_at);
            invoice.outstanding_amount = Decimal::ZERO;
        } else {
            invoice.state = if due < AS_OF {
                InvoiceState::Overdue
            } else {
                InvoiceState::Unpaid
            };
        }
        out.push(invoice);
    }
    out
}
