//! Keyed-hash pseudonyms for the `user` field.

use std::fmt;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Hex characters of the HMAC kept in a pseudonym (64 bits: unique enough for a company's
/// users, too short to be a useful stand-in for the full digest).
const PSEUDONYM_HEX_CHARS: usize = 16;

/// Maps an identity to a stable pseudonym `u_` + 16 hex chars of HMAC-SHA256(pepper, identity):
/// an e-mail address trimmed and lower-cased (one mailbox, however it is typed), an OAuth
/// subject exactly as the issuer sends it (`AbC` and `abc` are two people there).
///
/// Without the pepper the pseudonym cannot be reversed by hashing candidate e-mail addresses, so
/// the pepper is a secret (Secrets Manager; at least 32 random bytes) and rotating it breaks
/// continuity of `user` across the rotation.
#[derive(Clone)]
pub struct Pseudonymizer {
    mac: Hmac<Sha256>,
}

impl Pseudonymizer {
    pub fn new(pepper: &[u8]) -> Self {
        Self {
            // HMAC takes keys of any length, so this cannot fail.
            mac: Hmac::new_from_slice(pepper).expect("HMAC accepts keys of any length"),
        }
    }

    /// The pseudonym of an e-mail address (the trusted user header), case and surrounding
    /// whitespace ignored.
    pub fn pseudonym_of_email(&self, email: &str) -> String {
        self.pseudonym(email.trim().to_lowercase().as_bytes())
    }

    /// The pseudonym of an OAuth subject, byte for byte: subjects are case-sensitive
    /// identifiers (OpenID Connect Core 1.0, 2), so nothing is folded.
    pub fn pseudonym_of_subject(&self, subject: &str) -> String {
        self.pseudonym(subject.as_bytes())
    }

    fn pseudonym(&self, identity: &[u8]) -> String {
        let mut mac = self.mac.clone();
        mac.update(identity);
        let digest = mac.finalize().into_bytes();

        let mut out = String::with_capacity(2 + PSEUDONYM_HEX_CHARS);
        out.push_str("u_");
        for byte in &digest[..PSEUDONYM_HEX_CHARS / 2] {
            out.push(hex_digit(byte >> 4));
            out.push(hex_digit(byte & 0x0f));
        }
        out
    }
}

impl fmt::Debug for Pseudonymizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pseudonymizer").finish_non_exhaustive()
    }
}

fn hex_digit(nibble: u8) -> char {
    char::from_digit(u32::from(nibble), 16).expect("a nibble is a hex digit")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PEPPER: &[u8] = b"test-pepper-0123456789abcdef0123";

    #[test]
    fn pseudonym_is_u_prefix_and_sixteen_lowercase_hex_chars() {
        let p = Pseudonymizer::new(PEPPER).pseudonym_of_email("alice@example.com");
        assert_eq!(p.len(), 18, "{p}");
        assert!(p.starts_with("u_"));
        assert!(
            p[2..]
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)),
            "{p}"
        );
    }

    #[test]
    fn pseudonym_matches_hmac_sha256_of_normalized_identity() {
        let mut mac = Hmac::<Sha256>::new_from_slice(PEPPER).unwrap();
        mac.update(b"alice@example.com");
        let full: String = mac
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let expected = format!("u_{}", &full[..16]);
        let p = Pseudonymizer::new(PEPPER);
        assert_eq!(p.pseudonym_of_email("alice@example.com"), expected);
    }

    #[test]
    fn pseudonym_is_stable_across_instances() {
        let a = Pseudonymizer::new(PEPPER).pseudonym_of_email("alice@example.com");
        let b = Pseudonymizer::new(PEPPER).pseudonym_of_email("alice@example.com");
        assert_eq!(a, b);
    }

    #[test]
    fn pseudonym_ignores_case_and_surrounding_whitespace() {
        let p = Pseudonymizer::new(PEPPER);
        assert_eq!(
            p.pseudonym_of_email("alice@example.com"),
            p.pseudonym_of_email("  Alice@Example.COM\n")
        );
    }

    #[test]
    fn subjects_are_taken_exactly_as_sent() {
        let p = Pseudonymizer::new(PEPPER);
        let subjects = ["AbCdEf-user", "abcdef-USER", "abcdef-user", " abcdef-user"];
        let mut seen: Vec<String> = subjects.iter().map(|s| p.pseudonym_of_subject(s)).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), subjects.len(), "one person each: {seen:?}");
    }

    #[test]
    fn different_identities_get_different_pseudonyms() {
        let p = Pseudonymizer::new(PEPPER);
        assert_ne!(
            p.pseudonym_of_email("alice@example.com"),
            p.pseudonym_of_email("bob@example.com")
        );
    }

    #[test]
    fn different_peppers_give_different_pseudonyms() {
        let a = Pseudonymizer::new(b"pepper-one").pseudonym_of_email("alice@example.com");
        let b = Pseudonymizer::new(b"pepper-two").pseudonym_of_email("alice@example.com");
        assert_ne!(a, b);
    }

    #[test]
    fn pseudonym_never_contains_the_identity() {
        let p = Pseudonymizer::new(PEPPER);
        for identity in [
            "alice@example.com",
            "Bob Smith",
            "carol",
            "user-42@corp.example",
        ] {
            let pseudonym = p.pseudonym_of_email(identity);
            assert!(!pseudonym.contains(identity), "{identity} -> {pseudonym}");
            let normalized = identity.trim().to_lowercase();
            assert!(
                !pseudonym.contains(&normalized),
                "{identity} -> {pseudonym}"
            );
        }
    }

    #[test]
    fn debug_output_hides_the_pepper() {
        let debug = format!("{:?}", Pseudonymizer::new(PEPPER));
        assert!(!debug.contains("test-pepper"), "{debug}");
    }
}
