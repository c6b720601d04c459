//! `quota-alarm run --local` over a month of Papierkram traffic in two log groups
//! (`tests/fixtures/audit-papierkram-may-2026-{a,b}.jsonl`): the end of April almost used up,
//! an upstream that resets a few minutes late, then May on weekdays with other API clients of
//! the same account consuming credits the audit log never sees.

use quota_alarm::cli::{parse, run};
use quota_alarm::config::Config;
use serde_json::Value;

const A: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/audit-papierkram-may-2026-a.jsonl"
);
const B: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/audit-papierkram-may-2026-b.jsonl"
);

async fn local(now: &str, extra: &str) -> String {
    let args = format!("run --local {A} --local {B} --now {now} {extra}");
    let command = parse(args.split_whitespace().map(str::to_string), false).unwrap();
    let mut out = Vec::new();
    run(command, Config::from_lookup(|_| None).unwrap(), &mut out)
        .await
        .unwrap();
    String::from_utf8(out).unwrap()
}

/// Papierkram's lines of the `--emf` output (the other shipped catalogs have their own).
fn papierkram(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["connector"] == "papierkram" || v["Connector"] == "papierkram")
        .collect()
}

/// Papierkram's decision line of the `--emf` output.
async fn decision(now: &str) -> Value {
    let out = local(now, "--emf").await;
    papierkram(&out).pop().unwrap()
}

#[tokio::test]
async fn a_month_of_traffic_warns_that_the_quota_runs_out_before_the_reset() {
    let table = local("2026-05-20T10:00:00Z", "").await;
    let row = table
        .lines()
        .find(|l| l.starts_with("papierkram "))
        .unwrap();
    for expected in [
        "month Europe/Berlin",
        "10000",
        "6904",
        "69.0 %",
        "354.1",
        "2026-05-29 05:52 CEST",
        "8.7",
    ] {
        assert!(row.contains(expected), "{expected} missing in\n{table}");
    }
    assert!(row.ends_with("warn"), "{table}");
    assert!(
        table.contains("top consumers: papierkram_invoices_list"),
        "{table}"
    );
    assert!(table.contains("audited calls in the window: "), "{table}");
}

#[tokio::test]
async fn emf_output_carries_the_metrics_the_alarms_read() {
    let out = local("2026-05-20T10:00:00Z", "--emf").await;
    let emf = papierkram(&out).remove(0);
    assert_eq!(emf["Connector"], "papierkram");
    assert_eq!(emf["QuotaUtilizationPercent"], 69.04);
    assert_eq!(emf["QuotaForecastDaysLeft"], 8.74);
    assert_eq!(emf["QuotaExhaustedBeforeWindowEnd"], 1.0);
    assert_eq!(
        emf["_aws"]["CloudWatchMetrics"][0]["Namespace"],
        "HostedMcp"
    );
    let d = decision("2026-05-20T10:00:00Z").await;
    assert_eq!(d["state"], "warn");
    assert_eq!(d["remaining"], 3096);
}

#[tokio::test]
async fn april_figures_stop_counting_at_the_berlin_month_start() {
    // Still April in Berlin: the old window, nearly used up.
    let april = decision("2026-04-30T21:59:00Z").await;
    assert_eq!(april["state"], "critical");
    assert_eq!(april["window_start"], "2026-03-31T22:00:00.000Z");
    // May, before the first call: nothing known, so no utilisation at all (not 0 %).
    let out = local("2026-04-30T22:01:00Z", "--emf").await;
    let mut lines = papierkram(&out);
    assert_eq!(lines.len(), 1, "no EMF line: {out}");
    let may = lines.remove(0);
    assert_eq!(may["state"], "unknown");
    assert!(may.get("utilization_percent").is_none());
    // After the first real May call the counter went up: a small share, too early to forecast.
    let morning = decision("2026-05-01T06:30:00Z").await;
    assert_eq!(morning["state"], "ok");
    assert!(
        morning["utilization_percent"].as_f64().unwrap() < 5.0,
        "{morning}"
    );
    assert!(morning.get("forecast_days_left").is_none(), "{morning}");
}

#[tokio::test]
async fn a_late_upstream_reset_counts_until_a_newer_figure_arrives() {
    // The upstream still reported April's remaining figure minutes after the Berlin midnight:
    // that is the only May figure, so it stands (and pages) until a later call corrects it.
    let d = decision("2026-04-30T22:10:00Z").await;
    assert_eq!(d["state"], "critical");
    assert_eq!(d["last_seen"], "2026-04-30T22:07:00.000Z");
}
