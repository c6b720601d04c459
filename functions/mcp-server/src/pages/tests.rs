use super::*;

fn catalog() -> Catalog {
    catalog::parse(
        "demo.yaml",
        r#"
connector: demo
title: Demo Books
purpose: "The demo's books: invoices."
base_url: "https://{subdomain}.example.com/api"
secrets: [subdomain, token]
auth: { bearer: token }
list_envelope: { items: entries }
quota:
  rate: { requests: 2, seconds: 1 }
  caller_daily_budget: 500
tools:
  - name: demo_invoices_list
    risk: low
    list: true
    description: 'Lists invoices. Use it for "which invoices | bills". Example {"page": 1}'
    get: /invoices
  - name: demo_invoice_delete
    core: false
    risk: high
    description: 'Deletes an invoice. Use it to remove a draft. Example {"id": 1}'
    side_effects: Deletes the draft <invoice> for good.
    delete: /invoices/{id}
    params:
      id: { type: integer, in: path, min: 1 }
"#,
    )
    .unwrap()
}

#[test]
fn a_page_says_what_the_connector_is_for_how_it_signs_in_and_what_each_tool_does() {
    let cap = capability(&catalog(), "demo.yaml");
    assert_eq!(
        (cap.kind, cap.status, cap.per_person),
        ("rest", "live", false)
    );
    assert_eq!(
        cap.auth,
        "the deployment's key (bearer token from the secret field `token`)"
    );
    assert_eq!(cap.tools[0].does, "Lists invoices.");
    assert_eq!(cap.tools[1].does, "Deletes the draft <invoice> for good.");
    assert!(cap.tools[1].writes && !cap.tools[1].listed);
    assert_eq!(
        cap.limits,
        [
            "The upstream allows 2 requests a second; the whole deployment keeps it together.",
            "Each caller may send 500 upstream requests a day (UTC)."
        ]
    );
    let page = markdown(
        &cap,
        Some("2026-12-01"),
        &["risk `demo_x`: why".to_string()],
    );
    assert!(
        page.starts_with(
            "---\nid: demo\ntype: rest\nstatus: live\npurpose: \"The demo's books: invoices.\"\n\
         auth: deployment\nendpoint: \"https://{subdomain}.example.com/api\"\nsource: demo.yaml\n\
         reviewed: 2026-12-01\n---\n"
        ),
        "{page}"
    );
    assert!(
        page.contains("| `demo_invoices_list` | low | yes | Lists invoices. |"),
        "{page}"
    );
    assert!(
        page.contains(
            "| `demo_invoice_delete` | high | no | Deletes the draft <invoice> for good. |"
        )
    );
    assert!(page.contains("- risk `demo_x`: why"));
    assert_eq!(reviewed(&page), Some("2026-12-01"));
    assert_eq!(reviewed(&markdown(&cap, None, &[])), None);
}

#[test]
fn the_connectors_page_escapes_every_value_and_loads_nothing() {
    let html = html::html(&[capability(&catalog(), "demo.yaml")]);
    assert!(html.contains("Deletes the draft &lt;invoice&gt; for good."));
    assert!(!html.contains("<invoice>"));
    assert!(!html.contains("<script") && !html.contains("src=") && !html.contains("href="));
    assert!(html.contains("<td>high</td>"));
    assert!(html.contains("<code>demo_<wbr>invoice_<wbr>delete</code>"));
    assert!(html.contains("secret field <code>token</code>"), "{html}");
}
