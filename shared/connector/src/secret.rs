//! The deployment secret's format: one JSON object (one Secrets Manager secret on AWS) with the
//! API keys clients present, the pepper of the `user` pseudonym and each connector's secret
//! fields. Unknown top-level fields are refused, so a typo does not silently drop a section.
//!
//! ```json
//! { "api_keys": { "claude-ai": "…", "cursor": "…" },
//!   "pseudonym_pepper": "…",
//!   "confirmation_keys": ["…new…", "…old…"],
//!   "connectors": { "papierkram": { "subdomain": "…", "token": "…" } } }
//! ```
//!
//! Every section may be left out. Nothing here ever prints a value: [`DeploymentSecret`]'s
//! `Debug` shows key ids and field names only, and a [`SecretFormatError`] names where the
//! problem is (a key id, `pseudonym_pepper`, a line and column), never what is written there.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

/// The shortest API key accepted, in characters.
pub const MIN_API_KEY_LEN: usize = 16;
/// The key id an OAuth caller is recorded under: no API key may take it.
pub const OAUTH_KEY_ID: &str = "oauth";
/// The key id of a local run with `--insecure-no-auth`: no API key may take it.
pub const NO_AUTH_KEY_ID: &str = "insecure-no-auth";
/// Key ids the server gives callers itself; an API key named like one would merge its callers
/// with those (limits, budgets, the ledger's replays).
pub const RESERVED_KEY_IDS: [&str; 2] = [OAUTH_KEY_ID, NO_AUTH_KEY_ID];

/// The shortest pseudonym pepper accepted, in bytes (as long as the HMAC-SHA-256 key it is).
pub const MIN_PEPPER_BYTES: usize = 32;
/// The shortest front-door proof (`origin_verify`) accepted, in characters.
pub const MIN_ORIGIN_VERIFY_LEN: usize = 32;
/// The shortest confirmation signing key accepted, in bytes (an HMAC-SHA-256 key).
pub const MIN_CONFIRMATION_KEY_BYTES: usize = 32;

/// The parsed deployment secret. Its `Debug` never shows a value.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct DeploymentSecret {
    /// Key id (audited, e.g. `claude-ai`) → key.
    pub api_keys: BTreeMap<String, String>,
    pub pseudonym_pepper: Option<String>,
    /// Keys that sign confirmation tokens and states: the first signs, every one verifies (two
    /// while a new key rolls out).
    pub confirmation_keys: Vec<String>,
    /// Connector → secret field (`token`, `subdomain`, …) → value.
    pub connectors: HashMap<String, HashMap<String, String>>,
    /// The value the front door (CloudFront) sends in `MCP_ORIGIN_VERIFY_HEADER`; the previous
    /// one is accepted too while a new value rolls out.
    pub origin_verify: Option<String>,
    pub origin_verify_previous: Option<String>,
    /// Our client's secret at the company IdP, when this server is its own authorization server
    /// with a confidential client there (Google's web clients always are).
    pub idp_client_secret: Option<String>,
}

/// Why the secret text is not a usable deployment secret. Never quotes a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretFormatError {
    #[error("not valid JSON (line {line} column {column})")]
    NotJson { line: usize, column: usize },
    /// Valid JSON of another shape; serde's own message when it names only a field (an unknown
    /// or duplicate field), else the expected shape and where the problem is.
    #[error("{0}")]
    Shape(String),
    #[error("api_keys: a key id must not be empty")]
    EmptyKeyId,
    #[error("api_keys.{id}: the id is reserved for callers the server names itself")]
    ReservedKeyId { id: String },
    #[error("api_keys.{id}: the key is shorter than {MIN_API_KEY_LEN} characters")]
    ShortApiKey { id: String },
    #[error("pseudonym_pepper: shorter than {MIN_PEPPER_BYTES} bytes")]
    ShortPepper,
    #[error("confirmation_keys[{index}]: shorter than {MIN_CONFIRMATION_KEY_BYTES} bytes")]
    ShortConfirmationKey { index: usize },
    #[error("{field}: shorter than {MIN_ORIGIN_VERIFY_LEN} characters")]
    ShortOriginVerify { field: &'static str },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SecretJson {
    #[serde(default)]
    api_keys: BTreeMap<String, String>,
    #[serde(default)]
    pseudonym_pepper: Option<String>,
    #[serde(default)]
    confirmation_keys: Vec<String>,
    #[serde(default)]
    connectors: HashMap<String, HashMap<String, String>>,
    #[serde(default)]
    origin_verify: Option<String>,
    #[serde(default)]
    origin_verify_previous: Option<String>,
    #[serde(default)]
    idp_client_secret: Option<String>,
}

