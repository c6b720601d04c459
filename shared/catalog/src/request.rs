//! Reaching a connector's upstream the same way from every function: the base URL with its
//! `{field}` placeholders filled from the secret, and the credential to send (the quota figures
//! of an answer are `quota.rs`). Pure: secret fields come in as lookups, so the mcp-server and
//! quota-alarm (its quiet-period probe) build identical requests.

use crate::{Auth, Catalog, Tool, placeholders};

/// A secret field a request needs is missing or unusable; names the field, never its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    #[error("secret field `{0}` is not set")]
    Missing(String),
    #[error("secret field `{0}` is not a plain host name part")]
    NotHostSafe(String),
}

impl CredentialError {
    pub fn field(&self) -> &str {
        match self {
            CredentialError::Missing(f) | CredentialError::NotHostSafe(f) => f,
        }
    }
}

/// `template` with each `{field}` replaced by that secret field. A value must be a plain host
/// name part (letters, digits, `-`, `.`, `:`), so a secret cannot move the request elsewhere.
pub fn fill_base_url(
    template: &str,
    field: impl Fn(&str) -> Option<String>,
) -> Result<String, CredentialError> {
    let mut out = template.to_string();
    for name in placeholders(template) {
        let value = field(name).ok_or_else(|| CredentialError::Missing(name.to_string()))?;
        let host_safe = !value.is_empty()
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-.:".contains(c));
        if !host_safe {
            return Err(CredentialError::NotHostSafe(name.to_string()));
        }
        out = out.replace(&format!("{{{name}}}"), &value);
    }
    Ok(out)
}

/// What a request carries to authenticate.
#[derive(Clone, PartialEq, Eq)]
pub enum Credential {
    /// `Authorization: Bearer <token>`.
    Bearer(String),
    /// A named header with the secret (or the filled template) as its value.
    Header { name: String, value: String },
    /// A query parameter with the secret as its value; the URL that carries it is never shown.
    Query { name: String, value: String },
    /// HTTP basic authentication.
    Basic {
        username: String,
        password: Option<String>,
    },
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credential::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            Credential::Header { name, .. } => write!(f, "Header({name}: <redacted>)"),
            Credential::Query { name, .. } => write!(f, "Query({name}=<redacted>)"),
            Credential::Basic { .. } => f.write_str("Basic(<redacted>)"),
        }
    }
}

/// `template` with each `{field}` replaced by that secret field, in one pass (a value that
/// itself holds `{…}` is not filled again).
pub fn fill_secret_template(
    template: &str,
    field: impl Fn(&str) -> Option<String>,
) -> Result<String, CredentialError> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + close];
        let value = field(name).ok_or_else(|| CredentialError::Missing(name.to_string()))?;
        out.push_str(&rest[..open]);
        out.push_str(&value);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

impl Auth {
    /// The credential of a request; `None` when the catalog declares no auth.
    pub fn credential(
        &self,
        field: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Credential>, CredentialError> {
        let secret = |name: &str| field(name).ok_or_else(|| CredentialError::Missing(name.into()));
        if let Some(basic) = &self.basic {
            return Ok(Some(Credential::Basic {
                username: secret(&basic.username)?,
                password: basic.password.as_deref().map(secret).transpose()?,
            }));
        }
        if let (Some(name), Some(template)) = (&self.header, &self.value) {
            return Ok(Some(Credential::Header {
                name: name.to_string(),
                value: fill_secret_template(template, &field)?,
            }));
        }
        let Some(name) = self.bearer.as_deref().or(self.secret.as_deref()) else {
            return Ok(None);
        };
        let value = secret(name)?;
        Ok(Some(match (&self.header, &self.query) {
            (Some(header), _) => Credential::Header {
                name: header.to_string(),
                value,
            },
            (None, Some(query)) => Credential::Query {
                name: query.to_string(),
                value,
            },
            (None, None) => Credential::Bearer(value),
        }))
    }
}

impl Catalog {
    /// The static headers of a request for `tool` (`None`: a probe): the connector's, then the
    /// tool's, a tool header replacing the connector's of the same name (any case).
    pub fn static_headers<'a>(&'a self, tool: Option<&'a Tool>) -> Vec<(&'a str, &'a str)> {
        let own = tool.map(|t| &t.headers);
        let mut out: Vec<(&str, &str)> = self
            .headers
            .iter()
            .filter(|(name, _)| {
                !own.is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case(name)))
            })
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        out.extend(
            own.into_iter()
                .flatten()
                .map(|(n, v)| (n.as_str(), v.as_str())),
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn base_url_fields_are_filled_and_must_be_host_safe() {
        let template = "https://{subdomain}.papierkram.de/api/v1";
        let url = fill_base_url(template, lookup(&[("subdomain", "nordlicht")])).unwrap();
        assert_eq!(url, "https://nordlicht.papierkram.de/api/v1");
        for bad in ["evil.com/x?", "", "a b", "x@y"] {
            let err = fill_base_url(template, lookup(&[("subdomain", bad)])).unwrap_err();
            assert_eq!(
                err,
                CredentialError::NotHostSafe("subdomain".into()),
                "{bad}"
            );
        }
        let err = fill_base_url(template, lookup(&[])).unwrap_err();
        assert_eq!(err.to_string(), "secret field `subdomain` is not set");
    }

    #[test]
    fn credential_is_bearer_or_a_named_header_and_never_printed() {
        let bearer = Auth {
            bearer: Some("token".into()),
            ..Auth::default()
        };
        let c = bearer.credential(lookup(&[("token", "s3cret")])).unwrap();
        assert_eq!(c, Some(Credential::Bearer("s3cret".into())));
        assert!(!format!("{c:?}").contains("s3cret"));
        let header = Auth {
            header: Some("X-Api-Key".into()),
            secret: Some("key".into()),
            ..Auth::default()
        };
        let c = header
            .credential(lookup(&[("key", "k-1")]))
            .unwrap()
            .unwrap();
        assert!(
            matches!(&c, Credential::Header { name, value } if name == "X-Api-Key" && value == "k-1")
        );
        assert!(!format!("{c:?}").contains("k-1"));
        assert_eq!(Auth::default().credential(lookup(&[])).unwrap(), None);
        let err = bearer.credential(lookup(&[])).unwrap_err();
        assert_eq!(err.field(), "token");
    }
}
