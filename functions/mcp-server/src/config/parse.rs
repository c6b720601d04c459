//! [`Config`]: every variable parsed into typed values once, at start; each check names its
//! variable, and they run in an order that names the first bad one.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::env::EnvSnapshot;
use super::profiles::{self, Profiles};
use super::{
    ALLOWED_HOSTS, ALLOWED_ORIGINS, AUTH, BASE_URL_SUFFIX, CALL_DEADLINE_MS, CATALOG_DIR,
    CONNECT_CLIENT_ID, EMF_NAMESPACE, EXPOSE_RAW_SUFFIX, HEALTH_INTERVAL_S, HEALTH_TIMEOUT_MS,
    INBOUND_KEY_ID, INBOUND_TABLE, JOB_WAIT_MS, LAMBDA_RUNTIME_API, LEDGER_TABLE,
    LIMIT_DAILY_CALLS, LIMIT_IPV6_PREFIX, LIMIT_PER_CALLER_PER_MINUTE, LIMIT_PER_IP_PER_MINUTE,
    LIMITS, LIMITS_TABLE, LIMITS_TIMEOUT_MS, LOG_FORMAT, MAX_BODY_BYTES, MAX_RESULT_BYTES,
    ORIGIN_VERIFY_HEADER, OTLP_ENDPOINT, SECRET_ID, SECRET_TTL_SECS, TOKEN_CONFIRMS_CRITICAL,
    TRACE_SAMPLE_RATIO, TRUSTED_PROXIES, USER_HEADER_KEYS, VAULT_KEY_ID, VAULT_TABLE,
};
use crate::limits::{self, cidr::Cidr};
use crate::oauth;
use env_config::ConfigError;

/// Where the deployment secret comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum SecretSourceConfig {
    /// AWS Secrets Manager, by name or ARN.
    SecretsManager(String),
    /// Environment variables (local development and tests).
    Variables,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub lambda: bool,
    pub secret_source: SecretSourceConfig,
    pub secret_ttl: Duration,
    pub catalog_dir: Option<PathBuf>,
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
    pub max_result_bytes: usize,
    pub emf_namespace: Option<String>,
    pub health_timeout: Duration,
    /// One `/health` probe per connector per this long.
    pub health_interval: Duration,
    pub call_deadline: Duration,
    /// How long a call waits for its upstream job when the client holds no tasks.
    pub job_wait: Duration,
    pub limits: limits::Thresholds,
    /// The DynamoDB table of the shared counters; in memory per instance when unset.
    pub limits_table: Option<String>,
    pub limits_timeout: Duration,
    /// The DynamoDB table of the idempotency ledger; in memory per instance when unset.
    pub ledger_table: Option<String>,
    /// The vault's DynamoDB table and KMS key; in memory per process when unset.
    pub vault: Option<SealedTable>,
    /// The inbound events' DynamoDB table and KMS key; in memory per process when unset.
    pub inbound: Option<SealedTable>,
    /// Our client at our authorization server for the connect pages' sign-in.
    pub connect_client_id: Option<String>,
    pub trusted_proxies: Vec<Cidr>,
    /// API keys accepted (`MCP_AUTH`).
    pub api_keys: bool,
    /// OAuth access tokens accepted: the resource server's settings.
    pub oauth: Option<oauth::Settings>,
    /// This server as the authorization server (`MCP_AS_IDP_ISSUER`): the company IdP.
    pub(crate) issuer: Option<crate::issuer::IssuerSettings>,
    /// Key ids whose `x-user-email` is honoured.
    pub user_header_keys: Vec<String>,
    /// The front door's proof header (lower case), when one is configured.
    pub origin_verify_header: Option<String>,
    /// Profiles (`*`: all) whose critical tools accept a confirmation token.
    pub token_confirms_critical: Vec<String>,
    pub json_logs: bool,
    /// Where traces are exported, when they are (`MCP_OTLP_ENDPOINT`).
    pub traces: Option<crate::telemetry::Traces>,
    /// Named tool sets (`MCP_PROFILES`) and the keys limited to one (`MCP_KEY_PROFILES`).
    pub profiles: Profiles,
    /// `<CONNECTOR>_BASE_URL` and `<CONNECTOR>_EXPOSE_RAW`, by the connector's name in upper
    /// case as it stands in the variables.
    pub connector_vars: BTreeMap<String, ConnectorVars>,
}

