//! Our authorization server's endpoints, read from its metadata once and kept.

use serde::Deserialize;

use super::Connect;
use crate::upstream::token_endpoint as exchange;

impl Connect {
    /// Our authorization server's authorization and token endpoints (its metadata, once).
    pub(super) async fn our_endpoints(&self) -> Result<(String, String), String> {
        if let Some(e) = self
            .endpoints
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            return Ok(e);
        }
        let issuer = &self.verifier.settings().issuer;
        let mut errors = Vec::new();
        for url in crate::oauth::keys::metadata_urls(issuer) {
            match self.metadata(&url).await {
                Ok(m) if m.issuer == *issuer => {
                    let e = (m.authorization_endpoint, m.token_endpoint);
                    *self.endpoints.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.clone());
                    return Ok(e);
                }
                Ok(_) => errors.push(format!("{url}: another issuer")),
                Err(e) => errors.push(e),
            }
        }
        Err(errors.join("; "))
    }

    async fn metadata(&self, url: &str) -> Result<Metadata, String> {
        let r = self
            .http
            .get(url)
            .timeout(exchange::TIMEOUT)
            .send()
            .await
            .map_err(|_| format!("{url}: unreachable"))?;
        if !r.status().is_success() {
            return Err(format!("{url}: HTTP {}", r.status().as_u16()));
        }
        let body = r.bytes().await.map_err(|_| format!("{url}: broke off"))?;
        if body.len() > 256 * 1024 {
            return Err(format!("{url}: too large"));
        }
        serde_json::from_slice(&body).map_err(|_| format!("{url}: not the expected JSON"))
    }
}

#[derive(Deserialize)]
struct Metadata {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
}
