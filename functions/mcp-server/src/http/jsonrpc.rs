//! The JSON-RPC body guard in front of the MCP service: every error answer of `/mcp` is JSON.
//!
//! A body is read once, within the size limit, and checked to be one JSON value (syntax only,
//! no allocation) before the MCP service parses it: malformed JSON is HTTP 400 with JSON-RPC
//! parse error -32700, a batch or a wrong content type a JSON-RPC invalid request. Plain-text
//! errors of the transport (406, 415 for a JSON value that is no JSON-RPC message, …) are
//! rewritten as JSON-RPC errors with their status kept, and its JSON-RPC errors without an `id`
//! get `"id": null`.

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// JSON-RPC 2.0 error codes.
pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;

/// Plain-text error bodies of the transport are short; a longer one is cut.
const MAX_ERROR_TEXT: usize = 300;
/// The most of an error answer read back to rewrite it. A JSON-RPC error echoes the request's
/// `id`, which may be as long as the request body allows (1 MiB by default): a cap below that
/// once turned such an answer into an empty body.
const MAX_ERROR_BODY: usize = 8 * 1024 * 1024;

/// A POST's body read within `max_body_bytes` and checked, its method and target noted for the
/// limits; or the JSON-RPC error that refuses it. Other methods pass as they are (the MCP
/// service answers them); [`as_json`] words every error answer.
pub(crate) async fn guard(max_body_bytes: usize, request: Request) -> Result<Request, Response> {
    if request.method() != Method::POST {
        return Ok(request);
    }
    let json_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split(';').next().unwrap_or("").trim();
            essence.eq_ignore_ascii_case("application/json")
        });
    if !json_type {
        return Err(rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            INVALID_REQUEST,
            "Content-Type must be application/json: send one JSON-RPC message as JSON.",
        ));
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, max_body_bytes).await {
        Ok(b) => b,
        Err(_) => {
            return Err(rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                INVALID_REQUEST,
                &format!("The request body is larger than {max_body_bytes} bytes."),
            ));
        }
    };
    let (method, target) = check(&bytes).map_err(IntoResponse::into_response)?;
    let declares_url = method.as_ref().is_some_and(|m| m.0 == "initialize")
        && super::declared::declares_url(&bytes);
    let name = method.as_ref().map_or("", |m| m.0.as_str());
    let declares_tasks = super::tasks_v1::declares(&parts.headers, name, &bytes);
    let bytes = super::tasks_v1::translated(&parts.headers, name, &bytes).unwrap_or(bytes);
    let mut request = Request::from_parts(parts, Body::from(bytes));
    if let Some(d) = declares_tasks {
        request.extensions_mut().insert(d);
    }
    if declares_url {
        request
            .extensions_mut()
            .insert(super::declared::DeclaresUrl);
    }
    if let Some(m) = method {
        request.extensions_mut().insert(m);
    }
    if let Some(t) = target {
        request.extensions_mut().insert(t);
    }
    Ok(request)
}

/// Why a body is refused before the MCP service reads it.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    // serde's syntax messages name a line and column, never the content.
    #[error("Parse error: the body is not valid JSON ({0}).")]
    NotJson(serde_json::Error),
    #[error("JSON-RPC batches are not supported (MCP removed them): send one message per request.")]
    Batch,
}

impl IntoResponse for BodyError {
    fn into_response(self) -> Response {
        let code = match self {
            BodyError::NotJson(_) => PARSE_ERROR,
            BodyError::Batch => INVALID_REQUEST,
        };
        rpc_error(StatusCode::BAD_REQUEST, code, &self.to_string())
    }
}

/// The JSON-RPC method of a request body, for the stages after this guard (limits count
/// `tools/call`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RpcMethod(pub String);

/// What a `tools/call` or `resources/read` names (its `params.name` or `params.uri`; for the
/// meta tool `call_tool`, the tool it calls), or the prompt or resource template a
/// `completion/complete` names (`params.ref`): the limits reserve the budget of the tool's
/// connector before the call runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RpcTarget(pub String);

#[derive(serde::Deserialize)]
struct Peek<'a> {
    #[serde(borrow, default)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<PeekParams<'a>>,
}

#[derive(serde::Deserialize)]
struct PeekParams<'a> {
    #[serde(borrow, default)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<std::borrow::Cow<'a, str>>,
    /// A `completion/complete` names its prompt or resource template here.
    #[serde(borrow, default, rename = "ref")]
    reference: Option<PeekRef<'a>>,
    /// `call_tool` names the tool it calls here.
    #[serde(borrow, default)]
    arguments: Option<PeekArguments<'a>>,
}

