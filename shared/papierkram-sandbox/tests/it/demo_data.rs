//! The demo account: determinism, counts, bookkeeping invariants, and the wire shapes.

use crate::common::*;
use jiff::civil::Date;
use papierkram_sandbox::model::*;
use papierkram_sandbox::*;
use rust_decimal::Decimal;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};

#[test]
fn two_builds_are_identical() {
    assert_eq!(build_demo(), build_demo());
    assert_eq!(&build_demo(), demo());
}

#[test]
fn record_counts_are_fixed() {
    let d = demo();
    let customers = d
        .companies
        .iter()
        .filter(|c| c.contact_type == ContactType::Customer)
        .count();
    assert_eq!(
        (customers, d.companies.len() - customers),
        (CUSTOMER_COUNT, SUPPLIER_COUNT)
    );
    assert_eq!(d.companies.len(), 40);
    assert_eq!(d.projects.len(), PROJECT_COUNT);
    assert_eq!(d.tasks.len(), PROJECT_COUNT * TASKS_PER_PROJECT);
    assert_eq!(
        d.time_entries.len(),
        PROJECT_COUNT * TASKS_PER_PROJECT * TIME_ENTRIES_PER_TASK
    );
    assert_eq!(d.invoices.len(), INVOICE_COUNT);
    assert_eq!(d.vouchers.len(), VOUCHER_COUNT);
    assert_eq!(d.estimates.len(), ESTIMATE_COUNT);
    assert_eq!(
        (
            d.payment_terms.len(),
            d.propositions.len(),
            d.bank_connections.len()
        ),
        (7, 10, 2)
    );
    let paid = d
        .invoices
        .iter()
        .filter(|i| i.state == InvoiceState::Paid)
        .count()
        + d.vouchers
            .iter()
            .filter(|v| v.state == VoucherState::Paid)
            .count();
    let fee_months = 23;
    assert_eq!(d.transactions.len(), paid + fee_months);
}

fn strictly_increasing<T: HasId>(items: &[T]) -> bool {
    items.windows(2).all(|w| w[0].id() < w[1].id())
}

#[test]
fn collections_are_sorted_by_id_and_references_resolve() {
    let d = demo();
    assert!(strictly_increasing(&d.companies) && strictly_increasing(&d.persons));
    assert!(strictly_increasing(&d.projects) && strictly_increasing(&d.tasks));
    assert!(strictly_increasing(&d.time_entries) && strictly_increasing(&d.invoices));
    assert!(strictly_increasing(&d.vouchers) && strictly_increasing(&d.estimates));
    assert!(strictly_increasing(&d.transactions));
    for c in &d.companies {
        let people: Vec<_> = d.persons_of(c.id).collect();
        assert!(!people.is_empty(), "{} has a contact", c.name);
        assert_eq!(people.iter().filter(|p| p.default == Some(true)).count(), 1);
    }
    for i in &d.invoices {
        assert_eq!(
            d.company(i.customer_id).unwrap().contact_type,
            ContactType::Customer
        );
        if let Some(p) = i.project_id {
            assert_eq!(
                d.project(p).unwrap().company_id,
                i.customer_id,
                "project of the same customer"
            );
        }
    }
    for v in &d.vouchers {
        if let Some(c) = v.creditor_id {
            assert_eq!(d.company(c).unwrap().contact_type, ContactType::Supplier);
        }
    }
    for t in &d.time_entries {
        let task = d.tasks.iter().find(|x| x.id == t.task_id).unwrap();
        assert_eq!(task.project_id, t.project_id);
        assert!(t.started_at < t.ended_at);
        let seconds = t.ended_at.0.duration_since(t.started_at.0).as_secs();
        assert_eq!(seconds as u64, t.duration);
    }
}

fn cents_exact(d: Decimal) -> bool {
    d.normalize().scale() <= 2
}

