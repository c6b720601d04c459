//! The company identity provider, where people sign in (any OpenID provider: Cognito, Entra
//! ID, Google, Keycloak): its endpoints from its discovery document (once), our code exchanged
//! at its token endpoint (PKCE, our public client), and its ID token checked (signature against
//! its key set, `iss`, `aud` our client id, `exp`, the `nonce` we sent). The subject is what
//! our tokens name; an e-mail or name claim only labels the consent page.

use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::oauth::endpoints::Endpoints;
use crate::oauth::keys::KeySource;
use crate::upstream::token_endpoint as exchange;

/// The person the provider signed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SignedIn {
    pub subject: String,
    /// For the consent page: `email`, else `name`, else the subject.
    pub shown: String,
    /// The groups (or roles) the ID token's groups claim lists: an array of strings, or one
    /// string of space-separated names.
    pub groups: Vec<String>,
}

pub(crate) struct Idp {
    http: reqwest::Client,
    issuer: String,
    client_id: String,
    groups_claim: String,
    endpoints: Endpoints,
    keys: KeySource,
}

#[derive(Deserialize)]
struct IdpTokens {
    id_token: Option<String>,
}

impl Idp {
    pub(crate) fn new(
        http: reqwest::Client,
        issuer: &str,
        client_id: &str,
        groups_claim: &str,
    ) -> Self {
        let keys = KeySource::new(http.clone(), issuer, exchange::TIMEOUT);
        Idp {
            http,
            issuer: issuer.to_string(),
            client_id: client_id.to_string(),
            groups_claim: groups_claim.to_string(),
            endpoints: Endpoints::default(),
            keys,
        }
    }

    pub(crate) fn client_id(&self) -> &str {
        &self.client_id
    }

    /// The authorization and token endpoints, read once.
    pub(crate) async fn endpoints(&self) -> Result<(String, String), String> {
        self.endpoints.of(&self.http, &self.issuer).await
    }

    /// The code exchanged (with the PKCE `verifier`, and our client's `secret` there when it
    /// is a confidential one) and the ID token checked for `nonce`.
    pub(crate) async fn sign_in(
        &self,
        code: &str,
        verifier: &str,
        redirect_uri: &str,
        nonce: &str,
        secret: Option<&str>,
    ) -> Result<SignedIn, String> {
        let (_, token_endpoint) = self.endpoints().await?;
        let client = exchange::Client {
            id: &self.client_id,
            secret,
            resource: None,
        };
        let fields = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("code_verifier", verifier),
            ("redirect_uri", redirect_uri),
        ];
        let body = exchange::post_form(&self.http, &token_endpoint, &client, &fields)
            .await
            .map_err(|e| e.to_string())?;
        let answer: IdpTokens =
            serde_json::from_slice(&body).map_err(|_| "not a token answer".to_string())?;
        let id_token = answer
            .id_token
            .ok_or("no ID token (is `openid` allowed?)")?;
        let claims = self.check(&id_token).await?;
        if claims.get("nonce").and_then(Value::as_str) != Some(nonce) {
            return Err("the ID token's nonce is not ours".into());
        }
        let text = |name: &str| {
            claims
                .get(name)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let subject = text("sub")
            .ok_or("the ID token names no subject")?
            .to_string();
        let shown = text("email")
            .or(text("name"))
            .unwrap_or(&subject)
            .to_string();
        let groups = groups(claims.get(&self.groups_claim));
        Ok(SignedIn {
            subject,
            shown,
            groups,
        })
    }

    /// The ID token's claims, if its signature, issuer, audience and lifetime hold.
    async fn check(&self, token: &str) -> Result<Map<String, Value>, String> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| "not a JWT")?;
        if !matches!(
            header.alg,
            Algorithm::RS256 | Algorithm::PS256 | Algorithm::ES256 | Algorithm::EdDSA
        ) {
            return Err(format!(
                "ID tokens signed with {:?} are not accepted",
                header.alg
            ));
        }
        let key = self
            .keys
            .find(header.kid.as_deref())
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the ID token's key is unknown")?;
        let mut v = Validation::new(header.alg);
        v.set_issuer(&[&self.issuer, &format!("{}/", self.issuer)]);
        v.set_audience(&[&self.client_id]);
        v.set_required_spec_claims(&["exp", "iss", "sub", "aud"]);
        v.leeway = 30;
        jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &v)
            .map(|d| d.claims)
            .map_err(|e| format!("the ID token is refused ({:?})", e.kind()))
    }
}

/// A groups claim's names: an array of strings, or one space-separated string; anything else
/// is no group.
fn groups(claim: Option<&Value>) -> Vec<String> {
    match claim {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn groups_come_as_a_list_or_one_string() {
        let list = json!(["finance", 7, "owners"]);
        assert_eq!(super::groups(Some(&list)), ["finance", "owners"]);
        assert_eq!(
            super::groups(Some(&json!("finance owners"))),
            ["finance", "owners"]
        );
        assert!(super::groups(Some(&json!({"finance": true}))).is_empty());
        assert!(super::groups(None).is_empty());
    }
}
