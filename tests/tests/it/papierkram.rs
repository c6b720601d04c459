//! The shipped Papierkram catalog end to end: the real server process with its embedded catalogs,
//! pointed at the sandbox upstream. Every listed tool is called once; list shape, filters and
//! counts are checked against the demo account recomputed in plain loops; error statuses carry
//! the hints the catalog promises.

use std::collections::{BTreeMap, BTreeSet};

use integration_tests::{Rpc, Server, repo, start_papierkram_server, start_sandbox, structured};
use papierkram_sandbox::model::ContactType;
use papierkram_sandbox::{Fault, SandboxState, demo};
use serde_json::{Value, json};

const TOKEN: &str = "papierkram-upstream-token-7f3a";
/// Not `sandbox`: secret values are redacted from upstream messages, and the sandbox's own
/// messages contain that word.
const SUBDOMAIN: &str = "nordlicht-e2e";

/// The sandbox on a loopback port and the server pointed at it with `token`, in the account
/// `SUBDOMAIN`.
async fn start_with(token: &str, extra: &[(&str, &str)]) -> (Server, SandboxState, Rpc) {
    let (sandbox, base) = start_sandbox(TOKEN).await;
    let mut env = vec![("PAPIERKRAM_SUBDOMAIN", SUBDOMAIN)];
    env.extend_from_slice(extra);
    let server = start_papierkram_server(&base, token, &env);
    let rpc = Rpc::new(&server.url);
    (server, sandbox, rpc)
}

async fn start() -> (Server, SandboxState, Rpc) {
    start_with(TOKEN, &[]).await
}

/// The structured result of a call that must be `ok`.
async fn ok(rpc: &Rpc, tool: &str, args: Value) -> Value {
    let reply = rpc.call(tool, args.clone()).await;
    let result = structured(&reply).clone();
    assert_eq!(result["status"], "ok", "{tool} {args}: {reply}");
    result
}

/// The `count` of a `count_only` call.
async fn count(rpc: &Rpc, tool: &str, mut args: Value) -> u64 {
    args["count_only"] = json!(true);
    let result = ok(rpc, tool, args).await;
    assert!(result.get("items").is_none(), "{result}");
    result["count"]
        .as_u64()
        .unwrap_or_else(|| panic!("{result}"))
}

fn ids(result: &Value) -> Vec<u64> {
    result["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no items: {result}"))
        .iter()
        .map(|i| i["id"].as_u64().unwrap())
        .collect()
}

fn first_id(result: &Value) -> u64 {
    *ids(result)
        .first()
        .unwrap_or_else(|| panic!("empty list: {result}"))
}

/// `tools/list` with the full definitions.
/// Every catalog tool's definition as a client gets it: the listed ones from `tools/list`, the
/// others (found through search only) from `search_tools` at full detail, searched by name.
/// The meta tools are left out.
async fn definitions(rpc: &Rpc) -> Vec<Value> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let reply: Value = rpc.post(body, &[]).await.json().await.unwrap();
    let mut defs: Vec<Value> = reply["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{reply}"))
        .iter()
        .filter(|t| !["search_tools", "call_tool"].contains(&t["name"].as_str().unwrap()))
        .cloned()
        .collect();
    let catalog = connector::load(None)
        .unwrap()
        .into_iter()
        .find(|c| c.connector == "papierkram")
        .unwrap();
    for tool in catalog.tools.iter().filter(|t| !t.core && !t.raw) {
        let args = json!({"query": tool.name, "detail": "full", "limit": 1});
        let reply = rpc.call("search_tools", args).await;
        let text = reply["result"]["content"][0]["text"].as_str().unwrap();
        let header = format!("## {} (papierkram)\n", tool.name);
        let rest = text
            .strip_prefix(&header)
            .unwrap_or_else(|| panic!("{}: not found first by its name: {text}", tool.name));
        let (description, schema) = rest.split_once("\nInput schema: ").unwrap();
        let schema = schema.lines().next().unwrap();
        defs.push(json!({
            "name": tool.name,
            "description": description,
            "inputSchema": serde_json::from_str::<Value>(schema).unwrap(),
        }));
    }
    defs
}

fn allowlist() -> Vec<String> {
    let path = repo().join("shared/connector/catalogs/papierkram.allowlist");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Top-level keys of an object.
fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .cloned()
        .collect()
}

