//! The composition root: everything a request needs, built once at start from the
//! configuration and the catalogs (the AWS clients and shared stores, the secret store, the
//! inventory, the limits, the call pipeline, the MCP state), handed to the edge as one
//! [`AppState`]. The commands call [`build`]; tests call [`AppState::new`] with their own
//! secret store and stores. The environment is read here and in the configuration, at start;
//! the state keeps none of it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use audit::{AuditLog, EmfConfig, Redactor};
use aws_config::SdkConfig;

use crate::call::{Ledger, Pipeline, TableLedger};
use crate::config::{Config, EnvSnapshot, SecretSourceConfig};
use crate::connect::{Connect, Declared};
use crate::http::{AppState, health};
use crate::inbound::{InboundStore, MemoryInbound, TableInbound};
use crate::inventory::drafts::{self, Drafts};
use crate::inventory::{DeployedCatalog, Inventory, Registry};
use crate::issuer::{Issuer, IssuerParts};
use crate::limits::{self, Limits, table::Table};
use crate::mcp::Mcp;
use crate::oauth::Verifier;
use crate::probes::ProbeTable;
use crate::secrets::{self, SecretLoader, SecretStore};
use crate::tasks::{TableTasks, TaskStore};
use crate::upstream::Upstream;
use crate::upstream::remote::Remotes;
use crate::vault::{KmsKeys, MemoryVault, TableVault, VaultStore};

/// How long clients may cache `tools/list`: the catalogs change only on deploy.
pub(crate) const LIST_TTL: Duration = Duration::from_secs(3600);

/// The shared stores on Lambda (DynamoDB tables); in memory per instance when left out.
pub struct Stores {
    /// The limit and budget counters.
    pub limits: Option<Table>,
    /// The idempotency ledger of writes.
    pub ledger: Ledger,
    /// Each person's own upstream tokens.
    pub vault: Arc<dyn VaultStore>,
    /// The tasks that follow upstream jobs (in the ledger's table).
    pub tasks: TaskStore,
    /// The events upstreams push to `/inbound/<connector>`.
    pub inbound: Arc<dyn InboundStore>,
    /// The authorization server's store and key (`MCP_AS_IDP_ISSUER`); in memory and made at
    /// start when left out.
    pub issuer: Option<IssuerParts>,
}

impl Default for Stores {
    fn default() -> Self {
        Stores {
            limits: None,
            ledger: Ledger::default(),
            vault: Arc::new(MemoryVault::default()),
            tasks: TaskStore::default(),
            inbound: Arc::new(MemoryInbound::default()),
            issuer: None,
        }
    }
}

/// Loads the catalogs: `--catalog`, else `MCP_CATALOG_DIR`, else the embedded set.
pub(crate) fn load_catalogs(dir: Option<&PathBuf>) -> anyhow::Result<Vec<catalog::Catalog>> {
    Ok(connector::load(dir.map(PathBuf::as_path))?)
}

/// Loads the catalogs to serve (`load_catalogs`'s): an uncurated draft among them is refused,
/// or served marked when `drafts` allows it (then each is warned about).
pub fn load_served(dir: Option<&PathBuf>, drafts: Drafts) -> anyhow::Result<Vec<catalog::Catalog>> {
    let loaded = connector::load_files(dir.map(PathBuf::as_path))?;
    let admitted = drafts::admit(loaded, drafts)?;
    for (file, pending) in &admitted.drafts {
        tracing::warn!(
            file = %file,
            pending,
            "--allow-drafts: serving an uncurated draft; each of its tools is marked DRAFT and \
             each write asks for confirmation"
        );
    }
    Ok(admitted.catalogs)
}

