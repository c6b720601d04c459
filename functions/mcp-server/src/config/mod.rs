//! Configuration: every environment variable, parsed once at start into typed values
//! (`parse`: the [`Config`]; `env`: the snapshot they are read from; `profiles`: the named tool
//! sets).
//!
//! The names are the `const`s below; infra sets the same names one to one. Locally a git-ignored
//! `.env.local` supplies defaults that real environment variables override; `.env.example`
//! documents every variable, and the configuration table of this crate's docs/configuration.md lists exactly
//! the variables read (both checked by the tests below).

pub(crate) mod env;
mod parse;
pub(crate) mod profiles;

use crate::oauth;
pub use env::EnvSnapshot;
pub(crate) use env_config::ConfigError;
pub use parse::Config;
pub(crate) use parse::SecretSourceConfig;

/// Secrets Manager secret (name or ARN) holding API keys, pepper and connector credentials.
pub(crate) const SECRET_ID: &str = "MCP_SECRET_ID";
/// How long a loaded secret is trusted before it is re-read.
pub(crate) const SECRET_TTL_SECS: &str = "MCP_SECRET_TTL_SECS";
/// Local only: `id:key` pairs, comma-separated, used when no secret id is set.
pub(crate) const API_KEYS: &str = "MCP_API_KEYS";
/// Local only: the pepper for user pseudonyms.
pub(crate) const PSEUDONYM_PEPPER: &str = "MCP_PSEUDONYM_PEPPER";
/// Local only: confirmation signing keys, comma-separated (the first signs); one is generated
/// for the run when unset.
pub(crate) const CONFIRMATION_KEYS: &str = "MCP_CONFIRMATION_KEYS";
/// Local only, like the other secrets read from variables: our client's secret at the company
/// IdP of the authorization server (on Lambda the deployment secret's `idp_client_secret`);
/// set, the client there is confidential.
pub(crate) const IDP_CLIENT_SECRET: &str = "MCP_AS_IDP_CLIENT_SECRET";
/// Profiles (or `*` for the whole deployment) whose `critical` tools accept a confirmation
/// token; elsewhere they need a person's answer through the client (elicitation).
pub(crate) const TOKEN_CONFIRMS_CRITICAL: &str = "MCP_TOKEN_CONFIRMS_CRITICAL";
/// Directory of catalog files; the catalogs embedded in the binary when unset.
pub(crate) const CATALOG_DIR: &str = "MCP_CATALOG_DIR";
/// Host names (optionally `host:port`) clients may address, comma-separated.
pub(crate) const ALLOWED_HOSTS: &str = "MCP_ALLOWED_HOSTS";
/// Browser origins allowed to call, comma-separated (`https://claude.ai`); others get 403.
pub(crate) const ALLOWED_ORIGINS: &str = "MCP_ALLOWED_ORIGINS";
/// Largest request body, bytes.
pub(crate) const MAX_BODY_BYTES: &str = "MCP_MAX_BODY_BYTES";
/// Largest tool result, bytes, before it is cut with a hint.
pub(crate) const MAX_RESULT_BYTES: &str = "MCP_MAX_RESULT_BYTES";
/// CloudWatch namespace for the metrics riding on audit lines; empty turns them off.
pub(crate) const EMF_NAMESPACE: &str = "MCP_EMF_NAMESPACE";
/// Timeout of each `/health` probe, milliseconds.
pub(crate) const HEALTH_TIMEOUT_MS: &str = "MCP_HEALTH_TIMEOUT_MS";
/// One `/health` probe per connector per this many seconds, for the whole deployment when the
/// limits table is there.
pub(crate) const HEALTH_INTERVAL_S: &str = "MCP_HEALTH_INTERVAL_S";
/// The most one tool call may take, milliseconds, every upstream request and page included;
/// below the Lambda timeout so a slow upstream still ends in a result and an audit line.
pub(crate) const CALL_DEADLINE_MS: &str = "MCP_CALL_DEADLINE_MS";
/// How long a tool call waits for the upstream job it started when the client holds no MCP
/// tasks, milliseconds (then it answers `pending`); at most 28000, below API Gateway's 30 s.
pub(crate) const JOB_WAIT_MS: &str = "MCP_JOB_WAIT_MS";
/// Requests per client IP per minute, before authentication (0: off).
pub(crate) const LIMIT_PER_IP_PER_MINUTE: &str = "MCP_LIMIT_PER_IP_PER_MINUTE";
/// The IPv6 prefix length the per-IP limit counts a client under (32 to 128, default 64).
pub(crate) const LIMIT_IPV6_PREFIX: &str = "MCP_LIMIT_IPV6_PREFIX";
/// Tool calls per caller (API key, or user) per minute (0: off).
pub(crate) const LIMIT_PER_CALLER_PER_MINUTE: &str = "MCP_LIMIT_PER_CALLER_PER_MINUTE";
/// Tool calls of the whole deployment per UTC day (0: off).
pub(crate) const LIMIT_DAILY_CALLS: &str = "MCP_LIMIT_DAILY_CALLS";
/// `off` turns every limit off at once (benchmarks, load tests).
pub(crate) const LIMITS: &str = "MCP_LIMITS";
/// DynamoDB table holding the shared limit and budget counters; in-memory counters per instance
/// when unset (the local default).
pub(crate) const LIMITS_TABLE: &str = "MCP_LIMITS_TABLE";
/// DynamoDB table of the idempotency ledger (writes run once); in memory per instance when
/// unset (the local default).
pub(crate) const LEDGER_TABLE: &str = "MCP_LEDGER_TABLE";
/// DynamoDB table of the vault (each person's own upstream tokens, connectors with
/// `auth: oauth_user`); with `MCP_VAULT_KEY_ID`. In memory per process when unset.
pub(crate) const VAULT_TABLE: &str = "MCP_VAULT_TABLE";
/// The KMS key (id, ARN or alias) whose data keys seal the vault's tokens; with
/// `MCP_VAULT_TABLE`.
pub(crate) const VAULT_KEY_ID: &str = "MCP_VAULT_KEY_ID";
/// DynamoDB table of the events upstreams push to `/inbound/<connector>` (webhooks), with
/// `MCP_INBOUND_KEY_ID`. In memory per process when unset.
pub(crate) const INBOUND_TABLE: &str = "MCP_INBOUND_TABLE";
/// The KMS key (id, ARN or alias) whose data keys seal the inbound events; with
/// `MCP_INBOUND_TABLE`.
pub(crate) const INBOUND_KEY_ID: &str = "MCP_INBOUND_KEY_ID";
/// Our public OAuth client at our own authorization server, with which `/connect/<connector>`
/// signs a person in before connecting their upstream account (PKCE, no secret).
pub(crate) const CONNECT_CLIENT_ID: &str = "MCP_CONNECT_CLIENT_ID";
/// How long a tool call waits for the counter table before it falls back to in-memory counters,
/// milliseconds.
pub(crate) const LIMITS_TIMEOUT_MS: &str = "MCP_LIMITS_TIMEOUT_MS";
/// Proxies whose `X-Forwarded-For` is trusted for the client IP: addresses or ranges,
/// comma-separated (e.g. CloudFront's origin-facing ranges); none by default.
pub(crate) const TRUSTED_PROXIES: &str = "MCP_TRUSTED_PROXIES";
/// Which credentials are accepted: `api_key`, `oauth` or both (`api_key,oauth`); `api_key` alone
/// unless `MCP_OAUTH_ISSUER` is set, then both.
pub(crate) const AUTH: &str = "MCP_AUTH";
/// API key ids trusted to assert the end user in `x-user-email` (Open WebUI's forwarded user
/// header); other callers' header is ignored.
pub(crate) const USER_HEADER_KEYS: &str = "MCP_USER_HEADER_KEYS";
/// The header a front door (CloudFront) proves itself with: every request must carry the
/// deployment secret's `origin_verify` in it. Unset: no front door to prove.
pub(crate) const ORIGIN_VERIFY_HEADER: &str = "MCP_ORIGIN_VERIFY_HEADER";
/// The OTLP/HTTP collector traces are exported to (`http://localhost:4318`, the AWS Distro for
/// OpenTelemetry layer's on Lambda); no traces when unset.
pub(crate) const OTLP_ENDPOINT: &str = "MCP_OTLP_ENDPOINT";
/// The share of new traces kept, 0 to 1 (default 1); a client's `traceparent` decides for its
/// own trace.
pub(crate) const TRACE_SAMPLE_RATIO: &str = "MCP_TRACE_SAMPLE_RATIO";
/// `json` (Lambda default) or `text` (local default).
pub(crate) const LOG_FORMAT: &str = "MCP_LOG_FORMAT";
/// Set by the Lambda runtime; its presence selects Lambda mode.
pub(crate) const LAMBDA_RUNTIME_API: &str = "AWS_LAMBDA_RUNTIME_API";
/// Per connector: `<CONNECTOR>_EXPOSE_RAW=true` lists and allows its raw tools.
pub(crate) const EXPOSE_RAW_SUFFIX: &str = "_EXPOSE_RAW";
/// Per connector: `<CONNECTOR>_BASE_URL` replaces the catalog's base URL (sandbox, tests).
pub(crate) const BASE_URL_SUFFIX: &str = "_BASE_URL";

