//! `tool-error-digest` on its Lambda path with the clients `main` builds: Logs Insights through
//! the local CloudWatch Logs endpoint (our engine over the audit fixture), SES v2 through
//! `moto_server`, the sent message read back from moto's data dump.

use aws_json::SESV2;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use insights::cloudwatch::CloudWatchInsights;
use integration_tests::logs_endpoint::{Behaviour, LogsEndpoint, Status, audit_lines};
use integration_tests::{Moto, aws_client};
use jiff::Timestamp;
use lambda_runtime::Diagnostic;
use serde_json::Value;
use tool_error_digest::collect::Links;
use tool_error_digest::email::Addresses;
use tool_error_digest::handler::{Deps, Settings, handle};
use tool_error_digest::ses::SesMailer;

/// Two weeks of audit events and one plain tracing line, which `audit_lines` leaves out.
const FIXTURE: &str =
    include_str!("../../../functions/tool-error-digest/tests/fixtures/audit-two-weeks.jsonl");
const NOW: &str = "2026-11-30T06:00:00Z";
const PROD: &str = "/aws/lambda/hosted-mcp-prod";
/// Found through the prefix, empty: every query must still cover it.
const STAGING: &str = "/aws/lambda/hosted-mcp-staging";
const PREFIX: &str = "/aws/lambda/hosted-mcp-";
const SENDER: &str = "digest@example.com";
const RECIPIENTS: [&str; 2] = ["ops@example.com", "oncall@example.com"];

/// Moto with a verified sender, the logs endpoint with the fixture, and the handler's deps
/// built from the real clients as `main` builds them.
async fn setup() -> (Moto, LogsEndpoint, Deps<CloudWatchInsights, SesMailer>) {
    let moto = tokio::task::spawn_blocking(Moto::start).await.unwrap();
    let ses = aws_client(SESV2, &moto.endpoint);
    // Moto rejects SendEmail from an identity it does not know ("Did not have authority").
    ses.rest(
        "CreateEmailIdentity",
        http::Method::POST,
        "/v2/email/identities",
        &serde_json::json!({"EmailIdentity": SENDER}),
    )
    .await
    .expect("create the sender identity in moto");
    let logs = LogsEndpoint::start().await;
    logs.add_lines(PROD, &audit_lines(FIXTURE));
    logs.add_lines(STAGING, "");
    let deps = Deps {
        logs: logs.insights(),
        mail: SesMailer::new(ses),
        settings: Settings {
            log_groups: vec![PROD.into()],
            log_group_prefix: Some(PREFIX.into()),
            addresses: Addresses {
                sender: SENDER.into(),
                recipients: RECIPIENTS.map(String::from).to_vec(),
                subject_prefix: String::new(),
            },
            links: Links {
                dashboard_url: Some("https://example.com/dashboard".into()),
                trace_region: Some("eu-central-1".parse().unwrap()),
            },
            send_all_clear: true,
        },
    };
    (moto, logs, deps)
}

fn now() -> Timestamp {
    NOW.parse().unwrap()
}

/// The raw messages moto's SES accepted: `ses.RawMessage` in `/moto-api/data.json`.
async fn raw_messages(moto: &Moto) -> Vec<Value> {
    let data: Value = reqwest::get(format!("{}/moto-api/data.json", moto.endpoint))
        .await
        .expect("moto data dump")
        .json()
        .await
        .expect("moto data JSON");
    data["ses"]["RawMessage"]
        .as_array()
        .unwrap_or_else(|| panic!("no ses.RawMessage in moto's data: {data}"))
        .clone()
}

