//! The authorization server's edge (`crate::issuer`), beside `/mcp` and never on its path:
//! the RFC 8414 metadata, the key set, registration, the authorization request, the IdP's
//! return, the consent form and the token endpoint. No credentials are asked here; the per-IP
//! limit of `front` applies as everywhere, and registration has its own per-IP hourly cap.
//! Browser answers carry the pages' headers (no store, no referrer, `frame-ancestors 'none'`);
//! JSON answers `Cache-Control: no-store` (RFC 6749 §5.1).

use axum::Json;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::AppState;
use super::connect::BindBrowser;
use crate::call::RequestMeta;
use crate::clock::now_s;
use crate::connect::Back;
use crate::issuer::{Answer, AuthorizeQuery, ConsentForm, browser, registration, settings, token};

fn not_found() -> Response {
    StatusCode::NOT_FOUND.into_response()
}

/// `GET /.well-known/oauth-authorization-server`.
pub(super) async fn metadata(State(state): State<AppState>) -> Response {
    match state.issuer.as_deref() {
        Some(i) => public_json(i.metadata()),
        None => not_found(),
    }
}

/// `GET /oauth/jwks`.
pub(super) async fn jwks(State(state): State<AppState>) -> Response {
    match state.issuer.as_deref() {
        Some(i) => public_json(i.jwks()),
        None => not_found(),
    }
}

/// `POST /oauth/register` (RFC 7591), at most [`settings::REGISTRATIONS_PER_IP_HOUR`] per IP.
pub(super) async fn register(
    State(state): State<AppState>,
    meta: Option<axum::Extension<RequestMeta>>,
    body: axum::body::Bytes,
) -> Response {
    let Some(i) = state.issuer.as_deref() else {
        return not_found();
    };
    let now = now_s();
    let ip = meta.and_then(|m| m.client_ip).map(|ip| ip.to_string());
    if let Err(refused) = admitted(i, ip.as_deref().unwrap_or_default(), now).await {
        return refused;
    }
    let Ok(request) = serde_json::from_slice::<registration::Request>(&body) else {
        let why = "the body is not client metadata (JSON)";
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_client_metadata", why);
    };
    let id = crate::random::hex_or_clock(16);
    let client = match registration::register(request, id, now + settings::UNUSED_CLIENT_TTL_S) {
        Ok(client) => client,
        Err(r) => return oauth_error(StatusCode::BAD_REQUEST, r.error, &r.description),
    };
    if i.store.put_client(&client).await.is_err() {
        return unavailable();
    }
    let answer = Json(registration::answer(&client, now));
    no_store((StatusCode::CREATED, answer).into_response())
}

/// One more registration from `ip` this hour, unless it made too many already.
/// Refused before the body is read as metadata: one counter update per refusal, nothing kept.
async fn admitted(i: &crate::issuer::Issuer, ip: &str, now: u64) -> Result<(), Response> {
    match i.store.note_registration(ip, now - now % 3600).await {
        Ok(n) if n > settings::REGISTRATIONS_PER_IP_HOUR => {
            let limit = settings::REGISTRATIONS_PER_IP_HOUR;
            let why = format!("{limit} registrations per address and hour: try again later");
            let mut refused = oauth_error(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_registrations",
                &why,
            );
            let wait = HeaderValue::from(3600 - now % 3600);
            refused.headers_mut().insert(header::RETRY_AFTER, wait);
            Err(refused)
        }
        Ok(_) => Ok(()),
        Err(_) => Err(unavailable()),
    }
}

fn unavailable() -> Response {
    oauth_error(
        StatusCode::SERVICE_UNAVAILABLE,
        "temporarily_unavailable",
        "try again",
    )
}

/// `GET /oauth/authorize`.
pub(super) async fn authorize(
    State(state): State<AppState>,
    Query(q): Query<AuthorizeQuery>,
) -> Response {
    match state.issuer.as_deref() {
        Some(i) => answer(i.authorize(&q, now_s()).await),
        None => not_found(),
    }
}

/// `GET /oauth/callback`: back from the company IdP.
pub(super) async fn callback(
    State(state): State<AppState>,
    Query(back): Query<Back>,
    headers: HeaderMap,
) -> Response {
    match state.issuer.as_deref() {
        Some(i) => answer(i.signed_in(&back, bound(&headers), now_s()).await),
        None => not_found(),
    }
}

/// `POST /oauth/consent`.
pub(super) async fn consent(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<ConsentForm>,
) -> Response {
    match state.issuer.as_deref() {
        Some(i) => answer(i.decide(&form, bound(&headers), now_s()).await),
        None => not_found(),
    }
}

/// `POST /oauth/token`.
pub(super) async fn token(
    State(state): State<AppState>,
    Form(form): Form<token::TokenForm>,
) -> Response {
    let Some(i) = state.issuer.as_deref() else {
        return not_found();
    };
    match i.token(&form, now_s()).await {
        Ok(answer) => no_store(Json(answer).into_response()),
        Err(r) if r.unavailable => {
            oauth_error(StatusCode::SERVICE_UNAVAILABLE, r.error, r.description)
        }
        Err(r) => oauth_error(StatusCode::BAD_REQUEST, r.error, r.description),
    }
}

/// `POST /oauth/revoke` (RFC 7009): 200 whether or not the token was one of ours.
pub(super) async fn revoke(
    State(state): State<AppState>,
    Form(form): Form<token::Revocation>,
) -> Response {
    let Some(i) = state.issuer.as_deref() else {
        return not_found();
    };
    match i.revoke(&form).await {
        Ok(()) => no_store(StatusCode::OK.into_response()),
        Err(r) if r.unavailable => {
            oauth_error(StatusCode::SERVICE_UNAVAILABLE, r.error, r.description)
        }
        Err(r) => oauth_error(StatusCode::BAD_REQUEST, r.error, r.description),
    }
}

fn bound(headers: &HeaderMap) -> Option<&str> {
    browser::from_cookies(
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok()),
    )
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    let body: Value = json!({ "error": error, "error_description": description });
    no_store((status, Json(body)).into_response())
}

fn no_store(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Metadata and keys: public, cacheable, readable from browsers.
fn public_json(value: Value) -> Response {
    let mut response = Json(value).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=300"),
    );
    response
}

fn redirect(url: &str) -> Response {
    match HeaderValue::from_str(url) {
        Ok(location) => (StatusCode::FOUND, [(header::LOCATION, location)]).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

fn answer(step: Answer) -> Response {
    use super::respond::{FORM_CSP, PAGE_CSP, html, no_store_page};
    let mut response = match step {
        Answer::Redirect(url) => redirect(&url),
        Answer::Bind { to, cookie } => match HeaderValue::from_str(&cookie) {
            Ok(cookie) => {
                let mut response = redirect(&to);
                response.extensions_mut().insert(BindBrowser(cookie));
                response
            }
            Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        },
        Answer::Page(page) => html(
            StatusCode::from_u16(page.status).unwrap_or(StatusCode::OK),
            page.html(),
            PAGE_CSP,
        ),
        Answer::Consent(page) => return html(StatusCode::OK, page, FORM_CSP),
    };
    // Codes and states ride in these URLs: nothing cached, nothing leaked in a Referer.
    no_store_page(&mut response, PAGE_CSP);
    response
}