/// What the variables set for one connector.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectorVars {
    /// Replaces the catalog's base URL (sandbox, tests).
    pub base_url: Option<String>,
    /// `true` lists and allows the connector's raw tools (anything else is false).
    pub expose_raw: bool,
}

impl Config {
    /// The configuration in this environment snapshot (see [`EnvSnapshot::local`]).
    pub fn from(env: EnvSnapshot) -> Result<Self, ConfigError> {
        Self::parse(&env)
    }

    /// Every variable parsed into typed values; the snapshot is not kept. The checks run in
    /// this order, so the first bad variable is the one named.
    pub fn parse(env: &EnvSnapshot) -> Result<Self, ConfigError> {
        let read = env_config::Env::new(|name: &str| env.raw(name).map(str::to_string));
        let lambda = env.get(LAMBDA_RUNTIME_API).is_some();
        let secret_source = secret_source(env, lambda)?;
        let allowed_hosts = allowed_hosts(&read, lambda)?;
        let trusted_proxies = trusted_proxies(&read)?;
        let allowed_origins = allowed_origins(&read)?;
        let json_logs = json_logs(env, lambda)?;
        let max_body_bytes = read.number(MAX_BODY_BYTES, 1024 * 1024)?;
        let call_deadline = call_deadline(&read)?;
        let max_result_bytes = read.number(MAX_RESULT_BYTES, 25 * 1024)?;
        if max_result_bytes < 1024 {
            return Err(ConfigError::new(MAX_RESULT_BYTES, "must be at least 1024"));
        }
        let profiles = Profiles::from_env(env)?;
        let (api_keys, oauth) = auth_modes(env, &read, &profiles)?;
        let issuer = issuer_mode(&read, oauth.as_ref(), lambda)?;
        Ok(Config {
            lambda,
            secret_source,
            secret_ttl: Duration::from_secs(read.number(SECRET_TTL_SECS, 300)?),
            catalog_dir: env.get(CATALOG_DIR).map(PathBuf::from),
            allowed_hosts,
            allowed_origins,
            max_body_bytes,
            max_result_bytes,
            emf_namespace: emf_namespace(env),
            health_timeout: Duration::from_millis(read.number(HEALTH_TIMEOUT_MS, 2000)?),
            health_interval: Duration::from_secs(read.number_in(
                HEALTH_INTERVAL_S,
                900,
                1..=86_400,
                "a number of seconds from 1 to 86400",
            )?),
            call_deadline,
            job_wait: Duration::from_millis(read.number_in(
                JOB_WAIT_MS,
                25_000,
                0..=28_000,
                "a number of milliseconds from 0 to 28000",
            )?),
            limits: limit_settings(env, &read)?,
            limits_table: env.get(LIMITS_TABLE).map(str::to_string),
            limits_timeout: Duration::from_millis(read.number(LIMITS_TIMEOUT_MS, 250)?.max(1)),
            ledger_table: env.get(LEDGER_TABLE).map(str::to_string),
            vault: sealed_table(env, (VAULT_TABLE, VAULT_KEY_ID))?,
            inbound: sealed_table(env, (INBOUND_TABLE, INBOUND_KEY_ID))?,
            connect_client_id: env.get(CONNECT_CLIENT_ID).map(str::to_string),
            trusted_proxies,
            api_keys,
            oauth,
            issuer,
            user_header_keys: read.list(USER_HEADER_KEYS),
            origin_verify_header: origin_verify_header(env)?,
            token_confirms_critical: read.list(TOKEN_CONFIRMS_CRITICAL),
            json_logs,
            traces: traces(env)?,
            profiles,
            connector_vars: connector_vars(env),
        })
    }

