//! One JSON-RPC exchange with a remote: a POST with the connector's credentials, the headers
//! of the generation it speaks, a timeout cut to the deadline, the answer read to a cap (an SSE
//! stream only until the response is in it, each byte looked at a bounded number of times) and
//! scrubbed of the credentials it carried (`upstream::echo`).

use std::time::Duration;

use catalog::Catalog;
use serde_json::{Map, Value};
use tracing::Instrument;

use super::MAX_ANSWER_BYTES;
use super::wire::{self, Generation, RpcAnswer};
use crate::inventory::DeployedCatalog;
use crate::progress::Progress;
use crate::secrets::SecretValues;
use crate::upstream::Upstream;
use crate::upstream::deadline::Deadline;
use crate::upstream::echo::Carried;
use crate::upstream::error::{Refusal, UpstreamError};
use crate::upstream::request::{credential_error, fill_base};

/// One JSON-RPC exchange's outcome: the answer, the session the remote named, and whether
/// the remote said its tool list changed on the way.
pub(super) struct Exchanged {
    pub(super) answer: RpcAnswer,
    pub(super) session: Option<String>,
    pub(super) list_changed: bool,
}

impl Upstream {
    /// One JSON-RPC request and its response.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn exchange(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
        generation: &Generation,
        method: &str,
        name: Option<&str>,
        param_headers: &[(String, String)],
        params: Map<String, Value>,
        deadline: &Deadline,
        progress: &Progress,
    ) -> Result<Exchanged, UpstreamError> {
        let id = 1;
        let body = wire::body(generation, Some(id), method, params);
        let sent = Sent {
            method,
            name,
            param_headers,
            body: &body,
        };
        let (status, headers, bytes) = self
            .post(conn, auth, generation, sent, deadline, progress)
            .await?;
        if !(200..300).contains(&status) {
            // A JSON-RPC error may come with a 4xx (the stateless generation maps them).
            if let Ok(RpcAnswer::Error {
                code,
                message,
                data,
            }) = wire::response(headers.content_type.as_deref(), &bytes, id)
                && status != 404
                && !matches!(status, 401 | 403)
                && method != "server/discover"
            {
                return Err(super::result::remote_error(
                    &self.redactor,
                    code,
                    &message,
                    &data,
                ));
            }
            return Err(refusal(status));
        }
        let answer = wire::response(headers.content_type.as_deref(), &bytes, id).map_err(|_| {
            UpstreamError::RemoteError {
                code: -32603,
                message: Some("the remote sent no JSON-RPC response".into()),
            }
        })?;
        let list_changed = headers
            .content_type
            .as_deref()
            .is_some_and(|c| c.starts_with("text/event-stream"))
            && bytes
                .windows(b"notifications/tools/list_changed".len())
                .any(|w| w == b"notifications/tools/list_changed");
        Ok(Exchanged {
            answer,
            session: headers.session,
            list_changed,
        })
    }

    /// One POST to the remote (`posted`), in its `remote_mcp` span.
    pub(super) async fn post(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
        generation: &Generation,
        sent: Sent<'_>,
        deadline: &Deadline,
        progress: &Progress,
    ) -> Result<(u16, AnswerHeaders, Vec<u8>), UpstreamError> {
        let span = tracing::info_span!(
            target: audit::SPAN_TARGET,
            "remote_mcp",
            otel.kind = "client",
            connector = conn.catalog.connector.as_str(),
            mcp.method = sent.method,
            tool = sent.name,
            http.response.status_code = tracing::field::Empty,
        );
        let answer = self
            .posted(conn, auth, generation, sent, deadline, progress)
            .instrument(span.clone())
            .await;
        if let Ok((status, ..)) = &answer {
            span.record("http.response.status_code", status);
        }
        answer
    }

    /// One POST to the remote with its credentials, a timeout cut to the deadline and a capped
    /// answer; progress notifications on an SSE answer are reported as they arrive.
    async fn posted(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
        generation: &Generation,
        sent: Sent<'_>,
        deadline: &Deadline,
        progress: &Progress,
    ) -> Result<(u16, AnswerHeaders, Vec<u8>), UpstreamError> {
        let timeout = deadline
            .timeout(remote_timeout(&conn.catalog))
            .ok_or_else(|| out_of_time(deadline))?;
        let failed = Failed { deadline, timeout };
        let field = |f: &str| {
            auth.secrets
                .field(&conn.catalog.connector, f)
                .map(str::to_string)
        };
        let carried = Carried::of(&conn.catalog.auth, field, auth.person);
        let request = to_remote(&self.http, reqwest::Method::POST, conn, auth)?
            .timeout(timeout)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(sent.body.to_string());
        let mut request = with_generation(request, generation, sent.method, sent.name);
        for (k, v) in sent.param_headers {
            request = request.header(k.as_str(), v.as_str());
        }
        let mut response = request.send().await.map_err(|e| failed.as_error(&e))?;
        let status = response.status().as_u16();
        let headers = AnswerHeaders::of(&response);
        let answer = Answering {
            sse: headers
                .content_type
                .as_deref()
                .is_some_and(|c| c.starts_with("text/event-stream")),
            carried: &carried,
            progress,
        };
        let Some(bytes) = answer.read(&mut response, failed).await? else {
            return Err(UpstreamError::TooLarge {
                size: None,
                limit: MAX_ANSWER_BYTES,
                http_status: status,
                quota: None,
            });
        };
        // What the remote says reaches the model: never with the credentials it was sent.
        Ok((status, headers, carried.scrub(bytes)))
    }
}

