//! Expense vouchers: create, update, pay, cancel (with or without a reverse entry), archive,
//! delete.
//!
//! Recordings: `Expense_Vouchers_Requests/*` — create 201 (`line_items` with `amount`,
//! `vat_rate`, `category`; `creditor: {id}`; numbered `B-…`, `unpaid`), update via PUT 200, pay
//! 200 (`{"value": 165.8}` with an optional `payment_date`), cancel 200 (`canceled`, archived),
//! `cancel_with_reverse_entry` 200 (state `deleted`, archived), archive/unarchive 200, delete 204.

use super::*;
use crate::model::{Voucher, VoucherLineItem, VoucherState};
use crate::state::berlin_today;

writable!(Voucher, vouchers);
archivable!(Voucher);

/// Largest amount of a voucher line or payment, in euros.
const MAX_AMOUNT: i64 = 100_000_000;
/// Names of people entertained a voucher may list.
const MAX_PERSONS: usize = 50;
/// The reasons the upstream client library allows for a payment that differs from the amount.
const DIFFERENCE_REASONS: [&str; 5] = [
    "sonstige",
    "mahnung",
    "teilzahlung",
    "skonto",
    "schmaelerung",
];
/// VAT rates a voucher line may carry.
const VOUCHER_VAT_RATES: [&str; 3] = ["19%", "7%", "0%"];

