//! Prompts and completions through `app()`: `prompts/list` per profile with its cache hints,
//! `prompts/get` validated like a tool call, and `completion/complete` for a prompt argument
//! and a resource-template variable, against a fake upstream that counts its requests.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::Body;
use http::Request;
use serde_json::{Value, json};

use crate::common::{TestApp, app_with, demo_secrets, send, serve_fake_upstream};

const KEY: &str = "prompts-key-0123456789abcdef";

const CATALOG: &str = r#"
connector: demo
base_url: "http://{host}/api/v1"
secrets: [host, token]
auth: { bearer: token }
timeout_ms: 2000
list_envelope: { items: entries, more: has_more }
tools:
  - name: demo_companies_list
    risk: low
    list: true
    description: 'Lists companies. Use it to find a company id. Example: {"page": 1}'
    get: /contact/companies
    fields: [id, name, city]
  - name: demo_company_get
    risk: low
    description: 'Returns one company. Use it with an id. Example: {"id": 1}'
    get: /contact/companies/{id}
    resource: "demo://companies/{id}"
    params:
      id:
        type: integer
        in: path
        min: 1
        description: "Company id."
        complete: { from: demo_companies_list, match: name, value: id }
  - name: demo_open_items_get
    risk: low
    description: 'Open items of a company. Use it for dunning. Example: {"company_id": 1}'
    get: /open_items
    params:
      company_id: { type: integer, min: 1, description: "Company." }
prompts:
  - name: demo_customer_open_items
    title: Open items of a customer
    description: What one customer still owes.
    tools: [demo_open_items_get]
    arguments:
      company_id:
        type: integer
        min: 1
        required: true
        description: "The customer's company id."
        complete: { from: demo_companies_list, match: name, value: id }
    template:
      - role: user
        text: "Call demo_open_items_get with company_id {company_id} and list what is unpaid."
"#;

/// A fake upstream serving three companies, counting the requests it gets.
async fn upstream() -> (String, Arc<AtomicUsize>) {
    let (host, hits, _) = recording_upstream().await;
    (host, hits)
}

/// [`upstream`], also serving each company at `/contact/companies/{id}` and keeping the paths
/// of those requests.
async fn recording_upstream() -> (String, Arc<AtomicUsize>, Arc<std::sync::Mutex<Vec<String>>>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let paths = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = paths.clone();
    let one = move |uri: http::Uri| {
        seen.lock().unwrap().push(uri.path().to_string());
        async { axum::Json(json!({"id": 101, "name": "Acme GmbH"})) }
    };
    let router = axum::Router::new()
        .route(
            "/api/v1/contact/companies",
            axum::routing::get(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                async {
                    axum::Json(json!({"has_more": false, "entries": [
                        {"id": 101, "name": "Acme GmbH", "city": "Berlin"},
                        {"id": 102, "name": "Bäckerei Müller", "city": "Köln"},
                        {"id": 103, "name": "acme labs", "city": "Bonn"}
                    ]}))
                }
            }),
        )
        .route("/api/v1/contact/companies/{id}", axum::routing::get(one));
    let addr = serve_fake_upstream(router).await;
    (addr.to_string(), hits, paths)
}

fn app(host: &str, env: &[(&str, &str)]) -> TestApp {
    let catalogs = vec![catalog::parse("demo.yaml", CATALOG).unwrap()];
    app_with(env, catalogs, demo_secrets(&[("tester", KEY)], host, None))
}

fn rpc(path: &str, method: &str, params: Value) -> Request<Body> {
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params});
    Request::post(path)
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {KEY}"))
        .header("mcp-protocol-version", "2025-11-25")
        .body(Body::from(body.to_string()))
        .unwrap()
}

fn complete_prompt(value: &str) -> Value {
    json!({"ref": {"type": "ref/prompt", "name": "demo_customer_open_items"},
           "argument": {"name": "company_id", "value": value}})
}

#[tokio::test]
async fn prompts_are_declared_listed_with_cache_hints_and_rendered() {
    let app = app("127.0.0.1:1", &[]);
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "t", "version": "1"}});
    let (_, _, body) = send(&app, rpc("/mcp", "initialize", init)).await;
    let caps = &body["result"]["capabilities"];
    assert!(caps["prompts"].is_object(), "{body}");
    assert!(caps["completions"].is_object(), "{body}");

    let (_, _, body) = send(&app, rpc("/mcp", "prompts/list", json!({}))).await;
    let result = &body["result"];
    assert_eq!(result["ttlMs"], 3_600_000, "{body}");
    assert_eq!(result["cacheScope"], "public", "{body}");
    let prompt = &result["prompts"][0];
    assert_eq!(prompt["name"], "demo_customer_open_items");
    assert_eq!(prompt["title"], "Open items of a customer");
    assert_eq!(prompt["arguments"][0]["name"], "company_id");
    assert_eq!(prompt["arguments"][0]["required"], true);
    assert!(
        prompt["arguments"][0]["description"]
            .as_str()
            .unwrap()
            .contains("integer from 1"),
        "{prompt}"
    );

    let get = json!({"name": "demo_customer_open_items", "arguments": {"company_id": "101"}});
    let (_, _, body) = send(&app, rpc("/mcp", "prompts/get", get)).await;
    let message = &body["result"]["messages"][0];
    assert_eq!(message["role"], "user", "{body}");
    assert_eq!(
        message["content"]["text"],
        "Call demo_open_items_get with company_id 101 and list what is unpaid."
    );
}

