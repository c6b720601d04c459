//! Checking one access token: a JWT signed by the authorization server with an allowed
//! algorithm, from its issuer, for this resource, within its lifetime. The algorithm comes from
//! the configured allowlist, never from the token alone: `alg: none` and an HMAC signed with the
//! public key are refused before any key is touched. The token itself is never logged.

use base64::Engine;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::keys::{KeyError, KeySource};
use super::settings::Settings;

/// Who the token speaks for, and the values of the profile claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    /// The user (`sub`): pseudonymised before anything records it.
    pub subject: String,
    pub values: Vec<String>,
}

/// Why a token is refused (401 `invalid_token`), or cannot be checked now (503).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TokenError {
    #[error("the token is not a JWT")]
    Malformed,
    #[error("tokens signed with `{0}` are not accepted")]
    Algorithm(String),
    #[error("the token's signing key is unknown to the authorization server")]
    UnknownKey,
    #[error("the token's signature does not verify")]
    Signature,
    #[error("the token has expired")]
    Expired,
    #[error("the token is not valid yet")]
    NotYetValid,
    #[error("the token is from another issuer")]
    Issuer,
    #[error("the token is for another resource")]
    Audience,
    #[error("the token lacks the claim `{0}`")]
    MissingClaim(String),
    #[error("the token is not an access token")]
    NotAccessToken,
    #[error("tokens of type `{0}` are not accepted")]
    TokenType(String),
    #[error("{0}")]
    Keys(#[from] KeyError),
}

impl TokenError {
    /// A short fixed word for the audit line.
    pub fn reason(&self) -> &'static str {
        match self {
            TokenError::Malformed => "malformed",
            TokenError::Algorithm(_) => "algorithm",
            TokenError::UnknownKey => "unknown_key",
            TokenError::Signature => "signature",
            TokenError::Expired => "expired",
            TokenError::NotYetValid => "not_yet_valid",
            TokenError::Issuer => "issuer",
            TokenError::Audience => "audience",
            TokenError::MissingClaim(_) => "missing_claim",
            TokenError::NotAccessToken => "not_access_token",
            TokenError::TokenType(_) => "token_type",
            TokenError::Keys(_) => "keys_unavailable",
        }
    }
}

pub struct Verifier {
    settings: Settings,
    keys: KeySource,
}

impl Verifier {
    pub fn new(settings: Settings, http: reqwest::Client) -> Self {
        let keys = KeySource::new(http, &settings.issuer, settings.timeout);
        Verifier { settings, keys }
    }