fn lines(items: &[&Map<String, Value>]) -> Result<Vec<VoucherLineItem>, ApiError> {
    if items.is_empty() {
        return Err(blank("Positionen"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("line_items[{i}].");
            let f = Fields::new(item, &at);
            let missing = |field: &str| blank(&format!("{at}{field}"));
            let amount = f
                .decimal("amount")?
                .flatten()
                .ok_or_else(|| missing("amount"))?;
            Ok(VoucherLineItem {
                name: f.raw_text("name")?.flatten().unwrap_or_default(),
                amount: exact(&format!("{at}amount"), amount, MAX_AMOUNT)?,
                category: f
                    .text("category")?
                    .flatten()
                    .ok_or_else(|| missing("category"))?,
                vat_rate: f
                    .choice("vat_rate", &VOUCHER_VAT_RATES)?
                    .flatten()
                    .ok_or_else(|| missing("vat_rate"))?,
                billing: None,
                depreciation: None,
            })
        })
        .collect()
}

/// Whether money was booked against the voucher (paid in the demo data, or through `pay`).
fn has_payment(store: &Store, v: &Voucher) -> bool {
    v.state == VoucherState::Paid || store.voucher_paid(v.id) > Decimal::ZERO
}

fn closed(v: &Voucher) -> Result<(), ApiError> {
    match v.state {
        VoucherState::Canceled | VoucherState::Deleted => Err(refused(format!(
            "Beleg {} ist storniert und kann nicht mehr geändert werden",
            v.voucher_no
        ))),
        _ => Ok(()),
    }
}

fn apply(store: &Store, f: &Fields<'_>, v: &mut Voucher) -> Result<(), ApiError> {
    let d = store.data();
    if let Some(name) = still_required("Name", f.text("name")?)? {
        v.name = name;
    }
    if let Some(items) = f.objects("line_items", MAX_LINE_ITEMS)? {
        if has_payment(store, v) {
            return Err(refused(
                "Die Positionen eines bezahlten Belegs können nicht geändert werden",
            ));
        }
        v.line_items = lines(&items)?;
        v.amount = v.line_items.iter().map(|l| l.amount).sum();
    }
    if let Some(provenance) = f.text("provenance")? {
        v.provenance = provenance.unwrap_or_else(|| "domestic".into());
    }
    assign(&mut v.due_date, f.date("due_date")?);
    if let Some(date) = still_required("Belegdatum", f.date("document_date")?)? {
        v.document_date = date;
    }
    for (key, target) in [
        ("description", &mut v.description),
        ("entertainment_reason", &mut v.entertainment_reason),
    ] {
        if let Some(text) = f.raw_text(key)? {
            *target = text.unwrap_or_default();
        }
    }
    if let Some(persons) = f.strings("entertainment_persons", MAX_PERSONS)? {
        v.entertainment_persons = persons.unwrap_or_default();
    }
    assign(&mut v.flagged, f.boolean("flagged")?);
    assign(
        &mut v.creditor_id,
        optional_reference(f, "creditor", &d.companies)?,
    );
    assign(
        &mut v.project_id,
        optional_reference(f, "project", &d.projects)?,
    );
    Ok(())
}

/// `POST /expense/vouchers` → 201 with the voucher's detail, numbered and `unpaid`.
pub(crate) async fn create_voucher(
    State(st): State<SandboxState>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    let mut required = Required::default();
    required.check("Name", f.text("name")?.flatten());
    required.check(
        "Positionen",
        f.objects("line_items", MAX_LINE_ITEMS)?
            .filter(|l| !l.is_empty()),
    );
    required.done()?;
    st.write(|store| {
        let mut v = Voucher {
            document_date: berlin_today(),
            provenance: "domestic".into(),
            ..Default::default()
        };
        apply(store, &f, &mut v)?;
        insert_with(
            store,
            v,
            |store, v| {
                let highest = store
                    .data()
                    .vouchers
                    .iter()
                    .filter_map(|x| x.voucher_no.strip_prefix("B-")?.parse().ok())
                    .max()
                    .unwrap_or(0);
                let n = store.next_number("voucher_no", highest);
                v.voucher_no = format!("B-{n:05}");
            },
            |v| Some(format!("/ausgaben/belege/{}", v.id)),
        )
    })
}

/// `PUT|PATCH /expense/vouchers/{id}` → 200; not once cancelled, and a paid voucher keeps its
/// line items.
pub(crate) async fn update_voucher(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    change::<Voucher>(&st, &id, |store, v| {
        closed(v)?;
        apply(store, &f, v)
    })
}

/// Runs `f` on the voucher `id` with the whole store at hand (payments live beside the data).
fn with_voucher(
    st: &SandboxState,
    id: &str,
    f: impl FnOnce(&mut Store, &mut Voucher) -> Result<(), ApiError>,
) -> Result<Response, ApiError> {
    st.write(|store| {
        let i = index_of(&store.data().vouchers, id)?;
        let mut v = store.data().vouchers[i].clone();
        f(store, &mut v)?;
        let id = v.id;
        let d = store.data_mut();
        d.vouchers[i] = v;
        Ok(changed(id, detail_value(&d.vouchers[i], d)))
    })
}

/// `POST /expense/vouchers/{id}/pay` → 200. `value` (or a `banking_transaction: {id}`) books a
/// payment; the voucher is `paid` once the payments cover its amount, or with a
/// `difference_reason` other than `teilzahlung`.
pub(crate) async fn pay_voucher(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    with_voucher(&st, &id, |store, v| {
        let value = f.decimal("value")?.flatten();
        let transaction = f.reference("banking_transaction")?.flatten();
        let date = f
            .date("payment_date")?
            .flatten()
            .unwrap_or_else(berlin_today);
        let reason = f
            .choice("difference_reason", &DIFFERENCE_REASONS)?
            .flatten();
        closed(v)?;
        let value = match (value, transaction) {
            (Some(value), _) => value,
            (None, Some(tx)) => referenced(&store.data().transactions, "banking_transaction", tx)?
                .value
                .abs(),
            (None, None) => return Err(blank("value")),
        };
        let value = exact("value", value, MAX_AMOUNT)?;
        if value <= Decimal::ZERO {
            return Err(refused(format!(
                "value must be greater than 0, got {value}"
            )));
        }
        if v.state == VoucherState::Paid {
            return Err(refused(format!(
                "Beleg {} ist bereits bezahlt",
                v.voucher_no
            )));
        }
        let open = v.amount.abs() - store.voucher_paid(v.id);
        if value > open {
            return Err(refused(format!(
                "value {value} is more than the {open} still open on voucher {}",
                v.voucher_no
            )));
        }
        store.book_voucher_payment(v.id, value);
        let settled = value == open || reason.as_deref().is_some_and(|r| r != "teilzahlung");
        if settled {
            v.state = VoucherState::Paid;
            v.paid_on = Some(date);
        }
        Ok(())
    })
}

/// `POST /expense/vouchers/{id}/cancel` → 200: `canceled` and archived. A voucher with a payment
/// needs `cancel_with_reverse_entry`.
pub(crate) async fn cancel_voucher(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    with_voucher(&st, &id, |store, v| {
        closed(v)?;
        if has_payment(store, v) {
            return Err(refused(format!(
                "Beleg {} hat eine Zahlung; stornieren Sie ihn mit Gegenbuchung \
                 (cancel_with_reverse_entry)",
                v.voucher_no
            )));
        }
        v.state = VoucherState::Canceled;
        v.record_state = RecordState::Archived;
        Ok(())
    })
}

/// `POST /expense/vouchers/{id}/cancel_with_reverse_entry` → 200: the payment is reversed, the
/// voucher `deleted` and archived, as recorded.
pub(crate) async fn cancel_voucher_with_reverse_entry(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    with_voucher(&st, &id, |store, v| {
        closed(v)?;
        if !has_payment(store, v) {
            return Err(refused(format!(
                "Beleg {} hat keine Zahlung, die zurückgebucht werden könnte; stornieren Sie ihn \
                 ohne Gegenbuchung (cancel)",
                v.voucher_no
            )));
        }
        store.reverse_voucher_payments(v.id);
        v.state = VoucherState::Deleted;
        v.record_state = RecordState::Archived;
        Ok(())
    })
}

/// `DELETE /expense/vouchers/{id}` → 204; not once money was booked against it.
pub(crate) async fn delete_voucher(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    remove::<Voucher>(&st, &id, |store, v| {
        if has_payment(store, v) {
            return Err(refused(format!(
                "Beleg {} hat eine Zahlung und kann nicht gelöscht werden; stornieren Sie ihn mit \
                 Gegenbuchung (cancel_with_reverse_entry)",
                v.voucher_no
            )));
        }
        Ok(())
    })
}
