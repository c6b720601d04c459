//! Authentication, run before any MCP parsing: an API key or an OAuth access token in
//! `Authorization: Bearer …` becomes the [`Caller`]; anything else is refused with a challenge
//! saying how to get in. With OAuth on, a bearer value shaped like a JWT goes to the token check
//! (`token`), any other to the key check (`key`). Neither the key nor the token is ever logged.

pub(crate) mod key;
pub(crate) mod token;

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use crate::call::Caller;
use crate::config::profiles::ScopeError;
use crate::inventory::Scope;
use crate::oauth::{self, Settings, TokenError, discovery};

/// Why a request gets no caller.
#[derive(Debug)]
pub(crate) enum Denied {
    /// No `Authorization: Bearer …` at all.
    Missing,
    /// An API key no stored hash matches (or keys are off).
    InvalidKey,
    /// An access token that fails its check.
    Token(TokenError),
    /// A valid key or token that may not use this path.
    Scope(ScopeError),
    /// A valid token whose grants do not open this path.
    InsufficientScope,
    /// The deployment cannot check credentials now (secret or signing keys missing).
    Unavailable(String),
}

/// The request with its [`Caller`], or the 401/403/404/503 that refuses it.
pub(crate) async fn authenticate(
    state: &AppState,
    mut request: Request,
) -> Result<Request, Response> {
    let path = path_profile(request.uri().path());
    if let Some(p) = path.as_deref()
        && !state.inventory.profiles.exists(p)
    {
        return Err(refusal(
            state,
            path.as_deref(),
            Denied::Scope(state.inventory.profiles.no_such(p)),
        ));
    }
    match caller(state, request.headers(), path.as_deref()).await {
        Ok(caller) => {
            request.extensions_mut().insert(caller);
            Ok(request)
        }
        Err(denied) => Err(refusal(state, path.as_deref(), denied)),
    }
}

