//! OpenTelemetry traces end to end: the real server process exporting to a real OTLP/HTTP
//! receiver (`integration_tests::otlp`, decoding with the published protobuf definitions), the
//! sandbox or a remote MCP server upstream behind a relay that keeps each request's
//! `traceparent` (`integration_tests::tap`). The span tree of one write with confirmation and
//! of one federated call; the client's `traceparent` as the parent; the trace context sent
//! upstream only where the catalog allows it; with traces off, nothing exported and nothing sent.

use integration_tests::otlp::{Receiver, Span, children, named};
use integration_tests::tap::Tap;
use integration_tests::{KEY, Rpc, Server, TempDir, repo, structured};
use papierkram_sandbox::SandboxState;
use serde_json::{Value, json};

use crate::federation::Remote;

const TOKEN: &str = "traces-token";
/// The client's trace: its id and the client's own span.
const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";

fn traceparent() -> String {
    format!("00-{TRACE}-{CLIENT_SPAN}-01")
}

/// The test catalog's demo connector, with the trace context allowed upstream.
fn demo_catalog() -> TempDir {
    let dir = TempDir::new("traces");
    let text = std::fs::read_to_string(repo().join("tests/catalogs/demo.yaml")).unwrap();
    let text = text.replacen(
        "connector: demo\n",
        "connector: demo\ntrace_context: true\n",
        1,
    );
    std::fs::write(dir.path.join("demo.yaml"), text).unwrap();
    dir
}

/// A server over `catalogs` (with `env`), exporting to `otlp` when given.
fn server(catalogs: &TempDir, otlp: Option<&str>, env: &[(&str, &str)]) -> Server {
    let keys = format!("e2e:{KEY}");
    let mut all = vec![("MCP_API_KEYS", keys.as_str())];
    if let Some(endpoint) = otlp {
        // Batches leave every 20 ms, so the test waits for nothing.
        all.extend([
            ("MCP_OTLP_ENDPOINT", endpoint),
            ("OTEL_BSP_SCHEDULE_DELAY", "20"),
        ]);
    }
    all.extend_from_slice(env);
    Server::start(&["--catalog", catalogs.path.to_str().unwrap()], &all)
}

/// A `tools/call` with the client's `traceparent`.
async fn traced_call(rpc: &Rpc, tool: &str, args: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": tool, "arguments": args}});
    let tp = traceparent();
    let reply = rpc.post(body, &[("traceparent", tp.as_str())]).await;
    reply.json().await.expect("json reply")
}

/// The names of `parent`'s children.
fn names_under(trace: &[Span], parent: &Span) -> Vec<String> {
    children(trace, parent)
        .iter()
        .map(|s| s.name.clone())
        .collect()
}

