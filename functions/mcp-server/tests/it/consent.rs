//! What a person reads before a write, end to end on the shipped catalogs: a 2026-07-28 client
//! that shows forms gets each confirmation as a form (`input_required`) whose message is in the
//! person's words (the action, each argument under its label with dates, amounts and names
//! readable, the risk in plain words), never the HTTP request, JSON or advice meant for the
//! model, which stay in the preview the model gets. Papierkram's invoice create and send
//! against the sandbox (send reads the invoice, so the form names it), Cal.com's booking.

use std::collections::HashMap;

use crate::common::{TOOL_KEY, TestApp, app_with, send};
use axum::body::Body;
use http::Request;
use mcp_server::{ApiKey, SecretValues};
use papierkram_sandbox::SandboxState;
use serde_json::{Value, json};

const TOKEN: &str = "consent-sandbox-token";

fn shipped() -> Vec<catalog::Catalog> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/connector/catalogs");
    catalog::load_dir(&dir).unwrap()
}

async fn setup() -> (TestApp, SandboxState) {
    let sandbox = SandboxState::new(TOKEN);
    let (addr, _task) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
    let base = format!("http://{addr}/api/v1");
    let fields = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>()
    };
    let secrets = SecretValues {
        origin_verify: Vec::new(),
        idp_client_secret: None,
        api_keys: vec![ApiKey::new("tester", TOOL_KEY)],
        pepper: None,
        confirmation_keys: vec![b"tests-confirmation-key-0123456789abcdef".to_vec()],
        connectors: HashMap::from([
            (
                "papierkram".to_string(),
                fields(&[("token", TOKEN), ("subdomain", "sandbox")]),
            ),
            (
                "calcom".to_string(),
                fields(&[("api_key", "cal_live_0123456789")]),
            ),
        ]),
    };
    let app = app_with(&[("PAPIERKRAM_BASE_URL", &base)], shipped(), secrets);
    (app, sandbox)
}

/// A `tools/call` from a 2026-07-28 client that shows forms: the whole reply.
async fn call_with_forms(app: &TestApp, tool: &str, args: Value) -> Value {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "form-client", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
    });
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                      "params": {"name": tool, "arguments": args, "_meta": meta}});
    let request = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {TOOL_KEY}"))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(Body::from(body.to_string()))
        .unwrap();
    send(app, request).await.2
}

