//! The OAuth settings: which authorization server, which resource, which claims say what. Parsed
//! once at start from the environment; `MCP_OAUTH_ISSUER` and `MCP_RESOURCE_URL` turn OAuth on.

use std::time::Duration;

use env_config::ConfigError;
use jsonwebtoken::Algorithm;

/// The authorization server's issuer URL (https; plain http only on loopback, for tests).
pub(crate) const ISSUER: &str = "MCP_OAUTH_ISSUER";
/// The canonical URL clients connect to (`https://mcp.example.com/mcp`), which is also the
/// audience of its tokens; a profile's resource is `<MCP_RESOURCE_URL>/<profile>`.
pub(crate) const RESOURCE_URL: &str = "MCP_RESOURCE_URL";
/// Claim values that grant profiles: `value=profile,…`, `*` for the whole deployment.
pub(crate) const PROFILES: &str = "MCP_OAUTH_PROFILES";
/// The claim whose values map to profiles (`scope`, `scp`, `cognito:groups`, `roles`).
pub(crate) const PROFILE_CLAIM: &str = "MCP_OAUTH_PROFILE_CLAIM";
/// The claim that must name this resource (`aud`; `client_id` for Cognito access tokens).
pub(crate) const AUDIENCE_CLAIM: &str = "MCP_OAUTH_AUDIENCE_CLAIM";
/// Accepted values of that claim, comma-separated; the resource URLs when unset.
pub(crate) const AUDIENCE: &str = "MCP_OAUTH_AUDIENCE";
/// Accepted signature algorithms, comma-separated; asymmetric ones only.
pub(crate) const ALGORITHMS: &str = "MCP_OAUTH_ALGORITHMS";
/// Clock skew allowed on `exp` and `nbf`, seconds.
pub(crate) const LEEWAY_SECS: &str = "MCP_OAUTH_LEEWAY_SECS";
/// Timeout of one metadata or key-set request to the authorization server, milliseconds.
pub(crate) const TIMEOUT_MS: &str = "MCP_OAUTH_TIMEOUT_MS";
/// Accepted values of the token header's `typ`, comma-separated, compared without case and
/// without an `application/` prefix; `none` admits a header without `typ`. Default `at+jwt`
/// (RFC 9068), `none` for a Cognito issuer (its access tokens carry no `typ`).
pub(crate) const TOKEN_TYPES: &str = "MCP_OAUTH_TOKEN_TYPES";

/// What a claim value grants when it is not configured otherwise.
pub(crate) const DEFAULT_GRANTS: &str = "mcp:tools=*";

const DEFAULT_ALGORITHMS: [Algorithm; 4] = [
    Algorithm::RS256,
    Algorithm::PS256,
    Algorithm::ES256,
    Algorithm::EdDSA,
];

/// One claim value and what it opens: a profile, or the whole deployment (`None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileClaim {
    pub value: String,
    pub profile: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Compared literally with the tokens' `iss`.
    pub issuer: String,
    /// The canonical resource URL, without a trailing slash.
    pub resource: String,
    pub grants: Vec<ProfileClaim>,
    pub profile_claim: String,
    pub audience_claim: String,
    /// Configured audience values; `None`: the resource URL of the path called.
    pub audience: Option<Vec<String>>,
    pub algorithms: Vec<Algorithm>,
    pub leeway: Duration,
    pub timeout: Duration,
    /// Accepted header `typ` values, lower case without `application/`; `None` in the list
    /// admits a header without one.
    pub token_types: Vec<Option<String>>,
    /// Whether `token_use: access` must be present (a Cognito issuer: its ID tokens are signed
    /// by the same pool, and nothing else tells them apart).
    pub require_token_use: bool,
}