#[tokio::test]
async fn prompt_arguments_are_validated_like_tool_arguments() {
    let app = app("127.0.0.1:1", &[]);
    for (args, names) in [
        (json!({}), "Missing required argument `company_id`"),
        (json!({"company_id": "zero"}), "`company_id`"),
        (json!({"company_id": "0"}), "`company_id`"),
        (
            json!({"company_id": "1", "companyid": "1"}),
            "Did you mean `company_id`?",
        ),
    ] {
        let get = json!({"name": "demo_customer_open_items", "arguments": args});
        let (_, _, body) = send(&app, rpc("/mcp", "prompts/get", get)).await;
        assert_eq!(body["error"]["code"], -32602, "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(names), "{args}: {message}");
        assert_eq!(body["error"]["data"]["status"], "invalid_input");
    }
    let get = json!({"name": "demo_nope", "arguments": {}});
    let (_, _, body) = send(&app, rpc("/mcp", "prompts/get", get)).await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Prompt not found"),
        "{body}"
    );
}

#[tokio::test]
async fn a_profile_sees_only_prompts_whose_tools_it_may_call() {
    let env = [(
        "MCP_PROFILES",
        "lookup=demo/*companies*,demo/company_get;dunning=demo/*",
    )];
    let app = app("127.0.0.1:1", &env);
    let (_, _, body) = send(&app, rpc("/mcp/lookup", "prompts/list", json!({}))).await;
    assert_eq!(body["result"]["prompts"], json!([]), "{body}");
    assert_eq!(body["result"]["cacheScope"], "private", "{body}");
    let get = json!({"name": "demo_customer_open_items", "arguments": {"company_id": "1"}});
    let (_, _, body) = send(&app, rpc("/mcp/lookup", "prompts/get", get.clone())).await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    let (_, _, body) = send(
        &app,
        rpc("/mcp/lookup", "completion/complete", complete_prompt("A")),
    )
    .await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    let (_, _, body) = send(&app, rpc("/mcp/dunning", "prompts/get", get)).await;
    assert!(body["result"]["messages"].is_array(), "{body}");
}

#[tokio::test]
async fn a_completion_asks_the_upstream_once_then_answers_from_its_cache() {
    let (host, hits) = upstream().await;
    let app = app(&host, &[]);
    let (_, _, body) = send(
        &app,
        rpc("/mcp", "completion/complete", complete_prompt("ac")),
    )
    .await;
    let completion = &body["result"]["completion"];
    assert_eq!(
        completion["values"],
        json!(["101 · Acme GmbH", "103 · acme labs"]),
        "{body}"
    );
    assert_eq!(completion["total"], 2);
    assert_eq!(completion["hasMore"], false);
    assert_eq!(hits.load(Ordering::SeqCst), 1);

    // The next keystrokes, and the resource template's variable, read the same page.
    let (_, _, body) = send(
        &app,
        rpc("/mcp", "completion/complete", complete_prompt("Mü")),
    )
    .await;
    assert_eq!(
        body["result"]["completion"]["values"],
        json!(["102 · Bäckerei Müller"]),
        "{body}"
    );
    let resource = json!({"ref": {"type": "ref/resource", "uri": "demo://companies/{id}"},
                          "argument": {"name": "id", "value": "acme"}});
    let (_, _, body) = send(&app, rpc("/mcp", "completion/complete", resource)).await;
    assert_eq!(
        body["result"]["completion"]["values"],
        json!(["101 · Acme GmbH", "103 · acme labs"]),
        "{body}"
    );
    assert_eq!(
        hits.load(Ordering::SeqCst),
        1,
        "one upstream request for all three"
    );

    let lines: Vec<Value> = app
        .audit
        .lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|l: &Value| l["tool"] == "demo_companies_list")
        .collect();
    let reasons: Vec<&str> = lines.iter().filter_map(|l| l["reason"].as_str()).collect();
    assert_eq!(
        reasons,
        ["completion", "completion_cached", "completion_cached"],
        "{lines:?}"
    );
    assert_eq!(lines[0]["tool"], "demo_companies_list");
}