#[derive(serde::Deserialize)]
struct PeekArguments<'a> {
    #[serde(borrow, default)]
    name: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct PeekRef<'a> {
    #[serde(borrow, default)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<std::borrow::Cow<'a, str>>,
}

/// One JSON value that is not a batch; its method when it is an object naming one, and the
/// tool or resource it names.
fn check(bytes: &Bytes) -> Result<(Option<RpcMethod>, Option<RpcTarget>), BodyError> {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(BodyError::NotJson)?;
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => Err(BodyError::Batch),
        Some(b'{') => {
            let Ok(peek) = serde_json::from_slice::<Peek<'_>>(bytes) else {
                return Ok((None, None));
            };
            let target = peek
                .params
                .and_then(|p| {
                    let through = p.arguments.and_then(|a| a.name);
                    match p.name {
                        Some(n) if n == crate::mcp::CALL_TOOL => through,
                        name => name,
                    }
                    .or(p.uri)
                    .or(p.reference.and_then(|r| r.name.or(r.uri)))
                })
                .filter(|t| t.len() <= 512)
                .map(|t| RpcTarget(t.into_owned()));
            let method = peek.method.map(|m| RpcMethod(m.chars().take(64).collect()));
            Ok((method, target))
        }
        _ => Ok((None, None)),
    }
}

/// A transport error with a plain-text body becomes a JSON-RPC error with the same status.
pub(crate) async fn as_json(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("json"));
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_ERROR_BODY).await else {
        let message = format!("{status}: the error answer was over {MAX_ERROR_BODY} bytes");
        return rpc_error(status, INVALID_REQUEST, &message);
    };
    if is_json {
        return with_id(parts, bytes);
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let text: String = text.trim().chars().take(MAX_ERROR_TEXT).collect();
    let message = match status {
        // The transport says 415 for JSON that is no JSON-RPC message (its content type was
        // checked above).
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "Invalid Request: not a JSON-RPC 2.0 message \
             (it needs \"jsonrpc\": \"2.0\", a \"method\", and an \"id\" for requests)."
            .to_string(),
        _ if text.is_empty() => status.canonical_reason().unwrap_or("error").to_string(),
        _ => text,
    };
    let status = if status == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        StatusCode::BAD_REQUEST
    } else {
        status
    };
    rpc_error(status, INVALID_REQUEST, &message)
}

/// A JSON-RPC error of the transport that names no `id` gets `"id": null`, which JSON-RPC 2.0
/// requires when the request's id could not be read.
fn with_id(parts: axum::http::response::Parts, bytes: Bytes) -> Response {
    let mut value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => return Response::from_parts(parts, Body::from(bytes)),
    };
    if let Some(m) = value.as_object_mut()
        && m.contains_key("error")
        && m.contains_key("jsonrpc")
        && !m.contains_key("id")
    {
        m.insert("id".into(), serde_json::Value::Null);
        let mut parts = parts;
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::from(value.to_string()));
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// A JSON-RPC error answer without an id (the request's could not be read).
pub(crate) fn rpc_error(status: StatusCode, code: i64, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    let mut response = (status, axum::Json(body)).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_method_of_a_request_is_read_for_later_stages() {
        let body =
            Bytes::from(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#);
        assert_eq!(
            check(&body).unwrap(),
            (
                Some(RpcMethod("tools/call".into())),
                Some(RpcTarget("x".into()))
            )
        );
        // `call_tool` counts as the tool it calls.
        let through = Bytes::from(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"call_tool","arguments":{"name":"y","arguments":{}}}}"#,
        );
        assert_eq!(check(&through).unwrap().1, Some(RpcTarget("y".into())));
        assert_eq!(check(&Bytes::from("5")).unwrap(), (None, None));
        assert!(matches!(check(&Bytes::from(" [1]")), Err(BodyError::Batch)));
        assert!(matches!(
            check(&Bytes::from("{")),
            Err(BodyError::NotJson(_))
        ));
    }

    /// Found by the fuzz test: a JSON error answer echoing an `id` of 66 kB lost its body.
    #[tokio::test]
    async fn an_error_answer_with_a_long_id_keeps_its_body() {
        let id = "x".repeat(200_000);
        let body = serde_json::json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32020, "message": "header required"}});
        let response = axum::http::Response::builder()
            .status(StatusCode::BAD_REQUEST)
            .header(header::CONTENT_TYPE, "application/json")
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let answer = as_json(response).await;
        assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
        let bytes = axum::body::to_bytes(answer.into_body(), usize::MAX)
            .await
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(json["id"].as_str().map(str::len), Some(200_000));
        assert_eq!(json["error"]["code"], -32020);
    }
}
