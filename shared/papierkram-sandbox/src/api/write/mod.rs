//! The write endpoints: creates (201 with the record's detail), updates and state changes (200
//! with the detail), deletes and deliveries (204, no body), in the shapes the upstream recordings
//! show. Validation errors answer 422 in the upstream's error envelope, unknown ids 404.
//!
//! Every write runs under the store's write lock, validates everything first and only then
//! changes the data, so a refused write changes nothing and concurrent writes never lose one
//! another.

/// [`Writable`] for a record kept in `DemoData::$all`; a `stamped` one notes `created_at` on
/// create and moves `updated_at` on every change.
macro_rules! writable {
    (@impl $t:ty, $all:ident, { $($stamps:item)* }) => {
        impl super::Writable for $t {
            fn all_mut(d: &mut super::DemoData) -> &mut Vec<Self> {
                &mut d.$all
            }
            fn set_id(&mut self, id: u64) {
                self.id = id;
            }
            $($stamps)*
        }
    };
    ($t:ty, $all:ident) => {
        writable!(@impl $t, $all, {});
    };
    ($t:ty, $all:ident, stamped) => {
        writable!(@impl $t, $all, {
            fn touch(&mut self, now: super::BerlinTime) {
                self.updated_at = now;
            }
            fn created(&mut self, now: super::BerlinTime) {
                self.created_at = now;
            }
        });
    };
}

/// [`Archivable`] for records with a `record_state` field.
macro_rules! archivable {
    ($($t:ty),+) => {
        $(impl super::Archivable for $t {
            fn record_state_mut(&mut self) -> &mut super::RecordState {
                &mut self.record_state
            }
        })+
    };
}

pub(crate) mod contacts;
pub(crate) mod deliver;
pub(crate) mod expense;
mod fields;
pub(crate) mod income;
pub(crate) mod invoices;
pub(crate) mod work;

use super::error::ApiError;
use super::resources::Resource;
use crate::model::ser::BerlinTime;
use crate::model::{DemoData, RecordState, find};
use crate::state::{SandboxState, berlin_now};
use crate::store::{MAX_CREATED_RECORDS, Store};
use axum::Json;
use axum::body::{Body, to_bytes};
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_decimal::Decimal;
use serde_json::{Map, Value};

pub(crate) use fields::{Field, Fields, Required, blank, still_required};

/// Larger request bodies answer 413 before anything runs (and cost no quota).
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Line items an invoice or voucher may carry.
pub const MAX_LINE_ITEMS: usize = 100;
/// Quota a create costs, as the recordings show (`x-consumed-quota: 10`, even when it is refused).
pub const CREATE_QUOTA_COST: u64 = 10;
/// Quota creating an invoice or a voucher costs (`x-consumed-quota: 50` in the recordings).
pub const DOCUMENT_CREATE_QUOTA_COST: u64 = 50;

/// Collections a `POST` creates in, and what that costs. Persons are created under their
/// company: `/api/v1/contact/companies/{id}/persons`.
const CREATES: [(&str, u64); 7] = [
    ("/api/v1/contact/companies", CREATE_QUOTA_COST),
    ("/api/v1/projects", CREATE_QUOTA_COST),
    ("/api/v1/tracker/tasks", CREATE_QUOTA_COST),
    ("/api/v1/tracker/time_entries", CREATE_QUOTA_COST),
    ("/api/v1/income/propositions", CREATE_QUOTA_COST),
    ("/api/v1/income/invoices", DOCUMENT_CREATE_QUOTA_COST),
    ("/api/v1/expense/vouchers", DOCUMENT_CREATE_QUOTA_COST),
];

/// What a request costs from the monthly quota: 1, except creates (see [`CREATE_QUOTA_COST`] and
/// [`DOCUMENT_CREATE_QUOTA_COST`]).
pub fn quota_cost(method: &str, path: &str) -> u64 {
    if !method.eq_ignore_ascii_case("POST") {
        return 1;
    }
    if let Some((_, cost)) = CREATES.iter().find(|(p, _)| *p == path) {
        return *cost;
    }
    let persons = path
        .strip_prefix("/api/v1/contact/companies/")
        .and_then(|rest| rest.strip_suffix("/persons"))
        .is_some_and(|id| !id.is_empty() && !id.contains('/'));
    if persons { CREATE_QUOTA_COST } else { 1 }
}

/// A write body: a JSON object, or nothing (the state changes send `{}` or no body at all).
pub(crate) struct Object(pub Map<String, Value>);

impl Object {
    pub(crate) fn fields(&self) -> Fields<'_> {
        Fields::new(&self.0, "")
    }
}

impl<S: Send + Sync> FromRequest<S> for Object {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let bytes = to_bytes(req.into_body(), MAX_BODY_BYTES)
            .await
            .map_err(|_| too_large())?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Object(Map::new()));
        }
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => Ok(Object(map)),
            Ok(_) => Err(bad_request("The request body must be a JSON object")),
            Err(e) => Err(bad_request(format!(
                "The request body is not valid JSON: {e}"
            ))),
        }
    }
}

fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, message)
}

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("The request body is larger than {MAX_BODY_BYTES} bytes"),
    )
}

/// Reads a whole request body for the guard, refusing one over [`MAX_BODY_BYTES`].
pub(crate) async fn buffer(request: Request) -> Result<(Request, axum::body::Bytes), ApiError> {
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, MAX_BODY_BYTES)
        .await
        .map_err(|_| too_large())?;
    Ok((Request::from_parts(parts, Body::from(bytes.clone())), bytes))
}

/// The record a write touched, left in the response extensions for the write log.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Touched(pub u64);

fn touched(mut response: Response, id: u64) -> Response {
    response.extensions_mut().insert(Touched(id));
    response
}

/// 201 with the created record; `location` is the web-UI path the upstream points at, if any.
fn created(id: u64, location: Option<String>, body: Value) -> Response {
    let mut response = (StatusCode::CREATED, Json(body)).into_response();
    if let Some(value) = location.and_then(|l| HeaderValue::from_str(&l).ok()) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    touched(response, id)
}

/// 200 with the changed record.
pub(crate) fn changed(id: u64, body: Value) -> Response {
    touched(Json(body).into_response(), id)
}

/// 204 without a body (deletes, deliveries).
pub(crate) fn no_content(id: u64) -> Response {
    touched(StatusCode::NO_CONTENT.into_response(), id)
}

/// A rule of the account refused the write (the record is in the wrong state, a reference does
/// not fit, …).
pub(crate) fn refused(message: impl Into<String>) -> ApiError {
    ApiError::unprocessable(message)
}

/// The create cap was reached.
fn full() -> ApiError {
    refused(format!(
        "The sandbox holds at most {MAX_CREATED_RECORDS} records created since the last reset; \
         POST /__sandbox/reset to start over"
    ))
}

/// The index of the record `id` (path text) in `items`, or the upstream's 404.
pub(crate) fn index_of<T: Resource>(items: &[T], id: &str) -> Result<usize, ApiError> {
    id.parse::<u64>()
        .ok()
        .and_then(|n| items.binary_search_by_key(&n, |t| t.id()).ok())
        .ok_or_else(|| ApiError::record_not_found(T::MODEL, id))
}

/// A referenced record (from the body) that must exist; 422 naming the field if it does not.
pub(crate) fn referenced<'a, T: Resource>(
    items: &'a [T],
    field: &str,
    id: u64,
) -> Result<&'a T, ApiError> {
    find(items, id).ok_or_else(|| {
        refused(format!(
            "{field}: Couldn't find {} with 'id'={id}",
            T::MODEL
        ))
    })
}

pub(crate) fn detail_value<T: Resource>(item: &T, d: &DemoData) -> Value {
    serde_json::to_value(item.detail(d)).expect("records serialize")
}

/// A money amount or quantity the wire prints exactly: at most two decimals, at most `max` in
/// size.
pub(crate) fn exact(field: &str, value: Decimal, max: i64) -> Result<Decimal, ApiError> {
    if value.scale() > 2 {
        return Err(refused(format!(
            "{field} may have at most two decimals, got {value}"
        )));
    }
    if value.abs() > Decimal::from(max) {
        return Err(refused(format!(
            "{field} must be at most {max} in size, got {value}"
        )));
    }
    Ok(value)
}

/// A reference the body may set (`{"id": n}`, which must name one of `items`) or clear.
pub(crate) fn optional_reference<T: Resource>(
    f: &Fields<'_>,
    key: &str,
    items: &[T],
) -> Result<Field<u64>, ApiError> {
    let field = f.reference(key)?;
    if let Some(Some(id)) = field {
        referenced(items, key, id)?;
    }
    Ok(field)
}

/// Sets `target` when the field was sent (`null` clears it).
pub(crate) fn assign<T>(target: &mut Option<T>, field: Field<T>) {
    if let Some(value) = field {
        *target = value;
    }
}

/// A record the write endpoints can change in place.
pub(crate) trait Writable: Resource + Clone {
    fn all_mut(d: &mut DemoData) -> &mut Vec<Self>;
    fn set_id(&mut self, id: u64);
    /// Records with timestamps move `updated_at` on every change.
    fn touch(&mut self, _now: BerlinTime) {}
    /// Records with timestamps note when they were created.
    fn created(&mut self, _now: BerlinTime) {}
}