/// The top-level names of (dotted) field names: `billing.company` → `billing`.
fn roots<'a>(fields: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    fields
        .into_iter()
        .map(|f| f.split('.').next().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_equals_the_allowlist_and_stays_within_30_tools() {
    let (_server, _sandbox, rpc) = start().await;
    let listed = rpc.list().await;
    assert_eq!(listed, allowlist());
    assert!(listed.len() <= 30, "{} tools listed", listed.len());
    for tool in definitions(&rpc).await {
        let name = tool["name"].as_str().unwrap();
        if let Some(annotations) = tool.get("annotations") {
            assert_eq!(annotations["readOnlyHint"], true, "{name}");
        }
        // Every description ends with one example call that the tool's own schema accepts.
        let description = tool["description"].as_str().unwrap();
        let (prose, example) = description
            .rsplit_once("Example: ")
            .unwrap_or_else(|| panic!("{name}: no example in {description:?}"));
        assert!(
            prose.matches(". ").count() >= 1,
            "{name}: one sentence only"
        );
        let example: Value = serde_json::from_str(example)
            .unwrap_or_else(|e| panic!("{name}: example is not JSON ({e}): {example}"));
        let schema = &tool["inputSchema"];
        let accepted = keys(&schema["properties"]);
        let given = keys(&example);
        assert!(given.is_subset(&accepted), "{name}: example {example}");
        // No `required` when nothing is.
        for required in schema["required"].as_array().into_iter().flatten() {
            assert!(
                given.contains(required.as_str().unwrap()),
                "{name}: {example}"
            );
        }
    }
}

/// Calls every tool (listed or found) once with realistic arguments, ids from a preceding list call;
/// the writes as dry runs, whose previews show the catalog's request and which write nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_ok_against_the_sandbox() {
    let (_server, sandbox, rpc) = start().await;
    let defs = definitions(&rpc).await;
    let whitelist = |tool: &str| -> BTreeSet<String> {
        let def = defs.iter().find(|d| d["name"] == tool).unwrap();
        let fields = def["inputSchema"]["properties"]["fields"]["items"]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{tool} has no field whitelist"));
        roots(fields.iter().map(|f| f.as_str().unwrap()))
    };
    let mut called = BTreeSet::new();

    let list_calls = [
        (
            "papierkram_invoices_list",
            json!({"document_date_from": "2026-01-01", "document_date_to": "2026-06-30", "descending": true}),
        ),
        (
            "papierkram_estimates_list",
            json!({"order_by": "document_date", "descending": true, "page_size": 10}),
        ),
        ("papierkram_propositions_list", json!({"order_by": "name"})),
        ("papierkram_payment_terms_list", json!({})),
        (
            "papierkram_vouchers_list",
            json!({"document_date_from": "2026-03-01", "document_date_to": "2026-03-31"}),
        ),
        (
            "papierkram_companies_list",
            json!({"order_by": "name", "page_size": 100}),
        ),
        (
            "papierkram_projects_list",
            json!({"descending": true, "page_size": 5}),
        ),
        ("papierkram_bank_connections_list", json!({})),
    ];
    let mut first = BTreeMap::new();
    let mut results = BTreeMap::new();
    for (tool, args) in list_calls {
        let result = list_ok(&rpc, tool, args, &whitelist(tool)).await;
        first.insert(tool, first_id(&result));
        called.insert(tool.to_string());
        results.insert(tool, result);
    }
    let projects = &results["papierkram_projects_list"];
    // Lists scoped by an id from a list above.
    let company = first["papierkram_companies_list"];
    let persons = list_ok(
        &rpc,
        "papierkram_contact_persons_list",
        json!({"company_id": company}),
        &whitelist("papierkram_contact_persons_list"),
    )
    .await;
    let project = first["papierkram_projects_list"];
    let tasks = list_ok(
        &rpc,
        "papierkram_tracker_tasks_list",
        json!({"project_id": project}),
        &whitelist("papierkram_tracker_tasks_list"),
    )
    .await;
    let task = first_id(&tasks);
    let entries = list_ok(
        &rpc,
        "papierkram_time_entries_list",
        json!({"task_id": task, "order_by": "started_at"}),
        &whitelist("papierkram_time_entries_list"),
    )
    .await;
    let account = first["papierkram_bank_connections_list"];
    let transactions = list_ok(
        &rpc,
        "papierkram_bank_transactions_list",
        json!({"bank_connection_id": account, "descending": true, "page_size": 20}),
        &whitelist("papierkram_bank_transactions_list"),
    )
    .await;
    called.extend(
        [
            "papierkram_contact_persons_list",
            "papierkram_tracker_tasks_list",
            "papierkram_time_entries_list",
            "papierkram_bank_transactions_list",
        ]
        .map(String::from),
    );

    let person = first_id(&persons);
    let gets = [
        (
            "papierkram_invoice_get",
            json!({"id": first["papierkram_invoices_list"]}),
        ),
        (
            "papierkram_estimate_get",
            json!({"id": first["papierkram_estimates_list"]}),
        ),
        (
            "papierkram_proposition_get",
            json!({"id": first["papierkram_propositions_list"]}),
        ),
        (
            "papierkram_payment_term_get",
            json!({"id": first["papierkram_payment_terms_list"]}),
        ),
        (
            "papierkram_voucher_get",
            json!({"id": first["papierkram_vouchers_list"]}),
        ),
        ("papierkram_company_get", json!({"id": company})),
        (
            "papierkram_contact_person_get",
            json!({"company_id": company, "id": person}),
        ),
        ("papierkram_project_get", json!({"id": project})),
        ("papierkram_tracker_task_get", json!({"id": task})),
        (
            "papierkram_time_entry_get",
            json!({"id": first_id(&entries)}),
        ),
        ("papierkram_bank_connection_get", json!({"id": account})),
        (
            "papierkram_bank_transaction_get",
            json!({"id": first_id(&transactions)}),
        ),
    ];
    for (tool, args) in gets {
        let result = ok(&rpc, tool, args.clone()).await;
        assert_eq!(result["data"]["id"], args["id"], "{tool}: {result}");
        assert!(
            result.get("truncated").is_none(),
            "{tool} was cut: {result}"
        );
        called.insert(tool.to_string());
    }
    // The PDF downloads: the JSON describes the document (the bytes ride as content).
    let pdfs = [
        (
            "papierkram_invoice_pdf_download",
            first["papierkram_invoices_list"],
            "invoices",
        ),
        (
            "papierkram_estimate_pdf_download",
            first["papierkram_estimates_list"],
            "estimates",
        ),
    ];
    for (tool, id, entity) in pdfs {
        let result = ok(&rpc, tool, json!({ "id": id })).await;
        let document = &result["document"];
        assert_eq!(document["mime_type"], "application/pdf", "{tool}: {result}");
        assert_eq!(document["uri"], format!("papierkram://{entity}/{id}/pdf"));
        assert!(document["size_bytes"].as_u64().unwrap() > 500, "{result}");
        called.insert(tool.to_string());
    }
    let info = ok(&rpc, "papierkram_info_get", json!({})).await;
    assert!(info["data"]["api"]["version"].is_string(), "{info}");
    called.insert("papierkram_info_get".into());

    let customer = projects["items"][0]["company_id"].clone();
    let aggregations = [
        (
            "papierkram_month_close_get",
            json!({"year": 2026, "month": 5}),
        ),
        ("papierkram_open_items_get", json!({})),
        (
            "papierkram_customer_overview_get",
            json!({"company_id": customer}),
        ),
    ];
    for (tool, args) in aggregations {
        let result = ok(&rpc, tool, args).await;
        let data = result["data"].as_object();
        assert!(data.is_some_and(|d| !d.is_empty()), "{tool}: {result}");
        called.insert(tool.to_string());
    }

    let (invoice, voucher) = (
        first["papierkram_invoices_list"],
        first["papierkram_vouchers_list"],
    );
    let proposition = first["papierkram_propositions_list"];
    let entry = first_id(&entries);
    let by_id = |tools: &[&'static str], id: u64| -> Vec<(&'static str, Value)> {
        tools.iter().map(|t| (*t, json!({"id": id}))).collect()
    };
    let mut writes = vec![
        (
            "papierkram_company_create",
            json!({"name": "Probelauf GmbH", "contact_type": "customer"}),
        ),
        (
            "papierkram_company_update",
            json!({"id": company, "phone": "+49 40 5550123"}),
        ),
        (
            "papierkram_contact_person_create",
            json!({"company_id": company, "last_name": "Beispiel"}),
        ),
        (
            "papierkram_contact_person_update",
            json!({"company_id": company, "id": person, "position": "CFO"}),
        ),
        (
            "papierkram_contact_person_delete",
            json!({"company_id": company, "id": person}),
        ),
        (
            "papierkram_project_create",
            json!({"name": "Relaunch", "customer_id": company, "default_proposition_id": proposition}),
        ),
        (
            "papierkram_project_update",
            json!({"id": project, "name": "Relaunch"}),
        ),
        (
            "papierkram_tracker_task_create",
            json!({"name": "Konzept", "project_id": project, "proposition_id": proposition}),
        ),
        (
            "papierkram_tracker_task_update",
            json!({"id": task, "name": "Konzept"}),
        ),
        (
            "papierkram_time_entry_create",
            json!({"task_id": task, "entry_date": "2026-05-11", "started_at_time": "10:00", "ended_at_time": "12:00"}),
        ),
        (
            "papierkram_time_entry_update",
            json!({"id": entry, "comments": "Workshop"}),
        ),
        (
            "papierkram_proposition_create",
            json!({"name": "Webdesign", "price": "95.0", "vat_rate": "19%"}),
        ),
        (
            "papierkram_proposition_update",
            json!({"id": proposition, "price": "105.0"}),
        ),
        (
            "papierkram_invoice_create",
            json!({"name": "Relaunch", "customer_id": customer, "project_id": project,
                   "line_items": [{"name": "Konzept", "quantity": 8, "price": 95, "vat_rate": "19%"}]}),
        ),
        (
            "papierkram_invoice_update",
            json!({"id": invoice, "name": "Relaunch, phase 2"}),
        ),
        (
            "papierkram_voucher_create",
            json!({"name": "Bewirtung", "creditor_id": company,
                   "line_items": [{"amount": 150.8, "category": "Bewirtungskosten", "vat_rate": "19%"}]}),
        ),
        (
            "papierkram_voucher_update",
            json!({"id": voucher, "due_date": "2026-06-30"}),
        ),
        (
            "papierkram_voucher_pay",
            json!({"id": voucher, "value": 1.5}),
        ),
    ];
    writes.extend(by_id(
        &[
            "papierkram_company_archive",
            "papierkram_company_unarchive",
            "papierkram_company_delete",
        ],
        company,
    ));
    writes.extend(by_id(
        &[
            "papierkram_project_archive",
            "papierkram_project_unarchive",
            "papierkram_project_delete",
        ],
        project,
    ));
    writes.extend(by_id(
        &[
            "papierkram_time_entry_archive",
            "papierkram_time_entry_unarchive",
        ],
        entry,
    ));
    writes.extend(by_id(
        &[
            "papierkram_proposition_archive",
            "papierkram_proposition_unarchive",
            "papierkram_proposition_delete",
        ],
        proposition,
    ));
    let invoice_writes = [
        "papierkram_invoice_archive",
        "papierkram_invoice_unarchive",
        "papierkram_invoice_send",
        "papierkram_invoice_cancel",
        "papierkram_invoice_delete",
    ];
    writes.extend(by_id(&invoice_writes, invoice));
    let voucher_writes = [
        "papierkram_voucher_archive",
        "papierkram_voucher_unarchive",
        "papierkram_voucher_cancel",
        "papierkram_voucher_reverse_cancel",
        "papierkram_voucher_delete",
    ];
    writes.extend(by_id(&voucher_writes, voucher));
    let catalog = connector::load(None)
        .unwrap()
        .into_iter()
        .find(|c| c.connector == "papierkram")
        .unwrap();
    for (tool, mut args) in writes {
        let (method, template) = catalog
            .tools
            .iter()
            .find(|t| t.name == tool)
            .and_then(|t| t.http())
            .unwrap_or_else(|| panic!("{tool}: no such write"));
        let mut path = template.to_string();
        for (name, value) in args.as_object().unwrap() {
            path = path.replace(&format!("{{{name}}}"), &value.to_string());
        }
        args["dry_run"] = json!(true);
        let result = ok(&rpc, tool, args).await;
        assert_eq!(result["dry_run"], true, "{tool}: {result}");
        let request = &result["preview"]["request"];
        assert_eq!(request["method"], method.as_str(), "{tool}: {result}");
        let sent = request["path"].as_str().unwrap_or_default();
        assert!(sent.ends_with(&path), "{tool}: {sent} is not {path}");
        called.insert(tool.to_string());
    }
    assert_eq!(sandbox.write_count(), 0, "{:?}", sandbox.writes());

    let tools: BTreeSet<String> = defs
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(called, tools, "every tool, listed or found, is called once");
}

