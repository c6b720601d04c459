//! Declared wire habits against a fake upstream that speaks them: every `auth` shape (a
//! header template, a named header, a query parameter, HTTP basic), static headers per
//! connector and per tool, a query-parameter secret kept out of the dry run's preview and
//! the audit lines; error messages by JSON pointer, problem details, a status in a 200 body;
//! rate-limit header families (named buckets, IETF fields) and body figures into `_quota`, the
//! audit line and the 429 hint. Each test declares its own `wire` connector and records what arrived.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use crate::common::{
    TestApp, app_with, connector_secrets, serve_fake_upstream, tool_result as call,
};
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, Request, StatusCode};
use serde_json::{Value, json};

const TOKEN: &str = "tok-SECRET-0042";

/// One request as the fake upstream saw it.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    /// Path and query.
    target: String,
    headers: HeaderMap,
}

/// What the fake upstream answers: status, headers, body, by path suffix (else `{"ok": true}`).
type Answer = (u16, Vec<(&'static str, String)>, Value);

#[derive(Clone, Default)]
struct Fake {
    seen: Arc<Mutex<Vec<Seen>>>,
    answers: Arc<Mutex<HashMap<&'static str, Answer>>>,
}

impl Fake {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
    fn last(&self) -> Seen {
        self.seen().pop().expect("the upstream saw a request")
    }
    fn answer(&self, path_suffix: &'static str, answer: Answer) {
        self.answers.lock().unwrap().insert(path_suffix, answer);
    }
}

async fn fake(State(fake): State<Fake>, request: Request<axum::body::Body>) -> Response {
    let target = request
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    fake.seen.lock().unwrap().push(Seen {
        method: request.method().to_string(),
        target: target.clone(),
        headers: request.headers().clone(),
    });
    let path = request.uri().path().to_string();
    let answers = fake.answers.lock().unwrap().clone();
    match answers.iter().find(|(suffix, _)| path.ends_with(*suffix)) {
        Some((_, (status, headers, body))) => {
            let mut response = (
                StatusCode::from_u16(*status).unwrap(),
                axum::Json(body.clone()),
            )
                .into_response();
            for (name, value) in headers {
                let value = http::HeaderValue::from_str(value).unwrap();
                if *name == "content-type" {
                    response
                        .headers_mut()
                        .insert(http::header::CONTENT_TYPE, value);
                } else {
                    response.headers_mut().append(*name, value);
                }
            }
            response
        }
        None => axum::Json(json!({"ok": true})).into_response(),
    }
}

async fn spawn() -> (SocketAddr, Fake) {
    let state = Fake::default();
    let router = Router::new().fallback(fake).with_state(state.clone());
    let addr = serve_fake_upstream(router).await;
    (addr, state)
}

/// A `wire` connector with these top-level declarations (auth, headers, errors, quota…).
fn catalog(declarations: &str) -> catalog::Catalog {
    let text = format!(
        r#"connector: wire
base_url: "http://{{host}}/v2"
secrets: [host, token, user, password]
{declarations}
tools:
  - name: wire_items_get
    risk: low
    description: 'Reads items. Example: {{"q": "a"}}'
    get: /items
    params:
      q: {{ type: string, max_length: 20 }}
  - name: wire_slots_get
    risk: low
    description: 'Reads slots. Example: {{}}'
    get: /slots
    headers: {{ cal-api-version: "2024-09-04" }}
  - name: wire_item_archive
    risk: high
    effect: delete
    audit_event: item.archived
    idempotent: true
    side_effects: Archives the item.
    failure_modes: ["404: no such item."]
    description: 'Archives an item. Example: {{"id": 7}}'
    post: /items/{{id}}/archive
    params:
      id: {{ type: integer, in: path, min: 1 }}
"#
    );
    catalog::parse("wire.yaml", &text).unwrap_or_else(|e| panic!("{e}"))
}

fn app(upstream: SocketAddr, declarations: &str) -> TestApp {
    let host = upstream.to_string();
    let fields = [
        ("host", host.as_str()),
        ("token", TOKEN),
        ("user", "ada"),
        ("password", "pw-SECRET-7"),
    ];
    app_with(
        &[],
        vec![catalog(declarations)],
        connector_secrets("wire", &fields),
    )
}

fn header<'a>(seen: &'a Seen, name: &str) -> Option<&'a str> {
    seen.headers.get(name).and_then(|v| v.to_str().ok())
}

