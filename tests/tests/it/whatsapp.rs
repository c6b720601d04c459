//! WhatsApp's 24-hour window end to end: the real server with the shipped catalog, Prism
//! serving `shared/connector/openapi/whatsapp.yaml` (request validation on) as Meta, and the
//! customer's message arriving as Meta sends it, a signed webhook on `/inbound/whatsapp`. Before
//! the customer writes, a free-form reply is refused by the `requires: {reply_window}` stage
//! with the template hint and nothing goes upstream; a template goes at any time; once the
//! customer wrote, the reply's confirmation shows the recipient, the text and the open window,
//! and the confirmed reply reaches Meta; the Python SDK reads the conversation back. Neither the
//! number nor the text is in any audit or log line.

use integration_tests::prism::Prism;
use integration_tests::{KEY, Rpc, Server, python_client_ok, repo, structured};
use serde_json::{Value, json};

const NUMBER: &str = "4915112345678";
const TEXT: &str = "Guten Tag Frau Berg, Ihr Termin am 4. Mai steht.";
const APP_SECRET: &str = "e2e-whatsapp-app-secret-0123";

fn server(prism: &Prism) -> Server {
    let keys = format!("e2e:{KEY}");
    Server::start(
        &[],
        &[
            ("MCP_API_KEYS", keys.as_str()),
            ("WHATSAPP_BASE_URL", prism.url.as_str()),
            ("WHATSAPP_TOKEN", "e2e-whatsapp-token-0123456789"),
            ("WHATSAPP_PHONE_NUMBER_ID", "1065550001"),
            ("WHATSAPP_WABA_ID", "1025550002"),
            ("WHATSAPP_APP_SECRET", APP_SECRET),
            ("WHATSAPP_VERIFY_TOKEN", "e2e-verify"),
            ("MCP_TOKEN_CONFIRMS_CRITICAL", "*"),
        ],
    )
}

/// The customer's message in Meta's notification shape, signed with the app secret.
async fn customer_writes(server: &Server, from: &str, text: &str) -> u16 {
    let now = std::time::UNIX_EPOCH.elapsed().unwrap().as_secs();
    let body = json!({"object": "whatsapp_business_account", "entry": [{"id": "1025550002",
        "changes": [{"field": "messages", "value": {"messaging_product": "whatsapp",
        "messages": [{"id": "wamid.e2e-1", "from": from, "timestamp": now.to_string(),
            "type": "text", "text": {"body": text}}]}}]}]})
    .to_string();
    let signature = mcp_server::sign_webhook(APP_SECRET, "sha256=", body.as_bytes());
    reqwest::Client::new()
        .post(format!("{}/inbound/whatsapp", server.base()))
        .header("content-type", "application/json")
        .header("x-hub-signature-256", signature)
        .body(body)
        .send()
        .await
        .expect("the webhook")
        .status()
        .as_u16()
}

async fn confirmed(rpc: &Rpc, tool: &str, first: &Value, mut args: Value) -> Value {
    args["confirmation_token"] = first["confirmation_token"].clone();
    structured(&rpc.call(tool, args).await).clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_waits_for_the_customers_message_and_a_template_goes_any_time() {
    let prism = Prism::start(&repo().join("shared/connector/openapi/whatsapp.yaml")).await;
    let server = server(&prism);
    let rpc = Rpc::new(&server.url);
    let sends = || {
        prism
            .requests()
            .iter()
            .filter(|r| r.method == "POST" && r.path.ends_with("/1065550001/messages"))
            .count()
    };

    // The customer has not written: the window is closed, nothing goes upstream.
    let reply = json!({"to": NUMBER, "body": TEXT});
    let r = structured(&rpc.call("whatsapp_reply_send", reply.clone()).await).clone();
    assert_eq!(r["status"], "conflict", "{r}");
    let hint = r["hint"].as_str().unwrap();
    assert!(
        hint.contains("24-hour reply window is closed")
            && hint.contains("use whatsapp_template_send instead"),
        "{hint}"
    );
    assert!(r.get("confirmation_token").is_none(), "{r}");
    assert_eq!(sends(), 0);

    // A template goes regardless; its confirmation names the recipient and the template.
    let template = json!({"to": NUMBER, "template": "termin_erinnerung", "language": "de",
        "parameters": [{"text": "Frau Berg"}, {"text": "4. Mai, 10:00"}]});
    let first = structured(&rpc.call("whatsapp_template_send", template.clone()).await).clone();
    assert_eq!(first["status"], "confirmation_required", "{first}");
    assert_eq!(first["preview"]["notifies"], json!([NUMBER]), "{first}");
    let body = &first["preview"]["request"]["body"]["template"];
    assert_eq!(body["name"], "termin_erinnerung", "{first}");
    assert_eq!(
        body["components"][0]["parameters"][1]["text"],
        "4. Mai, 10:00"
    );
    let done = confirmed(&rpc, "whatsapp_template_send", &first, template).await;
    assert_eq!(done["status"], "ok", "{done}");
    assert_eq!(sends(), 1);

    // The customer writes: the window opens, the reply's confirmation shows it.
    assert_eq!(customer_writes(&server, NUMBER, "Passt, danke!").await, 200);
    let first = structured(&rpc.call("whatsapp_reply_send", reply.clone()).await).clone();
    assert_eq!(first["status"], "confirmation_required", "{first}");
    let preview = &first["preview"];
    assert_eq!(preview["reply_window"]["open"], true, "{first}");
    assert!(preview["reply_window"]["closes_at"].is_string(), "{first}");
    assert_eq!(preview["notifies"], json!([NUMBER]), "{first}");
    assert_eq!(preview["request"]["body"]["text"]["body"], TEXT, "{first}");
    let done = confirmed(&rpc, "whatsapp_reply_send", &first, reply).await;
    assert_eq!(done["status"], "ok", "{done}");
    assert_eq!(sends(), 2);
    assert!(prism.violations().is_empty(), "{:?}", prism.violations());

    // "What did the customer answer?" through the official Python SDK (2026-07-28): the
    // conversation newest first, the window open; the approved templates from Meta's list.
    let read = format!(r#"whatsapp_conversation_get={{"number": "{NUMBER}"}}"#);
    let doc = python_client_ok(
        &server.url,
        &[
            "--era",
            "modern",
            "--call",
            &read,
            "--call",
            "whatsapp_templates_list={}",
        ],
    );
    let conversation = &doc["calls"][0]["structured"];
    assert_eq!(conversation["status"], "ok", "{doc}");
    assert_eq!(conversation["data"]["reply_window"]["open"], true, "{doc}");
    assert!(conversation.to_string().contains("Passt, danke!"), "{doc}");
    assert_eq!(doc["calls"][1]["structured"]["status"], "ok", "{doc}");

    // The audit lines carry argument names only; no line holds the number or the text.
    let sent = server
        .stdout
        .events_where(2, |e| e["tool"] == "whatsapp_reply_send");
    let keys = &sent.last().unwrap()["arg_keys"];
    assert!(keys.as_array().unwrap().iter().any(|k| k == "to"), "{keys}");
    let lines = [server.stdout.all(), server.stderr.all()].concat();
    for needle in [NUMBER, TEXT, "Passt, danke!", "Frau Berg"] {
        let leaked: Vec<&String> = lines.iter().filter(|l| l.contains(needle)).collect();
        assert!(leaked.is_empty(), "{needle} in {leaked:#?}");
    }
}
