//! A status for every fault and bounded work for every input, through `app()` with `oneshot`
//! against a fake upstream on 127.0.0.1 that misbehaves on purpose: HTML 200 pages, huge and
//! slow answers, endless pages, absurd amounts, `Retry-After` dates. Also the JSON-RPC body
//! guard, hostile client info, fail-closed profiles, `/health` for monitors and caching hints.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{
    TOOL_KEY, TestApp, app_with, call_result, demo_secrets, listed_names, send,
    serve_fake_upstream, tools_call,
};
use axum::Router;
use axum::body::Body;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use http::{Request, StatusCode};
use serde_json::{Value, json};

const KEY: &str = TOOL_KEY;
const OTHER_KEY: &str = "other-key-0123456789abcdef";

/// What the fake upstream does.
#[derive(Clone, Debug)]
enum Mode {
    /// Every answer is JSON: one page of two invoices, `{"ok": true}` elsewhere.
    Fine,
    /// 200 with an HTML maintenance page.
    Html,
    /// 200 with a JSON body of this many bytes.
    Huge(usize),
    /// Waits this long, then answers fine.
    Slow(Duration),
    /// Invoice lists have endless pages; pages after the first take this long.
    SlowPages(Duration),
    /// Invoices with amounts near `Decimal::MAX`.
    Absurd,
    /// 429 with `Retry-After` as an HTTP date 120 s from now.
    RetryDate,
    /// 401 to everything: a key the upstream does not know.
    Refused,
}

#[derive(Clone)]
struct Upstream {
    mode: Arc<Mutex<Mode>>,
    hits: Arc<AtomicUsize>,
    info_hits: Arc<AtomicUsize>,
}

