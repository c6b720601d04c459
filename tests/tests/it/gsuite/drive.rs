//! Drive and contacts asked for on first use (their tools' own scopes), Drive, contacts and
//! attachments as a person, a free hour with a colleague, Google's per-user
//! throttling, and a week-old refresh token: steps of the gsuite test's one setup (one provider, one twin, one server),
//! run last because the week they let pass ends the person's connection.

use integration_tests::Rpc;
use integration_tests::google::{Account, Twin};
use integration_tests::oidc::Op;
use serde_json::{Value, json};

use crate::per_person::more_access;

/// Alice's Drive file, attachment and contact.
pub(super) fn add_to(account: &mut Account, who: &str) {
    account.files.push((
        json!({"id": format!("{who}-doc"), "name": format!("Angebot für {who}"),
            "mimeType": "application/vnd.google-apps.document",
            "modifiedTime": "2026-05-02T10:00:00.000Z"}),
        format!("Angebot: 3 Tage Beratung für {who}."),
    ));
    account.files.push((
        json!({"id": format!("{who}-scan"), "name": "Scan.pdf", "mimeType": "application/pdf",
            "modifiedTime": "2026-05-01T10:00:00.000Z"}),
        String::new(),
    ));
    account.attachments.push((
        format!("{who}-m1"),
        "att-1".into(),
        format!("Datum;Betrag\n2026-05-01;{}\n", who.len()).into_bytes(),
    ));
    account.contacts.push(json!({"resourceName": "people/c1",
        "names": [{"displayName": "Anna Berg"}],
        "emailAddresses": [{"value": "anna.berg@muster.example"}],
        "phoneNumbers": [{"value": "+49 30 1234567"}]}));
}

/// The whole reply of a tool call: its content blocks and its structured result.
async fn reply(url: &str, bearer: &str, tool: &str, args: Value) -> Value {
    let params = json!({"name": tool, "arguments": args});
    Rpc::with_bearer(url, bearer)
        .request("tools/call", params)
        .await["result"]
        .clone()
}

/// The content block that carries a document (an embedded resource).
fn resource(result: &Value) -> &Value {
    let blocks = result["content"].as_array().unwrap();
    let found = blocks.iter().find(|b| b["type"] == "resource");
    &found.unwrap_or_else(|| panic!("no resource: {result}"))["resource"]
}

