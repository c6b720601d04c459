//! Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose
//! id is an https URL with a path publishes its metadata there, and needs no registration.
//! Pure rules here: which ids are such URLs and which of them may be fetched, the document
//! checked into a [`Registration`] (by the rules of dynamic registration, and `client_id`
//! equal to the URL), and how long a fetched document is kept by its `Cache-Control`. The
//! fetch itself (addresses, size, time) is `cimd_fetch`.

use std::net::IpAddr;

use super::registration;
use super::store::Registration;

/// The largest document read (bytes): a client's metadata is a few hundred.
pub(crate) const MAX_BYTES: usize = 5 * 1024;
/// Kept at least this long (no `max-age`, `no-cache`, `no-store`: one sign-in reuses it).
pub(crate) const MIN_CACHE_S: u64 = 60;
/// Kept at most this long, whatever the document says.
pub(crate) const MAX_CACHE_S: u64 = 24 * 3600;
/// The longest client id URL accepted.
const MAX_URL: usize = 2000;

/// Whether `id` names a metadata document (a URL) rather than a registered client.
pub(crate) fn is_url(id: &str) -> bool {
    id.starts_with("https://") || id.starts_with("http://")
}

/// Why a client id URL or its document is refused (shown to the person on a page).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CimdError {
    #[error("the client id is not a usable https URL: {0}")]
    Url(&'static str),
    #[error("the client's address is not public")]
    Address,
    #[error("the client's metadata document could not be fetched: {0}")]
    Fetch(String),
    #[error("the client's metadata document is larger than {MAX_BYTES} bytes")]
    TooLarge,
    #[error("the client's metadata document took too long")]
    Slow,
    #[error("the client's metadata document is not valid: {0}")]
    Document(String),
}

