//! Outgoing invoices as drafts: create, update, archive, delete (sending and cancelling are in
//! `deliver`).
//!
//! Recordings: `Income_Invoice_Requests/*` — create 201 (`line_items`, `payment_term: {id}`,
//! `customer: {id, project: {id}}`, `billing: {}`), update via PUT 200 (line items replaced, totals
//! recomputed), archive/unarchive 200, delete 204.

use super::income::{MAX_PRICE, vat_rate};
use super::*;
use crate::generate::{due_date, german, totals};
use crate::model::{Billing, Company, Invoice, InvoiceState, LineItem, NamedRef, Person};
use crate::state::berlin_today;

writable!(Invoice, invoices);
archivable!(Invoice);

/// Largest quantity of one line item.
const MAX_QUANTITY: i64 = 100_000;

/// The positions of a document; each one's net total is quantity × price to the cent.
fn line_items(d: &DemoData, items: &[&Map<String, Value>]) -> Result<Vec<LineItem>, ApiError> {
    if items.is_empty() {
        return Err(blank("Positionen"));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("line_items[{i}].");
        let f = Fields::new(item, &at);
        let proposition = match f.reference("proposition")?.flatten() {
            Some(id) => Some(referenced(
                &d.propositions,
                &format!("{at}proposition"),
                id,
            )?),
            None => None,
        };
        let missing = |field: &str| blank(&format!("{at}{field}"));
        let name = f
            .text("name")?
            .flatten()
            .or_else(|| proposition.map(|p| p.name.clone()))
            .ok_or_else(|| missing("name"))?;
        let quantity = f
            .decimal("quantity")?
            .flatten()
            .ok_or_else(|| missing("quantity"))?;
        let quantity = exact(&format!("{at}quantity"), quantity, MAX_QUANTITY)?;
        if quantity <= Decimal::ZERO {
            return Err(refused(format!(
                "{at}quantity must be greater than 0, got {quantity}"
            )));
        }
        let price = f
            .decimal("price")?
            .flatten()
            .or_else(|| proposition.map(|p| p.price))
            .ok_or_else(|| missing("price"))?;
        let price = exact(&format!("{at}price"), price, MAX_PRICE)?;
        let rate = match f.text("vat_rate")?.flatten() {
            Some(name) => vat_rate(&d.vat_rates, &format!("{at}vat_rate"), &name)?,
            None => proposition
                .and_then(|p| find(&d.vat_rates, p.vat_rate_id))
                .ok_or_else(|| missing("vat_rate"))?,
        };
        let unit = f.raw_text("unit")?.flatten().or_else(|| {
            proposition.map(|p| {
                if quantity == Decimal::ONE {
                    p.unit_name_1.clone()
                } else {
                    p.unit_name_n.clone()
                }
            })
        });
        out.push(LineItem {
            line_item_type: "position".into(),
            position_in_group: format!("{}.", i + 1),
            name,
            description: f.raw_text("description")?.flatten(),
            quantity,
            unit: unit.unwrap_or_default(),
            price,
            vat_rate: rate.name.clone(),
            total_net: (quantity * price).round_dp(2),
            proposition: proposition.map(|p| NamedRef::new("proposition", p.id, &p.name)),
        });
    }
    Ok(out)
}

/// The address block, copied from the customer (and the contact person) when written, then
/// overridden by the body's `billing` fields.
fn billing(
    c: &Company,
    person: Option<&Person>,
    overrides: Option<&Map<String, Value>>,
) -> Result<Billing, ApiError> {
    let mut b = Billing {
        company: c.name.clone(),
        email: c.email.clone(),
        ust_idnr: c.ust_idnr.clone().unwrap_or_default(),
        street: c.postal_street.clone().unwrap_or_default(),
        zip: c.postal_zip.clone().unwrap_or_default(),
        city: c.postal_city.clone().unwrap_or_default(),
        country: c.postal_country.clone(),
        contact_person: person.map(Person::full_name),
        department: person.and_then(|p| p.department.clone()),
    };
    let Some(overrides) = overrides else {
        return Ok(b);
    };
    let f = Fields::new(overrides, "billing.");
    for (key, target) in [
        ("company", &mut b.company),
        ("ust_idnr", &mut b.ust_idnr),
        ("street", &mut b.street),
        ("zip", &mut b.zip),
        ("city", &mut b.city),
        ("country", &mut b.country),
    ] {
        if let Some(v) = f.raw_text(key)? {
            *target = v.unwrap_or_default();
        }
    }
    for (key, target) in [
        ("email", &mut b.email),
        ("contact_person", &mut b.contact_person),
        ("department", &mut b.department),
    ] {
        assign(target, f.raw_text(key)?);
    }
    Ok(b)
}

