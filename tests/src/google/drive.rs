//! Drive's endpoints of the twin: files searched by Drive's query words (here `name contains
//! '…'` and `mimeType = '…'`; others match everything), a file's metadata, and the export of
//! Google's own formats (a Doc as text or PDF, a Sheet as CSV or PDF; any other file refused
//! as Drive refuses it).

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::{Twin, error, page};

const DOC: &str = "application/vnd.google-apps.document";
const SHEET: &str = "application/vnd.google-apps.spreadsheet";

/// The scopes that open Drive's files for reading.
const DRIVE: &[&str] = &[
    "https://www.googleapis.com/auth/drive.readonly",
    "https://www.googleapis.com/auth/drive",
];
/// The quoted value after `word` in a Drive query (`name contains 'Angebot'` → `Angebot`).
fn quoted_after<'q>(q: &'q str, word: &str) -> Option<&'q str> {
    let rest = &q[q.find(word)? + word.len()..];
    let start = rest.find('\'')? + 1;
    let len = rest[start..].find('\'')?;
    Some(&rest[start..start + len])
}

/// Whether a file's metadata meets the query's `name contains` and `mimeType =` words.
fn matches(file: &Value, q: &str) -> bool {
    let name = file["name"].as_str().unwrap_or_default().to_lowercase();
    let named = quoted_after(q, "name contains").is_none_or(|w| name.contains(&w.to_lowercase()));
    let typed = quoted_after(q, "mimeType =").is_none_or(|t| file["mimeType"] == t);
    named && typed
}

/// `files.list`: the files whose metadata meets the query, newest change first.
pub(super) async fn files(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let who = match twin.caller_with(&headers, DRIVE) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    let q = query.get("q").map(String::as_str).unwrap_or_default();
    let mut found: Vec<Value> = twin
        .account(&who)
        .files
        .into_iter()
        .map(|(file, _)| file)
        .filter(|f| matches(f, q))
        .collect();
    found.sort_by(|a, b| b["modifiedTime"].as_str().cmp(&a["modifiedTime"].as_str()));
    let mut body = page(found, "files", &query, 1000);
    if let Some(map) = body.as_object_mut() {
        map.remove("resultSizeEstimate");
    }
    axum::Json(body).into_response()
}

fn not_found(id: &str) -> Response {
    error(
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "notFound",
        &format!("File not found: {id}."),
    )
}

/// The file `id` of the caller and what it exports as.
#[expect(
    clippy::result_large_err,
    reason = "a refusal is the answer itself, made once per request"
)]
fn lookup(twin: &Twin, headers: &HeaderMap, id: &str) -> Result<(Value, String), Response> {
    let who = twin.caller_with(headers, DRIVE)?;
    let account = twin.account(&who);
    let found = account.files.into_iter().find(|(f, _)| f["id"] == id);
    found.ok_or_else(|| not_found(id))
}

/// `files.get`: the file's metadata.
pub(super) async fn file(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    match lookup(&twin, &headers, &id) {
        Ok((file, _)) => axum::Json(file).into_response(),
        Err(refused) => refused,
    }
}

/// `files.export`: a Doc as text/plain or PDF, a Sheet as text/csv or PDF, in the type asked
/// for; anything else refused as Drive refuses it.
pub(super) async fn export(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let (file, text) = match lookup(&twin, &headers, &id) {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    let asked = query
        .get("mimeType")
        .map(String::as_str)
        .unwrap_or_default();
    let kind = file["mimeType"].as_str().unwrap_or_default();
    if kind != DOC && kind != SHEET {
        return error(
            StatusCode::FORBIDDEN,
            "PERMISSION_DENIED",
            "fileNotExportable",
            "Export only supports Docs Editors files.",
        );
    }
    let bytes = match (kind, asked) {
        (DOC, "text/plain") | (SHEET, "text/csv") => text.into_bytes(),
        // The smallest PDF a reader opens is beside the point: the bytes say what they are.
        (_, "application/pdf") => format!("%PDF-1.4\n% {text}\n%%EOF\n").into_bytes(),
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "INVALID_ARGUMENT",
                "badRequest",
                "The requested conversion is not supported.",
            );
        }
    };
    ([(header::CONTENT_TYPE, asked.to_string())], bytes).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn drive_query_words_select_by_name_and_type() {
        let doc = json!({"name": "Angebot Muster", "mimeType": DOC});
        assert!(matches(&doc, "name contains 'angebot' and trashed = false"));
        assert!(matches(&doc, &format!("mimeType = '{DOC}'")));
        assert!(!matches(&doc, &format!("mimeType = '{SHEET}'")));
        assert!(!matches(&doc, "name contains 'Rechnung'"));
        assert!(matches(&doc, "modifiedTime > '2026-05-01T00:00:00'"));
    }
}
