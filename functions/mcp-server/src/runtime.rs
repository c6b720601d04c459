//! The contract runtime: which tools exist for this deployment, and one tool call from
//! arguments to a status result. Every rule of the catalog format is enforced here, for every
//! tool, so no connector can forget one.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use catalog::{Catalog, Risk, Status, Tool};
use serde_json::{Map, Value};

use crate::args::{self, ValidArgs};
use crate::secrets::SecretStore;
use crate::shape::{self, Outcome};
use crate::upstream::{self, Failure, Reply};

/// A loaded catalog with its deployment settings.
#[derive(Debug)]
pub struct Connector {
    pub catalog: Catalog,
    /// The catalog's base URL or its `<CONNECTOR>_BASE_URL` override.
    pub base_url: String,
    pub expose_raw: bool,
}

/// Every tool of every connector, indexed by name.
#[derive(Debug)]
pub struct Registry {
    pub connectors: Vec<Connector>,
    index: HashMap<String, (usize, usize)>,
}

impl Registry {
    pub fn new(connectors: Vec<Connector>) -> Self {
        let mut index = HashMap::new();
        for (c, conn) in connectors.iter().enumerate() {
            for (t, tool) in conn.catalog.tools.iter().enumerate() {
                index.insert(tool.name.clone(), (c, t));
            }
        }
        Registry { connectors, index }
    }

    /// Whether a tool may be listed and called in this deployment.
    pub fn is_exposed(conn: &Connector, tool: &Tool) -> bool {
        tool.risk != Risk::Forbidden && (!tool.raw || conn.expose_raw)
    }

    /// Tools a client may see and call, in catalog order.
    pub fn exposed(&self) -> impl Iterator<Item = (&Connector, &Tool)> {
        self.connectors.iter().flat_map(|c| {
            c.catalog
                .tools
                .iter()
                .filter(move |t| Self::is_exposed(c, t))
                .map(move |t| (c, t))
        })
    }

    /// A callable tool by name; hidden and forbidden tools are not found.
    pub fn find(&self, name: &str) -> Option<(&Connector, &Tool)> {
        let (c, t) = *self.index.get(name)?;
        let conn = &self.connectors[c];
        let tool = &conn.catalog.tools[t];
        Self::is_exposed(conn, tool).then_some((conn, tool))
    }

    /// The exposed tool names closest to an unknown one.
    pub fn suggest(&self, name: &str) -> Option<&str> {
        args::closest(name, self.exposed().map(|(_, t)| t.name.as_str()))
    }
}

/// What a tool call needs from the server.
pub struct Runtime {
    pub http: reqwest::Client,
    pub secrets: Arc<SecretStore>,
    pub redactor: audit::Redactor,
    pub max_result_bytes: usize,
}

impl Runtime {
    /// One tool call: validate, confirm, call upstream (re-reading the secret once on 401),
    /// shape the result.
    pub async fn call(
        &self,
        conn: &Connector,
        tool: &Tool,
        arguments: &Map<String, Value>,
    ) -> Outcome {
        let valid = match args::validate(tool, arguments) {
            Ok(v) => v,
            Err(e) => return Outcome::failed(Status::InvalidInput, "invalid_argument", e.hint),
        };
        if args::needs_confirmation(tool) && !valid.confirm {
            let effect = tool
                .side_effects
                .as_deref()
                .unwrap_or("It changes data upstream.");
            return Outcome::failed(
                Status::ConfirmationRequired,
                "confirmation_required",
                format!(
                    "`{}` is a {}-risk action: {effect} Ask the user, then call again with confirm=true.",
                    tool.name,
                    if tool.risk == Risk::Critical {
                        "critical"
                    } else {
                        "high"
                    }
                ),
            );
        }
        let mut outcome = self.execute(conn, tool, &valid).await;
        let budget = tool.max_result_bytes.unwrap_or(self.max_result_bytes);
        outcome.truncated = shape::cap(&mut outcome.body, budget);
        outcome
    }