#[tokio::test]
async fn every_auth_shape_arrives_where_it_is_declared() {
    let (addr, fake) = spawn().await;
    let cases: [(&str, &str, Option<&str>, &str); 6] = [
        // (auth, header name, header value, query)
        (
            "auth: { bearer: token }",
            "authorization",
            Some("Bearer tok-SECRET-0042"),
            "q=a",
        ),
        (
            "auth: { header: Authorization, value: \"{token}\" }",
            "authorization",
            Some(TOKEN),
            "q=a",
        ),
        (
            "auth: { header: Authorization, value: \"Token token={token}\" }",
            "authorization",
            Some("Token token=tok-SECRET-0042"),
            "q=a",
        ),
        (
            "auth: { header: X-Api-Key, secret: token }",
            "x-api-key",
            Some(TOKEN),
            "q=a",
        ),
        (
            "auth: { basic: { username: user, password: password } }",
            "authorization",
            // base64("ada:pw-SECRET-7")
            Some("Basic YWRhOnB3LVNFQ1JFVC03"),
            "q=a",
        ),
        (
            "auth: { query: api_key, secret: token }",
            "authorization",
            None,
            "q=a&api_key=tok-SECRET-0042",
        ),
    ];
    for (auth, name, value, query) in cases {
        let app = app(addr, auth);
        let result = call(&app, "wire_items_get", json!({"q": "a"})).await;
        assert_eq!(result["status"], "ok", "{auth}: {result}");
        let seen = fake.last();
        assert_eq!(seen.target, format!("/v2/items?{query}"), "{auth}");
        assert_eq!(header(&seen, name), value, "{auth}");
        assert_eq!(header(&seen, "accept"), Some("application/json"), "{auth}");
        let lines = app.audit.lines().join("\n");
        assert!(
            !lines.contains(TOKEN) && !lines.contains("pw-SECRET"),
            "{auth}: {lines}"
        );
        assert!(!result.to_string().contains(TOKEN), "{auth}: {result}");
    }
}

#[tokio::test]
async fn static_headers_go_with_every_request_and_a_tools_own_win() {
    let (addr, fake) = spawn().await;
    let app = app(
        addr,
        "auth: { bearer: token }\nheaders: { cal-api-version: \"2024-08-13\", X-Client: hosted-mcp }",
    );
    call(&app, "wire_items_get", json!({})).await;
    let items = fake.last();
    assert_eq!(header(&items, "cal-api-version"), Some("2024-08-13"));
    assert_eq!(header(&items, "x-client"), Some("hosted-mcp"));
    call(&app, "wire_slots_get", json!({})).await;
    let slots = fake.last();
    assert_eq!(header(&slots, "cal-api-version"), Some("2024-09-04"));
    assert_eq!(slots.headers.get_all("cal-api-version").iter().count(), 1);
    assert_eq!(header(&slots, "x-client"), Some("hosted-mcp"));
    assert_eq!(
        header(&slots, "authorization"),
        Some("Bearer tok-SECRET-0042")
    );
}

#[tokio::test]
async fn a_query_secret_is_sent_but_never_previewed_or_audited() {
    let (addr, fake) = spawn().await;
    let app = app(addr, "auth: { query: api_key, secret: token }");
    let preview = call(&app, "wire_item_archive", json!({"id": 7, "dry_run": true})).await;
    assert_eq!(preview["status"], "ok", "{preview}");
    assert_eq!(preview["preview"]["request"]["path"], "/v2/items/7/archive");
    assert!(fake.seen().is_empty(), "a dry run sends nothing");
    let asked = call(&app, "wire_item_archive", json!({"id": 7})).await;
    assert_eq!(asked["status"], "confirmation_required", "{asked}");
    assert!(!asked.to_string().contains(TOKEN), "{asked}");
    let token = asked["confirmation_token"].as_str().unwrap().to_string();
    let done = call(
        &app,
        "wire_item_archive",
        json!({"id": 7, "confirmation_token": token}),
    )
    .await;
    assert_eq!(done["status"], "ok", "{done}");
    let seen = fake.last();
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.target, "/v2/items/7/archive?api_key=tok-SECRET-0042");
    let lines = app.audit.lines().join("\n");
    assert!(lines.contains("wire_item_archive"), "{lines}");
    assert!(!lines.contains(TOKEN), "{lines}");
}

