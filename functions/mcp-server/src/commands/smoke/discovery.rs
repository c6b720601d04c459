//! The OAuth discovery a client does, checked from outside: the 401's challenge as received
//! (a front door that renames `WWW-Authenticate` is named), the protected resource metadata it
//! points to (or the well-known URL a client falls back to), and the authorization server's
//! metadata that one names.

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::{Check, check};
use crate::oauth::discovery::WELL_KNOWN;
use crate::oauth::keys::metadata_urls;
use crate::oauth::url::origin_and_path;

/// The header API Gateway turns a Lambda's `WWW-Authenticate` into.
pub(crate) const REMAPPED: &str = "x-amzn-remapped-www-authenticate";

/// What the unauthenticated request's 401 said about signing in.
pub(crate) struct Challenge {
    /// `WWW-Authenticate` as received, if it arrived under its own name.
    pub header: Option<String>,
    /// The same, renamed by the front door.
    pub remapped: Option<String>,
    /// `resource_metadata` from the JSON body.
    pub body: Option<String>,
}

impl Challenge {
    pub(crate) fn read(headers: &HeaderMap, body: &str) -> Challenge {
        let get = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        Challenge {
            header: get("www-authenticate"),
            remapped: get(REMAPPED),
            body: serde_json::from_str::<Value>(body)
                .ok()
                .and_then(|v| v["resource_metadata"].as_str().map(str::to_string)),
        }
    }

    /// Whether anything here speaks of OAuth.
    pub(crate) fn names_oauth(&self) -> bool {
        self.body.is_some()
            || [&self.header, &self.remapped].iter().any(|h| {
                h.as_deref()
                    .is_some_and(|h| h.contains("resource_metadata="))
            })
    }
}

/// `resource_metadata="…"` out of a challenge.
fn metadata_param(challenge: &str) -> Option<String> {
    let start = challenge.find("resource_metadata=\"")? + "resource_metadata=\"".len();
    let len = challenge[start..].find('"')?;
    Some(challenge[start..start + len].to_string())
}

/// The well-known URL a client builds itself: between the host and the endpoint's path.
fn well_known(url: &str) -> String {
    let (origin, path) = origin_and_path(url.trim_end_matches('/'));
    format!("{origin}{WELL_KNOWN}{path}")
}

/// The three discovery checks.
pub(crate) async fn run(http: &reqwest::Client, url: &str, challenge: &Challenge) -> Vec<Check> {
    let mut checks = Vec::new();
    let from_header = challenge.header.as_deref().and_then(metadata_param);
    let (metadata_url, how) = match (&from_header, &challenge.remapped, &challenge.body) {
        (Some(u), _, _) => (u.clone(), "from WWW-Authenticate".to_string()),
        (None, Some(_), _) => (
            well_known(url),
            format!(
                "WWW-Authenticate renamed to {REMAPPED} by the front door; clients fall back to the well-known URL"
            ),
        ),
        (None, None, Some(u)) => (u.clone(), "from the 401 body only".to_string()),
        (None, None, None) => (
            well_known(url),
            "no challenge names it; the well-known URL".to_string(),
        ),
    };
    checks.push(check(
        "401 names metadata",
        from_header.is_some(),
        format!("{metadata_url} ({how})"),
    ));
    let metadata = match get_json(http, &metadata_url).await {
        Ok(m) => m,
        Err(e) => {
            checks.push(check("resource metadata", false, e));
            return checks;
        }
    };
    let resource = metadata["resource"].as_str().unwrap_or("");
    let issuer = metadata["authorization_servers"][0].as_str().unwrap_or("");
    checks.push(check(
        "resource metadata",
        resource == url.trim_end_matches('/') && !issuer.is_empty(),
        format!(
            "resource {resource}, authorization server {issuer}, scopes {}",
            metadata["scopes_supported"]
        ),
    ));
    if issuer.is_empty() {
        return checks;
    }
    // The documents the server itself reads its keys' location from.
    let candidates = metadata_urls(issuer);
    let mut errors = Vec::new();
    for candidate in &candidates {
        match get_json(http, candidate).await {
            Ok(m) => {
                let ok = m["issuer"] == issuer
                    && m["authorization_endpoint"].is_string()
                    && m["token_endpoint"].is_string();
                let registration = if m["registration_endpoint"].is_string() {
                    "dynamic registration"
                } else if m["client_id_metadata_document_supported"] == true {
                    "client ID metadata documents"
                } else {
                    "pre-registered clients only"
                };
                checks.push(check(
                    "authorization server",
                    ok,
                    format!("{candidate}: issuer {}, {registration}", m["issuer"]),
                ));
                return checks;
            }
            Err(e) => errors.push(e),
        }
    }
    checks.push(check("authorization server", false, errors.join("; ")));
    checks
}

async fn get_json(http: &reqwest::Client, url: &str) -> Result<Value, String> {
    let r = http
        .get(url)
        .send()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    let status = r.status().as_u16();
    if status != 200 {
        return Err(format!("{url}: HTTP {status}"));
    }
    r.json().await.map_err(|e| format!("{url}: not JSON ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_url_comes_from_the_challenge_or_the_well_known_path() {
        assert_eq!(
            metadata_param(r#"Bearer resource_metadata="https://x/.well-known/oauth-protected-resource/mcp", scope="a""#)
                .as_deref(),
            Some("https://x/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(metadata_param(r#"Bearer realm="hosted-mcp""#), None);
        assert_eq!(
            well_known("https://api.example.com/mcp/books/"),
            "https://api.example.com/.well-known/oauth-protected-resource/mcp/books"
        );
    }
}
