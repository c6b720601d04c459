//! PKCE as the authorization server checks it (RFC 7636, OAuth 2.1): S256 only (`plain` and a
//! missing challenge are refused at the authorization request), and the verifier's shape
//! checked before its hash is compared in constant time.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Why an authorization request's PKCE is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PkceError {
    #[error("code_challenge is required (PKCE with S256)")]
    Missing,
    #[error("code_challenge_method must be S256")]
    Method,
    #[error("code_challenge is not a base64url SHA-256 (43 characters)")]
    Shape,
}

/// The challenge of an authorization request, if it is S256 and well formed.
pub(crate) fn challenge(
    challenge: Option<&str>,
    method: Option<&str>,
) -> Result<String, PkceError> {
    let challenge = challenge
        .filter(|c| !c.is_empty())
        .ok_or(PkceError::Missing)?;
    // RFC 7636 defaults a missing method to `plain`: refused like `plain` itself.
    if method != Some("S256") {
        return Err(PkceError::Method);
    }
    let decodes = URL_SAFE_NO_PAD
        .decode(challenge)
        .is_ok_and(|b| b.len() == 32);
    if challenge.len() != 43 || !decodes {
        return Err(PkceError::Shape);
    }
    Ok(challenge.to_string())
}

/// Whether `verifier` (43 to 128 unreserved characters) hashes to `challenge`.
pub(crate) fn verifies(verifier: &str, challenge: &str) -> bool {
    let shaped = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    shaped && bool::from(computed.as_bytes().ct_eq(challenge.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 7636, appendix B.
    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    #[test]
    fn only_a_well_formed_s256_challenge_is_taken() {
        assert_eq!(challenge(Some(CHALLENGE), Some("S256")).unwrap(), CHALLENGE);
        assert_eq!(challenge(None, Some("S256")), Err(PkceError::Missing));
        assert_eq!(challenge(Some(""), Some("S256")), Err(PkceError::Missing));
        assert_eq!(
            challenge(Some(CHALLENGE), Some("plain")),
            Err(PkceError::Method)
        );
        assert_eq!(challenge(Some(CHALLENGE), None), Err(PkceError::Method));
        assert_eq!(
            challenge(Some("short"), Some("S256")),
            Err(PkceError::Shape)
        );
    }

    #[test]
    fn the_verifier_must_hash_to_the_challenge_and_be_well_formed() {
        assert!(verifies(VERIFIER, CHALLENGE));
        assert!(!verifies(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXK",
            CHALLENGE
        ));
        assert!(
            !verifies(CHALLENGE, CHALLENGE),
            "plain: the challenge as verifier"
        );
        assert!(!verifies("", CHALLENGE));
        assert!(!verifies(
            "short",
            &URL_SAFE_NO_PAD.encode(Sha256::digest(b"short"))
        ));
    }
}