#[tokio::test]
async fn an_error_message_is_read_by_json_pointer() {
    let (addr, fake) = spawn().await;
    let app = app(
        addr,
        "auth: { header: Authorization, value: \"{token}\" }\nerrors: { message: [/error/message] }",
    );
    fake.answer(
        "/items",
        (
            404,
            vec![],
            json!({"error": {"message": "Contact not found", "exceptionUUID": "e-1"}}),
        ),
    );
    let result = call(&app, "wire_items_get", json!({})).await;
    assert_eq!(result["status"], "not_found", "{result}");
    assert_eq!(result["upstream_message"], "Contact not found", "{result}");
    assert!(!result.to_string().contains("e-1"), "{result}");
}

#[tokio::test]
async fn problem_details_give_title_and_detail() {
    let (addr, fake) = spawn().await;
    let app = app(
        addr,
        "auth: { bearer: token }\nerrors: { problem_details: true }",
    );
    fake.answer(
        "/items",
        (
            422,
            vec![("content-type", "application/problem+json".into())],
            json!({"type": "https://example.test/probs/input", "title": "Invalid input",
                   "detail": "q must not be empty", "status": 422}),
        ),
    );
    let result = call(&app, "wire_items_get", json!({})).await;
    assert_eq!(result["status"], "invalid_input", "{result}");
    assert_eq!(
        result["upstream_message"], "Invalid input: q must not be empty",
        "{result}"
    );
}

#[tokio::test]
async fn a_status_in_a_200_body_is_the_answer_and_a_success_stays_one() {
    let (addr, fake) = spawn().await;
    let app = app(
        addr,
        "auth: { bearer: token }\nerrors: { message: [/message], status: /status }",
    );
    fake.answer(
        "/items",
        (
            200,
            vec![],
            json!({"status": 404, "message": "no such item"}),
        ),
    );
    fake.answer(
        "/slots",
        (200, vec![], json!({"status": "200", "data": [1, 2]})),
    );
    let result = call(&app, "wire_items_get", json!({})).await;
    assert_eq!(result["status"], "not_found", "{result}");
    assert_eq!(result["upstream_message"], "no such item", "{result}");
    let event = app.audit.events().pop().unwrap();
    assert_eq!(event.status.as_deref(), Some("not_found"));
    let ok = call(&app, "wire_slots_get", json!({})).await;
    assert_eq!(ok["status"], "ok", "{ok}");
}

#[tokio::test]
async fn named_rate_limit_buckets_reach_quota_the_audit_line_and_the_429_hint() {
    let (addr, fake) = spawn().await;
    // Cal.com names its buckets in the header names; `*` reports the tightest one.
    let app = app(
        addr,
        "auth: { bearer: token }\nquota: { headers: x_ratelimit, bucket: \"*\" }",
    );
    let buckets = |long: &str| {
        vec![
            ("x-ratelimit-limit-short", "10".to_string()),
            ("x-ratelimit-remaining-short", "9".to_string()),
            ("x-ratelimit-reset-short", "1".to_string()),
            ("x-ratelimit-limit-long", "120".to_string()),
            ("x-ratelimit-remaining-long", long.to_string()),
            ("x-ratelimit-reset-long", "40".to_string()),
        ]
    };
    fake.answer("/items", (200, buckets("6"), json!({"ok": true})));
    let result = call(&app, "wire_items_get", json!({})).await;
    assert_eq!(result["status"], "ok", "{result}");
    assert_eq!(
        result["_quota"],
        json!({"remaining": 6, "limit": 120, "reset_s": 40}),
        "6 of 120 is tighter than 9 of 10: {result}"
    );
    let line = app.audit.lines().pop().unwrap();
    let event: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        (&event["quota_remaining"], &event["quota_limit"]),
        (&json!(6), &json!(120)),
        "{line}"
    );
    // A 429 without Retry-After: the bucket's reset is the wait.
    fake.answer("/items", (429, buckets("0"), json!({"message": "slow"})));
    let result = call(&app, "wire_items_get", json!({})).await;
    assert_eq!(result["status"], "rate_limited", "{result}");
    assert!(
        result["hint"]
            .as_str()
            .unwrap()
            .contains("quota is used up (0 remaining); it resets in 40 s"),
        "{result}"
    );
}