/// Builds the application state over the loaded `catalogs`: AWS clients and stores (only when
/// something on AWS is configured), the secret store (loaded once here), the audit log and the
/// HTTP client.
/// `env` is read here only for the local secret (no Secrets Manager): API keys, pepper,
/// confirmation keys and each connector's fields; the state keeps no environment.
pub(crate) async fn build(
    config: Config,
    env: &EnvSnapshot,
    catalogs: Vec<catalog::Catalog>,
    redactor: Redactor,
) -> anyhow::Result<AppState> {
    let counting = config.limits != limits::Thresholds::OFF;
    // An upstream's own rate is kept in the same table, whether or not our limits count.
    let paced = catalogs
        .iter()
        .any(|c| c.quota.as_ref().is_some_and(|q| q.rate.is_some()));
    let table_name = config.limits_table.clone().filter(|_| counting || paced);
    // The AWS configuration is loaded once, and only when something on AWS is used.
    let on_aws = matches!(config.secret_source, SecretSourceConfig::SecretsManager(_))
        || table_name.is_some()
        || config.ledger_table.is_some()
        || config.vault.is_some()
        || config.inbound.is_some()
        || config
            .issuer
            .as_ref()
            .is_some_and(|i| i.table.is_some() || i.key_id.is_some());
    let aws = if on_aws {
        Some(aws_config::load_from_env().await)
    } else {
        None
    };
    let mut stores = stores(&config, table_name, aws.as_ref());
    if let Some(settings) = &config.issuer {
        stores.issuer = Some(
            IssuerParts::build(settings, aws.as_ref())
                .await
                .map_err(|e| anyhow::anyhow!("the authorization server's keys: {e}"))?,
        );
    }
    let loader = secret_loader(&config, env, &catalogs, &redactor, aws.as_ref())?;
    let store = Arc::new(
        SecretStore::new(loader, config.secret_ttl, redactor.clone())
            .with_addresses(secrets::addresses(&catalogs)),
    );
    // Load once per cold start; a failure is logged and answered with 503 until it recovers.
    if let Err(e) = store.get().await {
        tracing::error!(error = %e, "starting without the deployment secret; requests get 503");
    }
    let audit = AuditLog::stdout(
        config
            .emf_namespace
            .clone()
            .map(|namespace| EmfConfig { namespace }),
    );
    Ok(AppState::new(
        config,
        catalogs,
        store,
        audit,
        redactor,
        crate::http_client(),
        stores,
    ))
}

/// The limits' table, the idempotency ledger (and the tasks beside it), the vault and the
/// inbound events: on DynamoDB (and KMS) where their tables are configured, else in memory.
fn stores(config: &Config, limits_table: Option<String>, aws: Option<&SdkConfig>) -> Stores {
    let limits = limits_table.zip(aws).map(|(name, aws)| {
        Table::new(
            aws_sdk_dynamodb::Client::new(aws),
            name,
            config.limits_timeout,
        )
    });
    let (ledger, tasks) = match (&config.ledger_table, aws) {
        (Some(name), Some(aws)) => (
            Ledger::Table(TableLedger::new(
                aws_sdk_dynamodb::Client::new(aws),
                name.clone(),
            )),
            TaskStore::Table(TableTasks::new(
                aws_sdk_dynamodb::Client::new(aws),
                name.clone(),
            )),
        ),
        _ => (Ledger::default(), TaskStore::default()),
    };
    let vault: Arc<dyn VaultStore> = match (&config.vault, aws) {
        (Some(v), Some(aws)) => Arc::new(TableVault::new(
            aws_sdk_dynamodb::Client::new(aws),
            v.table.clone(),
            KmsKeys::new(aws_sdk_kms::Client::new(aws), v.key_id.clone()),
        )),
        _ => Arc::new(MemoryVault::default()),
    };
    let inbound: Arc<dyn InboundStore> = match (&config.inbound, aws) {
        (Some(t), Some(aws)) => Arc::new(TableInbound::new(
            aws_sdk_dynamodb::Client::new(aws),
            t.table.clone(),
            KmsKeys::in_context(
                aws_sdk_kms::Client::new(aws),
                t.key_id.clone(),
                crate::inbound::CONTEXT_KEY,
            ),
        )),
        _ => Arc::new(MemoryInbound::default()),
    };
    Stores {
        limits,
        ledger,
        vault,
        tasks,
        inbound,
        issuer: None,
    }
}

