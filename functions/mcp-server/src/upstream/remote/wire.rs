//! JSON-RPC over Streamable HTTP as a client, in either protocol generation: the request body and
//! headers for a method, and the one response to it read from a JSON or an SSE answer. Pure, so
//! both generations are tested without a server.

use serde_json::{Map, Value, json};

use crate::progress::Update;

/// The stateless generation: every request carries its protocol version and client in `_meta`.
pub(crate) const MODERN: &str = "2026-07-28";
/// The handshake generation: `initialize`, then a session the server may name.
pub(crate) const HANDSHAKE: &str = "2025-11-25";

/// How one remote is spoken to, worked out on first contact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Generation {
    /// 2026-07-28: no handshake, no session.
    Modern,
    /// 2025-11-25: after `initialize`, with the session id the server gave (if any).
    Handshake { session: Option<String> },
}

/// What went wrong reading an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum WireError {
    #[error("the answer is no JSON-RPC response to request {0}")]
    NoResponse(u64),
}

/// A JSON-RPC response: the result, or the error's code and message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RpcAnswer {
    Result(Map<String, Value>),
    /// A JSON-RPC error: its code, message and `data` (`Null` when absent).
    Error {
        code: i64,
        message: String,
        data: Value,
    },
}

/// The client as the remote sees it.
fn client_info() -> Value {
    json!({"name": "hosted-mcp", "version": env!("CARGO_PKG_VERSION")})
}

/// The body of a request (`id` set) or a notification (`id` none).
pub(crate) fn body(
    generation: &Generation,
    id: Option<u64>,
    method: &str,
    params: Map<String, Value>,
) -> Value {
    let mut params = params;
    if *generation == Generation::Modern {
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(
                "io.modelcontextprotocol/protocolVersion".into(),
                MODERN.into(),
            );
            meta.insert("io.modelcontextprotocol/clientInfo".into(), client_info());
            // The caller may have declared what the client can do (elicitation).
            meta.entry("io.modelcontextprotocol/clientCapabilities")
                .or_insert_with(|| json!({}));
        }
    }
    let mut message = json!({"jsonrpc": "2.0", "method": method, "params": params});
    if let (Some(id), Value::Object(m)) = (id, &mut message) {
        m.insert("id".into(), id.into());
    }
    message
}

/// The `initialize` request's params (handshake generation).
pub(crate) fn initialize_params() -> Map<String, Value> {
    let Value::Object(m) = json!({
        "protocolVersion": HANDSHAKE,
        "capabilities": {},
        "clientInfo": client_info(),
    }) else {
        return Map::new();
    };
    m
}

/// The headers a request carries besides content negotiation and credentials: the protocol
/// version, the session, and on the stateless generation the routing headers the server checks
/// against the body (`Mcp-Method`, `Mcp-Name`).
pub(crate) fn headers(
    generation: &Generation,
    method: &str,
    name: Option<&str>,
) -> Vec<(&'static str, String)> {
    match generation {
        Generation::Modern => {
            let mut h = vec![
                ("mcp-protocol-version", MODERN.to_string()),
                ("mcp-method", method.to_string()),
            ];
            if let Some(name) = name {
                h.push(("mcp-name", name.to_string()));
            }
            h
        }
        Generation::Handshake { session } => {
            let mut h = Vec::new();
            if method != "initialize" {
                h.push(("mcp-protocol-version", HANDSHAKE.to_string()));
            }
            if let Some(s) = session {
                h.push(("mcp-session-id", s.clone()));
            }
            h
        }
    }
}

/// The response to request `id`, from a JSON body or an SSE stream (whose other messages,
/// notifications and server requests, are passed over).
pub(crate) fn response(
    content_type: Option<&str>,
    body: &[u8],
    id: u64,
) -> Result<RpcAnswer, WireError> {
    let is_sse = content_type.is_some_and(|c| c.starts_with("text/event-stream"));
    let found = if is_sse {
        sse_data(body)
            .filter_map(|data| serde_json::from_str::<Value>(&data).ok())
            .find(|m| is_response_to(m, id))
    } else {
        serde_json::from_slice::<Value>(body)
            .ok()
            .filter(|m| is_response_to(m, id))
    };
    let Some(Value::Object(mut message)) = found else {
        return Err(WireError::NoResponse(id));
    };
    if let Some(Value::Object(result)) = message.remove("result") {
        return Ok(RpcAnswer::Result(result));
    }
    let error = message.get("error");
    Ok(RpcAnswer::Error {
        code: error
            .and_then(|e| e.get("code"))
            .and_then(Value::as_i64)
            .unwrap_or(-32603),
        message: error
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        data: error
            .and_then(|e| e.get("data"))
            .cloned()
            .unwrap_or(Value::Null),
    })
}

