//! The deployment secret: API keys, the pseudonym pepper and connector credentials.
//!
//! On Lambda it is one Secrets Manager secret (JSON), loaded once per cold start with retry and
//! backoff, cached for a TTL and re-read once when an upstream answers 401 (rotation). Locally
//! the same values come from environment variables. Every value is registered with the log
//! redactor the moment it is loaded.
//!
//! ```json
//! { "api_keys": { "claude-ai": "…", "cursor": "…" },
//!   "pseudonym_pepper": "…",
//!   "connectors": { "papierkram": { "subdomain": "…", "token": "…" } } }
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use audit::Redactor;
use sha2::{Digest, Sha256};
use tokio::sync::{Mutex, RwLock};

use crate::config::{self, EnvSnapshot};

/// One accepted API key: its id (audited) and the SHA-256 of the key (the key is not kept).
#[derive(Debug, Clone)]
pub struct ApiKey {
    pub id: String,
    pub hash: [u8; 32],
}

impl ApiKey {
    pub fn new(id: &str, key: &str) -> Self {
        ApiKey {
            id: id.to_string(),
            hash: Sha256::digest(key.as_bytes()).into(),
        }
    }
}

/// The parsed secret. Its `Debug` shows which values are present, never the values.
#[derive(Default)]
pub struct SecretValues {
    pub api_keys: Vec<ApiKey>,
    pub pepper: Option<Vec<u8>>,
    /// Confirmation signing keys: the first signs, all verify.
    pub confirmation_keys: Vec<Vec<u8>>,
    /// What the front door proves itself with (`MCP_ORIGIN_VERIFY_HEADER`): the current value
    /// first, the previous one while a new value rolls out.
    pub origin_verify: Vec<Vec<u8>>,
    /// connector → field → value.
    pub connectors: HashMap<String, HashMap<String, String>>,
    /// Our client's secret at the company IdP (`MCP_AS_IDP_CLIENT_SECRET` locally): a
    /// confidential client there; `None`, a public one (PKCE alone).
    pub idp_client_secret: Option<String>,
}

impl std::fmt::Debug for SecretValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let fields: BTreeMap<&str, BTreeSet<&str>> = self
            .connectors
            .iter()
            .map(|(connector, fields)| {
                (
                    connector.as_str(),
                    fields.keys().map(String::as_str).collect(),
                )
            })
            .collect();
        f.debug_struct("SecretValues")
            .field(
                "api_keys",
                &self
                    .api_keys
                    .iter()
                    .map(|k| k.id.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("pepper", &self.pepper.is_some())
            .field("confirmation_keys", &self.confirmation_keys.len())
            .field("origin_verify", &self.origin_verify.len())
            .field("connectors", &fields)
            .finish()
    }
}

