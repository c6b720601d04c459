//! HTTP behaviour of `app()` through `oneshot`: auth, host/origin checks, both protocol
//! generations, the tool list, and tool calls against the sandbox upstream.

use std::collections::HashMap;
use std::time::Duration;

use crate::common::{TestApp, app_with, app_with_store, listed_names, send, tools_call};
use audit::Redactor;
use axum::body::Body;
use http::{Request, StatusCode};
use mcp_server::{ApiKey, SecretLoader, SecretStore, SecretValues};
use serde_json::{Value, json};

const KEY: &str = "test-key-0123456789abcdef";

fn catalogs() -> Vec<catalog::Catalog> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/catalogs");
    catalog::load_dir(&dir).unwrap()
}

fn secrets(upstream_host: &str, token: &str) -> SecretValues {
    SecretValues {
        origin_verify: Vec::new(),
        idp_client_secret: None,
        api_keys: vec![ApiKey::new("tester", KEY)],
        pepper: Some(b"pepper-for-tests".to_vec()),
        confirmation_keys: vec![b"tests-confirmation-key-0123456789abcdef".to_vec()],
        connectors: HashMap::from([(
            "demo".to_string(),
            HashMap::from([
                ("host".to_string(), upstream_host.to_string()),
                ("token".to_string(), token.to_string()),
            ]),
        )]),
    }
}

fn test_app(env: &[(&str, &str)], values: SecretValues) -> TestApp {
    app_with(env, catalogs(), values)
}

fn default_app() -> TestApp {
    test_app(&[], secrets("127.0.0.1:1", "t"))
}

fn rpc(body: Value, extra: &[(&str, &str)]) -> Request<Body> {
    let mut r = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {KEY}"));
    for (k, v) in extra {
        r = r.header(*k, *v);
    }
    r.body(Body::from(body.to_string())).unwrap()
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"roots": {"listChanged": true}, "someFutureCapability": {"deep": [1, 2]}},
        "clientInfo": {"name": "test-client", "version": "9.9", "somethingNew": true}}})
}

const V2025: &[(&str, &str)] = &[("mcp-protocol-version", "2025-11-25")];

#[tokio::test]
async fn missing_or_wrong_key_gets_401_with_www_authenticate_and_is_audited_without_the_key() {
    let app = default_app();
    let mut r = rpc(initialize(), &[]);
    r.headers_mut().remove("authorization");
    let (status, headers, missing) = send(&app, r).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(headers["www-authenticate"], r#"Bearer realm="hosted-mcp""#);
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .starts_with("No credentials were sent"),
        "{missing}"
    );
    let mut r = rpc(initialize(), &[]);
    r.headers_mut()
        .insert("authorization", "Bearer wrong-key-123".parse().unwrap());
    let (status, headers, wrong) = send(&app, r).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        headers["www-authenticate"]
            .to_str()
            .unwrap()
            .contains(r#"error="invalid_token""#)
    );
    assert!(
        wrong["message"]
            .as_str()
            .unwrap()
            .contains("not valid here"),
        "a wrong key is told apart from a missing one: {wrong}"
    );
    let lines = app.audit.lines().join("\n");
    assert!(lines.contains("\"event\":\"auth_denied\""), "{lines}");
    assert!(
        lines.contains("missing_credentials") && lines.contains("invalid_key"),
        "{lines}"
    );
    assert!(!lines.contains("wrong-key-123"), "{lines}");
}

#[tokio::test]
async fn with_oauth_off_the_oauth_well_known_routes_are_404_not_401() {
    let app = default_app();
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ] {
        let r = Request::get(path)
            .header("host", "localhost")
            .body(Body::empty())
            .unwrap();
        let (status, headers, _) = send(&app, r).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(headers.get("www-authenticate").is_none(), "{path}");
    }
    assert!(app.audit.lines().is_empty(), "nothing refused");
}

