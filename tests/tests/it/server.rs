//! End to end: the real server process with the test catalog against the sandbox upstream.
//! Status results with hints, quota pass-through, no upstream headers, no PII anywhere.

use std::time::Duration;

use integration_tests::{KEY, Rpc, Server, repo, structured};
use papierkram_sandbox::{Fault, SandboxState};
use serde_json::json;

const TOKEN: &str = "upstream-token-s3cr3t-value";
const EMAIL: &str = "alice.planted@example.com";

async fn setup() -> (Server, SandboxState, Rpc) {
    let sandbox = SandboxState::new(TOKEN);
    let (addr, _handle) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
    let catalog = repo().join("tests/catalogs");
    let host = addr.to_string();
    let server = Server::start(
        &["--catalog", catalog.to_str().unwrap()],
        &[
            ("MCP_API_KEYS", &format!("e2e:{KEY}")),
            // Open WebUI's forwarded user header, trusted from this key.
            ("MCP_USER_HEADER_KEYS", "e2e"),
            (
                "MCP_PSEUDONYM_PEPPER",
                "pepper-planted-value-0123456789abcdef",
            ),
            ("DEMO_HOST", &host),
            ("DEMO_TOKEN", TOKEN),
        ],
    );
    let rpc = Rpc::new(&server.url);
    (server, sandbox, rpc)
}

#[tokio::test]
async fn list_call_passes_quota_and_drops_upstream_headers() {
    let (server, sandbox, rpc) = setup().await;
    let response = rpc
        .post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "demo_invoices_list", "arguments": {"page_size": "5", "fields": ["id", "total_gross"]}}}),
            &[],
        )
        .await;
    assert!(
        response.headers().get("set-cookie").is_none(),
        "upstream cookie leaked"
    );
    assert!(
        response.headers().get("x-remaining-quota").is_none(),
        "upstream header leaked"
    );
    let reply: serde_json::Value = response.json().await.unwrap();
    let result = structured(&reply);
    assert_eq!(result["status"], "ok", "{reply}");
    assert_eq!(result["items"].as_array().unwrap().len(), 5);
    assert_eq!(
        result["items"][0].as_object().unwrap().len(),
        2,
        "fields projection"
    );
    assert_eq!(result["total"], json!(papierkram_sandbox::INVOICE_COUNT));
    let remaining = sandbox.quota().remaining;
    assert_eq!(result["_quota"]["remaining"], json!(remaining));
    assert_eq!(result["_quota"]["limit"], json!(10_000));
    let event = server.stdout.event_for("demo_invoices_list");
    assert_eq!(event["status"], "ok");
    assert_eq!(event["quota_remaining"], json!(remaining));
    assert_eq!(event["arg_keys"], json!(["fields", "page_size"]));
    let upstream = sandbox.last_requests(1);
    assert!(
        upstream[0]
            .query
            .as_deref()
            .unwrap_or("")
            .contains("page_size=5"),
        "{:?}",
        upstream[0]
    );
}

#[tokio::test]
async fn count_only_returns_just_the_count() {
    let (_server, _sandbox, rpc) = setup().await;
    let reply = rpc
        .call("demo_invoices_list", json!({"count_only": true}))
        .await;
    assert_eq!(
        structured(&reply),
        &json!({"status": "ok", "count": papierkram_sandbox::INVOICE_COUNT,
        "_quota": structured(&reply)["_quota"].clone()})
    );
}

#[tokio::test]
async fn upstream_404_is_not_found_with_a_hint_naming_the_list_tool() {
    let (_server, _sandbox, rpc) = setup().await;
    let reply = rpc
        .call("demo_invoice_get", json!({"id": 99_999_999}))
        .await;
    let result = structured(&reply);
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(result["status"], "not_found", "{reply}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("demo_invoices_list") && hint.contains("API itself is up"),
        "{hint}"
    );
}

#[tokio::test]
async fn upstream_5xx_and_timeouts_are_unavailable_with_retry_advice() {
    let (_server, sandbox, rpc) = setup().await;
    sandbox.inject_fault(Fault::status("/api/v1/info", 503).times(1));
    let reply = rpc.call("demo_info_get", json!({})).await;
    assert_eq!(structured(&reply)["status"], "unavailable", "{reply}");
    assert!(
        structured(&reply)["hint"]
            .as_str()
            .unwrap()
            .contains("retry")
    );

    sandbox.inject_fault(Fault::delay("/api/v1/info", Duration::from_secs(5)).times(1));
    let reply = rpc.call("demo_info_get", json!({})).await;
    assert_eq!(structured(&reply)["status"], "unavailable", "{reply}");
    assert!(
        structured(&reply)["hint"]
            .as_str()
            .unwrap()
            .contains("did not answer")
    );
}