#[test]
fn invoices_add_up_and_states_match_their_dates() {
    let d = demo();
    let mut states = HashSet::new();
    for i in &d.invoices {
        states.insert(i.state);
        assert!(i.document_date >= FIRST_DAY && i.document_date <= LAST_DAY);
        let lines: Decimal = i.line_items.iter().map(|l| l.total_net).sum();
        assert_eq!(lines, i.total_net);
        for l in &i.line_items {
            assert_eq!(
                l.quantity * l.price,
                l.total_net,
                "{}: positions are exact",
                i.id
            );
        }
        assert_eq!(i.total_net + i.total_vat, i.total_gross);
        assert!(
            [i.total_net, i.total_vat, i.total_gross]
                .into_iter()
                .all(cents_exact)
        );
        match i.state {
            InvoiceState::Paid => {
                assert_eq!(i.outstanding_amount, Decimal::ZERO);
                assert!(
                    i.paid_at_date
                        .is_some_and(|p| p <= AS_OF && p >= i.document_date)
                );
            }
            other => {
                assert_eq!(i.outstanding_amount, i.total_gross);
                assert!(i.paid_at_date.is_none());
                if other == InvoiceState::Overdue {
                    assert!(i.due_date < AS_OF);
                }
                if other == InvoiceState::Unpaid {
                    assert!(i.due_date >= AS_OF);
                }
            }
        }
        assert_eq!(i.invoice_no.is_none(), i.state == InvoiceState::Draft);
        assert_eq!(
            i.record_state == RecordState::Archived,
            i.state == InvoiceState::Canceled
        );
    }
    use InvoiceState::*;
    assert_eq!(
        states,
        HashSet::from([Draft, Unpaid, Overdue, Paid, Canceled])
    );
}

#[test]
fn vouchers_add_up_and_cover_every_state() {
    let d = demo();
    let mut states = HashSet::new();
    for v in &d.vouchers {
        states.insert(v.state);
        let lines: Decimal = v.line_items.iter().map(|l| l.amount).sum();
        assert_eq!(lines, v.amount);
        assert!(cents_exact(v.amount) && v.amount > Decimal::ZERO);
        assert!(v.document_date >= FIRST_DAY && v.document_date <= LAST_DAY);
        assert_eq!(v.paid_on.is_some(), v.state == VoucherState::Paid);
    }
    use VoucherState::*;
    assert_eq!(states, HashSet::from([Unpaid, Overdue, Paid, Canceled]));
}

#[test]
fn estimates_cover_every_state_and_add_up() {
    let d = demo();
    let states: HashSet<EstimateState> = d.estimates.iter().map(|e| e.state).collect();
    use EstimateState::*;
    assert_eq!(states, HashSet::from([Draft, Sent, Accepted, Rejected]));
    for e in &d.estimates {
        let lines: Decimal = e.line_items.iter().map(|l| l.total_net).sum();
        assert_eq!(
            (lines, e.total_net + e.total_vat),
            (e.total_net, e.total_gross)
        );
        assert_eq!(e.estimate_no.is_none(), e.state == Draft);
    }
}

#[test]
fn every_payment_has_exactly_one_bank_line_and_balances_run() {
    let d = demo();
    for i in d.invoices.iter().filter(|i| i.state == InvoiceState::Paid) {
        let lines: Vec<_> = d
            .transactions
            .iter()
            .filter(|t| t.invoice_id == Some(i.id))
            .collect();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].value, i.total_gross);
        assert_eq!(lines[0].bdate.date(), i.paid_at_date.unwrap());
    }
    for v in d.vouchers.iter().filter(|v| v.state == VoucherState::Paid) {
        let lines: Vec<_> = d
            .transactions
            .iter()
            .filter(|t| t.voucher_id == Some(v.id))
            .collect();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].value, -v.amount);
    }
    for account in &d.bank_connections {
        let lines: Vec<_> = d
            .transactions
            .iter()
            .filter(|t| t.bank_connection_id == account.id)
            .collect();
        let opening = lines[0].saldo.value - lines[0].value;
        let mut balance = opening;
        for t in lines {
            balance += t.value;
            assert_eq!(
                t.saldo.value, balance,
                "running balance of {}",
                account.name
            );
        }
    }
}

