//! An offline twin of Gmail, Google Calendar, Drive and People: a mailbox, a primary calendar,
//! a Drive and contacts per person,
//! reached only with an access token that the local OpenID provider playing Google issued
//! (`iss` its issuer, `aud` the twin's resource, not expired, not revoked here), answering in
//! Google's shapes: `pageToken`/`nextPageToken` paging, message payloads with base64url bodies,
//! `{error: {code, message, status, errors}}` errors, per-user throttling as Google answers it
//! (403 `userRateLimitExceeded`, see [`Twin::throttle`]). It counts each person's requests and
//! keeps every token it was sent. Who a token names: [`crate::person`]. Listens on 127.0.0.1
//! only.

mod calendar;
mod drive;
mod gmail;
mod people;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::person::Gate;

/// One person's mail and events.
#[derive(Default, Clone)]
pub struct Account {
    /// Mails as `(id, from, subject, text)`, newest first.
    pub mails: Vec<(String, String, String, String)>,
    /// Events as Google answers them (`id`, `summary`, `start`, `end`, `attendees`…).
    pub events: Vec<Value>,
    /// Drive files as Drive describes them (`id`, `name`, `mimeType`, `modifiedTime`…), each
    /// with what it exports as (a Doc's text, a Sheet's CSV).
    pub files: Vec<(Value, String)>,
    /// Contacts as People answers them (`resourceName`, `names`, `emailAddresses`…).
    pub contacts: Vec<Value>,
    /// Mail attachments as `(message id, attachment id, bytes)`.
    pub attachments: Vec<(String, String, Vec<u8>)>,
}

struct Inner {
    accounts: BTreeMap<String, Account>,
    /// Messages sent, as `(sender, decoded RFC 5322 text)`.
    sent: Vec<(String, String)>,
    /// People whose contact search was warmed up (one search with an empty query).
    warmed: HashSet<String>,
    /// How many of each person's next requests are refused as over their rate.
    throttled: BTreeMap<String, usize>,
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
            sent: Vec::new(),
            warmed: HashSet::new(),
            throttled: BTreeMap::new(),
        };
        Twin {
            inner: Arc::new(Mutex::new(inner)),
            gate: Gate::new(issuer, audience),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `who`'s next `n` requests are refused as Google refuses a user over their rate: 403
    /// with reason `userRateLimitExceeded`.
    pub fn throttle(&self, who: &str, n: usize) {
        self.lock().throttled.insert(who.to_string(), n);
    }

    /// The messages `who` sent, decoded.
    pub fn sent_by(&self, who: &str) -> Vec<String> {
        self.lock()
            .sent
            .iter()
            .filter(|(w, _)| w == who)
            .map(|(_, m)| m.clone())
            .collect()
    }

    /// `who`'s events now.
    pub fn events_of(&self, who: &str) -> Vec<Value> {
        self.lock()
            .accounts
            .get(who)
            .map(|a| a.events.clone())
            .unwrap_or_default()
    }

    /// Serves the twin on 127.0.0.1:`port`; answers its base URL.
    pub async fn serve(self, port: u16) -> String {
        let app = Router::new()
            .route("/gmail/v1/users/me/threads", get(gmail::threads))
            .route("/gmail/v1/users/me/profile", get(gmail::profile))
            .route("/gmail/v1/users/me/messages", get(gmail::messages))
            .route("/gmail/v1/users/me/threads/{id}", get(gmail::thread))
            .route("/gmail/v1/users/me/labels", get(gmail::labels))
            .route("/gmail/v1/users/me/drafts", get(gmail::drafts))
            .route("/gmail/v1/users/me/messages/{id}", get(gmail::message))
            .route("/gmail/v1/users/me/messages/send", post(gmail::send))
            .route(
                "/calendar/v3/calendars/{calendar}/events",
                get(calendar::events),
            )
            .route("/calendar/v3/freeBusy", post(calendar::free_busy))
            .route(
                "/calendar/v3/users/me/calendarList",
                get(calendar::calendar_list),
            )
            .route(
                "/calendar/v3/calendars/{calendar}/events/{id}",
                get(calendar::event),
            )
            .route(
                "/gmail/v1/users/me/messages/{id}/attachments/{attachment}",
                get(gmail::attachment),
            )
            .route("/drive/v3/files", get(drive::files))
            .route("/drive/v3/files/{id}", get(drive::file))
            .route("/drive/v3/files/{id}/export", get(drive::export))
            .route("/v1/people:searchContacts", get(people::search))
            .with_state(self);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind the twin");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        format!("http://127.0.0.1:{port}")
    }

    /// The person a request's bearer token names, counted; `Err`: Google's refusal (401 for a
    /// token it does not honour, 403 for a person over their rate).
    #[expect(
        clippy::result_large_err,
        reason = "a refusal is the answer itself, made once per request"
    )]
    fn caller(&self, headers: &HeaderMap) -> Result<String, Response> {
        let who = self.person(headers).ok_or_else(unauthenticated)?;
        let mut inner = self.lock();
        match inner.throttled.get_mut(&who) {
            Some(left) if *left > 0 => {
                *left -= 1;
                Err(error(
                    StatusCode::FORBIDDEN,
                    "PERMISSION_DENIED",
                    "userRateLimitExceeded",
                    "User Rate Limit Exceeded",
                ))
            }
            _ => Ok(who),
        }
    }

    /// [`Twin::caller`] for a request that needs one of `any_of` in the token's scopes (what
    /// the person allowed): else Google's 403 `insufficientPermissions`.
    #[expect(
        clippy::result_large_err,
        reason = "a refusal is the answer itself, made once per request"
    )]
    fn caller_with(&self, headers: &HeaderMap, any_of: &[&str]) -> Result<String, Response> {
        let who = self.caller(headers)?;
        if !self.gate.holds(headers, any_of) {
            return Err(error(
                StatusCode::FORBIDDEN,
                "PERMISSION_DENIED",
                "insufficientPermissions",
                "Request had insufficient authentication scopes.",
            ));
        }
        Ok(who)
    }

    /// The person a request's bearer token names, counted; `None`: answer Google's 401.
    fn person(&self, headers: &HeaderMap) -> Option<String> {
        self.gate.admit(headers)
    }

    fn account(&self, who: &str) -> Account {
        self.lock().accounts.get(who).cloned().unwrap_or_default()
    }
}

/// Google's answer to a missing, foreign, expired or revoked token.
fn unauthenticated() -> Response {
    error(
        StatusCode::UNAUTHORIZED,
        "UNAUTHENTICATED",
        "authError",
        "Request had invalid authentication credentials. Expected OAuth 2 access token.",
    )
}

/// Google's error envelope.
fn error(status: StatusCode, word: &str, reason: &str, message: &str) -> Response {
    let body = json!({"error": {"code": status.as_u16(), "message": message, "status": word,
        "errors": [{"message": message, "domain": "global", "reason": reason}]}});
    (status, axum::Json(body)).into_response()
}

/// One page of `items` under `key`, by Google's `pageToken` (here: the offset) and `maxResults`
/// (Drive: `pageSize`).
fn page(items: Vec<Value>, key: &str, query: &BTreeMap<String, String>, max: usize) -> Value {
    let from: usize = query
        .get("pageToken")
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let size = query
        .get("maxResults")
        .or_else(|| query.get("pageSize"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(max)
        .clamp(1, max);
    let total = items.len();
    let mut body = json!({ key: items.into_iter().skip(from).take(size).collect::<Vec<_>>(),
                           "resultSizeEstimate": total });
    if from + size < total {
        body["nextPageToken"] = json!((from + size).to_string());
    }
    body
}
