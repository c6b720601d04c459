//! The authorization server metadata (RFC 8414) at `/.well-known/oauth-authorization-server`:
//! where our routes are and what they accept. S256 only; public clients (`none`) only.

use serde_json::{Value, json};

/// Our routes, beside `/mcp` on the same origin.
pub(crate) const AUTHORIZE: &str = "/oauth/authorize";
pub(crate) const TOKEN: &str = "/oauth/token";
pub(crate) const REGISTER: &str = "/oauth/register";
pub(crate) const JWKS: &str = "/oauth/jwks";
pub(crate) const REVOKE: &str = "/oauth/revoke";
/// The company IdP's return, and the consent form's target.
pub(crate) const CALLBACK: &str = "/oauth/callback";
pub(crate) const CONSENT: &str = "/oauth/consent";
/// The RFC 8414 well-known path (our issuer has no path, so nothing follows it).
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-authorization-server";

/// The metadata of issuer `issuer` (an origin), offering `scopes`.
pub(crate) fn document(issuer: &str, scopes: &[&str]) -> Value {
    json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}{AUTHORIZE}"),
        "token_endpoint": format!("{issuer}{TOKEN}"),
        "registration_endpoint": format!("{issuer}{REGISTER}"),
        "jwks_uri": format!("{issuer}{JWKS}"),
        "revocation_endpoint": format!("{issuer}{REVOKE}"),
        "revocation_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": scopes,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
        "client_id_metadata_document_supported": true,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn s256_only_public_clients_and_our_own_routes() {
        let d = super::document("https://mcp.example.com", &["mcp:tools"]);
        assert_eq!(
            d["code_challenge_methods_supported"],
            serde_json::json!(["S256"])
        );
        assert_eq!(
            d["token_endpoint_auth_methods_supported"],
            serde_json::json!(["none"])
        );
        assert_eq!(d["token_endpoint"], "https://mcp.example.com/oauth/token");
        assert_eq!(d["client_id_metadata_document_supported"], true);
    }
}
