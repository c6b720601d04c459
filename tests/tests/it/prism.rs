//! The shipped catalogs against Prism serving each connector's `shared/connector/openapi/<connector>.yaml`
//! with request validation on: every tool the platform can call (reads, aggregations and writes
//! through their confirmation), with every parameter and with only the required ones, sends
//! requests the document accepts (path, query, credential header, body), and every operation of
//! the document is used; a catalog that breaks the document fails
//! and Prism names the violation; Prism's `Prefer: code=…` answers come out as the platform's
//! statuses with the catalog's hints. One Prism process per test; each connector is an
//! [`Upstream`] below, so a new connector with a document is a new constant and a few lines.

use std::path::{Path, PathBuf};

use catalog::{Catalog, Param, ParamIn, ParamType, Risk, Tool};
use integration_tests::prism::{self, Prism, operations, path_matches, undeclared_query};
use integration_tests::{KEY, Rpc, Server, python_client_ok, repo, structured};
use serde_json::{Map, Value, json};

/// A connector checked against Prism.
struct Upstream {
    connector: &'static str,
    /// Its secret fields as local environment variables (`<CONNECTOR>_<FIELD>`).
    secrets: &'static [(&'static str, &'static str)],
    /// At least this many reads and writes are called: a catalog that loses tools fails here.
    reads: usize,
    writes: usize,
    /// Paths for the raw tool, when the catalog has one.
    raw_paths: &'static [&'static str],
    /// A get tool, its list tool (named in the 404 hint) and the words of the 429 hint.
    get_tool: &'static str,
    list_tool: &'static str,
    rate_limited_hint: &'static str,
}

const PAPIERKRAM: Upstream = Upstream {
    connector: "papierkram",
    secrets: &[
        ("PAPIERKRAM_TOKEN", "prism-upstream-token"),
        ("PAPIERKRAM_SUBDOMAIN", "prism-e2e"),
    ],
    reads: 30,
    writes: 39,
    raw_paths: &["/projects/15", "/info"],
    get_tool: "papierkram_invoice_get",
    list_tool: "papierkram_invoices_list",
    rate_limited_hint: "Remaining API quota this month: 0 of 10000",
};

const SEVDESK: Upstream = Upstream {
    connector: "sevdesk",
    secrets: &[("SEVDESK_API_KEY", "0123456789abcdef0123456789abcdef")],
    reads: 17,
    writes: 7,
    raw_paths: &[],
    get_tool: "sevdesk_invoice_get",
    list_tool: "sevdesk_invoices_list",
    rate_limited_hint: "Retry after",
};

const CALCOM: Upstream = Upstream {
    connector: "calcom",
    secrets: &[("CALCOM_API_KEY", "cal_live_prism0123456789abcdef")],
    reads: 9,
    writes: 4,
    raw_paths: &[],
    get_tool: "calcom_event_type_get",
    list_tool: "calcom_event_types_list",
    rate_limited_hint: "Retry after 30 s",
};

const REPLICATE: Upstream = Upstream {
    connector: "replicate",
    secrets: &[(
        "REPLICATE_API_TOKEN",
        "r8_prism0123456789abcdefghijklmnopqrstu",
    )],
    reads: 11,
    writes: 3,
    raw_paths: &[],
    get_tool: "replicate_prediction_get",
    list_tool: "replicate_predictions_list",
    rate_limited_hint: "Retry after 30 s",
};

/// Runway has no list tool: its error answers are checked by
/// `runway_error_answers_become_statuses_with_the_catalogs_hints`, not the shared function.
const RUNWAY: Upstream = Upstream {
    connector: "runway",
    secrets: &[("RUNWAY_API_KEY", "key_prism0123456789abcdef")],
    reads: 2,
    writes: 13,
    raw_paths: &[],
    get_tool: "runway_task_get",
    list_tool: "",
    rate_limited_hint: "daily generation limit",
};

/// Lexware Office's ids are UUIDs: its error answers are checked by
/// `lexware_error_answers_of_both_shapes_and_a_conflict_become_statuses_with_hints`.
const LEXWARE: Upstream = Upstream {
    connector: "lexware",
    secrets: &[("LEXWARE_API_KEY", "prism-lexware-key-0123456789abcdef")],
    reads: 15,
    writes: 9,
    raw_paths: &[],
    get_tool: "lexware_invoice_get",
    list_tool: "lexware_invoices_list",
    rate_limited_hint: "2 requests a second",
};

/// WhatsApp's free-form sends need the recipient's 24-hour window open: the shared function
/// opens it for the sample number with a signed webhook first. Its error answers are checked
/// by `whatsapp_meta_errors_become_statuses_with_their_codes_in_the_hints`.
const WHATSAPP: Upstream = Upstream {
    connector: "whatsapp",
    secrets: &[
        ("WHATSAPP_TOKEN", "prism-whatsapp-token-0123456789"),
        ("WHATSAPP_PHONE_NUMBER_ID", "1065550001"),
        ("WHATSAPP_WABA_ID", "1025550002"),
        ("WHATSAPP_APP_SECRET", "prism-app-secret-0123456789"),
        ("WHATSAPP_VERIFY_TOKEN", "prism-verify-token"),
    ],
    reads: 3,
    writes: 5,
    raw_paths: &[],
    get_tool: "",
    list_tool: "whatsapp_templates_list",
    rate_limited_hint: "",
};

impl Upstream {
    /// For a catalog with `inbound`: `from` writes first (a signed message in Meta's
    /// notification shape), so a write that `requires` its reply window finds it open.
    async fn open_window(&self, server: &Server, catalog: &Catalog, from: &str) {
        let Some(inbound) = catalog.inbound.as_deref() else {
            return;
        };
        let field = format!(
            "{}_{}",
            self.connector.to_uppercase(),
            inbound.signing_secret.to_uppercase()
        );
        let (_, secret) = self.secrets.iter().find(|(k, _)| *k == field).unwrap();
        let now = std::time::UNIX_EPOCH.elapsed().unwrap().as_secs();
        let body = json!({"object": "whatsapp_business_account", "entry": [{"id": "waba",
            "changes": [{"field": "messages", "value": {"messaging_product": "whatsapp",
            "messages": [{"id": format!("wamid.{from}.{now}"), "from": from,
                "timestamp": now.to_string(), "type": "text", "text": {"body": "Hallo"}}]}}]}]})
        .to_string();
        let signature =
            mcp_server::sign_webhook(secret, &inbound.signature_prefix, body.as_bytes());
        let status = reqwest::Client::new()
            .post(format!("{}/inbound/{}", server.base(), self.connector))
            .header("content-type", "application/json")
            .header(inbound.signature_header.as_str(), signature)
            .body(body)
            .send()
            .await
            .expect("the webhook")
            .status();
        assert_eq!(status, 200, "the signed webhook is kept");
    }

    fn document(&self) -> PathBuf {
        repo().join(format!("shared/connector/openapi/{}.yaml", self.connector))
    }

    /// The shipped catalog as the server embeds it.
    fn shipped(&self) -> Catalog {
        connector::catalogs::load(None)
            .unwrap()
            .into_iter()
            .find(|c| c.connector == self.connector)
            .expect("the shipped catalog")
    }

