//! An authorization server's authorization and token endpoints, read from its metadata once
//! and kept: OpenID discovery, else RFC 8414 (`keys::metadata_urls`), bounded in time and size,
//! its `issuer` the one asked for. `/connect` reads ours this way, the issuer mode the company
//! IdP's.

use std::sync::Mutex;

use serde::Deserialize;

use crate::upstream::token_endpoint as exchange;

/// The most of a metadata document read.
const MAX_METADATA_BYTES: usize = 256 * 1024;

/// The endpoints once learned: `(authorization, token)`.
#[derive(Debug, Default)]
pub(crate) struct Endpoints(Mutex<Option<(String, String)>>);

#[derive(Deserialize)]
struct Metadata {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
}

impl Endpoints {
    /// `issuer`'s endpoints: kept after the first answer, each later call free.
    pub(crate) async fn of(
        &self,
        http: &reqwest::Client,
        issuer: &str,
    ) -> Result<(String, String), String> {
        if let Some(e) = self.0.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return Ok(e);
        }
        let issuer = issuer.trim_end_matches('/');
        let mut errors = Vec::new();
        for url in super::keys::metadata_urls(issuer) {
            match metadata(http, &url).await {
                Ok(m) if m.issuer.trim_end_matches('/') == issuer => {
                    let e = (m.authorization_endpoint, m.token_endpoint);
                    *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.clone());
                    return Ok(e);
                }
                Ok(_) => errors.push(format!("{url}: names another issuer")),
                Err(e) => errors.push(e),
            }
        }
        Err(errors.join("; "))
    }
}

async fn metadata(http: &reqwest::Client, url: &str) -> Result<Metadata, String> {
    let r = http
        .get(url)
        .timeout(exchange::TIMEOUT)
        .send()
        .await
        .map_err(|_| format!("{url}: unreachable"))?;
    if !r.status().is_success() {
        return Err(format!("{url}: HTTP {}", r.status().as_u16()));
    }
    let body = r.bytes().await.map_err(|_| format!("{url}: broke off"))?;
    if body.len() > MAX_METADATA_BYTES {
        return Err(format!("{url}: too large"));
    }
    serde_json::from_slice(&body).map_err(|_| format!("{url}: not the expected JSON"))
}