#[tokio::test]
async fn initialize_tolerates_unknown_capabilities_and_audits_the_client() {
    let app = default_app();
    let (status, headers, body) = send(&app, rpc(initialize(), &[])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(headers["content-type"], "application/json");
    assert!(headers.get("set-cookie").is_none());
    assert!(
        headers.get("mcp-session-id").is_none(),
        "stateless: no session"
    );
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(body["result"]["serverInfo"]["name"], "hosted-mcp");
    let events = app.audit.events();
    let init = events
        .iter()
        .find(|e| e.event == audit::EventKind::ClientInit)
        .unwrap();
    assert_eq!(init.client.as_deref(), Some("test-client"));
    assert_eq!(init.client_version.as_deref(), Some("9.9"));
    assert_eq!(init.protocol_version.as_deref(), Some("2025-11-25"));
    assert_eq!(init.key_id.as_deref(), Some("tester"));
}

#[tokio::test]
async fn foreign_host_and_origin_are_refused() {
    let app = test_app(
        &[
            ("MCP_ALLOWED_HOSTS", "mcp.example.com"),
            ("MCP_ALLOWED_ORIGINS", "https://claude.ai"),
        ],
        secrets("127.0.0.1:1", "t"),
    );
    let mut r = rpc(initialize(), &[]);
    r.headers_mut()
        .insert("host", "evil.example".parse().unwrap());
    assert_eq!(send(&app, r).await.0, StatusCode::FORBIDDEN);
    let mut r = rpc(initialize(), &[("origin", "https://evil.example")]);
    r.headers_mut()
        .insert("host", "mcp.example.com".parse().unwrap());
    assert_eq!(send(&app, r).await.0, StatusCode::FORBIDDEN);
    let mut r = rpc(initialize(), &[("origin", "https://claude.ai")]);
    r.headers_mut()
        .insert("host", "mcp.example.com".parse().unwrap());
    assert_eq!(send(&app, r).await.0, StatusCode::OK);
}

#[tokio::test]
async fn only_loopback_browser_origins_pass_locally_when_none_is_configured() {
    let app = default_app();
    let (status, _, _) = send(&app, rpc(initialize(), &[("origin", "https://claude.ai")])).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _, _) = send(
        &app,
        rpc(initialize(), &[("origin", "http://localhost:6274")]),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn oversized_body_is_refused() {
    let app = test_app(
        &[("MCP_MAX_BODY_BYTES", "2048")],
        secrets("127.0.0.1:1", "t"),
    );
    let big = tools_call(
        "demo_invoices_list",
        json!({"document_date_from": "x".repeat(4096)}),
    );
    let (status, _, _) = send(&app, rpc(big, V2025)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn tools_list_equals_the_checked_in_allowlist() {
    let app = default_app();
    let (status, _, body) = send(
        &app,
        rpc(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            V2025,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let names = listed_names(&body);
    let allowlist = include_str!("../../../../tests/catalogs/demo.allowlist");
    let expected: Vec<&str> = allowlist
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    assert_eq!(names, expected);
    let list = &body["result"]["tools"][0];
    assert_eq!(list["annotations"]["readOnlyHint"], true);
    // No boilerplate outputSchema per tool (it was half of tools/list and said nothing).
    assert!(list.get("outputSchema").is_none(), "{list}");
}

#[tokio::test]
async fn raw_tool_is_not_found_unless_exposed() {
    let app = default_app();
    let (_, _, body) = send(
        &app,
        rpc(tools_call("demo_raw_get", json!({"path": "/info"})), V2025),
    )
    .await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Tool not found")
    );
    let exposed = test_app(&[("DEMO_EXPOSE_RAW", "true")], secrets("127.0.0.1:1", "t"));
    let (_, _, body) = send(
        &exposed,
        rpc(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            V2025,
        ),
    )
    .await;
    assert!(
        body["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "demo_raw_get")
    );
}

#[tokio::test]
async fn forbidden_tool_is_never_listed_nor_callable() {
    let app = test_app(&[("DEMO_EXPOSE_RAW", "true")], secrets("127.0.0.1:1", "t"));
    let (_, _, list) = send(
        &app,
        rpc(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            V2025,
        ),
    )
    .await;
    assert!(!list.to_string().contains("demo_invoice_delete"));
    let (_, _, body) = send(
        &app,
        rpc(tools_call("demo_invoice_delete", json!({"id": 1})), V2025),
    )
    .await;
    assert_eq!(body["error"]["code"], -32602);
}

#[tokio::test]
async fn unknown_tool_suggests_the_closest_name() {
    let app = default_app();
    let (_, _, body) = send(&app, rpc(tools_call("demo_invoice_gett", json!({})), V2025)).await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Did you mean `demo_invoice_get`?"),
        "{body}"
    );
    // A client that still calls a tool by its name from before names carried the connector.
    let (_, _, body) = send(&app, rpc(tools_call("invoice_get", json!({})), V2025)).await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Tool not found: `invoice_get`. Did you mean `demo_invoice_get`?"),
        "{body}"
    );
}

#[tokio::test]
async fn bad_arguments_are_an_is_error_result_with_a_hint() {
    let app = default_app();
    let (_, _, body) = send(
        &app,
        rpc(
            tools_call("demo_invoice_get", json!({"invoice_id": 3})),
            V2025,
        ),
    )
    .await;
    let result = &body["result"];
    assert_eq!(result["isError"], true, "{body}");
    assert_eq!(result["structuredContent"]["status"], "invalid_input");
    assert!(
        result["structuredContent"]["hint"]
            .as_str()
            .unwrap()
            .contains("Did you mean `id`?")
    );
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("invalid_input: ")
    );
}

/// The structured result of a tools/call reply.
fn result_of(body: &Value) -> &Value {
    &body["result"]["structuredContent"]
}

#[tokio::test]
async fn a_dry_run_previews_the_exact_request_and_writes_nothing() {
    let app = default_app();
    let (_, _, body) = send(
        &app,
        rpc(
            tools_call("demo_invoice_archive", json!({"id": 7, "dry_run": true})),
            V2025,
        ),
    )
    .await;
    let r = result_of(&body);
    assert_eq!(r["status"], "ok", "{body}");
    assert_eq!(r["dry_run"], true);
    assert_eq!(r["preview"]["request"]["method"], "POST");
    assert_eq!(
        r["preview"]["request"]["path"],
        "/api/v1/income/invoices/7/archive"
    );
    assert_eq!(r["preview"]["retry_safe"], false);
    assert_eq!(r["preview"]["confirmation"], "confirmation of this preview");
    assert!(
        r["hint"]
            .as_str()
            .unwrap()
            .starts_with("Nothing was written.")
    );
    let line = app.audit.lines().join("\n");
    assert!(
        line.contains(r#""dry_run":true"#) && line.contains(r#""risk":"high""#),
        "{line}"
    );
}

#[tokio::test]
async fn a_risky_write_runs_only_with_the_token_of_its_preview() {
    let app = default_app();
    let ask = |args: Value| rpc(tools_call("demo_invoice_archive", args), V2025);
    let (_, _, body) = send(&app, ask(json!({"id": 1}))).await;
    let r = result_of(&body);
    assert_eq!(r["status"], "confirmation_required", "{body}");
    assert_eq!(
        r["preview"]["request"]["path"],
        "/api/v1/income/invoices/1/archive"
    );
    assert_eq!(r["expires_in_s"], 300);
    let token = r["confirmation_token"].as_str().unwrap().to_string();
    assert!(r["hint"].as_str().unwrap().contains("confirmation_token"));

    // Other arguments, an altered token, the old `confirm` flag: refused before anything runs.
    let (_, _, body) = send(&app, ask(json!({"id": 2, "confirmation_token": token}))).await;
    assert_eq!(result_of(&body)["status"], "invalid_input");
    assert!(
        result_of(&body)["hint"]
            .as_str()
            .unwrap()
            .contains("arguments differ"),
        "{body}"
    );
    let last = if token.ends_with('x') { "y" } else { "x" };
    let altered = format!("{}{last}", &token[..token.len() - 1]);
    let (_, _, body) = send(&app, ask(json!({"id": 1, "confirmation_token": altered}))).await;
    assert!(
        result_of(&body)["hint"]
            .as_str()
            .unwrap()
            .contains("not valid"),
        "{body}"
    );
    let (_, _, body) = send(&app, ask(json!({"id": 1, "confirm": true}))).await;
    assert_eq!(result_of(&body)["status"], "invalid_input", "{body}");

    // With its token the call goes upstream (unreachable here: it may have happened)...
    let (_, _, body) = send(&app, ask(json!({"id": 1, "confirmation_token": token}))).await;
    assert_eq!(result_of(&body)["status"], "unavailable", "{body}");
    // ...so the same confirmation again answers outcome_unknown instead of a second request.
    let (_, _, body) = send(&app, ask(json!({"id": 1, "confirmation_token": token}))).await;
    assert_eq!(result_of(&body)["status"], "outcome_unknown", "{body}");
    let lines = app.audit.lines().join("\n");
    assert!(
        lines.contains(r#""confirmation":"token","idempotency":"new""#),
        "{lines}"
    );
    assert!(lines.contains(r#""idempotency":"unknown""#), "{lines}");
    assert!(!lines.contains(&token), "the token is never logged");
}

fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "next-client", "version": "2.0"},
        "io.modelcontextprotocol/clientCapabilities": {"futureThing": {}}
    })
}

#[tokio::test]
async fn stateless_2026_client_discovers_and_lists_without_initialize() {
    let app = default_app();
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta_2026()}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "server/discover"),
    ];
    let (status, _, body) = send(&app, rpc(discover, &headers)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let versions = body["result"]["supportedVersions"].to_string();
    assert!(
        versions.contains("2026-07-28") && versions.contains("2025-11-25"),
        "{body}"
    );

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta_2026()}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let (status, _, body) = send(&app, rpc(list, &headers)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["result"]["tools"].as_array().unwrap().len() >= 3);

    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "demo_invoice_get", "arguments": {"id": "x"}, "_meta": meta_2026()}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "demo_invoice_get"),
    ];
    let (_, _, body) = send(&app, rpc(call, &headers)).await;
    assert_eq!(
        body["result"]["structuredContent"]["status"], "invalid_input",
        "{body}"
    );
    let event = app
        .audit
        .events()
        .into_iter()
        .find(|e| e.tool.as_deref() == Some("demo_invoice_get"))
        .unwrap();
    assert_eq!(event.client.as_deref(), Some("next-client"));
    assert_eq!(event.protocol_version.as_deref(), Some("2026-07-28"));
}

