//! An upstream's token endpoint (RFC 6749 §4.1.3, §6), for connectors with `auth: oauth_user`:
//! a code (with its PKCE verifier) or a refresh token exchanged for a grant, form-encoded,
//! bounded in time and size; and its revocation endpoint (RFC 7009), where a person's
//! disconnect revokes their grant. Errors name what happened, never a token or a code.

use std::time::Duration;

use serde::Deserialize;

use crate::vault::Grant;

/// The most a token answer may be.
const MAX_ANSWER: usize = 64 * 1024;
/// The most a token request may take.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// What to exchange.
pub enum Exchange<'a> {
    Code {
        code: &'a str,
        verifier: &'a str,
        redirect_uri: &'a str,
    },
    Refresh {
        token: &'a str,
    },
}

/// Our client at that token endpoint.
pub struct Client<'a> {
    pub id: &'a str,
    /// None: a public client (PKCE alone).
    pub secret: Option<&'a str>,
    pub resource: Option<&'a str>,
}

/// Why an exchange failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExchangeError {
    /// The server refused the grant (`invalid_grant`: revoked, expired, used).
    #[error("the authorization server refused the grant ({0})")]
    Refused(String),
    #[error("the authorization server could not be reached ({0})")]
    Unreachable(String),
}

#[derive(Deserialize)]
struct Answer {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
}

#[derive(Deserialize)]
struct Refusal {
    #[serde(default)]
    error: Option<String>,
}

pub async fn exchange(
    http: &reqwest::Client,
    endpoint: &str,
    client: &Client<'_>,
    what: Exchange<'_>,
    now: u64,
) -> Result<Grant, ExchangeError> {
    let mut fields: Vec<(&str, &str)> = match what {
        Exchange::Code {
            code,
            verifier,
            redirect_uri,
        } => vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("code_verifier", verifier),
            ("redirect_uri", redirect_uri),
        ],
        Exchange::Refresh { token } => {
            vec![("grant_type", "refresh_token"), ("refresh_token", token)]
        }
    };
    if let Some(r) = client.resource {
        fields.push(("resource", r));
    }
    let body = post_form(http, endpoint, client, &fields).await?;
    let answer: Answer = serde_json::from_slice(&body)
        .map_err(|_| ExchangeError::Unreachable("not a token answer".into()))?;
    Ok(Grant {
        access_token: answer.access_token,
        refresh_token: answer.refresh_token,
        expires_at: answer.expires_in.map(|s| now.saturating_add(s)),
    })
}

/// Revokes `grant` at the revocation endpoint (RFC 7009): its refresh token when it has one
/// (which ends the whole grant at most servers), else its access token. A 200 is done; the
/// server's refusal (`unsupported_token_type`, …) or silence is an error.
pub async fn revoke(
    http: &reqwest::Client,
    endpoint: &str,
    client: &Client<'_>,
    grant: &Grant,
) -> Result<(), ExchangeError> {
    let (token, hint) = match &grant.refresh_token {
        Some(r) => (r.as_str(), "refresh_token"),
        None => (grant.access_token.as_str(), "access_token"),
    };
    let fields = [("token", token), ("token_type_hint", hint)];
    post_form(http, endpoint, client, &fields).await.map(|_| ())
}

/// One form POST with our client's credentials (`client_id` in the form for a public client,
/// else basic), bounded in time and size: the 2xx answer's body, or why not.
async fn post_form(
    http: &reqwest::Client,
    endpoint: &str,
    client: &Client<'_>,
    fields: &[(&str, &str)],
) -> Result<Vec<u8>, ExchangeError> {
    let mut form = reqwest::Url::parse("http://form.invalid/").expect("a fixed URL");
    {
        let mut pairs = form.query_pairs_mut();
        pairs.extend_pairs(fields);
        if client.secret.is_none() {
            pairs.append_pair("client_id", client.id);
        }
    }
    let mut request = http
        .post(endpoint)
        .timeout(TIMEOUT)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(form.query().unwrap_or_default().to_string());
    if let Some(secret) = client.secret {
        // RFC 6749 §2.3.1: both form-encoded, then basic.
        let enc = |s: &str| percent_encoding::utf8_percent_encode(s, FORM).to_string();
        request = request.basic_auth(enc(client.id), Some(enc(secret)));
    }
    let response = request.send().await.map_err(|e| {
        ExchangeError::Unreachable(if e.is_timeout() {
            "no answer in time".into()
        } else {
            "unreachable".into()
        })
    })?;
    let status = response.status().as_u16();
    if response
        .content_length()
        .is_some_and(|n| n > MAX_ANSWER as u64)
    {
        return Err(ExchangeError::Unreachable("answer too large".into()));
    }
    let body = response
        .bytes()
        .await
        .map_err(|_| ExchangeError::Unreachable("the answer broke off".into()))?;
    if body.len() > MAX_ANSWER {
        return Err(ExchangeError::Unreachable("answer too large".into()));
    }
    if !(200..300).contains(&status) {
        let code = serde_json::from_slice::<Refusal>(&body)
            .ok()
            .and_then(|r| r.error)
            .filter(|e| e.len() <= 64 && e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or_else(|| format!("HTTP {status}"));
        return Err(ExchangeError::Refused(code));
    }
    Ok(body.to_vec())
}

/// `application/x-www-form-urlencoded`'s set: everything but unreserved characters.
const FORM: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');