/// What a completion offers (`101 · Acme GmbH`) is a valid argument wherever the param declares
/// the completion: a tool call, a resource URI (as sent or percent-encoded) and a prompt each
/// reach the upstream, or the prompt's text, with the bare id; the form without an id is
/// refused as before.
#[tokio::test]
async fn a_completed_value_is_a_valid_argument_that_goes_up_as_the_bare_id() {
    let (host, _, paths) = recording_upstream().await;
    let app = app(&host, &[]);
    let (_, _, body) = send(
        &app,
        rpc("/mcp", "completion/complete", complete_prompt("acme g")),
    )
    .await;
    let offered = body["result"]["completion"]["values"][0]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(offered, "101 · Acme GmbH", "{body}");

    let call = json!({"name": "demo_company_get", "arguments": {"id": offered}});
    let (_, _, body) = send(&app, rpc("/mcp", "tools/call", call)).await;
    assert_eq!(
        body["result"]["structuredContent"]["status"], "ok",
        "{body}"
    );
    for uri in [
        "demo://companies/101 · Acme GmbH",
        "demo://companies/101%20%C2%B7%20Acme%20GmbH",
    ] {
        let read = json!({"uri": uri});
        let (_, _, body) = send(&app, rpc("/mcp", "resources/read", read)).await;
        assert!(body["result"]["contents"].is_array(), "{uri}: {body}");
    }
    assert_eq!(
        *paths.lock().unwrap(),
        ["/api/v1/contact/companies/101"; 3],
        "the upstream gets the bare id every time"
    );

    let get = json!({"name": "demo_customer_open_items", "arguments": {"company_id": offered}});
    let (_, _, body) = send(&app, rpc("/mcp", "prompts/get", get)).await;
    let text = body["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("company_id 101 and"), "{text}");

    let call = json!({"name": "demo_company_get", "arguments": {"id": "Acme GmbH"}});
    let (_, _, body) = send(&app, rpc("/mcp", "tools/call", call)).await;
    assert_eq!(
        body["result"]["structuredContent"]["status"], "invalid_input",
        "{body}"
    );
    assert_eq!(
        paths.lock().unwrap().len(),
        3,
        "nothing sent for a bare name"
    );
}

#[tokio::test]
async fn a_completion_against_a_failing_upstream_is_an_error_with_its_status() {
    let app = app("127.0.0.1:1", &[]);
    let (_, _, body) = send(
        &app,
        rpc("/mcp", "completion/complete", complete_prompt("A")),
    )
    .await;
    let error = &body["error"];
    assert_eq!(error["code"], -32603, "{body}");
    assert_eq!(error["data"]["status"], "unavailable", "{body}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("Completion unavailable (unavailable):"),
        "{body}"
    );
    // An argument without a completion offers nothing, without asking anyone.
    let other = json!({"ref": {"type": "ref/prompt", "name": "demo_customer_open_items"},
                       "argument": {"name": "nothing", "value": "x"}});
    let (_, _, body) = send(&app, rpc("/mcp", "completion/complete", other)).await;
    assert_eq!(body["result"]["completion"]["values"], json!([]), "{body}");
}

#[tokio::test]
async fn a_completion_spends_the_callers_budget_only_when_it_asks_the_upstream() {
    let (host, hits) = upstream().await;
    let catalogs = vec![
        catalog::parse(
            "demo.yaml",
            &CATALOG.replace(
                "timeout_ms: 2000\n",
                "timeout_ms: 2000\nquota: { caller_daily_budget: 1 }\n",
            ),
        )
        .unwrap(),
    ];
    let env = [("MCP_PROFILES", "one=demo/*;two=demo/*")];
    let app = app_with(
        &env,
        catalogs,
        demo_secrets(&[("tester", KEY)], &host, None),
    );
    let (_, _, body) = send(
        &app,
        rpc("/mcp/one", "completion/complete", complete_prompt("a")),
    )
    .await;
    assert_eq!(
        body["result"]["completion"]["values"],
        json!(["101 · Acme GmbH", "103 · acme labs"]),
        "{body}"
    );
    // The day's one request is spent; the cache still answers, and asks nobody.
    let (_, _, body) = send(
        &app,
        rpc("/mcp/one", "completion/complete", complete_prompt("b")),
    )
    .await;
    assert_eq!(
        body["result"]["completion"]["values"],
        json!(["102 · Bäckerei Müller"]),
        "{body}"
    );
    // Another scope has no page cached: it would need the upstream, and the budget says no.
    let (_, _, body) = send(
        &app,
        rpc("/mcp/two", "completion/complete", complete_prompt("a")),
    )
    .await;
    assert_eq!(body["error"]["code"], -32603, "{body}");
    assert_eq!(body["error"]["data"]["status"], "rate_limited", "{body}");
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn without_prompts_or_completions_neither_capability_nor_method_exists() {
    let app = app_with(
        &[],
        crate::common::demo_catalogs(),
        demo_secrets(&[("tester", KEY)], "127.0.0.1:1", None),
    );
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "t", "version": "1"}});
    let (_, _, body) = send(&app, rpc("/mcp", "initialize", init)).await;
    let caps = &body["result"]["capabilities"];
    assert!(caps["tools"].is_object(), "{body}");
    assert!(
        caps.get("prompts").is_none() && caps.get("completions").is_none(),
        "{body}"
    );
    for (method, params) in [
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": "demo_x"})),
        ("completion/complete", complete_prompt("a")),
    ] {
        let (_, _, body) = send(&app, rpc("/mcp", method, params)).await;
        assert_eq!(body["error"]["code"], -32601, "{method}: {body}");
    }
}