impl SecretValues {
    pub fn field(&self, connector: &str, field: &str) -> Option<&str> {
        self.connectors
            .get(connector)?
            .get(field)
            .map(String::as_str)
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum SecretError {
    #[error("secret `{0}` was not found")]
    NotFound(String),
    #[error("secret `{id}` could not be read: {reason}")]
    Unreadable { id: String, reason: String },
    #[error("secret `{id}` is not the expected JSON shape: {reason}")]
    Malformed { id: String, reason: String },
}

/// `(connector, field)` pairs that are addresses (base-URL parts such as a subdomain), not
/// credentials: they are not scrubbed from logs, so upstream messages stay readable.
pub(crate) type Addresses = BTreeSet<(String, String)>;

/// The address fields of some catalogs: the placeholders of their base URLs.
pub(crate) fn addresses(catalogs: &[catalog::Catalog]) -> Addresses {
    catalogs
        .iter()
        .flat_map(|c| {
            catalog::placeholders(&c.base_url)
                .into_iter()
                .map(|f| (c.connector.to_string(), f.to_string()))
        })
        .collect()
}

/// Parses the secret JSON (the shared format, `connector::secret`), registering every
/// credential with the redactor.
pub(crate) fn parse_secret(
    id: &str,
    text: &str,
    redactor: &Redactor,
    addresses: &Addresses,
) -> Result<SecretValues, SecretError> {
    let secret = connector::secret::parse(text).map_err(|e| SecretError::Malformed {
        id: id.to_string(),
        reason: e.to_string(),
    })?;
    let mut values = SecretValues {
        pepper: secret.pseudonym_pepper.map(String::into_bytes),
        confirmation_keys: secret
            .confirmation_keys
            .into_iter()
            .map(String::into_bytes)
            .collect(),
        connectors: secret.connectors,
        origin_verify: [secret.origin_verify, secret.origin_verify_previous]
            .into_iter()
            .flatten()
            .map(String::into_bytes)
            .collect(),
        idp_client_secret: secret.idp_client_secret,
        ..SecretValues::default()
    };
    for (key_id, key) in &secret.api_keys {
        redactor.add_secret(key);
        values.api_keys.push(ApiKey::new(key_id, key));
    }
    register(&values, redactor, addresses);
    Ok(values)
}

/// Builds the secret from environment variables: `MCP_API_KEYS` (`id:key,…`),
/// `MCP_PSEUDONYM_PEPPER`, and `<CONNECTOR>_<FIELD>` for each declared secret field.
pub(crate) fn from_env(
    env: &EnvSnapshot,
    fields: &[(String, Vec<String>)],
    redactor: &Redactor,
    addresses: &Addresses,
) -> Result<SecretValues, config::ConfigError> {
    let values = SecretValues {
        api_keys: api_keys_from_env(env, redactor)?,
        pepper: pepper_from_env(env)?,
        confirmation_keys: confirmation_keys_from_env(env)?,
        connectors: connector_fields_from_env(env, fields),
        idp_client_secret: env
            .get(config::IDP_CLIENT_SECRET)
            .filter(|s| !s.is_empty())
            .map(str::to_string),
        ..SecretValues::default()
    };
    register(&values, redactor, addresses);
    Ok(values)
}

/// `MCP_API_KEYS`: `id:key` pairs, each key registered with the redactor as it is read.
fn api_keys_from_env(
    env: &EnvSnapshot,
    redactor: &Redactor,
) -> Result<Vec<ApiKey>, config::ConfigError> {
    let mut api_keys = Vec::new();
    let Some(pairs) = env.get(config::API_KEYS) else {
        return Ok(api_keys);
    };
    for pair in pairs.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((id, key)) = pair.split_once(':').filter(|(i, k)| {
            !i.is_empty() && k.chars().count() >= connector::secret::MIN_API_KEY_LEN
        }) else {
            return Err(config::ConfigError {
                name: config::API_KEYS.into(),
                problem: format!(
                    "expected `id:key` pairs, comma-separated, keys of {}+ characters",
                    connector::secret::MIN_API_KEY_LEN
                ),
            });
        };
        if connector::secret::RESERVED_KEY_IDS.contains(&id) {
            return Err(config::ConfigError {
                name: config::API_KEYS.into(),
                problem: format!(
                    "the key id `{id}` is reserved for callers the server names itself"
                ),
            });
        }
        redactor.add_secret(key);
        api_keys.push(ApiKey::new(id, key));
    }
    Ok(api_keys)
}

/// `MCP_PSEUDONYM_PEPPER`: long enough to key the pseudonyms' HMAC.
fn pepper_from_env(env: &EnvSnapshot) -> Result<Option<Vec<u8>>, config::ConfigError> {
    let pepper = env
        .get(config::PSEUDONYM_PEPPER)
        .map(|p| p.as_bytes().to_vec());
    if pepper
        .as_ref()
        .is_some_and(|p| p.len() < connector::secret::MIN_PEPPER_BYTES)
    {
        return Err(config::ConfigError {
            name: config::PSEUDONYM_PEPPER.into(),
            problem: format!(
                "must be at least {} bytes (the HMAC key of the pseudonyms)",
                connector::secret::MIN_PEPPER_BYTES
            ),
        });
    }
    Ok(pepper)
}

/// `MCP_CONFIRMATION_KEYS`, or one random key for this run.
fn confirmation_keys_from_env(env: &EnvSnapshot) -> Result<Vec<Vec<u8>>, config::ConfigError> {
    let keys: Vec<Vec<u8>> = match env.get(config::CONFIRMATION_KEYS) {
        Some(list) => list
            .split(',')
            .map(|k| k.trim().as_bytes().to_vec())
            .filter(|k| !k.is_empty())
            .collect(),
        // Like the API key: one for this run, so confirmations work out of the box.
        None => random_key().into_iter().collect(),
    };
    if keys
        .iter()
        .any(|k| k.len() < connector::secret::MIN_CONFIRMATION_KEY_BYTES)
    {
        return Err(config::ConfigError {
            name: config::CONFIRMATION_KEYS.into(),
            problem: format!(
                "each key must be at least {} bytes",
                connector::secret::MIN_CONFIRMATION_KEY_BYTES
            ),
        });
    }
    Ok(keys)
}

/// `<CONNECTOR>_<FIELD>` for each declared secret field that is set.
fn connector_fields_from_env(
    env: &EnvSnapshot,
    fields: &[(String, Vec<String>)],
) -> HashMap<String, HashMap<String, String>> {
    let mut connectors: HashMap<String, HashMap<String, String>> = HashMap::new();
    for (connector, names) in fields {
        for name in names {
            if let Some(v) =
                env.per_connector(connector, &format!("_{}", name.to_ascii_uppercase()))
            {
                connectors
                    .entry(connector.clone())
                    .or_default()
                    .insert(name.clone(), v.to_string());
            }
        }
    }
    connectors
}

/// 32 random bytes as 64 hex characters.
fn random_key() -> Option<Vec<u8>> {
    crate::random::hex(32).map(String::into_bytes)
}

fn register(values: &SecretValues, redactor: &Redactor, addresses: &Addresses) {
    if let Some(p) = &values.pepper {
        redactor.add_secret(&String::from_utf8_lossy(p));
    }
    for k in values.confirmation_keys.iter().chain(&values.origin_verify) {
        redactor.add_secret(&String::from_utf8_lossy(k));
    }
    if let Some(s) = &values.idp_client_secret {
        redactor.add_secret(s);
    }
    for (connector, fields) in &values.connectors {
        for (field, v) in fields {
            if !addresses.contains(&(connector.clone(), field.clone())) {
                redactor.add_secret(v);
            }
        }
    }
}

/// Where values are (re)loaded from.
pub enum SecretLoader {
    Static(Arc<SecretValues>),
    SecretsManager {
        client: aws_sdk_secretsmanager::Client,
        secret_id: String,
    },
}

struct Cached {
    values: Arc<SecretValues>,
    loaded: Instant,
}

/// The cached secret with TTL, retry and the rotation refresh.
pub struct SecretStore {
    loader: SecretLoader,
    addresses: Addresses,
    ttl: Duration,
    redactor: Redactor,
    current: RwLock<Option<Cached>>,
    last_error: RwLock<Option<(SecretError, Instant)>>,
    reload: Mutex<()>,
    last_refresh: Mutex<Option<Instant>>,
}

/// Do not hammer Secrets Manager while it is failing: one attempt round per this interval.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(5);
const ATTEMPTS: u32 = 3;
/// At most one re-read per this interval after upstream 401s: a token that stays wrong must not
/// turn every tool call into a Secrets Manager read. The first 401 always re-reads, so a rotation
/// right after a cold start is still picked up at once.
const REFRESH_INTERVAL: Duration = Duration::from_secs(30);

impl SecretStore {
    pub fn new(loader: SecretLoader, ttl: Duration, redactor: Redactor) -> Self {
        let current = match &loader {
            SecretLoader::Static(v) => Some(Cached {
                values: v.clone(),
                loaded: Instant::now(),
            }),
            SecretLoader::SecretsManager { .. } => None,
        };
        SecretStore {
            loader,
            addresses: Addresses::new(),
            ttl,
            redactor,
            current: RwLock::new(current),
            last_error: RwLock::new(None),
            reload: Mutex::new(()),
            last_refresh: Mutex::new(None),
        }
    }

