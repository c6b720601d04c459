//! What the model sees, measured against the real server and the sandbox, in bytes and in
//! tokens (o200k_base through `tiktoken-rs`, which ships its encodings: offline; Claude's own
//! tokenizer is not public, so the counts are a close stand-in): `tools/list` for the
//! deployment and for each profile within 16 KB read and 24 KB in all, with the shipped
//! connectors (Papierkram on the sandbox, sevdesk, Cal.com, Replicate, Runway, Lexware and
//! WhatsApp on Prism with their documents; Google Workspace, whose tools act as each person,
//! listed only), and
//! every tool's default call (a list tool without arguments, every tool with its description's
//! example, a write as a dry run) within the 25 KB result budget, whole (not cut). Run with
//! `--nocapture` for the table.

use integration_tests::prism::Prism;
use integration_tests::{Rpc, repo, start_papierkram_server, start_sandbox, structured};
use serde_json::{Value, json};

const TOKEN: &str = "budget-token";
const READ_BUDGET: usize = 16 * 1024;
const LIST_BUDGET: usize = 24 * 1024;
const RESULT_BUDGET: usize = 25 * 1024;

fn tokens(text: &str) -> usize {
    static BPE: std::sync::OnceLock<tiktoken_rs::CoreBPE> = std::sync::OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().unwrap())
        .encode_ordinary(text)
        .len()
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

/// Bytes and tokens of what a model reads of a list (names, descriptions, input schemas), and
/// of the whole result.
fn list_figures(result: &Value) -> (usize, usize, usize, usize) {
    let read: String = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            compact(&json!({"name": t["name"], "description": t["description"],
                            "inputSchema": t["inputSchema"]}))
        })
        .collect();
    let all = compact(result);
    (read.len(), tokens(&read), all.len(), tokens(&all))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_model_reads_fits_its_budgets() {
    let (_sandbox, papierkram) = start_sandbox(TOKEN).await;
    let document = |c: &str| repo().join(format!("shared/connector/openapi/{c}.yaml"));
    // Started together: each Prism's start is mostly waiting for Node.
    let docs = [
        "sevdesk",
        "calcom",
        "replicate",
        "runway",
        "lexware",
        "whatsapp",
    ]
    .map(document);
    let (sevdesk, calcom, replicate, runway, lexware, whatsapp) = tokio::join!(
        Prism::start(&docs[0]),
        Prism::start(&docs[1]),
        Prism::start(&docs[2]),
        Prism::start(&docs[3]),
        Prism::start(&docs[4]),
        Prism::start(&docs[5]),
    );
    let server = start_papierkram_server(
        &papierkram,
        TOKEN,
        &[
            (
                "MCP_PROFILES",
                "reports=papierkram/*_get;accounting=papierkram/*,\
                 sevdesk/*;calendar=+gsuite/calendar_events_list,\
                 +gsuite/calendar_meeting_create,+gsuite/day_get,+calcom/bookings_list,\
                 +calcom/slots_list,+calcom/week_get,+calcom/booking_create,\
                 +m365/calendar_events_list,+m365/day_get,gsuite/calendar_*,calcom/*,\
                 m365/calendar_*;mail=+gsuite/mail_threads_search,\
                 +gsuite/mail_messages_search,+gsuite/mail_message_get,\
                 +gsuite/mail_thread_get,+gsuite/mail_send,+m365/mail_inbox_list,\
                 +m365/mail_messages_search,+m365/mail_message_get,+m365/mail_send,\
                 gsuite/mail_*,gsuite/day_get,m365/mail_*,m365/day_get,\
                 m365/contacts_search,m365/files_*;ai=+replicate/*;messaging=+whatsapp/*",
            ),
            ("SEVDESK_BASE_URL", &sevdesk.url),
            ("SEVDESK_API_KEY", "0123456789abcdef0123456789abcdef"),
            ("CALCOM_BASE_URL", &calcom.url),
            ("CALCOM_API_KEY", "cal_live_budget0123456789"),
            ("REPLICATE_BASE_URL", &replicate.url),
            (
                "REPLICATE_API_TOKEN",
                "r8_budget0123456789abcdefghijklmnopq",
            ),
            ("RUNWAY_BASE_URL", &runway.url),
            ("RUNWAY_API_KEY", "key_budget0123456789"),
            ("LEXWARE_BASE_URL", &lexware.url),
            ("LEXWARE_API_KEY", "lexware_budget0123456789"),
            ("WHATSAPP_BASE_URL", &whatsapp.url),
            ("WHATSAPP_TOKEN", "whatsapp_budget0123456789"),
            ("WHATSAPP_PHONE_NUMBER_ID", "1065550001"),
            ("WHATSAPP_WABA_ID", "1025550002"),
            ("WHATSAPP_APP_SECRET", WHATSAPP_APP_SECRET),
            ("WHATSAPP_VERIFY_TOKEN", "budget-verify"),
        ],
    );
    // The examples' customer wrote: a reply's dry run finds the 24-hour window open.
    customer_wrote(&server.base(), "4915112345678").await;
    let list = |rpc: Rpc| async move {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let reply: Value = rpc.post(body, &[]).await.json().await.unwrap();
        reply["result"].clone()
    };
    let rpc = Rpc::new(&server.url);
    let profile = |p: &str| Rpc::new(&format!("{}/{p}", server.url));
    println!("tools/list               tools   read B  read tok   all B   all tok");
    for (scope, result) in [
        ("deployment", list(Rpc::new(&server.url)).await),
        ("profile reports", list(profile("reports")).await),
        ("profile accounting", list(profile("accounting")).await),
        ("profile calendar", list(profile("calendar")).await),
        ("profile mail", list(profile("mail")).await),
        ("profile ai", list(profile("ai")).await),
        ("profile messaging", list(profile("messaging")).await),
    ] {
        let (read, read_tokens, all, all_tokens) = list_figures(&result);
        let n = result["tools"].as_array().unwrap().len();
        println!("{scope:24} {n:5} {read:8} {read_tokens:9} {all:7} {all_tokens:9}");
        assert!(n > 0, "{scope}: {result}");
        assert!(read <= READ_BUDGET, "{scope}: {read} B read");
        assert!(all <= LIST_BUDGET, "{scope}: {all} B in all");
    }

    // Tools that act as each person answer connection_required to an API key: Google
    // Workspace's default results are measured as a person against its twin (gsuite.rs).
    for catalog in connector::load(None).unwrap() {
        if catalog.auth.oauth_user.is_some() {
            continue;
        }
        largest_default_result(&rpc, &catalog).await;
    }
    assert!(
        sevdesk.violations().is_empty(),
        "{:?}",
        sevdesk.violations()
    );
    assert!(calcom.violations().is_empty(), "{:?}", calcom.violations());
    assert!(
        replicate.violations().is_empty(),
        "{:?}",
        replicate.violations()
    );
    assert!(runway.violations().is_empty(), "{:?}", runway.violations());
    assert!(
        lexware.violations().is_empty(),
        "{:?}",
        lexware.violations()
    );
    assert!(
        whatsapp.violations().is_empty(),
        "{:?}",
        whatsapp.violations()
    );
}