/// Parses and checks the secret's JSON text: the shape, then key and pepper lengths.
pub fn parse(text: &str) -> Result<DeploymentSecret, SecretFormatError> {
    let json: SecretJson = serde_json::from_str(text).map_err(|e| describe(&e))?;
    for (id, key) in &json.api_keys {
        if id.is_empty() {
            return Err(SecretFormatError::EmptyKeyId);
        }
        if RESERVED_KEY_IDS.contains(&id.as_str()) {
            return Err(SecretFormatError::ReservedKeyId { id: id.clone() });
        }
        if key.chars().count() < MIN_API_KEY_LEN {
            return Err(SecretFormatError::ShortApiKey { id: id.clone() });
        }
    }
    if json
        .pseudonym_pepper
        .as_ref()
        .is_some_and(|p| p.len() < MIN_PEPPER_BYTES)
    {
        return Err(SecretFormatError::ShortPepper);
    }
    if let Some(index) = json
        .confirmation_keys
        .iter()
        .position(|k| k.len() < MIN_CONFIRMATION_KEY_BYTES)
    {
        return Err(SecretFormatError::ShortConfirmationKey { index });
    }
    for (field, value) in [
        ("origin_verify", &json.origin_verify),
        ("origin_verify_previous", &json.origin_verify_previous),
    ] {
        if value
            .as_ref()
            .is_some_and(|v| v.chars().count() < MIN_ORIGIN_VERIFY_LEN)
        {
            return Err(SecretFormatError::ShortOriginVerify { field });
        }
    }
    Ok(DeploymentSecret {
        api_keys: json.api_keys,
        pseudonym_pepper: json.pseudonym_pepper,
        confirmation_keys: json.confirmation_keys,
        connectors: json.connectors,
        origin_verify: json.origin_verify,
        origin_verify_previous: json.origin_verify_previous,
        idp_client_secret: json.idp_client_secret.filter(|s| !s.is_empty()),
    })
}

/// A serde error without the offending value (an "invalid type" message would quote it).
fn describe(e: &serde_json::Error) -> SecretFormatError {
    use serde_json::error::Category;
    if matches!(
        e.classify(),
        Category::Syntax | Category::Eof | Category::Io
    ) {
        return SecretFormatError::NotJson {
            line: e.line(),
            column: e.column(),
        };
    }
    let message = e.to_string();
    let names_a_field_only = ["unknown field", "missing field", "duplicate field"]
        .iter()
        .any(|p| message.starts_with(p));
    if names_a_field_only {
        return SecretFormatError::Shape(message);
    }
    SecretFormatError::Shape(format!(
        "expected {{api_keys: {{id: key}}, pseudonym_pepper, confirmation_keys: [key], connectors: {{name: {{field: value}}}}, origin_verify, origin_verify_previous, idp_client_secret}} \
         with string values (problem near line {} column {})",
        e.line(),
        e.column()
    ))
}

impl DeploymentSecret {
    /// `connectors.<connector>.<field>`.
    pub fn field(&self, connector: &str, field: &str) -> Option<&str> {
        self.connectors
            .get(connector)?
            .get(field)
            .map(String::as_str)
    }

    /// One connector's fields as the lookup the request functions take
    /// ([`base_url`](crate::base_url), [`authenticate`](crate::authenticate)).
    pub fn lookup<'a>(&'a self, connector: &'a str) -> impl Fn(&str) -> Option<String> + 'a {
        move |field| self.field(connector, field).map(str::to_string)
    }
}