    /// Whether `<CONNECTOR>_EXPOSE_RAW=true` for this connector (anything else is false).
    pub fn expose_raw(&self, connector: &str) -> bool {
        self.vars_of(connector).is_some_and(|v| v.expose_raw)
    }

    /// `<CONNECTOR>_BASE_URL`, when set for this connector.
    pub fn base_url(&self, connector: &str) -> Option<&str> {
        self.vars_of(connector)?.base_url.as_deref()
    }

    fn vars_of(&self, connector: &str) -> Option<&ConnectorVars> {
        self.connector_vars.get(&connector.to_ascii_uppercase())
    }
}

/// `MCP_SECRET_ID`: required on Lambda; locally the secrets come from variables.
fn secret_source(env: &EnvSnapshot, lambda: bool) -> Result<SecretSourceConfig, ConfigError> {
    match env.get(SECRET_ID) {
        Some(id) => Ok(SecretSourceConfig::SecretsManager(id.to_string())),
        None if lambda => Err(ConfigError::new(
            SECRET_ID,
            "required on Lambda (the deployment secret)",
        )),
        None => Ok(SecretSourceConfig::Variables),
    }
}

/// `MCP_ALLOWED_HOSTS`: required on Lambda.
fn allowed_hosts<F: Fn(&str) -> Option<String>>(
    read: &env_config::Env<F>,
    lambda: bool,
) -> Result<Vec<String>, ConfigError> {
    let allowed_hosts = read.list(ALLOWED_HOSTS);
    if lambda && allowed_hosts.is_empty() {
        return Err(ConfigError::new(
            ALLOWED_HOSTS,
            "required on Lambda: the API Gateway and custom domain host names",
        ));
    }
    Ok(allowed_hosts)
}

/// `MCP_TRUSTED_PROXIES`: addresses or ranges, each parsed.
fn trusted_proxies<F: Fn(&str) -> Option<String>>(
    read: &env_config::Env<F>,
) -> Result<Vec<Cidr>, ConfigError> {
    let mut trusted_proxies = Vec::new();
    for entry in read.list(TRUSTED_PROXIES) {
        let cidr = Cidr::parse(&entry).ok_or_else(|| {
            ConfigError::new(
                TRUSTED_PROXIES,
                format!("`{entry}` is no address or range (192.0.2.0/24)"),
            )
        })?;
        trusted_proxies.push(cidr);
    }
    Ok(trusted_proxies)
}

/// `MCP_ALLOWED_ORIGINS`: each with its scheme (or `null`), as browsers send it.
fn allowed_origins<F: Fn(&str) -> Option<String>>(
    read: &env_config::Env<F>,
) -> Result<Vec<String>, ConfigError> {
    let allowed_origins = read.list(ALLOWED_ORIGINS);
    if let Some(o) = allowed_origins
        .iter()
        .find(|o| !(o.starts_with("https://") || o.starts_with("http://") || *o == "null"))
    {
        return Err(ConfigError::new(
            ALLOWED_ORIGINS,
            format!("`{o}` needs a scheme (https://…)"),
        ));
    }
    Ok(allowed_origins)
}

/// `MCP_OTLP_ENDPOINT` (an http(s) URL) and `MCP_TRACE_SAMPLE_RATIO` (0 to 1, default 1).
fn traces(env: &EnvSnapshot) -> Result<Option<crate::telemetry::Traces>, ConfigError> {
    let sample_ratio = match env.get(TRACE_SAMPLE_RATIO) {
        None => 1.0,
        Some(v) => v
            .parse::<f64>()
            .ok()
            .filter(|r| (0.0..=1.0).contains(r))
            .ok_or_else(|| {
                ConfigError::new(
                    TRACE_SAMPLE_RATIO,
                    format!("`{v}`: a share from 0 to 1 (0.1 keeps one new trace in ten)"),
                )
            })?,
    };
    let Some(endpoint) = env.get(OTLP_ENDPOINT) else {
        return Ok(None);
    };
    if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
        return Err(ConfigError::new(
            OTLP_ENDPOINT,
            format!("`{endpoint}`: an OTLP/HTTP URL (http://localhost:4318)"),
        ));
    }
    Ok(Some(crate::telemetry::Traces {
        endpoint: endpoint.to_string(),
        sample_ratio,
    }))
}