/// The deployment secret's source: Secrets Manager, or the environment read once here (each
/// catalog's secret fields among it).
fn secret_loader(
    config: &Config,
    env: &EnvSnapshot,
    catalogs: &[catalog::Catalog],
    redactor: &Redactor,
    aws: Option<&SdkConfig>,
) -> anyhow::Result<SecretLoader> {
    if let (SecretSourceConfig::SecretsManager(id), Some(aws)) = (&config.secret_source, aws) {
        return Ok(SecretLoader::SecretsManager {
            client: aws_sdk_secretsmanager::Client::new(aws),
            secret_id: id.clone(),
        });
    }
    let fields: Vec<(String, Vec<String>)> = catalogs
        .iter()
        .map(|c| {
            (
                c.connector.to_string(),
                c.secrets.iter().map(|s| s.to_string()).collect(),
            )
        })
        .collect();
    Ok(SecretLoader::Static(Arc::new(secrets::from_env(
        env,
        &fields,
        redactor,
        &secrets::addresses(catalogs),
    )?)))
}

impl AppState {
    /// The state over these catalogs, secret store and stores: the inventory, the limits, the
    /// pipeline and the MCP state, each built once.
    pub fn new(
        config: Config,
        catalogs: Vec<catalog::Catalog>,
        secrets: Arc<SecretStore>,
        audit: AuditLog,
        redactor: Redactor,
        http: reqwest::Client,
        stores: Stores,
    ) -> Self {
        let budgets = catalogs
            .iter()
            .filter_map(|c| {
                let budget = c.quota.as_ref()?.caller_daily_budget?;
                Some((c.connector.to_string(), budget))
            })
            .collect();
        // `/health` shares its probes through the same table.
        let probes = stores.limits.as_ref().map(ProbeTable::in_table);
        let health = health::cache(probes, config.health_interval);
        let limits = Arc::new(Limits::new(config.limits, budgets, stores.limits));
        let catalogs_for_connect = connectors_of(&catalogs);
        let connector_names = catalogs.iter().map(|c| c.connector.to_string()).collect();
        let deployed_catalogs = catalogs
            .into_iter()
            .map(|catalog| deployed(&config, catalog))
            .collect();
        let inventory = Arc::new(Inventory::new(
            Registry::new(deployed_catalogs),
            config.profiles.clone(),
        ));
        let issuer = issuer(
            &config,
            stores.issuer,
            &secrets,
            &http,
            &catalogs_for_connect,
        );
        let oauth = config.oauth.clone().map(|settings| {
            Arc::new(match &issuer {
                // Our own tokens, checked against our own key: no fetch from ourselves.
                Some(i) => Verifier::with_keys(settings, http.clone(), i.jwks()),
                None => Verifier::new(settings, http.clone()),
            })
        });
        let ledger = Arc::new(stores.ledger);
        let connect = connect(
            &config,
            &catalogs_for_connect,
            &stores.vault,
            &oauth,
            &ledger,
            &secrets,
            &http,
        );
        let upstream = Upstream {
            http,
            secrets: secrets.clone(),
            redactor: redactor.clone(),
            remotes: Remotes::new(connector_names),
        };
        let pipeline = Pipeline::new(
            upstream,
            limits.clone(),
            config.max_result_bytes,
            ledger,
            config.token_confirms_critical.clone(),
        )
        .with_vault(stores.vault, connect_base(&config))
        .with_tasks(Arc::new(stores.tasks), config.job_wait)
        .with_inbound(stores.inbound.clone());
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
            health,
            limits,
            oauth,
            connect,
            issuer,
            inbound: stores.inbound,
            insecure_no_auth: false,
        }
    }
}