/// The deadline ran out before the remote answered.
fn out_of_time(deadline: &Deadline) -> UpstreamError {
    UpstreamError::Deadline {
        budget_ms: deadline.budget().as_millis() as u64,
    }
}

/// How a transport failure is told: past the deadline, a timeout of this request, or
/// unreachable.
#[derive(Clone, Copy)]
struct Failed<'a> {
    deadline: &'a Deadline,
    timeout: Duration,
}

impl Failed<'_> {
    fn as_error(self, e: &reqwest::Error) -> UpstreamError {
        if e.is_timeout() && self.deadline.remaining().is_none() {
            out_of_time(self.deadline)
        } else if e.is_timeout() {
            UpstreamError::Timeout {
                after_ms: self.timeout.as_millis() as u64,
            }
        } else {
            UpstreamError::Unreachable
        }
    }
}

/// How an answer's body is read: as an SSE stream or not, scrubbed of `carried` before its
/// progress is reported.
struct Answering<'a> {
    sse: bool,
    carried: &'a Carried,
    progress: &'a Progress,
}

impl Answering<'_> {
    /// The body, or `None` once it is over [`MAX_ANSWER_BYTES`]. An SSE stream that already
    /// holds the response is complete; a stream the remote keeps open after it is not waited
    /// for.
    async fn read(
        &self,
        response: &mut reqwest::Response,
        failed: Failed<'_>,
    ) -> Result<Option<Vec<u8>>, UpstreamError> {
        let mut bytes = Vec::new();
        // Complete SSE events already parsed, and bytes already searched for an event's end:
        // each byte is looked at a bounded number of times.
        let (mut parsed, mut searched) = (0, 0);
        while let Some(chunk) = response.chunk().await.map_err(|e| failed.as_error(&e))? {
            if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Ok(None);
            }
            bytes.extend_from_slice(&chunk);
            if !self.sse {
                continue;
            }
            let end = wire::last_event_end(&bytes, searched);
            searched = bytes.len();
            if let Some(end) = end.filter(|e| *e > parsed) {
                if self.responded(&bytes[parsed..end]) {
                    break;
                }
                parsed = end;
            }
        }
        Ok(Some(bytes))
    }

    /// Reports the progress in newly complete SSE events; whether they hold the response.
    fn responded(&self, events: &[u8]) -> bool {
        if self.progress.wanted() {
            let scrubbed = self.carried.scrub(events.to_vec());
            for step in wire::progress_steps(&scrubbed) {
                self.progress.report(step);
            }
        }
        wire::response(Some("text/event-stream"), events, 1).is_ok()
    }
}

/// What a request to a remote authenticates with: the catalog's `auth` over the deployment
/// secret, and for an `oauth_user` remote the person's own token.
#[derive(Clone, Copy)]
pub(super) struct Auth<'a> {
    pub(super) secrets: &'a SecretValues,
    pub(super) person: Option<&'a crate::upstream::PersonToken>,
}

