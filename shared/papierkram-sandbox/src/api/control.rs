//! `/__sandbox/*`: the test-control plane. Not part of the upstream API: no token, no quota.

use super::error::ApiError;
use super::list::Params;
use crate::state::{Fault, SandboxState};
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
    let limit = match params.get("limit") {
        None => usize::MAX,
        Some(v) => v
            .parse()
            .map_err(|_| invalid(format!("limit must be a number, got {v:?}")))?,
    };
    Ok(Json(
        json!({ "count": st.request_count(), "requests": st.last_requests(limit) }),
    ))
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