#[tokio::test]
async fn body_figures_reach_quota_and_the_audit_line_from_the_tools_that_carry_them() {
    let (addr, fake) = spawn().await;
    // An account document (Runway's organisation): the balance and the tier's limit.
    let app = app(
        addr,
        "auth: { bearer: token }\nquota: { body: { remaining: /account/balance, \
         limit: /tier/max, tools: [wire_items_get] }, balance: true }",
    );
    let account = |balance: Value| json!({"account": {"balance": balance}, "tier": {"max": 10000}});
    fake.answer("/items", (200, vec![], account(json!(1500))));
    let result = call(&app, "wire_items_get", json!({})).await;
    assert_eq!(result["status"], "ok", "{result}");
    assert_eq!(
        result["_quota"],
        json!({"remaining": 1500, "limit": 10000}),
        "{result}"
    );
    let line = app.audit.lines().pop().unwrap();
    let event: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        (&event["quota_remaining"], &event["quota_limit"]),
        (&json!(1500), &json!(10000)),
        "{line}"
    );
    // Another tool's answer does not carry the figures, even when it holds the same fields.
    fake.answer("/slots", (200, vec![], account(json!(1500))));
    let other = call(&app, "wire_slots_get", json!({})).await;
    assert_eq!(other["status"], "ok", "{other}");
    assert!(other.get("_quota").is_none(), "{other}");
    // A balance that is not a whole number from 0 is no figure, never a wrong one.
    for odd in [json!("1500"), json!(-3), json!(12.5), json!(1e30)] {
        fake.answer("/items", (200, vec![], account(odd.clone())));
        let result = call(&app, "wire_items_get", json!({})).await;
        assert_eq!(result["status"], "ok", "{result}");
        assert_eq!(result["_quota"].get("remaining"), None, "{odd}: {result}");
    }
}

#[tokio::test]
async fn ietf_rate_limit_fields_reach_quota() {
    let (addr, fake) = spawn().await;
    let app = app(
        addr,
        "auth: { bearer: token }\nquota: { headers: ietf, bucket: day }",
    );
    fake.answer(
        "/items",
        (
            200,
            vec![
                (
                    "ratelimit",
                    "\"day\";r=900;t=3600, \"minute\";r=3;t=20".into(),
                ),
                (
                    "ratelimit-policy",
                    "\"day\";q=1000;w=86400, \"minute\";q=60;w=60".into(),
                ),
            ],
            json!({"ok": true}),
        ),
    );
    let result = call(&app, "wire_items_get", json!({})).await;
    assert_eq!(
        result["_quota"],
        json!({"remaining": 900, "limit": 1000, "reset_s": 3600}),
        "{result}"
    );
    // A 429 with Retry-After as a date: the date wins over the policy's reset.
    let at = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(90);
    let date = jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&at)
        .unwrap();
    fake.answer(
        "/items",
        (
            429,
            vec![
                ("retry-after", date),
                ("ratelimit", "\"day\";r=5;t=3600".into()),
            ],
            json!({}),
        ),
    );
    let result = call(&app, "wire_items_get", json!({})).await;
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("retry after 89 s") || hint.contains("retry after 90 s"),
        "{result}"
    );
}