const WHATSAPP_APP_SECRET: &str = "whatsapp-budget-app-secret";

/// A signed message from `from`, as Meta notifies it.
async fn customer_wrote(base: &str, from: &str) {
    let now = std::time::UNIX_EPOCH.elapsed().unwrap().as_secs();
    let body = json!({"object": "whatsapp_business_account", "entry": [{"id": "1025550002",
        "changes": [{"field": "messages", "value": {"messaging_product": "whatsapp",
        "messages": [{"id": "wamid.budget", "from": from, "timestamp": now.to_string(),
            "type": "text", "text": {"body": "Hallo"}}]}}]}]})
    .to_string();
    let signature = mcp_server::sign_webhook(WHATSAPP_APP_SECRET, "sha256=", body.as_bytes());
    let status = reqwest::Client::new()
        .post(format!("{base}/inbound/whatsapp"))
        .header("content-type", "application/json")
        .header("x-hub-signature-256", signature)
        .body(body)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 200);
}

/// Every callable tool's default calls within the result budget, whole; prints each and the
/// largest of the connector.
async fn largest_default_result(rpc: &Rpc, catalog: &catalog::Catalog) {
    let mut largest = (0, String::new());
    println!(
        "default call ({})                     bytes  tokens",
        catalog.connector
    );
    let callable = |t: &&catalog::Tool| !t.raw && t.risk != catalog::Risk::Forbidden;
    for tool in catalog.tools.iter().filter(callable) {
        let (_, example) = tool.description.rsplit_once("Example: ").unwrap();
        let mut example: Value = serde_json::from_str(example.trim()).unwrap();
        // A write's default call is its dry run: the preview, nothing written.
        if tool.http().is_some_and(|(m, _)| !m.is_read_only()) {
            example["dry_run"] = json!(true);
        }
        let mut calls = vec![("example", example)];
        let needs_args = tool
            .params
            .values()
            .any(|p| p.required || p.location == catalog::ParamIn::Path);
        if tool.list && !needs_args {
            calls.push(("{}", json!({})));
        }
        for (label, args) in calls {
            let reply = rpc.call(&tool.name, args.clone()).await;
            let result = structured(&reply);
            assert_eq!(result["status"], "ok", "{} {args}: {reply}", tool.name);
            assert_ne!(result["truncated"], true, "{} {args}: cut", tool.name);
            let text = compact(result);
            let name = format!("{} {label}", tool.name);
            println!("{name:40} {:6} {:7}", text.len(), tokens(&text));
            assert!(text.len() <= RESULT_BUDGET, "{name}: {} B", text.len());
            if text.len() > largest.0 {
                largest = (text.len(), name);
            }
        }
    }
    println!(
        "largest default result of {}: {} ({} B)",
        catalog.connector, largest.1, largest.0
    );
}
