//! Configuration: every environment variable, parsed once at start into typed values.
//! The names are the `const`s below; infra's `environment` keys are the same, one to one.

use std::path::PathBuf;
use std::time::Duration;

use crate::emf::DEFAULT_NAMESPACE;

/// Audit log groups to query, comma-separated names.
pub const LOG_GROUPS: &str = "QUOTA_LOG_GROUPS";
/// A log group name prefix; every group it matches is queried too (resolved on each run).
pub const LOG_GROUP_PREFIX: &str = "QUOTA_LOG_GROUP_PREFIX";
/// CloudWatch namespace of the quota metrics (default `HostedMcp`).
pub const EMF_NAMESPACE: &str = "QUOTA_EMF_NAMESPACE";
/// Directory of catalog files; the mcp-server's catalogs compiled in when unset.
pub const CATALOG_DIR: &str = "QUOTA_CATALOG_DIR";
/// How long one Logs Insights query may take before the run fails, seconds.
pub const QUERY_TIMEOUT_SECS: &str = "QUOTA_QUERY_TIMEOUT_SECS";
/// The deployment secret (name or ARN) holding the connector credentials; the quiet-period
/// probe of an upstream needs it. Unset: no probes, a quiet connector stays `unknown`.
pub const SECRET_ID: &str = "QUOTA_SECRET_ID";
/// `json` (Lambda default) or `text` (local default).
pub const LOG_FORMAT: &str = "QUOTA_LOG_FORMAT";
/// Set by the Lambda runtime; its presence selects Lambda mode.
pub const LAMBDA_RUNTIME_API: &str = "AWS_LAMBDA_RUNTIME_API";

/// Every variable name, for infra and the documentation.
pub const ALL: &[&str] = &[
    LOG_GROUPS,
    LOG_GROUP_PREFIX,
    EMF_NAMESPACE,
    CATALOG_DIR,
    QUERY_TIMEOUT_SECS,
    SECRET_ID,
    LOG_FORMAT,
];

const DEFAULT_QUERY_TIMEOUT_SECS: u64 = 120;

/// A bad variable: names it and says what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{name}: {problem}")]
pub struct ConfigError {
    pub name: &'static str,
    pub problem: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub lambda: bool,
    pub log_groups: Vec<String>,
    pub log_group_prefix: Option<String>,
    pub namespace: String,
    pub catalog_dir: Option<PathBuf>,
    pub query_timeout: Duration,
    pub secret_id: Option<String>,
    pub json_logs: bool,
}

impl Config {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads variables through `get` (tests pass a map); empty counts as unset.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |name: &str| {
            get(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let bad = |name, problem: String| ConfigError { name, problem };
        let lambda = get(LAMBDA_RUNTIME_API).is_some();
        let log_groups: Vec<String> = get(LOG_GROUPS)
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let log_group_prefix = get(LOG_GROUP_PREFIX);
        if lambda && log_groups.is_empty() && log_group_prefix.is_none() {
            return Err(bad(
                LOG_GROUPS,
                format!("required on Lambda (or {LOG_GROUP_PREFIX}): the audit log groups"),
            ));
        }
        let namespace = get(EMF_NAMESPACE).unwrap_or_else(|| DEFAULT_NAMESPACE.to_string());
        if namespace.chars().count() > 255 || namespace.starts_with("AWS/") {
            return Err(bad(
                EMF_NAMESPACE,
                format!("`{namespace}` must be at most 255 characters and not start with AWS/"),
            ));
        }
        let query_timeout = match get(QUERY_TIMEOUT_SECS) {
            None => DEFAULT_QUERY_TIMEOUT_SECS,
            Some(v) => v.parse().ok().filter(|s| *s > 0).ok_or_else(|| {
                bad(
                    QUERY_TIMEOUT_SECS,
                    format!("`{v}` is not a positive number"),
                )
            })?,
        };
        let json_logs = match get(LOG_FORMAT).as_deref() {
            None => lambda,
            Some("json") => true,
            Some("text") => false,
            Some(other) => {
                return Err(bad(
                    LOG_FORMAT,
                    format!("`{other}` is neither json nor text"),
                ));
            }
        };
        Ok(Config {
            lambda,
            log_groups,
            log_group_prefix,
            namespace,
            catalog_dir: get(CATALOG_DIR).map(PathBuf::from),
            query_timeout: Duration::from_secs(query_timeout),
            secret_id: get(SECRET_ID),
            json_logs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn local_defaults_need_nothing() {
        let c = config(&[]).unwrap();
        assert!(!c.lambda && !c.json_logs);
        assert_eq!(c.namespace, "HostedMcp");
        assert_eq!(c.query_timeout, Duration::from_secs(120));
        assert!(c.log_groups.is_empty() && c.catalog_dir.is_none());
    }

    #[test]
    fn lambda_needs_log_groups_or_a_prefix() {
        let err = config(&[(LAMBDA_RUNTIME_API, "127.0.0.1:9001")]).unwrap_err();
        assert_eq!(err.name, LOG_GROUPS);
        let c = config(&[
            (LAMBDA_RUNTIME_API, "127.0.0.1:9001"),
            (LOG_GROUPS, " /aws/lambda/mcp-a , ,/aws/lambda/mcp-b"),
        ])
        .unwrap();
        assert_eq!(c.log_groups, ["/aws/lambda/mcp-a", "/aws/lambda/mcp-b"]);
        assert!(c.json_logs);
        let c = config(&[
            (LAMBDA_RUNTIME_API, "x"),
            (LOG_GROUP_PREFIX, "/aws/lambda/mcp-"),
        ])
        .unwrap();
        assert_eq!(c.log_group_prefix.as_deref(), Some("/aws/lambda/mcp-"));
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (name, value) in [
            (QUERY_TIMEOUT_SECS, "soon"),
            (QUERY_TIMEOUT_SECS, "0"),
            (LOG_FORMAT, "yaml"),
            (EMF_NAMESPACE, "AWS/Lambda"),
        ] {
            let err = config(&[(name, value)]).unwrap_err();
            assert_eq!(err.name, name);
            assert!(err.to_string().contains(value), "{err}");
        }
    }
}
