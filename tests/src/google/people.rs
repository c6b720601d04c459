//! People's contact search of the twin, with Google's warm-up habit: a person's search answers
//! nothing until one search with an empty query has refreshed the cache (Google asks clients
//! to send that first; a real cache may miss contacts for a while instead of all of them).

use std::collections::BTreeMap;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::{Twin, error};

/// Whether a word of the contact's names, addresses, numbers or organisations begins with
/// every word of the query, as Google prefix-matches.
fn matches(person: &Value, query: &str) -> bool {
    let mut words = Vec::new();
    for (list, field) in [
        ("names", "displayName"),
        ("emailAddresses", "value"),
        ("phoneNumbers", "value"),
        ("organizations", "name"),
    ] {
        for entry in person[list].as_array().into_iter().flatten() {
            let text = entry[field].as_str().unwrap_or_default().to_lowercase();
            words.extend(
                text.split([' ', '@', '.'])
                    .map(str::to_string)
                    .chain([text.clone()]),
            );
        }
    }
    query
        .to_lowercase()
        .split_whitespace()
        .all(|q| words.iter().any(|w| w.starts_with(q)))
}

/// `people.searchContacts`: at most `pageSize` (30) contacts as `{results: [{person}]}`;
/// `readMask` is required, as Google requires it.
pub(super) async fn search(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let contacts = [
        "https://www.googleapis.com/auth/contacts.readonly",
        "https://www.googleapis.com/auth/contacts",
    ];
    let who = match twin.caller_with(&headers, &contacts) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    if !query.contains_key("readMask") {
        return error(
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            "badRequest",
            "Request must set readMask.",
        );
    }
    let words = query.get("query").map(String::as_str).unwrap_or_default();
    let size = query
        .get("pageSize")
        .and_then(|n| n.parse().ok())
        .unwrap_or(10usize)
        .clamp(1, 30);
    let warm = {
        let mut inner = twin.lock();
        if words.trim().is_empty() {
            inner.warmed.insert(who.clone());
        }
        inner.warmed.contains(&who)
    };
    if words.trim().is_empty() || !warm {
        return axum::Json(json!({})).into_response();
    }
    let results: Vec<Value> = twin
        .account(&who)
        .contacts
        .into_iter()
        .filter(|p| matches(p, words))
        .take(size)
        .map(|person| json!({ "person": person }))
        .collect();
    axum::Json(json!({ "results": results })).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contact_is_found_by_the_beginnings_of_its_words() {
        let anna = json!({"names": [{"displayName": "Anna Berg"}],
            "emailAddresses": [{"value": "anna.berg@muster.example"}]});
        assert!(matches(&anna, "ann"));
        assert!(matches(&anna, "Anna Berg"));
        assert!(matches(&anna, "muster"));
        assert!(!matches(&anna, "nna"));
        assert!(!matches(&anna, "Anna Schmidt"));
    }
}
