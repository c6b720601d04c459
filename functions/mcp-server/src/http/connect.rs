//! The connect pages' edge: `/connect/<connector>` and its two returns map onto the steps of
//! `crate::connect`; this module only turns a step into a redirect or an HTML page. No
//! credentials are asked here (the person signs in at our authorization server); the per-IP
//! limit applies as on `/health`. The browser binding's cookie (`connect::browser`) is read
//! here and set through [`BindBrowser`], the one `Set-Cookie` the edge lets out.

use std::collections::HashMap;

use axum::extract::{Form, Path, Query, State};
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

/// `GET /connections`: "my connections" starts with our sign-in.
pub(super) async fn connections(State(state): State<AppState>) -> Response {
    let Some(connect) = &state.connect else {
        return StatusCode::NOT_FOUND.into_response();
    };
    answer(connect.mine(now_s()).await)
}

/// `GET /connections/signed-in`: the person's connections.
pub(super) async fn connections_signed_in(
    State(state): State<AppState>,
    Query(back): Query<Back>,
    headers: HeaderMap,
) -> Response {
    let Some(connect) = &state.connect else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match connect
        .mine_signed_in(&back, bound_browser(&headers), now_s())
        .await
    {
        Ok(mine) => mine_page(&state, connect, &mine, None).await,
        Err(stop) => answer(stop),
    }
}

/// `POST /connections/disconnect`: a button of the page, from the browser it was made for;
/// the connection goes as the `connections` tool disconnects it, with an audit line (the
/// person's pseudonym, never their name), then the page again.
pub(super) async fn connections_disconnect(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let Some(connect) = &state.connect else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let ticket = form.get("ticket").map(String::as_str);
    let (mine, connector) = match connect
        .mine_button(ticket, bound_browser(&headers), now_s())
        .await
    {
        Ok(found) => found,
        Err(stop) => return answer(stop),
    };
    let started = std::time::Instant::now();
    let caller = person_caller(&state, &mine).await;
    let catalogs = connectable(&state, connect);
    let request = crate::call::ConnectionsRequest::Disconnect(connector.clone());
    let outcome = state
        .mcp
        .pipeline
        .connections(&caller, &request, &catalogs)
        .await;
    let mut event = audit::AuditEvent::new(audit::EventKind::ToolCall)
        .tool(crate::mcp::CONNECTIONS_TOOL)
        .connector(connector)
        .status(outcome.status.as_str())
        .reason(outcome.reason.as_deref().unwrap_or("disconnected_on_page"))
        .duration(started.elapsed());
    if let Some(user) = &caller.user {
        event = event.user(user.clone());
    }
    state.audit.write(&event);
    mine_page(&state, connect, &mine, outcome.hint.as_deref()).await
}

/// The person as a caller of the `connections` tool: their person, and their pseudonym when
/// the deployment has a pepper.
async fn person_caller(state: &AppState, mine: &crate::connect::Mine) -> crate::call::Caller {
    let user = match state.secrets.get().await {
        Ok(s) => s
            .pepper
            .as_deref()
            .map(|p| audit::Pseudonymizer::new(p).pseudonym_of_subject(&mine.subject)),
        Err(_) => None,
    };
    crate::call::Caller {
        key_id: "connections-page".into(),
        user,
        scope: crate::inventory::Scope::Deployment,
        person: Some(mine.person.clone()),
    }
}

/// The connectors a person connects to here.
fn connectable<'a>(
    state: &'a AppState,
    connect: &crate::connect::Connect,
) -> Vec<&'a catalog::Catalog> {
    state
        .inventory
        .registry
        .catalogs
        .iter()
        .map(|d| &d.catalog)
        .filter(|c| connect.connectors.contains_key(c.connector.as_str()))
        .collect()
}

/// The page of `mine`'s connections, `notice` first.
async fn mine_page(
    state: &AppState,
    connect: &crate::connect::Connect,
    mine: &crate::connect::Mine,
    notice: Option<&str>,
) -> Response {
    let connected = match state.mcp.pipeline.connected(&mine.person).await {
        Ok(connected) => connected,
        Err(unavailable) => {
            let page = crate::connect::Page::new(
                503,
                "Please try again",
                unavailable.hint.unwrap_or_default(),
            );
            return answer(Step::Page(page));
        }
    };
    let connectors: Vec<(&str, &str)> = connectable(state, connect)
        .into_iter()
        .map(|c| (c.connector.as_str(), crate::inventory::Registry::title(c)))
        .collect();
    let rows = connect.rows(mine, &connectors, &connected, now_s()).await;
    super::respond::html(
        StatusCode::OK,
        crate::connect::connections_html(&rows, notice),
        super::respond::FORM_CSP,
    )
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
        Step::Page(page) => super::respond::html(
            StatusCode::from_u16(page.status).unwrap_or(StatusCode::OK),
            page.html(),
            super::respond::PAGE_CSP,
        ),
    };
    // Codes and states ride in these URLs: nothing is cached, nothing leaks in a Referer.
    super::respond::no_store_page(&mut response, super::respond::PAGE_CSP);
    response
}
