//! Records as resources, end to end against the sandbox, in both protocol generations (a
//! 2025-11-25 request, and a stateless 2026-07-28 one with its `_meta` and headers):
//! templates listed per scope, a record read through the tool's runtime (quota, audit line),
//! and an unknown id, a URI of no template and a record outside the caller's profile all get
//! the same not-found answer.

use integration_tests::{KEY, Rpc, Server};
use papierkram_sandbox::{SandboxState, demo};
use serde_json::{Value, json};

const TOKEN: &str = "resources-token";

#[derive(Clone, Copy)]
enum Era {
    V2025,
    V2026,
}

async fn rpc(rpc: &Rpc, era: Era, method: &str, params: Value) -> Value {
    let (version, mut params) = match era {
        Era::V2025 => ("2025-11-25", params),
        Era::V2026 => ("2026-07-28", params),
    };
    let mut headers: Vec<(&str, String)> = vec![];
    if let Era::V2026 = era {
        // 2026-07-28 names the method, and for a read its URI, in headers too.
        if let Some(uri) = params["uri"].as_str() {
            headers.push(("mcp-name", uri.to_string()));
        }
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "resources-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        headers.push(("mcp-method", method.to_string()));
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = rpc
        .http
        .post(&rpc.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", version)
        .bearer_auth(rpc.key.as_deref().unwrap())
        .body(body.to_string());
    let response = headers
        .into_iter()
        .fold(response, |r, (k, v)| r.header(k, v))
        .send()
        .await
        .unwrap();
    response.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_are_resources_in_both_protocol_generations() {
    let sandbox = SandboxState::new(TOKEN);
    let (addr, _h) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
    let server = Server::start(
        &[],
        &[
            ("MCP_API_KEYS", &format!("e2e:{KEY}")),
            ("MCP_PROFILES", "contacts=papierkram/compan*"),
            ("PAPIERKRAM_BASE_URL", &format!("http://{addr}/api/v1")),
            ("PAPIERKRAM_TOKEN", TOKEN),
            ("PAPIERKRAM_SUBDOMAIN", "sandbox"),
        ],
    );
    let all = Rpc::new(&server.url);
    let contacts = Rpc::new(&format!("{}/contacts", server.url));
    let invoice = &demo().invoices[0];
    let uri = format!("papierkram://invoices/{}", invoice.id);

    for era in [Era::V2025, Era::V2026] {
        let list = rpc(&all, era, "resources/templates/list", json!({})).await;
        let templates: Vec<&str> = list["result"]["resourceTemplates"]
            .as_array()
            .unwrap_or_else(|| panic!("{list}"))
            .iter()
            .map(|t| t["uriTemplate"].as_str().unwrap())
            .collect();
        assert!(templates.contains(&"papierkram://invoices/{id}"), "{list}");
        assert!(templates.contains(&"papierkram://companies/{company_id}/contact_persons/{id}"));
        assert!(list["result"]["ttlMs"].as_u64().unwrap() > 0, "{list}");
        assert_eq!(
            list["result"]["cacheScope"], "private",
            "lists depend on the profile"
        );
        let scoped = rpc(&contacts, era, "resources/templates/list", json!({})).await;
        let scoped: Vec<&str> = scoped["result"]["resourceTemplates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["uriTemplate"].as_str().unwrap())
            .collect();
        assert_eq!(scoped, ["papierkram://companies/{id}"]);

        let before = sandbox.request_count();
        let read = rpc(&all, era, "resources/read", json!({"uri": uri})).await;
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["uri"], json!(uri), "{read}");
        assert_eq!(contents["mimeType"], "application/json");
        let record: Value = serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
        assert_eq!(record["status"], "ok");
        assert_eq!(record["data"]["id"], json!(invoice.id));
        assert!(record["_quota"]["remaining"].is_number(), "{record}");
        assert_eq!(read["result"]["cacheScope"], "private");
        assert!(read["result"]["ttlMs"].as_u64().unwrap() > 0);
        assert_eq!(sandbox.request_count(), before + 1, "one upstream request");

        // Unknown id, no template, outside the profile: one answer, nothing to tell apart.
        let mut answers = Vec::new();
        for (who, uri) in [
            (&all, "papierkram://invoices/99999999".to_string()),
            (&all, "papierkram://invoices/1/../2".to_string()),
            (&all, "file:///etc/passwd".to_string()),
            (&contacts, uri.clone()),
        ] {
            let reply = rpc(who, era, "resources/read", json!({"uri": uri})).await;
            // Resource not found: -32002 in 2025-11-25, -32602 (invalid params) in 2026-07-28.
            let code = match era {
                Era::V2025 => -32002,
                Era::V2026 => -32602,
            };
            assert_eq!(reply["error"]["code"], code, "{uri}: {reply}");
            assert_eq!(
                reply["error"]["data"]["uri"],
                json!(uri),
                "the client's own URI"
            );
            answers.push(reply["error"]["message"].clone());
        }
        assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
    }

    // Each read has its audit line: the tool's own, or an unknown resource (no URI logged).
    let reads = server
        .stdout
        .events_where(4, |e| e["tool"] == "papierkram_invoice_get");
    assert_eq!(reads.len(), 4, "two reads and two not-found ids");
    let unknown = server
        .stdout
        .events_where(6, |e| e["reason"] == "unknown_resource");
    assert_eq!(unknown.len(), 6);
    let events = server.stdout.events();
    assert!(!events.iter().any(|e| e.to_string().contains("passwd")));
}