    /// The shipped catalog's text with each `(from, to)` replaced (each must occur), alone in a
    /// folder of its own for `--catalog`.
    fn variant(&self, label: &str, edits: &[(&str, &str)]) -> PathBuf {
        let file = format!("{}.yaml", self.connector);
        let (_, text) = connector::catalogs::EMBEDDED_CATALOGS
            .iter()
            .find(|(name, _)| *name == file)
            .expect("an embedded catalog");
        let mut text = text.to_string();
        for (from, to) in edits {
            assert!(text.contains(from), "{from:?} is not in the catalog");
            text = text.replace(from, to);
        }
        let dir = std::env::temp_dir().join(format!(
            "hosted-mcp-prism-{}-{label}-{}",
            self.connector,
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
        dir
    }

    /// The catalog with a static `Prefer: code=<code>` on every request, which Prism answers
    /// with the document's response for that status.
    fn preferring(&self, code: u16) -> PathBuf {
        self.variant(
            &format!("prefer-{code}"),
            &[(
                "timeout_ms: 10000\n",
                &format!("timeout_ms: 10000\nheaders: {{ Prefer: \"code={code}\" }}\n"),
            )],
        )
    }

    /// The server with `catalog` (a folder; `None`: the embedded ones), this connector's
    /// upstream Prism.
    fn server(
        &self,
        prism: &Prism,
        catalog: Option<&Path>,
        extra: &[(&str, &str)],
    ) -> (Server, Rpc) {
        let keys = format!("e2e:{KEY}");
        let base = format!("{}_BASE_URL", self.connector.to_uppercase());
        let mut env = vec![
            ("MCP_API_KEYS", keys.as_str()),
            (base.as_str(), prism.url.as_str()),
            // A critical write is confirmed with its token here; a person's form is writes.rs's.
            ("MCP_TOKEN_CONFIRMS_CRITICAL", "*"),
        ];
        env.extend_from_slice(self.secrets);
        env.extend_from_slice(extra);
        let args: Vec<&str> = match catalog {
            Some(dir) => vec!["--catalog", dir.to_str().unwrap()],
            None => vec![],
        };
        let server = Server::start(&args, &env);
        let rpc = Rpc::new(&server.url);
        (server, rpc)
    }
}

/// A valid value for `param`, inside its bounds; objects in a list get `every` field or only
/// the required ones.
fn sample(param: &Param, every: bool) -> Value {
    if let Some(choice) = param.choices.as_ref().and_then(|c| c.first()) {
        return json!(choice);
    }
    // A declared default is a value the catalog's author chose as valid (working hours).
    if let Some(default) = &param.default {
        return default.clone();
    }
    let low = param.min.unwrap_or(1.0).max(1.0);
    match param.kind {
        ParamType::String => json!("x"),
        ParamType::Integer => json!(low as i64),
        ParamType::Number => json!(low),
        ParamType::Boolean => json!(true),
        ParamType::Date => json!("2026-05-04"),
        ParamType::Datetime => json!("2026-05-04T10:00:00[Europe/Berlin]"),
        ParamType::TimeZone => json!("Europe/Berlin"),
        ParamType::Array => match (&param.items, &param.item) {
            (Some(fields), _) => json!([arguments(fields, every)]),
            (None, Some(item)) => json!([sample(item, every)]),
            (None, None) => json!([]),
        },
    }
}

/// Arguments for `params`: every parameter, so every query name and body field reaches the
/// validator, or only the required ones (and the path), so what the document requires is checked.
fn arguments(params: &catalog::Params, every: bool) -> Value {
    Value::Object(
        params
            .iter()
            .filter(|(_, p)| every || p.required || p.location == ParamIn::Path)
            .map(|(name, p)| (name.to_string(), sample(p, every)))
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
    tool.get.is_some() || tool.aggregate.is_some() || tool.inbound.is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn papierkram_every_tool_sends_requests_the_openapi_document_accepts() {
    every_tool_sends_requests_the_openapi_document_accepts(&PAPIERKRAM).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sevdesk_every_tool_sends_requests_the_openapi_document_accepts() {
    every_tool_sends_requests_the_openapi_document_accepts(&SEVDESK).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calcom_every_tool_sends_requests_the_openapi_document_accepts() {
    every_tool_sends_requests_the_openapi_document_accepts(&CALCOM).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicate_every_tool_sends_requests_the_openapi_document_accepts() {
    every_tool_sends_requests_the_openapi_document_accepts(&REPLICATE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runway_every_tool_sends_requests_the_openapi_document_accepts() {
    every_tool_sends_requests_the_openapi_document_accepts(&RUNWAY).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lexware_every_tool_sends_requests_the_openapi_document_accepts() {
    every_tool_sends_requests_the_openapi_document_accepts(&LEXWARE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whatsapp_every_tool_sends_requests_the_openapi_document_accepts() {
    every_tool_sends_requests_the_openapi_document_accepts(&WHATSAPP).await;
}

/// Meta's error answers `{error: {message, code, error_data: {details}, fbtrace_id}}`, all
/// HTTP 400 but for the token: the code decides (`errors.codes`). The re-engagement refusal
/// (131047) is `conflict` with Meta's details and code as `upstream_message` and a hint naming
/// the template tool; throughput reached (130429) is `rate_limited`; an expired token (190,
/// HTTP 401) is `unauthorized` naming the secret field to renew.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whatsapp_meta_errors_become_statuses_with_their_codes_in_the_hints() {
    let prism = Prism::start(&WHATSAPP.document()).await;
    // Every request prefers Meta's 400; the read receipt prefers its throttled example.
    let refused = WHATSAPP.variant(
        "prefer-400",
        &[
            (
                "timeout_ms: 10000\n",
                "timeout_ms: 10000\nheaders: { Prefer: \"code=400\" }\n",
            ),
            (
                "    audit_event: message.read_marked\n",
                "    audit_event: message.read_marked\n    headers: { Prefer: \"code=400, example=throttled\" }\n",
            ),
        ],
    );
    let expired = WHATSAPP.preferring(401);
    let (_a, rpc) = WHATSAPP.server(&prism, Some(&refused), &[]);
    let (_b, token_gone) = WHATSAPP.server(&prism, Some(&expired), &[]);
    let send = json!({"to": "4915112345678", "template": "termin_erinnerung", "language": "de"});
    let result = call_confirmed(&rpc, "whatsapp_template_send", send).await;
    assert_eq!(result["status"], "conflict", "{result}");
    let said = result["upstream_message"].as_str().unwrap();
    assert!(
        said.contains("more than 24 hours have passed") && said.contains("(code 131047)"),
        "{result}"
    );
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("131047") && hint.contains("whatsapp_template_send"),
        "{hint}"
    );

    let receipt = json!({"message_id": "wamid.HBgLNDkxNTExMjM0NTY3OBUCABIYFjNFQjA"});
    let result = call_confirmed(&rpc, "whatsapp_receipt_send", receipt).await;
    assert_eq!(result["status"], "rate_limited", "{result}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("130429") && hint.contains("Retry after 60 s"),
        "{hint}"
    );

    let r = token_gone.call("whatsapp_templates_list", json!({})).await;
    let result = structured(&r);
    assert_eq!(result["status"], "unauthorized", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("code 190") && hint.contains("connectors.whatsapp.token"),
        "{hint}"
    );
    for dir in [refused, expired] {
        let _ = std::fs::remove_dir_all(dir);
    }
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

async fn every_tool_sends_requests_the_openapi_document_accepts(upstream: &Upstream) {
    let prism = Prism::start(&upstream.document()).await;
    let raw = format!("{}_EXPOSE_RAW", upstream.connector.to_uppercase());
    // A tool that starts a job answers at once (`pending`): its start request is what is checked
    // here, the job's reads are `runway_task_get`'s own calls.
    let (server, rpc) = upstream.server(
        &prism,
        None,
        &[(raw.as_str(), "true"), ("MCP_JOB_WAIT_MS", "0")],
    );
    let catalog = upstream.shipped();
    // `sample` gives every string param "x": the conversation a window is read for.
    upstream.open_window(&server, &catalog, "x").await;
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
            let started = tool.job.is_some() && result["status"] == "pending";
            if result["status"] != "ok" && !started {
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
    assert!(
        reads >= upstream.reads && tools.len() - reads >= upstream.writes,
        "{reads} reads of {}",
        tools.len()
    );
    // The operators' raw GET, on a path with and one without an id.
    let raw_tool = format!("{}_raw_get", upstream.connector);
    for path in upstream.raw_paths {
        let reply = rpc.call(&raw_tool, json!({"path": path})).await;
        assert_eq!(structured(&reply)["status"], "ok", "{path}: {reply}");
    }

    // Prism lets undeclared query parameters through: check their names here.
    let doc = prism::document(&upstream.document());
    let wanted = operations(&doc);
    // The `/health` probe, where the document declares its path, answers ok.
    if let Some(probe) = &catalog.health
        && wanted
            .iter()
            .any(|(m, t)| m == "GET" && path_matches(t, &probe.get))
    {
        let health: Value = reqwest::get(format!("{}/health", server.base()))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(health["connectors"][upstream.connector], "ok", "{health}");
    }
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
    let prism = Prism::start(&PAPIERKRAM.document()).await;
    let dir = PAPIERKRAM.variant(
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
    let (_server, rpc) = PAPIERKRAM.server(&prism, Some(&dir), &[]);

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
    let doc = prism::document(&PAPIERKRAM.document());
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn papierkram_error_answers_become_statuses_with_the_catalogs_hints() {
    let (prism, rpc, _servers) =
        error_answers_become_statuses_with_the_catalogs_hints(&PAPIERKRAM).await;
    let r = rpc.call("papierkram_project_get", json!({"id": 7})).await;
    let result = structured(&r);
    assert_eq!(result["status"], "not_found", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("HTTP 404") && hint.contains("papierkram_projects_list"),
        "{hint}"
    );
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sevdesk_error_answers_become_statuses_with_the_catalogs_hints() {
    let (prism, rpc, _servers) =
        error_answers_become_statuses_with_the_catalogs_hints(&SEVDESK).await;
    // sevdesk's reason comes from {"error": {"message": …}}.
    let r = rpc.call("sevdesk_contact_get", json!({"id": 7})).await;
    let result = structured(&r);
    assert_eq!(result["status"], "not_found", "{r}");
    assert_eq!(result["upstream_message"], "Object not found", "{r}");
    assert!(
        result["hint"]
            .as_str()
            .unwrap()
            .contains("sevdesk_contacts_list"),
        "{r}"
    );
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

/// The get tool answering 404 and the list tool 429: the statuses with the catalog's hints. Gives
/// back Prism and the 404 server's client for a connector's own checks.
async fn error_answers_become_statuses_with_the_catalogs_hints(
    upstream: &Upstream,
) -> (Prism, Rpc, [Server; 2]) {
    let prism = Prism::start(&upstream.document()).await;
    let not_found = upstream.preferring(404);
    let rate_limited = upstream.preferring(429);
    let (a, rpc) = upstream.server(&prism, Some(&not_found), &[]);
    let (b, limited) = upstream.server(&prism, Some(&rate_limited), &[]);

    let r = rpc.call(upstream.get_tool, json!({"id": 7})).await;
    let result = structured(&r);
    assert_eq!(result["status"], "not_found", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("HTTP 404") && hint.contains(upstream.list_tool),
        "{hint}"
    );

    let r = limited.call(upstream.list_tool, json!({})).await;
    let result = structured(&r);
    assert_eq!(result["status"], "rate_limited", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("HTTP 429") && hint.contains(upstream.rate_limited_hint),
        "{hint}"
    );
    for dir in [not_found, rate_limited] {
        let _ = std::fs::remove_dir_all(dir);
    }
    (prism, rpc, [a, b])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calcom_error_answers_become_statuses_with_the_catalogs_hints() {
    let (prism, rpc, _servers) =
        error_answers_become_statuses_with_the_catalogs_hints(&CALCOM).await;
    // Cal.com's reason comes from {"status": "error", "error": {"message": …}}.
    let r = rpc
        .call("calcom_booking_get", json!({"uid": "bk_0000"}))
        .await;
    let result = structured(&r);
    assert_eq!(result["status"], "not_found", "{r}");
    assert_eq!(
        result["upstream_message"], "Booking with uid=bk_0000 was not found in the database",
        "{r}"
    );
    assert!(
        result["hint"].as_str().unwrap().contains("uid"),
        "the booking's own hint: {r}"
    );
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicate_error_answers_become_statuses_with_the_catalogs_hints() {
    let (prism, rpc, _servers) =
        error_answers_become_statuses_with_the_catalogs_hints(&REPLICATE).await;
    // Replicate answers problem details; its reason is the `detail`.
    let r = rpc
        .call(
            "replicate_model_get",
            json!({"owner": "acme", "name": "nope"}),
        )
        .await;
    let result = structured(&r);
    assert_eq!(result["status"], "not_found", "{r}");
    assert_eq!(
        result["upstream_message"], "The requested resource could not be found.",
        "{r}"
    );
    assert!(
        result["hint"]
            .as_str()
            .unwrap()
            .contains("replicate_models_search"),
        "the connector's hint: {r}"
    );

    // An account without credit: 402 is an error whose hint sends the user to billing, and the
    // confirmed prediction was not started.
    let no_credit = REPLICATE.preferring(402);
    let (_server, rpc) = REPLICATE.server(&prism, Some(&no_credit), &[]);
    let result = call_confirmed(
        &rpc,
        "replicate_prediction_create",
        json!({"model": "black-forest-labs/flux-schnell", "prompt": "a lighthouse"}),
    )
    .await;
    assert_eq!(result["status"], "error", "{result}");
    assert!(
        result["upstream_message"]
            .as_str()
            .unwrap()
            .starts_with("You have insufficient credit"),
        "{result}"
    );
    assert!(
        result["hint"].as_str().unwrap().contains("HTTP 402"),
        "{result}"
    );
    let _ = std::fs::remove_dir_all(no_credit);
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

/// Replicate's habits end to end against the document: a prediction's preview names the model
/// and only the inputs given, nested under `input`, with Replicate's published hardware prices
/// (a deployment's the one its release runs on), and the confirmed call answers the job's id
/// and state; lists page by Replicate's `next` URL and the search answers its models projected;
/// the month's usage counts every prediction by status and model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicate_previews_name_the_model_and_input_and_usage_is_counted_per_status_and_model() {
    let prism = Prism::start(&REPLICATE.document()).await;
    let (_server, rpc) = REPLICATE.server(&prism, None, &[]);

    let create = json!({"model": "black-forest-labs/flux-schnell",
        "prompt": "a lighthouse at dawn, watercolour", "aspect_ratio": "16:9"});
    let r = rpc
        .call("replicate_prediction_create", create.clone())
        .await;
    let result = structured(&r);
    assert_eq!(result["status"], "confirmation_required", "{r}");
    let preview = &result["preview"];
    assert_eq!(preview["risk"], "high", "{r}");
    assert_eq!(
        preview["request"]["body"],
        json!({"version": "black-forest-labs/flux-schnell",
            "input": {"prompt": "a lighthouse at dawn, watercolour", "aspect_ratio": "16:9"}}),
        "{r}"
    );
    assert!(
        preview["side_effects"]
            .as_str()
            .unwrap()
            .contains("bills the Replicate account"),
        "{r}"
    );
    // Nothing the call knows names the model's hardware: Replicate's published table, dated,
    // and where the hardware is found.
    let price = &preview["price"];
    assert_eq!(
        (
            &price["of"],
            &price["per"],
            &price["currency"],
            &price["as_of"]
        ),
        (
            &json!("hardware"),
            &json!("second"),
            &json!("USD"),
            &json!("2026-12-06")
        ),
        "{r}"
    );
    assert_eq!(price["source"], "https://replicate.com/pricing", "{r}");
    assert_eq!(price["table"]["gpu-t4"], 0.000225, "{r}");
    assert_eq!(price["table"]["gpu-h100"], 0.001525, "{r}");
    assert!(price.get("item").is_none(), "{r}");
    assert!(
        price["note"]
            .as_str()
            .unwrap()
            .contains("the model's page on replicate.com says which"),
        "{r}"
    );
    // A deployment's dry run reads it: its current release runs on gpu-l40s (the document's
    // example), whose price alone is shown.
    let r = rpc
        .call(
            "replicate_deployment_prediction_create",
            json!({"owner": "acme", "name": "image-generator",
                   "prompt": "a lighthouse at dawn", "dry_run": true}),
        )
        .await;
    let preview = &structured(&r)["preview"];
    assert_eq!(
        preview["current"]["current_release"]["configuration"]["hardware"], "gpu-l40s",
        "{r}"
    );
    assert_eq!(
        (&preview["price"]["item"], &preview["price"]["price"]),
        (&json!("gpu-l40s"), &json!(0.000975)),
        "{r}"
    );
    assert!(preview["price"].get("table").is_none(), "{r}");
    // Started, then followed to its end within the call's wait (Prism's example prediction
    // reads `succeeded`): its output, the job named, the media with their expiry.
    let started = call_confirmed(&rpc, "replicate_prediction_create", create).await;
    assert_eq!(started["status"], "ok", "{started}");
    assert_eq!(
        started["job"],
        json!({"id": "gm3qorzdhgbfurvjtvhg6dckhu", "state": "succeeded"}),
        "{started}"
    );
    assert!(started["media"][0]["expires_at"].is_string(), "{started}");

    // The search answers the models only, projected to the default fields.
    let r = rpc
        .call(
            "replicate_models_search",
            json!({"query": "upscale photos"}),
        )
        .await;
    let result = structured(&r);
    assert_eq!(result["status"], "ok", "{r}");
    assert_eq!(result["items"][0]["model"]["name"], "real-esrgan", "{r}");
    assert!(result["items"][0].get("metadata").is_none(), "{r}");
    assert_eq!(result["has_more"], false, "{r}");

    let r = rpc
        .call("replicate_usage_get", json!({"year": 2026, "month": 5}))
        .await;
    let result = structured(&r);
    assert_eq!(result["status"], "ok", "{r}");
    let data = &result["data"];
    assert_eq!(
        (
            &data["predictions"],
            &data["succeeded"],
            &data["failed"],
            &data["canceled"]
        ),
        (&json!(4), &json!(2), &json!(1), &json!(1)),
        "{r}"
    );
    assert_eq!(data["run_seconds"], "21.20", "{r}");
    let request = prism
        .requests()
        .into_iter()
        .rfind(|r| r.path == "/predictions" && r.method == "GET")
        .expect("the list request");
    assert_eq!(request.query, ["created_after", "created_before"]);
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

/// Cal.com's habits end to end against the document: times with their zone go up as UTC, the
/// writes' dry runs name everyone Cal.com would e-mail, the named rate-limit bucket reaches
/// `_quota`, and the week aggregation answers per local day in about 200 tokens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calcom_times_keep_their_zone_previews_name_who_is_notified_and_the_week_is_short() {
    let prism = Prism::start(&CALCOM.document()).await;
    let (_server, rpc) = CALCOM.server(&prism, None, &[]);

    // 10:00 in Berlin in May (UTC+2) goes up as 08:00 UTC; a time without a zone is refused.
    let create = json!({"event_type_id": 31, "start": "2026-05-04T10:00[Europe/Berlin]",
        "attendee_name": "Jana Berg", "attendee_email": "jana.berg@muster.example",
        "attendee_time_zone": "Europe/Berlin", "guests": ["buero@muster.example"], "dry_run": true});
    let r = rpc.call("calcom_booking_create", create.clone()).await;
    let preview = &structured(&r)["preview"];
    assert_eq!(preview["risk"], "critical", "{r}");
    let body = &preview["request"]["body"];
    assert_eq!(body["start"], "2026-05-04T08:00:00Z", "{r}");
    assert_eq!(body["attendee"]["email"], "jana.berg@muster.example", "{r}");
    assert_eq!(body["guests"], json!(["buero@muster.example"]), "{r}");
    assert_eq!(
        preview["notifies"],
        json!(["jana.berg@muster.example", "buero@muster.example"]),
        "{r}"
    );
    let mut naive = create.clone();
    naive["start"] = json!("2026-05-04T10:00:00");
    let r = rpc.call("calcom_booking_create", naive).await;
    assert_eq!(structured(&r)["status"], "invalid_input", "{r}");
    assert!(
        structured(&r)["hint"]
            .as_str()
            .unwrap()
            .contains("time zone"),
        "{r}"
    );

    // Moving a booking: the preview holds the booking as it is, attendees and guests included.
    let r = rpc
        .call(
            "calcom_booking_reschedule",
            json!({"uid": "bk_7Hq2", "start": "2026-05-08T14:00+02:00", "dry_run": true}),
        )
        .await;
    let preview = &structured(&r)["preview"];
    assert_eq!(
        preview["request"]["body"]["start"], "2026-05-08T12:00:00Z",
        "{r}"
    );
    assert_eq!(
        preview["current"]["attendees"][0]["email"], "jana.berg@muster.example",
        "{r}"
    );
    assert_eq!(
        preview["current"]["guests"],
        json!(["buero@muster.example"]),
        "{r}"
    );
    // Everyone Cal.com would e-mail, from the booking as it is.
    assert_eq!(
        preview["notifies"],
        json!(["jana.berg@muster.example", "buero@muster.example"]),
        "{r}"
    );
    assert!(
        preview["side_effects"]
            .as_str()
            .unwrap()
            .contains("e-mails"),
        "{r}"
    );

    // A zone that is no IANA name is refused before anything is sent.
    let before = prism.requests().len();
    let r = rpc
        .call(
            "calcom_week_get",
            json!({"week_start": "2026-05-04", "time_zone": "Berlin"}),
        )
        .await;
    assert_eq!(structured(&r)["status"], "invalid_input", "{r}");
    assert_eq!(prism.requests().len(), before, "no request for a bad zone");

    // The list reports Cal.com's named rate-limit bucket as `_quota`.
    let r = rpc
        .call("calcom_bookings_list", json!({"status": "upcoming"}))
        .await;
    let result = structured(&r);
    assert_eq!(result["status"], "ok", "{r}");
    assert_eq!(result["_quota"]["remaining"], 117, "{r}");
    assert_eq!(result["_quota"]["limit"], 120, "{r}");

    // The week: Monday has two bookings in Berlin time, the cancelled Thursday one is left out.
    let r = rpc
        .call(
            "calcom_week_get",
            json!({"week_start": "2026-05-04", "time_zone": "Europe/Berlin"}),
        )
        .await;
    let result = structured(&r);
    assert_eq!(result["status"], "ok", "{r}");
    let week = &result["data"]["week"];
    assert_eq!(week["zone"], "Europe/Berlin", "{r}");
    assert_eq!(result["data"]["bookings"], 3, "{r}");
    let monday = &week["days"][0];
    assert_eq!(
        (
            &monday["date"],
            &monday["count"],
            &monday["busy_min"],
            &monday["free_min"]
        ),
        (&json!("2026-05-04"), &json!(2), &json!(90), &json!(390)),
        "{r}"
    );
    assert_eq!(monday["longest_free"], "10:30-14:00", "{r}");
    assert_eq!(
        week["days"][3],
        json!({"date": "2026-05-07", "day": "Thu", "free_min": 480}),
        "the cancelled booking is left out: {r}"
    );
    let bytes = serde_json::to_string(&result["data"]).unwrap().len();
    assert!(bytes <= 700, "about 200 tokens, got {bytes} B: {r}");
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

/// Two positions of an invoice draft: 10 h at 100.00 and 1.5 days at 300.00, net 1,450.00.
fn invoice_draft() -> Value {
    json!({
        "contact_id": 101,
        "contact_person_id": 1,
        "invoice_date": "2026-05-04",
        "header": "Rechnung Mai 2026",
        "positions": [
            {"name": "Beratung", "quantity": 10, "price": 100.0, "tax_rate": 19, "unit_id": 9},
            {"name": "Workshop", "quantity": "1.5", "price": 300, "tax_rate": 19, "unit_id": 12}
        ]
    })
}

fn calls_to(prism: &Prism, path: &str) -> usize {
    prism
        .requests()
        .iter()
        .filter(|r| r.path.ends_with(path))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sevdesk_invoice_draft_and_voucher_send_nested_positions_after_a_confirmed_preview() {
    let prism = Prism::start(&SEVDESK.document()).await;
    let (_server, rpc) = SEVDESK.server(&prism, None, &[]);

    // The dry run: the exact nested body, the positions' totals, nothing sent.
    let mut args = invoice_draft();
    args["dry_run"] = json!(true);
    let r = rpc.call("sevdesk_invoice_create", args).await;
    let result = structured(&r);
    assert_eq!(
        (&result["status"], &result["dry_run"]),
        (&json!("ok"), &json!(true)),
        "{r}"
    );
    let preview = &result["preview"];
    println!("dry run of an invoice draft with 2 positions:\n{preview:#}");
    assert_eq!(preview["risk"], "high");
    assert_eq!(preview["request"]["path"], "/Invoice/Factory/saveInvoice");
    let body = &preview["request"]["body"];
    assert_eq!(body["invoice"]["status"], 100);
    assert_eq!(
        body["invoice"]["contact"],
        json!({"id": 101, "objectName": "Contact"})
    );
    assert_eq!(
        body["invoice"]["contactPerson"],
        json!({"id": 1, "objectName": "SevUser"})
    );
    assert_eq!(
        body["invoice"]["taxRule"],
        json!({"id": 1, "objectName": "TaxRule"})
    );
    assert_eq!(
        body["invoice"]["invoiceDate"], 1_777_845_600,
        "00:00 Europe/Berlin"
    );
    assert_eq!(
        body["invoicePosSave"][1],
        json!({"objectName": "InvoicePos", "mapAll": true, "name": "Workshop", "quantity": 1.5,
               "price": 300.0, "taxRate": 19.0, "unity": {"id": 12, "objectName": "Unity"}})
    );
    assert_eq!(
        preview["totals"],
        json!({"positions": {"items": 2, "net": 1450.0}})
    );
    assert_eq!(
        calls_to(&prism, "saveInvoice"),
        0,
        "a dry run sends nothing"
    );

    // Bad positions: clear statuses, nothing sent.
    let mut wrong = invoice_draft();
    wrong["positions"][1] =
        json!({"name": "Workshop", "quantity": 1, "prise": 300, "tax_rate": 19});
    let r = rpc.call("sevdesk_invoice_create", wrong).await;
    let result = structured(&r);
    assert_eq!(result["status"], "invalid_input", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("`prise` in `positions[1]`") && hint.contains("Did you mean `price`?"),
        "{hint}"
    );
    let mut many = invoice_draft();
    many["positions"] = json!(vec![invoice_draft()["positions"][0].clone(); 51]);
    let r = rpc.call("sevdesk_invoice_create", many).await;
    let result = structured(&r);
    assert_eq!(result["status"], "invalid_input", "{r}");
    assert!(
        result["hint"]
            .as_str()
            .unwrap()
            .contains("1 to 50 items, got 51"),
        "{r}"
    );
    let mut unbounded = invoice_draft();
    unbounded["positions"][0]["tax_rate"] = json!(190);
    let r = rpc.call("sevdesk_invoice_create", unbounded).await;
    assert_eq!(structured(&r)["status"], "invalid_input", "{r}");
    assert!(
        structured(&r)["hint"]
            .as_str()
            .unwrap()
            .contains("positions[0].tax_rate"),
        "{r}"
    );
    assert_eq!(
        calls_to(&prism, "saveInvoice"),
        0,
        "bad input sends nothing"
    );

    // The write: confirmation first (high), then one request Prism validates.
    let r = rpc.call("sevdesk_invoice_create", invoice_draft()).await;
    let first = structured(&r);
    assert_eq!(first["status"], "confirmation_required", "{r}");
    assert_eq!(first["preview"]["totals"], preview["totals"]);
    assert_eq!(calls_to(&prism, "saveInvoice"), 0);
    let result = call_confirmed(&rpc, "sevdesk_invoice_create", invoice_draft()).await;
    assert_eq!(result["status"], "ok", "{result}");
    assert_eq!(calls_to(&prism, "saveInvoice"), 1);

    // A voucher (Beleg): gross positions against 2.0's booking accounts, no supplier contact.
    let voucher = json!({
        "voucher_date": "2026-05-04",
        "supplier_name": "Bürohandel Nord",
        "description": "RE-2026-117",
        "positions": [
            {"amount_gross": 119.0, "tax_rate": 19, "account_datev_id": 5},
            {"amount_gross": "10.70", "tax_rate": 7, "account_datev_id": 5, "comment": "Porto"}
        ]
    });
    let mut dry = voucher.clone();
    dry["dry_run"] = json!(true);
    let r = rpc.call("sevdesk_voucher_create", dry).await;
    let preview = &structured(&r)["preview"];
    let body = &preview["request"]["body"];
    assert!(
        body["voucher"].get("supplier").is_none(),
        "no id, no reference: {body}"
    );
    assert_eq!(body["voucher"]["creditDebit"], "C");
    assert_eq!(
        body["voucherPosSave"][0]["accountDatev"],
        json!({"id": 5, "objectName": "AccountDatev"})
    );
    assert!(
        body["voucherPosSave"][0].get("accountingType").is_none(),
        "1.0's accountingType is not sent beside 2.0's taxRule: {body}"
    );
    assert_eq!(
        body["voucher"]["taxRule"],
        json!({"id": 9, "objectName": "TaxRule"})
    );
    assert_eq!(
        preview["totals"],
        json!({"positions": {"items": 2, "gross": 129.7}})
    );
    let result = call_confirmed(&rpc, "sevdesk_voucher_create", voucher).await;
    assert_eq!(result["status"], "ok", "{result}");
    assert_eq!(calls_to(&prism, "saveVoucher"), 1);
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_shaped_wrong_is_a_violation_prism_names() {
    let prism = Prism::start(&SEVDESK.document()).await;
    let dir = SEVDESK.variant(
        "position",
        &[(
            "unity: { id: \"{unit_id}\", objectName: Unity }",
            "unit: \"{unit_id}\"",
        )],
    );
    let (_server, rpc) = SEVDESK.server(&prism, Some(&dir), &[]);
    let result = call_confirmed(&rpc, "sevdesk_invoice_create", invoice_draft()).await;
    assert_ne!(result["status"], "ok", "{result}");
    assert!(
        prism.violation("invoicePosSave").is_some(),
        "{}",
        prism.log.joined()
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Runway's catalog with a static `Prefer: code=<code>` beside its version header (the catalog
/// declares `headers` already, so [`Upstream::preferring`] cannot add a second).
fn runway_preferring(code: u16) -> PathBuf {
    RUNWAY.variant(
        &format!("prefer-{code}"),
        &[(
            "headers: { X-Runway-Version: \"2024-11-06\" }",
            &format!("headers: {{ X-Runway-Version: \"2024-11-06\", Prefer: \"code={code}\" }}"),
        )],
    )
}

/// A generation's arguments: a gen4 video from an image.
fn runway_video() -> Value {
    json!({"model": "gen4_turbo", "prompt_image": "https://example.com/bild.jpg",
           "prompt_text": "Langsamer Schwenk", "ratio": "1280:720", "duration": 5})
}

/// Runway against one Prism serving its document (one start instead of five): the steps that
/// must leave the document unbroken first, each checking so, then the one that breaks it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runway_on_its_own_document() {
    let prism = Prism::start(&RUNWAY.document()).await;
    runway_error_answers_become_statuses_with_the_catalogs_hints(&prism).await;
    runway_a_generation_is_followed_to_its_output_through_runway_task_get(&prism).await;
    runway_a_generation_reserves_its_credits_and_the_callers_day_runs_out(&prism).await;
    runway_the_organisations_credits_reach_quota_and_the_audit_line(&prism).await;
    runway_a_request_without_the_version_header_breaks_the_document(&prism).await;
}

/// Runway's error answers (`{"error": "…"}`) come out as statuses with the catalog's hints: a
/// refused input (400) says nothing was spent and passes Runway's reason on, the daily limit
/// (429) says when to retry, an unknown task (404) that cancelled and deleted tasks are gone,
/// and load shedding (503) says to retry but to ask before starting a generation again.
async fn runway_error_answers_become_statuses_with_the_catalogs_hints(prism: &Prism) {
    let status_and_hint = |r: &Value| {
        let result = structured(r);
        (
            result["status"].as_str().unwrap_or_default().to_string(),
            result["hint"].as_str().unwrap_or_default().to_string(),
        )
    };

    let dir = runway_preferring(400);
    let (_s400, rpc) = RUNWAY.server(prism, Some(&dir), &[]);
    let result = call_confirmed(&rpc, "runway_image_to_video_create", runway_video()).await;
    assert_eq!(result["status"], "invalid_input", "{result}");
    assert_eq!(
        result["upstream_message"], "Invalid ratio for model gen4_turbo: 1920:1080",
        "{result}"
    );
    assert!(
        result["hint"]
            .as_str()
            .unwrap()
            .contains("no credits were spent"),
        "{result}"
    );

    let dir = runway_preferring(429);
    let (_s429, rpc) = RUNWAY.server(prism, Some(&dir), &[]);
    let result = call_confirmed(
        &rpc,
        "runway_text_to_image_create",
        json!({"model": "gen4_image", "prompt_text": "Ein Leuchtturm", "ratio": "1920:1080"}),
    )
    .await;
    assert_eq!(result["status"], "rate_limited", "{result}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("HTTP 429")
            && hint.contains(RUNWAY.rate_limited_hint)
            && hint.contains("Retry after 30 s"),
        "{hint}"
    );

    let dir = runway_preferring(404);
    let (_s404, rpc) = RUNWAY.server(prism, Some(&dir), &[]);
    let r = rpc
        .call(
            RUNWAY.get_tool,
            json!({"id": "17f20503-6c24-4c16-946b-35dbbce2af2f"}),
        )
        .await;
    let (status, hint) = status_and_hint(&r);
    assert_eq!(status, "not_found", "{r}");
    assert!(
        hint.contains("HTTP 404") && hint.contains("cancelled or deleted task"),
        "{hint}"
    );

    let dir = runway_preferring(503);
    let (_s503, rpc) = RUNWAY.server(prism, Some(&dir), &[]);
    let r = rpc
        .call(
            RUNWAY.get_tool,
            json!({"id": "17f20503-6c24-4c16-946b-35dbbce2af2f"}),
        )
        .await;
    let (status, hint) = status_and_hint(&r);
    assert_eq!(status, "unavailable", "{r}");
    assert!(hint.contains("HTTP 502/503/504"), "{hint}");
    let result = call_confirmed(&rpc, "runway_image_to_video_create", runway_video()).await;
    let hint = result["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("ask the user before starting it again"),
        "a generation that may have started: {result}"
    );
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

/// The document requires Runway's version header on every request: a catalog that stops sending
/// it is refused, and Prism names the header.
async fn runway_a_request_without_the_version_header_breaks_the_document(prism: &Prism) {
    let dir = RUNWAY.variant(
        "unversioned",
        &[("headers: { X-Runway-Version: \"2024-11-06\" }\n", "")],
    );
    let (_server, rpc) = RUNWAY.server(prism, Some(&dir), &[]);
    let r = rpc.call("runway_organization_get", json!({})).await;
    assert_ne!(structured(&r)["status"], "ok", "{r}");
    assert!(
        prism.violation("x-runway-version").is_some()
            || prism.violation("X-Runway-Version").is_some(),
        "{}",
        prism.log.joined()
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A generation followed to its end as the job it declares: the create answers the task id only,
/// the server reads the task with `runway_task_get` after `poll_every` (10 s), and the call answers
/// the SUCCEEDED task's output with its media link, kept for `output_lives` (a day).
async fn runway_a_generation_is_followed_to_its_output_through_runway_task_get(prism: &Prism) {
    // Prism serves the other steps too: this step's reads are those after it began.
    let task_reads = |prism: &Prism| {
        let read = |r: &&integration_tests::prism::Received| {
            r.method == "GET"
                && r.path
                    .ends_with("/tasks/17f20503-6c24-4c16-946b-35dbbce2af2f")
        };
        prism.requests().iter().filter(read).count()
    };
    let before = task_reads(prism);
    let (_server, rpc) = RUNWAY.server(prism, None, &[]);
    let result = call_confirmed(&rpc, "runway_image_to_video_create", runway_video()).await;
    assert_eq!(result["status"], "ok", "{result}");
    let output = "https://dnznrvs05pmza.cloudfront.net/17f20503/output.mp4?_jwt=example";
    assert_eq!(result["data"], json!([output]), "{result}");
    assert_eq!(result["media"][0]["url"], output, "{result}");
    assert!(
        result["media"][0]["expires_at"].is_string(),
        "the link's end, a day on: {result}"
    );
    assert_eq!(
        task_reads(prism) - before,
        1,
        "one read after 10 s found it finished"
    );
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

/// A generation reserves its price in credits on the caller's day before it is sent (the
/// catalog's `spends`: credits a second by model × `duration`, a left-out duration at its most,
/// against `caller_daily_spend`'s 1,000 credits), and the call that would pass the limit is
/// refused `rate_limited` in credits before it reaches Runway; results show what is left once
/// less than a fifth is, and each audit line what its call reserved.
async fn runway_a_generation_reserves_its_credits_and_the_callers_day_runs_out(prism: &Prism) {
    // Prism serves the other steps too: this step's generations are those after it began.
    let creates = |prism: &Prism| {
        let create = |r: &&integration_tests::prism::Received| {
            r.method == "POST" && r.path.ends_with("/image_to_video")
        };
        prism.requests().iter().filter(create).count()
    };
    let before = creates(prism);
    let (server, rpc) = RUNWAY.server(
        prism,
        None,
        &[("MCP_LIMITS", "on"), ("MCP_JOB_WAIT_MS", "0")],
    );
    let start = |args: Value| call_confirmed(&rpc, "runway_image_to_video_create", args);
    let veo3 = json!({"model": "veo3", "prompt_image": "https://example.com/bild.jpg",
                      "ratio": "1280:720"});
    let gen45 = json!({"model": "gen4.5", "prompt_image": "https://example.com/bild.jpg",
                       "prompt_text": "Schwenk", "ratio": "1280:720", "duration": 10});

    // gen4_turbo, 5 credits a second × 5 s: 25 of 1,000.
    let first = start(runway_video()).await;
    assert_eq!(first["status"], "pending", "{first}");
    assert!(first.get("_spend").is_none(), "975 left: {first}");
    // veo3 without a duration is priced at the longest (40 × 15 s = 600): 375 left.
    let dear = start(veo3.clone()).await;
    assert_eq!(dear["status"], "pending", "{dear}");
    // A second one would pass the limit: refused in credits, before Runway.
    let refused = start(veo3).await;
    assert_eq!(refused["status"], "rate_limited", "{refused}");
    assert_eq!(refused["scope"], "spend", "{refused}");
    let left = &refused["_spend"];
    assert_eq!(
        (&left["unit"], &left["remaining"], &left["limit"]),
        (&json!("credits"), &json!(375), &json!(1000)),
        "{refused}"
    );
    let hint = refused["hint"].as_str().unwrap();
    assert!(
        hint.contains("would spend 600 credits, but only 375 of your daily 1000 credits on Runway"),
        "{hint}"
    );
    // gen4.5 for 10 s (120) fits twice; after the second, 135 left is under a fifth and shown.
    let third = start(gen45.clone()).await;
    assert_eq!(third["status"], "pending", "{third}");
    let fourth = start(gen45).await;
    assert_eq!(fourth["status"], "pending", "{fourth}");
    assert_eq!(fourth["_spend"]["remaining"], 135, "{fourth}");

    assert_eq!(
        creates(prism) - before,
        4,
        "the refused generation reached no upstream"
    );
    let spent: Vec<u64> = server
        .stdout
        .events_where(4, |e| e["event"] == "tool_call" && e.get("spend").is_some())
        .iter()
        .inspect(|e| assert_eq!(e["spend_unit"], "credits", "{e}"))
        .map(|e| e["spend"].as_u64().unwrap())
        .collect();
    assert_eq!(spent, [25, 600, 120, 120]);
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

/// The organisation's credits are figures in the body of `GET /organization`, which the catalog
/// reads by pointer (`quota.body`): the document's example (8,200 credits left of a tier that may
/// buy 10,000 a month) reaches the result's `_quota` and the audit line; a task's answer carries
/// no such figures and gets none.
async fn runway_the_organisations_credits_reach_quota_and_the_audit_line(prism: &Prism) {
    let (server, rpc) = RUNWAY.server(prism, None, &[]);
    let r = rpc.call("runway_organization_get", json!({})).await;
    let result = structured(&r);
    assert_eq!(result["status"], "ok", "{r}");
    assert_eq!(result["data"]["creditBalance"], 8200, "{r}");
    assert_eq!(
        result["_quota"],
        json!({"remaining": 8200, "limit": 10000}),
        "{r}"
    );
    let event = server.stdout.event_for("runway_organization_get");
    assert_eq!(
        (&event["quota_remaining"], &event["quota_limit"]),
        (&json!(8200), &json!(10000)),
        "{event}"
    );
    let task = rpc
        .call(
            RUNWAY.get_tool,
            json!({"id": "17f20503-6c24-4c16-946b-35dbbce2af2f"}),
        )
        .await;
    let task = structured(&task);
    assert_eq!(task["status"], "ok", "{task}");
    assert!(task.get("_quota").is_none(), "{task}");
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

const LEXWARE_INVOICE: &str = "e9066f04-8cc7-4616-93f8-ac9ecc8479c8";
const LEXWARE_CONTACT: &str = "be9475f4-ef80-442b-8ab9-3ab8b1a2aeb9";

fn lexware_invoice() -> Value {
    json!({"contact_id": "777c7793-9fbb-4ec7-9254-0619c199761e", "invoice_date": "2026-05-04",
        "delivery_date": "2026-04-30", "positions": [
            {"name": "Beratung", "quantity": 10, "unit": "Stunde", "net_price": 100.0, "tax_rate": 19}]})
}

/// Lexware's answers as statuses in its users' terms: 404 and 429 (its rate of 2 a second named)
/// in the regular error shape; a failed validation (406) in the regular shape from an invoice and
/// in the legacy `IssueList` shape from a contact, each naming the refused field; and an update
/// whose version is no longer the current one (409) a `conflict` that says to read again.
/// "Who still owes us money in Lexware?" through the official Python SDK (2026-07-28): the open
/// items aggregation reads Lexware's invoice list as Prism serves the document, the contacts list
/// pages, and the document accepts every request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lexware_python_sdk_reads_open_items_and_contacts_through_prism() {
    let prism = Prism::start(&LEXWARE.document()).await;
    let (server, _rpc) = LEXWARE.server(&prism, None, &[]);
    let doc = python_client_ok(
        &server.url,
        &[
            "--era",
            "modern",
            "--call",
            "lexware_open_items_get={}",
            "--call",
            r#"lexware_contacts_list={"page_size": 5}"#,
        ],
    );
    let open = &doc["calls"][0]["structured"];
    assert_eq!(open["status"], "ok", "{doc}");
    assert!(open["data"]["open_count"].is_u64(), "{doc}");
    let contacts = &doc["calls"][1]["structured"];
    assert_eq!(contacts["status"], "ok", "{doc}");
    assert!(contacts["items"].is_array(), "{doc}");
    let lists = prism
        .requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path.starts_with("/voucherlist"))
        .count();
    assert!(lists >= 1, "{:?}", prism.requests());
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lexware_error_answers_of_both_shapes_and_a_conflict_become_statuses_with_hints() {
    let prism = Prism::start(&LEXWARE.document()).await;
    let not_found = LEXWARE.preferring(404);
    let limited = LEXWARE.preferring(429);
    let (_a, rpc) = LEXWARE.server(&prism, Some(&not_found), &[]);
    let r = rpc
        .call("lexware_invoice_get", json!({"id": LEXWARE_INVOICE}))
        .await;
    let result = structured(&r);
    assert_eq!(result["status"], "not_found", "{r}");
    assert_eq!(result["upstream_message"], "Resource not found.", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("HTTP 404") && hint.contains("lexware_invoices_list"),
        "{hint}"
    );
    let (_b, rpc) = LEXWARE.server(&prism, Some(&limited), &[]);
    let r = rpc.call("lexware_invoices_list", json!({})).await;
    let result = structured(&r);
    assert_eq!(result["status"], "rate_limited", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("HTTP 429") && hint.contains(LEXWARE.rate_limited_hint),
        "{hint}"
    );

    // Each write answered with its refusal: Prefer on the writes' own requests only, so the
    // update's read of the current record is answered as usual.
    let refusing = LEXWARE.variant(
        "refusals",
        &[
            (
                "    post: /invoices\n",
                "    post: /invoices\n    headers: { Prefer: \"code=406\" }\n",
            ),
            (
                "    post: /contacts\n",
                "    post: /contacts\n    headers: { Prefer: \"code=406\" }\n",
            ),
            (
                "    put: /contacts/{id}\n",
                "    put: /contacts/{id}\n    headers: { Prefer: \"code=409\" }\n",
            ),
        ],
    );
    let (_c, rpc) = LEXWARE.server(&prism, Some(&refusing), &[]);
    let result = call_confirmed(&rpc, "lexware_invoice_create", lexware_invoice()).await;
    assert_eq!(result["status"], "invalid_input", "{result}");
    assert_eq!(
        result["upstream_message"], "lineItems[0].unitPrice.taxRatePercentage",
        "the regular shape's field: {result}"
    );
    assert!(
        result["hint"].as_str().unwrap().contains("HTTP 400 or 406"),
        "{result}"
    );
    let r = rpc
        .call(
            "lexware_contact_create",
            json!({"company_name": "Muster GmbH"}),
        )
        .await;
    let result = structured(&r);
    assert_eq!(result["status"], "invalid_input", "{r}");
    assert_eq!(
        result["upstream_message"], "company.name",
        "the legacy shape's source: {r}"
    );
    let r = rpc
        .call(
            "lexware_contact_update",
            json!({"id": LEXWARE_CONTACT, "note": "Zahlt immer pünktlich"}),
        )
        .await;
    let result = structured(&r);
    assert_eq!(result["status"], "conflict", "{r}");
    let hint = result["hint"].as_str().unwrap();
    assert!(
        hint.contains("HTTP 409") && hint.contains("Read the record again"),
        "{hint}"
    );
    for dir in [not_found, limited, refusing] {
        let _ = std::fs::remove_dir_all(dir);
    }
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}

/// An update sends the record back as Lexware replaces it whole: its fields as just read, with
/// the given ones set on top and its current version (or the version the caller read, which then
/// wins); the aggregations sum the voucher list's open amounts; the connector declares Lexware's
/// rate of 2 requests a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lexware_an_update_sends_the_current_version_and_open_items_are_summed() {
    assert_eq!(
        LEXWARE.shipped().quota.and_then(|q| q.rate),
        Some(catalog::Rate {
            requests: 2,
            seconds: 1
        })
    );
    let prism = Prism::start(&LEXWARE.document()).await;
    let (_server, rpc) = LEXWARE.server(&prism, None, &[]);
    let update = json!({"id": LEXWARE_CONTACT, "vat_id": "DE999999999", "dry_run": true});
    let r = rpc.call("lexware_contact_update", update.clone()).await;
    let preview = &structured(&r)["preview"];
    let body = &preview["request"]["body"];
    assert_eq!(body["version"], 4, "the record's version: {r}");
    assert_eq!(body["roles"], json!({"customer": {"number": 10307}}), "{r}");
    assert_eq!(body["company"]["name"], "Testfirma", "kept: {r}");
    assert_eq!(body["company"]["vatRegistrationId"], "DE999999999", "{r}");
    assert_eq!(body["addresses"]["billing"][0]["city"], "Freiburg", "{r}");
    assert_eq!(
        preview["changes"]["company"]["to"]["vatRegistrationId"], "DE999999999",
        "{r}"
    );
    let mut read_earlier = update.clone();
    read_earlier["version"] = json!(3);
    let r = rpc.call("lexware_contact_update", read_earlier).await;
    assert_eq!(
        structured(&r)["preview"]["request"]["body"]["version"],
        3,
        "{r}"
    );
    let mut done = update;
    done.as_object_mut().unwrap().remove("dry_run");
    let r = rpc.call("lexware_contact_update", done).await;
    assert_eq!(structured(&r)["status"], "ok", "{r}");
    let puts = prism
        .requests()
        .into_iter()
        .filter(|r| r.method == "PUT")
        .count();
    assert_eq!(puts, 1, "the dry runs sent nothing");

    let r = rpc.call("lexware_open_items_get", json!({})).await;
    let data = &structured(&r)["data"];
    assert_eq!(
        data["open_count"], 2,
        "open and overdue, not paid or draft: {r}"
    );
    assert_eq!(data["open_amount"], "573.60", "{r}");
    assert_eq!(data["overdue_count"], 1, "{r}");
    assert_eq!(data["overdue_amount"], "498.80", "{r}");
    let r = rpc
        .call("lexware_month_close_get", json!({"year": 2026, "month": 5}))
        .await;
    let data = &structured(&r)["data"];
    assert_eq!(data["invoices"], 3, "drafts left out: {r}");
    let request = prism
        .requests()
        .into_iter()
        .rfind(|r| r.path == "/voucherlist")
        .expect("the voucher list");
    assert!(
        request.query.iter().any(|q| q == "voucherType")
            && request.query.iter().any(|q| q == "voucherStatus"),
        "Lexware requires both: {request:?}"
    );
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());
}
