//! Bearer API-key authentication, run before any MCP parsing.
//!
//! Keys are kept only as SHA-256 hashes; the presented key is hashed and compared against every
//! stored hash in constant time, so neither a match position nor a prefix leaks through timing.
//! The key's id, never the key, goes to the audit log.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::AppState;
use crate::call::Caller;
use crate::inventory::Scope;
use crate::inventory::profiles::ScopeError;
use crate::inventory::secrets::ApiKey;

/// The header some gateways use to pass the end user's identity.
pub const USER_EMAIL_HEADER: &str = "x-user-email";

/// Returns the id of the key that matches `presented`, if any.
pub fn verify(keys: &[ApiKey], presented: &str) -> Option<String> {
    let hash: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
    let mut found = None;
    for key in keys {
        // No early exit: every key is compared.
        if bool::from(key.hash.ct_eq(&hash)) {
            found = Some(key.id.clone());
        }
    }
    found
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Axum middleware: 401 unless a valid key is presented; 503 while the secret is unavailable;
/// 403/404 when the key may not use this path's profile. Sets the [`Caller`].
pub async fn require_key(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = path_profile(request.uri().path());
    if state.insecure_no_auth {
        let scope = match path {
            Some(p) if state.inventory.profiles.exists(&p) => Scope::Profile(p),
            Some(p) => return refused(&ScopeError::NoSuchProfile(p)),
            None => Scope::Deployment,
        };
        request.extensions_mut().insert(Caller {
            key_id: "insecure-no-auth".into(),
            user: None,
            scope,
        });
        return next.run(request).await;
    }
    let secrets = match state.secrets.get().await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "refusing requests: no deployment secret");
            return super::respond::unavailable(
                "The server cannot load its deployment secret, so it cannot check API keys. \
                 The reason is in the server log; an operator must fix the secret.",
            );
        }
    };
    let Some(presented) = bearer(request.headers()) else {
        return deny(&state, "missing_key");
    };
    let Some(key_id) = verify(&secrets.api_keys, presented) else {
        return deny(&state, "invalid_key");
    };
    let scope = match state.inventory.profiles.scope_for(&key_id, path.as_deref()) {
        Ok(scope) => scope,
        Err(e) => return refused(&e),
    };
    let user = request
        .headers()
        .get(USER_EMAIL_HEADER)
        .and_then(|v| v.to_str().ok())
        .zip(secrets.pepper.as_deref())
        .map(|(email, pepper)| audit::Pseudonymizer::new(pepper).pseudonym(email));
    request.extensions_mut().insert(Caller {
        key_id,
        user,
        scope,
    });
    next.run(request).await
}

/// The profile named by `/mcp/<profile>`.
fn path_profile(path: &str) -> Option<String> {
    path.strip_prefix("/mcp/")
        .filter(|n| !n.is_empty())
        .map(|n| audit::bounded(n, 64))
}

fn refused(e: &ScopeError) -> Response {
    let (status, code) = match e {
        ScopeError::NoSuchProfile(_) => (StatusCode::NOT_FOUND, "not_found"),
        ScopeError::KeyLimitedTo(_) | ScopeError::Unmapped => (StatusCode::FORBIDDEN, "forbidden"),
    };
    super::respond::error(status, code, &e.to_string())
}

fn deny(state: &AppState, reason: &str) -> Response {
    let mut event = audit::AuditEvent::new(audit::EventKind::AuthDenied);
    event.reason = Some(reason.to_string());
    event.http_status = Some(401);
    state.audit.write(&event);
    let body = serde_json::json!({
        "error": "unauthorized",
        "message": "Send `Authorization: Bearer <API key>`; ask the operator for a key.",
    });
    let mut response = (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(r#"Bearer realm="hosted-mcp", error="invalid_token""#),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_key_returns_its_id_only() {
        let keys = vec![
            ApiKey::new("a", "key-aaaaaaaaaaaaaaaa"),
            ApiKey::new("b", "key-bbbbbbbbbbbbbbbb"),
        ];
        assert_eq!(verify(&keys, "key-bbbbbbbbbbbbbbbb").as_deref(), Some("b"));
        assert_eq!(verify(&keys, "key-bbbbbbbbbbbbbbb"), None);
        assert_eq!(verify(&[], "anything"), None);
    }

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