/// A request to the remote's endpoint with the connector's credentials (or the person's own
/// token), taking JSON and SSE.
pub(super) fn to_remote(
    http: &reqwest::Client,
    method: reqwest::Method,
    conn: &DeployedCatalog,
    auth: &Auth<'_>,
) -> Result<reqwest::RequestBuilder, UpstreamError> {
    let catalog = &conn.catalog;
    let Auth { secrets, person } = *auth;
    let url = fill_base(catalog, &conn.base_url, secrets)?;
    let url = reqwest::Url::parse(&url).map_err(|_| crate::upstream::request::BuildError {
        status: catalog::Status::Error,
        hint: "The remote MCP server's URL could not be built; check mcp.url.".into(),
    })?;
    let field = |f: &str| secrets.field(&catalog.connector, f).map(str::to_string);
    let mut request = connector::authenticate(http.request(method, url), &catalog.auth, field)
        .map_err(|e| credential_error(catalog, &e))?;
    if let Some(token) = person {
        // reqwest marks it sensitive: no `Debug` print shows it.
        request = request.bearer_auth(token.secret());
    }
    // Replaces the REST upstreams' `Accept: application/json`: a Streamable HTTP server
    // refuses (406) a client that does not take both.
    let mut headers = reqwest::header::HeaderMap::from_iter([(
        reqwest::header::ACCEPT,
        reqwest::header::HeaderValue::from_static("application/json, text/event-stream"),
    )]);
    if catalog.trace_context {
        crate::telemetry::inject(&mut headers);
    }
    Ok(request.headers(headers))
}

/// The generation's headers (protocol version, session, routing) on a request.
pub(super) fn with_generation(
    mut request: reqwest::RequestBuilder,
    generation: &Generation,
    method: &str,
    name: Option<&str>,
) -> reqwest::RequestBuilder {
    for (k, v) in wire::headers(generation, method, name) {
        request = request.header(k, v);
    }
    request
}

/// What one POST sends: the JSON-RPC method, the tool it names, the body.
#[derive(Clone, Copy)]
pub(super) struct Sent<'a> {
    pub(super) method: &'a str,
    pub(super) name: Option<&'a str>,
    /// `Mcp-Param-*` headers of a tool call (SEP-2243), from the remote's schema.
    pub(super) param_headers: &'a [(String, String)],
    pub(super) body: &'a Value,
}

/// The headers of a remote's answer that matter.
pub(super) struct AnswerHeaders {
    pub(super) content_type: Option<String>,
    pub(super) session: Option<String>,
}

impl AnswerHeaders {
    fn of(response: &reqwest::Response) -> Self {
        let header = |n: &str| {
            response
                .headers()
                .get(n)
                .and_then(|v| v.to_str().ok())
                .map(|v| audit::bounded(v, 200))
        };
        AnswerHeaders {
            content_type: header("content-type"),
            session: header("mcp-session-id"),
        }
    }
}

pub(super) fn refusal(status: u16) -> UpstreamError {
    if status == 408 || status == 504 {
        return UpstreamError::Unreachable;
    }
    UpstreamError::Refused(Box::new(Refusal {
        http_status: status,
        message: None,
        quota: None,
        retry_after_s: None,
        code: None,
    }))
}

/// One request's time: the remote's `timeout_ms`, else the catalog's.
pub(super) fn remote_timeout(catalog: &Catalog) -> Duration {
    Duration::from_millis(
        catalog
            .mcp
            .as_ref()
            .and_then(|m| m.timeout_ms)
            .unwrap_or(catalog.timeout_ms),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::PersonToken;

    /// A remote that refuses every call with a JSON-RPC error quoting the bearer token it got.
    async fn quoting_remote() -> String {
        let quote = |headers: http::HeaderMap| async move {
            let sent = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .trim_start_matches("Bearer ")
                .to_string();
            axum::Json(serde_json::json!({"jsonrpc": "2.0", "id": 1, "error": {
                "code": -32602, "message": format!("token {sent} may not call this tool")}}))
        };
        let router = axum::Router::new().route("/mcp", axum::routing::post(quote));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        format!("http://{addr}/mcp")
    }

    #[tokio::test]
    async fn a_remote_quoting_a_persons_token_has_it_taken_out_of_its_words() {
        const TOKEN: &str = "person-remote-token-0123456789";
        let url = quoting_remote().await;
        let text = format!("connector: notes\nmcp:\n  url: {url}\n  allow: [\"*\"]\n");
        let conn = DeployedCatalog {
            catalog: catalog::parse("notes.yaml", &text).unwrap(),
            base_url: url,
            expose_raw: false,
        };
        let token = PersonToken::new(TOKEN);
        let secrets = SecretValues::default();
        let auth = Auth {
            secrets: &secrets,
            person: Some(&token),
        };
        let deadline = Deadline::after(Duration::from_secs(5));
        let up = crate::upstream::tests::upstream();
        let answer = up
            .exchange(
                &conn,
                &auth,
                &Generation::Modern,
                "tools/call",
                Some("greet"),
                &[],
                Map::new(),
                &deadline,
                &crate::progress::NONE,
            )
            .await;
        let Ok(Exchanged {
            answer: RpcAnswer::Error { message, .. },
            ..
        }) = answer
        else {
            panic!("the remote's JSON-RPC error is its answer")
        };
        assert_eq!(message, "token [REDACTED] may not call this tool");
    }
}
