//! The calendar of the Graph twin: calendarView in a period, one event, calendars, and
//! findMeetingTimes; every time in the zone `Prefer: outlook.timezone` names, else UTC.

use std::collections::BTreeMap;

use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::{Value, json};

use super::{Person, Twin, error, not_found, page, preference};

/// A stored time (`{dateTime, timeZone: "UTC"}`) as a moment.
fn moment(time: &Value) -> Option<Timestamp> {
    let civil: jiff::civil::DateTime = time["dateTime"].as_str()?.parse().ok()?;
    civil.to_zoned(TimeZone::UTC).ok().map(|z| z.timestamp())
}

/// A moment as Graph writes it in `zone`.
fn written(at: Timestamp, zone: &str) -> Value {
    let tz = TimeZone::get(zone).unwrap_or(TimeZone::UTC);
    let local = at
        .to_zoned(tz)
        .strftime("%Y-%m-%dT%H:%M:%S.0000000")
        .to_string();
    json!({"dateTime": local, "timeZone": zone})
}

/// The zone a request asks for (its `Prefer`, else UTC), as an extractor: an unknown zone is
/// Graph's 400.
pub(super) struct Zone(String);

impl FromRequestParts<Twin> for Zone {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &Twin) -> Result<Zone, Response> {
        let zone = preference(&parts.headers, "outlook.timezone").unwrap_or_else(|| "UTC".into());
        match TimeZone::get(&zone) {
            Ok(_) => Ok(Zone(zone)),
            Err(_) => Err(error(
                StatusCode::BAD_REQUEST,
                "ErrorTimeZoneNotSupported",
                "Time zone is not supported.",
            )),
        }
    }
}

/// An event with its start and end written in `zone`.
fn in_zone(mut event: Value, zone: &str) -> Value {
    for key in ["start", "end"] {
        if let Some(at) = moment(&event[key]) {
            event[key] = written(at, zone);
        }
    }
    event
}

fn overlaps(event: &Value, from: Timestamp, to: Timestamp) -> bool {
    matches!((moment(&event["start"]), moment(&event["end"])), (Some(s), Some(e)) if s < to && e > from)
}

pub(super) async fn view(
    State(twin): State<Twin>,
    Person(who): Person,
    Zone(zone): Zone,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let bound = |k: &str| query.get(k)?.parse::<Timestamp>().ok();
    let (Some(from), Some(to)) = (bound("startDateTime"), bound("endDateTime")) else {
        let message = "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.";
        return error(StatusCode::BAD_REQUEST, "ErrorInvalidParameter", message);
    };
    let items = twin
        .account(&who)
        .events
        .into_iter()
        .filter(|e| overlaps(e, from, to))
        .map(|e| in_zone(e, &zone))
        .collect();
    axum::Json(page(&twin, "/me/calendarView", items, &query)).into_response()
}

pub(super) async fn event(
    State(twin): State<Twin>,
    Person(who): Person,
    Zone(zone): Zone,
    Path(id): Path<String>,
) -> Response {
    match twin
        .account(&who)
        .events
        .into_iter()
        .find(|e| e["id"] == id.as_str())
    {
        Some(event) => axum::Json(in_zone(event, &zone)).into_response(),
        None => not_found(),
    }
}

pub(super) async fn calendars(
    State(twin): State<Twin>,
    Person(who): Person,
    Query(query): Query<BTreeMap<String, String>>,
) -> Response {
    let items = vec![
        json!({"id": "calendar-id", "name": "Calendar", "isDefaultCalendar": true,
        "canEdit": true, "color": "auto", "owner": {"address": format!("{who}@muster.example")}}),
    ];
    axum::Json(page(&twin, "/me/calendars", items, &query)).into_response()
}

/// `findMeetingTimes`: up to five slots of the meeting's length, on the half hour within the
/// period, when neither the person nor an attendee (`<subject>@muster.example`) has an event.
pub(super) async fn meeting_times(
    State(twin): State<Twin>,
    Person(who): Person,
    Zone(zone): Zone,
    axum::Json(ask): axum::Json<Value>,
) -> Response {
    let slot = &ask["timeConstraint"]["timeSlots"][0];
    let bound = |k: &str| slot[k]["dateTime"].as_str()?.parse::<Timestamp>().ok();
    let minutes = match ask["meetingDuration"].as_str() {
        Some("PT30M") => 30,
        Some("PT1H") => 60,
        Some("PT90M") => 90,
        Some("PT2H") => 120,
        _ => 0,
    };
    let (Some(from), Some(to), true) = (bound("start"), bound("end"), minutes > 0) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ErrorInvalidRequest",
            "The request is invalid.",
        );
    };
    let mut people = vec![who];
    for a in ask["attendees"].as_array().into_iter().flatten() {
        let address = a["emailAddress"]["address"].as_str().unwrap_or_default();
        people.push(address.split('@').next().unwrap_or_default().to_string());
    }
    let busy: Vec<Value> = people.iter().flat_map(|p| twin.account(p).events).collect();
    let length = jiff::SignedDuration::from_mins(minutes);
    let step = jiff::SignedDuration::from_mins(30);
    let mut suggestions = Vec::new();
    let mut start = from;
    while suggestions.len() < 5 && start + length <= to {
        let end = start + length;
        if !busy.iter().any(|e| overlaps(e, start, end)) {
            suggestions.push(json!({"confidence": 100.0, "organizerAvailability": "free",
                "meetingTimeSlot": {"start": written(start, &zone), "end": written(end, &zone)}}));
        }
        start += step;
    }
    let reason = if suggestions.is_empty() {
        "attendeesUnavailable"
    } else {
        ""
    };
    axum::Json(json!({"meetingTimeSuggestions": suggestions, "emptySuggestionsReason": reason}))
        .into_response()
}
