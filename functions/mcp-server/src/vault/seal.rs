//! Sealing a grant: AES-256-GCM under a data key, bound to its entry (the associated data), as
//! `nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`. Pure: the data key comes from the caller
//! (KMS on Lambda). aws-lc, which rustls already links, does the cipher.

use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};

use super::VaultError;

/// A data key's length: AES-256.
pub(super) const KEY_LEN: usize = 32;

/// Seals `plain` under `key`, bound to `binding`; a fresh random nonce each time.
pub(crate) fn seal(key: &[u8], binding: &[u8], plain: &[u8]) -> Result<Vec<u8>, VaultError> {
    let cipher = cipher(key)?;
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::fill(&mut nonce).map_err(|_| VaultError::Unavailable("no entropy".into()))?;
    let mut out = Vec::with_capacity(NONCE_LEN + plain.len() + AES_256_GCM.tag_len());
    out.extend_from_slice(&nonce);
    let mut body = plain.to_vec();
    cipher
        .seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(binding),
            &mut body,
        )
        .map_err(|_| VaultError::Corrupt)?;
    out.extend_from_slice(&body);
    Ok(out)
}

/// Opens what [`seal`] made with the same key and binding; anything else is `Corrupt`.
pub(crate) fn open(key: &[u8], binding: &[u8], sealed: &[u8]) -> Result<Vec<u8>, VaultError> {
    if sealed.len() < NONCE_LEN + AES_256_GCM.tag_len() {
        return Err(VaultError::Corrupt);
    }
    let cipher = cipher(key)?;
    let (nonce, body) = sealed.split_at(NONCE_LEN);
    let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| VaultError::Corrupt)?;
    let mut body = body.to_vec();
    let plain = cipher
        .open_in_place(nonce, Aad::from(binding), &mut body)
        .map_err(|_| VaultError::Corrupt)?;
    Ok(plain.to_vec())
}

fn cipher(key: &[u8]) -> Result<LessSafeKey, VaultError> {
    if key.len() != KEY_LEN {
        return Err(VaultError::Corrupt);
    }
    UnboundKey::new(&AES_256_GCM, key)
        .map(LessSafeKey::new)
        .map_err(|_| VaultError::Corrupt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_grant_opens_only_with_its_key_and_binding() {
        let key = [7u8; KEY_LEN];
        let sealed = seal(&key, b"alice#mail", b"{\"access_token\":\"t\"}").unwrap();
        assert_eq!(
            open(&key, b"alice#mail", &sealed).unwrap(),
            b"{\"access_token\":\"t\"}"
        );
        assert!(!sealed.windows(1 + 12).any(|w| w == b"access_token\""));
        assert_eq!(open(&key, b"bob#mail", &sealed), Err(VaultError::Corrupt));
        assert_eq!(
            open(&[8u8; KEY_LEN], b"alice#mail", &sealed),
            Err(VaultError::Corrupt)
        );
        let mut flipped = sealed.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(
            open(&key, b"alice#mail", &flipped),
            Err(VaultError::Corrupt)
        );
        assert_eq!(
            open(&key, b"alice#mail", &sealed[..20]),
            Err(VaultError::Corrupt)
        );
        assert_eq!(
            open(&key[..16], b"alice#mail", &sealed),
            Err(VaultError::Corrupt)
        );
    }

    #[test]
    fn two_seals_of_one_grant_differ() {
        let key = [1u8; KEY_LEN];
        assert_ne!(
            seal(&key, b"b", b"x").unwrap(),
            seal(&key, b"b", b"x").unwrap()
        );
    }
}
