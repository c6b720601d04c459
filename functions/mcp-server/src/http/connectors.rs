//! `/connectors`: the capability pages of the connectors the caller may use (`pages::html`),
//! behind the same authentication as `/mcp`: a profile's key or token sees its profile's
//! connectors and, of each, only the tools the profile allows. Read-only HTML without script;
//! nothing is cached, and no page may frame it.

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::{AppState, auth};
use crate::call::Caller;
use crate::pages;

pub(super) async fn page(State(state): State<AppState>, request: Request) -> Response {
    let request = match auth::authenticate(&state, request).await {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    let Some(caller) = request.extensions().get::<Caller>() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let view = state.inventory.view(&caller.scope);
    let caps: Vec<pages::Capability> = state
        .inventory
        .registry
        .catalogs
        .iter()
        .filter_map(|conn| {
            let c = &conn.catalog;
            let mut cap = pages::capability(c, &format!("{}.yaml", c.connector));
            let profiles = &state.inventory.profiles;
            cap.profiles = profiles
                .names()
                .filter(|p| {
                    c.tools
                        .iter()
                        .any(|t| profiles.allows(Some(p), &c.connector, &t.name))
                })
                .map(str::to_string)
                .collect();
            cap.tools.retain(|t| view.allows(&t.name));
            // A remote MCP server's tools come from the remote: its connector shows where the
            // profile takes all of the connector (`connector/*`).
            let profile = caller.scope.profile();
            let reachable = !cap.tools.is_empty()
                || (c.mcp.is_some() && state.inventory.profiles.allows(profile, &c.connector, "*"));
            reachable.then_some(cap)
        })
        .collect();
    super::respond::html(
        StatusCode::OK,
        pages::html::html(&caps),
        super::respond::PAGE_CSP,
    )
}
