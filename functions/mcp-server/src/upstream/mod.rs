//! Reaching the upstream for one tool: the request built from validated arguments (`request`),
//! sent with credentials, a timeout cut to the call's deadline and a cap on the answer (`send`),
//! re-sent once with a re-read secret after a 401, and the answer classified: a 2xx JSON reply,
//! or a typed [`UpstreamError`] (`error`) that `hints` describes for the model.

mod credentials;
mod deadline;
mod echo;
mod error;
mod hints;
mod meter;
mod next_page;
mod refusal;
pub(crate) mod remote;
mod request;
mod send;
pub(crate) mod token_endpoint;

use std::sync::Arc;
use std::time::Duration;

use catalog::{Catalog, Method, QuotaFigures, Status, Tool};
use serde_json::Value;

pub(crate) use credentials::{Credentials, PersonToken};
pub(crate) use deadline::Deadline;
pub(crate) use error::{Happened, Refusal, RemoteInput, UpstreamError};
pub(crate) use hints::{REMOTE_NEEDS_CAPABILITY, REMOTE_QUESTION_REFUSED, describe};
pub(crate) use meter::{Meter, Paced};
pub(crate) use next_page::seal_resume;
pub(crate) use next_page::{NextPage, NextRefused};
pub(crate) use request::one_line;

use crate::contract::args::ValidArgs;
use crate::inventory::DeployedCatalog;
use crate::progress::Progress;
use crate::secrets::SecretStore;
use request::BuildError;
use send::{Exchange, Received};

/// The default cap on an upstream answer's body; a catalog's `max_response_bytes` overrides it.
pub(crate) const MAX_RESPONSE_BYTES: usize = 4 * 1024 * 1024;

/// A 2xx answer with its JSON body (`Null` for no content, and for a document).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub http_status: u16,
    pub body: Value,
    /// A tool declaring `answer.binary`: the document, of an accepted type, within its cap.
    pub document: Option<Document>,
    pub quota: Option<QuotaFigures>,
    /// Lists paged by cursor, next URL or `Link`: the next page the answer names.
    pub next: Option<NextPage>,
}

/// A document an upstream answered: its content type (without parameters) and bytes.
#[derive(Clone, PartialEq)]
pub struct Document {
    pub mime: String,
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Document({}, {} bytes)", self.mime, self.bytes.len())
    }
}

/// A list request as sent: its URL, the answer's `Link` header.
struct Sent<'a> {
    url: &'a reqwest::Url,
    link: Option<&'a str>,
}

/// The next page a list answer names, for lists paged by cursor, next URL or `Link`.
fn next_page(
    conn: &DeployedCatalog,
    tool: &Tool,
    secrets: &crate::secrets::SecretValues,
    sent: Sent<'_>,
    body: &Value,
) -> Option<NextPage> {
    let catalog = &conn.catalog;
    let pager = catalog.pager_for(tool).filter(|p| p.by_cursor())?;
    let base = request::fill_base(catalog, &conn.base_url, secrets).ok()?;
    let base = reqwest::Url::parse(&base).ok()?;
    let reach = next_page::Reach {
        base: &base,
        tool: &tool.name,
        keys: &secrets.confirmation_keys,
        auth_query: catalog.auth.query.as_deref(),
    };
    next_page::of_answer(&pager, body, sent.link, sent.url, reach)
}

/// One request to send: a tool's (its static headers join the connector's) or a probe's.
struct Request<'a> {
    method: Method,
    url: reqwest::Url,
    body: Option<&'a Value>,
    tool: Option<&'a Tool>,
    /// The call's arguments, for the tool's `in: header` params.
    args: Option<&'a ValidArgs>,
}

/// What calling an upstream needs, built once at start.
pub struct Upstream {
    pub http: reqwest::Client,
    pub secrets: Arc<SecretStore>,
    pub redactor: audit::Redactor,
    /// Remote MCP servers' tool lists and sessions, fetched when first needed.
    pub remotes: remote::Remotes,
}

