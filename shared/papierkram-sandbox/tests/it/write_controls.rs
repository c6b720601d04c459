//! What tests see of writes: the write log, the outbox, answer-delay faults, quota, limits, reset
//! — in-process and over HTTP.

use crate::common::*;
use axum::http::{Method, StatusCode};
use papierkram_sandbox::model::ContactType;
use papierkram_sandbox::{
    Fault, FaultAction, MAX_BODY_BYTES, MAX_FAULT_DELAY, MAX_LINE_ITEMS, SandboxState, demo, spawn,
};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const COMPANY: &str = r#"{"contact_type":"customer","name":"Hafenkontor Lübeck"}"#;

fn customer() -> u64 {
    demo()
        .companies
        .iter()
        .find(|c| c.contact_type == ContactType::Customer)
        .unwrap()
        .id
}

async fn draft_invoice(st: &SandboxState) -> u64 {
    let body = format!(
        r#"{{"name":"Beratung","line_items":[{{"name":"Workshop","quantity":1,"unit":"Tag","vat_rate":"19%","price":880}}],"customer":{{"id":{}}}}}"#,
        customer()
    );
    let r = post(st, "/api/v1/income/invoices", &body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.body["id"].as_u64().unwrap()
}

#[tokio::test]
async fn the_write_log_records_every_write_with_status_digest_and_record() {
    let st = state();
    let created = post(&st, "/api/v1/contact/companies", COMPANY).await;
    let id = created.body["id"].as_u64().unwrap();
    post(&st, "/api/v1/contact/companies", r#"{"name":""}"#).await;
    send(
        &st,
        Method::DELETE,
        &format!("/api/v1/contact/companies/{id}"),
        Some("wrong"),
        None,
    )
    .await;
    get(&st, "/api/v1/contact/companies").await;

    let log = st.writes();
    let seen: Vec<(u64, &str, &str, u16)> = log
        .iter()
        .map(|w| (w.seq, w.method.as_str(), w.path.as_str(), w.status))
        .collect();
    let path = format!("/api/v1/contact/companies/{id}");
    assert_eq!(
        seen,
        [
            (1, "POST", "/api/v1/contact/companies", 201),
            (2, "POST", "/api/v1/contact/companies", 422),
            (3, "DELETE", path.as_str(), 401),
        ],
        "reads are not writes"
    );
    assert_eq!(log[0].record_id, Some(id));
    assert_eq!(log[0].body.as_ref().unwrap()["name"], "Hafenkontor Lübeck");
    assert_eq!(log[0].body_bytes, COMPANY.len());
    assert_ne!(log[0].body_digest, log[1].body_digest);
    assert_eq!((log[1].record_id, log[2].body_bytes), (None, 0));
    assert!(log[0].at.ends_with('Z'));
    assert_eq!(st.write_count(), 3);
    assert!(
        !format!("{log:?}").contains(TOKEN),
        "the token is never logged"
    );

    let r = send(
        &st,
        Method::GET,
        "/__sandbox/writes?method=post&path_prefix=/api/v1/contact&limit=1",
        None,
        None,
    )
    .await;
    assert_eq!(
        (r.body["total"].as_u64(), r.body["count"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(r.body["writes"].as_array().unwrap().len(), 1);
    assert_eq!(r.body["writes"][0]["status"], 422);
    let bad = send(&st, Method::GET, "/__sandbox/writes?limit=many", None, None).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_concurrent_identical_creates_are_twenty_writes_with_one_digest() {
    let st = state();
    let calls: Vec<_> = (0..20)
        .map(|_| {
            let st = st.clone();
            tokio::spawn(async move { post(&st, "/api/v1/contact/companies", COMPANY).await })
        })
        .collect();
    let mut ids = Vec::new();
    for call in calls {
        let r = call.await.unwrap();
        assert_eq!(r.status, StatusCode::CREATED);
        ids.push(r.body["id"].as_u64().unwrap());
    }
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(
        ids.len(),
        20,
        "the upstream is not idempotent: every call creates a record"
    );
    let log = st.writes();
    assert_eq!(log.len(), 20);
    assert!(
        log.iter()
            .all(|w| w.body_digest == log[0].body_digest && w.status == 201)
    );
    assert_eq!(
        st.data().companies.len(),
        demo().companies.len() + 20,
        "none lost"
    );
}

#[tokio::test]
async fn an_answer_delay_applies_the_write_but_answers_too_late_for_the_caller() {
    let st = state();
    let id = draft_invoice(&st).await;
    let path = format!("/api/v1/income/invoices/{id}/deliver");
    st.inject_fault(Fault::delay_answer(
        format!("/api/v1/income/invoices/{id}"),
        Duration::from_millis(400),
    ));
    let read = tokio::time::timeout(
        Duration::from_millis(300),
        get(&st, &format!("/api/v1/income/invoices/{id}")),
    )
    .await;
    assert!(read.is_ok(), "reads are not held back");
    assert_eq!(st.faults().len(), 1, "the fault waits for a write");

    let mail = r#"{"send_via":"email","email":{"recipient":"info@kunde.example","subject":"Rechnung","body":"Anbei."}}"#;
    let late = tokio::time::timeout(Duration::from_millis(50), post(&st, &path, mail)).await;
    assert!(late.is_err(), "the caller gave up before the answer came");
    assert!(st.faults().is_empty());
    // The upstream accepted it all the same.
    let invoice = get(&st, &format!("/api/v1/income/invoices/{id}"))
        .await
        .body;
    assert_eq!(invoice["state"], "unpaid");
    assert_eq!(st.outbox().len(), 1);
    let line = st.writes().into_iter().find(|w| w.path == path).unwrap();
    assert_eq!(
        (line.status, line.record_id, line.answer_delay_ms),
        (204, Some(id), Some(400))
    );

    // A blind retry would send the e-mail twice: what the platform's ledger must prevent.
    let retry = post(&st, &path, mail).await;
    assert_eq!(retry.status, StatusCode::NO_CONTENT);
    assert_eq!(st.outbox().len(), 2);
    assert_eq!(st.writes().iter().filter(|w| w.path == path).count(), 2);
}

#[tokio::test]
async fn answer_delays_can_be_injected_over_http_and_are_bounded() {
    let st = state();
    let ok = r#"{"path_prefix":"/api/v1/contact/companies","answer_delay_ms":30}"#;
    let r = send(&st, Method::POST, "/__sandbox/faults", None, Some(ok)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.body["faults"][0]["answer_delay_ms"], 30);
    assert_eq!(
        st.faults()[0].action,
        FaultAction::DelayAnswer(Duration::from_millis(30))
    );
    let created = post(&st, "/api/v1/contact/companies", COMPANY).await;
    assert_eq!(
        created.status,
        StatusCode::CREATED,
        "a delayed answer is still the answer"
    );
    assert_eq!(st.writes()[0].answer_delay_ms, Some(30));

    let too_long = format!(
        r#"{{"path_prefix":"/api","answer_delay_ms":{}}}"#,
        MAX_FAULT_DELAY.as_millis() + 1
    );
    let r = send(
        &st,
        Method::POST,
        "/__sandbox/faults",
        None,
        Some(&too_long),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.body["message"].as_str().unwrap().contains("maximum"),
        "{}",
        r.body
    );
    assert!(st.faults().is_empty());
}

#[tokio::test]
async fn an_injected_status_refuses_a_write_before_it_runs() {
    let st = state();
    st.inject_fault(Fault::status("/api/v1/contact/companies", 503));
    let r = post(&st, "/api/v1/contact/companies", COMPANY).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(st.data().companies.len(), demo().companies.len());
    assert_eq!(st.writes()[0].status, 503);
}

#[tokio::test]
async fn a_create_needs_its_whole_quota_cost_and_refusals_cost_nothing() {
    let st = state();
    st.set_quota_remaining(9);
    let r = post(&st, "/api/v1/contact/companies", COMPANY).await;
    assert_eq!(
        error_message(&r, StatusCode::TOO_MANY_REQUESTS),
        "Monthly API quota exhausted"
    );
    assert_eq!(r.header("x-consumed-quota"), Some("0"));
    assert_eq!(
        st.data().companies.len(),
        demo().companies.len(),
        "nothing was created"
    );
    let r = put(
        &st,
        &format!("/api/v1/contact/companies/{}", customer()),
        r#"{"notes":"VIP"}"#,
    )
    .await;
    assert_eq!(
        (r.status, r.header("x-remaining-quota")),
        (StatusCode::OK, Some("8"))
    );

    let used = st.quota().used;
    let r = send(
        &st,
        Method::POST,
        "/api/v1/contact/companies",
        None,
        Some(COMPANY),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let huge = format!(r#"{{"name":"{}"}}"#, "x".repeat(MAX_BODY_BYTES));
    let r = post(&st, "/api/v1/contact/companies", &huge).await;
    let message = error_message(&r, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(message.contains(&MAX_BODY_BYTES.to_string()), "{message}");
    assert_eq!(r.body["error_type"], "payload_too_large");
    assert_eq!(st.quota().used, used, "401 and 413 cost nothing");
}

#[tokio::test]
async fn malformed_bodies_get_a_clear_error_and_change_nothing() {
    let st = state();
    for (body, status, start) in [
        (
            "{\"name\":",
            StatusCode::BAD_REQUEST,
            "The request body is not valid JSON",
        ),
        (
            "[1, 2]",
            StatusCode::BAD_REQUEST,
            "The request body must be a JSON object",
        ),
        (
            r#"{"name":"X","phone":42}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            "phone must be a string, got 42",
        ),
        (
            r#"{"name":"X","contact_type":"partner"}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            "contact_type must be one of customer, supplier",
        ),
    ] {
        let r = post(&st, "/api/v1/contact/companies", body).await;
        let message = error_message(&r, status);
        assert!(message.starts_with(start), "{body}: {message}");
    }
    let item = r#"{"name":"A","quantity":1,"price":1,"vat_rate":"19%"}"#;
    let items = vec![item; MAX_LINE_ITEMS + 1].join(",");
    let body = format!(
        r#"{{"name":"X","customer":{{"id":{}}},"line_items":[{items}]}}"#,
        customer()
    );
    let r = post(&st, "/api/v1/income/invoices", &body).await;
    let message = error_message(&r, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        message.contains(&format!("at most {MAX_LINE_ITEMS}")),
        "{message}"
    );
    assert_eq!(&*st.data(), demo(), "refused writes change nothing");
}

#[tokio::test]
async fn the_outbox_is_inspectable_over_http() {
    let st = state();
    let id = draft_invoice(&st).await;
    let mail = r#"{"send_via":"email","email":{"recipient":"info@kunde.example","subject":"Ihre Rechnung","body":"Anbei."}}"#;
    post(&st, &format!("/api/v1/income/invoices/{id}/deliver"), mail).await;
    let r = send(&st, Method::GET, "/__sandbox/outbox", None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["count"], 1);
    let m = &r.body["mails"][0];
    assert_eq!(
        (m["invoice_id"].as_u64(), m["recipient"].as_str()),
        (Some(id), Some("info@kunde.example"))
    );
    assert_eq!(
        (m["subject"].as_str(), m["seq"].as_u64()),
        (Some("Ihre Rechnung"), Some(1))
    );
    assert!(m["invoice_no"].as_str().unwrap().starts_with("RE-") && m["sent_at"].is_string());
}

#[tokio::test]
async fn reset_restores_the_demo_data_and_empties_the_write_log_and_outbox() {
    let st = state();
    let id = draft_invoice(&st).await;
    let mail = r#"{"send_via":"email","email":{"recipient":"info@kunde.example","subject":"R","body":"B"}}"#;
    post(&st, &format!("/api/v1/income/invoices/{id}/deliver"), mail).await;
    assert_ne!(&*st.data(), demo());
    let r = send(&st, Method::POST, "/__sandbox/reset", None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(&*st.data(), demo());
    assert!(st.writes().is_empty() && st.outbox().is_empty());
    assert_eq!(st.write_count(), 0);
    let gone = get(&st, &format!("/api/v1/income/invoices/{id}")).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    let again = draft_invoice(&st).await;
    assert_eq!(
        again, id,
        "a reset starts over: the same steps give the same ids"
    );
}

#[tokio::test]
async fn sandboxes_keep_their_writes_to_themselves() {
    let (a, b) = (state(), state());
    let before = b.data();
    post(&a, "/api/v1/contact/companies", COMPANY).await;
    assert_eq!(a.data().companies.len(), demo().companies.len() + 1);
    assert_eq!(&*b.data(), demo());
    assert_eq!(
        before.companies.len(),
        demo().companies.len(),
        "a taken snapshot stays as it was"
    );
    assert_eq!(
        demo().companies.len(),
        40,
        "the generated demo never changes"
    );
}

#[tokio::test]
async fn writes_work_over_a_real_socket() {
    let (addr, handle) = spawn(state()).await.unwrap();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /api/v1/contact/companies HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{COMPANY}",
        COMPANY.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 201 Created"), "{answer}");
    assert!(
        answer.contains("x-consumed-quota: 10")
            && answer.contains("location: /adressbuch/eintraege/")
    );
    handle.abort();
}
