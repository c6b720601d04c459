//! The authorization server's signing keys: found through its metadata, fetched on first need
//! (never at start, so a cold start does not wait for them), cached, and fetched again for an
//! unknown key id at most once a minute. When the server is unreachable, cached keys keep
//! working; without any, callers get [`KeyError::Unavailable`] (the edge answers 503) and the
//! next attempt waits [`RETRY_AFTER`], so a flood of requests does not become a flood of fetches.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;

/// The least time between two fetches while keys are cached (an unknown `kid`).
pub(crate) const REFETCH_AFTER: Duration = Duration::from_secs(60);
/// The least time between two fetches while no keys could be loaded yet.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(5);
/// The largest metadata or key-set document read.
const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// One verification key of the set.
#[derive(Clone)]
pub(crate) struct VerifyingKey {
    pub kid: Option<String>,
    /// The algorithm the key is declared for (`alg`), when it says.
    pub alg: Option<Algorithm>,
    pub key: DecodingKey,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the authorization server's signing keys cannot be loaded: {0}")]
    Unavailable(String),
}

pub(crate) struct KeySource {
    http: reqwest::Client,
    issuer: String,
    timeout: Duration,
    keys: RwLock<Option<Arc<Vec<VerifyingKey>>>>,
    fetch: tokio::sync::Mutex<Fetch>,
    /// Keys given at start (our own authorization server's): never fetched.
    fixed: bool,
}

/// The fetch side, one at a time.
#[derive(Default)]
struct Fetch {
    jwks_uri: Option<String>,
    attempted: Option<Instant>,
    error: Option<String>,
}

impl KeySource {
    pub(crate) fn new(http: reqwest::Client, issuer: &str, timeout: Duration) -> Self {
        KeySource {
            http,
            issuer: issuer.to_string(),
            timeout,
            keys: RwLock::new(None),
            fetch: tokio::sync::Mutex::new(Fetch::default()),
            fixed: false,
        }
    }

    /// The keys of a JWKS document given at start, never fetched: this server's own, when it
    /// is the authorization server (no request to itself, no cold-start wait).
    pub(crate) fn fixed(http: reqwest::Client, issuer: &str, jwks: serde_json::Value) -> Self {
        let keys = serde_json::from_value(jwks)
            .map(keys_of)
            .unwrap_or_default();
        let source = KeySource::new(http, issuer, Duration::from_secs(1));
        *source.keys.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(keys));
        KeySource {
            fixed: true,
            ..source
        }
    }

    /// The key for a token's `kid` (a token without one: the set's only key). `Ok(None)`: the
    /// set has no such key, even after a fetch this minute.
    pub(crate) async fn find(&self, kid: Option<&str>) -> Result<Option<VerifyingKey>, KeyError> {
        if let Some(key) = self.cached().and_then(|keys| pick(&keys, kid)) {
            return Ok(Some(key));
        }
        if self.fixed {
            return Ok(None);
        }
        let mut fetch = self.fetch.lock().await;
        // Another request may have fetched while this one waited.
        let cached = self.cached();
        if let Some(key) = cached.as_ref().and_then(|keys| pick(keys, kid)) {
            return Ok(Some(key));
        }
        let wait = if cached.is_some() {
            REFETCH_AFTER
        } else {
            RETRY_AFTER
        };
        if fetch.attempted.is_some_and(|at| at.elapsed() < wait) {
            return match cached {
                Some(_) => Ok(None),
                None => Err(KeyError::Unavailable(
                    fetch.error.clone().unwrap_or_default(),
                )),
            };
        }
        fetch.attempted = Some(Instant::now());
        match self.load(&mut fetch).await {
            Ok(keys) => {
                fetch.error = None;
                let keys = Arc::new(keys);
                *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Some(keys.clone());
                Ok(pick(&keys, kid))
            }
            Err(e) => {
                tracing::warn!(issuer = %self.issuer, error = %e, "cannot load the OAuth signing keys");
                fetch.error = Some(e.clone());
                match cached {
                    Some(keys) => Ok(pick(&keys, kid)),
                    None => Err(KeyError::Unavailable(e)),
                }
            }
        }
    }

    fn cached(&self) -> Option<Arc<Vec<VerifyingKey>>> {
        self.keys.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Metadata (once) for the `jwks_uri`, then the key set.
    async fn load(&self, fetch: &mut Fetch) -> Result<Vec<VerifyingKey>, String> {
        let uri = match &fetch.jwks_uri {
            Some(uri) => uri.clone(),
            None => {
                let uri = self.jwks_uri().await?;
                fetch.jwks_uri = Some(uri.clone());
                uri
            }
        };
        let set: KeySet = self.get_json(&uri).await?;
        let keys = keys_of(set);
        if keys.is_empty() {
            return Err(format!("{uri} lists no usable signing key"));
        }
        Ok(keys)
    }

    /// OpenID discovery first (Cognito, Entra ID, Auth0, Keycloak serve it), then RFC 8414.
    async fn jwks_uri(&self) -> Result<String, String> {
        let mut errors = Vec::new();
        for url in metadata_urls(&self.issuer) {
            match self.get_json::<Metadata>(&url).await {
                Ok(m) if m.issuer != self.issuer => {
                    return Err(format!(
                        "{url} names the issuer `{}`, not the configured `{}`",
                        m.issuer, self.issuer
                    ));
                }
                Ok(m) => return Ok(m.jwks_uri),
                Err(e) => errors.push(e),
            }
        }
        Err(errors.join("; "))
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let response = self
            .http
            .get(url)
            .timeout(self.timeout)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| {
                if e.is_timeout() {
                    format!("{url}: no answer within {} ms", self.timeout.as_millis())
                } else {
                    format!("{url}: unreachable")
                }
            })?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("{url}: HTTP {}", status.as_u16()));
        }
        if response
            .content_length()
            .is_some_and(|n| n > MAX_DOCUMENT_BYTES as u64)
        {
            return Err(format!("{url}: larger than {MAX_DOCUMENT_BYTES} bytes"));
        }
        let body = response
            .bytes()
            .await
            .map_err(|_| format!("{url}: the answer broke off"))?;
        if body.len() > MAX_DOCUMENT_BYTES {
            return Err(format!("{url}: larger than {MAX_DOCUMENT_BYTES} bytes"));
        }
        serde_json::from_slice(&body).map_err(|e| format!("{url}: not the expected JSON ({e})"))
    }
}