    /// Names the address fields, which are not scrubbed from logs (see `Addresses`).
    pub fn with_addresses(mut self, addresses: Addresses) -> Self {
        self.addresses = addresses;
        self
    }

    /// The current values: cached while fresh, reloaded when stale (a failed reload keeps
    /// serving the stale values), an error when nothing could ever be loaded.
    pub async fn get(&self) -> Result<Arc<SecretValues>, SecretError> {
        if let Some(c) = self.current.read().await.as_ref()
            && (c.loaded.elapsed() < self.ttl || matches!(self.loader, SecretLoader::Static(_)))
        {
            return Ok(c.values.clone());
        }
        self.reload(None).await
    }

    /// Re-reads the secret after an upstream 401, at most once per `REFRESH_INTERVAL`;
    /// values another request loaded since `seen` was handed out are used without a read.
    /// Returns the values to retry with, `None` when there are none newer.
    pub async fn refresh_after_unauthorized(
        &self,
        seen: &Arc<SecretValues>,
    ) -> Option<Arc<SecretValues>> {
        if matches!(self.loader, SecretLoader::Static(_)) {
            return None;
        }
        if let Some(c) = self.current.read().await.as_ref()
            && !Arc::ptr_eq(&c.values, seen)
        {
            return Some(c.values.clone());
        }
        {
            let mut last = self.last_refresh.lock().await;
            if let Some(at) = *last
                && at.elapsed() < REFRESH_INTERVAL
            {
                tracing::warn!(
                    seconds_ago = at.elapsed().as_secs(),
                    "upstream 401 again soon after re-reading the secret; not re-reading yet"
                );
                return None;
            }
            *last = Some(Instant::now());
        }
        let fresh = self.reload(Some(seen)).await.ok()?;
        (!Arc::ptr_eq(&fresh, seen)).then_some(fresh)
    }

