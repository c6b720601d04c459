//! `POST /oauth/token`: a one-time code (with its PKCE verifier) or a refresh token exchanged
//! for an access token signed by us and a new refresh token. A code is taken once: a second
//! use revokes every refresh token it led to. A refresh token is rotated on each use: a used
//! one presented again revokes its whole family (RFC 9700 §4.14.2), the thief's and the
//! client's alike. Access tokens: `iss` us, `aud` the resource, `sub` the IdP's subject,
//! `scope` the profiles' claim values, 10 minutes.

use serde::Deserialize;
use serde_json::{Value, json};

use super::store::{Approval, Refresh, Taken, hash};
use super::{Issuer, pkce, settings, signer};

/// The token request's form.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct TokenForm {
    pub grant_type: Option<String>,
    pub code: Option<String>,
    pub redirect_uri: Option<String>,
    pub client_id: Option<String>,
    pub code_verifier: Option<String>,
    pub refresh_token: Option<String>,
    pub resource: Option<String>,
}

/// The revocation request's form (RFC 7009).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Revocation {
    pub token: Option<String>,
    pub client_id: Option<String>,
}

/// An RFC 6749 §5.2 error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OAuthError {
    pub error: &'static str,
    pub description: &'static str,
    /// 503: our store or key failed, not the client.
    pub unavailable: bool,
}

const fn refused(error: &'static str, description: &'static str) -> OAuthError {
    OAuthError {
        error,
        description,
        unavailable: false,
    }
}

const UNAVAILABLE: OAuthError = OAuthError {
    error: "temporarily_unavailable",
    description: "try again",
    unavailable: true,
};

impl Issuer {
    /// The token answer (RFC 6749 §5.1), or why not.
    pub(crate) async fn token(&self, form: &TokenForm, now: u64) -> Result<Value, OAuthError> {
        self.document_holds(form.client_id.as_deref(), now).await?;
        match form.grant_type.as_deref() {
            Some("authorization_code") => self.by_code(form, now).await,
            Some("refresh_token") => self.by_refresh(form, now).await,
            _ => Err(refused(
                "unsupported_grant_type",
                "authorization_code or refresh_token",
            )),
        }
    }

    /// A client known by its metadata document still publishes a usable one (kept or fetched
    /// again once its cache lifetime is over); a registered client passes.
    async fn document_holds(&self, id: Option<&str>, now: u64) -> Result<(), OAuthError> {
        let Some(id) = id.filter(|id| super::cimd::is_url(id)) else {
            return Ok(());
        };
        match self.client(id, now).await {
            Ok(_) => Ok(()),
            Err(super::ClientError::Unavailable) => Err(UNAVAILABLE),
            Err(super::ClientError::Document(_)) => Err(refused(
                "invalid_client",
                "the client's metadata document is not usable",
            )),
        }
    }

    /// A taken code or refresh token, if it was unused; one used before (a replay) revokes the
    /// whole family it led to.
    async fn fresh<T>(
        &self,
        taken: Taken<T>,
        bad: OAuthError,
        what: &str,
    ) -> Result<T, OAuthError> {
        match taken {
            Taken::Fresh(t) => Ok(t),
            Taken::Replayed { family } => {
                tracing::warn!(
                    what,
                    "issuer: a used grant came back; its family is revoked"
                );
                self.store
                    .revoke_family(&family)
                    .await
                    .map_err(|_| UNAVAILABLE)?;
                Err(bad)
            }
            Taken::Missing => Err(bad),
        }
    }

