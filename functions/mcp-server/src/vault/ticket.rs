//! Tickets: small values the server hands a browser and must get back unaltered, unread and
//! in time (the connect link's person, the authorization requests' state with its PKCE
//! verifier). Sealed with AES-256-GCM under a key derived from a deployment key (HMAC-SHA-256
//! of the key and the ticket's purpose), so a ticket of one purpose never opens as another;
//! every listed key opens, the first seals (keys rotate as the confirmation keys do). The
//! format is `<key id>.<base64url(nonce ‖ ciphertext ‖ tag)>`. Pure: keys and time come in.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use super::{VaultError, seal};

/// The longest ticket opened (bounded work for anything a browser sends).
pub(crate) const MAX_TICKET: usize = 4096;

/// Why a ticket is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TicketError {
    #[error("the link is not valid (altered, or not from this server)")]
    Invalid,
    #[error("the link has expired")]
    Expired,
    #[error("the server has no key to make links with")]
    NoKey,
}

/// A ticket's payload with its expiry.
#[derive(Serialize, serde::Deserialize)]
struct Envelope<T> {
    /// Expiry, Unix seconds.
    e: u64,
    v: T,
}

/// Seals `value` for `purpose` until `expires` with the first of `keys`.
pub(crate) fn issue<T: Serialize>(
    keys: &[Vec<u8>],
    purpose: &str,
    value: &T,
    expires: u64,
) -> Result<String, TicketError> {
    let key = keys.first().ok_or(TicketError::NoKey)?;
    let plain = serde_json::to_vec(&Envelope {
        e: expires,
        v: value,
    })
    .map_err(|_| TicketError::Invalid)?;
    let sealed = seal::seal(&derive(key, purpose), purpose.as_bytes(), &plain)
        .map_err(|_: VaultError| TicketError::NoKey)?;
    Ok(format!(
        "{}.{}",
        key_id(key),
        URL_SAFE_NO_PAD.encode(sealed)
    ))
}

/// Opens a ticket of `purpose` sealed with one of `keys`, unexpired at `now`.
pub(crate) fn open<T: DeserializeOwned>(
    keys: &[Vec<u8>],
    purpose: &str,
    ticket: &str,
    now: u64,
) -> Result<T, TicketError> {
    if ticket.len() > MAX_TICKET {
        return Err(TicketError::Invalid);
    }
    let (kid, body) = ticket.split_once('.').ok_or(TicketError::Invalid)?;
    let key = keys
        .iter()
        .find(|k| key_id(k) == kid)
        .ok_or(TicketError::Invalid)?;
    let sealed = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| TicketError::Invalid)?;
    let plain = seal::open(&derive(key, purpose), purpose.as_bytes(), &sealed)
        .map_err(|_| TicketError::Invalid)?;
    let envelope: Envelope<T> = serde_json::from_slice(&plain).map_err(|_| TicketError::Invalid)?;
    if envelope.e <= now {
        return Err(TicketError::Expired);
    }
    Ok(envelope.v)
}

/// The sealing key of one purpose: HMAC-SHA-256(deployment key, label ‖ purpose).
fn derive(key: &[u8], purpose: &str) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("any key length");
    mac.update(b"hosted-mcp/ticket/v1.");
    mac.update(purpose.as_bytes());
    mac.finalize().into_bytes().into()
}

/// A key's id: 8 hex digits of its SHA-256 (names it, reveals nothing).
fn key_id(key: &[u8]) -> String {
    super::entry::hex(&Sha256::digest(key)[..4])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, serde::Deserialize)]
    struct Link {
        person: String,
    }

    fn keys() -> Vec<Vec<u8>> {
        vec![b"key-one-0123456789abcdef0123456789".to_vec()]
    }

    #[test]
    fn a_ticket_opens_for_its_purpose_until_it_expires() {
        let link = Link {
            person: "p-1".into(),
        };
        let t = issue(&keys(), "connect", &link, 100).unwrap();
        assert!(!t.contains("p-1"), "sealed, not only signed");
        assert_eq!(open::<Link>(&keys(), "connect", &t, 99).unwrap(), link);
        assert_eq!(
            open::<Link>(&keys(), "connect", &t, 100),
            Err(TicketError::Expired)
        );
        assert_eq!(
            open::<Link>(&keys(), "state", &t, 1),
            Err(TicketError::Invalid)
        );
        let other = vec![b"another-key-0123456789abcdef01234".to_vec()];
        assert_eq!(
            open::<Link>(&other, "connect", &t, 1),
            Err(TicketError::Invalid)
        );
        let rotated = vec![other[0].clone(), keys()[0].clone()];
        assert_eq!(open::<Link>(&rotated, "connect", &t, 1).unwrap(), link);
        let mut altered = t.clone();
        altered.insert(t.len() - 3, 'A');
        assert_eq!(
            open::<Link>(&keys(), "connect", &altered, 1),
            Err(TicketError::Invalid)
        );
        assert_eq!(
            open::<Link>(&keys(), "connect", &"a.".repeat(3000), 1),
            Err(TicketError::Invalid)
        );
        assert_eq!(issue(&[], "connect", &link, 1), Err(TicketError::NoKey));
    }
}
