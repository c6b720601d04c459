//! Commands: Lambda mode (when `AWS_LAMBDA_RUNTIME_API` is set), `serve`, and the helpers
//! around them (the command line is `args.rs`). [`crate::startup`] builds every dependency
//! once; the commands run it.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, bail};
use audit::Redactor;

use crate::config::{self, Config, EnvSnapshot, SecretSourceConfig};
use crate::http::{AppState, app};
use crate::inventory::drafts::Drafts;
use crate::startup::{self, load_catalogs, load_served};

mod args;
mod connectors;
#[cfg(feature = "import")]
pub(crate) mod import;
pub(crate) mod lint;
mod pins;
mod sandbox;
pub(crate) mod smoke;

pub use args::Cli;

#[derive(Debug, PartialEq)]
pub enum Command {
    Lambda,
    Lint {
        dir: Option<PathBuf>,
    },
    /// `pages`: each catalog's capability page written beside it.
    Pages {
        dir: PathBuf,
    },
    /// `pins`: each remote MCP server's tools as pins, for a review.
    Pins {
        dir: Option<PathBuf>,
    },
    Smoke(Box<smoke::SmokeOptions>),
    /// `import openapi`: a draft catalog from an OpenAPI document.
    #[cfg(feature = "import")]
    Import(Box<import::ImportArgs>),
    Serve {
        addr: SocketAddr,
        catalog: Option<PathBuf>,
        insecure_no_auth: bool,
        /// Serves uncurated imported drafts, marked, every write confirmed.
        allow_drafts: bool,
    },
}

/// Runs a command. `env` is the snapshot `config` was parsed from; only the start-up of
/// `serve` and Lambda mode reads it (the local secret).
pub async fn run(
    command: Command,
    config: Config,
    env: EnvSnapshot,
    redactor: Redactor,
) -> anyhow::Result<()> {
    match command {
        Command::Smoke(opts) => run_smoke(&opts).await,
        #[cfg(feature = "import")]
        Command::Import(args) => import::run(&args),
        Command::Lint { dir } => run_lint(dir.as_ref(), &config),
        Command::Pages { dir } => run_pages(&dir, &config),
        Command::Pins { dir } => run_pins(dir, config, env, redactor).await,
        Command::Lambda => run_lambda(config, env, redactor).await,
        Command::Serve {
            addr,
            catalog,
            insecure_no_auth,
            allow_drafts,
        } => {
            let drafts = if allow_drafts {
                Drafts::Allow
            } else {
                Drafts::Refuse
            };
            let local = Local::prepare(config, env, catalog.as_ref(), drafts).await?;
            serve(local, addr, insecure_no_auth, redactor).await
        }
    }
}

/// `smoke`: one line per check; fails when any check did.
async fn run_smoke(opts: &smoke::SmokeOptions) -> anyhow::Result<()> {
    let checks = smoke::run(opts).await;
    std::io::Write::write_all(&mut std::io::stdout(), smoke::render(&checks).as_bytes())?;
    let failed = checks.iter().filter(|c| !c.ok).count();
    if failed > 0 {
        bail!("{failed} smoke check(s) failed");
    }
    Ok(())
}

/// `lint`: the checklist table; fails on any gap.
fn run_lint(dir: Option<&PathBuf>, config: &Config) -> anyhow::Result<()> {
    // The capability pages are files beside the catalogs: checked where there is a directory.
    let files = match dir {
        Some(dir) => catalog::load_dir_files(dir)?,
        None => Vec::new(),
    };
    let catalogs = match dir {
        Some(_) => files.iter().map(|(_, c)| c.clone()).collect(),
        None => load_catalogs(None)?,
    };
    let mut rows = lint::lint(&catalogs, config);
    let pages = lint::page::rows(&files, &rows, jiff::Zoned::now().date());
    rows.extend(pages);
    // The table is this command's output.
    std::io::Write::write_all(&mut std::io::stdout(), lint::render(&rows).as_bytes())?;
    let gaps = rows
        .iter()
        .filter(|r| r.verdict == lint::Verdict::Gap)
        .count();
    if gaps > 0 {
        bail!("{gaps} gap(s) in the catalogs");
    }
    Ok(())
}