/// The numbers a month-close aggregation must reproduce, computed two independent ways:
/// a straightforward loop over the typed data, and paging through the HTTP API.
#[tokio::test]
async fn monthly_sums_over_the_api_equal_a_plain_loop() {
    let st = state();
    let d = demo();
    let mut month = FIRST_DAY;
    let mut months = 0;
    while month <= LAST_DAY {
        let end = month.last_of_month();
        let in_month = |date: Date| date >= month && date <= end;
        let range = format!("document_date_range_start={month}&document_date_range_end={end}");

        let (mut gross, mut count, mut by_state) = (Decimal::ZERO, 0, BTreeMap::new());
        for i in d.invoices.iter().filter(|i| in_month(i.document_date)) {
            gross += i.total_gross;
            count += 1;
            *by_state
                .entry(format!("{:?}", i.state).to_lowercase())
                .or_insert(Decimal::ZERO) += i.total_gross;
        }
        let api = all_pages(
            &st,
            &format!("/api/v1/income/invoices?{range}&page_size=100"),
        )
        .await;
        assert_eq!(api.len(), count, "{month}");
        assert_eq!(
            api.iter()
                .map(|e| money(&e["total_gross"]))
                .sum::<Decimal>(),
            gross,
            "{month}"
        );
        let mut api_by_state = BTreeMap::new();
        for e in &api {
            *api_by_state
                .entry(e["state"].as_str().unwrap().to_owned())
                .or_insert(Decimal::ZERO) += money(&e["total_gross"]);
        }
        assert_eq!(api_by_state, by_state, "{month}");

        let spent: Decimal = d
            .vouchers
            .iter()
            .filter(|v| in_month(v.document_date))
            .map(|v| v.amount)
            .sum();
        let api = all_pages(&st, &format!("/api/v1/expense/vouchers?{range}")).await;
        assert_eq!(
            api.iter().map(|e| money(&e["amount"])).sum::<Decimal>(),
            spent,
            "{month}"
        );
        assert!(count > 0 && spent > Decimal::ZERO, "{month} has activity");

        months += 1;
        month = month.checked_add(jiff::Span::new().months(1)).unwrap();
    }
    assert_eq!(months, 23);
}

#[tokio::test]
async fn open_items_over_the_api_equal_a_plain_loop() {
    let st = state();
    let open: Decimal = demo()
        .invoices
        .iter()
        .filter(|i| matches!(i.state, InvoiceState::Unpaid | InvoiceState::Overdue))
        .map(|i| i.outstanding_amount)
        .sum();
    let api: Decimal = all_pages(&st, "/api/v1/income/invoices")
        .await
        .iter()
        .filter(|e| e["state"] == "unpaid" || e["state"] == "overdue")
        .map(|e| money(&e["outstanding_amount"]))
        .sum();
    assert!(open > Decimal::ZERO);
    assert_eq!(api, open);
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().expect("an object").keys().cloned().collect()
}

fn set(names: &str) -> BTreeSet<String> {
    names.split_whitespace().map(str::to_owned).collect()
}

