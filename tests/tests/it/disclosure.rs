//! Progressive disclosure at scale, end to end: a server with 5,000 tools over 50 connectors
//! lists a small set, and a client finds any tool with `search_tools` and calls it with
//! `call_tool` — two calls.

use std::fmt::Write as _;

use integration_tests::{KEY, Rpc, Server, TempDir, structured};
use papierkram_sandbox::SandboxState;
use serde_json::json;

const CONNECTORS: usize = 50;
const TOOLS_PER_CONNECTOR: usize = 100;
const TOKEN: &str = "scale-token";

const DOMAINS: [&str; 10] = [
    "billing", "crm", "helpdesk", "calendar", "mail", "hr", "stock", "fleet", "wiki", "sales",
];
const THINGS: [&str; 20] = [
    "invoice",
    "contract",
    "ticket",
    "meeting",
    "message",
    "employee",
    "article",
    "vehicle",
    "page",
    "lead",
    "payment",
    "contact",
    "incident",
    "room",
    "folder",
    "absence",
    "warehouse",
    "trip",
    "space",
    "offer",
];
const VERBS: [&str; 5] = ["list", "get", "search", "archive", "create"];

/// 50 catalog files of 100 tools each; only the first tool of the first 5 connectors is core.
fn write_catalogs(dir: &std::path::Path) {
    for c in 0..CONNECTORS {
        let domain = DOMAINS[c % DOMAINS.len()];
        let mut yaml = format!(
            "connector: {domain}{c}\nbase_url: \"https://{domain}{c}.example.invalid/api/v1\"\nsecrets: [token]\n\
             auth: {{ bearer: token }}\nhealth: {{ get: /info }}\ntools:\n"
        );
        for t in 0..TOOLS_PER_CONNECTOR {
            let thing = THINGS[t % THINGS.len()];
            let verb = VERBS[(t / THINGS.len()) % VERBS.len()];
            let name = format!("{domain}{c}_{thing}{t}_{verb}");
            let core = c < 5 && t == 0;
            let _ = write!(
                yaml,
                "  - name: {name}\n    core: {core}\n    risk: low\n    description: >-\n      \
                 {verb} {thing} number {t} of the {domain} system {c} (Datensatz {thing}{t}, \
                 record {thing}{t}). Use it for questions about {thing}{t} in {domain}{c}. Example: {{}}\n    \
                 get: /info\n"
            );
        }
        std::fs::write(dir.join(format!("{domain}{c}.yaml")), yaml).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_thousand_tools_a_small_list_and_any_tool_in_two_calls() {
    let (addr, _h) = papierkram_sandbox::spawn(SandboxState::new(TOKEN))
        .await
        .unwrap();
    let dir = TempDir::new("hosted-mcp-scale");
    write_catalogs(&dir.path);
    let base = format!("http://{addr}/api/v1");
    let mut env: Vec<(String, String)> = vec![("MCP_API_KEYS".into(), format!("e2e:{KEY}"))];
    for c in 0..CONNECTORS {
        let upper = format!("{}{c}", DOMAINS[c % DOMAINS.len()]).to_ascii_uppercase();
        env.push((format!("{upper}_BASE_URL"), base.clone()));
        env.push((format!("{upper}_TOKEN"), TOKEN.into()));
    }
    let env_refs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let server = Server::start(&["--catalog", dir.path.to_str().unwrap()], &env_refs);
    let rpc = Rpc::new(&server.url);

    // A small list: 5 core tools plus the two meta tools.
    let listed = rpc.list().await;
    assert_eq!(listed.len(), 7, "{listed:?}");
    assert!(listed.ends_with(&["search_tools".to_string(), "call_tool".to_string()]));

    // Any tool, two calls: search, then call what search found.
    for (c, t) in [(7, 13), (33, 71), (49, 99)] {
        let domain = DOMAINS[c % DOMAINS.len()];
        let thing = THINGS[t % THINGS.len()];
        let expected = format!(
            "{domain}{c}_{thing}{t}_{}",
            VERBS[(t / THINGS.len()) % VERBS.len()]
        );
        let found = rpc
            .call(
                "search_tools",
                json!({"query": format!("{thing}{t} {domain}{c}"), "limit": "3"}),
            )
            .await;
        let text = found["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.contains(&expected),
            "search did not find {expected}:\n{text}"
        );
        assert!(text.len() < 50 * 1024);
        let called = rpc
            .call("call_tool", json!({"name": expected, "arguments": {}}))
            .await;
        assert_eq!(structured(&called)["status"], "ok", "{called}");
    }

    // The worst case, everything matching, stays small.
    let all = rpc.call("search_tools", json!({"query": "system"})).await;
    let text = all["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.len() < 2048, "{} bytes", text.len());
    assert!(text.contains("5,000"), "{text}");
}
