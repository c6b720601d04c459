//! The 2025-11-25 task wire, which rmcp does not speak (it serves the 2026-07-28 extension
//! only): its requests are handed to the MCP layer under methods of our own, and two of its
//! answers gain what that generation declares tasks with.
//!
//! - A 2025-11-25 request `tools/call` with `params.task`, or `tasks/get`, `tasks/result`,
//!   `tasks/cancel`, `tasks/list`, goes on as `hosted-mcp/2025-11-25/<method>`, which rmcp
//!   passes to the handler as a custom request (`mcp/tasks_v1.rs` answers it in that
//!   generation's shapes). Limits still count it by its own method and tool.
//! - Where some tool starts an upstream job, the `initialize` answer declares
//!   `capabilities.tasks` (task-augmented `tools/call` and `tasks/cancel`; no `tasks/list`), and
//!   the 2025-11-25 `tools/list` answer marks those tools `execution.taskSupport: optional`.

use std::collections::HashMap;

use catalog::TaskSupport;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use serde_json::{Value, json};

use crate::mcp::TASKS_V1_PREFIX as PREFIX;

/// The most of an `initialize` or `tools/list` answer read back to add the declarations: far
/// above what this server answers (the lint holds `tools/list` to 24 KB per profile).
const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;

/// The methods of the 2025-11-25 task wire.
const TASK_METHODS: [&str; 4] = ["tasks/get", "tasks/result", "tasks/cancel", "tasks/list"];

/// A request whose answer gains the 2025-11-25 task declarations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Declares {
    /// `initialize` at 2025-11-25: `capabilities.tasks`.
    Capabilities,
    /// `tools/list` at 2025-11-25: `execution.taskSupport` on tools that start jobs.
    Execution,
}

/// Whether a request is of the 2025-11-25 generation: its version header, or (for
/// `initialize`, which has none yet) the version it asks for.
fn older(headers: &HeaderMap) -> bool {
    headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| !crate::mcp::is_modern(Some(v)))
}

/// The body a 2025-11-25 task request goes on with (its method ours), or `None` for any other
/// request.
pub(crate) fn translated(headers: &HeaderMap, method: &str, body: &Bytes) -> Option<Bytes> {
    let tasky = method == "tools/call" || TASK_METHODS.contains(&method);
    if !tasky || !older(headers) {
        return None;
    }
    // Most calls ask for no task: those are not parsed a second time.
    if method == "tools/call" && !body.windows(6).any(|w| w == b"\"task\"") {
        return None;
    }
    let mut value: Value = serde_json::from_slice(body).ok()?;
    if method == "tools/call" && !value.pointer("/params/task").is_some_and(Value::is_object) {
        return None;
    }
    *value.get_mut("method")? = Value::String(format!("{PREFIX}{method}"));
    serde_json::to_vec(&value).ok().map(Bytes::from)
}

/// Which declarations a request's answer gains, if any.
pub(crate) fn declares(headers: &HeaderMap, method: &str, body: &Bytes) -> Option<Declares> {
    match method {
        "initialize" => {
            let asked: Value = serde_json::from_slice(body).ok()?;
            let version = asked.pointer("/params/protocolVersion")?.as_str()?;
            (!crate::mcp::is_modern(Some(version))).then_some(Declares::Capabilities)
        }
        "tools/list" if older(headers) => Some(Declares::Execution),
        _ => None,
    }
}

/// The answer with the declarations added; an answer that is no JSON result passes unchanged.
pub(crate) async fn declared(
    response: Response,
    what: Declares,
    jobs: &HashMap<String, TaskSupport>,
) -> Response {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if response.status() != StatusCode::OK || !json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_ANSWER_BYTES).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    add(&mut value, what, jobs);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(value.to_string()))
}

fn add(answer: &mut Value, what: Declares, jobs: &HashMap<String, TaskSupport>) {
    match what {
        Declares::Capabilities => {
            if let Some(caps) = answer
                .pointer_mut("/result/capabilities")
                .and_then(Value::as_object_mut)
            {
                caps.insert(
                    "tasks".into(),
                    json!({"cancel": {}, "requests": {"tools": {"call": {}}}}),
                );
            }
        }
        Declares::Execution => {
            let tools = answer
                .pointer_mut("/result/tools")
                .and_then(Value::as_array_mut);
            for tool in tools.into_iter().flatten() {
                let support = tool
                    .get("name")
                    .and_then(Value::as_str)
                    .and_then(|n| jobs.get(n));
                if let (Some(support), Some(t)) = (support, tool.as_object_mut()) {
                    t.insert("execution".into(), json!({"taskSupport": support.as_str()}));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(version: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(v) = version {
            h.insert("mcp-protocol-version", v.parse().unwrap());
        }
        h
    }

    #[test]
    fn only_older_task_requests_go_on_under_our_methods() {
        let call = Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a_b_c","task":{"ttl":60000}}}"#,
        );
        let plain = Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a_b_c"}}"#,
        );
        let get = Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}"#,
        );
        let older = headers(Some("2025-11-25"));
        let moved = translated(&older, "tools/call", &call).unwrap();
        let moved: Value = serde_json::from_slice(&moved).unwrap();
        assert_eq!(moved["method"], "hosted-mcp/2025-11-25/tools/call");
        assert_eq!(moved["params"]["task"]["ttl"], 60000);
        assert!(
            translated(&older, "tools/call", &plain).is_none(),
            "no task asked"
        );
        assert!(translated(&older, "tasks/get", &get).is_some());
        assert!(translated(&headers(Some("2026-07-28")), "tasks/get", &get).is_none());
        assert!(translated(&headers(None), "tasks/get", &get).is_none());
        assert!(translated(&older, "tools/list", &get).is_none());
    }

    #[test]
    fn older_answers_declare_tasks_and_mark_the_tools_that_start_jobs() {
        let jobs = HashMap::from([
            ("slow_job_start".to_string(), TaskSupport::Optional),
            ("slow_only_task".to_string(), TaskSupport::Required),
        ]);
        let mut init = json!({"result": {"capabilities": {"tools": {}}}});
        add(&mut init, Declares::Capabilities, &jobs);
        assert_eq!(
            init["result"]["capabilities"]["tasks"],
            json!({"cancel": {}, "requests": {"tools": {"call": {}}}})
        );
        let mut list =
            json!({"result": {"tools": [{"name": "slow_job_start"}, {"name": "slow_job_get"}]}});
        add(&mut list, Declares::Execution, &jobs);
        assert_eq!(
            list["result"]["tools"][0]["execution"]["taskSupport"],
            "optional"
        );
        assert!(list["result"]["tools"][1].get("execution").is_none());
        let init = Bytes::from_static(
            br#"{"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
        );
        assert_eq!(
            declares(&headers(None), "initialize", &init),
            Some(Declares::Capabilities)
        );
        let modern = Bytes::from_static(
            br#"{"method":"initialize","params":{"protocolVersion":"2026-07-28"}}"#,
        );
        assert_eq!(declares(&headers(None), "initialize", &modern), None);
    }
}
