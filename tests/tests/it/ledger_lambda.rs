//! The idempotency ledger through the Lambda path: API Gateway v2 events through the adapter
//! `lambda_http::run` uses into `app()` configured as on Lambda, the ledger a DynamoDB table
//! (the real SDK against `moto_server`), the upstream the sandbox. A confirmed write runs once:
//! the table holds its claim and recorded result, and the same confirmation replays it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use audit::{AuditLog, Redactor};
use aws_sdk_dynamodb::types::AttributeValue;
use integration_tests::{Moto, repo};
use lambda_http::request::LambdaRequest;
use lambda_http::{Adapter, Context, LambdaEvent, Service};
use mcp_server::{ApiKey, SecretLoader, SecretStore, SecretValues};
use mcp_server::{AppState, Stores, app};
use mcp_server::{Config, EnvSnapshot};
use mcp_server::{Ledger, TableLedger};
use papierkram_sandbox::SandboxState;
use serde_json::{Value, json};

const HOST: &str = "abc123.execute-api.eu-central-1.amazonaws.com";
const KEY: &str = "lambda-key-0123456789abcdef";
const TABLE: &str = "hosted-mcp-ledger";

fn event(body: Value) -> LambdaRequest {
    serde_json::from_value(json!({
        "version": "2.0", "routeKey": "$default", "rawPath": "/mcp", "rawQueryString": "",
        "headers": {
            "host": HOST, "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
            "authorization": format!("Bearer {KEY}")
        },
        "requestContext": {
            "accountId": "123456789012", "apiId": "abc123", "domainName": HOST,
            "domainPrefix": "abc123",
            "http": {"method": "POST", "path": "/mcp", "protocol": "HTTP/1.1",
                     "sourceIp": "203.0.113.7", "userAgent": "test"},
            "requestId": "req-1", "routeKey": "$default", "stage": "$default",
            "time": "01/Dec/2026:17:00:00 +0000", "timeEpoch": 1796144400000u64
        },
        "body": body.to_string(), "isBase64Encoded": false
    }))
    .unwrap()
}

fn call(args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "demo_invoice_archive", "arguments": args}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmed_write_runs_once_with_the_ledger_in_dynamodb() {
    let moto = Moto::start();
    let dynamodb = moto.create_limits_table(TABLE).await;
    let sandbox = SandboxState::new("lambda-token");
    let (addr, _handle) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
    let env = EnvSnapshot::from_pairs([
        ("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001"),
        ("MCP_SECRET_ID", "hosted-mcp/test"),
        ("MCP_ALLOWED_HOSTS", HOST),
        ("MCP_LEDGER_TABLE", TABLE),
        ("MCP_LIMITS", "off"),
    ]);
    let config = Config::from(env).unwrap();
    let values = SecretValues {
        origin_verify: Vec::new(),
        idp_client_secret: None,
        api_keys: vec![ApiKey::new("claude-ai", KEY)],
        pepper: Some(b"pepper-0123456789abcdef0123456789".to_vec()),
        confirmation_keys: vec![b"lambda-confirmation-key-0123456789abcdef".to_vec()],
        connectors: HashMap::from([(
            "demo".to_string(),
            HashMap::from([
                ("host".to_string(), addr.to_string()),
                ("token".to_string(), "lambda-token".to_string()),
            ]),
        )]),
    };
    let store = SecretStore::new(
        SecretLoader::Static(Arc::new(values)),
        Duration::from_secs(60),
        Redactor::new(),
    );
    let catalogs = catalog::load_dir(&repo().join("tests/catalogs")).unwrap();
    let (audit, sink) = AuditLog::memory();
    let stores = Stores {
        limits: None,
        ledger: Ledger::Table(TableLedger::new(dynamodb.clone(), TABLE)),
        ..Stores::default()
    };
    let state = AppState::new(
        config,
        catalogs,
        Arc::new(store),
        audit,
        Redactor::new(),
        mcp_server::http_client(),
        stores,
    );
    let mut adapter = Adapter::from(app(state));
    let mut send = async |body: Value| -> Value {
        let response = adapter
            .call(LambdaEvent::new(event(body), Context::default()))
            .await
            .unwrap();
        let response = serde_json::to_value(response).unwrap();
        assert_eq!(response["statusCode"], 200, "{response}");
        let body: Value = serde_json::from_str(response["body"].as_str().unwrap()).unwrap();
        body["result"]["structuredContent"].clone()
    };
    let id = sandbox.data().invoices[10].id;
    let asked = send(call(json!({"id": id}))).await;
    assert_eq!(asked["status"], "confirmation_required", "{asked}");
    let token = asked["confirmation_token"].as_str().unwrap().to_string();
    let args = json!({"id": id, "confirmation_token": token});
    let done = send(call(args.clone())).await;
    assert_eq!(done["status"], "ok", "{done}");
    let again = send(call(args)).await;
    assert_eq!(again["replayed"], true, "{again}");
    let path = format!("/income/invoices/{id}/archive");
    assert_eq!(
        sandbox
            .writes()
            .iter()
            .filter(|w| w.path.ends_with(&path))
            .count(),
        1
    );

    // The claim and its recorded result are in the table, expiring in 24 h.
    let items = dynamodb.scan().table_name(TABLE).send().await.unwrap();
    let items = items.items.unwrap_or_default();
    assert_eq!(items.len(), 1, "{items:?}");
    let item = &items[0];
    assert!(item["pk"].as_s().unwrap().starts_with("confirmed:"));
    let result: Value = serde_json::from_str(item["result"].as_s().unwrap()).unwrap();
    assert_eq!(result["status"], "ok");
    let expires: u64 = item["expires_at"].as_n().unwrap().parse().unwrap();
    let now = mcp_server::now_s();
    assert!((now + 24 * 3600 - 5..=now + 24 * 3600 + 5).contains(&expires));
    assert!(matches!(item.get("digest"), Some(AttributeValue::S(_))));
    let lines = sink.lines().join("\n");
    assert!(
        lines.contains(r#""idempotency":"new""#) && lines.contains(r#""idempotency":"replayed""#)
    );
    assert!(!lines.contains(&token));
}