    /// A verifier of tokens signed by the keys of `jwks` (this server's own authorization
    /// server), which it never fetches.
    pub(crate) fn with_keys(settings: Settings, http: reqwest::Client, jwks: Value) -> Self {
        let keys = KeySource::fixed(http, &settings.issuer, jwks);
        Verifier { settings, keys }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Checks `token` for the resource of `/mcp` (`None`) or `/mcp/<profile>`.
    pub async fn verify(&self, token: &str, profile: Option<&str>) -> Result<Identity, TokenError> {
        let (alg, kid) = self.header(token)?;
        let key = self
            .keys
            .find(kid.as_deref())
            .await?
            .ok_or(TokenError::UnknownKey)?;
        if key.alg.is_some_and(|a| a != alg) {
            return Err(TokenError::Algorithm(format!("{alg:?}")));
        }
        let claims =
            jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &self.validation(alg))
                .map_err(|e| refusal(e.kind()))?
                .claims;
        token_use(&claims, self.settings.require_token_use)?;
        let accepted = match &self.settings.audience {
            Some(configured) => configured.clone(),
            None => {
                let mut urls = vec![self.settings.resource.clone()];
                urls.extend(profile.map(|p| self.settings.resource_for(Some(p))));
                urls
            }
        };
        let audience = claims.get(&self.settings.audience_claim);
        if !audiences(audience).iter().any(|v| accepted.contains(v)) {
            return Err(match audience {
                None => TokenError::MissingClaim(self.settings.audience_claim.clone()),
                Some(_) => TokenError::Audience,
            });
        }
        let subject = claims
            .get("sub")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| TokenError::MissingClaim("sub".into()))?
            .to_string();
        Ok(Identity {
            subject,
            values: values(claims.get(&self.settings.profile_claim)),
        })
    }

    /// The header's algorithm, if allowed, and key id; its `typ`, if accepted. Read here rather
    /// than by the library so an unlisted algorithm (`none`, `HS256`) is named in the refusal.
    fn header(&self, token: &str) -> Result<(Algorithm, Option<String>), TokenError> {
        let mut parts = token.split('.');
        let (Some(head), Some(_), Some(_), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenError::Malformed);
        };
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(head)
            .map_err(|_| TokenError::Malformed)?;
        let header: Map<String, Value> =
            serde_json::from_slice(&bytes).map_err(|_| TokenError::Malformed)?;
        let name = header
            .get("alg")
            .and_then(Value::as_str)
            .ok_or(TokenError::Malformed)?;
        let alg = name
            .parse::<Algorithm>()
            .ok()
            .filter(|a| self.settings.algorithms.contains(a))
            .ok_or_else(|| TokenError::Algorithm(audit::bounded(name, 16)))?;
        let typ = match header.get("typ") {
            None => None,
            Some(Value::String(t)) => Some(t.as_str()),
            Some(_) => return Err(TokenError::Malformed),
        };
        if !self.settings.accepts_type(typ) {
            return Err(TokenError::TokenType(audit::bounded(
                typ.unwrap_or("none"),
                32,
            )));
        }
        let kid = header
            .get("kid")
            .and_then(Value::as_str)
            .map(str::to_string);
        Ok((alg, kid))
    }

    fn validation(&self, alg: Algorithm) -> Validation {
        let mut v = Validation::new(alg);
        v.set_issuer(&[&self.settings.issuer]);
        v.set_required_spec_claims(&["exp", "iss", "sub"]);
        v.leeway = self.settings.leeway.as_secs();
        v.validate_nbf = true;
        // Checked above, against the claim the settings name.
        v.validate_aud = false;
        v
    }
}

fn refusal(kind: &ErrorKind) -> TokenError {
    match kind {
        ErrorKind::ExpiredSignature => TokenError::Expired,
        ErrorKind::ImmatureSignature => TokenError::NotYetValid,
        ErrorKind::InvalidIssuer => TokenError::Issuer,
        ErrorKind::InvalidAudience => TokenError::Audience,
        ErrorKind::MissingRequiredClaim(c) => TokenError::MissingClaim(audit::bounded(c, 32)),
        ErrorKind::InvalidAlgorithm => TokenError::Algorithm("for this key".into()),
        ErrorKind::InvalidSignature
        | ErrorKind::InvalidEcdsaKey
        | ErrorKind::InvalidEddsaKey
        | ErrorKind::InvalidRsaKey(_) => TokenError::Signature,
        _ => TokenError::Malformed,
    }
}

/// `token_use`, where an issuer sends it, must say `access`; where the settings require it
/// (Cognito), it must be there.
fn token_use(claims: &Map<String, Value>, required: bool) -> Result<(), TokenError> {
    match claims.get("token_use") {
        Some(u) if u.as_str() == Some("access") => Ok(()),
        None if !required => Ok(()),
        _ => Err(TokenError::NotAccessToken),
    }
}

/// The audience as the JSON type it is: a string is one value (never split: "https://other
/// <ours>" names no resource of ours), an array lists them.
fn audiences(claim: Option<&Value>) -> Vec<String> {
    match claim {
        Some(Value::String(s)) => vec![s.clone()],
        other => values(other),
    }
}

