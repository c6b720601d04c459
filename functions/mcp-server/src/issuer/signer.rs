//! Who signs our access tokens, behind a small trait: locally a P-256 key generated at start
//! (aws-lc-rs, ES256); on Lambda a KMS asymmetric key through `kms:Sign` (`kms`).
//! The JWS is assembled here (`header.payload.signature`, RFC 7515 compact form), so a signer
//! only turns bytes into an ES256 signature (`r ‖ s`, 64 bytes).

use std::future::Future;
use std::pin::Pin;

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SignError {
    #[error("no signing key: {0}")]
    Unavailable(String),
}

pub(crate) type SignFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<u8>, SignError>> + Send + 'a>>;

/// An ES256 signing key whose public half is published in our JWKS.
pub(crate) trait TokenSigner: Send + Sync {
    /// The key id tokens name in their header.
    fn kid(&self) -> &str;
    /// The public key as a JWK (`kty`, `crv`, `x`, `y`, `kid`, `alg`, `use`).
    fn public_jwk(&self) -> Value;
    /// The ES256 signature (`r ‖ s`) of `input`.
    fn sign<'a>(&'a self, input: &'a [u8]) -> SignFuture<'a>;
}

/// A P-256 key made at start: tokens die with the process (local `serve`, tests).
pub(crate) struct LocalSigner {
    key: EcdsaKeyPair,
    kid: String,
}

impl LocalSigner {
    pub(crate) fn generate() -> Result<Self, SignError> {
        let key = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING)
            .map_err(|_| SignError::Unavailable("no P-256 key could be made".into()))?;
        let kid = format!("local-{}", crate::random::hex_or_clock(4));
        Ok(LocalSigner { key, kid })
    }
}

impl TokenSigner for LocalSigner {
    fn kid(&self) -> &str {
        &self.kid
    }

    fn public_jwk(&self) -> Value {
        // An uncompressed point: 0x04 ‖ x ‖ y, 32 bytes each.
        let xy = self
            .key
            .public_key()
            .as_ref()
            .get(1..65)
            .unwrap_or_default();
        let (x, y) = xy.split_at(xy.len() / 2);
        json!({
            "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": self.kid,
            "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y),
        })
    }

    fn sign<'a>(&'a self, input: &'a [u8]) -> SignFuture<'a> {
        let signed = self
            .key
            .sign(&SystemRandom::new(), input)
            .map(|s| s.as_ref().to_vec())
            .map_err(|_| SignError::Unavailable("the signature failed".into()));
        Box::pin(std::future::ready(signed))
    }
}

/// `claims` as a compact JWS of type `at+jwt` (RFC 9068) signed by `signer`.
pub(crate) async fn jws(signer: &dyn TokenSigner, claims: &Value) -> Result<String, SignError> {
    let header = json!({"alg": "ES256", "typ": "at+jwt", "kid": signer.kid()});
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = signer.sign(input.as_bytes()).await?;
    Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature)))
}

/// The key set `/oauth/jwks` publishes and our resource server checks against: the key that
/// signs now, then the previous keys (public JWKs) whose tokens may still live.
pub(crate) fn jwks(signer: &dyn TokenSigner, previous: &[Value]) -> Value {
    let keys: Vec<Value> = std::iter::once(signer.public_jwk())
        .chain(previous.iter().cloned())
        .collect();
    json!({ "keys": keys })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_token_signed_here_verifies_with_the_published_key_only() {
        let signer = LocalSigner::generate().unwrap();
        let claims = json!({"sub": "alice", "exp": 4_000_000_000u64});
        let token = jws(&signer, &claims).await.unwrap();
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(signer.public_jwk()).unwrap();
        let key = jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap();
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_aud = false;
        let decoded = jsonwebtoken::decode::<Value>(&token, &key, &validation).unwrap();
        assert_eq!(decoded.claims["sub"], "alice");
        assert_eq!(decoded.header.kid.as_deref(), Some(signer.kid()));

        let other = LocalSigner::generate().unwrap();
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(other.public_jwk()).unwrap();
        let key = jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap();
        assert!(jsonwebtoken::decode::<Value>(&token, &key, &validation).is_err());
    }
}
