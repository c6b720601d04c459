//! Fetching a client's metadata document (`cimd`'s rules) without letting the client id aim
//! our server at its own network: host names resolve through [`PublicOnly`], which refuses a
//! name if any of its addresses is not public, and the connection goes to exactly the
//! addresses it checked (reqwest's resolver hook: no second lookup, so no DNS rebinding); IP
//! literals were checked by `cimd::check_url`. No proxy, no redirect followed (a 3xx is a
//! refusal), at most [`cimd::MAX_BYTES`] read, [`FETCH_LIMIT`] in all.
//!
//! Documents are kept **in memory per instance**, for their `Cache-Control` lifetime
//! (`cimd::cache_seconds`): they are public, the same for every instance, and cheap to fetch
//! again on a cold start, while keeping them in the table would cost a write per new client
//! and keep third-party content we would then have to expire ourselves. Failures are not kept.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::address::is_public;
use super::cimd::{self, CimdError};
use super::store::Registration;

/// The whole fetch: connect, answer, body.
pub(crate) const FETCH_LIMIT: Duration = Duration::from_secs(3);
/// Documents kept at most per instance (a full cache drops the expired, then everything).
const MAX_KEPT: usize = 512;

/// A resolver that answers only with public addresses, or not at all.
struct PublicOnly;

#[derive(Debug, thiserror::Error)]
#[error("the host resolves to an address that is not public")]
struct NotPublic;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if found.is_empty() || found.iter().any(|a| !is_public(a.ip())) {
                return Err(Box::new(NotPublic) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(found.into_iter()) as Addrs)
        })
    }
}

/// The fetcher and its per-instance cache.
pub(crate) struct Documents {
    http: reqwest::Client,
    /// Plain http to a loopback IP literal (local tests only; start-up refuses it on Lambda).
    loopback: bool,
    limit: Duration,
    kept: Mutex<HashMap<String, Registration>>,
}

impl Documents {
    /// `test_ca`: a certificate (DER) trusted beside the public roots (local tests only).
    pub(crate) fn new(loopback: bool, limit: Duration, test_ca: Option<&[u8]>) -> Self {
        let agent = concat!("hosted-mcp/", env!("CARGO_PKG_VERSION"));
        let trusting = test_ca.and_then(|der| {
            let builder = connector::http_client_builder_trusting(agent, der);
            if builder.is_none() {
                tracing::warn!("issuer: the CIMD test certificate is not usable");
            }
            builder
        });
        let builder = trusting.unwrap_or_else(|| connector::http_client_builder(agent));
        let http = builder
            .dns_resolver(Arc::new(PublicOnly))
            .no_proxy()
            .timeout(limit)
            .build()
            .expect("static client configuration");
        Documents {
            http,
            loopback,
            limit,
            kept: Mutex::new(HashMap::new()),
        }
    }

    /// The client `id` names, from the cache or fetched now.
    pub(crate) async fn client(&self, id: &str, now: u64) -> Result<Registration, CimdError> {
        if let Some(c) = self.kept(id, now) {
            return Ok(c);
        }
        let url = cimd::check_url(id, self.loopback)?;
        let (body, cache_control) = tokio::time::timeout(self.limit, self.fetch(url))
            .await
            .map_err(|_| CimdError::Slow)??;
        let until = now + cimd::cache_seconds(cache_control.as_deref());
        let client = cimd::client(id, &body, until)?;
        self.keep(client.clone(), now);
        Ok(client)
    }

    fn kept(&self, id: &str, now: u64) -> Option<Registration> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.get(id).filter(|c| c.expires_at > now).cloned()
    }

    fn keep(&self, client: Registration, now: u64) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= MAX_KEPT {
            kept.retain(|_, c| c.expires_at > now);
        }
        if kept.len() >= MAX_KEPT {
            kept.clear();
        }
        kept.insert(client.id.clone(), client);
    }

    /// The body (at most [`cimd::MAX_BYTES`]) and the `Cache-Control` of a 200 answer.
    async fn fetch(&self, url: reqwest::Url) -> Result<(Vec<u8>, Option<String>), CimdError> {
        let mut answer = self
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(failed)?;
        let status = answer.status();
        if status.is_redirection() {
            return Err(CimdError::Fetch("a redirect (not followed)".into()));
        }
        if !status.is_success() {
            return Err(CimdError::Fetch(format!("HTTP {}", status.as_u16())));
        }
        if answer.content_length().unwrap_or(0) > cimd::MAX_BYTES as u64 {
            return Err(CimdError::TooLarge);
        }
        let cache_control = answer
            .headers()
            .get(reqwest::header::CACHE_CONTROL)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut body = Vec::new();
        while let Some(chunk) = answer.chunk().await.map_err(failed)? {
            if body.len() + chunk.len() > cimd::MAX_BYTES {
                return Err(CimdError::TooLarge);
            }
            body.extend_from_slice(&chunk);
        }
        Ok((body, cache_control))
    }
}

