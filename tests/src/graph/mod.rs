//! An offline twin of Microsoft Graph v1.0 (`/v1.0/me/…`): a mailbox, a calendar, a OneDrive
//! and contacts per person, reached only with an access token that the local OpenID provider
//! playing Entra issued ([`crate::person`]), answering in Graph's shapes: `value` lists with
//! `@odata.nextLink` (absolute, `$top`/`$skip`), `{error: {code, message, innerError}}` errors,
//! times in the zone `Prefer: outlook.timezone="…"` names (UTC without it), a mail's body as
//! text when `Prefer: outlook.body-content-type="text"` asks, and throttling as Graph does it:
//! a person over their request budget in a window gets 429 `TooManyRequests` with
//! `Retry-After`. A file's content is a 302 to a pre-authenticated download URL, as OneDrive
//! answers. It counts each person's requests and keeps every token it was sent. Listens on
//! 127.0.0.1 only.

mod calendar;
mod files;
mod mail;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::person::Gate;

/// One mail of a mailbox.
#[derive(Clone, Default)]
pub struct Mail {
    pub id: String,
    pub from: String,
    pub subject: String,
    pub text: String,
    pub read: bool,
    pub important: bool,
}

/// One person's mail (newest first), events (Graph's shape, `start`/`end` in UTC), files as
/// `(id, name, content type, bytes)` and contacts (Graph's shape).
#[derive(Clone, Default)]
pub struct Account {
    pub mails: Vec<Mail>,
    pub events: Vec<Value>,
    pub files: Vec<(String, String, String, Vec<u8>)>,
    pub contacts: Vec<Value>,
}

#[derive(Default)]
struct Inner {
    base: String,
    accounts: BTreeMap<String, Account>,
    /// Per person: requests left in the window, and when it ends.
    budgets: BTreeMap<String, (usize, Instant)>,
    /// Mails sent, as `(sender, Graph's sendMail body)`.
    sent: Vec<(String, Value)>,
    /// Each list request's `$select` (empty without one).
    selects: Vec<String>,
}

/// The twin's state, shared with the test.
#[derive(Clone)]
pub struct Twin {
    inner: Arc<Mutex<Inner>>,
    /// Who may call it, and what it saw.
    pub gate: Gate,
}

impl Twin {
    /// A twin honouring tokens of `issuer` for `audience`, holding `accounts` by subject.
    pub fn new(issuer: &str, audience: &str, accounts: BTreeMap<String, Account>) -> Twin {
        let inner = Inner {
            accounts,
            ..Inner::default()
        };
        Twin {
            inner: Arc::new(Mutex::new(inner)),
            gate: Gate::new(issuer, audience),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Each list request's `$select`, in order (empty without one).
    pub fn selects(&self) -> Vec<String> {
        self.lock().selects.clone()
    }

    /// `who` may make `requests` more requests in the next `window`; beyond them, 429.
    pub fn limit(&self, who: &str, requests: usize, window: Duration) {
        let until = Instant::now() + window;
        self.lock()
            .budgets
            .insert(who.to_string(), (requests, until));
    }

    /// The mails `who` sent (Graph's sendMail bodies).
    pub fn sent_by(&self, who: &str) -> Vec<Value> {
        let inner = self.lock();
        inner
            .sent
            .iter()
            .filter(|(w, _)| w == who)
            .map(|(_, m)| m.clone())
            .collect()
    }

    /// Serves the twin on 127.0.0.1:`port`; answers its base URL (`…/v1.0`).
    pub async fn serve(self, port: u16) -> String {
        let base = format!("http://127.0.0.1:{port}/v1.0");
        self.lock().base = base.clone();
        let app = Router::new()
            .route("/v1.0/me", get(mail::me))
            .route("/v1.0/me/messages", get(mail::messages))
            .route("/v1.0/me/mailFolders/inbox/messages", get(mail::inbox))
            .route("/v1.0/me/messages/{id}", get(mail::message))
            .route("/v1.0/me/mailFolders", get(mail::folders))
            .route("/v1.0/me/sendMail", post(mail::send))
            .route("/v1.0/me/calendarView", get(calendar::view))
            .route("/v1.0/me/events/{id}", get(calendar::event))
            .route("/v1.0/me/calendars", get(calendar::calendars))
            .route("/v1.0/me/findMeetingTimes", post(calendar::meeting_times))
            .route("/v1.0/me/drive/root/{search}", get(files::search))
            .route("/v1.0/me/drive/items/{id}", get(files::item))
            .route("/v1.0/me/drive/items/{id}/content", get(files::content))
            .route("/download/{who}/{id}", get(files::download))
            .route("/v1.0/me/contacts", get(files::contacts))
            .with_state(self);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind the twin");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        base
    }

    /// The person a request's bearer token names, counted; else Graph's 401, its 403 when the
    /// token lacks every permission that opens the request (`needed`), or its 429 when the
    /// person is over their budget.
    fn person(&self, headers: &HeaderMap, needed: &[&str]) -> Result<String, Box<Response>> {
        let Some(who) = self.gate.admit(headers) else {
            let message = "Access token validation failure. Invalid audience.";
            return Err(Box::new(error(
                StatusCode::UNAUTHORIZED,
                "InvalidAuthenticationToken",
                message,
            )));
        };
        if !self.gate.holds(headers, needed) {
            let message = "Access is denied. Check credentials and try again.";
            return Err(Box::new(error(
                StatusCode::FORBIDDEN,
                "ErrorAccessDenied",
                message,
            )));
        }
        let now = Instant::now();
        let mut inner = self.lock();
        if let Some((left, until)) = inner.budgets.get_mut(&who).filter(|(_, u)| *u > now) {
            if *left == 0 {
                let wait = (*until - now).as_secs() + 1;
                let message = "Application is over its MailboxConcurrency limit.";
                let mut answer = error(StatusCode::TOO_MANY_REQUESTS, "TooManyRequests", message);
                answer.headers_mut().insert("retry-after", wait.into());
                return Err(Box::new(answer));
            }
            *left -= 1;
        }
        Ok(who)
    }

    fn account(&self, who: &str) -> Account {
        self.lock().accounts.get(who).cloned().unwrap_or_default()
    }
}

/// The person a request's bearer token names (counted), as an extractor: a handler that takes
/// it answers Graph's 401, or its 429 for a person over their budget, without running.
pub(super) struct Person(String);

impl FromRequestParts<Twin> for Person {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, twin: &Twin) -> Result<Person, Response> {
        let needed = permissions(&parts.method, parts.uri.path());
        twin.person(&parts.headers, needed)
            .map(Person)
            .map_err(|refused| *refused)
    }
}

/// The delegated permissions of which a request needs one, as Graph's reference lists them
/// (the least one first; a write's also open the reads).
fn permissions(method: &axum::http::Method, path: &str) -> &'static [&'static str] {
    let write = method != axum::http::Method::GET;
    let under = |prefix: &str| path.starts_with(prefix);
    match () {
        _ if path == "/v1.0/me/sendMail" => &["Mail.Send"],
        _ if path == "/v1.0/me/findMeetingTimes" => {
            &["Calendars.Read.Shared", "Calendars.ReadWrite.Shared"]
        }
        _ if under("/v1.0/me/messages") || under("/v1.0/me/mailFolders") => match write {
            true => &["Mail.ReadWrite"],
            false => &["Mail.Read", "Mail.ReadWrite"],
        },
        _ if under("/v1.0/me/events") || under("/v1.0/me/calendar") => match write {
            true => &["Calendars.ReadWrite"],
            false => &["Calendars.Read", "Calendars.ReadWrite"],
        },
        _ if under("/v1.0/me/drive") => &["Files.Read", "Files.ReadWrite"],
        _ if under("/v1.0/me/contacts") => &["Contacts.Read", "Contacts.ReadWrite"],
        _ => &["User.Read"],
    }
}

