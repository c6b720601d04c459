//! The sections per connector and the trace links of failed calls, end to end: the fixture's
//! audit log → collect → digest → text and HTML.

use crate::collect::{Links, collect};
use crate::digest::{Digest, State};
use crate::fixture::{self, tests::digest as fixture_digest};
use crate::local::LOCAL_LOG_GROUP;
use crate::rows::Sample;
use insights::LocalInsights;

const CONSOLE: &str = "https://eu-central-1.console.aws.amazon.com/cloudwatch/home?region=eu-central-1#xray:traces/1-";

async fn digest_with(links: Links) -> Digest {
    let engine = LocalInsights::from_jsonl(LOCAL_LOG_GROUP, &fixture::jsonl());
    collect(
        &engine,
        engine.groups(),
        fixture::NOW.parse().unwrap(),
        links,
    )
    .await
    .unwrap()
}

/// Every failed call the digest shows: the top tools' and the sections'.
fn shown_samples(d: &Digest) -> Vec<&Sample> {
    let top = d.top.iter().flat_map(|t| &t.samples);
    top.chain(d.connectors.iter().flat_map(|c| &c.worst))
        .collect()
}

#[tokio::test]
async fn a_section_per_connector_with_failures_most_failed_first() {
    let d = fixture_digest().await;
    let names: Vec<&str> = d.connectors.iter().map(|c| c.connector.as_str()).collect();
    assert_eq!(names, ["papierkram", "sevdesk"]);
    let sevdesk = &d.connectors[1];
    assert_eq!(
        (sevdesk.calls, sevdesk.errors, sevdesk.previous_errors),
        (380, 8, 14)
    );
    assert_eq!(
        sevdesk.tools,
        [
            ("invoice_list".to_string(), 6),
            ("time_entry_list".to_string(), 2)
        ]
    );
    // Every failed call belongs to one of them.
    assert_eq!(
        d.connectors.iter().map(|c| c.errors).sum::<u64>(),
        d.totals.errors
    );
    let papierkram = &d.connectors[0];
    assert_eq!(papierkram.worst_tool(), "papierkram_invoice_get");
    assert_eq!(
        papierkram.worst, d.top[0].samples,
        "the same latest failures"
    );
    assert_eq!(sevdesk.worst.len(), 3);
    assert!(sevdesk.worst.iter().all(|s| s.status == "upstream_error"));
    assert!(sevdesk.worst.windows(2).all(|w| w[0].time >= w[1].time));
}

#[tokio::test]
async fn the_text_and_html_sections_link_the_worst_failures_to_their_traces() {
    let d = fixture_digest().await;
    let text = crate::text::render(&d);
    let html = crate::html::render(&d, None);
    assert!(text.contains("\nFAILURES PER CONNECTOR\n"), "{text}");
    assert!(text.contains("\nsevdesk: 8 failed of 380 calls (2.1 %); down 6 from 14\n"));
    assert!(text.contains("   Failing tools: invoice_list 6, time_entry_list 2\n"));
    assert!(text.contains("   Latest failures of invoice_list, its worst tool:\n"));
    assert!(html.contains(">sevdesk: 8 failed of 380 calls (2.1 %); down 6 from 14</div>"));
    let samples = shown_samples(&d);
    let (traced, untraced): (Vec<&Sample>, Vec<&Sample>) =
        samples.iter().partition(|s| s.trace_id.is_some());
    assert!(
        !traced.is_empty() && !untraced.is_empty(),
        "the fixture shows both"
    );
    for s in traced {
        let id = s.trace_id.as_deref().unwrap();
        let link = format!("{CONSOLE}{}-{}", &id[..8], &id[8..]);
        let line = text
            .lines()
            .find(|l| l.contains(crate::render::request_id(s)))
            .unwrap();
        assert!(line.ends_with(&format!("  trace: {link}")), "{line}");
        assert!(
            html.contains(&format!("<a href=\"{link}\">trace</a>")),
            "{link}"
        );
    }
    for s in untraced {
        let line = text
            .lines()
            .find(|l| l.contains(crate::render::request_id(s)))
            .unwrap();
        assert!(!line.contains("trace:"), "no trace id, no link: {line}");
    }
}

#[tokio::test]
async fn without_a_region_no_trace_is_linked() {
    let d = digest_with(Links::default()).await;
    assert!(shown_samples(&d).iter().any(|s| s.trace_id.is_some()));
    let text = crate::text::render(&d);
    let html = crate::html::render(&d, None);
    assert!(text.contains("FAILURES PER CONNECTOR"));
    assert!(!text.contains("trace:") && !html.contains("xray"), "{text}");
}

#[tokio::test]
async fn the_links_open_the_console_of_the_region_given() {
    let links = Links {
        dashboard_url: None,
        trace_region: Some("us-west-2".parse().unwrap()),
    };
    let text = crate::text::render(&digest_with(links).await);
    assert!(text.contains("trace: https://us-west-2.console.aws.amazon.com/cloudwatch/home?region=us-west-2#xray:traces/1-"));
    assert!(!text.contains("eu-central-1"));
}

#[tokio::test]
async fn a_week_without_failed_calls_has_no_sections_per_connector() {
    let kept: String = fixture::jsonl()
        .lines()
        .filter(|l| !l.contains("\"tool_error\"") && !l.contains("outcome_unknown"))
        .map(|l| format!("{l}\n"))
        .collect();
    let engine = LocalInsights::from_jsonl(LOCAL_LOG_GROUP, &kept);
    let d = collect(
        &engine,
        engine.groups(),
        fixture::NOW.parse().unwrap(),
        Links::default(),
    )
    .await
    .unwrap();
    assert_eq!(d.state(), State::AllClear);
    assert!(d.connectors.is_empty());
    assert!(!crate::text::render(&d).contains("FAILURES PER CONNECTOR"));
    assert!(!crate::html::render(&d, None).contains(crate::render::CONNECTORS_TITLE));
}
