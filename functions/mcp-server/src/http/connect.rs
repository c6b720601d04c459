//! The connect pages' edge: `/connect/<connector>` and its two returns map onto the steps of
//! `crate::connect`; this module only turns a step into a redirect or an HTML page. No
//! credentials are asked here (the person signs in at our authorization server); the per-IP
//! limit applies as on `/health`. The browser binding's cookie (`connect::browser`) is read
//! here and set through [`BindBrowser`], the one `Set-Cookie` the edge lets out.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use crate::clock::now_s;
use crate::connect::{Back, Step, browser};

pub(super) async fn start(
    State(state): State<AppState>,
    Path(connector): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let Some(connect) = &state.connect else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let link = query.get("for").map(String::as_str);
    answer(connect.start(&connector, link, now_s()).await)
}

pub(super) async fn signed_in(
    State(state): State<AppState>,
    Path(connector): Path<String>,
    Query(back): Query<Back>,
    headers: HeaderMap,
) -> Response {
    let Some(connect) = &state.connect else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let browser = bound_browser(&headers);
    answer(connect.signed_in(&connector, &back, browser, now_s()).await)
}

pub(super) async fn callback(
    State(state): State<AppState>,
    Path(connector): Path<String>,
    Query(back): Query<Back>,
    headers: HeaderMap,
) -> Response {
    let Some(connect) = &state.connect else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let browser = bound_browser(&headers);
    answer(connect.callback(&connector, &back, browser, now_s()).await)
}

/// The `Set-Cookie` of a connect answer, kept in the response's extensions: the edge's front
/// removes every other `Set-Cookie` and adds this one back.
#[derive(Clone)]
pub(super) struct BindBrowser(pub(super) HeaderValue);

/// The binding secret the browser sent, if any.
fn bound_browser(headers: &HeaderMap) -> Option<&str> {
    browser::from_cookies(
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok()),
    )
}

fn redirect(url: &str) -> Response {
    match HeaderValue::from_str(url) {
        Ok(location) => (StatusCode::FOUND, [(header::LOCATION, location)]).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

fn answer(step: Step) -> Response {
    let mut response = match step {
        Step::Redirect(url) => redirect(&url),
        Step::Bind { to, cookie } => match HeaderValue::from_str(&cookie) {
            Ok(cookie) => {
                let mut response = redirect(&to);
                response.extensions_mut().insert(BindBrowser(cookie));
                response
            }
            Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        },
        Step::Page(page) => (
            StatusCode::from_u16(page.status).unwrap_or(StatusCode::OK),
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            )],
            page.html(),
        )
            .into_response(),
    };
    let headers = response.headers_mut();
    // Codes and states ride in these URLs: nothing is cached, nothing leaks in a Referer.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'"),
    );
    response
}