#[tokio::test]
async fn mismatched_mcp_name_header_is_rejected() {
    let app = default_app();
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "demo_invoice_get", "arguments": {"id": 1}, "_meta": meta_2026()}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "demo_info_get"),
    ];
    let (status, _, body) = send(&app, rpc(call, &headers)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

#[tokio::test]
async fn missing_secret_answers_503_with_a_clear_message() {
    let client = aws_sdk_secretsmanager::Client::from_conf(
        aws_sdk_secretsmanager::Config::builder()
            .behavior_version_latest()
            .region(aws_sdk_secretsmanager::config::Region::new("eu-central-1"))
            .endpoint_url("http://127.0.0.1:1")
            .credentials_provider(aws_sdk_secretsmanager::config::Credentials::for_tests())
            .build(),
    );
    let store = SecretStore::new(
        SecretLoader::SecretsManager {
            client,
            secret_id: "hosted-mcp/missing".into(),
        },
        Duration::from_secs(300),
        Redactor::new(),
    );
    let app = app_with_store(&[], catalogs(), store);
    let (status, _, body) = send(&app, rpc(initialize(), &[])).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("deployment secret"),
        "{body}"
    );
}

/// The demo catalog with two tools taken out of the listing (`core: false`), and profiles.
fn disclosure_app(env: &[(&str, &str)]) -> TestApp {
    let text = include_str!("../../../../tests/catalogs/demo.yaml")
        .replace(
            "  - name: demo_invoice_get\n",
            "  - name: demo_invoice_get\n    core: false\n",
        )
        .replace(
            "  - name: demo_info_get\n",
            "  - name: demo_info_get\n    core: false\n",
        );
    let catalogs = vec![catalog::parse("demo.yaml", &text).unwrap()];
    app_with(env, catalogs, secrets("127.0.0.1:1", "t"))
}