/// The header block of a message or part, continuation lines unfolded.
fn headers(block: &str) -> Vec<(String, String)> {
    let head = block.split("\r\n\r\n").next().unwrap_or_default();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in head.split("\r\n") {
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = out.last_mut() {
                value.push_str(line);
            }
        } else if let Some((name, value)) = line.split_once(':') {
            out.push((name.to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    out
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Decodes RFC 2047 `=?UTF-8?B?…?=` words; the space between two encoded words is dropped.
fn decode_words(value: &str) -> String {
    value
        .split_whitespace()
        .map(|word| {
            match word
                .strip_prefix("=?UTF-8?B?")
                .and_then(|w| w.strip_suffix("?="))
            {
                Some(b64) => String::from_utf8(STANDARD.decode(b64).unwrap()).unwrap(),
                None => format!(" {word}"),
            }
        })
        .collect::<String>()
        .trim()
        .replace("  ", " ")
}

/// One leaf part of a MIME message.
struct Part {
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Part {
    fn content_type(&self) -> &str {
        header(&self.headers, "content-type").unwrap_or_default()
    }
}

/// The parts between boundary lines (every `--…` delimiter), base64 bodies decoded. Enough for
/// messages whose bodies are all base64, as the digest's are.
fn parts(raw: &str) -> Vec<Part> {
    raw.split("\r\n--")
        .skip(1)
        .filter_map(|segment| {
            let (_boundary, rest) = segment.split_once("\r\n")?;
            let headers = headers(rest);
            header(&headers, "content-type")?;
            let body = rest.split_once("\r\n\r\n").map_or("", |(_, b)| b);
            let body = if header(&headers, "content-transfer-encoding") == Some("base64") {
                let b64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
                STANDARD.decode(b64).expect("base64 body")
            } else {
                body.as_bytes().to_vec()
            };
            Some(Part { headers, body })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn digest_of_the_fixture_arrives_in_ses_with_text_html_and_chart() {
    let (moto, logs, deps) = setup().await;

    let outcome = handle(&deps, now()).await.expect("digest run");
    assert_eq!(outcome.subject, "7 tools failing, 2 new — week 48");
    assert!(outcome.sent);
    assert_eq!(outcome.log_groups, 2);

    let messages = raw_messages(&moto).await;
    assert_eq!(messages.len(), 1, "{messages:?}");
    let message = &messages[0];
    assert_eq!(message["source"], SENDER);
    assert_eq!(
        message["id"].as_str(),
        outcome.message_id.as_deref(),
        "the id SES answered"
    );
    let destinations = message["destinations"].as_array().unwrap();
    for to in RECIPIENTS {
        assert!(destinations.iter().any(|d| d == to), "{to}: {message}");
    }

    let raw = message["raw_data"].as_str().unwrap();
    let top = headers(raw);
    assert_eq!(
        decode_words(header(&top, "subject").unwrap()),
        "7 tools failing, 2 new — week 48"
    );
    assert_eq!(header(&top, "from"), Some(SENDER));
    let to = header(&top, "to").unwrap();
    assert!(RECIPIENTS.iter().all(|r| to.contains(r)), "{to}");
    assert!(
        header(&top, "content-type")
            .unwrap()
            .starts_with("multipart/related"),
        "{top:?}"
    );

    let parts = parts(raw);
    let find = |prefix: &str| {
        parts
            .iter()
            .find(|p| p.content_type().starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} part in\n{raw}"))
    };
    let text = String::from_utf8(find("text/plain").body.clone()).unwrap();
    assert!(text.contains("week 48"), "{text}");
    // The fixture's refusals, through the Logs Insights query the Lambda runs.
    assert!(text.contains("LIMITS HIT"), "{text}");
    // The fixture's write calls, with the unknown outcome called out.
    assert!(text.contains("WRITES"), "{text}");
    assert!(text.contains("Check:"), "{text}");
    assert!(
        text.contains("Dashboard: https://example.com/dashboard"),
        "{text}"
    );
    // A section per failing connector, its worst failures linked to their traces.
    assert!(text.contains("FAILURES PER CONNECTOR"), "{text}");
    assert!(text.contains("\nsevdesk: 8 failed of 380 calls"), "{text}");
    let console = "https://eu-central-1.console.aws.amazon.com/cloudwatch/home?region=eu-central-1#xray:traces/1-";
    assert!(text.contains(&format!("trace: {console}")), "{text}");
    let html = String::from_utf8(find("text/html").body.clone()).unwrap();
    assert!(html.contains(&format!("<a href=\"{console}")), "{html}");
    let png = find("image/png");
    assert!(png.body.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    let content_id = header(&png.headers, "content-id").expect("Content-ID on the chart");
    let cid = content_id.trim_start_matches('<').trim_end_matches('>');
    assert!(
        html.contains(&format!("src=\"cid:{cid}\"")),
        "the HTML shows the chart {cid}:\n{html}"
    );

    let queries = logs.queries();
    assert!(!queries.is_empty());
    for q in &queries {
        assert_eq!(q.log_groups, [PROD, STAGING], "{}", q.query_string);
    }
    let mut starts: Vec<Timestamp> = queries.iter().map(|q| q.range.start).collect();
    starts.sort();
    starts.dedup();
    let week = |s: &str| s.parse::<Timestamp>().unwrap();
    assert_eq!(
        starts,
        [week("2026-11-16T00:00:00Z"), week("2026-11-23T00:00:00Z")],
        "this week and the one before"
    );
    for q in queries
        .iter()
        .filter(|q| q.range.start == week("2026-11-23T00:00:00Z"))
    {
        assert_eq!(q.range.end, week("2026-11-29T23:59:59Z"));
    }
}

/// Calls of tools that spend in the fixture's week, as mcp-server writes them: Replicate's
/// predictions and Runway's credits, and a dry run that spent nothing.
fn spend_lines() -> String {
    let line = |tool: &str, connector: &str, spend: Option<(u64, &str)>| {
        let mut line = serde_json::json!({"v": 1, "ts": "2026-11-26T09:30:00.000Z",
            "level": "info", "event": "tool_call", "tool": tool, "connector": connector,
            "status": "ok", "key_id": "dev", "dry_run": spend.is_none()});
        if let Some((amount, unit)) = spend {
            line["spend"] = amount.into();
            line["spend_unit"] = unit.into();
        }
        format!("{line}\n")
    };
    let mut lines = String::new();
    for _ in 0..3 {
        lines.push_str(&line(
            "replicate_prediction_create",
            "replicate",
            Some((1, "predictions")),
        ));
    }
    for credits in [60, 25] {
        lines.push_str(&line(
            "runway_image_to_video",
            "runway",
            Some((credits, "credits")),
        ));
    }
    lines.push_str(&line("runway_image_to_video", "runway", None));
    lines
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_weeks_spend_per_connector_and_tool_arrives_in_the_digest() {
    let (moto, logs, deps) = setup().await;
    logs.add_lines(PROD, &spend_lines());

    let outcome = handle(&deps, now()).await.expect("digest run");
    assert!(outcome.sent);
    let messages = raw_messages(&moto).await;
    let raw = messages[0]["raw_data"].as_str().unwrap();
    let parts = parts(raw);
    let part = |prefix: &str| {
        let part = parts
            .iter()
            .find(|p| p.content_type().starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} part in\n{raw}"));
        String::from_utf8(part.body.clone()).unwrap()
    };
    // The MIME writer ends lines with CRLF.
    let text = part("text/plain").replace("\r\n", "\n");
    assert!(
        text.contains(
            "runway: 85 credits in 2 calls\n  runway_image_to_video         85 credits\n\
             replicate: 3 predictions in 3 calls\n"
        ),
        "{text}"
    );
    assert!(text.contains("SPEND PER CONNECTOR AND PER TOOL"), "{text}");
    assert!(
        part("text/html").contains("Spend per connector and per tool"),
        "the HTML part has the section too"
    );
    assert!(
        logs.queries()
            .iter()
            .any(|q| q.query_string.contains("sum(spend) as spent")),
        "the spend query ran through the Logs Insights API"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_query_sends_digest_failed_mail_and_fails_the_invocation() {
    let (moto, logs, deps) = setup().await;
    logs.script(Behaviour::Finish(Status::Failed));

    let err = handle(&deps, now()).await.expect_err("the run must fail");
    let message = err.to_string();
    assert!(message.contains("ended as Failed"), "{message}");
    assert_eq!(
        Diagnostic::from(err).error_type,
        "ToolErrorDigest.QueryFailed"
    );

    let messages = raw_messages(&moto).await;
    assert_eq!(messages.len(), 1, "only the failure notice: {messages:?}");
    let raw = messages[0]["raw_data"].as_str().unwrap();
    let top = headers(raw);
    assert_eq!(
        decode_words(header(&top, "subject").unwrap()),
        "Digest failed — week 48"
    );
    assert!(
        header(&top, "content-type")
            .unwrap()
            .starts_with("text/plain"),
        "{top:?}"
    );
    let b64: String = raw
        .split_once("\r\n\r\n")
        .unwrap()
        .1
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let body = String::from_utf8(STANDARD.decode(b64).unwrap()).unwrap();
    let query_id = &logs.queries()[0].query_id;
    assert!(
        body.contains(&format!("query {query_id} ended as Failed")),
        "{body}"
    );
    assert!(body.contains("2026-11-23 to 2026-11-29 (UTC)"), "{body}");
}