impl Settings {
    /// `None` when OAuth is off (neither the issuer nor the resource URL is set).
    pub fn from_env<F: Fn(&str) -> Option<String>>(
        read: &env_config::Env<F>,
    ) -> Result<Option<Settings>, ConfigError> {
        let (issuer, resource) = match (read.get(ISSUER), read.get(RESOURCE_URL)) {
            (None, None) => return Ok(None),
            (Some(_), None) => {
                return Err(ConfigError::new(
                    RESOURCE_URL,
                    format!("required with {ISSUER}: the URL clients connect to (https://…/mcp)"),
                ));
            }
            (None, Some(_)) => {
                return Err(ConfigError::new(
                    ISSUER,
                    format!("required with {RESOURCE_URL}: the authorization server's issuer URL"),
                ));
            }
            (Some(i), Some(r)) => (i, r),
        };
        check_url(ISSUER, &issuer)?;
        check_url(RESOURCE_URL, &resource)?;
        let algorithms = match read.get(ALGORITHMS) {
            None => DEFAULT_ALGORITHMS.to_vec(),
            Some(_) => read
                .list(ALGORITHMS)
                .iter()
                .map(|a| algorithm(a))
                .collect::<Result<_, _>>()?,
        };
        if algorithms.is_empty() {
            return Err(ConfigError::new(ALGORITHMS, "name at least one algorithm"));
        }
        let audience = Some(read.list(AUDIENCE)).filter(|a| !a.is_empty());
        let cognito = is_cognito(&issuer);
        let token_types = match read.get(TOKEN_TYPES) {
            Some(_) => read
                .list(TOKEN_TYPES)
                .iter()
                .map(|t| token_type(t))
                .collect(),
            None if cognito => vec![None],
            None => vec![Some("at+jwt".to_string())],
        };
        if token_types.is_empty() {
            return Err(ConfigError::new(
                TOKEN_TYPES,
                "name at least one token type (`at+jwt`, `jwt`, or `none`)",
            ));
        }
        Ok(Some(Settings {
            issuer,
            resource: resource.trim_end_matches('/').to_string(),
            grants: grants(&read.get(PROFILES).unwrap_or(DEFAULT_GRANTS.to_string()))?,
            profile_claim: read.get(PROFILE_CLAIM).unwrap_or("scope".into()),
            audience_claim: read.get(AUDIENCE_CLAIM).unwrap_or("aud".into()),
            audience,
            algorithms,
            leeway: Duration::from_secs(read.number_in(
                LEEWAY_SECS,
                30,
                0..=300,
                "0 to 300 seconds",
            )?),
            timeout: Duration::from_millis(read.number_in(
                TIMEOUT_MS,
                2000,
                100..=10_000,
                "100 to 10000 ms",
            )?),
            token_types,
            require_token_use: cognito,
        }))
    }

    /// Whether a token header's `typ` (absent: `None`) is one of the accepted ones.
    pub fn accepts_type(&self, typ: Option<&str>) -> bool {
        self.token_types.contains(&typ.and_then(token_type))
    }

    /// The resource URL of `/mcp` (`None`) or `/mcp/<profile>`.
    pub fn resource_for(&self, profile: Option<&str>) -> String {
        match profile {
            None => self.resource.clone(),
            Some(p) => format!("{}/{p}", self.resource),
        }
    }

    /// The claim values that open `profile` (`None`: the whole deployment), narrowest first:
    /// those naming the profile, then those opening everything.
    pub fn values_for(&self, profile: Option<&str>) -> Vec<&str> {
        let named = self
            .grants
            .iter()
            .filter(|g| profile.is_some() && g.profile.as_deref() == profile);
        let all = self.grants.iter().filter(|g| g.profile.is_none());
        named.chain(all).map(|g| g.value.as_str()).collect()
    }

    /// Every profile a grant names, for the start-up check against `MCP_PROFILES`.
    pub fn profiles(&self) -> impl Iterator<Item = &str> {
        self.grants.iter().filter_map(|g| g.profile.as_deref())
    }
}

