//! The Lambda path: API Gateway HTTP API (payload v2) events through the same adapter
//! `lambda_http::run` uses, into `app()`, and back out as API Gateway responses.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use audit::Redactor;
use lambda_http::request::LambdaRequest;
use lambda_http::{Adapter, Context, LambdaEvent, Service};
use mcp_server::{ApiKey, SecretLoader, SecretStore, SecretValues};
use mcp_server::{AppState, app};
use mcp_server::{Config, EnvSnapshot};
use serde_json::{Value, json};

use crate::common::app_state;

const HOST: &str = "abc123.execute-api.eu-central-1.amazonaws.com";

fn state() -> (AppState, audit::MemorySink) {
    state_with(&[])
}

fn state_with(extra: &[(&str, &str)]) -> (AppState, audit::MemorySink) {
    state_with_connectors(extra, HashMap::new())
}

fn state_with_connectors(
    extra: &[(&str, &str)],
    connectors: HashMap<String, HashMap<String, String>>,
) -> (AppState, audit::MemorySink) {
    let env = EnvSnapshot::from_pairs(
        [
            ("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001"),
            ("MCP_SECRET_ID", "hosted-mcp/test"),
            ("MCP_ALLOWED_HOSTS", HOST),
        ]
        .into_iter()
        .chain(extra.iter().copied()),
    );
    let config = Config::from(env).unwrap();
    assert!(config.lambda);
    let values = SecretValues {
        origin_verify: Vec::new(),
        idp_client_secret: None,
        api_keys: vec![ApiKey::new("claude-ai", "lambda-key-0123456789abcdef")],
        pepper: Some(b"pepper".to_vec()),
        confirmation_keys: Vec::new(),
        connectors,
    };
    let store = SecretStore::new(
        SecretLoader::Static(Arc::new(values)),
        Duration::from_secs(60),
        Redactor::new(),
    );
    let catalogs = catalog::load_sources(mcp_server::EMBEDDED_CATALOGS).unwrap();
    app_state(config, catalogs, store)
}

/// Runs one fixture event and returns the API Gateway v2 response as JSON.
async fn invoke(fixture: &str) -> (Value, audit::MemorySink) {
    let path = format!("{}/tests/fixtures/{fixture}", env!("CARGO_MANIFEST_DIR"));
    let event: LambdaRequest =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (state, sink) = state();
    let mut adapter = Adapter::from(app(state));
    let response = adapter
        .call(LambdaEvent::new(event, Context::default()))
        .await
        .unwrap();
    (serde_json::to_value(response).unwrap(), sink)
}