/// The form's message of a call that asks for confirmation.
async fn form_message(app: &TestApp, tool: &str, args: Value) -> String {
    let reply = call_with_forms(app, tool, args).await;
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    reply["result"]["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap()
        .to_string()
}

/// What a person's form never shows: the request, JSON and the model's advice.
fn assert_in_a_persons_words(message: &str) {
    for meant_for_the_model in [
        "POST",
        "/api/",
        "/income/",
        "{\"",
        "idempotency",
        "retry",
        "Request:",
        "Data sent",
        "papierkram_",
        "calcom_",
    ] {
        assert!(
            !message.contains(meant_for_the_model),
            "`{meant_for_the_model}` in: {message}"
        );
    }
}

#[tokio::test]
async fn an_invoice_draft_reads_as_its_title_customer_date_lines_and_sum() {
    let (app, sandbox) = setup().await;
    let customer = sandbox.data().companies[0].clone();
    let completed = format!("{} · {}", customer.id, customer.name);
    let message = form_message(
        &app,
        "papierkram_invoice_create",
        json!({"name": "Website relaunch", "customer_id": completed,
               "document_date": "2026-05-04",
               "line_items": [{"name": "Konzept", "quantity": 8, "unit": "Stunden",
                               "price": 95.0, "vat_rate": "19%"},
                              {"name": "Umsetzung", "quantity": 2.5, "price": 120, "vat_rate": "19%"}]}),
    )
    .await;
    let expected = format!(
        "The assistant asks to do this in Papierkram: invoice create.\n\
         What it does: Creates one outgoing invoice as a draft (Entwurf) in Papierkram; it gets \
         no number, is not booked and the customer is not contacted.\n\n\
         Customer: {} ({}; the name as the assistant gave it)\n\
         Invoice date: Monday, 4 May 2026\n\
         Line items:\n  \
         1. Name: Konzept; Net price: 95.00 EUR; Quantity: 8; Unit: Stunden; VAT rate: 19%\n  \
         2. Name: Umsetzung; Net price: 120.00 EUR; Quantity: 2.5; VAT rate: 19%\n\
         Title: Website relaunch\n\
         In total: Line items: 2 items, net 1060.00 EUR\n\n\
         It creates or changes a financial document in Papierkram.\n\
         Nothing happens unless you agree.",
        customer.name, customer.id
    );
    assert_eq!(message, expected);
    assert_in_a_persons_words(&message);
    // The person's words stay out of the audit line (argument names only).
    let audit = app.audit.lines().join("\n");
    assert!(audit.contains("papierkram_invoice_create"), "{audit}");
    for private in [customer.name.as_str(), "Website relaunch", "What it does"] {
        assert!(
            !audit.contains(private),
            "`{private}` in the audit: {audit}"
        );
    }
    assert_eq!(sandbox.write_count(), 0, "a form writes nothing");
}

#[tokio::test]
async fn sending_an_invoice_names_the_invoice_the_dry_run_read_and_says_what_cannot_be_undone() {
    let (app, sandbox) = setup().await;
    let invoice = sandbox.data().invoices[0].clone();
    let message = form_message(
        &app,
        "papierkram_invoice_send",
        json!({"id": invoice.id, "send_via": "email", "email_recipient": "jana.berg@muster.example"}),
    )
    .await;
    let head = "The assistant asks to do this in Papierkram: invoice send.\nWhat it does: \
                Papierkram records the outgoing invoice as delivered";
    assert!(message.starts_with(head), "{message}");
    for line in [
        format!("\nInvoice: “{}” ({})\n", invoice.name, invoice.id),
        "\nE-mail to: jana.berg@muster.example\n".to_string(),
        "\nSent as: email\n".to_string(),
        "\nIt reaches people outside your company, and that cannot be called back.\n".into(),
    ] {
        assert!(message.contains(&line), "{line:?} not in: {message}");
    }
    assert_in_a_persons_words(&message);
    assert_eq!(sandbox.write_count(), 0, "a form writes nothing");
}

#[tokio::test]
async fn a_booking_reads_its_time_in_the_attendees_zone_and_names_everyone_notified() {
    let (app, _sandbox) = setup().await;
    let message = form_message(
        &app,
        "calcom_booking_create",
        json!({"event_type_id": 31, "start": "2026-05-04T10:00[Europe/Berlin]",
               "attendee_name": "Jana Berg", "attendee_email": "jana.berg@muster.example",
               "attendee_time_zone": "Europe/Berlin", "guests": ["g@muster.example"]}),
    )
    .await;
    for line in [
        "The assistant asks to do this in Cal.com: booking create.\n",
        "\nStart: Monday, 4 May 2026, 10:00 (Europe/Berlin)\n",
        "\nAttendee name: Jana Berg\n",
        "\nEvent type: 31\n",
        "\nGuests: g@muster.example\n",
        "\nWho is notified: jana.berg@muster.example, g@muster.example\n",
        "\nIt reaches people outside your company, and that cannot be called back.\n",
    ] {
        assert!(message.contains(line), "{line:?} not in: {message}");
    }
    assert_in_a_persons_words(&message);
}

/// The model still gets its preview with the request and its advice: only the person's form
/// changed.
#[tokio::test]
async fn the_model_still_reads_the_request_and_its_advice_in_the_preview() {
    let (app, _sandbox) = setup().await;
    let reply = call_with_forms(
        &app,
        "calcom_booking_create",
        json!({"event_type_id": 31, "start": "2026-05-04T10:00[Europe/Berlin]",
               "attendee_name": "Jana Berg", "attendee_email": "jana.berg@muster.example",
               "attendee_time_zone": "Europe/Berlin", "dry_run": true}),
    )
    .await;
    let preview = &reply["result"]["structuredContent"]["preview"];
    assert_eq!(preview["request"]["method"], "POST", "{reply}");
    assert_eq!(preview["request"]["path"], "/v2/bookings");
    assert!(preview.get("form").is_none(), "{preview}");
    let warnings = preview["warnings"].to_string();
    assert!(warnings.contains("idempotency_key"), "{warnings}");
}
