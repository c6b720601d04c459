//! Everything a request needs, built once at start from the configuration and the catalogs.

use std::sync::Arc;
use std::time::Duration;

use super::health::{self, HealthCache};
use crate::call::Pipeline;
use crate::call::ledger::Ledger;
use crate::inventory::config::{self, Config};
use crate::inventory::profiles::Profiles;
use crate::inventory::secrets::SecretStore;
use crate::inventory::{Connector, Inventory, Registry};
use crate::limits::Limits;
use crate::limits::table::Table;
use crate::mcp::Mcp;
use crate::oauth::Verifier;
use crate::upstream::Upstream;

/// How long clients may cache `tools/list`: the catalogs change only on deploy.
pub const LIST_TTL: Duration = Duration::from_secs(3600);

/// The shared stores on Lambda (DynamoDB tables); in memory per instance when left out.
#[derive(Default)]
pub struct Stores {
    /// The limit and budget counters.
    pub limits: Option<Table>,
    /// The idempotency ledger of writes.
    pub ledger: Ledger,
}

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
    /// Local loopback testing only (conformance suite); `serve` refuses it on other addresses
    /// and Lambda mode never sets it.
    pub insecure_no_auth: bool,
}

impl AppState {
    pub fn new(
        config: Config,
        catalogs: Vec<catalog::Catalog>,
        secrets: Arc<SecretStore>,
        audit: audit::AuditLog,
        redactor: audit::Redactor,
        http: reqwest::Client,
        stores: Stores,
    ) -> Self {
        let budgets = catalogs
            .iter()
            .filter_map(|c| {
                let budget = c.quota.as_ref()?.caller_daily_budget?;
                Some((c.connector.clone(), budget))
            })
            .collect();
        let limits = Arc::new(Limits::new(config.limits, budgets, stores.limits));
        let connectors = catalogs
            .into_iter()
            .map(|catalog| Connector {
                base_url: config
                    .env
                    .connector(&catalog.connector, config::BASE_URL_SUFFIX)
                    .map_or_else(|| catalog.base_url.clone(), str::to_string),
                expose_raw: config.expose_raw(&catalog.connector),
                catalog,
            })
            .collect();
        let profiles: Profiles = config.profiles.clone();
        let inventory = Arc::new(Inventory::new(Registry::new(connectors), profiles));
        let oauth = config
            .oauth
            .clone()
            .map(|settings| Arc::new(Verifier::new(settings, http.clone())));
        let pipeline = Pipeline::new(
            Upstream {
                http,
                secrets: secrets.clone(),
                redactor: redactor.clone(),
            },
            limits.clone(),
            config.max_result_bytes,
            stores.ledger,
            config.token_confirms_critical.clone(),
        );
        let mcp = Arc::new(Mcp::new(
            inventory.clone(),
            pipeline,
            audit.clone(),
            redactor,
            config.call_deadline,
            LIST_TTL,
        ));
        AppState {
            config: Arc::new(config),
            inventory,
            mcp,
            secrets,
            audit,
            health: health::cache(),
            limits,
            oauth,
            insecure_no_auth: false,
        }
    }
}