#[derive(Deserialize)]
struct Metadata {
    issuer: String,
    jwks_uri: String,
}

/// Entries are read one by one, so a key of a kind this server cannot use (an encryption key,
/// a new curve) does not hide the others.
#[derive(Deserialize)]
struct KeySet {
    keys: Vec<serde_json::Value>,
}

/// The issuer's discovery documents, in the order tried.
pub(crate) fn metadata_urls(issuer: &str) -> [String; 2] {
    let base = issuer.trim_end_matches('/');
    // RFC 8414: the well-known segment goes between the host and the issuer's path.
    let (origin, path) = super::url::origin_and_path(base);
    [
        format!("{base}/.well-known/openid-configuration"),
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
    ]
}

/// The usable signing keys: public RSA, P-256/P-384 and Ed25519 keys not marked for encryption.
fn keys_of(set: KeySet) -> Vec<VerifyingKey> {
    set.keys
        .into_iter()
        .filter_map(|value| serde_json::from_value::<Jwk>(value).ok())
        .filter(|jwk| !matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)))
        .filter(|jwk| match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => true,
            AlgorithmParameters::EllipticCurve(ec) => {
                matches!(ec.curve, EllipticCurve::P256 | EllipticCurve::P384)
            }
            AlgorithmParameters::OctetKeyPair(okp) => okp.curve == EllipticCurve::Ed25519,
            _ => false,
        })
        .filter_map(|jwk| {
            Some(VerifyingKey {
                kid: jwk.common.key_id.clone(),
                alg: jwk
                    .common
                    .key_algorithm
                    .and_then(|a| a.to_string().parse().ok()),
                key: DecodingKey::from_jwk(&jwk).ok()?,
            })
        })
        .collect()
}

fn pick(keys: &[VerifyingKey], kid: Option<&str>) -> Option<VerifyingKey> {
    match kid {
        Some(kid) => keys.iter().find(|k| k.kid.as_deref() == Some(kid)).cloned(),
        None if keys.len() == 1 => keys.first().cloned(),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_urls_follow_oidc_then_rfc_8414_path_insertion() {
        assert_eq!(
            metadata_urls("https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_Ab"),
            [
                "https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_Ab/.well-known/openid-configuration",
                "https://cognito-idp.eu-central-1.amazonaws.com/.well-known/oauth-authorization-server/eu-central-1_Ab",
            ]
        );
        assert_eq!(
            metadata_urls("https://tenant.auth0.com/")[1],
            "https://tenant.auth0.com/.well-known/oauth-authorization-server"
        );
    }

    #[test]
    fn only_public_signing_keys_are_kept() {
        let set: KeySet = serde_json::from_value(serde_json::json!({"keys": [
            {"kty": "RSA", "kid": "rs", "alg": "RS256", "use": "sig",
             "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw",
             "e": "AQAB"},
            {"kty": "RSA", "kid": "enc", "use": "enc", "n": "sXch", "e": "AQAB"},
            {"kty": "oct", "kid": "secret", "k": "c2VjcmV0"},
            {"kty": "EC", "kid": "p521", "crv": "P-521", "x": "AA", "y": "AA"},
            {"kty": "weird"}
        ]}))
        .unwrap();
        let keys = keys_of(set);
        let kids: Vec<_> = keys.iter().map(|k| k.kid.as_deref()).collect();
        assert_eq!(kids, [Some("rs")]);
        assert_eq!(keys[0].alg, Some(Algorithm::RS256));
        assert!(
            pick(&keys, None).is_some(),
            "the only key serves a token without kid"
        );
        assert!(pick(&keys, Some("other")).is_none());
    }

    #[tokio::test]
    async fn unreachable_server_without_keys_is_unavailable_and_not_asked_again_at_once() {
        // A port nothing listens on.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let source = KeySource::new(
            reqwest::Client::new(),
            &format!("http://127.0.0.1:{port}"),
            Duration::from_millis(500),
        );
        let first = source.find(Some("k")).await.err().unwrap();
        assert!(first.to_string().contains("unreachable"), "{first}");
        let at = source.fetch.lock().await.attempted;
        assert_eq!(source.find(Some("k")).await.err(), Some(first));
        assert_eq!(
            source.fetch.lock().await.attempted,
            at,
            "no second fetch within RETRY_AFTER"
        );
    }
}