    async fn execute(&self, conn: &Connector, tool: &Tool, valid: &ValidArgs) -> Outcome {
        if let Some(agg) = &tool.aggregate {
            return crate::aggregate::run(self, conn, agg, valid).await;
        }
        match self.fetch(conn, tool, valid).await {
            Ok(r) => Outcome {
                status: Status::Ok,
                body: shape::ok(
                    &conn.catalog,
                    tool,
                    valid.list.as_ref(),
                    r.body.unwrap_or(Value::Null),
                ),
                http_status: Some(r.status),
                reason: None,
                quota: None,
                truncated: false,
            }
            .with_quota(r.quota),
            Err(failed) => failed,
        }
    }

    /// One upstream request for a tool with validated arguments: a 2xx reply, or the failed
    /// status result. Re-reads the secret once on a 401.
    pub async fn fetch(
        &self,
        conn: &Connector,
        tool: &Tool,
        valid: &ValidArgs,
    ) -> Result<Reply, Outcome> {
        let catalog = &conn.catalog;
        let mut secrets = match self.secrets.get().await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "secret unavailable for tool call");
                return Err(Outcome::failed(
                    Status::Unavailable,
                    "secret_unavailable",
                    "The server cannot read its credentials right now; retry in a minute.",
                ));
            }
        };
        let Some((method, _)) = tool.http() else {
            return Err(Outcome::failed(
                Status::Error,
                "no_mapping",
                "This tool has no HTTP mapping.",
            ));
        };
        let body = upstream::build_body(tool, valid);
        let timeout = Duration::from_millis(catalog.timeout_ms);
        let mut refreshed = false;
        loop {
            let url = match upstream::build_url(catalog, &conn.base_url, tool, valid, &secrets) {
                Ok(u) => u,
                Err(e) => return Err(Outcome::failed(e.status, "not_configured", e.hint)),
            };
            let reply = upstream::send(
                &self.http,
                catalog,
                method,
                url,
                body.as_ref(),
                &secrets,
                timeout,
            )
            .await;
            match reply {
                Ok(r) if r.status == 401 && !refreshed => {
                    refreshed = true;
                    match self.secrets.refresh_after_unauthorized(&secrets).await {
                        Some(fresh) => {
                            tracing::info!(connector = %catalog.connector, "upstream 401: retrying with the re-read secret");
                            secrets = fresh;
                        }
                        None => return self.check(conn, tool, r),
                    }
                }
                Ok(r) => return self.check(conn, tool, r),
                Err(Ok(Failure::Timeout)) => {
                    return Err(Outcome::failed(
                        Status::Unavailable,
                        "upstream_timeout",
                        format!(
                            "{} did not answer within {:.1} s; retry later, or narrow the request.",
                            title(catalog),
                            catalog.timeout_ms as f64 / 1000.0
                        ),
                    ));
                }
                Err(Ok(Failure::Unreachable)) => {
                    return Err(Outcome::failed(
                        Status::Unavailable,
                        "upstream_unreachable",
                        format!(
                            "{} cannot be reached right now; retry in a few minutes.",
                            title(catalog)
                        ),
                    ));
                }
                Err(Err(e)) => return Err(Outcome::failed(e.status, "not_configured", e.hint)),
            }
        }
    }

    /// A 2xx reply passes; anything else becomes a status result with an actionable hint.
    fn check(&self, conn: &Connector, tool: &Tool, r: Reply) -> Result<Reply, Outcome> {
        let catalog = &conn.catalog;
        let code = r.status;
        if (200..300).contains(&code) {
            return Ok(r);
        }
        let message = upstream::upstream_message(catalog, r.body.as_ref())
            .map(|m| self.redactor.redact(&m).into_owned());
        let status = match code {
            401 | 403 => Status::Unauthorized,
            404 => Status::NotFound,
            400 | 409 | 422 => Status::InvalidInput,
            429 => Status::RateLimited,
            500..=599 => Status::Unavailable,
            _ => Status::Error,
        };
        let hint = hint_for(conn, tool, status, code, message.as_deref(), &r);
        let mut outcome =
            Outcome::failed(status, &format!("upstream_{code}"), hint).with_http(code);
        if let (Some(m), Some(body)) = (message, outcome.body.as_object_mut()) {
            body.insert("upstream_message".into(), m.into());
        }
        Err(outcome.with_quota(r.quota))
    }
}