/// `MCP_LOG_FORMAT`: JSON on Lambda unless told otherwise.
fn json_logs(env: &EnvSnapshot, lambda: bool) -> Result<bool, ConfigError> {
    // Not `read.log_format`: the server's wording of this message is older, and kept.
    match env.get(LOG_FORMAT) {
        None => Ok(lambda),
        Some("json") => Ok(true),
        Some("text") => Ok(false),
        Some(other) => Err(ConfigError::new(
            LOG_FORMAT,
            format!("`{other}`: use json or text"),
        )),
    }
}

/// `MCP_CALL_DEADLINE_MS`: at least 100 ms.
fn call_deadline<F: Fn(&str) -> Option<String>>(
    read: &env_config::Env<F>,
) -> Result<Duration, ConfigError> {
    // The infra's Lambda timeout (10 s) minus the 2 s an answer and its audit line need.
    let call_deadline = Duration::from_millis(read.number(CALL_DEADLINE_MS, 8000)?);
    if call_deadline < Duration::from_millis(100) {
        return Err(ConfigError::new(CALL_DEADLINE_MS, "must be at least 100"));
    }
    Ok(call_deadline)
}

/// `MCP_EMF_NAMESPACE`: `HostedMcp` when unset, no metrics when blank.
fn emf_namespace(env: &EnvSnapshot) -> Option<String> {
    match env.raw(EMF_NAMESPACE) {
        Some(v) if v.trim().is_empty() => None,
        Some(v) => Some(v.trim().to_string()),
        None => Some("HostedMcp".to_string()),
    }
}

/// A table whose items are sealed under a KMS key (the vault's, the inbound events'): both
/// variables or neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedTable {
    pub table: String,
    pub key_id: String,
}

fn sealed_table(
    env: &EnvSnapshot,
    (table_var, key_var): (&'static str, &'static str),
) -> Result<Option<SealedTable>, ConfigError> {
    match (env.get(table_var), env.get(key_var)) {
        (None, None) => Ok(None),
        (Some(table), Some(key_id)) => Ok(Some(SealedTable {
            table: table.to_string(),
            key_id: key_id.to_string(),
        })),
        (Some(_), None) => Err(ConfigError::new(
            key_var,
            format!("is needed with {table_var} (the KMS key that seals its items)"),
        )),
        (None, Some(_)) => Err(ConfigError::new(
            table_var,
            format!("is needed with {key_var} (the table the sealed items go to)"),
        )),
    }
}

/// Every `<CONNECTOR>_BASE_URL` and `<CONNECTOR>_EXPOSE_RAW` set (blank ones are unset).
fn connector_vars(env: &EnvSnapshot) -> BTreeMap<String, ConnectorVars> {
    let mut vars: BTreeMap<String, ConnectorVars> = BTreeMap::new();
    for (connector, url) in env.ending_with(BASE_URL_SUFFIX) {
        vars.entry(connector.to_string()).or_default().base_url = Some(url.to_string());
    }
    for (connector, value) in env.ending_with(EXPOSE_RAW_SUFFIX) {
        vars.entry(connector.to_string()).or_default().expose_raw =
            value.eq_ignore_ascii_case("true");
    }
    vars
}