#[tokio::test]
async fn upstream_429_is_rate_limited_with_retry_time() {
    let (_server, sandbox, rpc) = setup().await;
    sandbox.inject_fault(Fault::status("/api/v1/info", 429).times(1));
    let reply = rpc.call("demo_info_get", json!({})).await;
    let result = structured(&reply);
    assert_eq!(result["status"], "rate_limited", "{reply}");
    assert!(
        result["hint"].as_str().unwrap().contains("retry after"),
        "{result}"
    );
}

#[tokio::test]
async fn exhausted_quota_says_so() {
    let (_server, sandbox, rpc) = setup().await;
    sandbox.set_quota_remaining(0);
    let reply = rpc.call("demo_info_get", json!({})).await;
    let result = structured(&reply);
    assert_eq!(result["status"], "rate_limited", "{reply}");
    assert!(
        result["hint"]
            .as_str()
            .unwrap()
            .contains("quota is used up"),
        "{result}"
    );
    // The sandbox's Retry-After runs to the end of the month: the hint says when, in words.
    assert!(
        result["hint"].as_str().unwrap().contains("; it resets in "),
        "{result}"
    );
    assert_eq!(result["_quota"]["remaining"], 0);
}

#[tokio::test]
async fn health_reports_each_connector_without_a_key_from_a_cached_probe() {
    let (server, sandbox, rpc) = setup().await;
    let health = |rpc: &Rpc| rpc.http.get(format!("{}/health", server.base())).send();
    sandbox.inject_fault(Fault::status("/api/v1/info", 500).times(1));
    let before = sandbox.request_count();
    let response = health(&rpc).await.unwrap();
    assert_eq!(response.status(), 503);
    let bad: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        bad,
        json!({"ok": false, "connectors": {"demo": "http_500"}})
    );
    // The fault is over, but monitors get the cached round for a minute: no more upstream
    // requests, however many of them call.
    for _ in 0..20 {
        assert_eq!(health(&rpc).await.unwrap().status(), 503);
    }
    assert_eq!(sandbox.request_count() - before, 1);
}

/// Plants a token, an e-mail address and a secret value in arguments, headers and upstream
/// error bodies, runs calls, and checks none of them appears in any output.
#[tokio::test]
async fn no_pii_and_no_secrets_in_any_output() {
    let (server, sandbox, rpc) = setup().await;
    let planted_token = "Bearer sk-live-PLANTEDTOKEN123456";
    let mut replies = String::new();
    // In arguments (a bad value and an unknown key), with an identity header.
    for args in [
        json!({"document_date_from": EMAIL}),
        json!({"note": planted_token, "email": EMAIL}),
        json!({"document_date_from": TOKEN}),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "demo_invoices_list", "arguments": args}});
        let r = rpc.post(body, &[("x-user-email", EMAIL)]).await;
        replies.push_str(&r.text().await.unwrap());
    }
    // In upstream error bodies: the sandbox's 422 echoes the bad `order_by` value back.
    for planted in [planted_token, EMAIL, TOKEN] {
        let reply = rpc
            .call("demo_invoices_list", json!({ "order_by": planted }))
            .await;
        assert_eq!(structured(&reply)["status"], "invalid_input", "{reply}");
        assert!(
            structured(&reply)["upstream_message"]
                .as_str()
                .unwrap()
                .contains("cannot order by")
        );
        replies.push_str(&reply.to_string());
    }
    assert_eq!(
        sandbox.request_count(),
        3,
        "the planted values reached the upstream"
    );
    // In a rejected key.
    let mut bad = Rpc::new(&server.url);
    bad.key = Some(format!("{TOKEN}-wrong"));
    replies.push_str(
        &bad.post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            &[],
        )
        .await
        .text()
        .await
        .unwrap(),
    );

    // The rejected key's audit line is the last one this test causes.
    server
        .stdout
        .events_where(1, |e| e["event"] == "auth_denied");
    let planted_values = [
        EMAIL,
        TOKEN,
        "PLANTEDTOKEN",
        "pepper-planted-value-0123456789abcdef",
        KEY,
    ];
    let outputs = [server.stdout.joined(), server.stderr.joined()];
    for (name, text) in [("stdout", &outputs[0]), ("stderr", &outputs[1])] {
        for planted in planted_values {
            assert!(
                !text.contains(planted),
                "{planted} leaked into {name}:\n{text}"
            );
        }
    }
    for planted in planted_values {
        assert!(
            !replies.contains(planted),
            "{planted} leaked into a reply:\n{replies}"
        );
    }
    // The pseudonym is there instead of the address.
    let pseudonymous = server.stdout.events_where(1, |e| {
        e["user"].as_str().is_some_and(|u| u.starts_with("u_"))
    });
    assert!(!pseudonymous.is_empty());
}