/// Field names per resource as the upstream recordings show them.
#[tokio::test]
async fn records_carry_the_upstream_field_names() {
    let st = state();
    let d = demo();
    let shapes: [(&str, String, &str, &str); 11] = [
        (
            "income/invoices",
            d.invoices[0].id.to_string(),
            "type id name description type_of document_date due_date supply_date customer_no invoice_no \
             sent_on sent_via sent_to paid_at_date state record_state custom_template total_net total_vat \
             total_gross down_payment_total_gross outstanding_amount billing",
            "customer contact_person project line_items",
        ),
        (
            "income/estimates",
            d.estimates[0].id.to_string(),
            "type id name description document_date customer_no estimate_no sent_on sent_via sent_to state \
             record_state custom_template total_net total_vat total_gross billing",
            "customer contact_person project line_items",
        ),
        (
            "expense/vouchers",
            d.vouchers[0].id.to_string(),
            "type id name due_date document_date description entertainment_reason flagged provenance \
             voucher_no state record_state amount invoice_amount entertainment_persons",
            "creditor line_items documents",
        ),
        (
            "contact/companies",
            d.companies[0].id.to_string(),
            "type id name contact_type supplier_no customer_no email phone website twitter fax postal_street \
             postal_zip postal_city postal_country physical_street physical_zip physical_city physical_country \
             delivery_method ust_idnr logo_file_name logo_content_type logo_file_size logo_updated_at bank_blz \
             bank_institute bank_account_no bank_bic bank_sepa_mandate_reference bank_sepa_mandate_accepted \
             bank_iban inbound_address notes record_state flagged created_at updated_at color",
            "people custom_attributes projects invoices vouchers",
        ),
        (
            &format!("contact/companies/{}/persons", d.persons[0].company_id),
            d.persons[0].id.to_string(),
            "type id first_name last_name title salutation position department phone skype fax email flagged \
             created_at updated_at mobile comment default",
            "company",
        ),
        (
            "projects",
            d.projects[0].id.to_string(),
            "type id name description start_date end_date flagged budget_type budget_money budget_time \
             budget_time_unit customer_default record_state created_at updated_at company_id color",
            "default_proposition customer team_members tasks invoices vouchers",
        ),
        (
            "tracker/tasks",
            d.tasks[0].id.to_string(),
            "type id name project_id relative_costs complete deadline flagged record_state created_at updated_at",
            "project proposition user",
        ),
        (
            "tracker/time_entries",
            d.time_entries[0].id.to_string(),
            "type id user_id task_id project_id invoice_id started_at ended_at duration comments fingerprint \
             record_state billable_duration unbillable created_at updated_at",
            "project task user invoice",
        ),
        (
            "income/propositions",
            d.propositions[0].id.to_string(),
            "type id name article_no proposition_type description price time_unit unit_name_1 unit_name_n \
             record_state flagged favorite created_at updated_at",
            "vat_rate",
        ),
        (
            "income/payment_terms",
            d.payment_terms[0].id.to_string(),
            "type id name cash_discount cash_discount_time cash_discount_unit due_time due_time_unit \
             number_reminders number_dunnings dunning_fee created_at updated_at template default_template \
             template_id default_reminder_template template_text payment_required",
            "banking_bank_connection",
        ),
        (
            "banking/transactions",
            d.transactions[0].id.to_string(),
            "type id state value currency storno customerref instref gvcode text usage transaction_type sepa \
             from saldo primanota valuta bdate seen fintecapi_turnover_id imported_at created_at updated_at \
             tags categories bank_connection",
            "",
        ),
    ];
    for (path, id, list_fields, detail_extra) in shapes {
        let list = get(&st, &format!("/api/v1/{path}?page_size=1")).await;
        assert_eq!(
            keys(&list.body["entries"][0]),
            set(list_fields),
            "{path} list entry"
        );
        let one = get(&st, &format!("/api/v1/{path}/{id}")).await;
        let mut expected = set(list_fields);
        expected.extend(set(detail_extra));
        assert_eq!(keys(&one.body), expected, "{path} detail");
    }
}

#[tokio::test]
async fn amounts_use_the_upstream_json_types() {
    let st = state();
    let d = demo();
    let invoice = get(
        &st,
        &format!("/api/v1/income/invoices/{}", d.invoices[0].id),
    )
    .await
    .body;
    for field in ["total_net", "total_vat", "total_gross"] {
        assert!(invoice[field].is_f64(), "{field} is a float number");
    }
    assert!(invoice["down_payment_total_gross"].is_u64());
    assert!(invoice["outstanding_amount"].is_string());
    assert!(
        invoice["line_items"][0]["price"].is_number()
            && invoice["line_items"][0]["quantity"].is_number()
    );
    assert_eq!(
        keys(&invoice["billing"]),
        set("company email ust_idnr street zip city country contact_person department")
    );

    let voucher = get(
        &st,
        &format!("/api/v1/expense/vouchers/{}", d.vouchers[0].id),
    )
    .await
    .body;
    assert!(voucher["amount"].is_f64() && voucher["line_items"][0]["amount"].is_f64());
    let proposition = get(
        &st,
        &format!("/api/v1/income/propositions/{}", d.propositions[0].id),
    )
    .await
    .body;
    assert!(proposition["price"].is_string() && proposition["vat_rate"]["rate"].is_string());
    let tx = get(
        &st,
        &format!("/api/v1/banking/transactions/{}", d.transactions[0].id),
    )
    .await
    .body;
    assert!(tx["value"].is_string() && tx["saldo"]["value"].is_string());
    assert_eq!(money(&tx["value"]), d.transactions[0].value);
}