/// A client id URL that may be fetched: https (plain http only to a loopback IP literal when
/// `loopback` allows local tests), a host, a path other than `/`, no `.`/`..` segments,
/// no user info, query or fragment; an IP literal must be public (or loopback when allowed).
pub(crate) fn check_url(id: &str, loopback: bool) -> Result<reqwest::Url, CimdError> {
    if id.len() > MAX_URL {
        return Err(CimdError::Url("too long"));
    }
    let url = reqwest::Url::parse(id).map_err(|_| CimdError::Url("not a URL"))?;
    if url.as_str() != id {
        return Err(CimdError::Url("not in its normal form"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(CimdError::Url("user info is not allowed"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(CimdError::Url("a query or fragment is not allowed"));
    }
    let path = url.path();
    if path == "/" || path.split('/').any(|s| s == "." || s == "..") {
        return Err(CimdError::Url(
            "a path (not `/`, no dot segments) is required",
        ));
    }
    let literal = literal_ip(&url);
    let local = loopback && literal.is_some_and(|ip| ip.is_loopback());
    match url.scheme() {
        "https" => {}
        "http" if local => {}
        _ => return Err(CimdError::Url("https is required")),
    }
    match literal {
        Some(ip) if !(local || super::address::is_public(ip)) => Err(CimdError::Address),
        _ => Ok(url),
    }
}

fn literal_ip(url: &reqwest::Url) -> Option<IpAddr> {
    let host = url.host_str()?;
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()
}

/// The fields of a metadata document beyond dynamic registration's.
#[derive(serde::Deserialize)]
struct Document {
    client_id: Option<String>,
    #[serde(flatten)]
    metadata: registration::Request,
}

/// The document fetched from `id`, checked: `client_id` equal to `id`, then the rules of
/// dynamic registration (public client, redirect URIs, the name bounded). The name shown is
/// followed by the document's host, the one thing about the client its fetch proved.
pub(crate) fn client(id: &str, body: &[u8], expires_at: u64) -> Result<Registration, CimdError> {
    let doc: Document = serde_json::from_slice(body)
        .map_err(|_| CimdError::Document("not a JSON object of client metadata".into()))?;
    if doc.client_id.as_deref() != Some(id) {
        return Err(CimdError::Document(
            "its client_id is not the URL it was fetched from".into(),
        ));
    }
    let mut client = registration::register(doc.metadata, id.to_string(), expires_at)
        .map_err(|e| CimdError::Document(e.description))?;
    let host = reqwest::Url::parse(id)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string));
    client.name = format!("{} ({})", client.name, host.unwrap_or_default());
    Ok(client)
}

/// How long to keep a document by its `Cache-Control`: `max-age` within
/// [[`MIN_CACHE_S`], [`MAX_CACHE_S`]]; [`MIN_CACHE_S`] without it or with `no-store`/`no-cache`.
pub(crate) fn cache_seconds(cache_control: Option<&str>) -> u64 {
    let mut max_age = None;
    for directive in cache_control.unwrap_or_default().split(',') {
        let directive = directive.trim().to_ascii_lowercase();
        if directive == "no-store" || directive == "no-cache" {
            return MIN_CACHE_S;
        }
        if let Some(v) = directive.strip_prefix("max-age=") {
            max_age = v.trim_matches('"').parse::<u64>().ok().or(max_age);
        }
    }
    max_age
        .unwrap_or(MIN_CACHE_S)
        .clamp(MIN_CACHE_S, MAX_CACHE_S)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_id_urls_follow_the_draft_rules() {
        let ok = |id: &str, lb| check_url(id, lb).is_ok();
        assert!(ok(
            "https://claude.ai/oauth/mcp-oauth-client-metadata",
            false
        ));
        assert!(ok("https://[2606:4700::1111]/client.json", false));
        assert!(!ok("https://claude.ai/", false));
        assert!(!ok("https://claude.ai", false));
        assert!(!ok("http://claude.ai/client.json", false));
        assert!(!ok("https://claude.ai/a/../client.json", false));
        assert!(!ok("https://claude.ai/a/%2e%2e/b", false));
        assert!(!ok("https://u:p@claude.ai/client.json", false));
        assert!(!ok("https://claude.ai/client.json?x=1", false));
        assert!(!ok("https://claude.ai/client.json#f", false));
        assert!(!ok("https://CLAUDE.ai/client.json", false));
        assert!(!ok(
            &format!("https://a.example/{}", "x".repeat(2000)),
            false
        ));
        let address = |id: &str, lb| check_url(id, lb).unwrap_err() == CimdError::Address;
        assert!(address("https://169.254.169.254/latest/meta-data", true));
        assert!(address("https://127.0.0.1/client.json", false));
        assert!(address("https://[::ffff:a00:1]/client.json", false));
        // The test switch opens plain http to a loopback literal, nothing else.
        assert!(!ok("http://127.0.0.1:8080/client.json", false));
        assert!(ok("http://127.0.0.1:8080/client.json", true));
        assert!(ok("http://[::1]:8080/client.json", true));
        assert!(!ok("http://localhost:8080/client.json", true));
        assert!(!ok("http://10.0.0.1/client.json", true));
        assert!(is_url("https://a.example/c") && !is_url("4f2a9c"));
    }

    #[test]
    fn the_document_must_name_its_own_url_and_be_a_public_client() {
        let id = "https://app.example.com/client.json";
        let doc = |client_id: &str, extra: &str| {
            format!(
                r#"{{"client_id":"{client_id}","client_name":"App","redirect_uris":["https://app.example.com/cb"]{extra}}}"#
            )
        };
        let c = client(id, doc(id, "").as_bytes(), 9).unwrap();
        assert_eq!(
            (c.id.as_str(), c.name.as_str()),
            (id, "App (app.example.com)")
        );
        let none = r#","token_endpoint_auth_method":"none""#;
        assert!(client(id, doc(id, none).as_bytes(), 9).is_ok());
        let other = client(id, doc("https://evil.example/c.json", "").as_bytes(), 9);
        assert!(matches!(other, Err(CimdError::Document(_))));
        let secret = r#","token_endpoint_auth_method":"client_secret_basic""#;
        assert!(client(id, doc(id, secret).as_bytes(), 9).is_err());
        let no_redirects = format!(r#"{{"client_id":"{id}"}}"#);
        assert!(client(id, no_redirects.as_bytes(), 9).is_err());
        assert!(client(id, b"[1]", 9).is_err());
    }

    #[test]
    fn cache_control_bounds_how_long_a_document_is_kept() {
        assert_eq!(cache_seconds(None), MIN_CACHE_S);
        assert_eq!(cache_seconds(Some("public, max-age=3600")), 3600);
        assert_eq!(cache_seconds(Some("Max-Age=\"600\"")), 600);
        assert_eq!(cache_seconds(Some("max-age=5")), MIN_CACHE_S);
        assert_eq!(cache_seconds(Some("max-age=99999999")), MAX_CACHE_S);
        assert_eq!(cache_seconds(Some("max-age=3600, no-store")), MIN_CACHE_S);
        assert_eq!(cache_seconds(Some("no-cache")), MIN_CACHE_S);
        assert_eq!(cache_seconds(Some("max-age=abc")), MIN_CACHE_S);
    }
}