/// Every fixed variable name, for the documentation check.
pub(crate) const ALL: &[&str] = &[
    SECRET_ID,
    SECRET_TTL_SECS,
    API_KEYS,
    PSEUDONYM_PEPPER,
    CONFIRMATION_KEYS,
    TOKEN_CONFIRMS_CRITICAL,
    CATALOG_DIR,
    ALLOWED_HOSTS,
    ALLOWED_ORIGINS,
    MAX_BODY_BYTES,
    MAX_RESULT_BYTES,
    EMF_NAMESPACE,
    HEALTH_TIMEOUT_MS,
    HEALTH_INTERVAL_S,
    CALL_DEADLINE_MS,
    JOB_WAIT_MS,
    LIMIT_PER_IP_PER_MINUTE,
    LIMIT_IPV6_PREFIX,
    LIMIT_PER_CALLER_PER_MINUTE,
    LIMIT_DAILY_CALLS,
    LIMITS,
    LIMITS_TABLE,
    LIMITS_TIMEOUT_MS,
    LEDGER_TABLE,
    VAULT_TABLE,
    VAULT_KEY_ID,
    INBOUND_TABLE,
    INBOUND_KEY_ID,
    CONNECT_CLIENT_ID,
    TRUSTED_PROXIES,
    AUTH,
    USER_HEADER_KEYS,
    ORIGIN_VERIFY_HEADER,
    LOG_FORMAT,
    OTLP_ENDPOINT,
    TRACE_SAMPLE_RATIO,
    oauth::settings::ISSUER,
    oauth::settings::RESOURCE_URL,
    oauth::settings::PROFILES,
    oauth::settings::PROFILE_CLAIM,
    oauth::settings::AUDIENCE_CLAIM,
    oauth::settings::AUDIENCE,
    oauth::settings::ALGORITHMS,
    oauth::settings::LEEWAY_SECS,
    oauth::settings::TIMEOUT_MS,
    oauth::settings::TOKEN_TYPES,
    crate::issuer::settings::IDP_ISSUER,
    crate::issuer::settings::IDP_CLIENT_ID,
    IDP_CLIENT_SECRET,
    crate::issuer::settings::TABLE,
    crate::issuer::settings::KEY_ID,
    crate::issuer::settings::PREVIOUS_KEY_IDS,
    crate::issuer::settings::GROUPS_CLAIM,
    crate::issuer::settings::SCOPE_GROUPS,
    crate::issuer::settings::CIMD_ALLOW_LOOPBACK,
    crate::issuer::settings::CIMD_TEST_CA,
    profiles::PROFILES,
    profiles::KEY_PROFILES,
    profiles::DEFAULT_PROFILE,
];

