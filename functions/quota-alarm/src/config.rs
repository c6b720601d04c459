//! Configuration: every environment variable, parsed once at start into typed values.
//! The names are the `const`s below; infra's `environment` keys are the same, one to one.

use std::path::PathBuf;
use std::time::Duration;

pub use env_config::ConfigError;

use crate::emf::DEFAULT_NAMESPACE;

/// Audit log groups to query, comma-separated names.
pub const LOG_GROUPS: &str = "QUOTA_LOG_GROUPS";
/// A log group name prefix; every group it matches is queried too (resolved on each run).
pub const LOG_GROUP_PREFIX: &str = "QUOTA_LOG_GROUP_PREFIX";
/// CloudWatch namespace of the quota metrics (default `HostedMcp`).
pub const EMF_NAMESPACE: &str = "QUOTA_EMF_NAMESPACE";
/// Directory of catalog files; the shipped catalogs (`connector::EMBEDDED_CATALOGS`) when unset.
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
        let env = env_config::Env::new(get);
        let lambda = env.get(LAMBDA_RUNTIME_API).is_some();
        let (log_groups, log_group_prefix) =
            env.log_groups(LOG_GROUPS, LOG_GROUP_PREFIX, lambda)?;
        let namespace = env
            .get(EMF_NAMESPACE)
            .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string());
        if namespace.chars().count() > 255 || namespace.starts_with("AWS/") {
            return Err(ConfigError::new(
                EMF_NAMESPACE,
                format!("`{namespace}` must be at most 255 characters and not start with AWS/"),
            ));
        }
        Ok(Config {
            lambda,
            log_groups,
            log_group_prefix,
            namespace,
            catalog_dir: env.get(CATALOG_DIR).map(PathBuf::from),
            query_timeout: Duration::from_secs(
                env.positive(QUERY_TIMEOUT_SECS, DEFAULT_QUERY_TIMEOUT_SECS)?,
            ),
            secret_id: env.get(SECRET_ID),
            json_logs: env.log_format(LOG_FORMAT, lambda)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        Config::from_lookup(env_config::pairs(pairs))
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
