//! Progress notifications of a long call: the shipped Papierkram aggregations against the
//! sandbox (300 invoices, read 100 a page), watched by the Python SDK client with a progress
//! callback in both protocol generations, and the raw answers on the wire: an event stream of
//! `notifications/progress` then the result for a call with a `progressToken`, one JSON body
//! for a call without.

use integration_tests::{KEY, Rpc, python_client_ok, start_server_on_sandbox};
use papierkram_sandbox::{Fault, demo};
use serde_json::{Value, json};

const TOKEN: &str = "progress-token";
const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// The (progress, total) pairs of a call's notifications.
fn pairs(call: &Value) -> Vec<(f64, f64)> {
    call["progress"]
        .as_array()
        .unwrap_or_else(|| panic!("no progress list: {call}"))
        .iter()
        .map(|n| {
            (
                n["progress"].as_f64().unwrap(),
                n["total"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_sees_pages_read_of_pages_known_in_both_protocol_generations() {
    let (server, _sandbox) = start_server_on_sandbox(TOKEN, &[]).await;
    // Every invoice is read, 100 a page: open items reads all of them.
    let pages = demo().invoices.len().div_ceil(100) as f64;
    assert!(pages >= 3.0, "the demo data has {pages} pages of invoices");
    for era in ["handshake", "modern"] {
        let doc = python_client_ok(
            &server.url,
            &[
                "--era",
                era,
                "--progress",
                "--call",
                "papierkram_open_items_get={}",
                "--call",
                r#"papierkram_month_close_get={"year": 2026, "month": 5}"#,
                "--call",
                r#"papierkram_invoices_list={"page_size": 2}"#,
            ],
        );
        let open = &doc["calls"][0];
        assert_eq!(open["structured"]["status"], "ok", "{era}: {open}");
        let got = pairs(open);
        let want: Vec<(f64, f64)> = (1..=pages as u64).map(|p| (p as f64, pages)).collect();
        assert_eq!(got, want, "{era}: {open}");
        let message = open["progress"][0]["message"].as_str().unwrap();
        assert!(
            message.starts_with("open: read page 1 (1 of "),
            "{era}: {message}"
        );

        // Two sources of one page each: the second counts before it starts.
        let close = &doc["calls"][1];
        assert_eq!(close["structured"]["status"], "ok", "{era}: {close}");
        assert_eq!(pairs(close), [(1.0, 2.0), (2.0, 2.0)], "{era}: {close}");

        // One request: nothing to count, at most a note that it is slow (0 of 1).
        let list = &doc["calls"][2];
        assert_eq!(list["is_error"], false, "{era}: {list}");
        assert!(
            pairs(list).iter().all(|p| *p == (0.0, 1.0)),
            "{era}: {list}"
        );
    }
    assert_eq!(
        python_client_ok(&server.url, &["--era", "modern"])["server"]["protocol_version"],
        "2026-07-28"
    );
}

/// The events of a `text/event-stream` body, as JSON messages.
fn events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            (!data.is_empty() && !data.concat().is_empty())
                .then(|| serde_json::from_str(&data.join("\n")).expect("an event's data is JSON"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_progress_token_turns_the_answer_into_an_event_stream_and_none_keeps_it_json() {
    let (server, _sandbox) = start_server_on_sandbox(TOKEN, &[]).await;
    let rpc = Rpc::new(&server.url);
    let post = |body: Value, accept: &str, version: &str| {
        rpc.http
            .post(&rpc.url)
            .header("content-type", "application/json")
            .header("accept", accept)
            .header("mcp-protocol-version", version)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "papierkram_open_items_get")
            .bearer_auth(KEY)
            .body(body.to_string())
            .send()
    };
    let call = |meta: Option<Value>| {
        let mut params = json!({"name": "papierkram_open_items_get", "arguments": {}});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params})
    };
    let content_type = |r: &reqwest::Response| {
        r.headers()[reqwest::header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_string()
    };

    // 2025-11-25 (the header) and 2026-07-28 (the version in `_meta` too).
    let modern = json!({
        "progressToken": "pk-1",
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    for (meta, version) in [
        (json!({"progressToken": "pk-1"}), "2025-11-25"),
        (modern, "2026-07-28"),
    ] {
        let reply = post(call(Some(meta)), ACCEPT_BOTH, version).await.unwrap();
        let status = reply.status();
        let stream = content_type(&reply).starts_with("text/event-stream");
        let body = reply.text().await.unwrap();
        assert_eq!(status, 200, "{version}: {body}");
        assert!(stream, "{version}: {body}");
        let events = events(&body);
        let (last, notes) = events.split_last().expect("events");
        assert_eq!(last["id"], 9, "{version}: the result comes last");
        assert_eq!(
            last["result"]["structuredContent"]["status"], "ok",
            "{version}: {last}"
        );
        assert!(notes.len() >= 3, "{version}: {events:?}");
        for (i, n) in notes.iter().enumerate() {
            assert_eq!(n["method"], "notifications/progress", "{version}: {n}");
            assert_eq!(n["params"]["progressToken"], "pk-1");
            assert_eq!(n["params"]["progress"], (i + 1) as f64);
            assert_eq!(n["params"]["total"], notes.len() as f64);
        }
    }

    // No token: one JSON body, as before.
    let reply = post(call(None), ACCEPT_BOTH, "2025-11-25").await.unwrap();
    assert_eq!(reply.status(), 200);
    assert!(content_type(&reply).starts_with("application/json"));
    let body: Value = reply.json().await.unwrap();
    assert_eq!(
        body["result"]["structuredContent"]["status"], "ok",
        "{body}"
    );

    // A client that takes only JSON gets the same answer with a token as without one: the
    // transport's refusal (Streamable HTTP clients must take both), worded as JSON-RPC.
    let plain = post(call(None), "application/json", "2025-11-25")
        .await
        .unwrap();
    let watched = post(
        call(Some(json!({"progressToken": 5}))),
        "application/json",
        "2025-11-25",
    )
    .await
    .unwrap();
    assert_eq!(plain.status(), 406);
    assert_eq!(plain.status(), watched.status());
    assert_eq!(content_type(&plain), content_type(&watched));
    assert!(!content_type(&watched).starts_with("text/event-stream"));
}

/// A single request that takes long: a watching client is told once that the call waits for
/// the upstream (0 of 1), then gets the result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_single_request_is_noted_once_to_a_watching_client() {
    let (server, sandbox) = start_server_on_sandbox(TOKEN, &[]).await;
    sandbox.inject_fault(Fault::delay(
        "/api/v1/income/invoices",
        std::time::Duration::from_millis(2500),
    ));
    let rpc = Rpc::new(&server.url);
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "papierkram_invoices_list", "arguments": {"page_size": 2},
                   "_meta": {"progressToken": 11}}});
    let reply = rpc.post(body, &[]).await;
    assert!(
        reply.headers()[reqwest::header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let events = events(&reply.text().await.unwrap());
    assert_eq!(events.len(), 2, "{events:?}");
    let note = &events[0]["params"];
    assert_eq!(events[0]["method"], "notifications/progress");
    assert_eq!(note["progressToken"], 11);
    assert_eq!(
        (note["progress"].as_f64(), note["total"].as_f64()),
        (Some(0.0), Some(1.0))
    );
    assert_eq!(
        note["message"],
        "Waiting for Papierkram's answer to papierkram_invoices_list."
    );
    assert_eq!(
        events[1]["result"]["structuredContent"]["status"], "ok",
        "{events:?}"
    );
}
