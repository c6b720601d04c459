//! `/__sandbox/*`: the test-control plane. Not part of the upstream API: no token, no quota.

use super::error::ApiError;
use super::list::Params;
use crate::fault::Fault;
use crate::state::SandboxState;
use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Router, response::IntoResponse};
use serde::Deserialize;
use serde_json::{Value, json};

pub(crate) const PREFIX: &str = "/__sandbox/";

pub(crate) fn routes() -> Router<SandboxState> {
    Router::new()
        .route("/__sandbox/faults", get(list_faults).post(add_fault))
        .route("/__sandbox/reset", post(reset))
        .route("/__sandbox/requests", get(requests))
        .route("/__sandbox/writes", get(writes))
        .route("/__sandbox/outbox", get(outbox))
        .route("/__sandbox/quota", get(quota).post(set_quota))
}

fn invalid(e: impl std::fmt::Display) -> ApiError {
    ApiError::unprocessable(e.to_string())
}

async fn add_fault(
    State(st): State<SandboxState>,
    body: Result<Json<Fault>, JsonRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let Json(fault) = body.map_err(|e| invalid(e.body_text()))?;
    st.inject_fault(fault);
    Ok((StatusCode::CREATED, Json(json!({ "faults": st.faults() }))))
}

async fn list_faults(State(st): State<SandboxState>) -> Json<Value> {
    Json(json!({ "faults": st.faults() }))
}

/// Quota, faults, logs, outbox and the data back to the start.
async fn reset(State(st): State<SandboxState>) -> Json<Value> {
    st.reset();
    Json(json!({ "quota": st.quota() }))
}

/// `?limit=N` (default: everything kept) → `{count, requests: [{method, path, query}]}`.
async fn requests(
    State(st): State<SandboxState>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let params = Params::from_query(q)?;
    let limit = limit(&params)?;
    Ok(Json(
        json!({ "count": st.request_count(), "requests": st.last_requests(limit) }),
    ))
}

fn limit(params: &Params) -> Result<usize, ApiError> {
    match params.get("limit") {
        None => Ok(usize::MAX),
        Some(v) => v
            .parse()
            .map_err(|_| invalid(format!("limit must be a number, got {v:?}"))),
    }
}

/// `?method=POST&path_prefix=/api/v1/income&limit=N` (all optional) →
/// `{total, count, writes: [{seq, method, path, query, status, at, body_bytes, body_digest, body,
/// record_id, answer_delay_ms}]}`: `total` counts every write since the last reset, `count` the
/// lines matching the filters, `writes` the last `limit` of those, oldest first.
async fn writes(
    State(st): State<SandboxState>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let params = Params::from_query(q)?;
    let limit = limit(&params)?;
    let method = params.get("method");
    let prefix = params.get("path_prefix").unwrap_or("");
    let matching: Vec<_> = st
        .writes()
        .into_iter()
        .filter(|w| method.is_none_or(|m| w.method.eq_ignore_ascii_case(m)))
        .filter(|w| w.path.starts_with(prefix))
        .collect();
    let skip = matching.len().saturating_sub(limit);
    Ok(Json(json!({
        "total": st.write_count(),
        "count": matching.len(),
        "writes": &matching[skip..],
    })))
}

/// `{count, mails: [{seq, invoice_id, invoice_no, recipient, subject, body, sent_at}]}`.
async fn outbox(State(st): State<SandboxState>) -> Json<Value> {
    let mails = st.outbox();
    Json(json!({ "count": mails.len(), "mails": mails }))
}

async fn quota(State(st): State<SandboxState>) -> Json<Value> {
    Json(json!(st.quota()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetQuota {
    remaining: u64,
}

/// `{"remaining": N}`: pretend the month is already used up but N requests.
async fn set_quota(
    State(st): State<SandboxState>,
    body: Result<Json<SetQuota>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(SetQuota { remaining }) = body.map_err(|e| invalid(e.body_text()))?;
    st.set_quota_remaining(remaining);
    Ok(Json(json!(st.quota())))
}