    async fn reload(
        &self,
        seen: Option<&Arc<SecretValues>>,
    ) -> Result<Arc<SecretValues>, SecretError> {
        let _one_at_a_time = self.reload.lock().await;
        // Someone else may have reloaded while we waited.
        if let Some(c) = self.current.read().await.as_ref() {
            let newer_than_seen = seen.is_some_and(|s| !Arc::ptr_eq(s, &c.values));
            if newer_than_seen || (seen.is_none() && c.loaded.elapsed() < self.ttl) {
                return Ok(c.values.clone());
            }
        }
        if let Some((err, at)) = self.last_error.read().await.as_ref()
            && at.elapsed() < RETRY_AFTER_FAILURE
        {
            return self.stale_or(err.clone()).await;
        }
        match self.load_with_retry().await {
            Ok(values) => {
                let values = Arc::new(values);
                *self.current.write().await = Some(Cached {
                    values: values.clone(),
                    loaded: Instant::now(),
                });
                *self.last_error.write().await = None;
                Ok(values)
            }
            Err(err) => {
                tracing::error!(error = %err, "deployment secret could not be loaded");
                *self.last_error.write().await = Some((err.clone(), Instant::now()));
                self.stale_or(err).await
            }
        }
    }

    async fn stale_or(&self, err: SecretError) -> Result<Arc<SecretValues>, SecretError> {
        match self.current.read().await.as_ref() {
            Some(c) => Ok(c.values.clone()),
            None => Err(err),
        }
    }