    async fn by_code(&self, form: &TokenForm, now: u64) -> Result<Value, OAuthError> {
        let bad = refused("invalid_grant", "the code is unknown, expired or used");
        let code = form.code.as_deref().ok_or(bad.clone())?;
        let taken = self.store.take_code(&hash(code), now).await;
        let code = self
            .fresh(taken.map_err(|_| UNAVAILABLE)?, bad, "code")
            .await?;
        if form.client_id.as_deref() != Some(code.grant.client_id.as_str()) {
            return Err(refused(
                "invalid_grant",
                "the code was issued to another client",
            ));
        }
        if form.redirect_uri.as_deref() != Some(code.redirect_uri.as_str()) {
            return Err(refused(
                "invalid_grant",
                "redirect_uri differs from the authorization request's",
            ));
        }
        let verifier = form.code_verifier.as_deref().unwrap_or_default();
        if !pkce::verifies(verifier, &code.challenge) {
            return Err(refused(
                "invalid_grant",
                "code_verifier does not match the code_challenge",
            ));
        }
        self.resource_matches(form, &code.grant)?;
        self.issue(&code.grant, now).await
    }

    async fn by_refresh(&self, form: &TokenForm, now: u64) -> Result<Value, OAuthError> {
        let bad = refused(
            "invalid_grant",
            "the refresh token is unknown, expired, used or revoked",
        );
        let token = form.refresh_token.as_deref().ok_or(bad.clone())?;
        let taken = self.store.take_refresh(&hash(token), now).await;
        let refresh = self
            .fresh(
                taken.map_err(|_| UNAVAILABLE)?,
                bad.clone(),
                "refresh token",
            )
            .await?;
        if self
            .store
            .family_revoked(&refresh.grant.family)
            .await
            .map_err(|_| UNAVAILABLE)?
        {
            return Err(bad);
        }
        if form.client_id.as_deref() != Some(refresh.grant.client_id.as_str()) {
            return Err(refused(
                "invalid_grant",
                "the refresh token was issued to another client",
            ));
        }
        self.resource_matches(form, &refresh.grant)?;
        self.issue(&refresh.grant, now).await
    }

    /// `POST /oauth/revoke` (RFC 7009): a refresh token of this client ends its whole family.
    /// An access token, an unknown token or another client's is answered alike (§2.2: the
    /// client cannot learn which tokens exist); access tokens live out their 10 minutes.
    pub(crate) async fn revoke(&self, form: &Revocation) -> Result<(), OAuthError> {
        let Some(token) = form.token.as_deref() else {
            return Err(refused("invalid_request", "token is required"));
        };
        let found = self
            .store
            .refresh(&hash(token))
            .await
            .map_err(|_| UNAVAILABLE)?;
        if let Some(r) =
            found.filter(|r| form.client_id.as_deref() == Some(r.grant.client_id.as_str()))
        {
            self.store
                .revoke_family(&r.grant.family)
                .await
                .map_err(|_| UNAVAILABLE)?;
        }
        Ok(())
    }

    /// A `resource` in the token request must be the one the grant is for.
    fn resource_matches(&self, form: &TokenForm, grant: &Approval) -> Result<(), OAuthError> {
        match form.resource.as_deref() {
            Some(r) if r != grant.resource => Err(refused(
                "invalid_target",
                "resource differs from the grant's",
            )),
            _ => Ok(()),
        }
    }

