//! OneDrive and contacts of the Graph twin: search, an item, its content (a 302 to a
//! pre-authenticated download URL, as OneDrive answers), the download itself, contacts.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::{Person, Twin, error, not_found, page};

fn metadata(id: &str, name: &str, mime: &str, size: usize) -> Value {
    json!({"id": id, "name": name, "size": size, "file": {"mimeType": mime},
        "lastModifiedDateTime": "2026-05-01T10:00:00Z", "webUrl": format!("https://onedrive.example/{id}"),
        "parentReference": {"path": "/drive/root:/Dokumente"}})
}

/// `/me/drive/root/search(q='…')`: files whose name holds the words.
pub(super) async fn search(
    State(twin): State<Twin>,
    Person(who): Person,
    Path(segment): Path<String>,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let Some(words) = segment
        .strip_prefix("search(q='")
        .and_then(|s| s.strip_suffix("')"))
    else {
        return error(StatusCode::BAD_REQUEST, "invalidRequest", "Invalid request");
    };
    let words = words.to_lowercase();
    let items = twin
        .account(&who)
        .files
        .iter()
        .filter(|(_, name, _, _)| name.to_lowercase().contains(&words))
        .map(|(id, name, mime, bytes)| metadata(id, name, mime, bytes.len()))
        .collect();
    axum::Json(page(
        &twin,
        &format!("/me/drive/root/{segment}"),
        items,
        &query,
    ))
    .into_response()
}

pub(super) async fn item(
    State(twin): State<Twin>,
    Person(who): Person,
    Path(id): Path<String>,
) -> Response {
    match twin.account(&who).files.iter().find(|f| f.0 == id) {
        Some((id, name, mime, bytes)) => {
            axum::Json(metadata(id, name, mime, bytes.len())).into_response()
        }
        None => error(
            StatusCode::NOT_FOUND,
            "itemNotFound",
            "The resource could not be found.",
        ),
    }
}

/// `/content`: OneDrive answers 302 with a short-lived download URL that needs no token.
pub(super) async fn content(
    State(twin): State<Twin>,
    Person(who): Person,
    Path(id): Path<String>,
) -> Response {
    if !twin.account(&who).files.iter().any(|f| f.0 == id) {
        return error(
            StatusCode::NOT_FOUND,
            "itemNotFound",
            "The resource could not be found.",
        );
    }
    let origin = twin.lock().base.trim_end_matches("/v1.0").to_string();
    let location = format!("{origin}/download/{who}/{id}");
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

/// The pre-authenticated download: the bytes with their content type, no token asked.
pub(super) async fn download(
    State(twin): State<Twin>,
    Path((who, id)): Path<(String, String)>,
) -> Response {
    match twin.account(&who).files.into_iter().find(|f| f.0 == id) {
        Some((_, _, mime, bytes)) => ([(header::CONTENT_TYPE, mime)], bytes).into_response(),
        None => not_found(),
    }
}

/// `/me/contacts`: `$search` ("words") over name and company.
pub(super) async fn contacts(
    State(twin): State<Twin>,
    Person(who): Person,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let words = query
        .get("$search")
        .map(|s| s.trim_matches('"').to_lowercase());
    let items = twin
        .account(&who)
        .contacts
        .into_iter()
        .filter(|c| {
            let text = format!("{} {}", c["displayName"], c["companyName"]).to_lowercase();
            words.as_ref().is_none_or(|w| text.contains(w.as_str()))
        })
        .collect();
    axum::Json(page(&twin, "/me/contacts", items, &query)).into_response()
}
