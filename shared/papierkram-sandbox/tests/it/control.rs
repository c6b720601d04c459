//! Fault injection, reset, request log and quota control — in-process and over HTTP.

use crate::common::*;
use axum::http::{Method, StatusCode};
use papierkram_sandbox::{FAULT_RETRY_AFTER_SECS, Fault, spawn};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn injected_status_faults_hit_matching_paths_then_clear() {
    let st = state();
    st.inject_fault(Fault::status("/api/v1/income", 503).times(2));
    assert_eq!(
        get(&st, "/api/v1/expense/vouchers").await.status,
        StatusCode::OK
    );
    for _ in 0..2 {
        let r = get(&st, "/api/v1/income/invoices").await;
        assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.body["error_type"], "service_unavailable");
        assert!(r.header("set-cookie").is_some() && r.header("x-remaining-quota").is_some());
    }
    assert_eq!(
        get(&st, "/api/v1/income/invoices").await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn any_status_can_be_injected_and_429_carries_retry_after() {
    let st = state();
    for code in [500_u16, 502, 403, 429] {
        st.inject_fault(Fault::status("/api/v1/info", code));
        let r = get(&st, "/api/v1/info").await;
        assert_eq!(r.status.as_u16(), code);
        assert_eq!(r.body["type"], "error");
        let retry_after = r.header("retry-after").map(str::to_owned);
        let expected = (code == 429).then(|| FAULT_RETRY_AFTER_SECS.to_string());
        assert_eq!(retry_after, expected, "{code}");
    }
}

#[tokio::test]
async fn faults_can_be_injected_over_http() {
    let st = state();
    let body = r#"{"path_prefix": "/api/v1/projects", "status": 502}"#;
    let r = send(&st, Method::POST, "/__sandbox/faults", None, Some(body)).await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert_eq!(r.body["faults"][0]["times"], 1);
    assert_eq!(
        get(&st, "/api/v1/projects").await.status,
        StatusCode::BAD_GATEWAY
    );
    assert_eq!(get(&st, "/api/v1/projects").await.status, StatusCode::OK);

    let bad = send(
        &st,
        Method::POST,
        "/__sandbox/faults",
        None,
        Some(r#"{"path_prefix": "/"}"#),
    )
    .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(bad.body["type"], "error");
}

#[tokio::test]
async fn a_delay_longer_than_the_callers_timeout_times_it_out() {
    let st = state();
    let body = r#"{"path_prefix": "/api/v1/info", "delay_ms": 400}"#;
    send(&st, Method::POST, "/__sandbox/faults", None, Some(body)).await;
    let slow = tokio::time::timeout(Duration::from_millis(50), get(&st, "/api/v1/info")).await;
    assert!(slow.is_err(), "the caller gives up first");
    assert!(
        st.faults().is_empty(),
        "the delay was used up by that request"
    );
    assert_eq!(get(&st, "/api/v1/info").await.status, StatusCode::OK);

    st.inject_fault(Fault::delay("/api/v1/info", Duration::from_millis(20)));
    let r = get(&st, "/api/v1/info").await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "a delayed request still answers normally"
    );
}

#[tokio::test]
async fn request_log_shows_paths_and_queries_but_never_the_token() {
    let st = state();
    get(&st, "/api/v1/income/invoices?page=2&page_size=5").await;
    get(&st, "/api/v1/info").await;
    let r = send(&st, Method::GET, "/__sandbox/requests?limit=1", None, None).await;
    assert_eq!(r.body["count"], 2);
    assert_eq!(r.body["requests"].as_array().unwrap().len(), 1);
    assert_eq!(r.body["requests"][0]["path"], "/api/v1/info");
    let all = send(&st, Method::GET, "/__sandbox/requests", None, None).await;
    assert_eq!(all.body["requests"][0]["method"], "GET");
    assert_eq!(all.body["requests"][0]["query"], "page=2&page_size=5");
    assert!(!all.body.to_string().contains(TOKEN));
    assert_eq!(st.request_count(), 2, "control calls are not counted");
}

#[tokio::test]
async fn reset_restores_quota_and_clears_faults_and_log() {
    let st = state().with_monthly_limit(5);
    get(&st, "/api/v1/info").await;
    st.inject_fault(Fault::status("/api", 500).times(10));
    let r = send(&st, Method::POST, "/__sandbox/reset", None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["quota"]["remaining"], 5);
    assert!(st.faults().is_empty());
    assert_eq!(st.request_count(), 0);
    assert_eq!(
        get(&st, "/api/v1/info").await.header("x-remaining-quota"),
        Some("4")
    );
}

#[tokio::test]
async fn quota_can_be_set_near_exhaustion() {
    let st = state();
    let r = send(
        &st,
        Method::POST,
        "/__sandbox/quota",
        None,
        Some(r#"{"remaining": 1}"#),
    )
    .await;
    assert_eq!(r.body["remaining"], 1);
    assert_eq!(
        get(&st, "/api/v1/info").await.header("x-remaining-quota"),
        Some("0")
    );
    assert_eq!(
        get(&st, "/api/v1/info").await.status,
        StatusCode::TOO_MANY_REQUESTS
    );
    let q = send(&st, Method::GET, "/__sandbox/quota", None, None).await;
    assert_eq!(
        (q.body["limit"].as_u64(), q.body["used"].as_u64()),
        (Some(10_000), Some(10_000))
    );
}

#[tokio::test]
async fn spawn_serves_on_a_loopback_port() {
    let (addr, handle) = spawn(state()).await.unwrap();
    assert!(addr.ip().is_loopback() && addr.port() != 0);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /api/v1/info HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(answer.contains("x-remaining-quota: 9999"));
    handle.abort();
}
