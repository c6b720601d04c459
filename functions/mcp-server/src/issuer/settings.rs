//! The authorization-server mode's settings: which company identity provider people sign in
//! at, with which client of ours there. Parsed once at start; `MCP_AS_IDP_ISSUER` turns the
//! mode on, and then `MCP_OAUTH_ISSUER` is this server's own origin (the tokens' `iss`).

use env_config::ConfigError;

/// The company identity provider's issuer (OpenID discovery at
/// `<issuer>/.well-known/openid-configuration`): turns the authorization server on.
pub(crate) const IDP_ISSUER: &str = "MCP_AS_IDP_ISSUER";
/// Our client id at that provider (a public client with PKCE in this slice).
pub(crate) const IDP_CLIENT_ID: &str = "MCP_AS_IDP_CLIENT_ID";

/// The DynamoDB table of clients, codes and refresh tokens; in memory per process when unset.
pub(crate) const TABLE: &str = "MCP_AS_TABLE";
/// The KMS asymmetric key (`ECC_NIST_P256`, sign and verify) our access tokens are signed
/// with; a key made at start when unset.
pub(crate) const KEY_ID: &str = "MCP_AS_KEY_ID";
/// KMS keys whose tokens are still accepted but which sign nothing new (comma-separated): the
/// keys a rotation retired, kept while tokens they signed may live (`ACCESS_TTL_S`). Their
/// public halves are published beside the current one.
pub(crate) const PREVIOUS_KEY_IDS: &str = "MCP_AS_PREVIOUS_KEY_IDS";
/// Test-only: a client metadata document may be fetched from a loopback IP literal (plain http,
/// or https with [`CIMD_TEST_CA`]). Start-up refuses it on Lambda (`config::parse`).
pub(crate) const CIMD_ALLOW_LOOPBACK: &str = "MCP_AS_CIMD_ALLOW_LOOPBACK";
/// Test-only, with [`CIMD_ALLOW_LOOPBACK`]: a certificate (a DER file) trusted beside the public
/// roots when fetching a metadata document, so a client may serve its document over https on a
/// loopback IP literal (the Python SDK takes only https). Start-up refuses it on Lambda.
pub(crate) const CIMD_TEST_CA: &str = "MCP_AS_CIMD_TEST_CA";

/// The ID-token claim that lists the groups (or roles) a person is in: `groups` by default
/// (Keycloak, Entra ID with group claims), `cognito:groups` for Cognito.
pub(crate) const GROUPS_CLAIM: &str = "MCP_AS_GROUPS_CLAIM";
/// Who may approve which scope: `scope=group` pairs, comma-separated (`mcp:accounting=finance,
/// mcp:accounting=owners,mcp:tools=*`; `*` is everyone signed in). When set, a scope named in
/// no pair is given to nobody; unset, everyone the provider signs in may approve every scope.
pub(crate) const SCOPE_GROUPS: &str = "MCP_AS_SCOPE_GROUPS";

/// How long an access token we issue lives.
pub(crate) const ACCESS_TTL_S: u64 = 600;
/// How long a refresh token lives (each use rotates it).
pub(crate) const REFRESH_TTL_S: u64 = 30 * 24 * 3600;
/// How long a one-time code lives.
pub(crate) const CODE_TTL_S: u64 = 60;
/// How long a sign-in and a consent page may take.
pub(crate) const FLOW_TTL_S: u64 = 600;
/// How long a registration lives before its first code; once used, [`USED_CLIENT_TTL_S`].
pub(crate) const UNUSED_CLIENT_TTL_S: u64 = 24 * 3600;
pub(crate) const USED_CLIENT_TTL_S: u64 = 90 * 24 * 3600;
/// Registrations one IP address may make per hour.
pub(crate) const REGISTRATIONS_PER_IP_HOUR: u32 = 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IssuerSettings {
    /// This server's origin, `https://host` (no path): our `iss` and where our routes are.
    pub issuer: String,
    pub idp_issuer: String,
    pub idp_client_id: String,
    pub table: Option<String>,
    pub key_id: Option<String>,
    /// [`PREVIOUS_KEY_IDS`]: only with [`KEY_ID`], never naming it.
    pub previous_key_ids: Vec<String>,
    /// The claim [`GROUPS_CLAIM`] names.
    pub groups_claim: String,
    /// [`SCOPE_GROUPS`]: `None` when every person may approve every scope.
    pub scope_groups: Option<ScopeGroups>,
    /// [`CIMD_ALLOW_LOOPBACK`]: never on Lambda.
    pub cimd_loopback: bool,
    /// [`CIMD_TEST_CA`]'s certificate (DER): never on Lambda.
    pub cimd_test_ca: Option<Vec<u8>>,
}

/// Who may approve which scope, as [`SCOPE_GROUPS`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScopeGroups(Vec<(String, String)>);

