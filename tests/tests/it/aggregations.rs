//! The Papierkram aggregation tools end to end against the sandbox, checked against sums
//! computed independently from the demo data with plain loops (exact decimals), and a partial
//! upstream failure reported rather than dropped.

use std::collections::BTreeMap;

use integration_tests::{Rpc, Server, start_server_on_sandbox, structured};
use papierkram_sandbox::model::{InvoiceState, VoucherState};
use papierkram_sandbox::{Fault, SandboxState, demo};
use rust_decimal::Decimal;
use serde_json::{Value, json};

const TOKEN: &str = "aggregation-token";

async fn setup() -> (Server, SandboxState, Rpc) {
    let (server, sandbox) = start_server_on_sandbox(TOKEN, &[]).await;
    let rpc = Rpc::new(&server.url);
    (server, sandbox, rpc)
}

fn money(d: Decimal) -> Value {
    let mut d = d.round_dp(2);
    d.rescale(2);
    json!(d.to_string())
}

fn counted(invoice: InvoiceState) -> bool {
    matches!(
        invoice,
        InvoiceState::Paid | InvoiceState::Unpaid | InvoiceState::Overdue
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn month_close_matches_sums_computed_from_the_demo_data() {
    let (_server, _sandbox, rpc) = setup().await;
    for (year, month) in [(2025, 1), (2025, 12), (2026, 5), (2026, 11)] {
        let in_month =
            |d: jiff::civil::Date| i32::from(d.year()) == year && i32::from(d.month()) == month;
        let invoices: Vec<_> = demo()
            .invoices
            .iter()
            .filter(|i| in_month(i.document_date) && counted(i.state))
            .collect();
        let vouchers: Vec<_> = demo()
            .vouchers
            .iter()
            .filter(|v| in_month(v.document_date) && v.state != VoucherState::Canceled)
            .collect();
        let income: Decimal = invoices.iter().map(|i| i.total_gross).sum();
        let expenses: Decimal = vouchers.iter().map(|v| v.amount).sum();
        let mut per_customer: BTreeMap<&str, Decimal> = BTreeMap::new();
        for i in &invoices {
            *per_customer.entry(i.billing.company.as_str()).or_default() += i.total_gross;
        }
        let best = per_customer
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .unwrap();

        let reply = rpc
            .call(
                "papierkram_month_close_get",
                json!({"year": year, "month": month}),
            )
            .await;
        let result = structured(&reply);
        assert_eq!(result["status"], "ok", "{reply}");
        let data = &result["data"];
        assert_eq!(data["income_gross"], money(income), "{year}-{month}");
        assert_eq!(data["expenses_gross"], money(expenses), "{year}-{month}");
        assert_eq!(data["balance_gross"], money(income - expenses));
        assert_eq!(data["invoices"], json!(invoices.len()));
        assert_eq!(data["vouchers"], json!(vouchers.len()));
        assert_eq!(data["top_customers"][0]["name"], json!(best.0));
        assert_eq!(data["top_customers"][0]["total"], money(*best.1));
        assert!(
            serde_json::to_string(result).unwrap().len() < 2000,
            "compact answer"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_items_match_the_demo_data_in_total_and_per_customer() {
    let (_server, _sandbox, rpc) = setup().await;
    let open: Vec<_> = demo()
        .invoices
        .iter()
        .filter(|i| matches!(i.state, InvoiceState::Unpaid | InvoiceState::Overdue))
        .collect();
    let overdue: Vec<_> = open
        .iter()
        .filter(|i| i.state == InvoiceState::Overdue)
        .collect();
    let reply = rpc.call("papierkram_open_items_get", json!({})).await;
    let data = &structured(&reply)["data"];
    assert_eq!(data["open_count"], json!(open.len()), "{reply}");
    assert_eq!(
        data["open_gross"],
        money(open.iter().map(|i| i.outstanding_amount).sum())
    );
    assert_eq!(data["overdue_count"], json!(overdue.len()));
    assert_eq!(
        data["overdue_gross"],
        money(overdue.iter().map(|i| i.outstanding_amount).sum())
    );
    let earliest = open.iter().min_by_key(|i| i.due_date).unwrap();
    assert_eq!(
        data["next_due"][0]["due_date"],
        json!(earliest.due_date.to_string())
    );

    // One customer: the filter reaches the upstream, and the figures narrow to that customer.
    let customer = open[0].customer_id;
    let theirs: Decimal = open
        .iter()
        .filter(|i| i.customer_id == customer)
        .map(|i| i.outstanding_amount)
        .sum();
    let reply = rpc
        .call("papierkram_open_items_get", json!({"company_id": customer}))
        .await;
    assert_eq!(
        structured(&reply)["data"]["open_gross"],
        money(theirs),
        "{reply}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn customer_overview_matches_the_demo_data() {
    let (_server, _sandbox, rpc) = setup().await;
    let customer = demo().invoices[0].customer_id;
    let theirs: Vec<_> = demo()
        .invoices
        .iter()
        .filter(|i| i.customer_id == customer && counted(i.state))
        .collect();
    let projects = demo()
        .projects
        .iter()
        .filter(|p| p.company_id == customer)
        .count();
    let reply = rpc
        .call(
            "papierkram_customer_overview_get",
            json!({"company_id": customer}),
        )
        .await;
    let data = &structured(&reply)["data"];
    assert_eq!(data["invoices"], json!(theirs.len()), "{reply}");
    assert_eq!(
        data["invoiced_gross"],
        money(theirs.iter().map(|i| i.total_gross).sum())
    );
    assert_eq!(data["projects"], json!(projects));
    assert_eq!(
        data["customer"][0]["name"],
        json!(theirs[0].billing.company)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_page_is_reported_as_partial_never_dropped() {
    let (server, sandbox, rpc) = setup().await;
    sandbox.inject_fault(Fault::status("/api/v1/expense/vouchers", 503).times(1));
    let reply = rpc
        .call(
            "papierkram_month_close_get",
            json!({"year": 2026, "month": 5}),
        )
        .await;
    let result = structured(&reply);
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert_eq!(result["status"], "unavailable");
    assert_eq!(result["partial"], true);
    assert_eq!(result["failed_sources"][0]["source"], "expenses");
    assert!(result["hint"].as_str().unwrap().contains("incomplete"));
    assert!(result["partial_data"]["income_gross"].is_string());
    let event = server.stdout.event_for("papierkram_month_close_get");
    assert_eq!(event["status"], "unavailable");
    assert_eq!(event["reason"], "partial_upstream_503");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregation_arguments_are_validated_like_any_tool() {
    let (_server, _sandbox, rpc) = setup().await;
    let reply = rpc
        .call(
            "papierkram_month_close_get",
            json!({"year": "2026", "monht": 5}),
        )
        .await;
    let result = structured(&reply);
    assert_eq!(result["status"], "invalid_input");
    assert!(
        result["hint"]
            .as_str()
            .unwrap()
            .contains("Did you mean `month`?"),
        "{reply}"
    );
    let reply = rpc
        .call(
            "papierkram_month_close_get",
            json!({"year": 2026, "month": 13}),
        )
        .await;
    assert_eq!(structured(&reply)["status"], "invalid_input");
}
