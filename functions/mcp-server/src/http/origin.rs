//! The front door's proof. With `MCP_ORIGIN_VERIFY_HEADER` set (CloudFront in front of the
//! API), every request must carry that header with the deployment secret's `origin_verify`, or
//! `origin_verify_previous` while a new value rolls out: a request that went around the front
//! door (the API's own endpoint) is refused before anything else counts or reads it. The value
//! is compared in constant time and never logged; the refusal does not say what was missing.

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use subtle::ConstantTimeEq;

use super::AppState;
use super::respond;

/// The stage right after the request id: passes a request that proves it came through the
/// front door, answers 403 (audited, reason `origin`) to one that does not.
pub(crate) async fn verify(state: &AppState, headers: &HeaderMap) -> Result<(), Response> {
    let Some(header) = state.config.origin_verify_header.as_deref() else {
        return Ok(());
    };
    let secrets = match state.secrets.get().await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "cannot check the front door's proof: the secret is unreadable");
            return Err(respond::unavailable(
                "The server cannot check requests now; try again shortly.",
            ));
        }
    };
    if secrets.origin_verify.is_empty() {
        tracing::error!(
            "refusing every request: MCP_ORIGIN_VERIFY_HEADER is set but the deployment secret \
             has no origin_verify"
        );
        return Err(respond::unavailable(
            "The server is not configured to accept requests yet; an operator must finish it.",
        ));
    }
    let presented = headers.get(header).map(|v| v.as_bytes());
    if presented.is_some_and(|p| proves(p, &secrets.origin_verify)) {
        return Ok(());
    }
    let mut event = audit::AuditEvent::new(audit::EventKind::AuthDenied);
    event.reason = Some("origin".to_string());
    event.http_status = Some(StatusCode::FORBIDDEN.as_u16());
    state.audit.write(&event);
    Err(respond::error(
        StatusCode::FORBIDDEN,
        "forbidden",
        "Connect through the deployment's published URL.",
    ))
}

/// Whether `presented` equals one of the accepted values; every one is compared, in constant
/// time, so neither which value nor how much of it matched leaks through timing.
fn proves(presented: &[u8], accepted: &[Vec<u8>]) -> bool {
    accepted.iter().fold(false, |found, a| {
        found | bool::from(a.as_slice().ct_eq(presented))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_or_the_previous_value_proves_anything_else_does_not() {
        let accepted = vec![
            b"current-0123456789".to_vec(),
            b"previous-0123456789".to_vec(),
        ];
        assert!(proves(b"current-0123456789", &accepted));
        assert!(proves(b"previous-0123456789", &accepted));
        for wrong in [
            &b""[..],
            b"current-012345678",
            b"current-0123456789x",
            b"CURRENT-0123456789",
        ] {
            assert!(!proves(wrong, &accepted), "{wrong:?}");
        }
        assert!(!proves(b"anything", &[]));
    }
}
