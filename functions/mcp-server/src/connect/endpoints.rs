//! Our authorization server's endpoints, read from its metadata once and kept.

use super::Connect;

impl Connect {
    /// Our authorization server's authorization and token endpoints (its metadata, once).
    pub(super) async fn our_endpoints(&self) -> Result<(String, String), String> {
        let issuer = &self.verifier.settings().issuer;
        self.endpoints.of(&self.http, issuer).await
    }
}
