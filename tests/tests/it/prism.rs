//! The shipped Papierkram catalog against Prism serving `shared/connector/openapi/papierkram.yaml`
//! with request validation on: every tool the platform can call (reads, aggregations and writes
//! through their confirmation), with every parameter and with only the required ones, sends
//! requests the document accepts (path, query, bearer header, body), and every operation of the
//! document is used; a catalog that breaks the document fails
//! and Prism names the violation; Prism's `Prefer: code=…` answers come out as the platform's
//! statuses with the catalog's hints. One Prism process per test.

use std::path::{Path, PathBuf};

use catalog::{Catalog, Param, ParamIn, ParamType, Risk, Tool};
use integration_tests::prism::{self, Prism, operations, path_matches, undeclared_query};
use integration_tests::{KEY, Rpc, Server, repo, structured};
use serde_json::{Map, Value, json};

const TOKEN: &str = "prism-upstream-token";
const SUBDOMAIN: &str = "prism-e2e";

fn document() -> PathBuf {
    repo().join("shared/connector/openapi/papierkram.yaml")
}

/// The shipped catalog as the server embeds it.
fn shipped() -> Catalog {
    connector::catalogs::load(None)
        .unwrap()
        .into_iter()
        .find(|c| c.connector == "papierkram")
        .expect("the papierkram catalog")
}

