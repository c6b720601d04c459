//! Every write kind over HTTP: status, shape, read-after-write, 422 envelopes, 404s, quota.

use crate::common::*;
use axum::http::{Method, StatusCode};
use papierkram_sandbox::model::{ContactType, InvoiceState, VoucherState};
use papierkram_sandbox::{CREATE_QUOTA_COST, DOCUMENT_CREATE_QUOTA_COST, demo};
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().expect("an object").keys().cloned().collect()
}

fn dec(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn customer_id() -> u64 {
    demo()
        .companies
        .iter()
        .find(|c| c.contact_type == ContactType::Customer)
        .unwrap()
        .id
}

fn supplier_id() -> u64 {
    demo()
        .companies
        .iter()
        .find(|c| c.contact_type == ContactType::Supplier)
        .unwrap()
        .id
}

/// A create answers 201 with the same shape a GET of the record answers, and costs `cost`.
async fn assert_created(
    st: &papierkram_sandbox::SandboxState,
    reply: &Reply,
    detail_uri: &str,
    cost: u64,
) -> u64 {
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    assert_eq!(
        reply.header("x-consumed-quota"),
        Some(cost.to_string().as_str())
    );
    let id = reply.body["id"].as_u64().unwrap();
    let read = get(st, &format!("{detail_uri}/{id}")).await;
    assert_eq!(read.status, StatusCode::OK, "{}", read.body);
    assert_eq!(
        keys(&read.body),
        keys(&reply.body),
        "create answers the detail"
    );
    assert_eq!(read.body, reply.body, "the read sees the write");
    id
}

/// `POST {record}/archive` answers 200 with the record archived.
async fn assert_archives(st: &papierkram_sandbox::SandboxState, record: &str) {
    let r = post(st, &format!("{record}/archive"), "{}").await;
    assert_eq!(
        (r.status, r.body["record_state"].as_str()),
        (StatusCode::OK, Some("archived"))
    );
}

/// `POST {record}/archive`, then `…/unarchive`, each answering the record in its new state.
async fn archive_and_unarchive(st: &papierkram_sandbox::SandboxState, record: &str) {
    for (action, state) in [("archive", "archived"), ("unarchive", "active")] {
        let r = post(st, &format!("{record}/{action}"), "{}").await;
        assert_eq!(r.body["record_state"], state);
    }
}

#[tokio::test]
async fn company_create_update_archive_and_delete_follow_the_recordings() {
    let st = state();
    let before = get(&st, "/api/v1/contact/companies").await.body["total_entries"].clone();
    let r = post(
        &st,
        "/api/v1/contact/companies",
        r#"{"contact_type":"customer","name":"Seeblick Gästehaus","phone":null,"postal_country":null,"email":"post@seeblick.example"}"#,
    )
    .await;
    let id = assert_created(&st, &r, "/api/v1/contact/companies", CREATE_QUOTA_COST).await;
    assert_eq!(
        r.header("location"),
        Some(format!("/adressbuch/eintraege/{id}").as_str())
    );
    assert_eq!(r.body["type"], "company");
    assert_eq!(
        r.body["postal_country"], "Deutschland",
        "null country gets the default"
    );
    assert_eq!(r.body["record_state"], "active");
    assert_eq!(r.body["people"]["entries"], json!([]));
    assert!(id > demo().companies.last().unwrap().id);
    let after = get(&st, "/api/v1/contact/companies").await.body["total_entries"].clone();
    assert_eq!(after.as_u64().unwrap(), before.as_u64().unwrap() + 1);

    let r = put(
        &st,
        &format!("/api/v1/contact/companies/{id}"),
        r#"{"phone":"04321 55 66"}"#,
    )
    .await;
    assert_eq!(
        (r.status, r.header("x-consumed-quota")),
        (StatusCode::OK, Some("1"))
    );
    assert_eq!(
        (r.body["phone"].as_str(), r.body["name"].as_str()),
        (Some("04321 55 66"), Some("Seeblick Gästehaus"))
    );
    let r = write(
        &st,
        Method::PATCH,
        &format!("/api/v1/contact/companies/{id}"),
        r#"{"contact_type":"supplier"}"#,
    )
    .await;
    assert_eq!(r.body["contact_type"], "supplier", "PATCH updates like PUT");

    assert_archives(&st, &format!("/api/v1/contact/companies/{id}")).await;
    let r = post(
        &st,
        &format!("/api/v1/contact/companies/{id}/unarchive"),
        "",
    )
    .await;
    assert_eq!(
        r.body["record_state"], "active",
        "an empty body works as {{}}"
    );

    let r = delete(&st, &format!("/api/v1/contact/companies/{id}")).await;
    assert_eq!((r.status, &r.body), (StatusCode::NO_CONTENT, &Value::Null));
    assert_eq!(r.header("content-type"), None);
    assert_eq!(r.header("x-consumed-quota"), Some("1"));
    let gone = get(&st, &format!("/api/v1/contact/companies/{id}")).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_nameless_company_gets_the_recorded_422_and_still_costs_a_create() {
    let st = state();
    let before = st.quota().used;
    for body in [
        r#"{"contact_type":"customer","name":"","phone":"123"}"#,
        r#"{"phone":"123"}"#,
        "{\"name\": null}",
    ] {
        let r = post(&st, "/api/v1/contact/companies", body).await;
        assert_eq!(
            error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
            "Name muss ausgefüllt werden"
        );
        assert_eq!(r.body["error_type"], "unprocessable_entity");
        assert_eq!(r.header("x-consumed-quota"), Some("10"), "as recorded");
    }
    assert_eq!(st.quota().used, before + 30);
    assert_eq!(
        st.data().companies.len(),
        demo().companies.len(),
        "nothing was created"
    );
    let r = put(
        &st,
        &format!("/api/v1/contact/companies/{}", customer_id()),
        r#"{"name":"  "}"#,
    )
    .await;
    assert_eq!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
        "Name muss ausgefüllt werden"
    );
}

#[tokio::test]
async fn unknown_ids_answer_the_recorded_404_for_every_write_kind() {
    let st = state();
    let r = delete(&st, "/api/v1/contact/companies/123456789").await;
    assert_eq!(
        error_message(&r, StatusCode::NOT_FOUND),
        "Couldn't find Contact::Company with 'id'=123456789"
    );
    assert_eq!(r.body["error_type"], "not_found");
    for (method, uri, model) in [
        (
            Method::PUT,
            "/api/v1/contact/companies/9",
            "Contact::Company",
        ),
        (
            Method::POST,
            "/api/v1/contact/companies/9/archive",
            "Contact::Company",
        ),
        (
            Method::POST,
            "/api/v1/contact/companies/9/persons",
            "Contact::Company",
        ),
        (
            Method::PUT,
            "/api/v1/contact/companies/101/persons/9",
            "Contact::Person",
        ),
        (Method::PUT, "/api/v1/projects/9", "Project"),
        (Method::DELETE, "/api/v1/projects/9", "Project"),
        (Method::PUT, "/api/v1/tracker/tasks/9", "Tracker::Task"),
        (
            Method::PUT,
            "/api/v1/tracker/time_entries/9",
            "Tracker::TimeEntry",
        ),
        (
            Method::POST,
            "/api/v1/tracker/time_entries/9/unarchive",
            "Tracker::TimeEntry",
        ),
        (
            Method::DELETE,
            "/api/v1/income/propositions/9",
            "Income::Proposition",
        ),
        (Method::PUT, "/api/v1/income/invoices/9", "Income::Invoice"),
        (
            Method::POST,
            "/api/v1/income/invoices/9/deliver",
            "Income::Invoice",
        ),
        (
            Method::POST,
            "/api/v1/income/invoices/9/cancel",
            "Income::Invoice",
        ),
        (
            Method::POST,
            "/api/v1/expense/vouchers/9/pay",
            "Expense::Voucher",
        ),
        (
            Method::POST,
            "/api/v1/expense/vouchers/abc/cancel_with_reverse_entry",
            "Expense::Voucher",
        ),
    ] {
        let body = if method == Method::DELETE {
            ""
        } else {
            r#"{"name":"x","value":1}"#
        };
        let r = write(&st, method.clone(), uri, body).await;
        let message = error_message(&r, StatusCode::NOT_FOUND);
        assert!(
            message.starts_with(&format!("Couldn't find {model} with 'id'=")),
            "{method} {uri}: {message}"
        );
    }
    assert_eq!(&*st.data(), demo(), "nothing changed");
}

#[tokio::test]
async fn contact_persons_are_written_under_their_company() {
    let st = state();
    let company = customer_id();
    let base = format!("/api/v1/contact/companies/{company}/persons");
    let r = post(
        &st,
        &base,
        r#"{"first_name":"Ole","last_name":"Jensen","email":null,"position":"Einkauf"}"#,
    )
    .await;
    let id = assert_created(&st, &r, &base, CREATE_QUOTA_COST).await;
    assert_eq!(r.body["company"]["id"], company);
    assert_eq!(r.body["position"], "Einkauf");
    let list = all_pages(&st, &base).await;
    assert!(list.iter().any(|p| p["id"] == id));
    let detail = get(&st, &format!("/api/v1/contact/companies/{company}")).await;
    assert!(
        detail.body["people"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == id)
    );

    let r = put(
        &st,
        &format!("{base}/{id}"),
        r#"{"last_name":"Jensen-Hansen"}"#,
    )
    .await;
    assert_eq!(
        (r.status, r.body["last_name"].as_str()),
        (StatusCode::OK, Some("Jensen-Hansen"))
    );
    let other = supplier_id();
    let r = put(
        &st,
        &format!("/api/v1/contact/companies/{other}/persons/{id}"),
        r#"{"last_name":"X"}"#,
    )
    .await;
    error_message(&r, StatusCode::NOT_FOUND);

    let r = post(&st, &base, r#"{"first_name":"","title":"Dr."}"#).await;
    assert_eq!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
        "Vorname muss ausgefüllt werden, Nachname muss ausgefüllt werden"
    );
    let r = delete(&st, &format!("{base}/{id}")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert!(!all_pages(&st, &base).await.iter().any(|p| p["id"] == id));
}

#[tokio::test]
async fn deletes_refuse_records_others_still_point_at() {
    let st = state();
    let d = demo();
    let invoice = &d.invoices[0];
    let cases = [
        format!("/api/v1/contact/companies/{}", invoice.customer_id),
        format!("/api/v1/projects/{}", d.projects[0].id),
        format!(
            "/api/v1/income/propositions/{}",
            d.tasks[0].proposition_id.unwrap()
        ),
    ];
    for uri in cases {
        let r = delete(&st, &uri).await;
        let message = error_message(&r, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(
            message.contains("kann nicht gelöscht werden"),
            "{uri}: {message}"
        );
    }
    assert_eq!(&*st.data(), demo());
}

#[tokio::test]
async fn projects_tasks_and_time_entries_are_written_and_read_back() {
    let st = state();
    let customer = customer_id();
    let r = post(
        &st,
        "/api/v1/projects",
        &format!(r#"{{"name":"Relaunch Intranet","description":null,"start_date":"2026-12-01","end_date":"2027-03-31","customer":{{"id":{customer}}},"default_proposition":{{}},"team_members":[]}}"#),
    )
    .await;
    let project = assert_created(&st, &r, "/api/v1/projects", CREATE_QUOTA_COST).await;
    assert_eq!(
        r.header("location"),
        None,
        "the recorded project create has none"
    );
    assert_eq!(
        (
            r.body["company_id"].as_u64(),
            r.body["default_proposition"].is_null()
        ),
        (Some(customer), true)
    );
    let of_customer = all_pages(&st, &format!("/api/v1/projects?company_id={customer}")).await;
    assert!(
        of_customer.iter().any(|p| p["id"] == project),
        "the filter sees the new project"
    );

    let proposition = demo().propositions[0].id;
    let r = post(
        &st,
        "/api/v1/tracker/tasks",
        &format!(r#"{{"name":"Konzept","project":{{"id":{project}}},"proposition":{{"id":{proposition}}}}}"#),
    )
    .await;
    let task = assert_created(&st, &r, "/api/v1/tracker/tasks", CREATE_QUOTA_COST).await;
    assert_eq!(
        r.header("location"),
        Some(format!("/zeiterfassung/aufgaben/{task}").as_str())
    );
    assert_eq!(
        (
            r.body["project"]["id"].as_u64(),
            r.body["proposition"]["id"].as_u64()
        ),
        (Some(project), Some(proposition))
    );

    let r = post(
        &st,
        "/api/v1/tracker/time_entries",
        &format!(r#"{{"entry_date":"2026-12-01","started_at_time":"10:00","ended_at_time":"12:00","task":{{"id":{task}}},"user":{{"id":2}},"comments":"Kick-off"}}"#),
    )
    .await;
    let entry = assert_created(&st, &r, "/api/v1/tracker/time_entries", CREATE_QUOTA_COST).await;
    assert_eq!(r.body["started_at"], "2026-12-01T10:00:00.000+01:00");
    assert_eq!(
        (
            r.body["duration"].as_u64(),
            r.body["billable_duration"].as_u64()
        ),
        (Some(7200), Some(7200))
    );
    assert_eq!(
        (r.body["project_id"].as_u64(), r.body["user"]["id"].as_u64()),
        (Some(project), Some(2))
    );
    let fingerprint = r.body["fingerprint"].clone();

    let r = put(
        &st,
        &format!("/api/v1/tracker/time_entries/{entry}"),
        r#"{"comments":"Kick-off mit Workshop","ended_at_time":"12:30"}"#,
    )
    .await;
    assert_eq!(
        (r.status, r.body["duration"].as_u64()),
        (StatusCode::OK, Some(9000))
    );
    assert_eq!(r.body["comments"], "Kick-off mit Workshop");
    assert_ne!(
        r.body["fingerprint"], fingerprint,
        "the fingerprint changes on update, as recorded"
    );
    archive_and_unarchive(&st, &format!("/api/v1/tracker/time_entries/{entry}")).await;
    let r = put(
        &st,
        &format!("/api/v1/tracker/time_entries/{entry}"),
        r#"{"ended_at_time":"09:00"}"#,
    )
    .await;
    assert_eq!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
        "Endzeit muss nach der Startzeit liegen"
    );

    // Moving the task moves its time entries along.
    let other = demo().projects[1].id;
    let r = put(
        &st,
        &format!("/api/v1/tracker/tasks/{task}"),
        &format!(r#"{{"name":"Konzeption","project":{{"id":{other}}}}}"#),
    )
    .await;
    assert_eq!(
        (r.status, r.body["project_id"].as_u64()),
        (StatusCode::OK, Some(other))
    );
    let moved = all_pages(
        &st,
        &format!("/api/v1/tracker/time_entries?project_id={other}"),
    )
    .await;
    assert!(moved.iter().any(|e| e["id"] == entry));

    let r = put(
        &st,
        &format!("/api/v1/projects/{project}"),
        r#"{"name":"Relaunch Intranet 2027"}"#,
    )
    .await;
    assert_eq!(r.body["name"], "Relaunch Intranet 2027");
    archive_and_unarchive(&st, &format!("/api/v1/projects/{project}")).await;
    let r = delete(&st, &format!("/api/v1/projects/{project}")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
}

#[tokio::test]
async fn tracker_and_project_creates_name_what_is_missing() {
    let st = state();
    for (uri, body, message) in [
        (
            "/api/v1/projects",
            r#"{"name":"X"}"#,
            "Kunde muss ausgefüllt werden",
        ),
        (
            "/api/v1/tracker/tasks",
            r#"{"project":{"id":301}}"#,
            "Name muss ausgefüllt werden",
        ),
        (
            "/api/v1/tracker/time_entries",
            r#"{"entry_date":"2026-12-01"}"#,
            "Startzeit muss ausgefüllt werden, Endzeit muss ausgefüllt werden, Aufgabe muss ausgefüllt werden",
        ),
        (
            "/api/v1/projects",
            r#"{"name":"X","customer":{"id":999}}"#,
            "customer: Couldn't find Contact::Company with 'id'=999",
        ),
        (
            "/api/v1/tracker/time_entries",
            r#"{"entry_date":"2026-12-01","started_at_time":"9:00","ended_at_time":"10:00","task":{"id":2001}}"#,
            "started_at_time must be a time like 09:30, got \"9:00\"",
        ),
        (
            "/api/v1/projects",
            r#"{"name":"X","customer":{"id":101},"start_date":"01.12.2026"}"#,
            "start_date must be a date like 2025-03-31, got \"01.12.2026\"",
        ),
    ] {
        let r = post(&st, uri, body).await;
        assert_eq!(
            error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
            message,
            "{uri} {body}"
        );
    }
}

#[tokio::test]
async fn propositions_carry_their_vat_rate_and_unit_names() {
    let st = state();
    let r = post(
        &st,
        "/api/v1/income/propositions",
        r#"{"name":"Barrierefreiheits-Audit","article_no":"NL-900","description":"Prüfung nach WCAG","time_unit":"hour","proposition_type":"service","price":"120.0","vat_rate":"19%"}"#,
    )
    .await;
    let id = assert_created(&st, &r, "/api/v1/income/propositions", CREATE_QUOTA_COST).await;
    assert_eq!(
        (
            r.body["price"].as_str(),
            r.body["vat_rate"]["name"].as_str()
        ),
        (Some("120.0"), Some("19%"))
    );
    assert_eq!(
        (
            r.body["unit_name_1"].as_str(),
            r.body["unit_name_n"].as_str()
        ),
        (Some("Stunde"), Some("Stunden"))
    );
    let r = put(
        &st,
        &format!("/api/v1/income/propositions/{id}"),
        r#"{"price":135.5,"vat_rate":"7%"}"#,
    )
    .await;
    assert_eq!(
        (
            r.body["price"].as_str(),
            r.body["vat_rate"]["name"].as_str()
        ),
        (Some("135.5"), Some("7%"))
    );
    archive_and_unarchive(&st, &format!("/api/v1/income/propositions/{id}")).await;
    let r = put(
        &st,
        &format!("/api/v1/income/propositions/{id}"),
        r#"{"vat_rate":"16%"}"#,
    )
    .await;
    assert_eq!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
        "vat_rate must be one of 19%, 7%, got \"16%\""
    );
    let r = put(
        &st,
        &format!("/api/v1/income/propositions/{id}"),
        r#"{"price":"12.345"}"#,
    )
    .await;
    assert!(error_message(&r, StatusCode::UNPROCESSABLE_ENTITY).contains("two decimals"));
    assert_eq!(
        delete(&st, &format!("/api/v1/income/propositions/{id}"))
            .await
            .status,
        StatusCode::NO_CONTENT
    );
}

fn invoice_body(customer: u64) -> String {
    format!(
        r#"{{"name":"Website-Pflege Dezember","line_items":[{{"name":"Wartung","description":"Updates und Backups","quantity":1.25,"unit":"Stunden","vat_rate":"19%","price":100}},{{"name":"Fachbuch","quantity":2,"unit":"Stück","vat_rate":"7%","price":"39.90"}}],"payment_term":{{"id":13}},"document_date":"2026-12-01","supply_date":"01.11.2026 - 30.11.2026","customer":{{"id":{customer}}},"billing":{{}}}}"#
    )
}

#[tokio::test]
async fn invoice_drafts_are_created_with_exact_totals_and_updated() {
    let st = state();
    let customer = customer_id();
    let r = post(&st, "/api/v1/income/invoices", &invoice_body(customer)).await;
    let id = assert_created(
        &st,
        &r,
        "/api/v1/income/invoices",
        DOCUMENT_CREATE_QUOTA_COST,
    )
    .await;
    assert_eq!(
        r.header("location"),
        Some(format!("/einnahmen/rechnungen/{id}").as_str())
    );
    assert_eq!(
        (r.body["state"].as_str(), r.body["invoice_no"].is_null()),
        (Some("draft"), true)
    );
    // 1.25 × 100 = 125.00 at 19 % (23.75) + 2 × 39.90 = 79.80 at 7 % (5.59).
    assert_eq!(money(&r.body["total_net"]), dec("204.80"));
    assert_eq!(money(&r.body["total_vat"]), dec("29.34"));
    assert_eq!(money(&r.body["total_gross"]), dec("234.14"));
    assert_eq!(r.body["outstanding_amount"], "234.14");
    assert_eq!(
        (
            r.body["due_date"].as_str(),
            r.body["customer"]["id"].as_u64()
        ),
        (Some("2026-12-15"), Some(customer))
    );
    assert_eq!(
        r.body["billing"]["company"],
        demo().company(customer).unwrap().name.as_str()
    );
    assert_eq!(r.body["line_items"][1]["position_in_group"], "2.");

    let in_month = all_pages(&st, "/api/v1/income/invoices?document_date_range_start=2026-12-01&document_date_range_end=2026-12-31").await;
    assert!(
        in_month.iter().any(|i| i["id"] == id),
        "month filters see the draft"
    );

    let r = put(
        &st,
        &format!("/api/v1/income/invoices/{id}"),
        r#"{"name":"Website-Pflege Dez.","line_items":[{"name":"Wartung","quantity":1.5,"unit":"Stunden","vat_rate":"19%","price":100}],"billing":{}}"#,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (money(&r.body["total_gross"]), r.body["name"].as_str()),
        (dec("178.50"), Some("Website-Pflege Dez."))
    );
    assert_eq!(r.body["line_items"].as_array().unwrap().len(), 1);

    let r = post(
        &st,
        "/api/v1/income/invoices",
        r#"{"name":"X","customer":{"id":101},"line_items":[]}"#,
    )
    .await;
    assert_eq!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
        "Positionen muss ausgefüllt werden"
    );
    let r = post(&st, "/api/v1/income/invoices", &format!(r#"{{"name":"X","customer":{{"id":{customer}}},"line_items":[{{"name":"A","quantity":0,"price":1,"vat_rate":"19%"}}]}}"#)).await;
    assert_eq!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
        "line_items[0].quantity must be greater than 0, got 0"
    );
    let r = post(&st, "/api/v1/income/invoices", &format!(r#"{{"name":"X","customer":{{"id":{customer}}},"line_items":[{{"name":"A","quantity":1,"price":1}}]}}"#)).await;
    assert_eq!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
        "line_items[0].vat_rate muss ausgefüllt werden"
    );
}

#[tokio::test]
async fn delivering_numbers_the_draft_and_emails_land_in_the_outbox() {
    let st = state();
    let r = post(&st, "/api/v1/income/invoices", &invoice_body(customer_id())).await;
    let id = r.body["id"].as_u64().unwrap();

    let r = post(
        &st,
        &format!("/api/v1/income/invoices/{id}/deliver"),
        r#"{"send_via":"pdf"}"#,
    )
    .await;
    assert_eq!((r.status, &r.body), (StatusCode::NO_CONTENT, &Value::Null));
    assert_eq!(r.header("x-consumed-quota"), Some("1"));
    let read = get(&st, &format!("/api/v1/income/invoices/{id}"))
        .await
        .body;
    assert_eq!(
        (read["state"].as_str(), read["sent_via"].as_str()),
        (Some("unpaid"), Some("pdf"))
    );
    let number = read["invoice_no"].as_str().unwrap().to_owned();
    assert!(number.starts_with("RE-"));
    assert!(st.outbox().is_empty(), "a PDF delivery sends no e-mail");

    let mail = r#"{"send_via":"email","email":{"recipient":"buchhaltung@kunde.example","subject":"Ihre Rechnung","body":"Guten Tag, anbei die Rechnung."}}"#;
    let r = post(&st, &format!("/api/v1/income/invoices/{id}/deliver"), mail).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let outbox = st.outbox();
    assert_eq!(outbox.len(), 1);
    assert_eq!(
        (outbox[0].invoice_id, outbox[0].invoice_no.as_str()),
        (id, number.as_str())
    );
    assert_eq!(
        (outbox[0].recipient.as_str(), outbox[0].subject.as_str()),
        ("buchhaltung@kunde.example", "Ihre Rechnung")
    );
    let read = get(&st, &format!("/api/v1/income/invoices/{id}"))
        .await
        .body;
    assert_eq!(
        (read["invoice_no"].as_str(), read["sent_to"].as_str()),
        (Some(number.as_str()), Some("buchhaltung@kunde.example"))
    );
    let open = all_pages(
        &st,
        &format!("/api/v1/income/invoices?company_id={}", customer_id()),
    )
    .await;
    assert!(
        open.iter().any(|i| i["id"] == id && i["state"] == "unpaid"),
        "open items see it"
    );
    assert_eq!(
        st.data()
            .invoices
            .iter()
            .find(|i| i.id == id)
            .unwrap()
            .state,
        InvoiceState::Unpaid
    );

    for (body, message) in [
        (
            r#"{"send_via":"email","email":{"recipient":"a@b.example"}}"#,
            "email.subject muss ausgefüllt werden, email.body muss ausgefüllt werden",
        ),
        (
            r#"{"send_via":"email","email":{"recipient":"not an address","subject":"s","body":"b"}}"#,
            "email.recipient must be an e-mail address, got \"not an address\"",
        ),
        (
            r#"{"send_via":"fax"}"#,
            "send_via must be one of email, pdf, got \"fax\"",
        ),
    ] {
        let r = post(&st, &format!("/api/v1/income/invoices/{id}/deliver"), body).await;
        assert_eq!(error_message(&r, StatusCode::UNPROCESSABLE_ENTITY), message);
    }
    assert_eq!(st.outbox().len(), 1, "refused deliveries send nothing");
    let r = put(
        &st,
        &format!("/api/v1/income/invoices/{id}"),
        r#"{"name":"Neu"}"#,
    )
    .await;
    assert!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY)
            .starts_with("Nur Rechnungsentwürfe können geändert werden")
    );
}

#[tokio::test]
async fn cancelling_and_deleting_invoices_follow_their_state() {
    let st = state();
    let r = post(&st, "/api/v1/income/invoices", &invoice_body(customer_id())).await;
    let id = r.body["id"].as_u64().unwrap();
    let r = post(&st, &format!("/api/v1/income/invoices/{id}/cancel"), "{}").await;
    assert!(error_message(&r, StatusCode::UNPROCESSABLE_ENTITY).contains("Rechnungsentwurf"));
    assert_archives(&st, &format!("/api/v1/income/invoices/{id}")).await;
    let r = post(
        &st,
        &format!("/api/v1/income/invoices/{id}/unarchive"),
        "{}",
    )
    .await;
    assert_eq!(r.body["record_state"], "active");
    assert_eq!(
        delete(&st, &format!("/api/v1/income/invoices/{id}"))
            .await
            .status,
        StatusCode::NO_CONTENT
    );

    let sent = demo()
        .invoices
        .iter()
        .find(|i| i.state == InvoiceState::Unpaid)
        .unwrap();
    let r = delete(&st, &format!("/api/v1/income/invoices/{}", sent.id)).await;
    assert!(error_message(&r, StatusCode::UNPROCESSABLE_ENTITY).contains("gelöscht"));
    let r = post(
        &st,
        &format!("/api/v1/income/invoices/{}/cancel", sent.id),
        "{}",
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (r.body["state"].as_str(), r.body["record_state"].as_str()),
        (Some("canceled"), Some("archived"))
    );
    assert_eq!(r.body["name"], format!("{} (storniert)", sent.name));
    let r = post(
        &st,
        &format!("/api/v1/income/invoices/{}/cancel", sent.id),
        "{}",
    )
    .await;
    error_message(&r, StatusCode::UNPROCESSABLE_ENTITY);
    let r = post(
        &st,
        &format!("/api/v1/income/invoices/{}/deliver", sent.id),
        r#"{"send_via":"pdf"}"#,
    )
    .await;
    error_message(&r, StatusCode::UNPROCESSABLE_ENTITY);
}

fn voucher_body(creditor: u64) -> String {
    format!(
        r#"{{"name":"Bewirtung Projektabschluss","line_items":[{{"amount":150.8,"name":"Restaurant","vat_rate":"19%","category":"Bewirtungskosten"}},{{"amount":15,"name":"Trinkgeld","vat_rate":"19%","category":"Bewirtungskosten"}}],"provenance":"domestic","due_date":"2026-12-15","document_date":"2026-12-01","description":"Abschlussessen","entertainment_reason":"Projektabschluss","entertainment_persons":["Inga Hansen"],"flagged":true,"creditor":{{"id":{creditor}}}}}"#
    )
}

#[tokio::test]
async fn vouchers_are_created_paid_and_cancelled_with_a_reverse_entry() {
    let st = state();
    let r = post(
        &st,
        "/api/v1/expense/vouchers",
        &voucher_body(supplier_id()),
    )
    .await;
    let id = assert_created(
        &st,
        &r,
        "/api/v1/expense/vouchers",
        DOCUMENT_CREATE_QUOTA_COST,
    )
    .await;
    assert_eq!(
        r.header("location"),
        Some(format!("/ausgaben/belege/{id}").as_str())
    );
    assert_eq!(
        (r.body["state"].as_str(), money(&r.body["amount"])),
        (Some("unpaid"), dec("165.8"))
    );
    let last_no = demo().vouchers.last().unwrap().voucher_no.clone();
    assert!(r.body["voucher_no"].as_str().unwrap() > last_no.as_str());
    assert_eq!(r.body["creditor"]["id"], supplier_id());
    assert_eq!(r.body["entertainment_persons"], json!(["Inga Hansen"]));

    let r = put(
        &st,
        &format!("/api/v1/expense/vouchers/{id}"),
        r#"{"name":"Bewirtung Abschluss"}"#,
    )
    .await;
    assert_eq!(r.body["name"], "Bewirtung Abschluss");
    assert_eq!(
        r.body["entertainment_persons"],
        json!(["Inga Hansen"]),
        "an update without the list keeps it"
    );
    let r = put(
        &st,
        &format!("/api/v1/expense/vouchers/{id}"),
        r#"{"entertainment_persons":["Carl Customer"]}"#,
    )
    .await;
    assert_eq!(
        r.body["entertainment_persons"],
        json!(["Carl Customer"]),
        "an update with the list replaces it"
    );
    let r = post(
        &st,
        &format!("/api/v1/expense/vouchers/{id}/pay"),
        r#"{"value":100}"#,
    )
    .await;
    assert_eq!(
        (r.status, r.body["state"].as_str()),
        (StatusCode::OK, Some("unpaid")),
        "a part payment"
    );
    let r = post(
        &st,
        &format!("/api/v1/expense/vouchers/{id}/pay"),
        r#"{"value":100}"#,
    )
    .await;
    assert!(error_message(&r, StatusCode::UNPROCESSABLE_ENTITY).contains("still open"));
    let r = post(
        &st,
        &format!("/api/v1/expense/vouchers/{id}/pay"),
        r#"{"payment_date":"2026-12-02","value":65.8}"#,
    )
    .await;
    assert_eq!(r.body["state"], "paid");
    assert_eq!(
        st.data()
            .vouchers
            .iter()
            .find(|v| v.id == id)
            .unwrap()
            .state,
        VoucherState::Paid
    );

    let r = post(&st, &format!("/api/v1/expense/vouchers/{id}/cancel"), "{}").await;
    assert!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY).contains("cancel_with_reverse_entry")
    );
    assert!(
        error_message(
            &delete(&st, &format!("/api/v1/expense/vouchers/{id}")).await,
            StatusCode::UNPROCESSABLE_ENTITY
        )
        .contains("Zahlung")
    );
    let r = post(
        &st,
        &format!("/api/v1/expense/vouchers/{id}/cancel_with_reverse_entry"),
        "{}",
    )
    .await;
    assert_eq!(
        (
            r.status,
            r.body["state"].as_str(),
            r.body["record_state"].as_str()
        ),
        (StatusCode::OK, Some("deleted"), Some("archived"))
    );
    let r = put(
        &st,
        &format!("/api/v1/expense/vouchers/{id}"),
        r#"{"name":"X"}"#,
    )
    .await;
    assert!(error_message(&r, StatusCode::UNPROCESSABLE_ENTITY).contains("storniert"));
}

#[tokio::test]
async fn unpaid_vouchers_are_cancelled_archived_or_deleted() {
    let st = state();
    let r = post(
        &st,
        "/api/v1/expense/vouchers",
        &voucher_body(supplier_id()),
    )
    .await;
    let id = r.body["id"].as_u64().unwrap();
    let r = post(
        &st,
        &format!("/api/v1/expense/vouchers/{id}/cancel_with_reverse_entry"),
        "{}",
    )
    .await;
    assert!(error_message(&r, StatusCode::UNPROCESSABLE_ENTITY).contains("keine Zahlung"));
    archive_and_unarchive(&st, &format!("/api/v1/expense/vouchers/{id}")).await;
    let r = post(&st, &format!("/api/v1/expense/vouchers/{id}/cancel"), "{}").await;
    assert_eq!(
        (r.body["state"].as_str(), r.body["record_state"].as_str()),
        (Some("canceled"), Some("archived"))
    );
    assert_eq!(
        delete(&st, &format!("/api/v1/expense/vouchers/{id}"))
            .await
            .status,
        StatusCode::NO_CONTENT
    );

    let r = post(&st, "/api/v1/expense/vouchers", r#"{"name":"Taxi","line_items":[{"amount":"12.345","vat_rate":"7%","category":"Reisekosten"}]}"#).await;
    assert_eq!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
        "line_items[0].amount may have at most two decimals, got 12.345"
    );
    let r = post(&st, "/api/v1/expense/vouchers", r#"{"line_items":[]}"#).await;
    assert_eq!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
        "Name muss ausgefüllt werden, Positionen muss ausgefüllt werden"
    );
    let r = post(
        &st,
        &format!("/api/v1/expense/vouchers/{}/pay", demo().vouchers[0].id),
        r#"{}"#,
    )
    .await;
    assert_eq!(
        error_message(&r, StatusCode::UNPROCESSABLE_ENTITY),
        "value muss ausgefüllt werden"
    );
}

#[tokio::test]
async fn month_close_inputs_see_written_documents() {
    let st = state();
    let month = "document_date_range_start=2026-12-01&document_date_range_end=2026-12-31";
    let before = all_pages(&st, &format!("/api/v1/expense/vouchers?{month}"))
        .await
        .len();
    let r = post(
        &st,
        "/api/v1/expense/vouchers",
        &voucher_body(supplier_id()),
    )
    .await;
    let id = r.body["id"].as_u64().unwrap();
    let after = all_pages(&st, &format!("/api/v1/expense/vouchers?{month}")).await;
    assert_eq!(after.len(), before + 1);
    let by_supplier = all_pages(
        &st,
        &format!("/api/v1/expense/vouchers?creditor_id={}", supplier_id()),
    )
    .await;
    assert!(by_supplier.iter().any(|v| v["id"] == id));
    let by_amount = get(
        &st,
        "/api/v1/expense/vouchers?order_by=id&order_direction=desc&page_size=1",
    )
    .await;
    assert_eq!(by_amount.ids(), vec![id], "ordering sees the new id");
}
