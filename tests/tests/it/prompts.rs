//! Prompts and completions end to end: the Papierkram catalog's prompts and the company
//! completion against the sandbox, through the official Python SDK in both protocol
//! generations and the MCP Inspector (its one-shot CLI for prompts, its connection CLI `mcpdo`
//! for completions), a completion against a failing upstream, and the figures: the size of
//! `prompts/list` and what a completion costs with and without its cache (printed, never
//! asserted on time).

use std::process::Command;
use std::time::Instant;

use integration_tests::{
    KEY, Rpc, python_client, repo, start_papierkram_server, start_server_on_sandbox,
};
use papierkram_sandbox::demo;
use serde_json::{Value, json};

const TOKEN: &str = "prompts-token";
const PROMPTS: [&str; 3] = [
    "papierkram_month_close_review",
    "papierkram_customer_open_items",
    "papierkram_invoice_draft",
];

/// A demo customer and the first word of its name, which completes to it first (a name
/// starting with the typed text ranks before one with a later word that does).
fn a_customer() -> (u64, String) {
    let company = &demo().companies[0];
    let word = company.name.split(' ').next().unwrap_or_default();
    (company.id, word.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_lists_gets_and_completes_prompts_in_both_protocol_generations() {
    let (server, _sandbox) = start_server_on_sandbox(TOKEN, &[]).await;
    let (id, word) = a_customer();
    let complete_prompt = format!("prompt:papierkram_customer_open_items company_id={word}");
    let complete_resource = format!("resource:papierkram://companies/{{id}} id={word}");
    let get = format!(r#"papierkram_customer_open_items={{"company_id": {id}}}"#);
    for (era, version) in [("handshake", "2025-11-25"), ("modern", "2026-07-28")] {
        let doc = python_client(
            &server.url,
            &[
                "--era",
                era,
                "--prompt",
                &get,
                "--prompt",
                r#"papierkram_month_close_review={"year": 2026, "month": 13}"#,
                "--complete",
                &complete_prompt,
                "--complete",
                &complete_resource,
            ],
        )
        .1;
        assert_eq!(doc["server"]["protocol_version"], version, "{doc}");
        let caps = &doc["server"]["capabilities"];
        assert!(
            caps["prompts"].is_object() && caps["completions"].is_object(),
            "{doc}"
        );
        let names: Vec<&str> = doc["prompts"]
            .as_array()
            .unwrap_or_else(|| panic!("{doc}"))
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        assert_eq!(names, PROMPTS, "{doc}");

        let rendered = &doc["prompt_results"][0]["messages"][0];
        assert_eq!(rendered["role"], "user", "{doc}");
        let text = rendered["text"].as_str().unwrap();
        assert!(
            text.contains(&format!("papierkram_open_items_get with company_id {id}")),
            "{text}"
        );
        let refused = &doc["prompt_results"][1]["error"];
        assert_eq!(refused["code"], -32602, "{doc}");
        assert_eq!(refused["data"]["status"], "invalid_input", "{doc}");
        assert!(
            refused["message"].as_str().unwrap().contains("`month`"),
            "{doc}"
        );

        // Each value shows the customer's name beside its id.
        let offered = format!("{id} · {}", demo().companies[0].name);
        for completion in doc["completions"].as_array().unwrap() {
            assert_eq!(completion["values"][0], offered, "{doc}");
            assert_eq!(completion["has_more"], false, "{doc}");
        }
    }
    // Both generations, both references, four completions: one upstream request.
    let lines = server.stdout.events_where(4, |e| {
        e["tool"] == "papierkram_companies_list"
            && e["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("completion"))
    });
    let asked = lines.iter().filter(|e| e["reason"] == "completion").count();
    assert_eq!(asked, 1, "{lines:?}");
}

fn inspector(script: &str, url: &str, env: &[(&str, &str)], args: &[&str]) -> (i32, String) {
    let out = Command::new(repo().join("tests/clients").join(script))
        .arg(url)
        .arg(KEY)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run inspector");
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn json_of(out: &str) -> Value {
    let start = out.find('{').unwrap_or_else(|| panic!("no JSON in {out}"));
    serde_json::Deserializer::from_str(&out[start..])
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("no JSON in {out}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspector_lists_gets_and_completes_prompts() {
    let (server, _sandbox) = start_server_on_sandbox(TOKEN, &[]).await;
    let (code, out) = inspector("inspector.sh", &server.url, &[], &["prompts/list"]);
    assert_eq!(code, 0, "{out}");
    let listed = json_of(&out);
    let names: Vec<&str> = listed["result"]["prompts"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, PROMPTS);

    let (code, out) = inspector(
        "inspector.sh",
        &server.url,
        &[],
        &[
            "prompts/get",
            "--prompt-name",
            "papierkram_month_close_review",
            "--prompt-args",
            "year=2026",
            "month=5",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let got = json_of(&out);
    let text = got["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{got}"));
    assert!(
        text.contains("papierkram_month_close_get with year 2026 and month 5"),
        "{text}"
    );

    let (id, word) = a_customer();
    for era in ["legacy", "modern"] {
        let (code, out) = inspector(
            "inspector_session.sh",
            &server.url,
            &[("MCPDO_ERA", era)],
            &[
                "prompts/complete",
                "--complete-ref-type",
                "ref/prompt",
                "--complete-ref",
                "papierkram_customer_open_items",
                "--complete-arg-name",
                "company_id",
                "--complete-arg-value",
                &word,
            ],
        );
        assert_eq!(code, 0, "{out}");
        assert_eq!(
            json_of(&out)["values"],
            json!([format!("{id} · {}", demo().companies[0].name)]),
            "{era}: {out}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completion_against_a_failing_upstream_says_why() {
    // Its upstream an address where nothing answers.
    let server = start_papierkram_server("http://127.0.0.1:1/api/v1", TOKEN, &[]);
    let doc = python_client(
        &server.url,
        &[
            "--complete",
            "prompt:papierkram_customer_open_items company_id=A",
        ],
    )
    .1;
    let error = &doc["completions"][0]["error"];
    assert_eq!(error["code"], -32603, "{doc}");
    assert_eq!(error["data"]["status"], "unavailable", "{doc}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("Completion unavailable (unavailable): "),
        "{message}"
    );

    let (code, out) = inspector(
        "inspector_session.sh",
        &server.url,
        &[],
        &[
            "prompts/complete",
            "--complete-ref-type",
            "ref/resource",
            "--complete-ref",
            "papierkram://companies/{id}",
            "--complete-arg-name",
            "id",
            "--complete-arg-value",
            "1",
        ],
    );
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains("Completion unavailable (unavailable)"),
        "{out}"
    );
    let event = server.stdout.event_for("papierkram_companies_list");
    assert_eq!(event["status"], "unavailable", "{event}");
}

/// The figures the issue asks for: `prompts/list` bytes, and a completion's upstream requests
/// and latency without its cache (each profile's first, a scope of its own) and with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn figures_prompt_list_size_and_completion_cost() {
    const SCOPES: usize = 10;
    let profiles: Vec<String> = (0..SCOPES).map(|i| format!("p{i}=papierkram/*")).collect();
    let profiles = profiles.join(";");
    let (server, _sandbox) = start_server_on_sandbox(TOKEN, &[("MCP_PROFILES", &profiles)]).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/list"});
    let bytes = Rpc::new(&server.url)
        .post(list, &[])
        .await
        .bytes()
        .await
        .unwrap()
        .len();
    let (_, word) = a_customer();
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "completion/complete", "params": {
        "ref": {"type": "ref/prompt", "name": "papierkram_customer_open_items"},
        "argument": {"name": "company_id", "value": word}}});
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    for i in 0..SCOPES {
        let rpc = Rpc::new(&format!("{}/p{i}", server.url));
        for round in 0..5 {
            let started = Instant::now();
            let reply: Value = rpc.post(body.clone(), &[]).await.json().await.unwrap();
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            assert!(
                reply["result"]["completion"]["values"].is_array(),
                "{reply}"
            );
            if round == 0 {
                cold.push(ms)
            } else {
                warm.push(ms)
            }
        }
    }
    let lines = server.stdout.events_where(SCOPES * 5, |e| {
        e["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("completion"))
    });
    let asked = lines.iter().filter(|e| e["reason"] == "completion").count();
    assert_eq!(asked, SCOPES, "one upstream request per scope");
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "figures: prompts/list {bytes} B (whole JSON-RPC reply, 3 prompts); completion without \
         cache: 1 upstream request, median {:.1} ms over {SCOPES}; with cache: 0 upstream \
         requests, median {:.1} ms over {}",
        median(&mut cold),
        median(&mut warm),
        warm.len()
    );
}