/// Where the last complete SSE event of a partial stream ends (after its blank line), looking
/// only at the bytes from `from` on, so a growing stream is scanned once.
pub(crate) fn last_event_end(bytes: &[u8], from: usize) -> Option<usize> {
    let start = from.saturating_sub(3).min(bytes.len());
    let tail = &bytes[start..];
    let lf = tail.windows(2).rposition(|w| w == b"\n\n").map(|i| i + 2);
    let crlf = tail.windows(3).rposition(|w| w == b"\n\r\n").map(|i| i + 3);
    lf.max(crlf).map(|i| start + i)
}

/// The `notifications/progress` of complete SSE events, as steps: a figure that is no finite,
/// non-negative number is left out, a message is kept to one line.
pub(crate) fn progress_steps(events: &[u8]) -> Vec<Update> {
    let figure = |v: Option<&Value>| {
        v.and_then(Value::as_f64)
            .filter(|f| f.is_finite() && *f >= 0.0)
    };
    sse_data(events)
        .filter_map(|data| serde_json::from_str::<Value>(&data).ok())
        .filter(|m| m.get("method").and_then(Value::as_str) == Some("notifications/progress"))
        .filter_map(|m| {
            let params = m.get("params")?;
            Some(Update {
                done: figure(params.get("progress"))?,
                total: figure(params.get("total")),
                message: params
                    .get("message")
                    .and_then(Value::as_str)
                    .map(|t| t.lines().next().unwrap_or("").to_string())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// Whether complete SSE events hold `notifications/tools/list_changed`.
pub(crate) fn announces_tools_changed(events: &[u8]) -> bool {
    sse_data(events)
        .filter_map(|data| serde_json::from_str::<Value>(&data).ok())
        .any(|m| {
            m.get("method").and_then(Value::as_str) == Some("notifications/tools/list_changed")
        })
}

fn is_response_to(message: &Value, id: u64) -> bool {
    message.get("id").and_then(Value::as_u64) == Some(id)
        && (message.get("result").is_some() || message.get("error").is_some())
}

/// The data of each event of an SSE stream (multi-line data joined with `\n`).
fn sse_data(body: &[u8]) -> impl Iterator<Item = String> + '_ {
    let text = String::from_utf8_lossy(body);
    let normalised = text.replace("\r\n", "\n");
    normalised
        .split("\n\n")
        .map(|event| {
            event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|d| !d.is_empty())
        .collect::<Vec<_>>()
        .into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_notifications_of_a_stream_become_steps() {
        let sse = b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"hosted-mcp\",\"progress\":1,\"total\":3,\"message\":\"one\\ntwo\"}}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":-1}}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        let steps = progress_steps(sse);
        assert_eq!(
            steps,
            [Update {
                done: 1.0,
                total: Some(3.0),
                message: "one".into()
            }]
        );
    }

    #[test]
    fn a_modern_request_carries_its_generation_in_meta_and_routing_headers() {
        let b = body(&Generation::Modern, Some(3), "tools/call", Map::new());
        assert_eq!(b["id"], 3);
        assert_eq!(
            b["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            MODERN
        );
        let h = headers(&Generation::Modern, "tools/call", Some("read_note"));
        assert!(h.contains(&("mcp-name", "read_note".into())), "{h:?}");
        let old = Generation::Handshake {
            session: Some("s1".into()),
        };
        let b = body(&old, None, "notifications/initialized", Map::new());
        assert!(b.get("id").is_none() && b["params"].get("_meta").is_none());
        assert!(headers(&old, "tools/list", None).contains(&("mcp-session-id", "s1".into())));
    }

    #[test]
    fn the_response_is_found_in_json_or_among_sse_events() {
        let json = br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#;
        assert!(matches!(
            response(Some("application/json"), json, 2),
            Ok(RpcAnswer::Result(_))
        ));
        let sse = b"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\r\n\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"bad\"}}\r\n\r\n";
        assert_eq!(
            response(Some("text/event-stream"), sse, 7),
            Ok(RpcAnswer::Error {
                code: -32602,
                message: "bad".into(),
                data: Value::Null,
            })
        );
        assert_eq!(
            response(Some("application/json"), json, 3),
            Err(WireError::NoResponse(3))
        );
        assert!(response(None, b"<html>", 1).is_err());
    }
}
