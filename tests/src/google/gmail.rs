//! Gmail's endpoints of the twin: threads, messages, send, profile, labels, drafts.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::{Twin, error, page};

pub(super) async fn threads(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let who = match twin.caller(&headers) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    let items = twin
        .account(&who)
        .mails
        .iter()
        .map(|(id, _, subject, _)| json!({"id": id, "snippet": subject, "historyId": "1"}))
        .collect();
    axum::Json(page(items, "threads", &query, 500)).into_response()
}

/// One mail as Gmail's `format=full` answers it: one text/plain part, base64url.
fn full(mail: &(String, String, String, String)) -> Value {
    let (id, from, subject, text) = mail;
    json!({"id": id, "threadId": id, "labelIds": ["INBOX", "UNREAD"],
        "snippet": subject, "payload": {"mimeType": "text/plain",
        "headers": [{"name": "From", "value": from}, {"name": "Subject", "value": subject}],
        "body": {"size": text.len(), "data": URL_SAFE_NO_PAD.encode(text)}}})
}

fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "notFound",
        "Requested entity was not found.",
    )
}

pub(super) async fn message(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let who = match twin.caller(&headers) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    match twin.account(&who).mails.iter().find(|m| m.0 == id) {
        Some(mail) => axum::Json(full(mail)).into_response(),
        None => not_found(),
    }
}

/// `threads.get`: here each conversation is its one mail.
pub(super) async fn thread(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let who = match twin.caller(&headers) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    match twin.account(&who).mails.iter().find(|m| m.0 == id) {
        Some(mail) => axum::Json(json!({"id": id, "messages": [full(mail)]})).into_response(),
        None => not_found(),
    }
}

/// `messages.list`: ids only, as Gmail answers.
pub(super) async fn messages(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let who = match twin.caller(&headers) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    let items = twin
        .account(&who)
        .mails
        .iter()
        .map(|m| json!({"id": m.0, "threadId": m.0}))
        .collect();
    axum::Json(page(items, "messages", &query, 500)).into_response()
}

pub(super) async fn profile(State(twin): State<Twin>, headers: HeaderMap) -> Response {
    let who = match twin.caller(&headers) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    let n = twin.account(&who).mails.len();
    axum::Json(json!({"emailAddress": format!("{who}@muster.example"),
        "messagesTotal": n, "threadsTotal": n, "historyId": "1"}))
    .into_response()
}

pub(super) async fn labels(State(twin): State<Twin>, headers: HeaderMap) -> Response {
    if let Err(refused) = twin.caller(&headers) {
        return refused;
    }
    axum::Json(
        json!({"labels": [{"id": "INBOX", "name": "INBOX", "type": "system"},
        {"id": "UNREAD", "name": "UNREAD", "type": "system"}]}),
    )
    .into_response()
}

pub(super) async fn drafts(State(twin): State<Twin>, headers: HeaderMap) -> Response {
    if let Err(refused) = twin.caller(&headers) {
        return refused;
    }
    axum::Json(json!({"drafts": [], "resultSizeEstimate": 0})).into_response()
}

/// `messages.send`: Gmail takes the whole message base64url-encoded in `raw`.
pub(super) async fn send(
    State(twin): State<Twin>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    // The scopes Gmail's reference lists for `messages.send`.
    let send = [
        "https://www.googleapis.com/auth/gmail.send",
        "https://www.googleapis.com/auth/gmail.compose",
        "https://www.googleapis.com/auth/gmail.modify",
        "https://mail.google.com/",
    ];
    let who = match twin.caller_with(&headers, &send) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    let raw = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|b| b["raw"].as_str().map(str::to_string))
        .and_then(|r| URL_SAFE_NO_PAD.decode(r.trim_end_matches('=')).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let Some(message) = raw else {
        return error(
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            "invalidArgument",
            "Invalid value for ByteString",
        );
    };
    if !message.lines().any(|l| l.starts_with("To: ")) {
        return error(
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            "invalidArgument",
            "Recipient address required",
        );
    }
    let mut inner = twin.lock();
    inner.sent.push((who, message));
    let id = format!("sent-{}", inner.sent.len());
    axum::Json(json!({"id": id, "threadId": id, "labelIds": ["SENT"]})).into_response()
}

/// `messages.attachments.get`: the content base64url-encoded, with neither type nor name (the
/// message's part names them).
pub(super) async fn attachment(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Path((message, id)): Path<(String, String)>,
) -> Response {
    let who = match twin.caller(&headers) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    let account = twin.account(&who);
    match account
        .attachments
        .iter()
        .find(|(m, a, _)| *m == message && *a == id)
    {
        Some((_, _, bytes)) => axum::Json(json!({"attachmentId": id, "size": bytes.len(),
            "data": URL_SAFE_NO_PAD.encode(bytes)}))
        .into_response(),
        None => not_found(),
    }
}