    /// An access token and the next refresh token of the grant's family.
    async fn issue(&self, grant: &Approval, now: u64) -> Result<Value, OAuthError> {
        let jti = crate::random::hex(16).ok_or(UNAVAILABLE)?;
        let claims = json!({
            "iss": self.settings.issuer,
            "sub": grant.subject,
            "aud": grant.resource,
            "client_id": grant.client_id,
            "scope": grant.scope,
            "iat": now,
            "exp": now + settings::ACCESS_TTL_S,
            "jti": jti,
        });
        let access = signer::jws(self.signer.as_ref(), &claims)
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "issuer: an access token could not be signed");
                UNAVAILABLE
            })?;
        let refresh = crate::random::hex(32).ok_or(UNAVAILABLE)?;
        let stored = Refresh {
            grant: grant.clone(),
            expires_at: now + settings::REFRESH_TTL_S,
        };
        self.store
            .put_refresh(&hash(&refresh), &stored)
            .await
            .map_err(|_| UNAVAILABLE)?;
        Ok(json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": settings::ACCESS_TTL_S,
            "refresh_token": refresh,
            "scope": grant.scope,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::issuer::IssuerSettings;
    use crate::issuer::store::Code;
    use crate::secrets::{SecretLoader, SecretStore, SecretValues};

    // RFC 7636, appendix B.
    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    const RESOURCE: &str = "https://mcp.example.com/mcp";
    const REDIRECT: &str = "http://127.0.0.1:33418/callback";

    fn issuer() -> Issuer {
        let pairs = [
            (crate::oauth::settings::ISSUER, "https://mcp.example.com"),
            (crate::oauth::settings::RESOURCE_URL, RESOURCE),
        ];
        let oauth =
            crate::oauth::Settings::from_env(&env_config::Env::new(env_config::pairs(&pairs)))
                .unwrap()
                .unwrap();
        let settings = IssuerSettings {
            issuer: "https://mcp.example.com".into(),
            idp_issuer: "https://login.example.com".into(),
            idp_client_id: "ours".into(),
            cimd_loopback: false,
            cimd_test_ca: None,
            table: None,
            key_id: None,
            previous_key_ids: Vec::new(),
            groups_claim: "groups".into(),
            scope_groups: None,
        };
        let secrets = SecretStore::new(
            SecretLoader::Static(Arc::new(SecretValues::default())),
            Duration::from_secs(300),
            audit::Redactor::new(),
        );
        Issuer::new(
            settings,
            oauth,
            Vec::new(),
            crate::issuer::IssuerParts::local().unwrap(),
            Arc::new(secrets),
            reqwest::Client::new(),
        )
    }

    async fn with_code(issuer: &Issuer, code: &str) {
        let grant = Approval {
            client_id: "c1".into(),
            subject: "alice".into(),
            scope: "mcp:tools".into(),
            resource: RESOURCE.into(),
            family: "f1".into(),
        };
        let stored = Code {
            grant,
            redirect_uri: REDIRECT.into(),
            challenge: CHALLENGE.into(),
            expires_at: u64::MAX,
        };
        issuer.store.put_code(&hash(code), &stored).await.unwrap();
    }

    fn by_code(code: &str, verifier: &str) -> TokenForm {
        TokenForm {
            grant_type: Some("authorization_code".into()),
            code: Some(code.into()),
            redirect_uri: Some(REDIRECT.into()),
            client_id: Some("c1".into()),
            code_verifier: Some(verifier.into()),
            ..TokenForm::default()
        }
    }

    fn by_refresh(token: &Value) -> TokenForm {
        TokenForm {
            grant_type: Some("refresh_token".into()),
            refresh_token: token["refresh_token"].as_str().map(str::to_string),
            client_id: Some("c1".into()),
            ..TokenForm::default()
        }
    }

    #[tokio::test]
    async fn a_code_gives_tokens_our_resource_server_accepts_once() {
        let i = issuer();
        with_code(&i, "code-1").await;
        let verifier =
            crate::oauth::Verifier::with_keys(i.oauth.clone(), reqwest::Client::new(), i.jwks());
        let fresh = i
            .token(&by_code("code-1", VERIFIER), crate::clock::now_s())
            .await
            .unwrap();
        assert_eq!(
            (fresh["token_type"].as_str(), fresh["scope"].as_str()),
            (Some("Bearer"), Some("mcp:tools"))
        );
        let identity = verifier
            .verify(fresh["access_token"].as_str().unwrap(), None)
            .await
            .unwrap();
        assert_eq!(
            (identity.subject.as_str(), identity.values.as_slice()),
            ("alice", &["mcp:tools".to_string()][..])
        );
    }

    /// A rotation: key A's tokens pass while A is a previous key beside B, and are refused
    /// once A is removed; B's pass throughout.
    #[tokio::test]
    async fn a_previous_keys_tokens_pass_until_it_is_removed() {
        let a = issuer();
        with_code(&a, "code-1").await;
        let fresh = a
            .token(&by_code("code-1", VERIFIER), crate::clock::now_s())
            .await
            .unwrap();
        let by_a = fresh["access_token"].as_str().unwrap();
        let b = signer::LocalSigner::generate().unwrap();
        let by_b = signer::jws(&b, &jwt_claims(by_a)).await.unwrap();
        let check = |previous: Vec<Value>| {
            let keys = signer::jwks(&b, &previous);
            crate::oauth::Verifier::with_keys(a.oauth.clone(), reqwest::Client::new(), keys)
        };
        let rotating = check(vec![a.signer.public_jwk()]);
        assert!(rotating.verify(by_a, None).await.is_ok(), "A, previous");
        assert!(rotating.verify(&by_b, None).await.is_ok(), "B, current");
        let rotated = check(Vec::new());
        assert!(rotated.verify(by_a, None).await.is_err(), "A, removed");
        assert!(rotated.verify(&by_b, None).await.is_ok(), "B, current");
    }

    /// The claims of a compact JWS.
    fn jwt_claims(token: &str) -> Value {
        use base64::Engine;
        let payload = token.split('.').nth(1).unwrap();
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[tokio::test]
    async fn a_code_replayed_revokes_the_refresh_tokens_it_led_to() {
        let i = issuer();
        with_code(&i, "code-1").await;
        let first = i.token(&by_code("code-1", VERIFIER), 10).await.unwrap();
        let replay = i.token(&by_code("code-1", VERIFIER), 11).await.unwrap_err();
        assert_eq!(replay.error, "invalid_grant");
        assert_eq!(
            i.token(&by_refresh(&first), 12).await.unwrap_err().error,
            "invalid_grant"
        );
    }

    #[tokio::test]
    async fn pkce_redirect_and_client_must_match_the_code() {
        let i = issuer();
        for (n, form) in [
            by_code("c", "wrong-verifier-wrong-verifier-wrong-verifier-x"),
            by_code("c", CHALLENGE),
            TokenForm {
                redirect_uri: Some("http://127.0.0.1:1/other".into()),
                ..by_code("c", VERIFIER)
            },
            TokenForm {
                client_id: Some("c2".into()),
                ..by_code("c", VERIFIER)
            },
            TokenForm {
                resource: Some("https://other.example/mcp".into()),
                ..by_code("c", VERIFIER)
            },
        ]
        .into_iter()
        .enumerate()
        {
            let code = format!("c{n}");
            with_code(&i, &code).await;
            let form = TokenForm {
                code: Some(code),
                ..form
            };
            assert!(i.token(&form, 10).await.is_err(), "{form:?}");
        }
    }

    #[tokio::test]
    async fn revoking_a_refresh_token_ends_its_family_for_its_client_only() {
        let i = issuer();
        with_code(&i, "code-1").await;
        let first = i.token(&by_code("code-1", VERIFIER), 10).await.unwrap();
        let second = i.token(&by_refresh(&first), 11).await.unwrap();
        let revoke = |client: &str, token: &Value| Revocation {
            token: token["refresh_token"].as_str().map(str::to_string),
            client_id: Some(client.into()),
        };
        i.revoke(&revoke("c2", &second)).await.unwrap();
        let third = i.token(&by_refresh(&second), 12).await.unwrap();
        i.revoke(&revoke("c1", &first)).await.unwrap();
        assert_eq!(
            i.token(&by_refresh(&third), 13).await.unwrap_err().error,
            "invalid_grant"
        );
    }

    #[tokio::test]
    async fn refresh_rotates_and_a_reused_token_revokes_the_family() {
        let i = issuer();
        with_code(&i, "code-1").await;
        let first = i.token(&by_code("code-1", VERIFIER), 10).await.unwrap();
        let second = i.token(&by_refresh(&first), 11).await.unwrap();
        assert_ne!(first["refresh_token"], second["refresh_token"]);
        // The first token again: a theft. The family goes, the newest token with it.
        assert_eq!(
            i.token(&by_refresh(&first), 12).await.unwrap_err().error,
            "invalid_grant"
        );
        assert_eq!(
            i.token(&by_refresh(&second), 13).await.unwrap_err().error,
            "invalid_grant"
        );
    }
}