/// Graph's error envelope.
fn error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = json!({"error": {"code": code, "message": message, "innerError": {
        "date": "2026-05-04T08:00:00", "request-id": "7e1c2d4a-0000-4000-8000-000000000000",
        "client-request-id": "7e1c2d4a-0000-4000-8000-000000000000"}}});
    (status, axum::Json(body)).into_response()
}

fn not_found() -> Response {
    let message = "The specified object was not found in the store.";
    error(StatusCode::NOT_FOUND, "ErrorItemNotFound", message)
}

/// A `Prefer` preference's value (`outlook.timezone="Europe/Berlin"` → `Europe/Berlin`).
fn preference(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all("prefer")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|p| p.trim().split_once('='))
        .find(|(k, _)| k.trim() == name)
        .map(|(_, v)| v.trim().trim_matches('"').to_string())
}

/// An item with only the `$select`ed properties (and its `id`, which Graph always answers).
fn only(item: Value, selected: Option<&Vec<String>>) -> Value {
    match (item, selected) {
        (Value::Object(map), Some(names)) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| k == "id" || names.contains(k))
                .collect(),
        ),
        (item, _) => item,
    }
}

/// One page of `items` as Graph answers it (only the `$select`ed properties): `value`, and `@odata.nextLink` (this path with the
/// same query and the next `$skip`) while more follow.
fn page(twin: &Twin, path: &str, items: Vec<Value>, query: &BTreeMap<String, String>) -> Value {
    let from: usize = query.get("$skip").and_then(|n| n.parse().ok()).unwrap_or(0);
    let size = query
        .get("$top")
        .and_then(|n| n.parse().ok())
        .unwrap_or(10)
        .clamp(1, 1000);
    let total = items.len();
    let selected = query
        .get("$select")
        .map(|s| s.split(',').map(str::to_string).collect());
    twin.lock()
        .selects
        .push(query.get("$select").cloned().unwrap_or_default());
    let shown: Vec<Value> = items
        .into_iter()
        .skip(from)
        .take(size)
        .map(|item| only(item, selected.as_ref()))
        .collect();
    let mut body = json!({ "value": shown });
    if from + size < total {
        let mut next = query.clone();
        next.insert("$skip".into(), (from + size).to_string());
        let base = twin.lock().base.clone();
        let url = reqwest::Url::parse_with_params(&format!("{base}{path}"), &next).unwrap();
        body["@odata.nextLink"] = json!(url.as_str());
    }
    body
}