/// The authorization server of `MCP_AS_IDP_ISSUER`, over the store and key built at start
/// (in memory with a key made now when none were).
fn issuer(
    config: &Config,
    parts: Option<IssuerParts>,
    secrets: &Arc<SecretStore>,
    http: &reqwest::Client,
    connectors: &HashMap<String, Declared>,
) -> Option<Arc<Issuer>> {
    let (settings, oauth) = (config.issuer.clone()?, config.oauth.clone()?);
    let parts = match parts.map(Ok).unwrap_or_else(IssuerParts::local) {
        Ok(parts) => parts,
        Err(e) => {
            tracing::error!(error = %e, "the authorization server is off: no signing key");
            return None;
        }
    };
    let issuer = Issuer::new(
        settings,
        oauth,
        config.profiles.names().map(str::to_string).collect(),
        parts,
        secrets.clone(),
        http.clone(),
    );
    // `/connect` signs people in here, as a client of this server's own.
    let issuer = match connect_base(config).filter(|_| !connectors.is_empty()) {
        Some(base) => issuer.with_connect(connect_redirects(&base, connectors)),
        None => issuer,
    };
    Some(Arc::new(issuer))
}

/// Where our sign-in sends a `/connect` flow back to: each connector's step 2, and the
/// "my connections" page's.
fn connect_redirects(base: &str, connectors: &HashMap<String, Declared>) -> Vec<String> {
    let mut uris: Vec<String> = connectors
        .keys()
        .map(|c| format!("{base}/connect/{c}/signed-in"))
        .collect();
    uris.sort();
    uris.push(format!("{base}/connections/signed-in"));
    uris
}

/// The connectors people connect their own accounts to (`auth: oauth_user`).
fn connectors_of(catalogs: &[catalog::Catalog]) -> HashMap<String, Declared> {
    catalogs
        .iter()
        .filter_map(|c| {
            let oauth = c.auth.oauth_user.clone()?;
            let title = crate::inventory::Registry::title(c).to_string();
            let more = c.tool_scopes().into_iter().map(str::to_string).collect();
            let declared = Declared { title, oauth, more };
            Some((c.connector.to_string(), declared))
        })
        .collect()
}

/// `/connect/<connector>`: with OAuth on and some connector to connect.
fn connect(
    config: &Config,
    connectors: &HashMap<String, Declared>,
    vault: &Arc<dyn VaultStore>,
    oauth: &Option<Arc<Verifier>>,
    ledger: &Arc<Ledger>,
    secrets: &Arc<SecretStore>,
    http: &reqwest::Client,
) -> Option<Arc<Connect>> {
    let verifier = oauth.clone()?;
    if connectors.is_empty() {
        return None;
    }
    Some(Arc::new(Connect {
        http: http.clone(),
        vault: vault.clone(),
        verifier,
        secrets: secrets.clone(),
        ledger: ledger.clone(),
        base: connect_base(config)?,
        // With our own authorization server, its own client for these pages.
        client_id: config.connect_client_id.clone().or_else(|| {
            let ours = config.issuer.is_some();
            ours.then(|| crate::issuer::CONNECT_CLIENT.to_string())
        }),
        connectors: connectors.clone(),
        endpoints: Default::default(),
    }))
}

/// Where `/connect/<connector>` is: beside the MCP endpoint of the resource URL
/// (`https://host/mcp` → `https://host`); none without OAuth, where no caller is a person.
fn connect_base(config: &Config) -> Option<String> {
    let resource = &config.oauth.as_ref()?.resource;
    let base = resource.strip_suffix("/mcp").unwrap_or(resource);
    Some(base.trim_end_matches('/').to_string())
}

/// A catalog with this deployment's settings for it.
fn deployed(config: &Config, catalog: catalog::Catalog) -> DeployedCatalog {
    DeployedCatalog {
        // A remote MCP server's URL takes the base URL's place (and its override).
        base_url: config
            .base_url(&catalog.connector)
            .map(str::to_string)
            .or_else(|| catalog.mcp.as_ref().map(|m| m.url.to_string()))
            .unwrap_or_else(|| catalog.base_url.to_string()),
        expose_raw: config.expose_raw(&catalog.connector),
        catalog,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_catalogs_load() {
        assert!(!load_catalogs(None).unwrap().is_empty());
    }
}