impl ScopeGroups {
    /// `scope=group` pairs; a pair without `=` or with an empty side is an error naming it.
    pub(crate) fn parse(text: &str) -> Result<ScopeGroups, String> {
        let pairs = text
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|pair| match pair.split_once('=') {
                Some((scope, group)) if !scope.trim().is_empty() && !group.trim().is_empty() => {
                    Ok((scope.trim().to_string(), group.trim().to_string()))
                }
                _ => Err(format!("`{pair}` is not `scope=group`")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if pairs.is_empty() {
            return Err("names no `scope=group` pair".into());
        }
        Ok(ScopeGroups(pairs))
    }

    /// Whether a person in `groups` may approve `scope`.
    pub(crate) fn allows(&self, scope: &str, groups: &[String]) -> bool {
        self.0
            .iter()
            .any(|(s, g)| s == scope && (g == "*" || groups.iter().any(|mine| mine == g)))
    }
}

impl IssuerSettings {
    /// `None` when the mode is off. `issuer` is `MCP_OAUTH_ISSUER` (checked by the resource
    /// server's settings), which must be the origin of `resource`, where our routes are.
    pub(crate) fn from_env<F: Fn(&str) -> Option<String>>(
        read: &env_config::Env<F>,
        oauth: Option<&crate::oauth::Settings>,
    ) -> Result<Option<IssuerSettings>, ConfigError> {
        let Some(idp_issuer) = read.get(IDP_ISSUER) else {
            if read.get(IDP_CLIENT_ID).is_some() {
                return Err(ConfigError::new(
                    IDP_ISSUER,
                    format!("required with {IDP_CLIENT_ID}"),
                ));
            }
            return Ok(None);
        };
        let origin = own_origin(oauth)?;
        let idp_client_id = read.get(IDP_CLIENT_ID).ok_or_else(|| {
            ConfigError::new(IDP_CLIENT_ID, format!("required with {IDP_ISSUER}"))
        })?;
        let (cimd_loopback, cimd_test_ca) = cimd_switches(read)?;
        let key_id = read.get(KEY_ID);
        let previous_key_ids = previous_keys(read.get(PREVIOUS_KEY_IDS), key_id.as_deref())
            .map_err(|why| ConfigError::new(PREVIOUS_KEY_IDS, why))?;
        Ok(Some(IssuerSettings {
            issuer: origin,
            idp_issuer: idp_issuer.trim_end_matches('/').to_string(),
            idp_client_id,
            table: read.get(TABLE),
            key_id,
            previous_key_ids,
            groups_claim: read.get(GROUPS_CLAIM).unwrap_or_else(|| "groups".into()),
            scope_groups: read
                .get(SCOPE_GROUPS)
                .map(|t| ScopeGroups::parse(&t).map_err(|why| ConfigError::new(SCOPE_GROUPS, why)))
                .transpose()?,
            cimd_loopback,
            cimd_test_ca,
        }))
    }
}

/// This server's origin: `MCP_OAUTH_ISSUER`, which must be the origin of `MCP_RESOURCE_URL`.
fn own_origin(oauth: Option<&crate::oauth::Settings>) -> Result<String, ConfigError> {
    let Some(oauth) = oauth else {
        return Err(ConfigError::new(
            IDP_ISSUER,
            "needs MCP_OAUTH_ISSUER (this server's origin) and MCP_RESOURCE_URL",
        ));
    };
    let origin = crate::oauth::url::origin_and_path(&oauth.resource).0;
    if oauth.issuer.trim_end_matches('/') != origin {
        return Err(ConfigError::new(
            crate::oauth::settings::ISSUER,
            format!(
                "with {IDP_ISSUER} this server is the authorization server: set it to `{origin}`, \
                 the origin of MCP_RESOURCE_URL"
            ),
        ));
    }
    Ok(origin.to_string())
}

/// [`CIMD_ALLOW_LOOPBACK`] and [`CIMD_TEST_CA`]'s certificate (local tests only).
fn cimd_switches<F: Fn(&str) -> Option<String>>(
    read: &env_config::Env<F>,
) -> Result<(bool, Option<Vec<u8>>), ConfigError> {
    let loopback = read
        .get(CIMD_ALLOW_LOOPBACK)
        .is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true"));
    let ca = test_ca(read.get(CIMD_TEST_CA), loopback)
        .map_err(|why| ConfigError::new(CIMD_TEST_CA, why))?;
    Ok((loopback, ca))
}

/// The certificate file [`CIMD_TEST_CA`] names, read once; only beside the loopback switch.
fn test_ca(path: Option<String>, loopback: bool) -> Result<Option<Vec<u8>>, String> {
    let Some(path) = path else {
        return Ok(None);
    };
    if !loopback {
        return Err(format!("only with {CIMD_ALLOW_LOOPBACK} (local tests)"));
    }
    let der = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
    Ok(Some(der))
}

/// The previous keys of [`PREVIOUS_KEY_IDS`]: distinct, none the current key, and only beside a
/// current KMS key (a key made at start has no predecessor).
fn previous_keys(text: Option<String>, current: Option<&str>) -> Result<Vec<String>, String> {
    let ids: Vec<String> = text
        .iter()
        .flat_map(|t| t.split(','))
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .collect();
    match current {
        _ if ids.is_empty() => Ok(ids),
        None => Err(format!("needs {KEY_ID}, the key that signs now")),
        Some(c) if ids.iter().any(|id| id == c) => Err(format!("names {KEY_ID} itself ({c})")),
        Some(_) if (1..ids.len()).any(|i| ids[..i].contains(&ids[i])) => {
            Err("names a key twice".into())
        }
        Some(_) => Ok(ids),
    }
}

/// The scopes `asked` (space-separated) that a person in `groups` may approve, or `None` when
/// that leaves none; all of them without a rule.
pub(crate) fn narrow(rule: Option<&ScopeGroups>, asked: &str, groups: &[String]) -> Option<String> {
    let Some(rule) = rule else {
        return Some(asked.to_string());
    };
    let kept: Vec<&str> = asked
        .split_whitespace()
        .filter(|s| rule.allows(s, groups))
        .collect();
    (!kept.is_empty()).then(|| kept.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::settings::{ISSUER, RESOURCE_URL};

    fn parse(pairs: &[(&str, &str)]) -> Result<Option<IssuerSettings>, ConfigError> {
        let read = env_config::Env::new(env_config::pairs(pairs));
        let oauth = crate::oauth::Settings::from_env(&read).unwrap();
        IssuerSettings::from_env(&read, oauth.as_ref())
    }

    #[test]
    fn on_with_the_idp_and_our_own_origin_as_issuer() {
        assert_eq!(parse(&[]).unwrap(), None);
        let on = [
            (ISSUER, "https://mcp.example.com"),
            (RESOURCE_URL, "https://mcp.example.com/mcp"),
            (IDP_ISSUER, "https://login.example.com/"),
            (IDP_CLIENT_ID, "ours"),
        ];
        let s = parse(&on).unwrap().unwrap();
        assert_eq!(s.issuer, "https://mcp.example.com");
        assert_eq!(s.idp_issuer, "https://login.example.com");
        let other = [(ISSUER, "https://login.example.com"), on[1], on[2], on[3]];
        assert_eq!(parse(&other).unwrap_err().name, ISSUER);
        assert_eq!(parse(&on[..3]).unwrap_err().name, IDP_CLIENT_ID);
        assert_eq!(parse(&on[2..]).unwrap_err().name, IDP_ISSUER);
        assert_eq!((s.groups_claim.as_str(), s.scope_groups), ("groups", None));
        let bad = [on[0], on[1], on[2], on[3], (SCOPE_GROUPS, "mcp:tools")];
        assert_eq!(parse(&bad).unwrap_err().name, SCOPE_GROUPS);
    }

    #[test]
    fn previous_keys_stand_beside_a_current_kms_key_only() {
        let ok = previous_keys(Some(" key-a, ,key-b ".into()), Some("key-c"));
        assert_eq!(ok.unwrap(), ["key-a", "key-b"]);
        assert_eq!(previous_keys(None, None).unwrap(), Vec::<String>::new());
        assert!(previous_keys(Some("key-a".into()), None).is_err());
        assert!(previous_keys(Some("key-c".into()), Some("key-c")).is_err());
        assert!(previous_keys(Some("key-a,key-a".into()), Some("key-c")).is_err());
    }

    #[test]
    fn a_scope_goes_to_the_groups_named_for_it_and_to_nobody_else() {
        let g = ScopeGroups::parse("mcp:accounting=finance, mcp:accounting=owners,mcp:tools=*")
            .unwrap();
        let finance = vec!["staff".to_string(), "finance".to_string()];
        assert!(g.allows("mcp:accounting", &finance));
        assert!(!g.allows("mcp:accounting", &["staff".to_string()]));
        assert!(g.allows("mcp:tools", &[]));
        assert!(!g.allows("mcp:calendar", &finance), "named in no pair");
        let asked = "mcp:accounting mcp:calendar mcp:tools";
        assert_eq!(
            narrow(Some(&g), asked, &finance).as_deref(),
            Some("mcp:accounting mcp:tools")
        );
        assert_eq!(narrow(Some(&g), "mcp:calendar", &finance), None);
        assert_eq!(narrow(None, asked, &[]).as_deref(), Some(asked));
        assert!(ScopeGroups::parse(" , ").is_err());
        assert!(ScopeGroups::parse("mcp:tools=").is_err());
    }
}
