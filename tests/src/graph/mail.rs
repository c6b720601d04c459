//! Outlook mail of the Graph twin: the person, messages (all, the inbox, one), folders, sendMail.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::{Mail, Person, Twin, error, not_found, page, preference};

pub(super) async fn me(Person(who): Person) -> Response {
    axum::Json(json!({"id": format!("{who}-id"), "displayName": who,
        "mail": format!("{who}@muster.example"), "userPrincipalName": format!("{who}@muster.example"),
        "jobTitle": null, "officeLocation": null}))
    .into_response()
}

/// A mail as a list answers it.
fn summary(m: &Mail) -> Value {
    json!({"id": m.id, "subject": m.subject, "receivedDateTime": "2026-05-04T06:00:00Z",
        "from": {"emailAddress": {"name": m.from, "address": m.from}},
        "isRead": m.read, "importance": if m.important { "high" } else { "normal" },
        "hasAttachments": false, "bodyPreview": m.text, "conversationId": format!("c-{}", m.id)})
}

/// The mails `$filter` (`isRead eq false`, `importance eq 'high'`) and `$search` (words in
/// quotes) keep.
fn matching(mails: Vec<Mail>, query: &BTreeMap<String, String>) -> Vec<Value> {
    let filter = query.get("$filter").map(String::as_str).unwrap_or("");
    let words = query
        .get("$search")
        .map(|s| s.trim_matches('"').to_lowercase());
    mails
        .iter()
        .filter(|m| !filter.contains("isRead eq false") || !m.read)
        .filter(|m| !filter.contains("importance eq 'high'") || m.important)
        .filter(|m| {
            words.as_ref().is_none_or(|w| {
                let text = format!("{} {} {}", m.from, m.subject, m.text).to_lowercase();
                w.split_whitespace()
                    .all(|w| text.contains(w.rsplit(':').next().unwrap()))
            })
        })
        .map(summary)
        .collect()
}

/// A list of `who`'s mails at `path`; Graph refuses `$filter` beside `$search`.
fn list(twin: &Twin, who: &str, path: &str, query: &BTreeMap<String, String>) -> Response {
    if query.contains_key("$search") && query.contains_key("$filter") {
        let message = "The query parameter '$filter' is not supported with '$search'.";
        return error(StatusCode::BAD_REQUEST, "ErrorInvalidUrlQuery", message);
    }
    let items = matching(twin.account(who).mails, query);
    axum::Json(page(twin, path, items, query)).into_response()
}

pub(super) async fn messages(
    State(twin): State<Twin>,
    Person(who): Person,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    list(&twin, &who, "/me/messages", &query)
}

pub(super) async fn inbox(
    State(twin): State<Twin>,
    Person(who): Person,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    list(&twin, &who, "/me/mailFolders/inbox/messages", &query)
}

/// One mail in full; its body as text when `Prefer: outlook.body-content-type="text"` asks,
/// else as Outlook keeps it (HTML).
pub(super) async fn message(
    State(twin): State<Twin>,
    Person(who): Person,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let Some(mail) = twin.account(&who).mails.into_iter().find(|m| m.id == id) else {
        return not_found();
    };
    let text = preference(&headers, "outlook.body-content-type").as_deref() == Some("text");
    let body = if text {
        json!({"contentType": "text", "content": mail.text})
    } else {
        json!({"contentType": "html", "content": format!("<html><body><p>{}</p></body></html>", mail.text)})
    };
    let mut answer = summary(&mail);
    answer["body"] = body;
    answer["toRecipients"] =
        json!([{"emailAddress": {"address": format!("{who}@muster.example")}}]);
    answer["ccRecipients"] = json!([]);
    axum::Json(answer).into_response()
}

pub(super) async fn folders(
    State(twin): State<Twin>,
    Person(who): Person,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let mails = twin.account(&who).mails;
    let unread = mails.iter().filter(|m| !m.read).count();
    let items = vec![
        json!({"id": "inbox-id", "displayName": "Inbox", "totalItemCount": mails.len(),
            "unreadItemCount": unread, "childFolderCount": 0}),
        json!({"id": "sent-id", "displayName": "Sent Items", "totalItemCount": 0,
            "unreadItemCount": 0, "childFolderCount": 0}),
    ];
    axum::Json(page(&twin, "/me/mailFolders", items, &query)).into_response()
}

/// `sendMail`: 202 without a body, as Graph answers; a message without recipients is refused.
pub(super) async fn send(
    State(twin): State<Twin>,
    Person(who): Person,
    axum::Json(body): axum::Json<Value>,
) -> Response {
    let to = &body["message"]["toRecipients"][0]["emailAddress"]["address"];
    if !to.is_string() {
        let message = "At least one recipient is not valid.";
        return error(StatusCode::BAD_REQUEST, "ErrorInvalidRecipients", message);
    }
    twin.lock().sent.push((who, body));
    StatusCode::ACCEPTED.into_response()
}