fn list_request(path: &str) -> Request<Body> {
    let mut r = rpc(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        V2025,
    );
    *r.uri_mut() = path.parse().unwrap();
    r
}

#[tokio::test]
async fn non_core_tools_are_found_with_search_tools_and_called_with_call_tool() {
    let app = disclosure_app(&[]);
    let (_, _, body) = send(&app, list_request("/mcp")).await;
    assert_eq!(
        listed_names(&body),
        [
            "demo_invoices_list",
            "demo_invoice_archive",
            "demo_invoice_deliver",
            "search_tools",
            "call_tool"
        ]
    );

    let search = tools_call(
        "search_tools",
        json!({"query": "account info connection", "limit": "3"}),
    );
    let (_, _, body) = send(&app, rpc(search, V2025)).await;
    let text = body["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("demo_info_get"), "{body}");
    assert!(
        text.contains("matched"),
        "the footer says how many matched: {text}"
    );

    let body = invoice_get_through_call_tool_with_a_bad_id(&app).await;
    assert_eq!(
        body["result"]["structuredContent"]["status"], "invalid_input",
        "{body}"
    );
    let event = app
        .audit
        .events()
        .into_iter()
        .find(|e| e.tool.as_deref() == Some("demo_invoice_get"))
        .unwrap();
    assert_eq!(
        event.status.as_deref(),
        Some("invalid_input"),
        "same audit as a direct call"
    );

    let unknown = tools_call(
        "call_tool",
        json!({"name": "invoice_fetch", "arguments": {}}),
    );
    let (_, _, body) = send(&app, rpc(unknown, V2025)).await;
    assert_eq!(body["result"]["isError"], true);
    assert!(
        body["result"]["structuredContent"]["hint"]
            .as_str()
            .unwrap()
            .contains("invoice"),
        "{body}"
    );
}

/// `call_tool` of `demo_invoice_get` with an id that is no integer: the answer's body.
async fn invoice_get_through_call_tool_with_a_bad_id(app: &TestApp) -> Value {
    let via = tools_call(
        "call_tool",
        json!({"name": "demo_invoice_get", "arguments": {"id": "x"}}),
    );
    send(app, rpc(via, V2025)).await.2
}

/// A cold instance builds the search index and each `tools/list` only for the request that
/// needs it: `initialize` and tool calls build neither, `tools/list` its own scope's list,
/// `search_tools` the index.
#[tokio::test]
async fn a_cold_instance_builds_lists_and_the_search_index_only_when_asked() {
    let app = disclosure_app(&[]);
    let built = |app: &TestApp| (app.mcp.inventory.search_is_built(), app.mcp.lists_built());
    assert_eq!(built(&app), (false, 0), "nothing at start");
    let (status, _, _) = send(&app, rpc(initialize(), V2025)).await;
    assert_eq!(status, StatusCode::OK);
    let direct = tools_call("demo_invoice_archive", json!({"id": 7, "dry_run": true}));
    let (_, _, body) = send(&app, rpc(direct, V2025)).await;
    assert!(body["result"].is_object(), "{body}");
    let body = invoice_get_through_call_tool_with_a_bad_id(&app).await;
    assert_eq!(
        body["result"]["structuredContent"]["status"], "invalid_input",
        "{body}"
    );
    assert_eq!(built(&app), (false, 0), "after initialize and tool calls");
    send(&app, list_request("/mcp")).await;
    assert_eq!(built(&app), (false, 1), "tools/list builds its list only");
    let search = tools_call("search_tools", json!({"query": "account info"}));
    let (_, _, body) = send(&app, rpc(search, V2025)).await;
    assert!(
        body["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("demo_info_get")),
        "{body}"
    );
    assert_eq!(built(&app), (true, 1), "search_tools builds the index");
}

#[tokio::test]
async fn search_without_matches_is_audited_with_its_terms() {
    let app = disclosure_app(&[]);
    // Words the catalog knows are kept (as stems; the index tests show that); words it does
    // not know, a name someone typed, are only counted.
    let search = tools_call(
        "search_tools",
        json!({"query": "zzqx for Erika Mustermann"}),
    );
    send(&app, rpc(search, V2025)).await;
    let event = app
        .audit
        .events()
        .into_iter()
        .find(|e| e.tool.as_deref() == Some("search_tools"))
        .unwrap();
    let reason = event.reason.as_deref().unwrap();
    assert!(reason.starts_with("no_match:"), "{event:?}");
    assert_eq!(reason, "no_match: +3", "zzqx, erika, mustermann");
    assert!(
        !reason.to_lowercase().contains("erika") && !reason.contains("zzqx"),
        "{reason}"
    );
}

#[tokio::test]
async fn profiles_select_tools_by_path_and_by_key() {
    let env = [
        (
            "MCP_PROFILES",
            "archive=demo/invoice_archive;reading=demo/*_list,demo/*_get",
        ),
        ("MCP_KEY_PROFILES", "tester=reading"),
    ];
    let app = disclosure_app(&env);
    let (status, _, body) = send(&app, list_request("/mcp/reading")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        listed_names(&body),
        ["demo_invoices_list", "search_tools", "call_tool"]
    );
    // The key is limited to `reading`: plain /mcp means that profile, another profile is refused.
    let (_, _, body) = send(&app, list_request("/mcp")).await;
    assert_eq!(
        listed_names(&body),
        ["demo_invoices_list", "search_tools", "call_tool"]
    );
    let (status, _, _) = send(&app, list_request("/mcp/archive")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _, _) = send(&app, list_request("/mcp/nope")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // A tool outside the profile cannot be called or found, nor is it suggested for a typo.
    let (_, _, body) = send(
        &app,
        rpc(tools_call("demo_invoice_archive", json!({"id": 1})), V2025),
    )
    .await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    let (_, _, body) = send(
        &app,
        rpc(tools_call("invoice_archiv", json!({"id": 1})), V2025),
    )
    .await;
    let message = body["error"]["message"].as_str().unwrap();
    assert!(!message.contains("demo_invoice_archive"), "{message}");
    let (_, _, body) = send(&app, rpc(tools_call("invoices_lst", json!({})), V2025)).await;
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("Did you mean `demo_invoices_list`?"),
        "{message}"
    );
    let search = tools_call("search_tools", json!({"query": "archive invoice"}));
    let (_, _, body) = send(&app, rpc(search, V2025)).await;
    assert!(
        !body["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("demo_invoice_archive"),
        "{body}"
    );
}

#[tokio::test]
async fn an_asserted_user_without_a_pepper_to_record_them_is_refused_not_folded() {
    let values = SecretValues {
        pepper: None,
        ..secrets("127.0.0.1:1", "t")
    };
    let app = test_app(&[("MCP_USER_HEADER_KEYS", "tester")], values);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let mut headers = V2025.to_vec();
    headers.push(("x-user-email", "alice@example.com"));
    let (status, _, body) = send(&app, rpc(list.clone(), &headers)).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.to_string().contains("pseudonym pepper"), "{body}");
    // The same key without an asserted user is still the key's own caller.
    let (status, _, body) = send(&app, rpc(list, V2025)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn behind_a_front_door_only_requests_carrying_its_proof_pass() {
    const CURRENT: &str = "front-door-proof-current-0123456789";
    const PREVIOUS: &str = "front-door-proof-previous-0123456789";
    let values = SecretValues {
        origin_verify: vec![CURRENT.into(), PREVIOUS.into()],
        ..secrets("127.0.0.1:1", "t")
    };
    let app = test_app(&[("MCP_ORIGIN_VERIFY_HEADER", "X-Origin-Verify")], values);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let with = |proof: &'static str| {
        let mut headers = V2025.to_vec();
        headers.push(("x-origin-verify", proof));
        headers
    };
    for (proof, expected) in [
        (Some(CURRENT), StatusCode::OK),
        (Some(PREVIOUS), StatusCode::OK),
        (
            Some("front-door-proof-current-012345678"),
            StatusCode::FORBIDDEN,
        ),
        (None, StatusCode::FORBIDDEN),
    ] {
        let headers = proof.map_or(V2025.to_vec(), with);
        let (status, _, body) = send(&app, rpc(list.clone(), &headers)).await;
        assert_eq!(status, expected, "{proof:?}: {body}");
        assert!(!body.to_string().contains("front-door-proof"), "{body}");
    }
    // Every route, /health included, and before authentication.
    let health = Request::get("/health")
        .header("host", "localhost")
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&app, health).await.0, StatusCode::FORBIDDEN);
    let denied: Vec<_> = app
        .audit
        .events()
        .into_iter()
        .filter(|e| e.reason.as_deref() == Some("origin"))
        .collect();
    assert_eq!(denied.len(), 3, "one audit line per refusal");

    // Configured, but the secret lacks the proof: nothing passes.
    let app = test_app(
        &[("MCP_ORIGIN_VERIFY_HEADER", "x-origin-verify")],
        secrets("127.0.0.1:1", "t"),
    );
    let (status, _, _) = send(&app, rpc(list, &with(CURRENT))).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
}

/// The digest's tests read the audit lines of confirmations from
/// `tool-error-digest/tests/fixtures/confirmations.jsonl`; this is where those lines come from.
/// Each way a write asks for, or cannot get, a confirmation: the token result (a 2025-11-25
/// client, one that declared form elicitation at `initialize`, a 2026-07-28 client without
/// forms), the 2026-07-28 form (`input_required`), a critical write refused for want of a
/// person (with and without a token in the arguments) and a declined form. The lines must be
/// the fixture's, but for what differs on every run.
#[tokio::test]
async fn confirmation_audit_lines_are_the_ones_the_digest_is_tested_with() {
    let app = default_app();
    let meta = |capabilities: Value| {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "next-client", "version": "2.0"},
            "io.modelcontextprotocol/clientCapabilities": capabilities
        })
    };
    let call_2026 = |tool: &str, args: Value, capabilities: Value, answer: Option<(&str, &str)>| {
        let mut params = json!({"name": tool, "arguments": args, "_meta": meta(capabilities)});
        if let Some((state, action)) = answer {
            params["requestState"] = state.into();
            params["inputResponses"] = json!({"confirm": {"action": action}});
        }
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", tool),
        ];
        rpc(
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}),
            &headers,
        )
    };
    let form = json!({"elicitation": {"form": {}}});

    // A high write: the token result, whatever the client.
    send(
        &app,
        rpc(tools_call("demo_invoice_archive", json!({"id": 1})), V2025),
    )
    .await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "form-client", "version": "1.0"}}});
    send(&app, rpc(init, V2025)).await;
    send(
        &app,
        rpc(tools_call("demo_invoice_archive", json!({"id": 2})), V2025),
    )
    .await;
    let no_form = call_2026("demo_invoice_archive", json!({"id": 3}), json!({}), None);
    send(&app, no_form).await;
    // A critical write: the form, a refusal without one (or with a token), a declined form.
    let (_, _, asked) = send(
        &app,
        call_2026("demo_invoice_deliver", json!({"id": 4}), form.clone(), None),
    )
    .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let state = asked["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    send(
        &app,
        rpc(tools_call("demo_invoice_deliver", json!({"id": 5})), V2025),
    )
    .await;
    let with_token = json!({"id": 6, "confirmation_token": state});
    send(
        &app,
        rpc(tools_call("demo_invoice_deliver", with_token), V2025),
    )
    .await;
    let decline = Some((state.as_str(), "decline"));
    let declined = call_2026("demo_invoice_deliver", json!({"id": 4}), form, decline);
    send(&app, declined).await;

    // What differs on every run (and the result's size, which follows the hint's wording).
    let stable = |mut line: Value| {
        for key in ["ts", "duration_ms", "request_id", "result_bytes"] {
            line.as_object_mut().unwrap().remove(key);
        }
        line
    };
    let written: Vec<Value> = app
        .audit
        .lines()
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["tool"].is_string())
        .map(stable)
        .collect();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tool-error-digest/tests/fixtures/confirmations.jsonl");
    let expected: Vec<Value> = std::fs::read_to_string(fixture)
        .unwrap()
        .lines()
        .map(|l| stable(serde_json::from_str(l).unwrap()))
        .collect();
    let shown = |lines: &[Value]| {
        lines
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        shown(&written),
        shown(&expected),
        "the server's lines (left) against the fixture's (right)"
    );
}
