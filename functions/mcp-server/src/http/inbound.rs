//! `/inbound/<connector>`: the webhooks an upstream pushes (its catalog's `inbound`), without
//! our credentials: the upstream proves itself. `GET` answers the subscription handshake
//! (`hub.mode=subscribe`, `hub.verify_token`, echoing `hub.challenge`); `POST` accepts a body
//! only with its valid signature, takes it apart into events and keeps each once
//! (`crate::inbound`), then answers 200 at once. Refusals: 404 (no such inbound connector),
//! 413 (over the body limit, unread), 401 (no or a wrong signature: nothing stored), 400 (not
//! the declared shape), 503 (no secret, or the store failed: the upstream retries). The per-IP
//! limit of `front` holds a flood from one source to 429. Each `POST` leaves one `inbound`
//! audit line: status, HTTP status, time, events stored and duplicates; no number, no text.

use std::collections::HashMap;
use std::time::Instant;

use axum::body::to_bytes;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catalog::Inbound;

use super::AppState;
use crate::call::RequestMeta;
use crate::clock::now_s;
use crate::inbound::{Accepted, Delivery, Refused, token_matches};

/// The longest challenge echoed (Meta's is a number of a few digits).
const MAX_CHALLENGE: usize = 256;

/// The subscription handshake: the challenge back for the right token, else 403.
pub(super) async fn verify(
    State(state): State<AppState>,
    Path(connector): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let Some(inbound) = declared(&state, &connector) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let Some(expected) = secret(&state, &connector, &inbound.verify_token).await else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let get = |k: &str| query.get(k).map(String::as_str).unwrap_or_default();
    let challenge = get("hub.challenge");
    if get("hub.mode") != "subscribe"
        || !token_matches(&expected, get("hub.verify_token"))
        || challenge.is_empty()
        || challenge.len() > MAX_CHALLENGE
    {
        return StatusCode::FORBIDDEN.into_response();
    }
    let mut response = challenge.to_string().into_response();
    response.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// What came of one webhook body, for its answer and its audit line.
enum Outcome {
    Taken(Accepted),
    /// Over the body limit: refused unread.
    TooLarge,
    /// No signing secret in the deployment secret.
    NoSecret,
    Refused(Refused),
}

impl Outcome {
    /// The answer's status and the audit line's `status` word.
    fn status(&self) -> (StatusCode, &'static str) {
        match self {
            Outcome::Taken(_) => (StatusCode::OK, "ok"),
            Outcome::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
            Outcome::Refused(Refused::Unsigned) => (StatusCode::UNAUTHORIZED, "unauthorized"),
            Outcome::Refused(Refused::Malformed) => (StatusCode::BAD_REQUEST, "malformed"),
            Outcome::NoSecret | Outcome::Refused(Refused::Unavailable) => {
                (StatusCode::SERVICE_UNAVAILABLE, "unavailable")
            }
        }
    }
}

/// A webhook body: read within its limit, handed to `inbound::accept`, answered as soon as its
/// events are kept, with one audit line.
pub(super) async fn accept(
    State(state): State<AppState>,
    Path(connector): Path<String>,
    request: Request,
) -> Response {
    let started = Instant::now();
    let request_id = request
        .extensions()
        .get::<RequestMeta>()
        .map(|m| m.id.clone());
    let Some(inbound) = declared(&state, &connector) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let outcome = take(&state, &connector, inbound, request).await;
    let (status, word) = outcome.status();
    let mut event = audit::AuditEvent::new(audit::EventKind::Inbound)
        .connector(&connector)
        .status(word)
        .http_status(status.as_u16())
        .duration(started.elapsed());
    if let Some(id) = request_id {
        event = event.request_id(id);
    }
    event = match outcome {
        Outcome::Taken(t) => event.inbound(t.stored, t.duplicates),
        _ => event.level(audit::Level::Warn),
    };
    state.audit.write(&event);
    status.into_response()
}

async fn take(state: &AppState, connector: &str, inbound: &Inbound, request: Request) -> Outcome {
    let (parts, body) = request.into_parts();
    let declared_length = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared_length.is_some_and(|n| n > inbound.max_body_bytes) {
        return Outcome::TooLarge;
    }
    let Ok(body) = to_bytes(body, inbound.max_body_bytes).await else {
        return Outcome::TooLarge;
    };
    let Some(secret) = secret(state, connector, &inbound.signing_secret).await else {
        return Outcome::NoSecret;
    };
    let signature = parts
        .headers
        .get(inbound.signature_header.as_str())
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let delivery = Delivery {
        connector,
        secret: &secret,
        signature,
        body: &body,
    };
    match crate::inbound::accept(state.inbound.as_ref(), inbound, delivery, now_s()).await {
        Ok(taken) => Outcome::Taken(taken),
        Err(refused) => Outcome::Refused(refused),
    }
}

/// The connector's `inbound`, if it is served and declares one.
fn declared<'a>(state: &'a AppState, connector: &str) -> Option<&'a Inbound> {
    state
        .inventory
        .registry
        .catalogs
        .iter()
        .find(|c| c.catalog.connector == connector)
        .and_then(|c| c.catalog.inbound.as_deref())
}

/// A secret field of the connector, when the deployment secret has it.
async fn secret(state: &AppState, connector: &str, field: &str) -> Option<String> {
    let values = state.secrets.get().await.ok()?;
    values
        .field(connector, field)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}