#[tokio::test]
async fn the_ip_limit_counts_api_gateways_source_ip_not_a_forged_forwarded_header() {
    let path = format!(
        "{}/tests/fixtures/apigw-v2-tools-list-base64.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (state, sink) = state_with(&[("MCP_LIMIT_PER_IP_PER_MINUTE", "1")]);
    let mut adapter = Adapter::from(app(state));
    // Both requests in one clock minute (they take milliseconds).
    let into_minute = mcp_server::now_s() % 60;
    if into_minute >= 55 {
        tokio::time::sleep(Duration::from_secs(61 - into_minute)).await;
    }
    let mut statuses = Vec::new();
    for forged in ["198.51.100.1", "198.51.100.2"] {
        let mut event = fixture.clone();
        event["headers"]["x-forwarded-for"] = json!(forged);
        let event: LambdaRequest = serde_json::from_value(event).unwrap();
        let response = adapter
            .call(LambdaEvent::new(event, Context::default()))
            .await
            .unwrap();
        statuses.push(serde_json::to_value(response).unwrap()["statusCode"].clone());
    }
    assert_eq!(statuses, [json!(200), json!(429)]);
    let lines = sink.lines().join("\n");
    assert!(!lines.contains("203.0.113.7") && !lines.contains("198.51.100"));
}

fn body(response: &Value) -> Value {
    serde_json::from_str(response["body"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn initialize_through_api_gateway_returns_json_without_cookies() {
    let (response, sink) = invoke("apigw-v2-initialize.json").await;
    assert_eq!(response["statusCode"], 200, "{response}");
    assert_eq!(response["headers"]["content-type"], "application/json");
    assert!(response["headers"].get("set-cookie").is_none());
    assert!(
        response
            .get("cookies")
            .is_none_or(|c| c.as_array().is_none_or(Vec::is_empty))
    );
    assert_eq!(body(&response)["result"]["protocolVersion"], "2025-11-25");
    let events = sink.events();
    assert_eq!(events[0].client.as_deref(), Some("claude-ai"));
    // The API Gateway request id (from the request context, not a header) is carried to the
    // audit line and the answer, and the e-mail never is.
    assert_eq!(events[0].request_id.as_deref(), Some("JKJaXmPLvHcESHA="));
    assert_eq!(response["headers"]["x-request-id"], "JKJaXmPLvHcESHA=");
    let lines = sink.lines().join("\n");
    assert!(!lines.contains("alice@example.com"));
}

#[tokio::test]
async fn base64_body_is_decoded_and_tools_listed() {
    let (response, _) = invoke("apigw-v2-tools-list-base64.json").await;
    assert_eq!(response["statusCode"], 200, "{response}");
    let names: Vec<String> = body(&response)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        names.contains(&"papierkram_invoices_list".to_string()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"papierkram_raw_get".to_string()),
        "raw tools stay hidden on Lambda"
    );
}

#[tokio::test]
async fn missing_key_through_api_gateway_is_401() {
    let (response, sink) = invoke("apigw-v2-no-key.json").await;
    assert_eq!(response["statusCode"], 401, "{response}");
    assert!(
        response["headers"]["www-authenticate"]
            .as_str()
            .unwrap()
            .starts_with("Bearer")
    );
    assert_eq!(sink.events()[0].event, audit::EventKind::AuthDenied);
}

/// A watched aggregation through API Gateway: the adapter collects the whole event stream into
/// one buffered response, the progress notifications then the result (what a client sees on
/// Lambda: every step at once, when the call ends).
#[tokio::test]
async fn a_watched_aggregation_answers_one_buffered_event_stream() {
    let sandbox = papierkram_sandbox::SandboxState::new("lambda-token");
    let (addr, _h) = papierkram_sandbox::spawn(sandbox).await.unwrap();
    let base = format!("http://{addr}/api/v1");
    let fields = HashMap::from([
        ("token".to_string(), "lambda-token".to_string()),
        ("subdomain".to_string(), "sandbox".to_string()),
    ]);
    let (state, _sink) = state_with_connectors(
        &[("PAPIERKRAM_BASE_URL", base.as_str())],
        HashMap::from([("papierkram".to_string(), fields)]),
    );
    let path = format!(
        "{}/tests/fixtures/apigw-v2-initialize.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut adapter = Adapter::from(app(state));
    let mut answers = Vec::new();
    for meta in [Some(json!({"progressToken": "lambda-1"})), None] {
        let mut params = json!({"name": "papierkram_open_items_get", "arguments": {}});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        let mut event = fixture.clone();
        event["headers"]["mcp-protocol-version"] = json!("2025-11-25");
        event["body"] =
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params})
                .to_string()
                .into();
        let event: LambdaRequest = serde_json::from_value(event).unwrap();
        let response = adapter
            .call(LambdaEvent::new(event, Context::default()))
            .await
            .unwrap();
        answers.push(serde_json::to_value(response).unwrap());
    }
    let watched = &answers[0];
    assert_eq!(watched["statusCode"], 200, "{watched}");
    assert!(
        watched["headers"]["content-type"]
            .as_str()
            .unwrap()
            .starts_with("text/event-stream"),
        "{watched}"
    );
    let messages: Vec<Value> = watched["body"]
        .as_str()
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter(|d| !d.trim().is_empty())
        .map(|d| serde_json::from_str(d.trim()).unwrap())
        .collect();
    let (last, notes) = messages.split_last().unwrap();
    assert_eq!(last["id"], 4);
    assert_eq!(
        last["result"]["structuredContent"]["status"], "ok",
        "{last}"
    );
    assert!(notes.len() >= 3, "{messages:?}");
    for (i, n) in notes.iter().enumerate() {
        assert_eq!(n["method"], "notifications/progress");
        assert_eq!(n["params"]["progressToken"], "lambda-1");
        assert_eq!(n["params"]["progress"], (i + 1) as f64);
    }
    let plain = &answers[1];
    assert_eq!(
        plain["headers"]["content-type"], "application/json",
        "{plain}"
    );
    assert_eq!(body(plain)["result"]["structuredContent"]["status"], "ok");
}