impl Upstream {
    /// One upstream request for a tool with validated arguments, within `deadline` and the
    /// `meter`'s allowance. Re-reads the secret once on a 401 (rotation) and sends again with
    /// what is left of the deadline; the resend is not taken from the meter (the caller's
    /// budget pays for one answer, not for the deployment's rotation, and a reservation of one
    /// request still gets its answer). It happens at most once per request and only with a
    /// secret that changed (`SecretStore::refresh_after_unauthorized`).
    pub async fn fetch(
        &self,
        conn: &DeployedCatalog,
        tool: &Tool,
        valid: &ValidArgs,
        deadline: &Deadline,
        meter: &Meter,
        credentials: Credentials<'_>,
    ) -> Result<Reply, UpstreamError> {
        self.fetch_reporting(
            conn,
            tool,
            valid,
            deadline,
            meter,
            credentials,
            &crate::progress::NONE,
        )
        .await
    }

    /// [`Upstream::fetch`], passing a remote MCP server's progress notifications to `progress`
    /// (a REST request has none to report).
    #[expect(
        clippy::too_many_arguments,
        reason = "fetch's arguments and the progress sink; see fetch"
    )]
    pub async fn fetch_reporting(
        &self,
        conn: &DeployedCatalog,
        tool: &Tool,
        valid: &ValidArgs,
        deadline: &Deadline,
        meter: &Meter,
        credentials: Credentials<'_>,
        progress: &Progress,
    ) -> Result<Reply, UpstreamError> {
        if conn.catalog.mcp.is_some() {
            let (_, remote_name) = tool.http().ok_or_else(|| BuildError {
                status: Status::Error,
                hint: "This tool has no remote name.".into(),
            })?;
            return self
                .remote_call(
                    conn,
                    remote_name,
                    valid,
                    deadline,
                    meter,
                    credentials,
                    progress,
                )
                .await;
        }
        let catalog = &conn.catalog;
        let mut secrets = self.secrets.get().await.map_err(|e| {
            tracing::error!(error = %e, "secret unavailable for tool call");
            UpstreamError::SecretUnavailable
        })?;
        let (method, _) = tool.http().ok_or_else(|| BuildError {
            status: Status::Error,
            hint: "This tool has no HTTP mapping.".into(),
        })?;
        let body = request::build_body(tool, valid);
        let mut refreshed = false;
        loop {
            let target = request::build_url(catalog, conn.base_of(tool), tool, valid, &secrets)?;
            // Its turn first: a call that gets none has sent nothing and spent no budget.
            meter.turn(deadline).await?;
            if !refreshed {
                meter.take()?;
            }
            let sent = target.url.clone();
            let request = Request {
                method,
                url: target.url,
                body: body.as_ref(),
                tool: Some(tool),
                args: Some(valid),
            };
            let answer = self
                .send_within(catalog, &secrets, request, deadline, credentials)
                .await?;
            // A person's token refused is theirs to renew; re-reading the secret changes nothing.
            let deployment = matches!(credentials, Credentials::Deployment);
            if answer.status == 401 && !refreshed && deployment {
                refreshed = true;
                if let Some(fresh) = self.secrets.refresh_after_unauthorized(&secrets).await {
                    tracing::info!(connector = %catalog.connector, "upstream 401: retrying with the re-read secret");
                    secrets = fresh;
                    continue;
                }
            }
            let link = answer.link.clone();
            let binary = tool.answer.as_ref().and_then(|a| a.binary.as_ref());
            let mut reply = match binary {
                Some(binary) => self.interpret_document(catalog, method, binary, answer)?,
                None => self.interpret(catalog, method, answer)?,
            };
            // Figures in the body (an account document's balance) come only with the answers
            // of the tools the catalog names; the body is parsed and capped already.
            if let Some(quota) = catalog.quota.as_ref().filter(|q| q.body_in(&tool.name)) {
                reply.quota = reply.quota.map(|f| quota.with_body(f, &reply.body));
            }
            if tool.list {
                let page = Sent {
                    url: &sent,
                    link: link.as_deref(),
                };
                reply.next = next_page(conn, tool, &secrets, page, &reply.body);
            }
            return Ok(reply);
        }
    }

    /// The request a call would send: method, path with query (no host, no credentials) and
    /// body, for a dry run's preview.
    pub async fn request_line(
        &self,
        conn: &DeployedCatalog,
        tool: &Tool,
        valid: &ValidArgs,
    ) -> Result<(Method, String, Option<Value>), UpstreamError> {
        let secrets = self
            .secrets
            .get()
            .await
            .map_err(|_| UpstreamError::SecretUnavailable)?;
        let (method, _) = tool.http().ok_or_else(|| BuildError {
            status: Status::Error,
            hint: "This tool has no HTTP mapping.".into(),
        })?;
        if conn.catalog.mcp.is_some() {
            // A remote tool's request is its `tools/call` with the arguments it would send.
            let arguments: serde_json::Map<String, Value> = valid
                .values
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            return Ok((
                Method::Post,
                format!("tools/call {}", tool.http().map_or("", |(_, n)| n)),
                Some(Value::Object(arguments)),
            ));
        }
        let url = request::build_url(&conn.catalog, conn.base_of(tool), tool, valid, &secrets)?.url;
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        Ok((method, path, request::build_body(tool, valid)))
    }

    /// Whether the deployment secret (locally the environment) holds any field of `connector`;
    /// `None` when the secret cannot be read.
    pub async fn holds_secrets_of(&self, connector: &str) -> Option<bool> {
        let secrets = self.secrets.get().await.ok()?;
        Some(
            secrets
                .connectors
                .get(connector)
                .is_some_and(|fields| !fields.is_empty()),
        )
    }

    /// A GET of a fixed path (the catalog's health probe): `Ok` on 2xx.
    pub async fn probe(
        &self,
        conn: &DeployedCatalog,
        path: &str,
        timeout: Duration,
    ) -> Result<(), UpstreamError> {
        let catalog = &conn.catalog;
        let secrets = self
            .secrets
            .get()
            .await
            .map_err(|_| UpstreamError::SecretUnavailable)?;
        let base = request::fill_base(catalog, &conn.base_url, &secrets)?;
        // A probe's path has no params: its holes are secret fields (an account id).
        let path = request::fill_base(catalog, path, &secrets)?;
        let url = reqwest::Url::parse(&format!("{}{path}", base.trim_end_matches('/'))).map_err(
            |_| BuildError {
                status: Status::Error,
                hint: "The probe URL could not be built; check the connector's base URL.".into(),
            },
        )?;
        let deadline = Deadline::after(timeout);
        let request = Request {
            method: Method::Get,
            url,
            body: None,
            tool: None,
            args: None,
        };
        let answer = self
            .send_within(
                catalog,
                &secrets,
                request,
                &deadline,
                Credentials::Deployment,
            )
            .await?;
        self.interpret(catalog, Method::Get, answer).map(|_| ())
    }

    async fn send_within(
        &self,
        catalog: &Catalog,
        secrets: &crate::secrets::SecretValues,
        request: Request<'_>,
        deadline: &Deadline,
        credentials: Credentials<'_>,
    ) -> Result<Received, UpstreamError> {
        let binary = request
            .tool
            .and_then(|t| t.answer.as_ref())
            .and_then(|a| a.binary.as_ref());
        let out_of_time = || UpstreamError::Deadline {
            budget_ms: deadline.budget().as_millis() as u64,
        };
        let wait_s = prefer_wait(request.tool, deadline, catalog.timeout_ms);
        let timeout = deadline
            .timeout(Duration::from_millis(
                catalog.timeout_ms + wait_s.unwrap_or(0) * 1000,
            ))
            .ok_or_else(out_of_time)?;
        let prefer = wait_s.map(|s| format!("wait={s}"));
        let mut headers = catalog.request_headers(request.tool, |name| {
            request::header_value(request.tool?, request.args?, name)
        });
        if let Some(prefer) = prefer {
            headers.push(("Prefer", prefer.into()));
        }
        let exchange = Exchange {
            method: request.method,
            url: request.url,
            body: request.body,
            headers,
            timeout,
            max_bytes: binary
                .map(|b| b.max_bytes)
                .or(catalog.max_response_bytes)
                .unwrap_or(MAX_RESPONSE_BYTES),
            accept: binary.map(|b| b.mime.join(", ")),
            follow: binary.is_some_and(|b| b.redirect),
            credentials,
        };
        match send::send(&self.http, catalog, secrets, exchange).await {
            // The request's timeout was what was left of the call: the call ran out of time.
            Err(UpstreamError::Timeout { .. }) if deadline.remaining().is_none() => {
                Err(out_of_time())
            }
            other => other,
        }
    }

    /// A 2xx answer must be the JSON the catalog expects; anything else is a typed error.
    fn interpret(
        &self,
        catalog: &Catalog,
        method: Method,
        answer: Received,
    ) -> Result<Reply, UpstreamError> {
        let parsed = serde_json::from_slice::<Value>(&answer.body);
        let refused = |http_status: u16, body: Option<&Value>| {
            let code = body.and_then(|b| refusal::code(catalog, b));
            let message = refusal::message(catalog, answer.content_type.as_deref(), body);
            let message = refusal::with_code(message, code.as_deref())
                .map(|m| self.redactor.redact(&m).into_owned());
            UpstreamError::Refused(Box::new(Refusal {
                http_status,
                message,
                code,
                quota: answer.quota,
                // A 429 without `Retry-After` may still say when its window resets.
                retry_after_s: answer.retry_after_s.or_else(|| {
                    (http_status == 429)
                        .then(|| answer.quota.and_then(|q| q.reset_s))
                        .flatten()
                }),
            }))
        };
        if !(200..300).contains(&answer.status) {
            return Err(refused(answer.status, parsed.as_ref().ok()));
        }
        // An upstream that answers 2xx with an error declares where its status is.
        if let Ok(body) = &parsed
            && let Some(status) = refusal::status_in_body(catalog, body)
        {
            return Err(refused(status, Some(body)));
        }
        let empty = answer.body.iter().all(u8::is_ascii_whitespace);
        let body = match parsed {
            Ok(body) => body,
            // No content is an answer for writes (and for 204); a read must bring its JSON.
            Err(_) if empty && (answer.status == 204 || method != Method::Get) => Value::Null,
            Err(_) => {
                return Err(UpstreamError::NotJson {
                    http_status: answer.status,
                    content_type: if empty {
                        "an empty body".to_string()
                    } else {
                        answer
                            .content_type
                            .unwrap_or_else(|| "no content type".to_string())
                    },
                    quota: answer.quota,
                });
            }
        };
        Ok(Reply {
            http_status: answer.status,
            body,
            quota: answer.quota,
            document: None,
            next: None,
        })
    }

    /// A tool answering a document: a 2xx of an accepted content type is the document; a 2xx
    /// of any other is an error (a JSON error body with a status in it is that refusal), and
    /// a refusal is read as for every tool.
    fn interpret_document(
        &self,
        catalog: &Catalog,
        method: Method,
        binary: &catalog::BinaryAnswer,
        answer: Received,
    ) -> Result<Reply, UpstreamError> {
        let accepted = answer
            .content_type
            .as_deref()
            .is_some_and(|t| binary.accepts(t));
        if !(200..300).contains(&answer.status) || !accepted {
            let content_type = answer
                .content_type
                .clone()
                .unwrap_or_else(|| "no content type".into());
            let (http_status, quota) = (answer.status, answer.quota);
            let not_document = UpstreamError::NotDocument {
                http_status,
                content_type,
                quota,
            };
            return match self.interpret(catalog, method, answer) {
                Ok(_) | Err(UpstreamError::NotJson { .. }) => Err(not_document),
                Err(refused) => Err(refused),
            };
        }
        Ok(Reply {
            http_status: answer.status,
            body: Value::Null,
            quota: answer.quota,
            document: Some(Document {
                mime: catalog::essence(answer.content_type.as_deref().unwrap_or_default()),
                bytes: answer.body,
            }),
            next: None,
        })
    }
}

