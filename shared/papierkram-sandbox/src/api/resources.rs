//! The read handlers, generic over [`Resource`]; `bindings` says what each resource is. They read
//! the sandbox's current data, so every write shows up in lists, details and filters at once.

use super::error::ApiError;
use super::list::{Filter, Params, respond};
use crate::model::views::PersonDetail;
use crate::model::*;
use crate::state::SandboxState;
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;

type QueryPairs = Result<Query<Vec<(String, String)>>, QueryRejection>;

pub(crate) trait Resource: HasId + Sized + Sync + 'static {
    /// Model name in "Couldn't find …" messages.
    const MODEL: &'static str;
    fn all(d: &DemoData) -> &[Self];
    fn entry(&self) -> impl Serialize + '_;
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a;
    fn filters() -> Vec<Filter<Self>> {
        Vec::new()
    }
}

pub(crate) async fn list<T: Resource>(
    State(st): State<SandboxState>,
    q: QueryPairs,
) -> Result<Response, ApiError> {
    let params = Params::from_query(q)?;
    let d = st.data();
    respond(T::all(&d), |_| true, T::entry, &T::filters(), &params).map(IntoResponse::into_response)
}

pub(crate) async fn show<T: Resource>(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let d = st.data();
    let item = find_by_text::<T>(&d, &id)?;
    Ok(Json(item.detail(&d)).into_response())
}

pub(crate) fn find_by_text<'a, T: Resource>(d: &'a DemoData, id: &str) -> Result<&'a T, ApiError> {
    id.parse::<u64>()
        .ok()
        .and_then(|n| find(T::all(d), n))
        .ok_or_else(|| ApiError::record_not_found(T::MODEL, id))
}

/// `/contact/companies/{company_id}/persons`
pub(crate) async fn persons(
    State(st): State<SandboxState>,
    Path(company): Path<String>,
    q: QueryPairs,
) -> Result<Response, ApiError> {
    let params = Params::from_query(q)?;
    let d = st.data();
    let company = find_by_text::<Company>(&d, &company)?.id;
    respond(&d.persons, |p| p.company_id == company, |p| p, &[], &params)
        .map(IntoResponse::into_response)
}

/// `/contact/companies/{company_id}/persons/{id}`
pub(crate) async fn person(
    State(st): State<SandboxState>,
    Path((company, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let d = st.data();
    let company = find_by_text::<Company>(&d, &company)?;
    let person = find_by_text::<Person>(&d, &id)?;
    if person.company_id != company.id {
        return Err(ApiError::record_not_found("Contact::Person", &id));
    }
    Ok(Json(PersonDetail {
        person,
        company: Some(company),
    })
    .into_response())
}

pub(crate) async fn info() -> Json<serde_json::Value> {
    Json(
        json!({ "api": { "version": "1.0.0" }, "settings": { "custom_templates": { "invoices": [] } } }),
    )
}