/// No span says anything a client sent as an argument, nor a credential.
fn nothing_personal(trace: &[Span], personal: &[&str]) {
    for span in trace {
        for (key, value) in &span.attributes {
            for p in personal {
                assert!(!value.contains(p), "{}.{key} = {value}", span.name);
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmed_write_is_one_trace_under_the_clients_span_down_to_the_upstream() {
    let (receiver, otlp) = Receiver::start().await;
    let sandbox = SandboxState::new(TOKEN);
    let (addr, _task) = papierkram_sandbox::spawn(sandbox.clone()).await.unwrap();
    let tap = Tap::start(addr).await;
    let host = tap.addr.to_string();
    let upstream = [("DEMO_HOST", host.as_str()), ("DEMO_TOKEN", TOKEN)];
    let catalogs = demo_catalog();

    // Off first: even with the SDK's own variable set, no exporter, no traceparent upstream.
    let off = server(
        &catalogs,
        None,
        &[&upstream[..], &[("OTEL_EXPORTER_OTLP_ENDPOINT", &otlp)]].concat(),
    );
    let read = traced_call(&Rpc::new(&off.url), "demo_invoices_list", json!({})).await;
    assert_eq!(structured(&read)["status"], "ok", "{read}");
    assert_eq!(
        tap.traceparents(),
        [None],
        "nothing goes upstream with traces off"
    );
    let audited = off
        .stdout
        .events_where(1, |e| e["tool"] == "demo_invoices_list");
    assert!(audited[0].get("trace_id").is_none(), "{}", audited[0]);
    drop(off);

    let on = server(&catalogs, Some(&otlp), &upstream);
    let rpc = Rpc::new(&on.url);
    let id = sandbox.data().invoices[1].id;
    let asked = rpc.call("demo_invoice_archive", json!({"id": id})).await;
    let confirmation = structured(&asked)["confirmation_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no confirmation asked: {asked}"))
        .to_string();
    let confirmed = json!({"id": id, "confirmation_token": confirmation});
    let done = traced_call(&rpc, "demo_invoice_archive", confirmed).await;
    assert_eq!(structured(&done)["status"], "ok", "{done}");

    let trace = receiver
        .trace_with(16, |s| s.trace_id == TRACE && s.name == "upstream_request")
        .await;
    let request = named(&trace, "request");
    assert_eq!(
        request.parent_span_id, CLIENT_SPAN,
        "the client's span is the parent"
    );
    assert_eq!(request.service, "mcp-server");
    assert_eq!(request.attr("http.route"), "/mcp");
    assert_eq!(request.attr("http.response.status_code"), "200");
    assert_eq!(names_under(&trace, request), ["limits", "tools/call"]);
    let call = named(&trace, "tools/call");
    for (key, value) in [
        ("tool", "demo_invoice_archive"),
        ("connector", "demo"),
        ("risk", "high"),
        ("status", "ok"),
        ("key_id", "e2e"),
    ] {
        assert_eq!(call.attr(key), value, "{key} of {call:#?}");
    }
    assert_eq!(
        names_under(&trace, call),
        [
            "validate",
            "budget",
            "credentials",
            "current_fields",
            "reply_window",
            "dry_run",
            "consent",
            "idempotency",
            "upstream",
            "record",
            "settle",
            "cap"
        ]
    );
    let stage = named(&trace, "upstream");
    let sent = named(&trace, "upstream_request");
    assert_eq!(sent.parent_span_id, stage.span_id);
    assert_eq!(sent.attr("connector"), "demo");
    assert!(
        sent.attr("http.response.status_code").starts_with('2'),
        "{sent:#?}"
    );
    nothing_personal(&trace, &[&confirmation, KEY, TOKEN]);

    // The catalog allows it: the write went upstream as a child of its request's span.
    let upstream_sent = format!("00-{TRACE}-{}-01", sent.span_id);
    assert!(
        tap.traceparents().contains(&Some(upstream_sent.clone())),
        "{upstream_sent} in {:?}",
        tap.traceparents()
    );
    // The audit line links to the trace.
    let lines = on
        .stdout
        .events_where(2, |e| e["tool"] == "demo_invoice_archive");
    assert_eq!(lines.last().unwrap()["trace_id"], TRACE, "{lines:?}");
    // Nothing from the server without traces reached the receiver.
    assert!(
        receiver
            .spans()
            .iter()
            .all(|s| s.attr("tool") != "demo_invoices_list")
    );
    assert_eq!(receiver.refused(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_federated_call_is_traced_to_the_remote_without_its_trace_context() {
    let (receiver, otlp) = Receiver::start().await;
    let remote = Remote::start(&["--token", "remote-token"]);
    let tap = Tap::start(remote.host().parse().unwrap()).await;
    let dir = TempDir::new("traces-federated");
    std::fs::write(
        dir.path.join("notes.yaml"),
        "connector: notes\ntitle: Notes\nsecrets: [host, token]\nauth: { bearer: token }\n\
         mcp:\n  url: \"http://{host}/mcp\"\n  timeout_ms: 5000\n  allow: [search_notes]\n",
    )
    .unwrap();
    let host = tap.addr.to_string();
    let on = server(
        &dir,
        Some(&otlp),
        &[
            ("NOTES_HOST", host.as_str()),
            ("NOTES_TOKEN", "remote-token"),
        ],
    );
    let rpc = Rpc::new(&on.url);
    let found = traced_call(&rpc, "notes_search_notes", json!({"query": "plan"})).await;
    assert_eq!(structured(&found)["status"], "ok", "{found}");

    let trace = receiver
        .trace_with(10, |s| {
            s.trace_id == TRACE && s.name == "remote_mcp" && s.attr("mcp.method") == "tools/call"
        })
        .await;
    let request = named(&trace, "request");
    assert_eq!(request.parent_span_id, CLIENT_SPAN);
    let call = named(&trace, "tools/call");
    assert_eq!(call.parent_span_id, request.span_id);
    assert_eq!(call.attr("tool"), "notes_search_notes");
    assert_eq!(call.attr("connector"), "notes");
    assert_eq!(call.attr("status"), "ok");
    let stages = names_under(&trace, call);
    for stage in [
        "validate",
        "budget",
        "credentials",
        "upstream",
        "settle",
        "cap",
    ] {
        assert!(stages.contains(&stage.to_string()), "{stage} in {stages:?}");
    }
    let stage = named(&trace, "upstream");
    let remote_calls: Vec<&Span> = children(&trace, stage);
    assert!(
        remote_calls.iter().any(|s| s.name == "remote_mcp"
            && s.attr("mcp.method") == "tools/call"
            && s.attr("http.response.status_code") == "200"),
        "{remote_calls:#?}"
    );
    nothing_personal(&trace, &["plan", "remote-token", KEY]);
    // The catalog does not allow it: no request to the remote carried the trace context.
    let seen = tap.traceparents();
    assert!(
        !seen.is_empty() && seen.iter().all(Option::is_none),
        "{seen:?}"
    );
    let line = on.stdout.event_for("notes_search_notes");
    assert_eq!(line["trace_id"], TRACE, "{line}");
}
