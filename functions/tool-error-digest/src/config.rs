//! Configuration: every environment variable, parsed once at start into typed values. The
//! names are the `const`s below; infra's `environment` keys are the same, one to one.

use std::time::Duration;

pub use env_config::ConfigError;

use crate::email::Addresses;
use crate::trace::Region;

/// Audit log groups to query, comma-separated names.
pub const LOG_GROUPS: &str = "DIGEST_LOG_GROUPS";
/// A log group name prefix; every group it matches is queried too (resolved on each run).
pub const LOG_GROUP_PREFIX: &str = "DIGEST_LOG_GROUP_PREFIX";
/// Comma-separated e-mail addresses the digest goes to.
pub const RECIPIENTS: &str = "DIGEST_RECIPIENTS";
/// The verified SES identity the digest comes from.
pub const SENDER: &str = "DIGEST_SENDER";
/// Link to the CloudWatch dashboard, shown in the digest (`https://…`).
pub const DASHBOARD_URL: &str = "DIGEST_DASHBOARD_URL";
/// `true` (default) or `false`: mail a short "all clear" for a week without failed calls.
pub const SEND_ALL_CLEAR: &str = "DIGEST_SEND_ALL_CLEAR";
/// Put before every subject, e.g. `[prod] ` (default none).
pub const SUBJECT_PREFIX: &str = "DIGEST_SUBJECT_PREFIX";
/// How long one Logs Insights query may run before the digest fails, seconds (default 120).
pub const QUERY_TIMEOUT_SECS: &str = "DIGEST_QUERY_TIMEOUT_SECS";
/// Timeout of one AWS API call, retries included, seconds (default 30).
pub const API_TIMEOUT_SECS: &str = "DIGEST_API_TIMEOUT_SECS";
/// `json` (Lambda default) or `text` (local default).
pub const LOG_FORMAT: &str = "DIGEST_LOG_FORMAT";
/// Set by the Lambda runtime; its presence selects Lambda mode.
pub const LAMBDA_RUNTIME_API: &str = "AWS_LAMBDA_RUNTIME_API";
/// Set by the Lambda runtime: the region whose console the trace links open (the deployment's;
/// locally `run --trace-region` sets it, or this variable when it is set).
pub const TRACE_REGION: &str = "AWS_REGION";

/// Every variable name of ours, for infra and the documentation.
pub const ALL: &[&str] = &[
    LOG_GROUPS,
    LOG_GROUP_PREFIX,
    RECIPIENTS,
    SENDER,
    DASHBOARD_URL,
    SEND_ALL_CLEAR,
    SUBJECT_PREFIX,
    QUERY_TIMEOUT_SECS,
    API_TIMEOUT_SECS,
    LOG_FORMAT,
];

/// Sender and recipient of the local run's `message.eml` when none are configured.
pub const LOCAL_SENDER: &str = "tool-error-digest@localhost.invalid";
pub const LOCAL_RECIPIENT: &str = "ops@localhost.invalid";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub lambda: bool,
    pub log_groups: Vec<String>,
    pub log_group_prefix: Option<String>,
    pub addresses: Addresses,
    pub dashboard_url: Option<String>,
    /// The region of the trace links; without one the digest links no trace.
    pub trace_region: Option<Region>,
    pub send_all_clear: bool,
    pub query_timeout: Duration,
    pub api_timeout: Duration,
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

        let recipients = env.list(RECIPIENTS);
        for address in &recipients {
            check_address(address).map_err(|p| ConfigError::new(RECIPIENTS, p))?;
        }
        let sender = env.get(SENDER);
        if let Some(address) = &sender {
            check_address(address).map_err(|p| ConfigError::new(SENDER, p))?;
        }
        let (sender, recipients) = match (lambda, sender, recipients.is_empty()) {
            (true, None, _) => {
                return Err(ConfigError::new(
                    SENDER,
                    "required on Lambda: a verified SES identity",
                ));
            }
            (true, Some(_), true) => {
                return Err(ConfigError::new(
                    RECIPIENTS,
                    "required on Lambda: who gets the digest",
                ));
            }
            (_, sender, empty) => (
                sender.unwrap_or_else(|| LOCAL_SENDER.to_string()),
                if empty {
                    vec![LOCAL_RECIPIENT.to_string()]
                } else {
                    recipients
                },
            ),
        };

        let dashboard_url = env.get(DASHBOARD_URL);
        if let Some(url) = &dashboard_url {
            let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
            if !scheme_ok || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(ConfigError::new(
                    DASHBOARD_URL,
                    format!("`{url}` is not an http(s) URL without spaces"),
                ));
            }
        }
        let send_all_clear = env.bool(SEND_ALL_CLEAR, true)?;
        let subject_prefix = env
            .get(SUBJECT_PREFIX)
            .map(|p| format!("{p} "))
            .unwrap_or_default();
        let seconds = |name, default| {
            env.number_in(name, default, 1..=900, "a number of seconds from 1 to 900")
                .map(Duration::from_secs)
        };
        Ok(Config {
            lambda,
            log_groups,
            log_group_prefix,
            addresses: Addresses {
                sender,
                recipients,
                subject_prefix,
            },
            dashboard_url,
            trace_region: env
                .get(TRACE_REGION)
                .map(|r| r.parse::<Region>())
                .transpose()
                .map_err(|e| ConfigError::new(TRACE_REGION, e.to_string()))?,
            send_all_clear,
            query_timeout: seconds(QUERY_TIMEOUT_SECS, 120)?,
            api_timeout: seconds(API_TIMEOUT_SECS, 30)?,
            json_logs: env.log_format(LOG_FORMAT, lambda)?,
        })
    }
}

