//! Records as resources, end to end against the sandbox, in both protocol generations (a
//! 2025-11-25 request, and a stateless 2026-07-28 one with its `_meta` and headers):
//! templates listed per scope, a record read through the tool's runtime (quota, audit line),
//! and an unknown id, a URI of no template and a record outside the caller's profile all get
//! the same not-found answer.

use integration_tests::{Rpc, start_server_on_sandbox};
use papierkram_sandbox::demo;
use serde_json::{Value, json};

const TOKEN: &str = "resources-token";

#[derive(Clone, Copy)]
enum Era {
    V2025,
    V2026,
}

async fn rpc(rpc: &Rpc, era: Era, method: &str, params: Value) -> Value {
    match era {
        Era::V2025 => {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
            rpc.post(body, &[]).await.json().await.unwrap()
        }
        // 2026-07-28 names the method, and for a read its URI, in headers too.
        Era::V2026 => {
            let uri = params["uri"].as_str().map(str::to_string);
            rpc.modern(method, uri.as_deref(), params, json!({})).await
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_are_resources_in_both_protocol_generations() {
    let (server, sandbox) =
        start_server_on_sandbox(TOKEN, &[("MCP_PROFILES", "contacts=papierkram/compan*")]).await;
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