/// A claim as a list: a space-separated string (`scope`) or an array of strings.
fn values(claim: Option<&Value>) -> Vec<String> {
    match claim {
        Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verifier() -> Verifier {
        let pairs = [
            (super::super::settings::ISSUER, "http://127.0.0.1:9"),
            (
                super::super::settings::RESOURCE_URL,
                "http://127.0.0.1:8/mcp",
            ),
        ];
        let settings = Settings::from_env(&env_config::Env::new(env_config::pairs(&pairs)))
            .unwrap()
            .unwrap();
        Verifier::new(settings, reqwest::Client::new())
    }

    fn token(header: Value) -> String {
        let b64 = |v: &Value| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string().as_bytes())
        };
        format!("{}.{}.c2ln", b64(&header), b64(&json!({"sub": "x"})))
    }

    #[tokio::test]
    async fn unlisted_algorithms_are_named_before_any_key_is_fetched() {
        let v = verifier();
        for (alg, named) in [("none", "none"), ("HS256", "HS256"), ("RS512", "RS512")] {
            let err = v
                .verify(&token(json!({"alg": alg, "kid": "k"})), None)
                .await
                .unwrap_err();
            assert_eq!(err, TokenError::Algorithm(named.into()), "{alg}");
        }
        for bad in ["a.b", "a.b.c.d", "!!.e30.x", &token(json!({"kid": "k"}))] {
            assert_eq!(
                v.verify(bad, None).await.unwrap_err(),
                TokenError::Malformed,
                "{bad}"
            );
        }
        // An allowed algorithm goes on to the keys: here, an unreachable server.
        let err = v
            .verify(
                &token(json!({"alg": "RS256", "kid": "k", "typ": "at+jwt"})),
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(err.reason(), "keys_unavailable");
    }

    #[tokio::test]
    async fn token_types_outside_the_settings_are_refused_before_any_key_is_fetched() {
        let v = verifier();
        for (typ, named) in [
            (json!("JWT"), "JWT"),
            (json!("id_token+jwt"), "id_token+jwt"),
        ] {
            let err = v
                .verify(
                    &token(json!({"alg": "RS256", "kid": "k", "typ": typ})),
                    None,
                )
                .await
                .unwrap_err();
            assert_eq!(err, TokenError::TokenType(named.into()));
        }
        let err = v
            .verify(&token(json!({"alg": "RS256", "kid": "k"})), None)
            .await
            .unwrap_err();
        assert_eq!(err, TokenError::TokenType("none".into()));
        let err = v
            .verify(&token(json!({"alg": "RS256", "typ": 7})), None)
            .await
            .unwrap_err();
        assert_eq!(err, TokenError::Malformed);
        // The accepted type goes on to the keys: here, an unreachable server.
        let err = v
            .verify(&token(json!({"alg": "RS256", "typ": "at+jwt"})), None)
            .await
            .unwrap_err();
        assert_eq!(err.reason(), "keys_unavailable");
    }

    #[test]
    fn token_use_must_say_access_and_must_be_there_where_required() {
        let claims = |v: Value| v.as_object().unwrap().clone();
        let access = claims(json!({"token_use": "access"}));
        let id = claims(json!({"token_use": "id"}));
        let none = claims(json!({}));
        assert_eq!(token_use(&access, true), Ok(()));
        assert_eq!(token_use(&none, false), Ok(()));
        assert_eq!(token_use(&none, true), Err(TokenError::NotAccessToken));
        assert_eq!(token_use(&id, false), Err(TokenError::NotAccessToken));
    }

    #[test]
    fn an_audience_string_is_one_value_and_never_split() {
        let ours = "https://mcp.example.com/mcp";
        assert_eq!(
            audiences(Some(&json!(format!("https://other.example/api {ours}")))),
            [format!("https://other.example/api {ours}")]
        );
        assert_eq!(audiences(Some(&json!(["a b", ours]))), ["a b", ours]);
        assert!(audiences(Some(&json!(1))).is_empty());
    }

    #[test]
    fn claim_values_come_from_strings_and_arrays() {
        assert_eq!(values(Some(&json!("a b  c"))), ["a", "b", "c"]);
        assert_eq!(values(Some(&json!(["x", 1, "y"]))), ["x", "y"]);
        assert!(values(Some(&json!(7))).is_empty());
        assert!(values(None).is_empty());
    }
}