fn title(c: &Catalog) -> &str {
    c.title.as_deref().unwrap_or(&c.connector)
}

/// The hint for a failed call: the tool's own, else the connector's, else a default that
/// names what to do next. `{message}`, `{retry_after}`, `{remaining}` are filled in.
fn hint_for(
    conn: &Connector,
    tool: &Tool,
    status: Status,
    code: u16,
    message: Option<&str>,
    r: &Reply,
) -> String {
    let catalog = &conn.catalog;
    let remaining = r.quota.and_then(|q| q.remaining);
    let declared = tool
        .hints
        .get(&status)
        .or_else(|| catalog.hints.get(&status));
    let default = match status {
        Status::Unauthorized if code == 403 => format!(
            "{} refused access (HTTP 403): the credentials lack permission. Check the token's scope in connectors.{}.{{{}}}.",
            title(catalog),
            catalog.connector,
            catalog.secrets.join(",")
        ),
        Status::Unauthorized => format!(
            "{} rejected the credentials (HTTP 401). An operator must check connectors.{}.{{{}}} in the deployment secret.",
            title(catalog),
            catalog.connector,
            catalog.secrets.join(",")
        ),
        Status::NotFound => match sibling_list_tool(conn, tool) {
            Some(list) => format!(
                "Nothing found for these arguments (HTTP 404); the API itself is up. Look the id up with `{list}` first."
            ),
            None => {
                "Nothing found for these arguments (HTTP 404); the API itself is up. Check the id."
                    .to_string()
            }
        },
        Status::InvalidInput => match message {
            Some(m) => format!("{} refused the request: {m}", title(catalog)),
            None => format!(
                "{} refused the request (HTTP {code}); check the arguments.",
                title(catalog)
            ),
        },
        Status::RateLimited => match remaining {
            Some(0) => format!(
                "The {} API quota is used up (0 remaining); calls fail until it resets. Tell the user.",
                title(catalog)
            ),
            _ => format!(
                "{} is rate limiting (HTTP 429); retry after {}.",
                title(catalog),
                r.retry_after
                    .as_deref()
                    .map_or("a minute".to_string(), |s| format!("{s} s"))
            ),
        },
        Status::Unavailable => format!(
            "{} has a temporary problem (HTTP {code}); retry in a few minutes. This is not a problem with the arguments.",
            title(catalog)
        ),
        _ => format!("{} answered HTTP {code}.", title(catalog)),
    };
    let Some(text) = declared else {
        return default;
    };
    text.replace("{message}", message.unwrap_or("(no message)"))
        .replace("{retry_after}", r.retry_after.as_deref().unwrap_or("60"))
        .replace(
            "{remaining}",
            &remaining.map_or("unknown".into(), |n| n.to_string()),
        )
}

/// The list tool of the same resource (`invoice_get` → `invoices_list`), for 404 hints.
fn sibling_list_tool<'a>(conn: &'a Connector, tool: &Tool) -> Option<&'a str> {
    let resource = tool
        .name
        .rsplit_once('_')
        .map_or(tool.name.as_str(), |(r, _)| r);
    conn.catalog
        .tools
        .iter()
        .filter(|t| t.list && Registry::is_exposed(conn, t) && t.name != tool.name)
        .max_by_key(|t| common_prefix(&t.name, resource))
        .filter(|t| common_prefix(&t.name, resource) >= resource.len().min(4))
        .map(|t| t.name.as_str())
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}
