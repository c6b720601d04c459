//! Our access tokens signed by a KMS asymmetric key (`ECC_NIST_P256`, `kms:Sign` with
//! `ECDSA_SHA_256`): the private key never leaves KMS. The public keys, of the current key and
//! of each previous one (a rotation), are read once at start (`GetPublicKey`) and published in
//! our JWKS; KMS answers signatures in DER, which JWS wants as `r ‖ s` (RFC 7518 §3.4). The
//! only place that knows the KMS SDK for tokens.

use std::time::Duration;

use aws_sdk_kms::Client;
use aws_sdk_kms::primitives::Blob;
use aws_sdk_kms::types::{MessageType, SigningAlgorithmSpec};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::signer::{SignError, SignFuture, TokenSigner};

/// The most one KMS request may take.
const TIMEOUT: Duration = Duration::from_millis(2000);
/// A P-256 public key as DER SubjectPublicKeyInfo: a fixed 26-byte prefix, then the point.
const SPKI_LEN: usize = 91;

/// A KMS key's public half as we publish it: read once at start (`GetPublicKey`).
pub(crate) struct KmsPublicKey {
    /// The key's ARN, as KMS answers it whatever id or alias named it.
    arn: String,
    kid: String,
    /// The uncompressed point (`0x04 ‖ x ‖ y`).
    point: Vec<u8>,
}

impl KmsPublicKey {
    /// Refused unless `key_id` is a P-256 key. The key id in our JWKS is `kms-` and a hash of
    /// the ARN: the same whether the key signs now or is a previous one.
    pub(crate) async fn load(client: &Client, key_id: &str) -> Result<Self, SignError> {
        let answer = in_time(client.get_public_key().key_id(key_id).send()).await?;
        let der = answer.public_key().map(Blob::as_ref).unwrap_or_default();
        let point = p256_point(der).ok_or_else(|| {
            SignError::Unavailable(format!("{key_id} is not an ECC_NIST_P256 key"))
        })?;
        let arn = answer.key_id().unwrap_or(key_id);
        Ok(KmsPublicKey {
            arn: arn.to_string(),
            kid: format!("kms-{}", &super::store::hash(arn)[..12]),
            point: point.to_vec(),
        })
    }

    pub(crate) fn kid(&self) -> &str {
        &self.kid
    }

    /// The public key as a JWK.
    pub(crate) fn jwk(&self) -> Value {
        let xy = self.point.get(1..).unwrap_or_default();
        let (x, y) = xy.split_at(xy.len() / 2);
        json!({
            "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": self.kid,
            "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y),
        })
    }
}

pub(crate) struct KmsSigner {
    client: Client,
    key: KmsPublicKey,
}

impl KmsSigner {
    /// The key's public half, read once; refused unless it is a P-256 signing key.
    pub(crate) async fn load(client: Client, key_id: &str) -> Result<Self, SignError> {
        let key = KmsPublicKey::load(&client, key_id).await?;
        Ok(KmsSigner { client, key })
    }
}

impl TokenSigner for KmsSigner {
    fn kid(&self) -> &str {
        self.key.kid()
    }

    fn public_jwk(&self) -> Value {
        self.key.jwk()
    }

    fn sign<'a>(&'a self, input: &'a [u8]) -> SignFuture<'a> {
        Box::pin(async move {
            let request = self
                .client
                .sign()
                .key_id(&self.key.arn)
                .message(Blob::new(input))
                .message_type(MessageType::Raw)
                .signing_algorithm(SigningAlgorithmSpec::EcdsaSha256)
                .send();
            let answer = in_time(request).await?;
            let der = answer.signature().map(Blob::as_ref).unwrap_or_default();
            fixed_signature(der)
                .ok_or_else(|| SignError::Unavailable("KMS answered no ECDSA signature".into()))
        })
    }
}

/// One KMS request within [`TIMEOUT`], its failure as [`SignError::Unavailable`].
async fn in_time<T, E: std::error::Error>(
    request: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, SignError> {
    tokio::time::timeout(TIMEOUT, request)
        .await
        .map_err(|_| SignError::Unavailable("KMS gave no answer in time".into()))?
        .map_err(|e| {
            SignError::Unavailable(format!(
                "KMS: {}",
                aws_sdk_kms::error::DisplayErrorContext(e)
            ))
        })
}

/// The point of a P-256 SubjectPublicKeyInfo (its last 65 bytes, `0x04 ‖ x ‖ y`).
fn p256_point(der: &[u8]) -> Option<&[u8]> {
    const P256_OID: [u8; 10] = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
    let shaped = der.len() == SPKI_LEN && der.windows(P256_OID.len()).any(|w| w == P256_OID);
    let point = der.get(SPKI_LEN - 65..)?;
    (shaped && point.first() == Some(&0x04)).then_some(point)
}

/// A DER `SEQUENCE { INTEGER r, INTEGER s }` as 64 bytes `r ‖ s`.
fn fixed_signature(der: &[u8]) -> Option<Vec<u8>> {
    let body = match der {
        [0x30, len, rest @ ..] if usize::from(*len) == rest.len() => rest,
        _ => return None,
    };
    let (r, rest) = integer(body)?;
    let (s, rest) = integer(rest)?;
    if !rest.is_empty() {
        return None;
    }
    let mut out = vec![0u8; 64];
    out.get_mut(32 - r.len()..32)?.copy_from_slice(r);
    out.get_mut(64 - s.len()..)?.copy_from_slice(s);
    Some(out)
}

/// One DER INTEGER of at most 32 significant bytes, and what follows it.
fn integer(der: &[u8]) -> Option<(&[u8], &[u8])> {
    let [0x02, len, rest @ ..] = der else {
        return None;
    };
    let len = usize::from(*len);
    let value = rest.get(..len)?;
    let trimmed = match value {
        [0, tail @ ..] if !tail.is_empty() => tail,
        v => v,
    };
    (trimmed.len() <= 32).then_some((trimmed, rest.get(len..)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn der_signatures_become_fixed_width_r_and_s() {
        // r with a leading zero (its high bit set), s short (a leading zero byte dropped).
        let mut der = vec![0x30, 0x00, 0x02, 33, 0x00];
        der.extend([0x80; 32]);
        der.extend([0x02, 31]);
        der.extend([0x01; 31]);
        der[1] = (der.len() - 2) as u8;
        let fixed = fixed_signature(&der).unwrap();
        assert_eq!(&fixed[..32], &[0x80; 32]);
        assert_eq!(fixed[32], 0);
        assert_eq!(&fixed[33..], &[0x01; 31]);
        assert!(fixed_signature(&[0x30, 0x02, 0x02, 0x00]).is_none());
        assert!(fixed_signature(&der[..der.len() - 1]).is_none());
    }

    #[test]
    fn only_a_p256_public_key_gives_a_point() {
        let key = aws_lc_rs::signature::EcdsaKeyPair::generate(
            &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        )
        .unwrap();
        use aws_lc_rs::signature::KeyPair;
        let point = key.public_key().as_ref().to_vec();
        // The fixed SPKI prefix of a P-256 key (RFC 5480).
        let mut der = hex("3059301306072a8648ce3d020106082a8648ce3d030107034200");
        der.extend(&point);
        assert_eq!(p256_point(&der), Some(&point[..]));
        assert_eq!(p256_point(&der[1..]), None);
    }

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect()
    }
}