/// A bare `local@domain`: it goes into mail headers as is, so nothing that could start another
/// header or address (spaces, controls, `<>,;"`) is allowed.
fn check_address(address: &str) -> Result<(), String> {
    let forbidden = |c: char| c.is_whitespace() || c.is_control() || "<>,;\"()[]\\".contains(c);
    let valid = match address.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !domain.contains('@')
                && address.is_ascii()
                && !address.contains(forbidden)
        }
        None => false,
    };
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`{address}` is not a plain e-mail address (local@domain)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        Config::from_lookup(env_config::pairs(pairs))
    }

    const LAMBDA: (&str, &str) = (LAMBDA_RUNTIME_API, "127.0.0.1:9001");

    #[test]
    fn local_defaults_need_nothing() {
        let c = config(&[]).unwrap();
        assert!(!c.lambda && !c.json_logs && c.send_all_clear);
        assert_eq!(c.addresses.sender, LOCAL_SENDER);
        assert_eq!(c.addresses.recipients, [LOCAL_RECIPIENT]);
        assert_eq!(c.query_timeout, Duration::from_secs(120));
        assert_eq!(c.api_timeout, Duration::from_secs(30));
        assert_eq!(c.dashboard_url, None);
    }

    #[test]
    fn lambda_needs_log_groups_sender_and_recipients() {
        let err = config(&[LAMBDA]).unwrap_err();
        assert_eq!(err.name, LOG_GROUPS);
        let err = config(&[LAMBDA, (LOG_GROUP_PREFIX, "/aws/lambda/mcp-")]).unwrap_err();
        assert_eq!(err.name, SENDER);
        let err = config(&[LAMBDA, (LOG_GROUPS, "a"), (SENDER, "d@example.com")]).unwrap_err();
        assert_eq!(err.name, RECIPIENTS);
        let c = config(&[
            LAMBDA,
            (LOG_GROUPS, " /aws/lambda/mcp-a , ,/aws/lambda/mcp-b"),
            (SENDER, "digest@example.com"),
            (RECIPIENTS, "ops@example.com, oncall@example.com"),
            (SEND_ALL_CLEAR, "false"),
            (SUBJECT_PREFIX, "[prod]"),
            (
                DASHBOARD_URL,
                "https://console.aws.amazon.com/cloudwatch/home#dashboards",
            ),
        ])
        .unwrap();
        assert_eq!(c.log_groups, ["/aws/lambda/mcp-a", "/aws/lambda/mcp-b"]);
        assert_eq!(
            c.addresses.recipients,
            ["ops@example.com", "oncall@example.com"]
        );
        assert_eq!(c.addresses.subject_prefix, "[prod] ");
        assert!(c.json_logs && !c.send_all_clear);
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (name, value) in [
            (QUERY_TIMEOUT_SECS, "soon"),
            (QUERY_TIMEOUT_SECS, "0"),
            (API_TIMEOUT_SECS, "901"),
            (LOG_FORMAT, "yaml"),
            (SEND_ALL_CLEAR, "yes"),
            (DASHBOARD_URL, "javascript:alert(1)"),
            (SENDER, "Digest <d@example.com>"),
            (SENDER, "d@example.com\r\nBcc: x@example.com"),
            (RECIPIENTS, "ops@example.com, not-an-address"),
            (TRACE_REGION, "eu-central-1.example.com"),
        ] {
            let err = config(&[(name, value)]).unwrap_err();
            assert_eq!(err.name, name, "{value}");
            assert!(err.to_string().starts_with(name), "{err}");
        }
    }
}