/// A failed request: an address refused by [`PublicOnly`], the time limit, or another fault.
fn failed(e: reqwest::Error) -> CimdError {
    if e.is_timeout() {
        return CimdError::Slow;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    while let Some(s) = source {
        if s.is::<NotPublic>() {
            return CimdError::Address;
        }
        source = s.source();
    }
    CimdError::Fetch(if e.is_connect() {
        "no connection".into()
    } else {
        "the request failed".into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A loopback server answering each path with a canned response (`/slow` never answers);
    /// its base URL.
    async fn server() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let own = base.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let base = own.clone();
                tokio::spawn(async move {
                    let mut head = vec![0u8; 2048];
                    let n = stream.read(&mut head).await.unwrap_or(0);
                    let head = String::from_utf8_lossy(&head[..n]);
                    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
                    let answer = canned(&base, &path).await;
                    let _ = stream.write_all(answer.as_bytes()).await;
                });
            }
        });
        base
    }

    async fn canned(base: &str, path: &str) -> String {
        let doc = |id: &str| {
            format!(
                r#"{{"client_id":"{id}","client_name":"App","redirect_uris":["http://127.0.0.1:9/cb"]}}"#
            )
        };
        let ok = |body: String, extra: &str| {
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra}connection: close\r\n\r\n{body}",
                body.len()
            )
        };
        match path {
            "/good.json" => ok(doc(&format!("{base}{path}")), "cache-control: max-age=600\r\n"),
            "/other.json" => ok(doc(&format!("{base}/good.json")), ""),
            "/big.json" => ok(" ".repeat(cimd::MAX_BYTES + 1), ""),
            "/chunked.json" => {
                let chunk = format!("{:x}\r\n{}\r\n", 1024, "x".repeat(1024));
                format!(
                    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n{}0\r\n\r\n",
                    chunk.repeat(6)
                )
            }
            "/moved.json" => {
                "HTTP/1.1 302 Found\r\nlocation: http://169.254.169.254/x\r\ncontent-length: 0\r\n\r\n"
                    .to_string()
            }
            _ => {
                tokio::time::sleep(Duration::from_secs(30)).await;
                String::new()
            }
        }
    }

    fn documents(loopback: bool) -> Documents {
        Documents::new(loopback, Duration::from_millis(300), None)
    }

    #[tokio::test]
    async fn a_local_document_needs_the_switch_and_is_kept_by_its_max_age() {
        let base = server().await;
        let id = format!("{base}/good.json");
        let err = documents(false).client(&id, 100).await.unwrap_err();
        assert!(matches!(err, CimdError::Url(_)), "{err:?}");
        let docs = documents(true);
        let c = docs.client(&id, 100).await.unwrap();
        assert_eq!((c.name.as_str(), c.expires_at), ("App (127.0.0.1)", 700));
        assert!(docs.kept(&id, 699).is_some() && docs.kept(&id, 700).is_none());
        let other = docs.client(&format!("{base}/other.json"), 100).await;
        assert!(matches!(other, Err(CimdError::Document(_))), "{other:?}");
    }

    #[tokio::test]
    async fn size_time_and_redirects_are_bounded() {
        let base = server().await;
        let docs = documents(true);
        let moved = CimdError::Fetch("a redirect (not followed)".into());
        for (path, refused) in [
            ("/big.json", CimdError::TooLarge),
            ("/chunked.json", CimdError::TooLarge),
            ("/moved.json", moved),
            ("/slow.json", CimdError::Slow),
        ] {
            let started = std::time::Instant::now();
            let got = docs.client(&format!("{base}{path}"), 0).await;
            assert_eq!(got.unwrap_err(), refused, "{path}");
            assert!(started.elapsed() < Duration::from_secs(2), "{path}");
        }
    }

    #[tokio::test]
    async fn names_resolving_to_private_addresses_are_refused_before_connecting() {
        // `localhost` resolves to loopback: refused even with the local switch (which opens
        // plain http to loopback IP literals only).
        let docs = documents(true);
        let err = docs
            .client("https://localhost/client.json", 1)
            .await
            .unwrap_err();
        assert_eq!(err, CimdError::Address);
        let err = docs
            .client("https://169.254.169.254/latest/meta-data", 1)
            .await;
        assert_eq!(err.unwrap_err(), CimdError::Address);
    }
}