    async fn load_with_retry(&self) -> Result<SecretValues, SecretError> {
        let SecretLoader::SecretsManager { client, secret_id } = &self.loader else {
            unreachable!("static secrets are never reloaded");
        };
        let mut delay = Duration::from_millis(100);
        let mut attempt = 1;
        loop {
            match fetch(client, secret_id).await {
                Ok(text) => return parse_secret(secret_id, &text, &self.redactor, &self.addresses),
                // A missing secret will not appear by retrying within this request.
                Err(e @ SecretError::NotFound(_)) => return Err(e),
                Err(e) if attempt >= ATTEMPTS => return Err(e),
                Err(e) => {
                    tracing::warn!(error = %e, attempt, "retrying secret load");
                    tokio::time::sleep(delay).await;
                    delay *= 2;
                    attempt += 1;
                }
            }
        }
    }
}

async fn fetch(client: &aws_sdk_secretsmanager::Client, id: &str) -> Result<String, SecretError> {
    use aws_sdk_secretsmanager::operation::get_secret_value::GetSecretValueError;
    let out = client
        .get_secret_value()
        .secret_id(id)
        .send()
        .await
        .map_err(|e| match e.as_service_error() {
            Some(GetSecretValueError::ResourceNotFoundException(_)) => {
                SecretError::NotFound(id.to_string())
            }
            _ => SecretError::Unreadable {
                id: id.to_string(),
                reason: aws_sdk_secretsmanager::error::DisplayErrorContext(&e).to_string(),
            },
        })?;
    out.secret_string.ok_or_else(|| SecretError::Malformed {
        id: id.to_string(),
        reason: "it has no SecretString (binary secrets are not supported)".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_json_parses_and_registers_values_for_redaction() {
        let r = Redactor::new();
        let v = parse_secret(
            "s",
            r#"{"api_keys":{"claude":"k-1234567890abcdef"},"pseudonym_pepper":"pepper-xyz-0123456789abcdef0123456789",
                "connectors":{"papierkram":{"token":"tok-secret-123","subdomain":"acme-gmbh"}}}"#,
            &r,
            &Addresses::from([("papierkram".to_string(), "subdomain".to_string())]),
        )
        .unwrap();
        assert_eq!(v.api_keys[0].id, "claude");
        assert_eq!(v.field("papierkram", "token"), Some("tok-secret-123"));
        let debug = format!("{v:?}");
        assert!(
            debug.contains("papierkram") && debug.contains("token") && debug.contains("claude"),
            "{debug}"
        );
        for value in [
            "tok-secret-123",
            "acme-gmbh",
            "pepper-xyz",
            "k-1234567890abcdef",
        ] {
            assert!(!debug.contains(value), "{value} in {debug}");
        }
        let line = r.redact(
            "token tok-secret-123 key k-1234567890abcdef pepper-xyz-0123456789abcdef0123456789",
        );
        assert!(!line.contains("tok-secret-123") && !line.contains("k-1234567890abcdef"));
        assert!(!line.contains("pepper-xyz"));
        let short = parse_secret(
            "s",
            r#"{"pseudonym_pepper":"pepper-xyz"}"#,
            &r,
            &Addresses::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            short.contains("pseudonym_pepper") && !short.contains("pepper-xyz"),
            "{short}"
        );
        assert!(
            r.redact("host acme-gmbh").contains("acme-gmbh"),
            "addresses stay readable"
        );
    }

    #[test]
    fn malformed_secret_says_so_without_values() {
        let err = parse_secret(
            "s",
            r#"{"api_key":"oops-secret-value"}"#,
            &Redactor::new(),
            &Addresses::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("not the expected JSON shape"), "{err}");
        assert!(!err.contains("oops-secret-value"), "{err}");
    }

    #[test]
    fn wrongly_typed_secret_does_not_echo_the_value() {
        let err = parse_secret(
            "s",
            r#"{"api_keys":"dev:leaky-secret-value"}"#,
            &Redactor::new(),
            &Addresses::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(!err.contains("leaky-secret-value"), "{err}");
    }

    #[test]
    fn env_keys_need_id_and_long_key() {
        let env = EnvSnapshot::from_pairs([(config::API_KEYS, "dev:short")]);
        assert!(from_env(&env, &[], &Redactor::new(), &Addresses::new()).is_err());
        let env = EnvSnapshot::from_pairs([(config::API_KEYS, "oauth:0123456789abcdef0123")]);
        let err = from_env(&env, &[], &Redactor::new(), &Addresses::new()).unwrap_err();
        assert!(err.problem.contains("reserved"), "{err:?}");
        let env = EnvSnapshot::from_pairs([
            (config::API_KEYS, "dev:0123456789abcdef0123"),
            ("PAPIERKRAM_TOKEN", "t-0123456789"),
        ]);
        let fields = vec![("papierkram".to_string(), vec!["token".to_string()])];
        let v = from_env(&env, &fields, &Redactor::new(), &Addresses::new()).unwrap();
        assert_eq!(v.api_keys[0].id, "dev");
        assert_eq!(v.field("papierkram", "token"), Some("t-0123456789"));
    }

    #[tokio::test]
    async fn static_store_always_answers() {
        let store = SecretStore::new(
            SecretLoader::Static(Arc::new(SecretValues::default())),
            Duration::from_secs(0),
            Redactor::new(),
        );
        let v = store.get().await.unwrap();
        assert!(store.refresh_after_unauthorized(&v).await.is_none());
    }
}