/// https, or http on a loopback host; no query or fragment.
fn check_url(name: &str, url: &str) -> Result<(), ConfigError> {
    let rest = if let Some(rest) = url.strip_prefix("https://") {
        rest
    } else if let Some(rest) = url.strip_prefix("http://") {
        let host = rest.split(['/', ':']).next().unwrap_or("");
        let host = if rest.starts_with('[') {
            rest.split(']').next().unwrap_or("").trim_start_matches('[')
        } else {
            host
        };
        if !matches!(host, "127.0.0.1" | "localhost" | "::1") {
            return Err(ConfigError::new(
                name,
                format!("`{url}`: use https (plain http only on loopback, for tests)"),
            ));
        }
        rest
    } else {
        return Err(ConfigError::new(name, format!("`{url}` needs https://")));
    };
    if rest.is_empty() || rest.starts_with('/') || url.contains(['?', '#']) {
        return Err(ConfigError::new(
            name,
            format!("`{url}`: expected https://host/path, no query or fragment"),
        ));
    }
    Ok(())
}

fn algorithm(name: &str) -> Result<Algorithm, ConfigError> {
    let alg: Algorithm = name.parse().map_err(|_| {
        ConfigError::new(
            ALGORITHMS,
            format!("`{name}` is no JWS algorithm (RS256, PS256, ES256, EdDSA, …)"),
        )
    })?;
    if matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512) {
        return Err(ConfigError::new(
            ALGORITHMS,
            format!(
                "`{name}` is symmetric: whoever verifies could also sign. Use the authorization \
                 server's public-key algorithms"
            ),
        ));
    }
    Ok(alg)
}

/// `value=profile,…`; `*` opens the whole deployment.
fn grants(spec: &str) -> Result<Vec<ProfileClaim>, ConfigError> {
    let mut out = Vec::new();
    for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((value, profile)) = entry.rsplit_once('=') else {
            return Err(ConfigError::new(
                PROFILES,
                format!("`{entry}`: expected value=profile (`*` for every tool)"),
            ));
        };
        let (value, profile) = (value.trim(), profile.trim());
        if value.is_empty() || value.contains(char::is_whitespace) || profile.is_empty() {
            return Err(ConfigError::new(
                PROFILES,
                format!("`{entry}`: expected value=profile, the value without spaces"),
            ));
        }
        out.push(ProfileClaim {
            value: value.to_string(),
            profile: (profile != "*").then(|| profile.to_string()),
        });
    }
    if out.is_empty() {
        return Err(ConfigError::new(
            PROFILES,
            "grant at least one profile (`mcp:tools=*`)",
        ));
    }
    Ok(out)
}

/// A `typ` value as compared: lower case, without `application/` (RFC 7515, 4.1.9); `none`
/// stands for a header without `typ`.
fn token_type(value: &str) -> Option<String> {
    let lower = value.trim().to_ascii_lowercase();
    let bare = lower.strip_prefix("application/").unwrap_or(&lower);
    (bare != "none").then(|| bare.to_string())
}