/// The authorization-server mode. On Lambda its table and key are required: codes and refresh
/// tokens must outlive an instance, and every instance must sign with the same key.
fn issuer_mode<F: Fn(&str) -> Option<String>>(
    read: &env_config::Env<F>,
    oauth: Option<&oauth::Settings>,
    lambda: bool,
) -> Result<Option<crate::issuer::IssuerSettings>, ConfigError> {
    use crate::issuer::settings::{CIMD_ALLOW_LOOPBACK, CIMD_TEST_CA, KEY_ID, TABLE};
    for name in [CIMD_ALLOW_LOOPBACK, CIMD_TEST_CA] {
        if lambda && read.get(name).is_some() {
            return Err(ConfigError::new(
                name,
                "a local test switch: never on Lambda (client metadata is fetched over https from public addresses only)",
            ));
        }
    }
    let settings = crate::issuer::IssuerSettings::from_env(read, oauth)?;
    if let Some(s) = settings.as_ref().filter(|_| lambda) {
        for (name, value) in [(TABLE, &s.table), (KEY_ID, &s.key_id)] {
            if value.is_none() {
                return Err(ConfigError::new(
                    name,
                    "required on Lambda with MCP_AS_IDP_ISSUER (shared by every instance)",
                ));
            }
        }
    }
    Ok(settings)
}

/// `MCP_AUTH` and the OAuth settings, whose profiles must exist.
fn auth_modes<F: Fn(&str) -> Option<String>>(
    env: &EnvSnapshot,
    read: &env_config::Env<F>,
    profiles: &Profiles,
) -> Result<(bool, Option<oauth::Settings>), ConfigError> {
    let settings = oauth::Settings::from_env(read)?;
    if let Some(missing) = settings
        .iter()
        .flat_map(|s| s.profiles())
        .find(|p| !profiles.exists(p))
    {
        return Err(ConfigError::new(
            oauth::settings::PROFILES,
            format!(
                "profile `{missing}` is not defined in {}",
                profiles::PROFILES
            ),
        ));
    }
    let modes = match env.get(AUTH) {
        None => vec!["api_key".to_string()]
            .into_iter()
            .chain(settings.is_some().then(|| "oauth".to_string()))
            .collect(),
        Some(_) => read.list(AUTH),
    };
    if let Some(other) = modes.iter().find(|m| *m != "api_key" && *m != "oauth") {
        return Err(ConfigError::new(
            AUTH,
            format!("`{other}`: use api_key, oauth or api_key,oauth"),
        ));
    }
    let (api_keys, wants_oauth) = (
        modes.iter().any(|m| m == "api_key"),
        modes.iter().any(|m| m == "oauth"),
    );
    match (wants_oauth, settings) {
        (true, None) => Err(ConfigError::new(
            AUTH,
            format!(
                "`oauth` needs {} and {}",
                oauth::settings::ISSUER,
                oauth::settings::RESOURCE_URL
            ),
        )),
        (false, _) if !api_keys => Err(ConfigError::new(AUTH, "name at least one mode")),
        (wants, settings) => Ok((api_keys, settings.filter(|_| wants))),
    }
}

/// The limits: each variable (`0` off), or all off with `MCP_LIMITS=off`.
fn limit_settings<F: Fn(&str) -> Option<String>>(
    env: &EnvSnapshot,
    read: &env_config::Env<F>,
) -> Result<limits::Thresholds, ConfigError> {
    match env.get(LIMITS).map(str::to_ascii_lowercase).as_deref() {
        None | Some("on") => {}
        Some("off") => return Ok(limits::Thresholds::OFF),
        Some(other) => {
            return Err(ConfigError::new(
                LIMITS,
                format!("`{other}`: use on or off"),
            ));
        }
    }
    let d = limits::Thresholds::DEFAULT;
    Ok(limits::Thresholds {
        per_ip_per_minute: read.number(LIMIT_PER_IP_PER_MINUTE, d.per_ip_per_minute)?,
        ipv6_prefix: read.number_in(
            LIMIT_IPV6_PREFIX,
            d.ipv6_prefix,
            32..=128,
            "a prefix length from 32 to 128",
        )?,
        per_caller_per_minute: read.number(LIMIT_PER_CALLER_PER_MINUTE, d.per_caller_per_minute)?,
        daily_calls: read.number(LIMIT_DAILY_CALLS, d.daily_calls)?,
        budgets: true,
    })
}