/// The seconds an upstream is asked to hold a job's start until the job is done (`Prefer:
/// wait=N`, RFC 7240), where the tool's `job` offers it: at most its `prefer_wait`, and only
/// what the call has left beyond the catalog's own timeout, so the start's answer (the job's
/// id) always arrives in time.
fn prefer_wait(tool: Option<&Tool>, deadline: &Deadline, own_ms: u64) -> Option<u64> {
    let asked = u64::from(tool?.job.as_deref()?.prefer_wait?);
    let spare = deadline
        .remaining()?
        .as_secs()
        .saturating_sub(own_ms.div_ceil(1000));
    Some(asked.min(spare)).filter(|s| *s > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::{SecretLoader, SecretValues};

    #[test]
    fn a_job_start_asks_the_upstream_to_wait_only_within_the_calls_time() {
        let tool = |job: &str| -> Tool {
            yaml_serde::from_str(&format!(
                "name: t_job_start\nrisk: medium\ndescription: d\npost: /jobs\n{job}"
            ))
            .unwrap()
        };
        let job = "job: {id: /id, state: /status, read: t_job_get, states: {working: [a], completed: [b], failed: [c]}";
        let waits = tool(&format!("{job}, prefer_wait: 10}}\n"));
        let plain = tool(&format!("{job}}}\n"));
        let at = |secs: u64| Deadline::after(Duration::from_secs(secs));
        assert_eq!(prefer_wait(Some(&waits), &at(30), 5_000), Some(10));
        assert_eq!(
            prefer_wait(Some(&waits), &at(8), 5_000),
            Some(2),
            "what the call has left"
        );
        assert_eq!(
            prefer_wait(Some(&waits), &at(5), 5_000),
            None,
            "nothing left to wait"
        );
        assert_eq!(
            prefer_wait(Some(&plain), &at(30), 5_000),
            None,
            "not offered"
        );
        assert_eq!(prefer_wait(None, &at(30), 5_000), None);
    }

    /// A mail API that quotes the bearer token it was sent, in its error message and in its data.
    async fn quoting_upstream(status: u16) -> String {
        let quote = move |headers: http::HeaderMap| async move {
            let sent = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .trim_start_matches("Bearer ")
                .to_string();
            let body = serde_json::json!({"message": format!("token {sent} is not valid"),
                                          "owner": "a@b.example", "debug": {"token": sent}});
            (
                http::StatusCode::from_u16(status).unwrap(),
                axum::Json(body),
            )
        };
        let router = axum::Router::new().route("/api/me", axum::routing::get(quote));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        format!("http://{addr}/api")
    }

    fn mail(base_url: String) -> DeployedCatalog {
        let text = r#"connector: mail
base_url: "http://127.0.0.1:9/api"
secrets: [client_id]
error_message: message
auth:
  oauth_user:
    authorization_endpoint: "http://127.0.0.1:9/authorize"
    token_endpoint: "http://127.0.0.1:9/token"
    client_id: client_id
    scopes: [mail.read]
tools:
  - name: mail_me_get
    risk: low
    description: "Who the mail account belongs to. Example: {}"
    get: /me
"#;
        DeployedCatalog {
            catalog: catalog::parse("mail.yaml", text).unwrap(),
            base_url,
            expose_raw: false,
        }
    }

    /// An upstream client with no deployment secret (the remote transport's tests use it too).
    pub(super) fn upstream() -> Upstream {
        let store = SecretStore::new(
            SecretLoader::Static(Arc::new(SecretValues::default())),
            Duration::from_secs(300),
            audit::Redactor::new(),
        );
        Upstream {
            http: reqwest::Client::new(),
            secrets: Arc::new(store),
            redactor: audit::Redactor::new(),
            remotes: remote::Remotes::new(Vec::new()),
        }
    }

    #[tokio::test]
    async fn a_persons_own_token_quoted_by_the_upstream_never_reaches_the_result() {
        const TOKEN: &str = "person-access-token-0123456789";
        let token = PersonToken::new(TOKEN);
        let as_person = Credentials::Person {
            owner: "p-1",
            token: &token,
        };
        let up = upstream();
        for status in [400, 401, 500] {
            let conn = mail(quoting_upstream(status).await);
            let tool = &conn.catalog.tools[0];
            let deadline = Deadline::after(Duration::from_secs(5));
            let err = up
                .fetch(
                    &conn,
                    tool,
                    &ValidArgs::default(),
                    &deadline,
                    &Meter::unlimited(),
                    as_person,
                )
                .await
                .unwrap_err();
            let result = crate::call::Outcome::from_upstream(&conn, tool, &err).to_json();
            assert_eq!(
                result["upstream_message"], "token [REDACTED] is not valid",
                "{status}"
            );
            assert!(!result.to_string().contains(TOKEN), "{status}: {result}");
        }
        let conn = mail(quoting_upstream(200).await);
        let deadline = Deadline::after(Duration::from_secs(5));
        let reply = up
            .fetch(
                &conn,
                &conn.catalog.tools[0],
                &ValidArgs::default(),
                &deadline,
                &Meter::unlimited(),
                as_person,
            )
            .await
            .unwrap();
        assert_eq!(reply.body["debug"]["token"], "[REDACTED]");
        assert_eq!(reply.body["owner"], "a@b.example");
    }
}