/// The shipped catalog's text with each `(from, to)` replaced (each must occur), in a folder
/// of its own for `--catalog`.
fn variant(label: &str, edits: &[(&str, &str)]) -> PathBuf {
    let mut text = connector::catalogs::EMBEDDED_CATALOGS[0].1.to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "{from:?} is not in the catalog");
        text = text.replace(from, to);
    }
    let dir = std::env::temp_dir().join(format!("hosted-mcp-prism-{label}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("papierkram.yaml"), text).unwrap();
    dir
}

/// The server with `catalog` (a folder; `None`: the embedded ones), its upstream Prism.
fn server(prism: &Prism, catalog: Option<&Path>) -> (Server, Rpc) {
    server_with(prism, catalog, &[])
}

fn server_with(prism: &Prism, catalog: Option<&Path>, extra: &[(&str, &str)]) -> (Server, Rpc) {
    let keys = format!("e2e:{KEY}");
    let mut env = vec![
        ("MCP_API_KEYS", keys.as_str()),
        ("PAPIERKRAM_BASE_URL", prism.url.as_str()),
        ("PAPIERKRAM_TOKEN", TOKEN),
        ("PAPIERKRAM_SUBDOMAIN", SUBDOMAIN),
        // A critical write is confirmed with its token here; a person's form is writes.rs's.
        ("MCP_TOKEN_CONFIRMS_CRITICAL", "*"),
    ];
    env.extend_from_slice(extra);
    let args: Vec<&str> = match catalog {
        Some(dir) => vec!["--catalog", dir.to_str().unwrap()],
        None => vec![],
    };
    let server = Server::start(&args, &env);
    let rpc = Rpc::new(&server.url);
    (server, rpc)
}

/// A valid value for `param`, inside its bounds; objects in a list get `every` field or only
/// the required ones.
fn sample(param: &Param, every: bool) -> Value {
    if let Some(choice) = param.choices.as_ref().and_then(|c| c.first()) {
        return json!(choice);
    }
    let low = param.min.unwrap_or(1.0).max(1.0);
    match param.kind {
        ParamType::String => json!("x"),
        ParamType::Integer => json!(low as i64),
        ParamType::Number => json!(low),
        ParamType::Boolean => json!(true),
        ParamType::Date => json!("2026-05-04"),
        ParamType::Array => match (&param.items, &param.item) {
            (Some(fields), _) => json!([arguments(fields, every)]),
            (None, Some(item)) => json!([sample(item, every)]),
            (None, None) => json!([]),
        },
    }
}

/// Arguments for `params`: every parameter, so every query name and body field reaches the
/// validator, or only the required ones (and the path), so what the document requires is checked.
fn arguments(params: &std::collections::BTreeMap<String, Param>, every: bool) -> Value {
    Value::Object(
        params
            .iter()
            .filter(|(_, p)| every || p.required || p.location == ParamIn::Path)
            .map(|(name, p)| (name.clone(), sample(p, every)))
            .collect::<Map<_, _>>(),
    )
}

/// Calls `tool` with `args`, confirming with the token when the server asks; the final result.
async fn call_confirmed(rpc: &Rpc, tool: &str, args: Value) -> Value {
    let reply = rpc.call(tool, args.clone()).await;
    let first = structured(&reply).clone();
    if first["status"] != "confirmation_required" {
        return first;
    }
    let mut confirmed = args;
    confirmed["confirmation_token"] = first["confirmation_token"].clone();
    structured(&rpc.call(tool, confirmed).await).clone()
}

fn callable(tool: &Tool) -> bool {
    tool.risk != Risk::Forbidden && !tool.raw
}

fn is_read(tool: &Tool) -> bool {
    tool.get.is_some() || tool.aggregate.is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_sends_requests_the_openapi_document_accepts() {
    let prism = Prism::start(&document()).await;
    let (_server, rpc) = server_with(&prism, None, &[("PAPIERKRAM_EXPOSE_RAW", "true")]);
    let catalog = shipped();
    let tools: Vec<&Tool> = catalog.tools.iter().filter(|t| callable(t)).collect();
    let reads = tools.iter().filter(|t| is_read(t)).count();
    let mut failed = Vec::new();
    // Reads first: a write's confirmation reads the current record too.
    let mut ordered = tools.clone();
    ordered.sort_by_key(|t| !is_read(t));
    for tool in ordered {
        let every = arguments(&tool.params, true);
        let required = arguments(&tool.params, false);
        let both = if every == required {
            vec![every]
        } else {
            vec![every, required]
        };
        for args in both {
            let result = call_confirmed(&rpc, &tool.name, args.clone()).await;
            if result["status"] != "ok" {
                failed.push(format!("{} {args}: {result}", tool.name));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} tools failed:\n{}\nPrism's violations:\n{}",
        failed.len(),
        tools.len(),
        failed.join("\n"),
        prism.violations().join("\n")
    );
    assert!(reads >= 28 && tools.len() - reads >= 39, "{reads} reads");
    // The operators' raw GET, on a path with and one without an id.
    for path in ["/projects/15", "/info"] {
        let reply = rpc.call("papierkram_raw_get", json!({"path": path})).await;
        assert_eq!(structured(&reply)["status"], "ok", "{path}: {reply}");
    }

    // Prism lets undeclared query parameters through: check their names here.
    let doc = prism::document(&document());
    let wanted = operations(&doc);
    let requests = prism.requests();
    let unused: Vec<_> = wanted
        .iter()
        .filter(|(method, template)| {
            !requests
                .iter()
                .any(|r| &r.method == method && path_matches(template, &r.path))
        })
        .collect();
    assert!(unused.is_empty(), "operations no tool called: {unused:?}");
    for request in &requests {
        let extra = undeclared_query(&doc, request).unwrap_or_else(|e| panic!("{e}"));
        assert!(extra.is_empty(), "{request:?} sends undeclared {extra:?}");
    }
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_breaks_the_document_fails_and_prism_names_why() {
    let prism = Prism::start(&document()).await;
    let dir = variant(
        "broken",
        &[
            // A query value outside the document's enum.
            (
                "values: { true: desc, false: asc }",
                "values: { true: descending, false: ascending }",
            ),
            // A body field the document does not know (and a required one missing).
            ("as: customer.id", "as: customer_id"),
            // A query name the document does not declare: Prism lets it through.
            ("as: document_date_range_start", "as: document_date_start"),
        ],
    );
    let (_server, rpc) = server(&prism, Some(&dir));

    let r = rpc
        .call("papierkram_vouchers_list", json!({"descending": true}))
        .await;
    assert_ne!(structured(&r)["status"], "ok", "{r}");
    let why = prism.violation("order_direction");
    assert!(why.is_some(), "{}", prism.log.joined());

    let r = rpc
        .call(
            "papierkram_project_create",
            json!({"name": "Relaunch", "customer_id": 101}),
        )
        .await;
    assert_ne!(structured(&r)["status"], "ok", "{r}");
    let why = prism.violation("customer_id");
    assert!(why.is_some(), "{}", prism.log.joined());

    // Accepted by Prism, caught by the name check.
    let r = rpc
        .call(
            "papierkram_invoices_list",
            json!({"document_date_from": "2026-05-01"}),
        )
        .await;
    assert_eq!(structured(&r)["status"], "ok", "{r}");
    let doc = prism::document(&document());
    let request = prism
        .requests()
        .into_iter()
        .find(|r| r.query.iter().any(|q| q == "document_date_start"))
        .expect("the list request");
    assert_eq!(
        undeclared_query(&doc, &request),
        Ok(vec!["document_date_start".to_string()])
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The catalog with a static `Prefer: code=<code>` on every request, which Prism answers with
/// the document's response for that status.
fn preferring(code: u16) -> PathBuf {
    variant(
        &format!("prefer-{code}"),
        &[(
            "timeout_ms: 10000\n",
            &format!("timeout_ms: 10000\nheaders: {{ Prefer: \"code={code}\" }}\n"),
        )],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prisms_error_answers_become_statuses_with_the_catalogs_hints() {
    let prism = Prism::start(&document()).await;
    let not_found = preferring(404);
    let rate_limited = preferring(429);
    let (_a, rpc) = server(&prism, Some(&not_found));
    let (_b, limited) = server(&prism, Some(&rate_limited));

    let r = rpc.call("papierkram_invoice_get", json!({"id": 7})).await;
    let result = structured(&r);
    assert_eq!(result["status"], "not_found", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("HTTP 404") && hint.contains("papierkram_invoices_list"),
        "{hint}"
    );
    let r = rpc.call("papierkram_project_get", json!({"id": 7})).await;
    let result = structured(&r);
    assert_eq!(result["status"], "not_found", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("HTTP 404") && hint.contains("papierkram_projects_list"),
        "{hint}"
    );

    let r = limited.call("papierkram_invoices_list", json!({})).await;
    let result = structured(&r);
    assert_eq!(result["status"], "rate_limited", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("HTTP 429") && hint.contains("Remaining API quota this month: 0 of 10000"),
        "{hint}"
    );
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
    for dir in [not_found, rate_limited] {
        let _ = std::fs::remove_dir_all(dir);
    }
}