/// A set `MCP_*` variable this server does not read, and the name it most likely meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    pub name: String,
    pub meant: Option<&'static str>,
}

/// Every set variable that starts with `MCP_` but is none of `ALL`: a mistyped name
/// (`MCP_LIMTS=off`) would otherwise be ignored without a word. Sorted by name.
pub fn unknown_variables(env: &EnvSnapshot) -> Vec<Unknown> {
    let mut unknown: Vec<Unknown> = env
        .names()
        .filter(|n| n.starts_with("MCP_") && !ALL.contains(n))
        .map(|name| Unknown {
            name: name.to_string(),
            meant: crate::contract::names::closest(name, ALL.iter().copied()),
        })
        .collect();
    unknown.sort_by(|a, b| a.name.cmp(&b.name));
    unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_mcp_variable_is_named_with_what_it_likely_meant() {
        let env = EnvSnapshot::from_pairs([
            ("MCP_LIMTS", "off"),
            ("MCP_LIMITS", "off"),
            ("MCP_WHATEVER_THIS_IS", "1"),
            ("PATH", "/bin"),
        ]);
        assert_eq!(
            unknown_variables(&env),
            [
                Unknown {
                    name: "MCP_LIMTS".into(),
                    meant: Some(LIMITS)
                },
                Unknown {
                    name: "MCP_WHATEVER_THIS_IS".into(),
                    meant: None
                },
            ]
        );
    }

    #[test]
    fn env_example_documents_every_variable() {
        let example = include_str!("../../../../.env.example");
        for name in ALL
            .iter()
            .chain([&"PAPIERKRAM_EXPOSE_RAW", &"PAPIERKRAM_BASE_URL"])
        {
            assert!(
                example.contains(&format!("# {name}=")),
                "{name} is not in .env.example"
            );
        }
    }

    /// The variable names in the first column of the table under `## Configuration` in a README,
    /// or of a page titled `# Configuration` (every backticked name in that column: one row may
    /// name two variables).
    fn configuration_table(readme: &str, file: &str) -> std::collections::BTreeSet<String> {
        let section = readme
            .strip_prefix("# Configuration\n")
            .or_else(|| readme.split("\n## Configuration\n").nth(1))
            .unwrap_or_else(|| panic!("{file} has no `## Configuration` section"));
        let rows: Vec<&str> = section
            .lines()
            .skip_while(|l| !l.starts_with("| variable |"))
            .skip(2) // the header and the |---| line
            .take_while(|l| l.starts_with('|'))
            .collect();
        assert!(
            !rows.is_empty(),
            "{file}: no `| variable | …` table under `## Configuration`"
        );
        rows.iter()
            .flat_map(|row| {
                let first = row.split('|').nth(1).unwrap_or_default();
                first.split('`').skip(1).step_by(2).map(str::to_string)
            })
            .collect()
    }

    /// Compares a README's configuration table with the variables the code reads, both ways,
    /// naming every variable that is only on one side.
    fn assert_table_lists_exactly(
        file: &str,
        readme: &str,
        read: impl IntoIterator<Item = String>,
    ) {
        let read: std::collections::BTreeSet<String> = read.into_iter().collect();
        let table = configuration_table(readme, file);
        let missing: Vec<_> = read.difference(&table).collect();
        let extra: Vec<_> = table.difference(&read).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{file}, `## Configuration` table: read by the code but without a row: {missing:?}; \
             a row but not read by the code: {extra:?}"
        );
    }

    /// Read outside the `const`s here: the Lambda runtime's variable, and `RUST_LOG` through
    /// `audit::init_tracing` (`level` and `target=level` directives), in all three functions.
    const READ_BY_EVERY_FUNCTION: [&str; 2] = [LAMBDA_RUNTIME_API, "RUST_LOG"];

    #[test]
    fn readme_configuration_table_lists_exactly_the_variables_read() {
        let read = ALL
            .iter()
            .chain(&READ_BY_EVERY_FUNCTION)
            .map(|name| name.to_string())
            .chain(
                // Per connector: its secret fields (`secrets.rs`), base URL and raw tools.
                ["_<FIELD>", BASE_URL_SUFFIX, EXPOSE_RAW_SUFFIX]
                    .map(|suffix| format!("<CONNECTOR>{suffix}")),
            );
        assert_table_lists_exactly(
            "functions/mcp-server/docs/configuration.md",
            include_str!("../../docs/configuration.md"),
            read,
        );
    }

    /// The `pub const NAME: &str = "VALUE";` lines of a `config.rs` whose value is a variable
    /// name (capitals, digits and `_`). The scheduled functions are not dependencies of this
    /// crate, so their source is read as text.
    fn variable_consts(source: &str) -> Vec<String> {
        source
            .lines()
            .filter_map(|l| l.trim().strip_prefix("pub const "))
            .filter_map(|l| l.split_once(": &str = \"")?.1.strip_suffix("\";"))
            .filter(|v| {
                v.contains('_')
                    && v.chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            })
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn scheduled_functions_configuration_tables_list_exactly_their_variables() {
        for (file, readme, source) in [
            (
                "functions/tool-error-digest/README.md",
                include_str!("../../../tool-error-digest/README.md"),
                include_str!("../../../tool-error-digest/src/config.rs"),
            ),
            (
                "functions/quota-alarm/README.md",
                include_str!("../../../quota-alarm/README.md"),
                include_str!("../../../quota-alarm/src/config.rs"),
            ),
        ] {
            let consts = variable_consts(source);
            assert!(
                consts.len() > 5 && consts.iter().any(|c| c == LAMBDA_RUNTIME_API),
                "{file}: the `pub const` lines of its config.rs were not found: {consts:?}"
            );
            let read = consts
                .into_iter()
                .chain(READ_BY_EVERY_FUNCTION.map(str::to_string));
            assert_table_lists_exactly(file, readme, read);
        }
    }

    #[test]
    fn the_table_check_names_what_is_missing_and_what_is_extra() {
        let readme = "# x\n\n## Configuration\n\nText.\n\n| variable | meaning |\n|---|---|\n\
                      | `A_ONE` / `A_TWO` | two |\n| `B_GONE` | stale |\n\nAfter.\n| `NOT_A_ROW` |\n";
        assert_eq!(
            configuration_table(readme, "x")
                .into_iter()
                .collect::<Vec<_>>(),
            ["A_ONE", "A_TWO", "B_GONE"]
        );
        let failure = std::panic::catch_unwind(|| {
            assert_table_lists_exactly("x", readme, ["A_ONE", "A_TWO", "C_NEW"].map(String::from))
        })
        .unwrap_err();
        let message = failure.downcast_ref::<String>().unwrap();
        assert!(
            message.contains("\"C_NEW\"") && message.contains("\"B_GONE\""),
            "{message}"
        );
        assert_eq!(
            variable_consts("pub const X: &str = \"X_Y\";\npub const S: &str = \"a@b.c\";"),
            ["X_Y"]
        );
    }
}