async fn upstream(
    State(up): State<Upstream>,
    uri: http::Uri,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    up.hits.fetch_add(1, Ordering::SeqCst);
    if uri.path().ends_with("/info") {
        up.info_hits.fetch_add(1, Ordering::SeqCst);
    }
    let mode = up.mode.lock().unwrap().clone();
    let page: u64 = query.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
    let invoice = |id: u64, total: &str| json!({"id": id, "invoice_no": format!("RE-{id}"), "state": "unpaid", "total_gross": total});
    let list = |entries: Vec<Value>, more: bool| {
        axum::Json(json!({"entries": entries, "total_entries": 1000, "has_more": more}))
            .into_response()
    };
    match mode {
        Mode::Fine | Mode::Slow(_) => {
            if let Mode::Slow(d) = mode {
                tokio::time::sleep(d).await;
            }
            if uri.path().ends_with("/invoices") {
                list(vec![invoice(1, "10.00"), invoice(2, "5.50")], false)
            } else {
                axum::Json(json!({"ok": true})).into_response()
            }
        }
        Mode::Html => (
            [(http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<html><body><h1>Wartungsarbeiten</h1></body></html>",
        )
            .into_response(),
        Mode::Huge(n) => {
            let body = format!("{{\"pad\": \"{}\"}}", "x".repeat(n));
            ([(http::header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        Mode::SlowPages(d) => {
            if page > 1 {
                tokio::time::sleep(d).await;
            }
            let entries = (0..100).map(|i| invoice(page * 100 + i, "1.50")).collect();
            list(entries, true)
        }
        Mode::Absurd => list(
            vec![
                invoice(1, "79228162514264337593543950335"),
                invoice(2, "79228162514264337593543950335"),
            ],
            false,
        ),
        Mode::Refused => (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"message": "invalid token"})),
        )
            .into_response(),
        Mode::RetryDate => {
            let at = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(120);
            let date = jiff::fmt::rfc2822::DateTimePrinter::new().timestamp_to_rfc9110_string(&at);
            (
                StatusCode::TOO_MANY_REQUESTS,
                [("retry-after", date.unwrap())],
                axum::Json(json!({"message": "slow down"})),
            )
                .into_response()
        }
    }
}

async fn spawn_upstream(mode: Mode) -> (SocketAddr, Upstream) {
    let up = Upstream {
        mode: Arc::new(Mutex::new(mode)),
        hits: Arc::new(AtomicUsize::new(0)),
        info_hits: Arc::new(AtomicUsize::new(0)),
    };
    let router = Router::new().fallback(upstream).with_state(up.clone());
    let addr = serve_fake_upstream(router).await;
    (addr, up)
}

/// The demo catalog plus an aggregation over every page of invoices.
fn catalogs() -> Vec<catalog::Catalog> {
    let text = include_str!("../../../../tests/catalogs/demo.yaml").to_string()
        + r#"
  - name: demo_open_total_get
    risk: low
    description: >-
      The open total over every unpaid invoice, summed exactly. Example: {}
    aggregate:
      sources:
        open:
          tool: demo_invoices_list
          args: {}
          where: { state: [unpaid] }
      result:
        - { name: open_count, count: open }
        - { name: open_gross, sum: open.total_gross }
"#;
    vec![catalog::parse("demo.yaml", &text).unwrap()]
}

fn test_app(env: &[(&str, &str)], upstream: SocketAddr) -> TestApp {
    let secrets = demo_secrets(
        &[("tester", KEY), ("other", OTHER_KEY)],
        &upstream.to_string(),
        Some(b"pepper-for-tests-0123456789abcdef"),
    );
    app_with(env, catalogs(), secrets)
}

fn post(body: impl Into<Body>, key: &str, content_type: &str) -> Request<Body> {
    Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", content_type)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("authorization", format!("Bearer {key}"))
        .body(body.into())
        .unwrap()
}

fn rpc(body: Value) -> Request<Body> {
    post(body.to_string(), KEY, "application/json")
}

fn last_event(app: &TestApp) -> audit::AuditEvent {
    app.audit.events().pop().expect("an audit line")
}

#[tokio::test]
async fn an_html_200_page_is_unavailable_not_an_empty_result() {
    let (addr, _) = spawn_upstream(Mode::Html).await;
    let app = test_app(&[], addr);
    for tool in ["demo_invoices_list", "demo_info_get"] {
        let result = call_result(&app, tool, json!({})).await;
        let s = &result["structuredContent"];
        assert_eq!(result["isError"], json!(true), "{tool}: {result}");
        assert_eq!(s["status"], json!("unavailable"), "{tool}");
        assert!(s.get("items").is_none() && s.get("data").is_none(), "{s}");
        let hint = s["hint"].as_str().unwrap();
        assert!(hint.contains("text/html"), "{hint}");
        assert!(hint.contains("do not treat this as an empty"), "{hint}");
        assert!(
            !hint.contains("Wartungsarbeiten"),
            "upstream text stays out of hints"
        );
        assert_eq!(
            last_event(&app).reason.as_deref(),
            Some("upstream_not_json")
        );
    }
    let result = call_result(&app, "demo_open_total_get", json!({})).await;
    let s = &result["structuredContent"];
    assert_eq!(s["status"], json!("unavailable"), "{s}");
    assert!(
        s.get("partial_data").is_none(),
        "no figures read from nothing: {s}"
    );
    assert_eq!(
        s["failed_sources"][0]["status"],
        json!("unavailable"),
        "{s}"
    );
}

#[tokio::test]
async fn an_answer_over_the_cap_is_unavailable_with_a_hint_to_narrow() {
    let (addr, _) = spawn_upstream(Mode::Huge(5 * 1024 * 1024)).await;
    let app = test_app(&[], addr);
    let result = call_result(&app, "demo_info_get", json!({})).await;
    let s = &result["structuredContent"];
    assert_eq!(s["status"], json!("unavailable"), "{s}");
    assert!(
        s["hint"].as_str().unwrap().contains("larger than 4 MiB"),
        "{s}"
    );
    assert_eq!(
        last_event(&app).reason.as_deref(),
        Some("upstream_too_large")
    );
}

#[tokio::test]
async fn a_slow_upstream_ends_at_the_call_deadline_with_an_audit_line() {
    let (addr, _) = spawn_upstream(Mode::Slow(Duration::from_secs(5))).await;
    let app = test_app(&[("MCP_CALL_DEADLINE_MS", "300")], addr);
    let started = Instant::now();
    let result = call_result(&app, "demo_info_get", json!({})).await;
    let s = &result["structuredContent"];
    assert_eq!(s["status"], json!("unavailable"), "{s}");
    assert!(s["hint"].as_str().unwrap().contains("0.3 s"), "{s}");
    let event = last_event(&app);
    assert_eq!(event.reason.as_deref(), Some("deadline"));
    assert_eq!(event.status.as_deref(), Some("unavailable"));
    // Not a timing assertion of speed: the call must not have waited for the 5 s upstream.
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn an_aggregation_that_read_nothing_answers_its_status_and_no_figures() {
    let (addr, _) = spawn_upstream(Mode::Refused).await;
    let app = test_app(&[], addr);
    let result = call_result(&app, "demo_open_total_get", json!({})).await;
    let s = &result["structuredContent"];
    assert_eq!(s["status"], json!("unauthorized"), "{s}");
    for figures in ["partial_data", "data", "partial"] {
        assert!(s.get(figures).is_none(), "no {figures} from nothing: {s}");
    }
    assert_eq!(
        s["failed_sources"][0]["status"],
        json!("unauthorized"),
        "{s}"
    );
    assert!(
        s["hint"].as_str().unwrap().contains("no figures are given"),
        "{s}"
    );
    assert_eq!(last_event(&app).reason.as_deref(), Some("upstream_401"));
}

#[tokio::test]
async fn an_aggregation_cut_by_the_deadline_answers_what_it_has_as_partial() {
    let (addr, up) = spawn_upstream(Mode::SlowPages(Duration::from_millis(200))).await;
    let app = test_app(&[("MCP_CALL_DEADLINE_MS", "700")], addr);
    let result = call_result(&app, "demo_open_total_get", json!({})).await;
    let s = &result["structuredContent"];
    assert_eq!(s["partial"], json!(true), "{s}");
    assert_eq!(s["status"], json!("unavailable"), "{s}");
    // The full pages read before the deadline count; the one cut short does not.
    let count = s["partial_data"]["open_count"].as_u64().unwrap();
    let requests = up.hits.load(Ordering::SeqCst) as u64;
    assert!(count >= 100 && count % 100 == 0, "{s}");
    assert!(
        count <= 100 * requests && count >= 100 * (requests - 1),
        "{count} of {requests}"
    );
    assert_eq!(
        s["partial_data"]["open_gross"],
        json!(format!("{}.00", count * 3 / 2)),
        "{s}"
    );
    assert!(
        s["hint"].as_str().unwrap().contains("ran out of its 0.7 s"),
        "{s}"
    );
    assert_eq!(last_event(&app).reason.as_deref(), Some("partial_deadline"));
}

#[tokio::test]
async fn a_decimal_overflow_is_an_error_with_a_hint_not_a_panic() {
    let (addr, _) = spawn_upstream(Mode::Absurd).await;
    let app = test_app(&[], addr);
    let result = call_result(&app, "demo_open_total_get", json!({})).await;
    let s = &result["structuredContent"];
    assert_eq!(s["status"], json!("error"), "{s}");
    assert!(s["hint"].as_str().unwrap().contains("decimal range"), "{s}");
    assert_eq!(last_event(&app).reason.as_deref(), Some("decimal_overflow"));
}

#[tokio::test]
async fn retry_after_as_an_http_date_becomes_seconds() {
    let (addr, _) = spawn_upstream(Mode::RetryDate).await;
    let app = test_app(&[], addr);
    let result = call_result(&app, "demo_info_get", json!({})).await;
    let s = &result["structuredContent"];
    assert_eq!(s["status"], json!("rate_limited"), "{s}");
    let seconds = s["retry_after_s"].as_u64().unwrap();
    assert!((110..=120).contains(&seconds), "{s}");
    let hint = s["hint"].as_str().unwrap();
    assert!(hint.contains(&format!("retry after {seconds} s")), "{hint}");
    assert_eq!(s["upstream_message"], json!("slow down"));
    assert!(
        !hint.contains("slow down"),
        "upstream text stays out of hints"
    );
}

#[tokio::test]
async fn a_megabyte_tool_name_is_refused_before_any_lookup() {
    let (addr, up) = spawn_upstream(Mode::Fine).await;
    let app = test_app(&[], addr);
    let huge = "invoices_list".repeat(80_000);
    let result = call_result(&app, "call_tool", json!({"name": huge, "arguments": {}})).await;
    let s = &result["structuredContent"];
    assert_eq!(s["status"], json!("invalid_input"), "{s}");
    assert!(s["hint"].as_str().unwrap().contains("at most 128"), "{s}");
    let (_, _, body) = send(&app, rpc(tools_call(&huge, json!({})))).await;
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.len() < 300, "{message}");
    assert_eq!(
        last_event(&app).tool.as_deref(),
        Some(audit::INVALID_ARG_KEY)
    );
    assert_eq!(up.hits.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn malformed_json_is_a_parse_error_and_batches_and_wrong_types_get_json_errors() {
    let (addr, _) = spawn_upstream(Mode::Fine).await;
    let app = test_app(&[], addr);
    let (status, _, body) = send(
        &app,
        post("{\"jsonrpc\": \"2.0\", ", KEY, "application/json"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["code"], json!(-32700), "{body}");
    assert_eq!(body["jsonrpc"], json!("2.0"));
    assert_eq!(body["id"], Value::Null);
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]).to_string();
    let (status, _, body) = send(&app, post(batch, KEY, "application/json")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["code"], json!(-32600), "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("batches")
    );
    let (status, _, body) = send(&app, post("{}", KEY, "text/plain")).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(body["error"]["code"], json!(-32600), "{body}");
    let (status, _, body) = send(&app, post("{\"hello\": 1}", KEY, "application/json")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["code"], json!(-32600), "{body}");
}

#[tokio::test]
async fn a_hostile_client_info_reaches_the_audit_line_bounded_and_plain() {
    let (addr, _) = spawn_upstream(Mode::Fine).await;
    let app = test_app(&[], addr);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": format!("evil\n{{\"level\":\"error\"}}{}", "ü".repeat(100_000)),
                       "version": "1\r\n2".repeat(1000)}}});
    let (status, _, _) = send(&app, rpc(init)).await;
    assert_eq!(status, StatusCode::OK);
    let line = app.audit.lines().pop().unwrap();
    assert!(line.len() < 1024, "{} bytes", line.len());
    let event = last_event(&app);
    let client = event.client.unwrap();
    assert!(client.starts_with("evil___level_:_error__"), "{client}");
    assert!(client.chars().count() <= 65);
    let version = event.client_version.unwrap();
    assert!(
        version.chars().count() <= 33 && !version.contains('\n'),
        "{version}"
    );
    assert!(event.request_id.is_some(), "a generated request id");
    let many: serde_json::Map<String, Value> =
        (0..500).map(|i| (format!("k{i}"), json!(1))).collect();
    call_result(&app, "demo_info_get", Value::Object(many)).await;
    let event = last_event(&app);
    assert_eq!(event.arg_keys.len(), audit::MAX_ARG_KEYS);
    assert_eq!(event.arg_keys_omitted, Some(468));
}

#[tokio::test]
async fn a_key_without_a_profile_is_refused_once_keys_are_mapped() {
    let (addr, _) = spawn_upstream(Mode::Fine).await;
    let profiles = [
        ("MCP_PROFILES", "books=demo/*;reports=demo/info_get"),
        ("MCP_KEY_PROFILES", "tester=books"),
    ];
    let app = test_app(&profiles, addr);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (status, _, body) = send(&app, rpc(list.clone())).await;
    assert_eq!(status, StatusCode::OK, "the mapped key works: {body}");
    let (status, _, body) = send(&app, post(list.to_string(), OTHER_KEY, "application/json")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("MCP_KEY_PROFILES"),
        "{body}"
    );
    let with_default = [profiles[0], profiles[1], ("MCP_DEFAULT_PROFILE", "reports")];
    let app = test_app(&with_default, addr);
    let (status, _, body) = send(&app, post(list.to_string(), OTHER_KEY, "application/json")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(listed_names(&body), ["demo_info_get"]);
}

#[tokio::test]
async fn health_needs_no_key_checks_the_host_and_probes_once_for_a_hundred_calls() {
    let (addr, up) = spawn_upstream(Mode::Fine).await;
    let app = test_app(&[], addr);
    let health = |host: &str| {
        Request::get("/health")
            .header("host", host)
            .body(Body::empty())
            .unwrap()
    };
    let mut calls = Vec::new();
    for _ in 0..100 {
        calls.push(send(&app, health("localhost:8767")));
    }
    for (status, headers, body) in futures_join(calls).await {
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body, json!({"ok": true, "connectors": {"demo": "ok"}}));
        assert_eq!(headers["cache-control"], "no-store");
    }
    assert_eq!(up.info_hits.load(Ordering::SeqCst), 1);
    let (status, _, _) = send(&app, health("evil.example.com")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

async fn futures_join<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut out = Vec::with_capacity(futures.len());
    let mut set = Vec::new();
    for f in futures {
        set.push(Box::pin(f));
    }
    // Sequential awaits are enough to show the cache; the concurrent case is the mutex's.
    for f in set {
        out.push(f.await);
    }
    out
}

#[tokio::test]
async fn tools_list_carries_an_hour_of_ttl_and_its_cache_scope() {
    let (addr, _) = spawn_upstream(Mode::Fine).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let app = test_app(&[], addr);
    let (_, _, body) = send(&app, rpc(list.clone())).await;
    assert_eq!(body["result"]["ttlMs"], json!(3_600_000), "{body}");
    assert_eq!(body["result"]["cacheScope"], json!("public"));
    let app = test_app(&[("MCP_PROFILES", "books=demo/*")], addr);
    let (_, _, body) = send(&app, rpc(list)).await;
    assert_eq!(body["result"]["cacheScope"], json!("private"));
    let names = |b: &Value| -> Vec<String> {
        b["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let (_, _, again) = send(
        &app,
        rpc(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})),
    )
    .await;
    assert_eq!(names(&body), names(&again), "the order is deterministic");
}

/// A ledger API with basic auth that quotes the credential it was sent (without its scheme
/// word) in every answer, as a debugging upstream might.
const QUOTING: &str = r#"connector: ledger
base_url: "http://{host}/api"
secrets: [host, user, key]
auth: { basic: { username: user, password: key } }
error_message: message
tools:
  - name: ledger_account_get
    risk: low
    description: "The ledger account. Example: {}"
    get: /account
"#;

async fn spawn_quoting(status: u16) -> SocketAddr {
    let quote = move |headers: http::HeaderMap| async move {
        let sent = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .trim_start_matches("Basic ")
            .to_string();
        let body = json!({"message": format!("credential {sent} not accepted"), "seen": sent});
        (StatusCode::from_u16(status).unwrap(), axum::Json(body))
    };
    let router = Router::new().route("/api/account", axum::routing::get(quote));
    serve_fake_upstream(router).await
}

#[tokio::test]
async fn a_credential_the_upstream_quotes_reaches_neither_the_model_nor_the_audit() {
    use base64::Engine as _;
    let sent =
        base64::engine::general_purpose::STANDARD.encode("ledger-user:ledger-key-0123456789");
    for status in [400, 401, 500] {
        let addr = spawn_quoting(status).await;
        let secrets = crate::common::connector_secrets(
            "ledger",
            &[
                ("host", &addr.to_string()),
                ("user", "ledger-user"),
                ("key", "ledger-key-0123456789"),
            ],
        );
        let catalogs = vec![catalog::parse("ledger.yaml", QUOTING).unwrap()];
        let app = app_with(&[], catalogs, secrets);
        let result = crate::common::tool_result(&app, "ledger_account_get", json!({})).await;
        assert_eq!(
            result["upstream_message"],
            json!("credential [REDACTED] not accepted"),
            "{status}: {result}"
        );
        let audit = serde_json::to_string(&app.audit.events()).unwrap();
        for text in [result.to_string(), audit] {
            assert!(!text.contains(&sent), "{status}: {text}");
            assert!(!text.contains("ledger-key-0123456789"), "{status}: {text}");
        }
    }
}