/// Applies a create's or an update's fields to `inv` (a draft).
fn apply(store: &Store, f: &Fields<'_>, inv: &mut Invoice) -> Result<(), ApiError> {
    let d = store.data();
    let mut new_party = f.has("billing");
    if let Some(name) = still_required("Name", f.text("name")?)? {
        inv.name = name;
    }
    assign(&mut inv.description, f.raw_text("description")?);
    if let Some(Some(template)) = f.reference("custom_template")? {
        return Err(refused(format!(
            "custom_template: Couldn't find a custom template with 'id'={template} (the sandbox \
             account has none)"
        )));
    }
    if let Some(c) = f.object("customer")? {
        let c = Fields::new(c, "customer.");
        if let Some(id) = still_required("Kunde", c.id("id")?)? {
            let company = referenced(&d.companies, "customer", id)?;
            if company.id != inv.customer_id {
                // Project and contact person belonged to the previous customer.
                inv.project_id = None;
                inv.contact_person_id = None;
            }
            inv.customer_id = company.id;
            inv.customer_no = company.customer_no.clone();
            new_party = true;
        }
        if let Some(project) = c.reference("project")? {
            if let Some(pid) = project {
                let p = referenced(&d.projects, "customer.project", pid)?;
                if p.company_id != inv.customer_id {
                    return Err(refused(format!(
                        "customer.project: project {pid} belongs to another customer"
                    )));
                }
            }
            inv.project_id = project;
        }
        if let Some(person) = c.reference("contact_person")? {
            if let Some(pid) = person {
                let p = referenced(&d.persons, "customer.contact_person", pid)?;
                if p.company_id != inv.customer_id {
                    return Err(refused(format!(
                        "customer.contact_person: person {pid} belongs to another company"
                    )));
                }
            }
            inv.contact_person_id = person;
            new_party = true;
        }
    }
    if let Some(term) = f.reference("payment_term")? {
        let id = term.ok_or_else(|| blank("Zahlungsbedingung"))?;
        inv.payment_term_id = referenced(&d.payment_terms, "payment_term", id)?.id;
    }
    if let Some(date) = still_required("Rechnungsdatum", f.date("document_date")?)? {
        inv.document_date = date;
    }
    if let Some(supply) = f.raw_text("supply_date")? {
        inv.supply_date = supply.unwrap_or_default();
    }
    if let Some(items) = f.objects("line_items", MAX_LINE_ITEMS)? {
        inv.line_items = line_items(d, &items)?;
    }
    let company = find(&d.companies, inv.customer_id).ok_or_else(|| blank("Kunde"))?;
    if inv.payment_term_id == 0 {
        // Without a term the customer's applies, else the account's default.
        inv.payment_term_id = find(&d.payment_terms, company.payment_term_id)
            .or_else(|| d.payment_terms.iter().find(|t| t.default_template))
            .map_or(0, |t| t.id);
    }
    let term =
        find(&d.payment_terms, inv.payment_term_id).ok_or_else(|| blank("Zahlungsbedingung"))?;
    if new_party {
        let person = inv.contact_person_id.and_then(|id| find(&d.persons, id));
        inv.billing = billing(company, person, f.object("billing")?)?;
    }
    inv.due_date = due_date(inv.document_date, term);
    let (net, vat, gross) = totals(&inv.line_items);
    (inv.total_net, inv.total_vat, inv.total_gross) = (net, vat, gross);
    inv.outstanding_amount = gross;
    Ok(())
}

/// Only drafts may change; a sent invoice is a booked document.
pub(super) fn draft(inv: &Invoice, what: &str) -> Result<(), ApiError> {
    if inv.state == InvoiceState::Draft {
        return Ok(());
    }
    Err(refused(format!(
        "Nur Rechnungsentwürfe können {what} werden (Rechnung {} ist {})",
        inv.invoice_no.as_deref().unwrap_or("ohne Nummer"),
        state_name(inv.state)
    )))
}

fn state_name(s: InvoiceState) -> &'static str {
    match s {
        InvoiceState::Draft => "draft",
        InvoiceState::Unpaid => "unpaid",
        InvoiceState::Overdue => "overdue",
        InvoiceState::Paid => "paid",
        InvoiceState::Canceled => "canceled",
    }
}

/// `POST /income/invoices` → 201 with the draft's detail. `document_date` defaults to today,
/// `supply_date` to the document date, the payment term to the customer's.
pub(crate) async fn create_invoice(
    State(st): State<SandboxState>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    let customer = f.object("customer")?;
    let mut required = Required::default();
    required.check("Name", f.text("name")?.flatten());
    required.check(
        "Kunde",
        match customer {
            Some(c) => Fields::new(c, "customer.").id("id")?.flatten(),
            None => None,
        },
    );
    required.check(
        "Positionen",
        f.objects("line_items", MAX_LINE_ITEMS)?
            .filter(|l| !l.is_empty()),
    );
    required.done()?;
    st.write(|store| {
        let today = berlin_today();
        let mut inv = Invoice {
            document_date: today,
            billing: Billing::default(),
            ..Default::default()
        };
        apply(store, &f, &mut inv)?;
        if !f.has("supply_date") {
            inv.supply_date = german(inv.document_date);
        }
        insert(store, inv, |inv| {
            Some(format!("/einnahmen/rechnungen/{}", inv.id))
        })
    })
}

/// `PUT|PATCH /income/invoices/{id}` → 200; drafts only, totals recomputed from the line items.
pub(crate) async fn update_invoice(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    change::<Invoice>(&st, &id, |store, inv| {
        draft(inv, "geändert")?;
        apply(store, &f, inv)
    })
}

/// `DELETE /income/invoices/{id}` → 204; drafts only (a sent invoice is cancelled instead).
pub(crate) async fn delete_invoice(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    remove::<Invoice>(&st, &id, |_, inv| draft(inv, "gelöscht"))
}