pub(super) async fn steps(url: &str, alice: &str, op: &Op, twin: &Twin) {
    // Drive needs a scope of its own, asked for on first use.
    more_access(
        url,
        ("alice", alice),
        "gsuite_drive_files_search",
        json!({}),
    )
    .await;
    // Drive's query words find her Doc; it reads as text, and as a PDF document.
    let found = Rpc::with_bearer(url, alice)
        .tool(
            "gsuite_drive_files_search",
            json!({"query": "name contains 'angebot' and trashed = false"}),
        )
        .await;
    assert_eq!(
        found["items"],
        json!([{"id": "alice-doc", "name": "Angebot für alice",
        "mimeType": "application/vnd.google-apps.document",
        "modifiedTime": "2026-05-02T10:00:00.000Z"}]),
        "{found}"
    );
    let text = reply(
        url,
        alice,
        "gsuite_drive_file_download",
        json!({"id": "alice-doc", "mime_type": "text/plain"}),
    )
    .await;
    assert_eq!(
        resource(&text)["text"],
        "Angebot: 3 Tage Beratung für alice.",
        "{text}"
    );
    let pdf = reply(
        url,
        alice,
        "gsuite_drive_file_download",
        json!({"id": "alice-doc", "mime_type": "application/pdf"}),
    )
    .await;
    assert_eq!(resource(&pdf)["mimeType"], "application/pdf", "{pdf}");
    assert!(
        resource(&pdf)["blob"]
            .as_str()
            .unwrap()
            .starts_with("JVBERi0xLjQ"),
        "%PDF-1.4"
    );
    // An uploaded PDF is no Google format: Drive's refusal, in words the model can act on.
    let refused = Rpc::with_bearer(url, alice)
        .tool(
            "gsuite_drive_file_download",
            json!({"id": "alice-scan", "mime_type": "text/plain"}),
        )
        .await;
    assert_eq!(refused["status"], "unauthorized", "{refused}");
    assert_eq!(
        refused["upstream_message"],
        "Export only supports Docs Editors files. (code fileNotExportable)"
    );

    // An attachment is a document named and typed by the message part the model read.
    let csv = reply(
        url,
        alice,
        "gsuite_mail_attachment_get",
        json!({"message_id": "alice-m1",
        "id": "att-1", "filename": "Umsatz Mai.csv", "mime_type": "text/csv"}),
    )
    .await;
    let doc = resource(&csv);
    assert_eq!(
        doc["uri"], "gsuite://gsuite_mail_attachment_get/Umsatz%20Mai.csv",
        "{csv}"
    );
    assert_eq!(doc["mimeType"], "text/csv");
    assert_eq!(doc["text"], "Datum;Betrag\n2026-05-01;5\n");
    assert_eq!(
        csv["structuredContent"]["data"]["data"],
        "(26 bytes of text/csv, Umsatz Mai.csv, sent as content)",
        "{csv}"
    );

    // Contacts at People's own host, with their own scope: nothing until one empty search
    // warms Google's cache, as the description tells the model.
    let anna = json!({"query": "ann"});
    more_access(
        url,
        ("alice", alice),
        "gsuite_contacts_search",
        anna.clone(),
    )
    .await;
    let cold = Rpc::with_bearer(url, alice)
        .tool("gsuite_contacts_search", anna.clone())
        .await;
    assert_eq!(cold["items"], json!([]), "{cold}");
    Rpc::with_bearer(url, alice)
        .tool("gsuite_contacts_search", json!({"query": ""}))
        .await;
    let warm = Rpc::with_bearer(url, alice)
        .tool("gsuite_contacts_search", anna)
        .await;
    let person = &warm["items"][0]["person"];
    assert_eq!(
        person["emailAddresses"][0]["value"], "anna.berg@muster.example",
        "{warm}"
    );

    // A free hour with Bob next week: both standups (Monday 09:00-09:15 in Berlin) taken out,
    // the weekend off, in about 200 tokens.
    let week = Rpc::with_bearer(url, alice)
        .tool(
            "gsuite_calendar_free_slots_get",
            json!({"week_start": "2026-05-04", "time_zone": "Europe/Berlin",
                "with": [{"id": "bob@muster.example"}]}),
        )
        .await;
    let days = &week["data"]["week"]["days"];
    assert_eq!(
        days[0],
        json!({"date": "2026-05-04", "day": "Mon", "free": ["09:15-17:00"]}),
        "{week}"
    );
    assert_eq!(days[1]["free"], json!(["09:00-17:00"]));
    assert_eq!(
        days[5],
        json!({"date": "2026-05-09", "day": "Sat", "off": true})
    );
    let bytes = week.to_string().len();
    assert!(bytes < 1000, "{bytes} B: {week}");

    // Google's per-user limit (403 userRateLimitExceeded): rate_limited, not unauthorized.
    twin.throttle("alice", 1);
    let inbox = json!({"query": "in:inbox"});
    let limited = Rpc::with_bearer(url, alice)
        .tool("gsuite_mail_threads_search", inbox.clone())
        .await;
    assert_eq!(limited["status"], "rate_limited", "{limited}");
    let next = Rpc::with_bearer(url, alice)
        .tool("gsuite_mail_threads_search", inbox.clone())
        .await;
    assert_eq!(next["status"], "ok", "{next}");

    // A week later (Google's testing-mode refresh tokens live 7 days): the access token has
    // expired, the refresh is refused with invalid_grant, and the person is asked to connect
    // again with a link, nothing reaching Google.
    op.advance_clock(7 * 24 * 3600 + 60).await;
    let last = twin.gate.tokens().last().unwrap().clone();
    twin.gate.refuse(&last);
    let refreshes = op.requests_to("/token").await;
    let asked = Rpc::with_bearer(url, alice)
        .tool("gsuite_mail_threads_search", inbox)
        .await;
    assert_eq!(asked["status"], "connection_required", "{asked}");
    assert!(
        asked["connect_url"]
            .as_str()
            .unwrap()
            .contains("/connect/gsuite"),
        "{asked}"
    );
    assert_eq!(
        op.requests_to("/token").await,
        refreshes + 1,
        "one refused refresh"
    );
}