/// `MCP_ORIGIN_VERIFY_HEADER`: a header name (letters, digits and `-`), kept in lower case.
fn origin_verify_header(env: &EnvSnapshot) -> Result<Option<String>, ConfigError> {
    let Some(name) = env.get(ORIGIN_VERIFY_HEADER) else {
        return Ok(None);
    };
    let valid = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if !valid {
        return Err(ConfigError::new(
            ORIGIN_VERIFY_HEADER,
            "a header name of letters, digits and `-` (e.g. x-origin-verify)",
        ));
    }
    Ok(Some(name.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_defaults_need_no_aws() {
        let c = Config::from(EnvSnapshot::default()).unwrap();
        assert!(!c.lambda);
        assert_eq!(c.secret_source, SecretSourceConfig::Variables);
        assert_eq!(c.max_result_bytes, 25 * 1024);
        assert_eq!(c.emf_namespace.as_deref(), Some("HostedMcp"));
    }

    #[test]
    fn lambda_requires_secret_and_hosts_naming_the_variable() {
        let env = EnvSnapshot::from_pairs([(LAMBDA_RUNTIME_API, "127.0.0.1:9001")]);
        assert_eq!(Config::from(env).unwrap_err().name, SECRET_ID);
        let env = EnvSnapshot::from_pairs([(LAMBDA_RUNTIME_API, "x"), (SECRET_ID, "hosted-mcp")]);
        assert_eq!(Config::from(env).unwrap_err().name, ALLOWED_HOSTS);
    }

    #[test]
    fn the_local_cimd_switch_is_refused_on_lambda() {
        use crate::issuer::settings::CIMD_ALLOW_LOOPBACK;
        let local = EnvSnapshot::from_pairs([(CIMD_ALLOW_LOOPBACK, "1")]);
        assert!(Config::from(local).is_ok());
        let env = EnvSnapshot::from_pairs([
            (LAMBDA_RUNTIME_API, "x"),
            (SECRET_ID, "hosted-mcp"),
            (ALLOWED_HOSTS, "mcp.example.com"),
            (CIMD_ALLOW_LOOPBACK, "1"),
        ]);
        assert_eq!(Config::from(env).unwrap_err().name, CIMD_ALLOW_LOOPBACK);
        let env = EnvSnapshot::from_pairs([
            (LAMBDA_RUNTIME_API, "x"),
            (SECRET_ID, "hosted-mcp"),
            (ALLOWED_HOSTS, "mcp.example.com"),
            (crate::issuer::settings::CIMD_TEST_CA, "/tmp/ca.der"),
        ]);
        let refused = Config::from(env).unwrap_err().name;
        assert_eq!(refused, crate::issuer::settings::CIMD_TEST_CA);
    }

    #[test]
    fn bad_number_names_the_variable() {
        let err = Config::from(EnvSnapshot::from_pairs([(MAX_RESULT_BYTES, "lots")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "MCP_MAX_RESULT_BYTES: `lots` is not a valid number"
        );
    }

    #[test]
    fn traces_are_off_unless_an_endpoint_is_set_and_a_bad_ratio_names_its_variable() {
        assert_eq!(Config::from(EnvSnapshot::default()).unwrap().traces, None);
        let env = [(OTLP_ENDPOINT, "http://localhost:4318")];
        let on = Config::from(EnvSnapshot::from_pairs(env))
            .unwrap()
            .traces
            .unwrap();
        assert_eq!((on.endpoint.as_str(), on.sample_ratio), (env[0].1, 1.0));
        for (name, value) in [
            (TRACE_SAMPLE_RATIO, "1.5"),
            (TRACE_SAMPLE_RATIO, "a tenth"),
            (OTLP_ENDPOINT, "localhost:4318"),
        ] {
            let env = EnvSnapshot::from_pairs([(OTLP_ENDPOINT, "http://c:4318"), (name, value)]);
            assert_eq!(Config::from(env).unwrap_err().name, name, "{value}");
        }
    }

    #[test]
    fn limits_default_on_zero_turns_one_off_and_off_turns_all_off() {
        let c = Config::from(EnvSnapshot::default()).unwrap();
        assert_eq!(c.limits, limits::Thresholds::DEFAULT);
        let c = Config::from(EnvSnapshot::from_pairs([(
            LIMIT_PER_CALLER_PER_MINUTE,
            "0",
        )]))
        .unwrap();
        assert_eq!(c.limits.per_caller_per_minute, 0);
        assert_eq!(c.limits.per_ip_per_minute, 120);
        let c = Config::from(EnvSnapshot::from_pairs([(LIMITS, "off")])).unwrap();
        assert_eq!(c.limits, limits::Thresholds::OFF);
        assert_eq!(
            Config::from(EnvSnapshot::from_pairs([(LIMITS, "maybe")]))
                .unwrap_err()
                .name,
            LIMITS
        );
        let err = Config::from(EnvSnapshot::from_pairs([(
            TRUSTED_PROXIES,
            "10.0.0.0/8, cloudfront",
        )]));
        assert_eq!(err.unwrap_err().name, TRUSTED_PROXIES);
    }

    #[test]
    fn oauth_turns_on_with_its_urls_and_auth_names_the_modes() {
        let urls = [
            (oauth::settings::ISSUER, "https://login.example.com"),
            (oauth::settings::RESOURCE_URL, "https://mcp.example.com/mcp"),
        ];
        let c = Config::from(EnvSnapshot::default()).unwrap();
        assert!(c.api_keys && c.oauth.is_none());
        let c = Config::from(EnvSnapshot::from_pairs(urls)).unwrap();
        assert!(c.api_keys && c.oauth.is_some());
        let c = Config::from(EnvSnapshot::from_pairs(urls).with(AUTH, "oauth")).unwrap();
        assert!(!c.api_keys && c.oauth.is_some());
        let c = Config::from(EnvSnapshot::from_pairs(urls).with(AUTH, "api_key")).unwrap();
        assert!(c.api_keys && c.oauth.is_none());
        for bad in ["oauth", "saml", ","] {
            let err = Config::from(EnvSnapshot::from_pairs([(AUTH, bad)])).unwrap_err();
            assert_eq!(err.name, AUTH, "{bad}");
        }
        let env = EnvSnapshot::from_pairs(urls).with(oauth::settings::PROFILES, "books:rw=books");
        assert_eq!(
            Config::from(env).unwrap_err().name,
            oauth::settings::PROFILES
        );
        let env = EnvSnapshot::from_pairs(urls)
            .with(profiles::PROFILES, "books=papierkram/*")
            .with(oauth::settings::PROFILES, "books:rw=books");
        assert!(Config::from(env).unwrap().oauth.is_some());
    }

    #[test]
    fn origin_without_scheme_is_rejected() {
        let err =
            Config::from(EnvSnapshot::from_pairs([(ALLOWED_ORIGINS, "claude.ai")])).unwrap_err();
        assert_eq!(err.name, ALLOWED_ORIGINS);
    }

    #[test]
    fn expose_raw_is_opt_in_per_connector() {
        let c = Config::from(EnvSnapshot::from_pairs([("PAPIERKRAM_EXPOSE_RAW", "true")])).unwrap();
        assert!(c.expose_raw("papierkram"));
        assert!(!c.expose_raw("tickets"));
        let c = Config::from(EnvSnapshot::from_pairs([("PAPIERKRAM_EXPOSE_RAW", "yes")])).unwrap();
        assert!(!c.expose_raw("papierkram"));
    }
}