/// Amazon Cognito user pools issue from `https://cognito-idp.<region>.amazonaws.com/<pool>`.
fn is_cognito(issuer: &str) -> bool {
    issuer
        .strip_prefix("https://cognito-idp.")
        .and_then(|rest| rest.split('/').next())
        .is_some_and(|host| host.ends_with(".amazonaws.com"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<Option<Settings>, ConfigError> {
        Settings::from_env(&env_config::Env::new(env_config::pairs(pairs)))
    }

    const ON: [(&str, &str); 2] = [
        (ISSUER, "https://login.example.com/"),
        (RESOURCE_URL, "https://mcp.example.com/mcp/"),
    ];

    #[test]
    fn off_unless_both_urls_are_set_and_each_alone_names_the_other() {
        assert_eq!(parse(&[]).unwrap(), None);
        assert_eq!(parse(&ON[..1]).unwrap_err().name, RESOURCE_URL);
        assert_eq!(parse(&ON[1..]).unwrap_err().name, ISSUER);
    }

    #[test]
    fn defaults() {
        let s = parse(&ON).unwrap().unwrap();
        assert_eq!(s.issuer, "https://login.example.com/");
        assert_eq!(s.resource, "https://mcp.example.com/mcp");
        assert_eq!(
            s.resource_for(Some("books")),
            "https://mcp.example.com/mcp/books"
        );
        assert_eq!(
            s.grants,
            [ProfileClaim {
                value: "mcp:tools".into(),
                profile: None
            }]
        );
        assert_eq!(
            (s.profile_claim.as_str(), s.audience_claim.as_str()),
            ("scope", "aud")
        );
        assert_eq!(s.audience, None);
        assert_eq!(s.algorithms, DEFAULT_ALGORITHMS);
        assert_eq!(s.leeway, Duration::from_secs(30));
    }

    #[test]
    fn token_types_default_to_at_jwt_and_to_none_with_cognito_which_also_needs_token_use() {
        let s = parse(&ON).unwrap().unwrap();
        assert!(s.accepts_type(Some("at+jwt")));
        assert!(s.accepts_type(Some("application/AT+JWT")));
        assert!(!s.accepts_type(Some("JWT")), "an ID token's type");
        assert!(!s.accepts_type(None));
        assert!(!s.require_token_use);

        let cognito = "https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_AbC";
        let s = parse(&[(ISSUER, cognito), ON[1]]).unwrap().unwrap();
        assert!(s.accepts_type(None));
        assert!(!s.accepts_type(Some("at+jwt")));
        assert!(s.require_token_use);
        for lookalike in [
            "https://cognito-idp.example.com/pool",
            "https://login.example.com/cognito-idp.eu-central-1.amazonaws.com",
        ] {
            let s = parse(&[(ISSUER, lookalike), ON[1]]).unwrap().unwrap();
            assert!(!s.require_token_use, "{lookalike}");
        }

        let s = parse(&[ON[0], ON[1], (TOKEN_TYPES, "JWT, none")])
            .unwrap()
            .unwrap();
        assert!(s.accepts_type(Some("jwt")) && s.accepts_type(None));
        assert!(!s.accepts_type(Some("at+jwt")));
        assert_eq!(
            parse(&[ON[0], ON[1], (TOKEN_TYPES, " , ")])
                .unwrap_err()
                .name,
            TOKEN_TYPES
        );
    }

    #[test]
    fn plain_http_only_on_loopback() {
        let ok = parse(&[
            (ISSUER, "http://127.0.0.1:9000"),
            (RESOURCE_URL, "http://localhost:8/mcp"),
        ]);
        assert!(ok.unwrap().is_some());
        for bad in [
            "http://login.example.com",
            "ftp://x",
            "https://",
            "https://x/?a=1",
        ] {
            let err = parse(&[(ISSUER, bad), ON[1]]).unwrap_err();
            assert_eq!(err.name, ISSUER, "{bad}");
        }
    }

    #[test]
    fn symmetric_and_unknown_algorithms_are_refused() {
        for bad in ["HS256", "none", "RS256,HS512"] {
            let err = parse(&[ON[0], ON[1], (ALGORITHMS, bad)]).unwrap_err();
            assert_eq!(err.name, ALGORITHMS, "{bad}");
        }
        let s = parse(&[ON[0], ON[1], (ALGORITHMS, "ES256")])
            .unwrap()
            .unwrap();
        assert_eq!(s.algorithms, [Algorithm::ES256]);
    }

    #[test]
    fn grants_map_values_to_profiles_narrowest_first() {
        let s = parse(&[
            ON[0],
            ON[1],
            (PROFILES, "mcp:tools=*, books:rw=books,admins=*"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(
            s.values_for(Some("books")),
            ["books:rw", "mcp:tools", "admins"]
        );
        assert_eq!(s.values_for(None), ["mcp:tools", "admins"]);
        assert_eq!(s.profiles().collect::<Vec<_>>(), ["books"]);
        for bad in ["mcp:tools", "=books", "a b=books", " , "] {
            assert_eq!(
                parse(&[ON[0], ON[1], (PROFILES, bad)]).unwrap_err().name,
                PROFILES
            );
        }
    }
}