impl std::fmt::Debug for DeploymentSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut connectors: Vec<(&str, Vec<&str>)> = self
            .connectors
            .iter()
            .map(|(c, fields)| {
                let mut names: Vec<&str> = fields.keys().map(String::as_str).collect();
                names.sort_unstable();
                (c.as_str(), names)
            })
            .collect();
        connectors.sort_unstable();
        f.debug_struct("DeploymentSecret")
            .field("api_keys", &self.api_keys.keys().collect::<Vec<_>>())
            .field(
                "pseudonym_pepper",
                &self.pseudonym_pepper.as_ref().map(|_| "<redacted>"),
            )
            .field("confirmation_keys", &self.confirmation_keys.len())
            .field("connectors", &connectors)
            .field(
                "origin_verify",
                &self.origin_verify.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "idp_client_secret",
                &self.idp_client_secret.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "k-0123456789abcdef";
    const PEPPER: &str = "pepper-0123456789abcdef0123456789";

    fn full() -> String {
        format!(
            r#"{{"api_keys": {{"claude": "{KEY}"}}, "pseudonym_pepper": "{PEPPER}",
                "connectors": {{"papierkram": {{"subdomain": "acme", "token": "tok-secret-123"}}}}}}"#
        )
    }

    #[test]
    fn a_full_secret_parses_into_keys_pepper_and_connector_fields() {
        let s = parse(&full()).unwrap();
        assert_eq!(s.api_keys["claude"], KEY);
        assert_eq!(s.pseudonym_pepper.as_deref(), Some(PEPPER));
        assert_eq!(s.field("papierkram", "token"), Some("tok-secret-123"));
        assert_eq!(s.field("papierkram", "nope"), None);
        assert_eq!(s.field("other", "token"), None);
        assert_eq!(s.lookup("papierkram")("subdomain").as_deref(), Some("acme"));
        assert_eq!(parse("{}").unwrap(), DeploymentSecret::default());
    }

    #[test]
    fn debug_shows_ids_and_field_names_but_no_value() {
        let printed = format!("{:?}", parse(&full()).unwrap());
        assert!(
            printed.contains("claude") && printed.contains("token"),
            "{printed}"
        );
        for value in [KEY, PEPPER, "tok-secret-123", "acme"] {
            assert!(!printed.contains(value), "{value} in {printed}");
        }
    }

    #[test]
    fn unknown_top_level_fields_are_refused_by_name() {
        let err = parse(r#"{"api_key": "oops-secret-value"}"#).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("unknown field `api_key`"), "{text}");
        assert!(!text.contains("oops-secret-value"), "{text}");
    }

    #[test]
    fn wrongly_typed_or_broken_json_does_not_echo_the_value() {
        for text in [
            r#"{"api_keys": "dev:leaky-secret-value"}"#,
            r#"{"connectors": {"demo": {"token": "leaky-secret-value", "n": 5}}}"#,
            r#"{"connectors": "leaky-secret-value"}"#,
            "token=leaky-secret-value",
            r#"{"pseudonym_pepper": "leaky-secret-value""#,
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(!err.contains("leaky-secret-value"), "{err}");
            assert!(err.contains("line 1 column"), "{err}");
        }
        let err = parse("token=x").unwrap_err();
        assert!(
            matches!(err, SecretFormatError::NotJson { line: 1, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn short_api_keys_are_refused_naming_the_id_not_the_key() {
        let err = parse(r#"{"api_keys": {"cursor": "short-key-123"}}"#).unwrap_err();
        assert_eq!(
            err,
            SecretFormatError::ShortApiKey {
                id: "cursor".into()
            }
        );
        let text = err.to_string();
        assert!(
            text.contains("cursor") && !text.contains("short-key-123"),
            "{text}"
        );
        // Characters, not bytes: 16 two-byte characters are enough, 15 are not.
        assert!(parse(&format!(r#"{{"api_keys": {{"a": "{}"}}}}"#, "ä".repeat(16))).is_ok());
        assert!(parse(&format!(r#"{{"api_keys": {{"a": "{}"}}}}"#, "ä".repeat(15))).is_err());
        let empty_id = format!(r#"{{"api_keys": {{"": "{KEY}"}}}}"#);
        assert_eq!(parse(&empty_id), Err(SecretFormatError::EmptyKeyId));
        for id in RESERVED_KEY_IDS {
            let reserved = format!(r#"{{"api_keys": {{"{id}": "{KEY}"}}}}"#);
            assert_eq!(
                parse(&reserved),
                Err(SecretFormatError::ReservedKeyId { id: id.into() })
            );
        }
    }

    #[test]
    fn a_short_pepper_is_refused_without_quoting_it() {
        let err = parse(r#"{"pseudonym_pepper": "pepper-xyz"}"#).unwrap_err();
        assert_eq!(err, SecretFormatError::ShortPepper);
        let text = err.to_string();
        assert!(text.contains("pseudonym_pepper") && !text.contains("pepper-xyz"));
        let exact = format!(
            r#"{{"pseudonym_pepper": "{}"}}"#,
            "p".repeat(MIN_PEPPER_BYTES)
        );
        assert!(parse(&exact).is_ok());
    }

    #[test]
    fn the_front_door_proof_parses_and_a_short_one_is_refused_without_quoting_it() {
        let current = "o".repeat(MIN_ORIGIN_VERIFY_LEN);
        let s = parse(&format!(
            r#"{{"origin_verify": "{current}", "origin_verify_previous": "{current}p"}}"#
        ))
        .unwrap();
        assert_eq!(s.origin_verify.as_deref(), Some(current.as_str()));
        assert!(!format!("{s:?}").contains(&current));
        let err = parse(r#"{"origin_verify_previous": "short-proof"}"#).unwrap_err();
        assert_eq!(
            err,
            SecretFormatError::ShortOriginVerify {
                field: "origin_verify_previous"
            }
        );
        assert!(!err.to_string().contains("short-proof"));
    }
}
