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
pub(crate) enum Exchange<'a> {
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
pub(crate) struct Client<'a> {
    pub id: &'a str,
    /// None: a public client (PKCE alone).
    pub secret: Option<&'a str>,
    pub resource: Option<&'a str>,
}

/// Why an exchange failed. Only [`ExchangeError::Refused`] says the person's grant is gone;
/// the others leave it as it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ExchangeError {
    /// The server refused the grant itself (`invalid_grant`: revoked, expired, used).
    #[error("the authorization server refused the grant ({0})")]
    Refused(String),
    /// The server refused our request for another reason (RFC 6749 §5.2: `invalid_client`,
    /// `unauthorized_client`, `invalid_scope`, …): a setup problem on our side, not the
    /// person's.
    #[error("the authorization server refused our request ({0})")]
    Rejected(String),
    /// No usable answer: unreachable, too slow, a server error, a rate limit, not JSON.
    #[error("the authorization server could not be reached ({0})")]
    Unreachable(String),
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default, deserialize_with = "seconds")]
    expires_in: Option<u64>,
    /// The scopes granted, space-separated, when they differ from those asked for (RFC 6749
    /// §5.1; Google and Entra always send it).
    #[serde(default)]
    scope: Option<String>,
}

/// `expires_in` as RFC 6749 gives it (a number), or as some providers send it (a string of
/// digits, `"3600"`).
fn seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Number(u64),
        Text(String),
    }
    match Option::<Either>::deserialize(d)? {
        None => Ok(None),
        Some(Either::Number(n)) => Ok(Some(n)),
        Some(Either::Text(t)) => t
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| serde::de::Error::custom("expires_in is not a number of seconds")),
    }
}

#[derive(Deserialize)]
struct Refusal {
    #[serde(default)]
    error: Option<String>,
}

pub(crate) async fn exchange(
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
    let answer: TokenAnswer = serde_json::from_slice(&body)
        .map_err(|_| ExchangeError::Unreachable("not a token answer".into()))?;
    Ok(Grant {
        access_token: answer.access_token,
        refresh_token: answer.refresh_token,
        expires_at: answer.expires_in.map(|s| now.saturating_add(s)),
        scopes: answer
            .scope
            .map(|s| s.split_whitespace().map(str::to_string).collect()),
    })
}

/// Revokes `grant` at the revocation endpoint (RFC 7009): its refresh token when it has one
/// (which ends the whole grant at most servers), else its access token. A 200 is done; the
/// server's refusal (`unsupported_token_type`, …) or silence is an error.
pub(crate) async fn revoke(
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
pub(crate) async fn post_form(
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
        return Err(refusal(status, &body));
    }
    Ok(body.to_vec())
}

/// A non-2xx answer: RFC 6749 §5.2 error responses come as 400 (or 401) with an `error` code,
/// and only `invalid_grant` ends the grant. A 5xx, a 429 or an answer without a code is the
/// server failing, not refusing.
fn refusal(status: u16, body: &[u8]) -> ExchangeError {
    let code = serde_json::from_slice::<Refusal>(body)
        .ok()
        .and_then(|r| r.error)
        .filter(|e| e.len() <= 64 && e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    match code {
        Some(code) if matches!(status, 400 | 401) && code == "invalid_grant" => {
            ExchangeError::Refused(code)
        }
        Some(code) if matches!(status, 400 | 401) => ExchangeError::Rejected(code),
        _ => ExchangeError::Unreachable(format!("HTTP {status}")),
    }
}

/// `application/x-www-form-urlencoded`'s set: everything but unreserved characters.
const FORM: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_invalid_grant_refuses_the_grant() {
        let body = |code: &str| format!(r#"{{"error": "{code}"}}"#).into_bytes();
        assert_eq!(
            refusal(400, &body("invalid_grant")),
            ExchangeError::Refused("invalid_grant".into())
        );
        assert_eq!(
            refusal(401, &body("invalid_client")),
            ExchangeError::Rejected("invalid_client".into())
        );
        for (status, text) in [
            (503, body("temporarily_unavailable")),
            (500, body("invalid_grant")),
            (429, b"slow down".to_vec()),
            (400, b"<html>bad gateway</html>".to_vec()),
        ] {
            assert!(
                matches!(refusal(status, &text), ExchangeError::Unreachable(_)),
                "{status}"
            );
        }
    }

    #[test]
    fn expires_in_may_come_as_a_number_or_a_string_of_digits() {
        let answer = |json: &str| serde_json::from_str::<TokenAnswer>(json).map(|a| a.expires_in);
        assert_eq!(
            answer(r#"{"access_token": "a", "expires_in": 3600}"#).unwrap(),
            Some(3600)
        );
        assert_eq!(
            answer(r#"{"access_token": "a", "expires_in": "3600"}"#).unwrap(),
            Some(3600)
        );
        assert_eq!(answer(r#"{"access_token": "a"}"#).unwrap(), None);
        assert_eq!(
            answer(r#"{"access_token": "a", "expires_in": null}"#).unwrap(),
            None
        );
        assert!(answer(r#"{"access_token": "a", "expires_in": "soon"}"#).is_err());
    }
}
