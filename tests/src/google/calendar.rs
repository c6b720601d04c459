//! Google Calendar's endpoints of the twin: events, one event, free/busy, the calendar list.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::{Twin, error, page};

pub(super) async fn events(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Path(calendar): Path<String>,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let who = match twin.caller(&headers) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    if calendar != "primary" {
        return error(StatusCode::NOT_FOUND, "NOT_FOUND", "notFound", "Not Found");
    }
    let moment = |k: &str| query.get(k)?.parse::<jiff::Timestamp>().ok();
    let (Some(from), Some(to), Some(_)) =
        (moment("timeMin"), moment("timeMax"), query.get("timeZone"))
    else {
        return error(
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            "badRequest",
            "Bad time bounds.",
        );
    };
    // Events that overlap the period, as Google answers them.
    let within = |e: &Value| {
        let at = |k: &str| e[k]["dateTime"].as_str()?.parse::<jiff::Timestamp>().ok();
        matches!((at("start"), at("end")), (Some(s), Some(end)) if s < to && end > from)
    };
    let items = twin
        .account(&who)
        .events
        .into_iter()
        .filter(within)
        .collect();
    let mut body = page(items, "items", &query, 2500);
    body["timeZone"] = json!(query["timeZone"]);
    axum::Json(body).into_response()
}

/// `freebusy.query`: the busy stretches of `primary` (the caller) and of colleagues by address
/// (`<subject>@muster.example`), without titles.
pub(super) async fn free_busy(
    State(twin): State<Twin>,
    headers: HeaderMap,
    axum::Json(query): axum::Json<Value>,
) -> Response {
    let who = match twin.caller(&headers) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    if query["timeMin"].as_str().is_none() || query["timeZone"].as_str().is_none() {
        return error(
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            "badRequest",
            "Missing timeMin.",
        );
    }
    let mut calendars = serde_json::Map::new();
    for item in query["items"].as_array().into_iter().flatten() {
        let id = item["id"].as_str().unwrap_or_default();
        let owner = if id == "primary" {
            who.clone()
        } else {
            id.split('@').next().unwrap_or_default().to_string()
        };
        let busy: Vec<Value> = twin
            .account(&owner)
            .events
            .iter()
            .map(|e| json!({"start": e["start"]["dateTime"], "end": e["end"]["dateTime"]}))
            .collect();
        calendars.insert(id.to_string(), json!({"busy": busy}));
    }
    axum::Json(
        json!({"kind": "calendar#freeBusy", "timeMin": query["timeMin"],
        "timeMax": query["timeMax"], "calendars": calendars}),
    )
    .into_response()
}

/// `events.get`, or Google's 404.
pub(super) async fn event(
    State(twin): State<Twin>,
    headers: HeaderMap,
    Path((calendar, id)): Path<(String, String)>,
) -> Response {
    let who = match twin.caller(&headers) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    let found = twin
        .account(&who)
        .events
        .into_iter()
        .find(|e| e["id"] == id.as_str());
    match found {
        Some(event) if calendar == "primary" => axum::Json(event).into_response(),
        _ => error(StatusCode::NOT_FOUND, "NOT_FOUND", "notFound", "Not Found"),
    }
}

/// `calendarList.list`: the person's primary calendar.
pub(super) async fn calendar_list(State(twin): State<Twin>, headers: HeaderMap) -> Response {
    let who = match twin.caller(&headers) {
        Ok(who) => who,
        Err(refused) => return refused,
    };
    axum::Json(
        json!({"items": [{"id": format!("{who}@muster.example"), "summary": who,
        "timeZone": "Europe/Berlin", "primary": true, "accessRole": "owner"}]}),
    )
    .into_response()
}