/// `pages`: each catalog's capability page, generated beside it with its `reviewed:` date kept.
fn run_pages(dir: &std::path::Path, config: &Config) -> anyhow::Result<()> {
    let files = catalog::load_dir_files(dir)?;
    let catalogs: Vec<catalog::Catalog> = files.iter().map(|(_, c)| c.clone()).collect();
    let rows = lint::lint(&catalogs, config);
    for (file, c) in &files {
        let path = lint::page::page_path(file);
        let old = std::fs::read_to_string(&path).ok();
        let reviewed = old.as_deref().and_then(crate::pages::reviewed);
        let page = lint::page::expected(file, c, &rows, reviewed);
        if old.as_deref() == Some(page.as_str()) {
            continue;
        }
        std::fs::write(&path, &page).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// `pins`: each remote connector's `pins:` block as its tools list now.
async fn run_pins(
    dir: Option<PathBuf>,
    config: Config,
    env: EnvSnapshot,
    redactor: Redactor,
) -> anyhow::Result<()> {
    let catalogs = load_catalogs(dir.as_ref().or(config.catalog_dir.as_ref()))?;
    let state = startup::build(config, &env, catalogs, redactor).await?;
    let upstream = state.mcp.pipeline.upstream();
    let mut out = String::new();
    for conn in &state.inventory.registry.catalogs {
        if conn.catalog.mcp.is_none() {
            continue;
        }
        // A per-person remote lists nothing without someone's token.
        let fetched = match conn.catalog.auth.oauth_user {
            Some(_) => None,
            None => Some(
                upstream
                    .remote_tools(conn, crate::upstream::Credentials::Deployment, false)
                    .await,
            ),
        };
        let listed = match &fetched {
            None => pins::Listed::PerPerson,
            Some(Ok(set)) => pins::Listed::Pins(set),
            Some(Err(e)) => pins::Listed::Unavailable(e.to_string()),
        };
        out.push_str(&pins::render(&conn.catalog.connector, listed));
    }
    // The blocks are this command's output.
    std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes())?;
    Ok(())
}

/// Lambda mode: the deployment's catalogs (never a draft), served through the Runtime API.
async fn run_lambda(config: Config, env: EnvSnapshot, redactor: Redactor) -> anyhow::Result<()> {
    let catalogs = load_served(config.catalog_dir.as_ref(), Drafts::Never)?;
    let state = startup::build(config, &env, catalogs, redactor).await?;
    warn_if_too_many_listed(&state);
    check_keys(&state).await?;
    lambda_http::run(app(state))
        .await
        .map_err(|e| anyhow::anyhow!("lambda runtime: {e}"))
}

/// What `serve` runs with: the configuration completed for a laptop (a generated key and
/// pepper when unset, the sandbox when no Papierkram credentials are given) and the catalogs.
struct Local {
    config: Config,
    env: EnvSnapshot,
    catalogs: Vec<catalog::Catalog>,
    /// The key generated for this run, to print once.
    generated_key: Option<String>,
}

impl Local {
    async fn prepare(
        mut config: Config,
        mut env: EnvSnapshot,
        catalog: Option<&PathBuf>,
        drafts: Drafts,
    ) -> anyhow::Result<Local> {
        let local_key = local_key_if_unset(&config, &env);
        if let Some((_, pairs)) = &local_key {
            env = env.with(config::API_KEYS, pairs);
        }
        if let Some(pepper) = local_pepper_if_unset(&config, &env) {
            // OAuth callers and asserted users are recorded by pseudonym: it needs a pepper.
            env = env.with(config::PSEUDONYM_PEPPER, &pepper);
        }
        // Parsed once: the sandbox question and the state both use them.
        let catalogs = load_served(catalog.or(config.catalog_dir.as_ref()), drafts)?;
        let sandboxed = needs_sandbox(&config, &env, &catalogs).then_some("papierkram");
        if sandboxed.is_some() {
            env = sandbox::start(env).await?;
            // The sandbox's address is a connector variable: parse again.
            config = Config::parse(&env)?;
        }
        if config.secret_source == SecretSourceConfig::Variables {
            for (connector, state) in connectors::local_states(&catalogs, &env, sandboxed) {
                tracing::info!(connector, "{}", connectors::describe(&state));
            }
        }
        Ok(Local {
            config,
            env,
            catalogs,
            generated_key: local_key.map(|(key, _)| key),
        })
    }
}

/// `serve`: the local server on `addr` until Ctrl-C.
async fn serve(
    local: Local,
    addr: SocketAddr,
    insecure_no_auth: bool,
    redactor: Redactor,
) -> anyhow::Result<()> {
    let mut state = startup::build(local.config, &local.env, local.catalogs, redactor).await?;
    state.insecure_no_auth = insecure_no_auth;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let bound = listener.local_addr()?;
    warn_if_too_many_listed(&state);
    if !insecure_no_auth {
        check_keys(&state).await?;
    }
    tracing::info!(
        url = %format!("http://{bound}/mcp"),
        listed = state.mcp.listed_count(),
        searchable = state.inventory.registry.exposed().count(),
        "serving MCP"
    );
    if let Some(key) = &local.generated_key {
        // A one-off message for the developer at the terminal, not a log line.
        eprintln!(
            "\nNo MCP_API_KEYS set: generated a key for this run.\n  URL:    http://{bound}/mcp\n  Header: Authorization: Bearer {key}\n"
        );
    }
    if insecure_no_auth {
        tracing::warn!("--insecure-no-auth: every request is accepted without an API key");
    }
    // The peer address is the client IP locally (the limits count per IP).
    let service = app(state).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, service)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

/// Keys the operator may not expect: none at all, or some without a profile once profiles
/// are mapped to keys (those are refused or get the default profile).
/// A key trusted to assert its users without a pepper to record them refuses the start: its
/// gateway's users would all be one caller (limits, budgets, replays of each other's writes).
async fn check_keys(state: &AppState) -> anyhow::Result<()> {
    let Ok(secrets) = state.secrets.get().await else {
        return Ok(());
    };
    if !state.config.user_header_keys.is_empty() && secrets.pepper.is_none() {
        bail!(
            "{} trusts the key(s) {} to assert their users, but the deployment secret has no \
             pseudonym_pepper to record them by: every user of such a gateway would be one \
             caller. Add a pepper (32+ random bytes) to the secret, or unset {}",
            config::USER_HEADER_KEYS,
            state.config.user_header_keys.join(","),
            config::USER_HEADER_KEYS
        );
    }
    if state.config.api_keys && secrets.api_keys.is_empty() {
        tracing::warn!("no API keys configured: every request to /mcp without OAuth gets 401");
    }
    let unmapped = state
        .inventory
        .profiles
        .unmapped(secrets.api_keys.iter().map(|k| k.id.as_str()));
    if !unmapped.is_empty() {
        tracing::warn!(
            key_ids = %unmapped.join(","),
            "API keys without a profile in MCP_KEY_PROFILES: they get MCP_DEFAULT_PROFILE, or 403 when it is unset"
        );
    }
    Ok(())
}

/// Above ~30 listed tools a model's tool selection degrades: say so at start.
fn warn_if_too_many_listed(state: &AppState) {
    let listed = state.mcp.listed_count();
    if listed > lint::MAX_LISTED {
        tracing::warn!(
            listed,
            max = lint::MAX_LISTED,
            "more tools are listed than models choose from well: mark the rest `core: false` \
             (they stay reachable through search_tools and call_tool)"
        );
    }
}

/// Local runs without Papierkram credentials use the offline sandbox, when the Papierkram
/// catalog is loaded.
fn needs_sandbox(config: &Config, env: &EnvSnapshot, catalogs: &[catalog::Catalog]) -> bool {
    config.secret_source == SecretSourceConfig::Variables
        && env.per_connector("papierkram", "_TOKEN").is_none()
        && catalogs.iter().any(|c| c.connector == "papierkram")
}

/// With env secrets and no `MCP_API_KEYS`, a random key for this run: (key, `dev:key`).
fn local_key_if_unset(config: &Config, env: &EnvSnapshot) -> Option<(String, String)> {
    if config.secret_source != SecretSourceConfig::Variables || env.get(config::API_KEYS).is_some()
    {
        return None;
    }
    let key = crate::random::hex(24)?;
    Some((key.clone(), format!("dev:{key}")))
}

/// With env secrets, OAuth on or keys trusted to assert users, and no `MCP_PSEUDONYM_PEPPER`, a
/// random pepper for this run (the pseudonyms then hold for this run only).
fn local_pepper_if_unset(config: &Config, env: &EnvSnapshot) -> Option<String> {
    if config.secret_source != SecretSourceConfig::Variables
        || (config.oauth.is_none() && config.user_header_keys.is_empty())
        || env.get(config::PSEUDONYM_PEPPER).is_some()
    {
        return None;
    }
    crate::random::hex(32)
}
