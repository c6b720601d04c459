//! The `/api/v1` surface: envelopes, paging, filters, ordering, errors, auth, quota, headers.

use crate::common::*;
use axum::http::{Method, StatusCode};
use jiff::civil::date;
use papierkram_sandbox::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, SESSION_COOKIE, demo};
use std::collections::BTreeSet;

#[tokio::test]
async fn list_envelope_pages_through_every_invoice_once() {
    let st = state();
    let total = demo().invoices.len() as u64;
    let page_size = 7;
    let pages = total.div_ceil(page_size);
    let mut seen = Vec::new();
    for page in 1..=pages {
        let r = get(
            &st,
            &format!("/api/v1/income/invoices?page={page}&page_size={page_size}"),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(r.body["type"], "list");
        assert_eq!(r.body["page"], page);
        assert_eq!(r.body["page_size"], page_size);
        assert_eq!(r.body["total_entries"], total);
        assert_eq!(r.body["total_pages"], pages);
        assert_eq!(r.body["has_more"], page < pages);
        seen.extend(r.ids());
    }
    let expected: Vec<u64> = demo().invoices.iter().map(|i| i.id).collect();
    assert_eq!(
        seen, expected,
        "default order is id ascending, no gaps or repeats"
    );
}

#[tokio::test]
async fn page_size_defaults_to_100_and_is_clamped() {
    let st = state();
    let plain = get(&st, "/api/v1/expense/vouchers").await;
    assert_eq!(plain.body["page_size"], DEFAULT_PAGE_SIZE);
    assert_eq!(plain.ids().len() as u64, DEFAULT_PAGE_SIZE);
    let huge = get(&st, "/api/v1/expense/vouchers?page_size=1000").await;
    assert_eq!(huge.body["page_size"], MAX_PAGE_SIZE);
    assert_eq!(huge.ids().len() as u64, MAX_PAGE_SIZE);
    let past = get(&st, "/api/v1/expense/vouchers?page=99").await;
    assert_eq!((past.status, past.ids().len()), (StatusCode::OK, 0));
    assert_eq!(past.body["has_more"], false);
}

#[tokio::test]
async fn document_date_range_matches_a_plain_loop() {
    let st = state();
    let (from, to) = (date(2026, 3, 1), date(2026, 3, 31));
    let uri = "/api/v1/income/invoices?document_date_range_start=2026-03-01&document_date_range_end=2026-03-31";
    let ids: Vec<u64> = all_pages(&st, uri)
        .await
        .iter()
        .map(|e| e["id"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = demo()
        .invoices
        .iter()
        .filter(|i| i.document_date >= from && i.document_date <= to)
        .map(|i| i.id)
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(ids, expected);

    let uri = "/api/v1/expense/vouchers?document_date_range_start=2026-03-01&document_date_range_end=2026-03-31";
    let vouchers = all_pages(&st, uri).await;
    let expected = demo()
        .vouchers
        .iter()
        .filter(|v| v.document_date >= from && v.document_date <= to)
        .count();
    assert_eq!(vouchers.len(), expected);

    let only_start = all_pages(
        &st,
        "/api/v1/income/estimates?document_date_range_start=2026-01-01",
    )
    .await;
    let expected = demo()
        .estimates
        .iter()
        .filter(|e| e.document_date >= date(2026, 1, 1))
        .count();
    assert_eq!(only_start.len(), expected);
}

#[tokio::test]
async fn company_and_creditor_id_filter_the_same_documents() {
    let st = state();
    let customer = demo().invoices[0].customer_id;
    let by_company = all_pages(
        &st,
        &format!("/api/v1/income/invoices?company_id={customer}"),
    )
    .await;
    let by_creditor = all_pages(
        &st,
        &format!("/api/v1/income/invoices?creditor_id={customer}"),
    )
    .await;
    let expected = demo()
        .invoices
        .iter()
        .filter(|i| i.customer_id == customer)
        .count();
    assert_eq!((by_company.len(), by_creditor.len()), (expected, expected));
    assert!(
        by_company
            .iter()
            .all(|e| e["customer_no"] == by_company[0]["customer_no"])
    );

    let supplier = demo().vouchers.iter().find_map(|v| v.creditor_id).unwrap();
    let vouchers = all_pages(
        &st,
        &format!("/api/v1/expense/vouchers?company_id={supplier}"),
    )
    .await;
    assert_eq!(
        vouchers.len(),
        demo()
            .vouchers
            .iter()
            .filter(|v| v.creditor_id == Some(supplier))
            .count()
    );
}

#[tokio::test]
async fn project_filters_reach_invoices_vouchers_tasks_and_time_entries() {
    let st = state();
    let d = demo();
    let project = d
        .vouchers
        .iter()
        .find_map(|v| v.project_id)
        .expect("some voucher has a project");
    let count = |path: &str| {
        let st = st.clone();
        let uri = format!("/api/v1/{path}?project_id={project}");
        async move { all_pages(&st, &uri).await.len() }
    };
    assert_eq!(
        count("income/invoices").await,
        d.invoices
            .iter()
            .filter(|i| i.project_id == Some(project))
            .count()
    );
    assert_eq!(
        count("expense/vouchers").await,
        d.vouchers
            .iter()
            .filter(|v| v.project_id == Some(project))
            .count()
    );
    assert_eq!(
        count("tracker/tasks").await,
        d.tasks.iter().filter(|t| t.project_id == project).count()
    );
    assert_eq!(
        count("tracker/time_entries").await,
        d.time_entries
            .iter()
            .filter(|t| t.project_id == project)
            .count()
    );
    let company = d.project(project).unwrap().company_id;
    let projects = all_pages(&st, &format!("/api/v1/projects?company_id={company}")).await;
    assert_eq!(
        projects.len(),
        d.projects
            .iter()
            .filter(|p| p.company_id == company)
            .count()
    );
}

#[tokio::test]
async fn transactions_filter_by_bank_connection() {
    let st = state();
    for account in [1, 2] {
        let got = all_pages(
            &st,
            &format!("/api/v1/banking/transactions?bank_connection_id={account}"),
        )
        .await;
        let expected = demo()
            .transactions
            .iter()
            .filter(|t| t.bank_connection_id == account)
            .count();
        assert!(expected > 0);
        assert_eq!(got.len(), expected);
        assert!(got.iter().all(|t| t["bank_connection"]["id"] == account));
    }
}

#[tokio::test]
async fn order_by_any_scalar_field_in_both_directions() {
    let st = state();
    let desc = all_pages(
        &st,
        "/api/v1/income/invoices?order_by=total_gross&order_direction=desc",
    )
    .await;
    let totals: Vec<_> = desc.iter().map(|e| money(&e["total_gross"])).collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]));

    let by_id_desc = get(
        &st,
        "/api/v1/expense/vouchers?order_by=id&order_direction=desc&page_size=5",
    )
    .await;
    let last: Vec<u64> = demo().vouchers.iter().rev().take(5).map(|v| v.id).collect();
    assert_eq!(by_id_desc.ids(), last);

    // Ties keep id order, so paging over a non-unique key is stable.
    let by_date = all_pages(
        &st,
        "/api/v1/income/invoices?order_by=document_date&page_size=13",
    )
    .await;
    let keys: Vec<(String, u64)> = by_date
        .iter()
        .map(|e| {
            (
                e["document_date"].as_str().unwrap().into(),
                e["id"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(keys.len(), demo().invoices.len());
}

#[tokio::test]
async fn unknown_ids_and_paths_answer_the_404_envelope() {
    let st = state();
    for uri in [
        "/api/v1/income/invoices/999999",
        "/api/v1/income/invoices/abc",
        "/api/v1/contact/companies/1/persons",
        "/api/v1/does/not/exist",
        "/api/v2/info",
    ] {
        let r = get(&st, uri).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{uri}");
        assert_eq!(r.body["type"], "error");
        assert_eq!(r.body["error_type"], "not_found");
        assert!(r.body["message"].as_str().unwrap().len() > 5);
        assert_eq!(r.body["correlation_id"].as_str(), r.header("x-request-id"));
    }
    let r = get(&st, "/api/v1/expense/vouchers/999999").await;
    assert_eq!(
        r.body["message"],
        "Couldn't find Expense::Voucher with 'id'=999999"
    );

    // A person exists, but not under that company.
    let p = &demo().persons[0];
    let other = demo()
        .companies
        .iter()
        .find(|c| c.id != p.company_id)
        .unwrap();
    let r = get(
        &st,
        &format!("/api/v1/contact/companies/{}/persons/{}", other.id, p.id),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn invalid_parameter_values_answer_422() {
    let st = state();
    for query in [
        "page=0",
        "page=-2",
        "page_size=abc",
        "document_date_range_start=2026-02-30",
        "document_date_range_end=31.01.2026",
        "order_direction=sideways",
        "order_by=no_such_field",
        "order_by=billing",
        "company_id=abc",
    ] {
        let r = get(&st, &format!("/api/v1/income/invoices?{query}")).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{query}");
        assert_eq!(r.body["error_type"], "unprocessable_entity", "{query}");
    }
}

#[tokio::test]
async fn unknown_query_parameters_are_ignored_like_upstream() {
    let st = state();
    let r = get(&st, "/api/v1/projects?per_page=100&colour=blue").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["total_entries"], demo().projects.len());
}

#[tokio::test]
async fn missing_or_wrong_token_answers_401_without_spending_quota() {
    let st = state();
    let before = st.quota().remaining;
    for token in [None, Some("wrong")] {
        let r = send(&st, Method::GET, "/api/v1/info", token, None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
        assert_eq!(r.body["error_type"], "unauthorized");
        assert_eq!(r.header("x-consumed-quota"), Some("0"));
    }
    assert_eq!(st.quota().remaining, before);
}

#[tokio::test]
async fn methods_the_upstream_lacks_are_refused_with_an_envelope() {
    let st = state();
    for (method, uri) in [
        (Method::POST, "/api/v1/info"),
        (Method::DELETE, "/api/v1/tracker/tasks/2001"),
        (Method::PUT, "/api/v1/banking/transactions/9001"),
        (Method::POST, "/api/v1/income/estimates"),
    ] {
        let r = send(&st, method.clone(), uri, Some(TOKEN), Some("{}")).await;
        assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {uri}");
        assert_eq!(r.body["type"], "error");
        assert!(r.body["message"].as_str().unwrap().contains(uri));
    }
}

#[tokio::test]
async fn quota_counts_down_per_request_and_then_answers_429() {
    let st = state().with_monthly_limit(3);
    for expected_remaining in [2, 1, 0] {
        let r = get(&st, "/api/v1/info").await;
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(
            r.header("x-remaining-quota"),
            Some(expected_remaining.to_string().as_str())
        );
        assert_eq!(
            r.header("x-consumed-quota"),
            Some("1"),
            "the cost of this request"
        );
    }
    let r = get(&st, "/api/v1/income/invoices").await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(r.body["error_type"], "too_many_requests");
    assert_eq!(
        (r.header("x-remaining-quota"), r.header("x-consumed-quota")),
        (Some("0"), Some("0"))
    );
    assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() > 0);
    assert_eq!(st.quota().used, 3);
}

#[tokio::test]
async fn every_answer_sets_a_session_cookie_and_json_headers() {
    let st = state();
    for uri in ["/api/v1/info", "/api/v1/income/invoices/1", "/api/v1/nope"] {
        let r = get(&st, uri).await;
        let cookie = r.header("set-cookie").expect("set-cookie on every answer");
        assert!(
            cookie.starts_with(&format!("{SESSION_COOKIE}=")) && cookie.contains("HttpOnly"),
            "{cookie}"
        );
        assert_eq!(
            r.header("content-type"),
            Some("application/json; charset=utf-8")
        );
        assert_eq!(r.header("cache-control"), Some("no-store"));
        assert!(r.header("x-remaining-quota").is_some() && r.header("x-consumed-quota").is_some());
    }
}

#[tokio::test]
async fn info_answers_the_api_version() {
    let r = get(&state(), "/api/v1/info").await;
    assert_eq!(r.body["api"]["version"], "1.0.0");
}

#[tokio::test]
async fn bank_connection_list_entries_are_short_and_details_full() {
    let st = state();
    let list = get(&st, "/api/v1/banking/bank_connections").await;
    let keys: BTreeSet<&str> = list.body["entries"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, BTreeSet::from(["type", "id", "name"]));
    let one = get(&st, "/api/v1/banking/bank_connections/1").await;
    assert!(one.body["iban"].is_string() && one.body["connection_type"].is_string());
}

/// The raw answer of an authorised GET (the PDF downloads are not JSON).
async fn get_bytes(
    state: &papierkram_sandbox::SandboxState,
    uri: &str,
) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    use axum::body::{Body, to_bytes};
    use tower::ServiceExt;
    let request = axum::http::Request::builder()
        .uri(uri)
        .header("authorization", format!("Bearer {TOKEN}"))
        .body(Body::empty())
        .unwrap();
    let response = papierkram_sandbox::router(state.clone())
        .oneshot(request)
        .await
        .unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let bytes = to_bytes(response.into_body(), 1 << 20).await.unwrap();
    (status, headers, bytes.to_vec())
}

#[tokio::test]
async fn invoice_and_estimate_pdfs_download_as_the_recordings_do() {
    let st = state();
    let invoice = &get(&st, "/api/v1/income/invoices?page_size=1").await.body["entries"][0];
    let id = invoice["id"].as_u64().unwrap();
    let (status, headers, pdf) = get_bytes(&st, &format!("/api/v1/income/invoices/{id}/pdf")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "application/pdf");
    assert_eq!(headers["cache-control"], "no-store");
    let disposition = headers["content-disposition"].to_str().unwrap();
    assert!(
        disposition.starts_with("attachment; filename=\"Rechnung_"),
        "{disposition}"
    );
    assert!(headers.contains_key("x-remaining-quota"));
    assert!(pdf.starts_with(b"%PDF-1.4\n") && pdf.ends_with(b"%%EOF\n"));
    let number = invoice["invoice_no"].as_str().unwrap_or("Entwurf");
    let title = format!("(Rechnung {number}) Tj");
    assert!(
        pdf.windows(title.len()).any(|w| w == title.as_bytes()),
        "title {title}"
    );

    let estimate = &get(&st, "/api/v1/income/estimates?page_size=1").await.body["entries"][0];
    let id = estimate["id"].as_u64().unwrap();
    let (status, headers, pdf) =
        get_bytes(&st, &format!("/api/v1/income/estimates/{id}/pdf")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "application/pdf");
    assert!(pdf.starts_with(b"%PDF-1.4\n"));

    let missing = get(&st, "/api/v1/income/invoices/999999/pdf").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(
        missing.body["message"]
            .as_str()
            .unwrap()
            .contains("Couldn't find")
    );
}