/// How a create's or an update's body changes a record.
pub(crate) type Apply<T> = fn(&Store, &Fields<'_>, &mut T) -> Result<(), ApiError>;

/// A record whose `PUT|PATCH …/{id}` applies the body with nothing else to check; [`update`]
/// serves it.
pub(crate) trait Editable: Writable {
    const APPLY: Apply<Self>;
}

/// A record with `POST …/{id}/archive` and `…/unarchive`.
pub(crate) trait Archivable: Writable {
    fn record_state_mut(&mut self) -> &mut RecordState;
}

/// Adds `record` as a new one once the body can refuse it no more: the create cap, then the next
/// id and the timestamps, `init` for what follows from the id; 201 with the detail at
/// `location`.
pub(crate) fn insert_with<T: Writable>(
    store: &mut Store,
    mut record: T,
    init: impl FnOnce(&mut Store, &mut T),
    location: impl FnOnce(&T) -> Option<String>,
) -> Result<Response, ApiError> {
    if !store.has_room() {
        return Err(full());
    }
    let id = store.new_id(T::MODEL, T::all);
    record.set_id(id);
    let now = berlin_now();
    record.created(now);
    record.touch(now);
    init(store, &mut record);
    let location = location(&record);
    let d = store.data_mut();
    T::all_mut(d).push(record);
    let detail = detail_value(T::all(d).last().expect("just pushed"), d);
    Ok(created(id, location, detail))
}

/// [`insert_with`] for a record nothing more follows for from its id.
pub(crate) fn insert<T: Writable>(
    store: &mut Store,
    record: T,
    location: impl FnOnce(&T) -> Option<String>,
) -> Result<Response, ApiError> {
    insert_with(store, record, |_, _| {}, location)
}

/// Applies `change` to the record `id`, answering 200 with its detail.
pub(crate) fn change<T: Writable>(
    st: &SandboxState,
    id: &str,
    change: impl FnOnce(&Store, &mut T) -> Result<(), ApiError>,
) -> Result<Response, ApiError> {
    change_and(st, id, change, |_, _| {})
}

/// [`change`], then `after` brings records that depend on the changed one in line, in the same
/// write.
pub(crate) fn change_and<T: Writable>(
    st: &SandboxState,
    id: &str,
    change: impl FnOnce(&Store, &mut T) -> Result<(), ApiError>,
    after: impl FnOnce(&mut DemoData, &T),
) -> Result<Response, ApiError> {
    st.write(|store| {
        let i = index_of(T::all(store.data()), id)?;
        let mut record = T::all(store.data())[i].clone();
        change(store, &mut record)?;
        record.touch(berlin_now());
        let id = record.id();
        let d = store.data_mut();
        after(d, &record);
        T::all_mut(d)[i] = record;
        Ok(changed(id, detail_value(&T::all(d)[i], d)))
    })
}

async fn set_record_state<T: Archivable>(
    st: SandboxState,
    id: String,
    state: RecordState,
) -> Result<Response, ApiError> {
    change::<T>(&st, &id, |_, record| {
        *record.record_state_mut() = state;
        Ok(())
    })
}

/// `POST …/{id}/archive` → 200 with `record_state: archived`.
pub(crate) async fn archive<T: Archivable>(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    set_record_state::<T>(st, id, RecordState::Archived).await
}

/// `POST …/{id}/unarchive` → 200 with `record_state: active`.
pub(crate) async fn unarchive<T: Archivable>(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    set_record_state::<T>(st, id, RecordState::Active).await
}

/// `PUT|PATCH …/{id}` → 200 with the changed record's detail.
pub(crate) async fn update<T: Editable>(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    change::<T>(&st, &id, |store, record| (T::APPLY)(store, &f, record))
}

/// Removes the record `id` after `allowed` found nothing against it; 204.
pub(crate) fn remove<T: Writable>(
    st: &SandboxState,
    id: &str,
    allowed: impl FnOnce(&Store, &T) -> Result<(), ApiError>,
) -> Result<Response, ApiError> {
    st.write(|store| {
        let i = index_of(T::all(store.data()), id)?;
        allowed(store, &T::all(store.data())[i])?;
        let removed = T::all_mut(store.data_mut()).remove(i);
        Ok(no_content(removed.id()))
    })
}

/// A record in the way of a delete: `what` names the records that still point at it.
pub(crate) fn in_use(model: &str, what: &str) -> ApiError {
    refused(format!(
        "{model} kann nicht gelöscht werden, solange {what} darauf verweisen"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_cost_what_the_recordings_show() {
        assert_eq!(quota_cost("POST", "/api/v1/contact/companies"), 10);
        assert_eq!(
            quota_cost("POST", "/api/v1/contact/companies/101/persons"),
            10
        );
        assert_eq!(quota_cost("POST", "/api/v1/income/invoices"), 50);
        assert_eq!(quota_cost("POST", "/api/v1/expense/vouchers"), 50);
        assert_eq!(
            quota_cost("POST", "/api/v1/income/invoices/1001/deliver"),
            1
        );
        assert_eq!(quota_cost("PUT", "/api/v1/contact/companies/101"), 1);
        assert_eq!(quota_cost("DELETE", "/api/v1/projects/301"), 1);
        assert_eq!(quota_cost("GET", "/api/v1/income/invoices"), 1);
        assert_eq!(quota_cost("POST", "/api/v1/contact/companies//persons"), 1);
    }
}
