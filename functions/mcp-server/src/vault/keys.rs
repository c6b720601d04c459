//! Data keys from AWS KMS (envelope encryption), the only place that knows the KMS SDK. Each
//! person's grants are sealed under a data key made for them (`GenerateDataKey`, AES-256, with
//! the person's id as encryption context, so a key policy can require it and CloudTrail shows
//! whose key was used); the store keeps the data key only as KMS wrapped it, and `Decrypt`
//! unwraps it with the same context. Both are cached for [`CACHE_TTL`] per instance, so a
//! person's calls cost KMS one request per few minutes, not one per call.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use aws_sdk_kms::Client;
use aws_sdk_kms::primitives::Blob;
use aws_sdk_kms::types::DataKeySpec;

use super::VaultError;
use super::seal::KEY_LEN;

/// How long a data key (fresh or unwrapped) is reused.
pub(crate) const CACHE_TTL: Duration = Duration::from_secs(300);
/// The encryption context's one key.
pub(crate) const CONTEXT_KEY: &str = "person";
/// The most data keys one instance keeps of each kind; past it, the oldest go.
const MAX_CACHED: usize = 1024;
/// The most one KMS request may take.
const TIMEOUT: Duration = Duration::from_millis(2000);

/// A data key: `plain` to seal with, `wrapped` (KMS's ciphertext blob) to store.
#[derive(Clone)]
pub(crate) struct DataKey {
    pub(crate) plain: Vec<u8>,
    pub(crate) wrapped: Vec<u8>,
}

/// Values kept with the instant they were made.
type Cache<K, V> = Mutex<HashMap<K, (V, Instant)>>;

pub struct KmsKeys {
    client: Client,
    key_id: String,
    /// The encryption context's key: [`CONTEXT_KEY`] for the vault; the value names whose
    /// data key it is.
    context_key: &'static str,
    /// By person id.
    fresh: Cache<String, DataKey>,
    /// By person id and wrapped key.
    unwrapped: Cache<Vec<u8>, Vec<u8>>,
}

impl KmsKeys {
    pub fn new(client: Client, key_id: impl Into<String>) -> Self {
        KmsKeys::in_context(client, key_id, CONTEXT_KEY)
    }

    /// Data keys whose encryption context names their owner under `context_key` (the inbound
    /// store's: `connector`).
    pub fn in_context(
        client: Client,
        key_id: impl Into<String>,
        context_key: &'static str,
    ) -> Self {
        KmsKeys {
            client,
            key_id: key_id.into(),
            context_key,
            fresh: Mutex::default(),
            unwrapped: Mutex::default(),
        }
    }

    /// A data key for sealing this person's grants.
    pub(crate) async fn for_sealing(&self, person: &str) -> Result<DataKey, VaultError> {
        if let Some(k) = cached(&self.fresh, person) {
            return Ok(k);
        }
        let request = self
            .client
            .generate_data_key()
            .key_id(&self.key_id)
            .key_spec(DataKeySpec::Aes256)
            .encryption_context(self.context_key, person);
        let out = tokio::time::timeout(TIMEOUT, request.send())
            .await
            .map_err(|_| timeout())?
            .map_err(|e| unavailable(&e))?;
        let (Some(plain), Some(wrapped)) = (out.plaintext, out.ciphertext_blob) else {
            return Err(VaultError::Unavailable("KMS answered no data key".into()));
        };
        let key = DataKey {
            plain: plain.into_inner(),
            wrapped: wrapped.into_inner(),
        };
        if key.plain.len() != KEY_LEN {
            return Err(VaultError::Unavailable(
                "KMS answered a key of another size".into(),
            ));
        }
        remember(&self.fresh, person.to_string(), key.clone());
        // What this instance seals it reads back without asking KMS again.
        let cache_key = [person.as_bytes(), b"\n", &key.wrapped].concat();
        remember(&self.unwrapped, cache_key, key.plain.clone());
        Ok(key)
    }

    /// Unwraps a stored data key of this person. KMS refuses one wrapped for another person
    /// (the context differs): that entry is `Corrupt`, not someone else's.
    pub(crate) async fn unwrap(&self, person: &str, wrapped: &[u8]) -> Result<Vec<u8>, VaultError> {
        let cache_key = [person.as_bytes(), b"\n", wrapped].concat();
        if let Some(k) = cached(&self.unwrapped, &cache_key) {
            return Ok(k);
        }
        let request = self
            .client
            .decrypt()
            .key_id(&self.key_id)
            .ciphertext_blob(Blob::new(wrapped))
            .encryption_context(self.context_key, person);
        let out = match tokio::time::timeout(TIMEOUT, request.send()).await {
            Err(_) => return Err(timeout()),
            Ok(Err(e)) => {
                return Err(match e.as_service_error() {
                    Some(s) if s.is_invalid_ciphertext_exception() => VaultError::Corrupt,
                    _ => unavailable(&e),
                });
            }
            Ok(Ok(out)) => out,
        };
        let plain = out
            .plaintext
            .map(Blob::into_inner)
            .filter(|p| p.len() == KEY_LEN)
            .ok_or(VaultError::Corrupt)?;
        remember(&self.unwrapped, cache_key, plain.clone());
        Ok(plain)
    }
}

fn cached<K, V, Q>(cache: &Cache<K, V>, key: &Q) -> Option<V>
where
    K: std::borrow::Borrow<Q> + std::hash::Hash + Eq,
    Q: std::hash::Hash + Eq + ?Sized,
    V: Clone,
{
    let cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .get(key)
        .filter(|(_, at)| at.elapsed() < CACHE_TTL)
        .map(|(v, _)| v.clone())
}

fn remember<K: std::hash::Hash + Eq, V>(cache: &Cache<K, V>, key: K, value: V) {
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= MAX_CACHED {
        cache.retain(|_, (_, at)| at.elapsed() < CACHE_TTL);
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
    }
    cache.insert(key, (value, Instant::now()));
}

fn timeout() -> VaultError {
    VaultError::Unavailable(format!(
        "KMS gave no answer within {} ms",
        TIMEOUT.as_millis()
    ))
}

fn unavailable<E: std::error::Error>(e: &E) -> VaultError {
    VaultError::Unavailable(format!(
        "KMS: {}",
        aws_sdk_kms::error::DisplayErrorContext(e)
    ))
}