/// A list call that must be ok, non-empty, compact (default fields only) and paged.
async fn list_ok(rpc: &Rpc, tool: &str, args: Value, whitelist: &BTreeSet<String>) -> Value {
    let result = ok(rpc, tool, args).await;
    let items = result["items"].as_array().unwrap();
    assert!(!items.is_empty(), "{tool}: empty list {result}");
    for item in items {
        let k = keys(item);
        assert!(k.contains("id"), "{tool}: {item}");
        assert!(
            k.is_subset(whitelist),
            "{tool}: {k:?} not within {whitelist:?}"
        );
        assert!(
            k.len() <= 8,
            "{tool}: default projection is not compact: {item}"
        );
    }
    assert!(
        result["page"].is_u64() && result["total"].is_u64(),
        "{result}"
    );
    assert!(result["_untrusted"].is_array(), "{tool}: {result}");
    result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_by_choices_are_all_sortable_upstream() {
    let (_server, _sandbox, rpc) = start().await;
    let company = demo().companies[0].id;
    for def in definitions(&rpc).await {
        let tool = def["name"].as_str().unwrap();
        let Some(choices) = def["inputSchema"]["properties"]["order_by"]["enum"].as_array() else {
            continue;
        };
        for choice in choices {
            let mut args = json!({"order_by": choice, "descending": true, "page_size": 3});
            if tool == "papierkram_contact_persons_list" {
                args["company_id"] = json!(company);
            }
            ok(&rpc, tool, args).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn count_only_matches_the_demo_account_for_every_list_tool() {
    let (_server, _sandbox, rpc) = start().await;
    let d = demo();
    let company = d.companies.last().unwrap().id;
    let expected = [
        ("papierkram_invoices_list", json!({}), d.invoices.len()),
        ("papierkram_estimates_list", json!({}), d.estimates.len()),
        (
            "papierkram_propositions_list",
            json!({}),
            d.propositions.len(),
        ),
        (
            "papierkram_payment_terms_list",
            json!({}),
            d.payment_terms.len(),
        ),
        ("papierkram_vouchers_list", json!({}), d.vouchers.len()),
        ("papierkram_companies_list", json!({}), d.companies.len()),
        (
            "papierkram_contact_persons_list",
            json!({"company_id": company}),
            d.persons_of(company).count(),
        ),
        ("papierkram_projects_list", json!({}), d.projects.len()),
        ("papierkram_tracker_tasks_list", json!({}), d.tasks.len()),
        (
            "papierkram_time_entries_list",
            json!({}),
            d.time_entries.len(),
        ),
        (
            "papierkram_bank_connections_list",
            json!({}),
            d.bank_connections.len(),
        ),
        (
            "papierkram_bank_transactions_list",
            json!({}),
            d.transactions.len(),
        ),
    ];
    let lists: BTreeSet<String> = definitions(&rpc)
        .await
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .filter(|n| n.ends_with("_list"))
        .collect();
    let checked: BTreeSet<String> = expected.iter().map(|(t, _, _)| t.to_string()).collect();
    assert_eq!(lists, checked, "every list tool has a count check");
    for (tool, args, n) in expected {
        assert_eq!(count(&rpc, tool, args.clone()).await, n as u64, "{tool}");
        // The paged answer reports the same total.
        let mut paged = args;
        paged["page_size"] = json!(1);
        assert_eq!(ok(&rpc, tool, paged).await["total"], json!(n), "{tool}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_differ_and_oversized_pages_are_refused_with_a_hint() {
    let (_server, sandbox, rpc) = start().await;
    let all: Vec<u64> = demo().invoices.iter().map(|i| i.id).collect();
    let one = ok(&rpc, "papierkram_invoices_list", json!({"page_size": 10})).await;
    let two = ok(
        &rpc,
        "papierkram_invoices_list",
        json!({"page": 2, "page_size": "10"}),
    )
    .await;
    assert_eq!(ids(&one), all[..10]);
    assert_eq!(ids(&two), all[10..20]);
    assert_eq!(one["has_more"], true);
    assert!(one["hint"].as_str().unwrap().contains("page=2"), "{one}");

    let before = sandbox.request_count();
    let reply = rpc
        .call("papierkram_invoices_list", json!({"page_size": 101}))
        .await;
    let result = structured(&reply);
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(result["status"], "invalid_input", "{reply}");
    assert!(
        result["hint"]
            .as_str()
            .unwrap()
            .contains("between 1 and 100"),
        "{result}"
    );
    assert_eq!(
        sandbox.request_count(),
        before,
        "refused before the upstream"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_returns_exactly_the_requested_fields() {
    let (_server, _sandbox, rpc) = start().await;
    let invoices = ok(
        &rpc,
        "papierkram_invoices_list",
        json!({"fields": ["id", "total_gross", "billing.company"], "page_size": 5}),
    )
    .await;
    for item in invoices["items"].as_array().unwrap() {
        assert_eq!(keys(item), roots(["id", "total_gross", "billing"]));
        assert_eq!(keys(&item["billing"]), roots(["company"]), "{item}");
    }
    let transactions = ok(
        &rpc,
        "papierkram_bank_transactions_list",
        json!({"fields": "id, value, from.name", "page_size": 5}),
    )
    .await;
    for item in transactions["items"].as_array().unwrap() {
        assert_eq!(keys(item), roots(["id", "value", "from"]));
        assert!(item["from"]["name"].is_string(), "{item}");
    }
    let reply = rpc
        .call(
            "papierkram_vouchers_list",
            json!({"fields": ["id", "ammount"]}),
        )
        .await;
    let result = structured(&reply);
    assert_eq!(result["status"], "invalid_input", "{reply}");
    assert!(
        result["hint"]
            .as_str()
            .unwrap()
            .contains("Did you mean `amount`?"),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn date_range_and_company_filters_match_a_plain_loop_over_the_demo_data() {
    let (_server, _sandbox, rpc) = start().await;
    let d = demo();
    let (from, to) = ("2026-05-01", "2026-05-31");
    let in_may = |date: String| from <= date.as_str() && date.as_str() <= to;

    let may: Vec<u64> = d
        .invoices
        .iter()
        .filter(|i| in_may(i.document_date.to_string()))
        .map(|i| i.id)
        .collect();
    assert!(!may.is_empty() && may.len() < d.invoices.len());
    let range = json!({"document_date_from": from, "document_date_to": to});
    assert_eq!(
        count(&rpc, "papierkram_invoices_list", range.clone()).await,
        may.len() as u64
    );
    let mut args = range.clone();
    args["page_size"] = json!(100);
    let page = ok(&rpc, "papierkram_invoices_list", args).await;
    assert_eq!(ids(&page), may);
    for item in page["items"].as_array().unwrap() {
        assert!(
            in_may(item["document_date"].as_str().unwrap().into()),
            "{item}"
        );
    }

    // The customer with the most invoices, by a plain loop.
    let customer = d
        .companies
        .iter()
        .filter(|c| c.contact_type == ContactType::Customer)
        .max_by_key(|c| d.invoices.iter().filter(|i| i.customer_id == c.id).count())
        .unwrap()
        .id;
    let theirs = d.invoices.iter().filter(|i| i.customer_id == customer);
    let n = theirs.clone().count() as u64;
    assert!(n > 0 && n < d.invoices.len() as u64);
    assert_eq!(
        count(
            &rpc,
            "papierkram_invoices_list",
            json!({"company_id": customer})
        )
        .await,
        n
    );
    let mut both = range.clone();
    both["company_id"] = json!(customer);
    let n_may = theirs
        .filter(|i| in_may(i.document_date.to_string()))
        .count() as u64;
    assert_eq!(count(&rpc, "papierkram_invoices_list", both).await, n_may);

    let supplier = d
        .companies
        .iter()
        .find(|c| d.vouchers.iter().any(|v| v.creditor_id == Some(c.id)))
        .unwrap()
        .id;
    let n = d
        .vouchers
        .iter()
        .filter(|v| v.creditor_id == Some(supplier))
        .count() as u64;
    assert_eq!(
        count(
            &rpc,
            "papierkram_vouchers_list",
            json!({"company_id": supplier})
        )
        .await,
        n
    );

    let n = d
        .projects
        .iter()
        .filter(|p| p.company_id == customer)
        .count() as u64;
    assert_eq!(
        count(
            &rpc,
            "papierkram_projects_list",
            json!({"company_id": customer})
        )
        .await,
        n
    );
    let project = d.projects[0].id;
    let n = d
        .time_entries
        .iter()
        .filter(|t| t.project_id == project)
        .count() as u64;
    assert_eq!(
        count(
            &rpc,
            "papierkram_time_entries_list",
            json!({"project_id": project})
        )
        .await,
        n
    );
}

/// Upstream ignores unknown query parameters, so a misnamed filter would silently return
/// everything: each declared id filter must narrow exactly like a plain loop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_id_filter_counts_like_a_plain_loop() {
    let (_server, _sandbox, rpc) = start().await;
    let d = demo();
    let count_where = |n: usize| n as u64;
    assert!(!d.time_entries.iter().any(|t| t.invoice_id.is_some()));
    let customer = d.estimates[0].customer_id;
    let project = d.invoices.iter().find_map(|i| i.project_id).unwrap();
    let proposition = d.tasks.iter().find_map(|t| t.proposition_id).unwrap();
    let task = d.tasks[1].id;
    let user = d.time_entries[0].user_id;
    // No demo time entry is billed yet, so this filter narrows to nothing.
    let invoice = d.invoices[0].id;
    let account = d.transactions[0].bank_connection_id;
    let voucher_project = d.vouchers.iter().find_map(|v| v.project_id).unwrap();
    let cases = [
        (
            "papierkram_estimates_list",
            json!({"company_id": customer}),
            count_where(
                d.estimates
                    .iter()
                    .filter(|e| e.customer_id == customer)
                    .count(),
            ),
        ),
        (
            "papierkram_invoices_list",
            json!({"project_id": project}),
            count_where(
                d.invoices
                    .iter()
                    .filter(|i| i.project_id == Some(project))
                    .count(),
            ),
        ),
        (
            "papierkram_vouchers_list",
            json!({"project_id": voucher_project}),
            count_where(
                d.vouchers
                    .iter()
                    .filter(|v| v.project_id == Some(voucher_project))
                    .count(),
            ),
        ),
        (
            "papierkram_tracker_tasks_list",
            json!({"project_id": project}),
            count_where(d.tasks.iter().filter(|t| t.project_id == project).count()),
        ),
        (
            "papierkram_tracker_tasks_list",
            json!({"proposition_id": proposition}),
            count_where(
                d.tasks
                    .iter()
                    .filter(|t| t.proposition_id == Some(proposition))
                    .count(),
            ),
        ),
        (
            "papierkram_time_entries_list",
            json!({"task_id": task}),
            count_where(d.time_entries.iter().filter(|t| t.task_id == task).count()),
        ),
        (
            "papierkram_time_entries_list",
            json!({"user_id": user}),
            count_where(d.time_entries.iter().filter(|t| t.user_id == user).count()),
        ),
        (
            "papierkram_time_entries_list",
            json!({"invoice_id": invoice}),
            count_where(
                d.time_entries
                    .iter()
                    .filter(|t| t.invoice_id == Some(invoice))
                    .count(),
            ),
        ),
        (
            "papierkram_bank_transactions_list",
            json!({"bank_connection_id": account}),
            count_where(
                d.transactions
                    .iter()
                    .filter(|t| t.bank_connection_id == account)
                    .count(),
            ),
        ),
    ];
    for (tool, args, expected) in cases {
        let all = count(&rpc, tool, json!({})).await;
        assert!(expected < all, "{tool} {args}: a filter that cannot narrow");
        assert_eq!(
            count(&rpc, tool, args.clone()).await,
            expected,
            "{tool} {args}"
        );
    }
}

/// The incident: a model guessed an invoice id and a raw path. The id gets `not_found` with the
/// tool that finds real ids; the raw tool does not exist in a hosted deployment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guessed_ids_point_to_the_list_tool_and_raw_get_is_not_found_when_hosted() {
    let (_server, _sandbox, rpc) = start().await;
    let unknown = demo().invoices.last().unwrap().id + 10_000;
    let reply = rpc
        .call("papierkram_invoice_get", json!({"id": unknown}))
        .await;
    let result = structured(&reply);
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(result["status"], "not_found", "{reply}");
    let hint = result["hint"].as_str().unwrap();
    assert!(hint.contains("papierkram_invoices_list"), "{hint}");
    assert!(
        result["upstream_message"]
            .as_str()
            .unwrap()
            .contains("Couldn't find Income::Invoice"),
        "{result}"
    );

    let reply = rpc
        .call("papierkram_invoice_get", json!({"invoice_id": 5}))
        .await;
    let hint = structured(&reply)["hint"].as_str().unwrap().to_string();
    assert!(hint.contains("Did you mean `id`?"), "{hint}");

    let reply = rpc
        .call(
            "papierkram_raw_get",
            json!({"path": "/income/invoices/1001"}),
        )
        .await;
    assert!(reply.get("result").is_none(), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("Tool not found"), "{message}");
    assert!(!rpc.list().await.contains(&"papierkram_raw_get".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exposed_raw_get_is_listed_and_its_404_names_the_dedicated_tools() {
    let (_server, _sandbox, rpc) = start_with(TOKEN, &[("PAPIERKRAM_EXPOSE_RAW", "true")]).await;
    let mut listed = rpc.list().await;
    let raw = listed
        .iter()
        .position(|t| t == "papierkram_raw_get")
        .expect("papierkram_raw_get listed");
    listed.remove(raw);
    assert_eq!(listed, allowlist());
    let result = ok(
        &rpc,
        "papierkram_raw_get",
        json!({"path": "/income/invoices/1001"}),
    )
    .await;
    assert_eq!(result["data"]["id"], 1001);
    let reply = rpc
        .call("papierkram_raw_get", json!({"path": "/invoices/1001"}))
        .await;
    let result = structured(&reply);
    assert_eq!(result["status"], "not_found", "{reply}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("papierkram_invoices_list") && hint.contains("papierkram_invoice_get"),
        "{hint}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_remaining_counts_down_one_per_call_as_the_upstream_reports() {
    let (server, sandbox, rpc) = start().await;
    let mut last = None;
    for (tool, args) in [
        ("papierkram_info_get", json!({})),
        ("papierkram_invoices_list", json!({"count_only": true})),
        (
            "papierkram_company_get",
            json!({"id": demo().companies[0].id}),
        ),
    ] {
        let result = ok(&rpc, tool, args).await;
        let remaining = result["_quota"]["remaining"].as_u64().unwrap();
        assert_eq!(remaining, sandbox.quota().remaining, "{tool}");
        assert_eq!(result["_quota"]["limit"], 10_000);
        if let Some(before) = last {
            assert_eq!(remaining, before - 1, "{tool}");
        }
        last = Some(remaining);
    }
    // papierkram_company_get is called once in this test, so its event is the one we look for.
    let event = server.stdout.event_for("papierkram_company_get");
    assert_eq!(event["quota_remaining"], json!(last.unwrap()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exhausted_quota_is_rate_limited_and_names_the_quota() {
    let (_server, sandbox, rpc) = start().await;
    sandbox.set_quota_remaining(0);
    let reply = rpc.call("papierkram_invoices_list", json!({})).await;
    let result = structured(&reply);
    assert_eq!(result["status"], "rate_limited", "{reply}");
    assert_eq!(result["_quota"]["remaining"], 0);
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("quota") && hint.contains(": 0 of 10000") && hint.contains("used up"),
        "{hint}"
    );

    // A plain 429 with quota left says when to retry.
    sandbox.set_quota_remaining(500);
    sandbox.inject_fault(Fault::status("/api/v1/expense/vouchers", 429));
    let reply = rpc.call("papierkram_vouchers_list", json!({})).await;
    let result = structured(&reply);
    assert_eq!(result["status"], "rate_limited", "{reply}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains(": 500 of 10000") && hint.contains("retry after 1 s"),
        "{hint}"
    );
}

/// Every argument is validated before it reaches Papierkram (ids, dates and sort fields are
/// typed and bounded), so no tool call provokes a real 422; an injected one stands in for
/// Papierkram refusing a request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_422_passes_papierkrams_own_message() {
    let (_server, sandbox, rpc) = start().await;
    // The sandbox's own 422 for a bad sort field, never sent by the tool…
    let reply = rpc
        .call("papierkram_invoices_list", json!({"order_by": "billing"}))
        .await;
    assert_eq!(structured(&reply)["status"], "invalid_input");
    assert_eq!(sandbox.request_count(), 0, "refused before the upstream");
    // …so Papierkram refusing a request is injected.
    sandbox.inject_fault(Fault::status("/api/v1/contact/companies", 422));
    let reply = rpc.call("papierkram_companies_list", json!({})).await;
    let result = structured(&reply);
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(result["status"], "invalid_input", "{reply}");
    let message = "Injected fault (Papierkram sandbox)";
    assert_eq!(result["upstream_message"], message);
    // Upstream text travels in `upstream_message`; the hint points there and never quotes it.
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.starts_with("Papierkram refused the request; its reason is in `upstream_message`"),
        "{hint}"
    );
    assert!(!hint.contains(message), "{hint}");
}

/// The creates send their references nested (`customer_id` as `{"customer": {"id": …}}`), run
/// without confirmation (risk medium), and what they created reads back through the get tools.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_send_nested_references_and_read_back() {
    let (_server, sandbox, rpc) = start().await;
    let customer = first_id(&ok(&rpc, "papierkram_companies_list", json!({})).await);
    let proposition = first_id(&ok(&rpc, "papierkram_propositions_list", json!({})).await);
    let creates = [
        (
            "papierkram_project_create",
            "/projects",
            json!({"name": "Probelauf Projekt", "customer_id": customer, "end_date": "2026-12-31"}),
        ),
        (
            "papierkram_tracker_task_create",
            "/tracker/tasks",
            json!({"name": "Probelauf Aufgabe", "proposition_id": proposition}),
        ),
        (
            "papierkram_time_entry_create",
            "/tracker/time_entries",
            json!({"entry_date": "2026-05-11", "started_at_time": "10:00",
                   "ended_at_time": "12:00", "comments": "Probelauf"}),
        ),
    ];
    let mut created = Vec::new();
    for (n, (tool, path, mut args)) in creates.into_iter().enumerate() {
        // Each record hangs on the one created before it.
        match tool {
            "papierkram_tracker_task_create" => args["project_id"] = json!(created[0]),
            "papierkram_time_entry_create" => args["task_id"] = json!(created[1]),
            _ => {}
        }
        let result = ok(&rpc, tool, args).await;
        let writes = sandbox.writes();
        assert_eq!(writes.len(), n + 1, "{writes:?}");
        let write = writes.last().unwrap();
        assert_eq!(
            (write.method.as_str(), write.status),
            ("POST", 201),
            "{write:?}"
        );
        assert!(write.path.ends_with(path), "{write:?}");
        let id = write
            .record_id
            .unwrap_or_else(|| panic!("{tool}: {write:?}"));
        assert_eq!(result["data"]["id"], id, "{tool}: {result}");
        created.push(id);
    }
    let bodies: Vec<Value> = sandbox
        .writes()
        .into_iter()
        .map(|w| w.body.unwrap())
        .collect();
    assert_eq!(
        bodies[0]["customer"],
        json!({"id": customer}),
        "{}",
        bodies[0]
    );
    assert_eq!(
        bodies[1]["project"],
        json!({"id": created[0]}),
        "{}",
        bodies[1]
    );
    assert_eq!(
        bodies[1]["proposition"],
        json!({"id": proposition}),
        "{}",
        bodies[1]
    );
    assert_eq!(
        bodies[2]["task"],
        json!({"id": created[1]}),
        "{}",
        bodies[2]
    );

    let project = ok(&rpc, "papierkram_project_get", json!({"id": created[0]})).await;
    assert_eq!(project["data"]["name"], "Probelauf Projekt", "{project}");
    assert_eq!(project["data"]["company_id"], customer, "{project}");
    let task = ok(
        &rpc,
        "papierkram_tracker_task_get",
        json!({"id": created[1]}),
    )
    .await;
    assert_eq!(task["data"]["project_id"], created[0], "{task}");
    let entry = ok(&rpc, "papierkram_time_entry_get", json!({"id": created[2]})).await;
    assert_eq!(entry["data"]["task_id"], created[1], "{entry}");
    assert_eq!(entry["data"]["project_id"], created[0], "{entry}");
    assert_eq!(entry["data"]["duration"], 7200, "{entry}");
    assert_eq!(entry["data"]["comments"], "Probelauf", "{entry}");
}

/// The financial creates take their line items as a list of objects and their references
/// nested (`project_id` as `{"customer": {"project": {"id": …}}}`), a voucher its
/// `entertainment_persons` as a list of names; they run once confirmed and Papierkram computes
/// the totals.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn financial_creates_send_line_items_once_confirmed_and_read_back() {
    let (_server, sandbox, rpc) = start().await;
    let projects = ok(&rpc, "papierkram_projects_list", json!({})).await;
    let (project, customer) = (
        first_id(&projects),
        projects["items"][0]["company_id"].clone(),
    );
    let supplier = first_id(&ok(&rpc, "papierkram_companies_list", json!({})).await);
    let creates = [
        (
            "papierkram_invoice_create",
            "/income/invoices",
            json!({"name": "Probelauf Rechnung", "customer_id": customer, "project_id": project,
                   "line_items": [
                       {"name": "Konzept", "quantity": 8, "unit": "Stunden", "price": 95, "vat_rate": "19%"},
                       {"name": "Druck", "quantity": "2", "price": "10.5", "vat_rate": "7%"}]}),
        ),
        (
            "papierkram_voucher_create",
            "/expense/vouchers",
            json!({"name": "Probelauf Beleg", "creditor_id": supplier, "document_date": "2026-06-14",
                   "line_items": [{"amount": 150.8, "name": "Essen", "category": "Bewirtungskosten",
                                   "vat_rate": "19%"}],
                   "entertainment_persons": ["Carl Customer", "Inga Hansen"]}),
        ),
    ];
    let mut created = Vec::new();
    for (tool, path, args) in creates {
        let asked = structured(&rpc.call(tool, args.clone()).await).clone();
        assert_eq!(asked["status"], "confirmation_required", "{tool}: {asked}");
        assert_eq!(
            sandbox.write_count(),
            created.len() as u64,
            "nothing before confirmation"
        );
        let mut confirmed = args;
        confirmed["confirmation_token"] = asked["confirmation_token"].clone();
        let result = ok(&rpc, tool, confirmed).await;
        let write = sandbox.writes().pop().unwrap();
        assert_eq!(
            (write.method.as_str(), write.status),
            ("POST", 201),
            "{write:?}"
        );
        assert!(write.path.ends_with(path), "{write:?}");
        let id = write
            .record_id
            .unwrap_or_else(|| panic!("{tool}: {write:?}"));
        assert_eq!(result["data"]["id"], id, "{tool}: {result}");
        created.push((id, write.body.unwrap()));
    }
    let (invoice, sent) = &created[0];
    assert_eq!(
        sent["customer"],
        json!({"id": customer, "project": {"id": project}}),
        "{sent}"
    );
    assert_eq!(
        sent["line_items"][1],
        json!({"name": "Druck", "quantity": 2.0, "price": 10.5, "vat_rate": "7%"}),
        "{sent}"
    );
    let (voucher, sent) = &created[1];
    assert_eq!(sent["creditor"], json!({"id": supplier}), "{sent}");
    let persons = json!(["Carl Customer", "Inga Hansen"]);
    assert_eq!(sent["entertainment_persons"], persons, "{sent}");

    let inv = ok(&rpc, "papierkram_invoice_get", json!({"id": invoice})).await;
    assert_eq!(inv["data"]["name"], "Probelauf Rechnung", "{inv}");
    assert_eq!(inv["data"]["project"]["id"], project, "{inv}");
    let net: f64 = inv["data"]["total_net"].as_str().map_or_else(
        || inv["data"]["total_net"].as_f64().unwrap(),
        |s| s.parse().unwrap(),
    );
    assert!((net - 781.0).abs() < 1e-9, "8 × 95 + 2 × 10.5: {inv}");
    let v = ok(&rpc, "papierkram_voucher_get", json!({"id": voucher})).await;
    assert_eq!(v["data"]["creditor"]["id"], supplier, "{v}");
    assert_eq!(
        v["data"]["line_items"][0]["category"], "Bewirtungskosten",
        "{v}"
    );
    assert_eq!(v["data"]["entertainment_persons"], persons, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_token_is_unauthorized_naming_the_secret_fields() {
    let wrong = "papierkram-token-revoked-0000";
    let (_server, _sandbox, rpc) = start_with(wrong, &[]).await;
    let reply = rpc.call("papierkram_invoices_list", json!({})).await;
    let result = structured(&reply);
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(result["status"], "unauthorized", "{reply}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("connectors.papierkram.token")
            && hint.contains("connectors.papierkram.subdomain"),
        "{hint}"
    );
    let text = reply.to_string();
    assert!(!text.contains(wrong) && !text.contains(TOKEN), "{text}");
}

/// `papierkram_invoice_send` by e-mail: Papierkram mails the invoice to the customer (the sandbox's outbox),
/// once, and only after the confirmation (here a token, allowed for the deployment).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invoice_send_by_email_lands_in_the_outbox_once_confirmed() {
    let (_server, sandbox, rpc) = start_with(TOKEN, &[("MCP_TOKEN_CONFIRMS_CRITICAL", "*")]).await;
    let invoice = first_id(&ok(&rpc, "papierkram_invoices_list", json!({})).await);
    let args = json!({"id": invoice, "send_via": "email", "email_recipient": "buchhaltung@kunde.example",
                      "email_subject": "Ihre Rechnung", "email_body": "Guten Tag, anbei die Rechnung."});
    let asked = structured(&rpc.call("papierkram_invoice_send", args.clone()).await).clone();
    assert_eq!(asked["status"], "confirmation_required", "{asked}");
    assert_eq!(
        asked["preview"]["request"]["body"],
        json!({"send_via": "email", "email": {"recipient": "buchhaltung@kunde.example",
               "subject": "Ihre Rechnung", "body": "Guten Tag, anbei die Rechnung."}})
    );
    assert!(
        sandbox.outbox().is_empty(),
        "nothing before the confirmation"
    );
    let mut confirmed = args;
    confirmed["confirmation_token"] = asked["confirmation_token"].clone();
    ok(&rpc, "papierkram_invoice_send", confirmed.clone()).await;
    let again = structured(&rpc.call("papierkram_invoice_send", confirmed).await).clone();
    assert_eq!(again["replayed"], true, "{again}");
    let outbox = sandbox.outbox();
    assert_eq!(outbox.len(), 1, "{outbox:?}");
    assert_eq!(outbox[0].invoice_id, invoice);
    assert_eq!(outbox[0].recipient, "buchhaltung@kunde.example");
    assert_eq!(outbox[0].subject, "Ihre Rechnung");
}

#[tokio::test]
async fn a_dry_runs_current_record_is_shown_only_to_profiles_that_may_read_it_and_marked() {
    let profiles = "update_only=papierkram/company_update;\
                    with_read=papierkram/company_update,papierkram/company_get";
    let (server, sandbox, _) = start_with(TOKEN, &[("MCP_PROFILES", profiles)]).await;
    let company = sandbox.data().companies[0].id;
    let args = json!({"id": company, "phone": "+49 40 5550123", "dry_run": true});

    let update_only = Rpc::new(&format!("{}/update_only", server.url));
    let reply = update_only
        .call("papierkram_company_update", args.clone())
        .await;
    let preview = &structured(&reply)["preview"];
    assert!(preview.get("current").is_none(), "{reply}");
    assert!(preview.get("changes").is_none(), "{reply}");
    assert!(
        preview["current_withheld"]
            .as_str()
            .is_some_and(|w| w.contains("papierkram_company_get")),
        "{reply}"
    );

    let with_read = Rpc::new(&format!("{}/with_read", server.url));
    let reply = with_read.call("papierkram_company_update", args).await;
    let preview = &structured(&reply)["preview"];
    assert_eq!(preview["current"]["id"], json!(company), "{reply}");
    let marked: Vec<&str> = preview["current_untrusted"]
        .as_array()
        .unwrap_or_else(|| panic!("{reply}"))
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        marked.contains(&"name") && marked.contains(&"notes"),
        "{marked:?}"
    );
    assert!(preview.get("current_withheld").is_none(), "{reply}");
    assert!(sandbox.writes().is_empty(), "a dry run writes nothing");
}