async fn caller(
    state: &AppState,
    headers: &HeaderMap,
    path: Option<&str>,
) -> Result<Caller, Denied> {
    if state.insecure_no_auth {
        return Ok(Caller {
            key_id: connector::secret::NO_AUTH_KEY_ID.into(),
            user: None,
            scope: path.map_or(Scope::Deployment, |p| Scope::Profile(p.into())),
            person: None,
        });
    }
    let secrets = state.secrets.get().await.map_err(|e| {
        tracing::error!(error = %e, "refusing requests: no deployment secret");
        Denied::Unavailable(
            "The server cannot load its deployment secret, so it cannot check credentials. \
             The reason is in the server log; an operator must fix the secret."
                .into(),
        )
    })?;
    let presented = bearer(headers).ok_or(Denied::Missing)?;
    match &state.oauth {
        Some(verifier) if oauth::looks_like_jwt(presented) => {
            token::caller(verifier, presented, path, &secrets).await
        }
        _ if state.config.api_keys => key::caller(state, &secrets, presented, headers, path),
        _ => Err(Denied::InvalidKey),
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The profile named by `/mcp/<profile>`.
fn path_profile(path: &str) -> Option<String> {
    path.strip_prefix("/mcp/")
        .filter(|n| !n.is_empty())
        .map(|n| audit::bounded(n, 64))
}

/// The answer to a refused request, audited (never with the credential).
fn refusal(state: &AppState, path: Option<&str>, denied: Denied) -> Response {
    let settings = state.oauth.as_ref().map(|v| v.settings());
    let (status, reason, message, challenge) = match &denied {
        Denied::Missing | Denied::InvalidKey => {
            let missing = matches!(denied, Denied::Missing);
            let (reason, message, challenge) = without_credentials(settings, path, missing);
            (StatusCode::UNAUTHORIZED, reason, message, Some(challenge))
        }
        Denied::Token(TokenError::Keys(e)) => {
            (StatusCode::SERVICE_UNAVAILABLE, "keys_unavailable", format!("{e}; try again shortly."), None)
        }
        Denied::Token(e) => (
            StatusCode::UNAUTHORIZED,
            e.reason(),
            format!("The access token is refused: {e}. Sign in again."),
            settings.map(|s| discovery::unauthorized(s, path, Some(&e.to_string()))),
        ),
        Denied::InsufficientScope => (
            StatusCode::FORBIDDEN,
            "insufficient_scope",
            match path {
                Some(p) => format!("This sign-in does not open the profile `{p}`: ask for the scope named in WWW-Authenticate."),
                None => "This sign-in does not open every tool: ask for the scope named in WWW-Authenticate, or connect to /mcp/<profile>.".into(),
            },
            settings.map(|s| discovery::insufficient_scope(s, path)),
        ),
        Denied::Scope(e) => {
            let (status, code) = match e {
                ScopeError::NoSuchProfile(..) => (StatusCode::NOT_FOUND, "not_found"),
                ScopeError::KeyLimitedTo(_) | ScopeError::Unmapped => {
                    (StatusCode::FORBIDDEN, "forbidden")
                }
            };
            return super::respond::error(status, code, &e.to_string());
        }
        Denied::Unavailable(message) => {
            return super::respond::unavailable(message);
        }
    };
    let mut event = audit::AuditEvent::new(audit::EventKind::AuthDenied);
    event.reason = Some(reason.to_string());
    event.http_status = Some(status.as_u16());
    state.audit.write(&event);
    refused(settings, path, status, message, challenge)
}

/// No credentials, or a bearer value that is neither a key we know nor a token: the reason,
/// what to do (signing in with OAuth where it is on) and the challenge.
fn without_credentials(
    settings: Option<&Settings>,
    path: Option<&str>,
    missing: bool,
) -> (&'static str, String, String) {
    let reason = if missing {
        "missing_credentials"
    } else {
        "invalid_key"
    };
    let (message, challenge) = match (settings, missing) {
        (Some(s), true) => (
            "No credentials were sent. Sign in with OAuth (the authorization server is \
             named in the resource metadata), or send `Authorization: Bearer <API key>`."
                .to_string(),
            discovery::unauthorized(s, path, None),
        ),
        (Some(s), false) => (
            "The bearer value is neither an API key this server knows nor an OAuth \
             access token (mistyped, revoked, or for another server). Sign in with \
             OAuth, or check the key with the operator."
                .to_string(),
            discovery::unauthorized(s, path, None),
        ),
        // RFC 6750 §3.1: a request without credentials gets no error code.
        (None, true) => (
            "No credentials were sent. Send `Authorization: Bearer <API key>`; ask the \
             operator for a key."
                .into(),
            r#"Bearer realm="hosted-mcp""#.to_string(),
        ),
        (None, false) => (
            "The API key is not valid here (mistyped, revoked, or for another \
             deployment). Check it, or ask the operator for a new one."
                .into(),
            r#"Bearer realm="hosted-mcp", error="invalid_token""#.to_string(),
        ),
    };
    (reason, message, challenge)
}

/// The refusal's response: the message and, with OAuth on, the challenge again in the body
/// (some front doors rename the header); the connection closed, as its body was not read.
fn refused(
    settings: Option<&Settings>,
    path: Option<&str>,
    status: StatusCode,
    message: String,
    challenge: Option<String>,
) -> Response {
    let mut body = serde_json::json!({
        "error": match status {
            StatusCode::UNAUTHORIZED => "unauthorized",
            StatusCode::FORBIDDEN => "insufficient_scope",
            _ => "unavailable",
        },
        "message": message,
    });
    if let Some(s) = settings {
        body["resource_metadata"] = discovery::metadata_url(s, path).into();
        if let Some(c) = &challenge {
            body["www_authenticate"] = c.as_str().into();
        }
    }
    let mut response = (status, axum::Json(body)).into_response();
    if let Some(value) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    // The request body was not read: the connection cannot carry another request, so say so
    // (a client reusing it would see it closed under its next request, e.g. the metadata GET).
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_scheme_is_case_insensitive_and_needs_a_token() {
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer abc"),
        );
        assert_eq!(bearer(&h), Some("abc"));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&h), None);
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&h), None);
    }
}
