//! What every request reads, built once at start by the composition root
//! (`startup.rs`, which uses this module, not the other way round); the edge only receives it.

use std::sync::Arc;

use super::health::HealthCache;
use crate::config::Config;
use crate::inventory::Inventory;
use crate::limits::Limits;
use crate::mcp::Mcp;
use crate::oauth::Verifier;
use crate::secrets::SecretStore;

#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub inventory: Arc<Inventory>,
    pub mcp: Arc<Mcp>,
    pub secrets: Arc<SecretStore>,
    pub audit: audit::AuditLog,
    pub health: Arc<HealthCache>,
    pub limits: Arc<Limits>,
    /// The access-token check, when OAuth is on.
    pub oauth: Option<Arc<Verifier>>,
    /// `/connect/<connector>`, when OAuth is on and some connector has `auth: oauth_user`.
    pub connect: Option<Arc<crate::connect::Connect>>,
    /// `/oauth/…` and the RFC 8414 metadata, when this server is the authorization server.
    pub(crate) issuer: Option<Arc<crate::issuer::Issuer>>,
    /// Where `/inbound/<connector>` keeps the events upstreams push.
    pub inbound: Arc<dyn crate::inbound::InboundStore>,
    /// Local loopback testing only (conformance suite); `serve` refuses it on other addresses
    /// and Lambda mode never sets it.
    pub insecure_no_auth: bool,
}
