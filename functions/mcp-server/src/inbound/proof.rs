//! What proves a webhook request is the upstream's: the subscription handshake's verify token,
//! and the HMAC-SHA256 of the raw body under the signing secret in a header. Both compared in
//! constant time. Pure: the secrets come from the caller.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// Whether `presented` is the verify token (constant time; an empty token never matches).
pub(crate) fn token_matches(expected: &str, presented: &str) -> bool {
    !expected.is_empty() && bool::from(expected.as_bytes().ct_eq(presented.as_bytes()))
}

/// Whether `header` (`<prefix><hex digits>`) is the HMAC-SHA256 of `body` under `secret`.
/// `hmac`'s `verify_slice` compares in constant time; a header of another shape is no proof.
pub(crate) fn signed(secret: &str, prefix: &str, header: &str, body: &[u8]) -> bool {
    let Some(hex) = header.strip_prefix(prefix) else {
        return false;
    };
    let Some(tag) = from_hex(hex) else {
        return false;
    };
    if secret.is_empty() {
        return false;
    }
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return false;
    };
    mac.update(body);
    mac.verify_slice(&tag).is_ok()
}

/// The signature header's value for `body`: what the upstream sends (and the tests).
pub fn sign(secret: &str, prefix: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    mac.update(body);
    format!("{prefix}{}", to_hex(&mac.finalize().into_bytes()))
}

/// A keyed digest of `what`, as hex of its first `bytes` bytes: the stored keys of events and
/// conversations, so a phone number never reaches the table and cannot be found by hashing
/// candidates without the secret.
pub(crate) fn keyed(secret: &str, domain: &str, what: &str, bytes: usize) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    mac.update(domain.as_bytes());
    mac.update(b"\n");
    mac.update(what.as_bytes());
    to_hex(&mac.finalize().into_bytes()[..bytes])
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 64 hex digits (either case) as 32 bytes.
fn from_hex(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_bodys_own_signature_under_the_secret_passes() {
        let body = br#"{"entry":[]}"#;
        let header = sign("app-secret", "sha256=", body);
        assert!(signed("app-secret", "sha256=", &header, body));
        assert!(signed(
            "app-secret",
            "sha256=",
            &header.to_uppercase().replace("SHA256=", "sha256="),
            body
        ));
        assert!(!signed("other", "sha256=", &header, body));
        assert!(!signed(
            "app-secret",
            "sha256=",
            &header,
            br#"{"entry":[1]}"#
        ));
        assert!(!signed(
            "app-secret",
            "sha256=",
            &header["sha256=".len()..],
            body
        ));
        assert!(!signed("app-secret", "sha256=", "sha256=zz", body));
        assert!(!signed("", "sha256=", &sign("", "sha256=", body), body));
    }

    #[test]
    fn the_verify_token_matches_exactly() {
        assert!(token_matches("t0k", "t0k"));
        assert!(!token_matches("t0k", "t0K"));
        assert!(!token_matches("t0k", "t0k "));
        assert!(!token_matches("", ""));
    }

    #[test]
    fn keys_depend_on_the_secret_and_the_domain() {
        let a = keyed("s", "conversation", "4917", 16);
        assert_eq!(a.len(), 32);
        assert_ne!(a, keyed("t", "conversation", "4917", 16));
        assert_ne!(a, keyed("s", "event", "4917", 16));
        assert!(!a.contains("4917"));
    }
}
