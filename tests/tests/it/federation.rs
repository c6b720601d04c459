//! Remote MCP servers federated as connectors (`mcp:` catalogs), end to end: a remote written
//! with the Python SDK (`tests/remote/remote_server.py`) on 127.0.0.1, our server in front of
//! it, and the Python SDK client calling through us in both protocol generations.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use integration_tests::{
    KEY, Rpc, Server, TempDir, eventually, listed_tools, python_client, python_client_ok, repo,
    server_binary, structured, tool, wait_for_port,
};
use serde_json::{Value, json};

/// The remote server process, killed on drop.
pub(crate) struct Remote {
    child: Child,
    port: u16,
}

impl Remote {
    /// On a port the remote's OS picks (it prints it first): no race with another process for
    /// a port chosen before the start.
    pub(crate) fn start(extra: &[&str]) -> Remote {
        Remote::start_on(0, extra)
    }

    /// On a given port (a remote whose URL another process must know first), or 0.
    pub(crate) fn start_on(port: u16, extra: &[&str]) -> Remote {
        let mut child = Command::new(tool("venv/bin/python"))
            .arg(repo().join("tests/remote/remote_server.py"))
            .args(["--port", &port.to_string()])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the remote MCP server");
        // Its first line names the port; nothing else is written to stdout, so the pipe can be
        // closed after it.
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .expect("read the remote's first line");
        let addr: SocketAddr = first
            .trim()
            .strip_prefix("listening on ")
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("the remote did not say where it listens: {first:?}"));
        assert!(
            wait_for_port(addr, Duration::from_secs(30)),
            "the remote did not listen"
        );
        Remote {
            child,
            port: addr.port(),
        }
    }

    pub(crate) fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// How many change-notification streams of `kind` are open at the remote: `open` (the
    /// 2026-07-28 `subscriptions/listen` ones) or `get` (a 2025-11-25 session's GET stream).
    pub(crate) async fn listeners(&self, kind: &str) -> u64 {
        reqwest::get(format!("http://{}/listeners", self.host()))
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()[kind]
            .as_u64()
            .unwrap()
    }

    /// Adds the remote's late tool, which it announces as a changed list.
    pub(crate) async fn add_tool(&self) {
        let added = reqwest::Client::new()
            .post(format!("http://{}/add-tool", self.host()))
            .send()
            .await
            .unwrap();
        assert!(added.status().is_success());
    }

    /// How many POSTs and tools/calls reached the remote.
    pub(crate) async fn counts(&self) -> Value {
        reqwest::get(format!("http://{}/calls", self.host()))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A catalog folder with one `mcp:` catalog per connector name, removed when dropped.
fn catalogs(connectors: &[&str], overlays: &str) -> TempDir {
    let dir = TempDir::new("federation");
    for c in connectors {
        let text = format!(
            r#"connector: {c}
title: Notes
secrets: [host, token]
auth: {{ bearer: token }}
mcp:
  url: "http://{{host}}/mcp"
  timeout_ms: 5000
  allow: [search_notes, create_note, delete_note, fail_always, slow_echo, huge_schema, greet, ask_model, open_link, ask_password, wordy, "filler_*", weekly_review, whom_to_greet]
{overlays}"#
        );
        std::fs::write(dir.path.join(format!("{c}.yaml")), text).unwrap();
    }
    dir
}

fn start(dir: &TempDir, env: &[(String, String)]) -> Server {
    let keys = format!("e2e:{KEY}");
    let mut all: Vec<(&str, &str)> = vec![("MCP_API_KEYS", keys.as_str())];
    all.extend(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    Server::start(&["--catalog", dir.path.to_str().unwrap()], &all)
}

fn env_for(connector: &str, remote: &Remote, token: &str) -> Vec<(String, String)> {
    let upper = connector.to_uppercase();
    vec![
        (format!("{upper}_HOST"), remote.host()),
        (format!("{upper}_TOKEN"), token.to_string()),
    ]
}

const OVERLAYS: &str =
    "  overlays:\n    create_note: { risk: medium, untrusted: [created.body] }\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_calls_remote_tools_through_the_pipeline_in_both_generations() {
    let remote = Remote::start(&["--token", "remote-token", "--huge-mb", "10"]);
    let dir = catalogs(&["notes"], OVERLAYS);
    let server = start(&dir, &env_for("notes", &remote, "remote-token"));
    assert_eq!(
        remote.counts().await["posts"],
        0,
        "nothing is fetched at start"
    );
    for era in [&[][..], &["--era", "modern"][..]] {
        let mut args = era.to_vec();
        args.extend([
            "--call",
            r#"notes_search_notes={"query": "plan"}"#,
            "--call",
            r#"notes_create_note={"title": "From the model", "body": "hello"}"#,
            "--call",
            r#"notes_fail_always={}"#,
            "--call",
            r#"notes_delete_note={"id": 1}"#,
            "--call",
            r#"notes_search_notes={"qurey": "plan"}"#,
        ]);
        let doc = python_client_ok(&server.url, &args);
        let tools = listed_tools(&doc);
        assert_eq!(
            tools,
            [
                "notes_search_notes",
                "notes_create_note",
                "notes_delete_note",
                "notes_fail_always",
                "notes_slow_echo",
                "notes_greet",
                "notes_open_link",
                "notes_ask_password",
                "notes_wordy",
                "notes_ask_model"
            ],
            "the huge schema is skipped: {doc}"
        );
        let calls = &doc["calls"];
        assert_eq!(calls[0]["structured"]["status"], "ok", "{doc}");
        assert_eq!(calls[0]["structured"]["data"]["count"], 1, "{doc}");
        assert_eq!(calls[1]["structured"]["status"], "ok", "{doc}");
        assert_eq!(
            calls[1]["structured"]["_untrusted"],
            json!(["created.body"]),
            "{doc}"
        );
        assert_eq!(calls[2]["is_error"], true, "{doc}");
        assert_eq!(calls[2]["structured"]["status"], "error", "{doc}");
        assert!(
            calls[2]["structured"]["upstream_message"]
                .as_str()
                .unwrap()
                .ends_with("the database is locked"),
            "{doc}"
        );
        // Not declared read-only, no overlay: high, so it asks for confirmation first.
        assert_eq!(
            calls[3]["structured"]["status"], "confirmation_required",
            "{doc}"
        );
        assert_eq!(calls[4]["structured"]["status"], "invalid_input", "{doc}");
        assert!(
            calls[4]["structured"]["hint"]
                .as_str()
                .unwrap()
                .contains("Did you mean `query`?"),
            "{doc}"
        );
    }
    // The remote saw the search, the create and the failure per generation; never the delete
    // awaiting confirmation nor the call with a bad argument.
    assert_eq!(remote.counts().await["tools/call"], 6);
    // The confirmation the high-risk remote tool asked for lets it run, once.
    let rpc = Rpc::new(&server.url);
    let asked = rpc.call("notes_delete_note", json!({"id": 1})).await;
    let token = structured(&asked)["confirmation_token"].as_str().unwrap();
    let done = rpc
        .call(
            "notes_delete_note",
            json!({"id": 1, "confirmation_token": token}),
        )
        .await;
    assert_eq!(structured(&done)["status"], "ok", "{done}");
    assert_eq!(structured(&done)["data"]["deleted"], 1, "{done}");
    assert_eq!(remote.counts().await["tools/call"], 7);
    let confirmed = server.stdout.events_where(1, |e| {
        e["tool"] == "notes_delete_note" && e["status"] == "ok"
    });
    assert_eq!(confirmed[0]["risk"], "high", "{}", confirmed[0]);
    let event = server.stdout.event_for("notes_fail_always");
    assert_eq!(event["connector"], "notes", "{event}");
    assert_eq!(event["status"], "error", "{event}");
    assert_eq!(event["reason"], "remote_tool_error", "{event}");
    assert!(
        server.stderr.shows("`huge_schema` skipped"),
        "a warning names the skipped tool:\n{}",
        server.stderr.joined()
    );
}

/// A caller's daily budget on an `mcp` connector counts the calls it sends the remote, by name
/// and through `call_tool` alike: the call after the budget is refused and never reaches the
/// remote; another caller has a budget of its own; a remote prompt's `prompts/get` and a
/// completion of its argument count too, a completion answered from the cache does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_budget_on_a_remote_connector_counts_its_calls() {
    let remote = Remote::start(&["--huge-mb", "0"]);
    let dir = catalogs(&["budgeted"], "quota: { caller_daily_budget: 2 }\n");
    let mut env = env_for("budgeted", &remote, "t");
    env.push((
        "MCP_API_KEYS".into(),
        format!("e2e:{KEY},other:other-key-0123456789abcdef,third:third-key-0123456789abcdef"),
    ));
    env.push(("MCP_LIMITS".into(), "on".into()));
    let server = start(&dir, &env);
    let rpc = Rpc::new(&server.url);
    let search = json!({"query": "plan"});
    let first = rpc.call("budgeted_search_notes", search.clone()).await;
    assert_eq!(structured(&first)["status"], "ok", "{first}");
    let through = json!({"name": "budgeted_search_notes", "arguments": search.clone()});
    let second = rpc.call("call_tool", through.clone()).await;
    assert_eq!(structured(&second)["status"], "ok", "{second}");
    for (tool, args) in [
        ("budgeted_search_notes", search.clone()),
        ("call_tool", through),
    ] {
        let refused = rpc.call(tool, args).await;
        let result = structured(&refused);
        assert_eq!(result["status"], "rate_limited", "{tool}: {refused}");
        assert_eq!(result["scope"], "budget", "{tool}: {refused}");
        assert_eq!(result["_budget"]["remaining"], 0, "{tool}: {refused}");
    }
    assert_eq!(
        remote.counts().await["tools/call"],
        2,
        "the refused calls never reached the remote"
    );
    let other = Rpc {
        key: Some("other-key-0123456789abcdef".into()),
        ..Rpc::new(&server.url)
    };
    let theirs = other.call("budgeted_search_notes", search).await;
    assert_eq!(structured(&theirs)["status"], "ok", "{theirs}");
    assert_eq!(remote.counts().await["tools/call"], 3);
    // A remote prompt's prompts/get is one request to the remote: it counts too.
    let get = |week: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
               "params": {"name": "budgeted_weekly_review", "arguments": {"week": week}}})
    };
    let got: Value = other.post(get("W1"), &[]).await.json().await.unwrap();
    assert!(got["result"]["messages"].is_array(), "{got}");
    let posts = remote.counts().await["posts"].clone();
    let refused: Value = other.post(get("W2"), &[]).await.json().await.unwrap();
    assert_eq!(
        refused["error"]["data"]["status"], "rate_limited",
        "{refused}"
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("daily budget")),
        "{refused}"
    );
    assert_eq!(
        remote.counts().await["posts"],
        posts,
        "the refused prompts/get never reached the remote"
    );
    // So is a completion of a remote prompt's argument: refused alike once the budget is spent.
    let complete = json!({"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": {
        "ref": {"type": "ref/prompt", "name": "budgeted_weekly_review"},
        "argument": {"name": "week", "value": "2026"}}});
    let refused: Value = other
        .post(complete.clone(), &[])
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        refused["error"]["data"]["status"], "rate_limited",
        "{refused}"
    );
    assert_eq!(
        remote.counts().await["posts"],
        posts,
        "nor did the completion"
    );
    // A completion answered from the cache sends nothing and spends nothing: a third caller
    // completes the same text three times and still has the second request of its budget.
    let third = Rpc {
        key: Some("third-key-0123456789abcdef".into()),
        ..Rpc::new(&server.url)
    };
    for _ in 0..3 {
        let done: Value = third
            .post(complete.clone(), &[])
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(done["result"]["completion"]["total"], 52, "{done}");
    }
    assert_eq!(remote.counts().await["completion/complete"], 1);
    let got: Value = third.post(get("W3"), &[]).await.json().await.unwrap();
    assert!(got["result"]["messages"].is_array(), "{got}");
    let mut other_text = complete.clone();
    other_text["params"]["argument"]["value"] = "2025".into();
    let refused: Value = third.post(other_text, &[]).await.json().await.unwrap();
    assert_eq!(
        refused["error"]["data"]["status"], "rate_limited",
        "{refused}"
    );
    assert_eq!(remote.counts().await["completion/complete"], 1);
}

/// A remote tool's progress reaches our client: the Python SDK client watches a call (a
/// progress callback) of a remote that reports each step, in both protocol generations on our
/// side and to a remote of either generation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_tools_progress_is_passed_to_a_watching_client() {
    let modern = Remote::start(&["--huge-mb", "0"]);
    let legacy = Remote::start(&["--huge-mb", "0", "--handshake-only"]);
    let dir = catalogs(&[], "");
    for c in ["modern", "legacy"] {
        let text = format!(
            "connector: {c}\ntitle: Counter\nsecrets: [host]\nmcp:\n  url: \"http://{{host}}/mcp\"\n  allow: [count_steps]\n"
        );
        std::fs::write(dir.path.join(format!("{c}.yaml")), text).unwrap();
    }
    let env = vec![
        ("MODERN_HOST".to_string(), modern.host()),
        ("LEGACY_HOST".to_string(), legacy.host()),
    ];
    let server = start(&dir, &env);
    for era in ["handshake", "modern"] {
        let doc = python_client_ok(
            &server.url,
            &[
                "--era",
                era,
                "--progress",
                "--call",
                r#"modern_count_steps={"steps": 4}"#,
                "--call",
                r#"legacy_count_steps={"steps": 3}"#,
            ],
        );
        for (call, steps) in [(&doc["calls"][0], 4), (&doc["calls"][1], 3)] {
            assert_eq!(call["structured"]["status"], "ok", "{era}: {call}");
            assert_eq!(
                call["structured"]["data"]["counted"], steps,
                "{era}: {call}"
            );
            let got: Vec<(f64, f64, &str)> = call["progress"]
                .as_array()
                .unwrap_or_else(|| panic!("{era}: {call}"))
                .iter()
                .map(|n| {
                    (
                        n["progress"].as_f64().unwrap(),
                        n["total"].as_f64().unwrap(),
                        n["message"].as_str().unwrap(),
                    )
                })
                .collect();
            let want: Vec<(f64, f64, String)> = (1..=steps)
                .map(|i| {
                    (
                        f64::from(i),
                        f64::from(steps),
                        format!("step {i} of {steps}"),
                    )
                })
                .collect();
            let want: Vec<(f64, f64, &str)> =
                want.iter().map(|(a, b, m)| (*a, *b, m.as_str())).collect();
            assert_eq!(got, want, "{era}: {call}");
        }
    }
    // Unwatched, the same call answers without any.
    let (ok, doc) = python_client(
        &server.url,
        &["--call", r#"modern_count_steps={"steps": 2}"#],
    );
    assert!(ok, "{doc}");
    assert_eq!(doc["calls"][0]["structured"]["data"]["counted"], 2, "{doc}");
    assert!(doc["calls"][0].get("progress").is_none(), "{doc}");
}

/// A remote that announces a changed tool list on its `subscriptions/listen` stream: the stream
/// is opened after the first fetch, and the new tool is listed and callable although the list's
/// TTL is an hour.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_that_announces_a_changed_list_is_fetched_again() {
    let remote = Remote::start(&["--huge-mb", "0"]);
    let dir = catalogs(&[], "");
    let text = "connector: live\ntitle: Live\nsecrets: [host]\nmcp:\n  url: \"http://{host}/mcp\"\n  tools_ttl_s: 3600\n  allow: [search_notes, \"late_*\"]\n";
    std::fs::write(dir.path.join("live.yaml"), text).unwrap();
    let server = start(&dir, &[("LIVE_HOST".to_string(), remote.host())]);
    let rpc = Rpc::new(&server.url);
    let listed = rpc.list().await;
    assert!(
        listed.contains(&"live_search_notes".to_string()),
        "{listed:?}"
    );
    assert!(
        !listed.contains(&"live_late_note".to_string()),
        "{listed:?}"
    );
    let listeners = || remote.listeners("open");
    eventually(
        "our watch stream is open",
        Duration::from_secs(10),
        || async { (listeners().await == 1).then_some(()) },
    )
    .await;
    remote.add_tool().await;
    eventually("the new tool is listed", Duration::from_secs(10), || {
        let rpc = &rpc;
        async move {
            rpc.list()
                .await
                .contains(&"live_late_note".to_string())
                .then_some(())
        }
    })
    .await;
    let reply = rpc.call("live_late_note", json!({})).await;
    assert_eq!(structured(&reply)["status"], "ok", "{reply}");
    assert!(server.stderr.shows("remote tool list changed"));
    // The watch is open again, and only one.
    eventually(
        "one watch stream again",
        Duration::from_secs(10),
        || async { (listeners().await == 1).then_some(()) },
    )
    .await;
}

/// The same for a handshake-generation remote: our watch is its session's GET stream, and the
/// remote announces the change there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_remote_that_announces_a_changed_list_on_its_get_stream_is_fetched_again() {
    let remote = Remote::start(&["--huge-mb", "0", "--handshake-only"]);
    let dir = catalogs(&[], "");
    let text = "connector: old\ntitle: Old\nsecrets: [host]\nmcp:\n  url: \"http://{host}/mcp\"\n  tools_ttl_s: 3600\n  allow: [count_steps, \"late_*\"]\n";
    std::fs::write(dir.path.join("old.yaml"), text).unwrap();
    let server = start(&dir, &[("OLD_HOST".to_string(), remote.host())]);
    let rpc = Rpc::new(&server.url);
    assert!(!rpc.list().await.contains(&"old_late_note".to_string()));
    // A call in our session, so the remote knows whom to tell.
    let reply = rpc.call("old_count_steps", json!({"steps": 1})).await;
    assert_eq!(structured(&reply)["status"], "ok", "{reply}");
    let streams = || remote.listeners("get");
    eventually(
        "our GET stream is open",
        Duration::from_secs(10),
        || async { (streams().await == 1).then_some(()) },
    )
    .await;
    remote.add_tool().await;
    eventually("the new tool is listed", Duration::from_secs(10), || {
        let rpc = &rpc;
        async move {
            rpc.list()
                .await
                .contains(&"old_late_note".to_string())
                .then_some(())
        }
    })
    .await;
    let reply = rpc.call("old_late_note", json!({})).await;
    assert_eq!(structured(&reply)["status"], "ok", "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_only_remote_is_spoken_to_with_a_session() {
    let remote = Remote::start(&["--handshake-only", "--huge-mb", "0"]);
    let dir = catalogs(&["legacy"], "  overlays:\n    slow_echo: { core: false }\n");
    let server = start(&dir, &env_for("legacy", &remote, "unused"));
    let rpc = Rpc::new(&server.url);
    // A remote tool left out of the list is found by search_tools, and called by name.
    let listed = rpc.list().await;
    assert!(
        !listed.contains(&"legacy_slow_echo".to_string()),
        "{listed:?}"
    );
    assert!(listed.contains(&"search_tools".to_string()), "{listed:?}");
    let found = rpc
        .call("search_tools", json!({"query": "echoes after a while"}))
        .await;
    assert!(found.to_string().contains("legacy_slow_echo"), "{found}");
    let reply = rpc
        .call("legacy_search_notes", json!({"query": "groc"}))
        .await;
    assert_eq!(structured(&reply)["status"], "ok", "{reply}");
    assert_eq!(structured(&reply)["data"]["notes"][0]["id"], 2, "{reply}");
    let reply = rpc.call("legacy_slow_echo", json!({"seconds": 30})).await;
    assert_eq!(structured(&reply)["status"], "unavailable", "{reply}");
    assert_eq!(
        server.stdout.event_for("legacy_slow_echo")["reason"],
        "upstream_timeout"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_that_goes_away_answers_unavailable_and_others_stay_listed() {
    let mut gone = Remote::start(&["--huge-mb", "0"]);
    let other = Remote::start(&["--huge-mb", "0", "--filler", "600"]);
    let dir = catalogs(&["gone", "many"], "");
    let mut env = env_for("gone", &gone, "t");
    env.extend(env_for("many", &other, "t"));
    let server = start(&dir, &env);
    let health: Value = reqwest::get(format!("{}/health", server.base()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["connectors"]["gone"], "ok", "{health}");
    assert_eq!(health["connectors"]["many"], "ok", "{health}");
    let rpc = Rpc::new(&server.url);
    let listed = rpc.list().await;
    assert!(
        listed.contains(&"gone_search_notes".to_string()),
        "{listed:?}"
    );
    // 607 remote tools: the first 500 considered, the first 30 of those listed, the rest
    // left to search_tools, each cut with a warning.
    assert_eq!(
        listed.iter().filter(|n| n.starts_with("many_")).count(),
        30,
        "{listed:?}"
    );
    assert!(listed.contains(&"search_tools".to_string()), "{listed:?}");
    assert!(server.stderr.shows("only the first 500 are considered"));
    assert!(server.stderr.shows("beyond the first 30 are not listed"));
    let reply = rpc.call("many_filler_400", json!({})).await;
    assert_eq!(structured(&reply)["status"], "ok", "{reply}");
    let reply = rpc.call("many_filler_499", json!({})).await;
    assert!(
        reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not found")),
        "beyond the 500 considered: {reply}"
    );
    let found = rpc
        .call("search_tools", json!({"query": "filler tool 42"}))
        .await;
    assert!(found.to_string().contains("many_filler_42"), "{found}");
    let _ = gone.child.kill();
    let _ = gone.child.wait();
    let reply = rpc.call("gone_search_notes", json!({"query": "x"})).await;
    assert_eq!(structured(&reply)["status"], "unavailable", "{reply}");
    assert_eq!(
        server.stdout.event_for("gone_search_notes")["reason"],
        "upstream_unreachable"
    );
    // A cached list keeps serving the others' tools while one remote is down.
    eventually(
        "the other remote still listed",
        Duration::from_secs(10),
        || {
            let rpc = &rpc;
            async move {
                rpc.list()
                    .await
                    .contains(&"many_search_notes".to_string())
                    .then_some(())
            }
        },
    )
    .await;
}

/// The figures: the added latency of a federated call over calling the remote directly (same
/// run), and the cold start with three remotes configured. Printed, never asserted on time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn federation_figures() {
    let remotes: Vec<Remote> = (0..3).map(|_| Remote::start(&["--huge-mb", "0"])).collect();
    let names = ["one", "two", "three"];
    let dir = catalogs(&names, "");
    let env: Vec<(String, String)> = names
        .iter()
        .zip(&remotes)
        .flat_map(|(n, r)| env_for(n, r, "t"))
        .collect();
    let started = Instant::now();
    let server = start(&dir, &env);
    let cold_start = started.elapsed();
    for r in &remotes {
        assert_eq!(r.counts().await["posts"], 0, "nothing fetched at start");
    }
    let rpc = Rpc::new(&server.url);
    let first = Instant::now();
    let reply = rpc.call("one_search_notes", json!({"query": "plan"})).await;
    let first_call = first.elapsed();
    assert_eq!(structured(&reply)["status"], "ok", "{reply}");
    assert_eq!(
        remotes[1].counts().await["posts"],
        0,
        "only the remote needed"
    );
    // Direct: the same tools/call to the remote, stateless generation, same client.
    let direct_url = format!("http://{}/mcp", remotes[0].host());
    let http = reqwest::Client::new();
    let direct = || {
        let http = http.clone();
        let url = direct_url.clone();
        async move {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "search_notes", "arguments": {"query": "plan"},
                  "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                            "io.modelcontextprotocol/clientCapabilities": {}}}});
            let r = http
                .post(url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "search_notes")
                .body(body.to_string())
                .send()
                .await
                .unwrap();
            assert!(r.status().is_success());
            r.bytes().await.unwrap();
        }
    };
    let n = 40;
    let (mut d, mut f) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let t = Instant::now();
        direct().await;
        d.push(t.elapsed());
        let t = Instant::now();
        rpc.call("one_search_notes", json!({"query": "plan"})).await;
        f.push(t.elapsed());
    }
    d.sort();
    f.sort();
    let ms = |v: &Duration| v.as_secs_f64() * 1000.0;
    println!(
        "federation figures: cold start {:.0} ms with 3 remotes (0 requests to them); first call \
         (discover + list + call) {:.1} ms; median direct {:.2} ms, via us {:.2} ms, added {:.2} ms \
         (p90 direct {:.2}, via us {:.2}) over {n} calls",
        ms(&cold_start),
        ms(&first_call),
        ms(&d[n / 2]),
        ms(&f[n / 2]),
        ms(&f[n / 2]) - ms(&d[n / 2]),
        ms(&d[n * 9 / 10]),
        ms(&f[n * 9 / 10]),
    );
}

fn confirm_client(url: &str, tool_name: &str, args: Value, content: Value) -> Value {
    let out = Command::new(tool("venv/bin/python"))
        .arg(repo().join("tests/clients/confirm_client.py"))
        .args(["--url", url, "--key", KEY, "--tool", tool_name])
        .args([
            "--args",
            &args.to_string(),
            "--content",
            &content.to_string(),
        ])
        .output()
        .expect("run confirm client");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "no JSON from the client: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_question_reaches_the_person_with_its_state_wrapped_in_ours() {
    let remote = Remote::start(&["--huge-mb", "0"]);
    let dir = catalogs(&["notes"], "");
    let server = start(&dir, &env_for("notes", &remote, "t"));
    let doc = confirm_client(
        &server.url,
        "notes_greet",
        json!({"greeting": "Hi"}),
        json!({"name": "Ada"}),
    );
    assert_eq!(
        doc["elicitations"][0]["message"],
        "Notes (remote MCP server `notes`, not this server) asks: Whom shall I greet?",
        "{doc}"
    );
    assert_eq!(doc["structured"]["status"], "ok", "{doc}");
    assert_eq!(doc["structured"]["data"]["greeting"], "Hi, Ada!", "{doc}");
    // The state a client echoes is ours, bound to the call: altered, or for other
    // arguments, it is refused before anything reaches the remote, as a protocol error
    // (SEP-2322: state that fails its integrity check is rejected with an error); so is an
    // answer that is no object.
    let calls = remote.counts().await["tools/call"].as_u64().unwrap();
    let rpc = Rpc::new(&server.url);
    let who = json!({"action": "accept", "content": {"name": "Eve"}});
    for (state, answer) in [
        ("asked-who", &who),
        ("e30.AAAA", &who),
        ("x", &json!(12345)),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "notes_greet", "arguments": {"greeting": "Hi"},
                       "requestState": state, "inputResponses": {"who": answer}}});
        let reply: Value = rpc.post(body, &[]).await.json().await.unwrap();
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
    }
    assert_eq!(remote.counts().await["tools/call"].as_u64().unwrap(), calls);
    // A remote tool that needs a capability our client did not declare says so with -32021;
    // the remote heard exactly what the client declared, so that is our answer too.
    let reply = rpc.call("notes_ask_model", json!({})).await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert!(
        reply["error"]["data"]["requiredCapabilities"]["sampling"].is_object(),
        "{reply}"
    );
    // A client that cannot show a form is never asked: the remote's question is an error.
    let reply = rpc.call("notes_greet", json!({})).await;
    assert_eq!(structured(&reply)["status"], "error", "{reply}");
    assert_eq!(
        server
            .stdout
            .events_where(1, |e| e["tool"] == "notes_greet" && e["status"] == "error")[0]["reason"],
        "remote_input_required"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_link_to_an_unlisted_host_or_a_password_form_never_reaches_the_person() {
    let remote = Remote::start(&["--huge-mb", "0"]);
    let dir = catalogs(&["notes"], "  url_elicitation_hosts: [auth.notes.test]\n");
    let server = start(&dir, &env_for("notes", &remote, "t"));
    let call = |name: &'static str, arguments: Value| {
        let url = server.url.clone();
        async move {
            modern(
                &url,
                "tools/call",
                name,
                json!({"name": name, "arguments": arguments}),
            )
            .await
        }
    };
    // A link on a host the catalog lists reaches the person, saying which remote asks.
    let allowed = call(
        "notes_open_link",
        json!({"url": "https://auth.notes.test/sign-in"}),
    )
    .await;
    let asked = &allowed["result"]["inputRequests"]["link"]["params"];
    assert_eq!(asked["url"], "https://auth.notes.test/sign-in", "{allowed}");
    assert_eq!(
        asked["message"],
        "Notes (remote MCP server `notes`, not this server) asks: Open this page to go on.",
        "{allowed}"
    );
    // Any other host, and a form asking for a password, are refused: nobody is asked.
    for (name, arguments, what) in [
        (
            "notes_open_link",
            json!({"url": "https://evil.test/login"}),
            "`evil.test`",
        ),
        ("notes_ask_password", json!({}), "form field `password`"),
    ] {
        let reply = call(name, arguments).await;
        assert!(reply["result"]["inputRequests"].is_null(), "{reply}");
        let result = &reply["result"]["structuredContent"];
        assert_eq!(result["status"], "error", "{reply}");
        assert!(result["hint"].as_str().unwrap().contains(what), "{reply}");
        let refused = |e: &Value| e["tool"] == name && e["reason"] == "remote_question_refused";
        assert_eq!(server.stdout.events_where(1, refused)[0]["status"], "error");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_text_is_capped_and_marked_and_names_resolve_to_one_remote() {
    let notes = Remote::start(&["--huge-mb", "0", "--wordy", "56700"]);
    let nested = Remote::start(&["--huge-mb", "0"]);
    let dir = catalogs(&["notes", "notes_b"], "");
    let mut env = env_for("notes", &notes, "t");
    env.extend(env_for("notes_b", &nested, "t"));
    let server = start(&dir, &env);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let rpc = Rpc::new(&server.url);
    let listed: Value = rpc.post(body, &[]).await.json().await.unwrap();
    let tools = listed["result"]["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let count = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), count, "no name twice: {names:?}");
    let wordy = tools.iter().find(|t| t["name"] == "notes_wordy").unwrap();
    let description = wordy["description"].as_str().unwrap();
    assert!(
        description.starts_with("[unreviewed text from remote MCP server notes] WWW"),
        "{description:.100}"
    );
    assert!(description.len() < 2_100, "{}", description.len());
    let schema_text = wordy["inputSchema"]["description"].as_str().unwrap();
    assert!(schema_text.chars().count() <= 301, "{}", schema_text.len());
    let bytes = listed.to_string().len();
    assert!(bytes < 40_000, "tools/list of two remotes: {bytes} B");
    // `notes_b_search_notes` is `notes_b`'s, though `notes`, then `_`, begins it too.
    let reply = rpc
        .call("notes_b_search_notes", json!({"query": "plan"}))
        .await;
    assert_eq!(structured(&reply)["status"], "ok", "{reply}");
    assert_eq!(nested.counts().await["tools/call"], 1);
    assert_eq!(notes.counts().await["tools/call"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pinned_remote_tool_is_served_only_as_it_was_reviewed() {
    let remote = Remote::start(&["--huge-mb", "0"]);
    // A pin of another listing: the tool changed since that review.
    let old = "sha256:00000000000000000000000000000000";
    let dir = catalogs(
        &["notes"],
        &format!("  pins: {{ search_notes: \"{old}\" }}\n"),
    );
    let server = start(&dir, &env_for("notes", &remote, "t"));
    let rpc = Rpc::new(&server.url);
    let listed = rpc.list().await;
    assert!(
        !listed.contains(&"notes_search_notes".to_string()),
        "{listed:?}"
    );
    assert!(
        !listed.contains(&"notes_create_note".to_string()),
        "unpinned: {listed:?}"
    );
    let reply = rpc
        .call("notes_search_notes", json!({"query": "plan"}))
        .await;
    assert_eq!(structured(&reply)["status"], "unavailable", "{reply}");
    assert!(
        structured(&reply)["hint"]
            .as_str()
            .unwrap()
            .contains("reviews it again"),
        "{reply}"
    );
    assert_eq!(
        remote.counts().await["tools/call"],
        0,
        "nothing reached the remote"
    );
    assert_eq!(
        server.stdout.event_for("notes_search_notes")["reason"],
        "remote_tool_unreviewed"
    );
    // The log names the listing's pin; reviewed and pinned, the tool is served.
    let line = server
        .stderr
        .wait_for(
            |l| l.contains("pin it as `search_notes: "),
            Duration::from_secs(5),
        )
        .expect("the warning names the pin");
    let now = line
        .split("pin it as `search_notes: \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_string();
    assert_ne!(now, old);
    // `mcp-server pins` prints the same pin, as the catalog's `pins:` block, for the review.
    let printed = Command::new(server_binary())
        .args(["pins", dir.path.to_str().unwrap()])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(env_for("notes", &remote, "t"))
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run mcp-server pins");
    let printed = String::from_utf8_lossy(&printed.stdout).to_string();
    assert!(
        printed.contains(&format!("# notes\n  pins:\n    search_notes: \"{now}\"\n")),
        "{printed}"
    );
    drop(server);
    let dir = catalogs(
        &["notes"],
        &format!("  pins: {{ search_notes: \"{now}\" }}\n"),
    );
    let server = start(&dir, &env_for("notes", &remote, "t"));
    let rpc = Rpc::new(&server.url);
    assert!(rpc.list().await.contains(&"notes_search_notes".to_string()));
    let reply = rpc
        .call("notes_search_notes", json!({"query": "plan"}))
        .await;
    assert_eq!(structured(&reply)["status"], "ok", "{reply}");
}

/// One 2026-07-28 request to our server with the test key, as a client of that generation that
/// can answer questions sends it, and its answer.
async fn modern(url: &str, method: &str, name: &str, params: Value) -> Value {
    Rpc::new(url)
        .modern(method, Some(name), params, json!({"elicitation": {}}))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remotes_prompts_are_listed_under_our_names_and_got_through_us_in_both_generations() {
    let remote = Remote::start(&["--huge-mb", "0"]);
    // A remote of the older generation too: its prompts come over its handshake session.
    let old = Remote::start(&["--huge-mb", "0", "--handshake-only"]);
    let dir = catalogs(&["notes", "old"], "");
    let mut env = env_for("notes", &remote, "t");
    env.extend(env_for("old", &old, "t"));
    let server = start(&dir, &env);
    for era in [&[][..], &["--era", "modern"][..]] {
        let mut args = era.to_vec();
        args.extend(["--prompt", r#"notes_weekly_review={"week": "2026-W18"}"#]);
        args.extend(["--prompt", r#"old_weekly_review={"week": "2026-W19"}"#]);
        let (ok, doc) = python_client(&server.url, &args);
        assert!(ok, "{era:?}: {doc}");
        let listed = doc["prompts"].as_array().expect("prompts listed");
        let weekly = listed
            .iter()
            .find(|p| p["name"] == "notes_weekly_review")
            .unwrap_or_else(|| panic!("{era:?}: {doc}"));
        assert_eq!(weekly["title"], "Weekly review", "{doc}");
        assert_eq!(
            weekly["arguments"],
            json!([{"name": "week", "required": true}]),
            "{doc}"
        );
        assert!(
            listed.iter().any(|p| p["name"] == "notes_whom_to_greet"),
            "{doc}"
        );
        assert!(
            listed.iter().any(|p| p["name"] == "old_weekly_review"),
            "{doc}"
        );
        for (i, week) in ["2026-W18", "2026-W19"].into_iter().enumerate() {
            let got = &doc["prompt_results"][i];
            assert_eq!(got["messages"][0]["role"], "user", "{doc}");
            assert_eq!(
                got["messages"][0]["text"],
                format!("Review my notes of week {week} and list what is still open."),
                "{doc}"
            );
        }
        // The remote refuses a missing argument: a protocol error naming the prompt.
        let mut args = era.to_vec();
        args.extend(["--prompt", "notes_weekly_review={}"]);
        let (ok, doc) = python_client(&server.url, &args);
        assert!(!ok, "{doc}");
        let error = &doc["prompt_results"][0]["error"];
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.contains("`notes_weekly_review`")),
            "{doc}"
        );
    }
    // A remote's question during prompts/get reaches our client with its state wrapped in ours;
    // the retry with the person's answer gets the messages.
    let asked = modern(
        &server.url,
        "prompts/get",
        "notes_whom_to_greet",
        json!({"name": "notes_whom_to_greet"}),
    )
    .await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    assert_eq!(
        result["inputRequests"]["who"]["method"], "elicitation/create",
        "{asked}"
    );
    let state = result["requestState"].as_str().expect("a requestState");
    assert_ne!(state, "asked-who", "the remote's state travels inside ours");
    let answered = |state: &str| {
        json!({"name": "notes_whom_to_greet", "requestState": state,
               "inputResponses": {"who": {"action": "accept", "content": {"name": "Ada"}}}})
    };
    let got = modern(
        &server.url,
        "prompts/get",
        "notes_whom_to_greet",
        answered(state),
    )
    .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"], "Write a warm greeting for Ada.",
        "{got}"
    );
    // Its own state, or ours altered, is refused before it reaches the remote.
    for state in ["asked-who".to_string(), format!("{state}-TAMPERED")] {
        let refused = modern(
            &server.url,
            "prompts/get",
            "notes_whom_to_greet",
            answered(&state),
        )
        .await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }
    // One audit line per prompts/get of a remote prompt, with the argument keys, never values.
    let events = server
        .stdout
        .events_where(2, |e| e["tool"] == "notes_whom_to_greet");
    assert_eq!(events[0]["status"], "input_required", "{events:?}");
    assert_eq!(events[1]["status"], "ok", "{events:?}");
    assert_eq!(events[1]["connector"], "notes", "{events:?}");
    let weekly = server.stdout.events_where(1, |e| {
        e["tool"] == "notes_weekly_review" && e["status"] == "ok"
    });
    assert_eq!(weekly[0]["arg_keys"], json!(["week"]), "{weekly:?}");
    assert!(
        !weekly[0].to_string().contains("2026-W18"),
        "no argument value is logged: {weekly:?}"
    );
}

/// A federated prompt's argument is completed by its remote (the Python SDK remote completes
/// `weekly_review`'s `week` with ISO weeks; one remote of each generation), through the Python
/// SDK client in both generations:
/// one `completion/complete` to the remote per completion (the second generation's same
/// completions come from the cache), its values bounded to 100 with its
/// total and `hasMore` kept; nothing asked of a remote without the `completions` capability or
/// for an argument the prompt does not declare; a prompt outside the caller's profile is not
/// found; a remote that fails, is slow or has gone away answers an error with its status and
/// reason, within the connector's timeout, and is asked again next time (a failure is not
/// cached); one audit line per completion, without the value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_prompts_arguments_are_completed_by_the_remote_in_both_generations() {
    let remote = Remote::start(&["--huge-mb", "0"]);
    let plain = Remote::start(&["--huge-mb", "0", "--no-completions"]);
    // A remote of the older generation declares `completions` in its initialize result.
    let old = Remote::start(&["--huge-mb", "0", "--handshake-only"]);
    let dir = catalogs(&["notes", "plain", "old"], "");
    let mut env = env_for("notes", &remote, "t");
    env.extend(env_for("plain", &plain, "t"));
    env.extend(env_for("old", &old, "t"));
    env.push(("MCP_PROFILES".into(), "search=notes/notes_search_*".into()));
    let server = start(&dir, &env);
    let weeks: Vec<String> = (10..20).map(|w| format!("2026-W{w}")).collect();
    for era in [&[][..], &["--era", "modern"][..]] {
        let mut args = era.to_vec();
        args.extend([
            "--complete",
            "prompt:notes_weekly_review week=2026-W1",
            "--complete",
            "prompt:notes_weekly_review week=",
            "--complete",
            "prompt:plain_weekly_review week=2026-W1",
            "--complete",
            "prompt:notes_weekly_review tone=x",
            "--complete",
            "prompt:old_weekly_review week=2025-W0",
        ]);
        let (ok, doc) = python_client(&server.url, &args);
        assert!(ok, "{era:?}: {doc}");
        let c = &doc["completions"];
        assert_eq!(c[0]["values"], json!(weeks), "{era:?}: {doc}");
        assert_eq!(
            (&c[0]["total"], &c[0]["has_more"]),
            (&json!(10), &json!(false))
        );
        assert_eq!(c[1]["values"].as_array().map(Vec::len), Some(100), "{doc}");
        assert_eq!(
            (&c[1]["total"], &c[1]["has_more"]),
            (&json!(156), &json!(true))
        );
        assert_eq!(
            c[2]["values"],
            json!([]),
            "no completions capability: {doc}"
        );
        assert_eq!(c[3]["values"], json!([]), "an undeclared argument: {doc}");
        let old_weeks: Vec<String> = (1..10).map(|w| format!("2025-W0{w}")).collect();
        assert_eq!(c[4]["values"], json!(old_weeks), "{doc}");
    }
    // The second generation's completions are the first's, answered from the cache.
    let counts = remote.counts().await;
    assert_eq!(counts["completion/complete"], 2, "{counts}");
    assert_eq!(old.counts().await["completion/complete"], 1);
    assert_eq!(plain.counts().await["completion/complete"], 0);
    // Outside the caller's profile the prompt does not exist, and nothing is asked.
    let complete = |week: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": {
            "ref": {"type": "ref/prompt", "name": "notes_weekly_review"},
            "argument": {"name": "week", "value": week}}})
    };
    let search = Rpc::new(&format!("{}/search", server.url));
    let hidden: Value = search
        .post(complete("2026"), &[])
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
    assert_eq!(remote.counts().await["completion/complete"], 2);
    // A remote that fails, or is slow: an error with its status and reason, no hang.
    let started = Instant::now();
    let (ok, doc) = python_client(
        &server.url,
        &[
            "--era",
            "modern",
            "--complete",
            "prompt:notes_weekly_review week=boom",
            "--complete",
            "prompt:notes_weekly_review week=slow",
            "--complete",
            "prompt:notes_weekly_review week=boom",
        ],
    );
    assert!(!ok, "{doc}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "bounded by the timeout"
    );
    let failed = |i: usize| doc["completions"][i]["error"].clone();
    assert_eq!(failed(0)["code"], -32603, "{doc}");
    assert_eq!(
        failed(0)["data"],
        json!({"status": "unavailable", "reason": "remote_error"})
    );
    assert!(
        failed(0)["message"]
            .as_str()
            .is_some_and(|m| m.contains("`notes_weekly_review`")
                && m.contains("the week index is unavailable")),
        "{doc}"
    );
    assert_eq!(
        failed(1)["data"],
        json!({"status": "unavailable", "reason": "timeout"})
    );
    assert_eq!(failed(2)["data"], failed(0)["data"], "{doc}");
    assert_eq!(
        remote.counts().await["completion/complete"],
        5,
        "a failure is asked again, not cached"
    );
    // One audit line per completion, with the argument's name and never its value.
    let lines = server.stdout.events_where(2, |e| {
        e["tool"] == "notes_weekly_review" && e["reason"] == "completion"
    });
    assert_eq!(lines[0]["arg_keys"], json!(["week"]), "{lines:?}");
    assert!(!lines[0].to_string().contains("2026-W1"), "{lines:?}");
    let cached = server.stdout.events_where(2, |e| {
        e["tool"] == "notes_weekly_review" && e["reason"] == "completion_cached"
    });
    assert_eq!(cached.len(), 2, "{cached:?}");
    let rpc = Rpc::new(&server.url);
    // A remote that has gone away: unreachable, at once.
    drop(remote);
    let gone: Value = rpc.post(complete("2026"), &[]).await.json().await.unwrap();
    assert_eq!(
        gone["error"]["data"],
        json!({"status": "unavailable", "reason": "unreachable"}),
        "{gone}"
    );
}

/// A remote's answer to a completion is kept briefly (the cache of catalog completions): the
/// same completion twice sends one request to the remote, another typed text sends another,
/// a cached one none, and the audit lines say which answer was cached. `-- --nocapture`
/// prints the latency of a cached against a forwarded completion, and of the same request
/// sent to the remote directly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_prompts_completion_is_answered_from_a_short_cache() {
    let remote = Remote::start(&["--huge-mb", "0"]);
    let dir = catalogs(&["notes"], "");
    let server = start(&dir, &env_for("notes", &remote, "t"));
    let (ok, doc) = python_client(
        &server.url,
        &[
            "--era",
            "modern",
            "--complete",
            "prompt:notes_weekly_review week=2024-W3",
            "--complete",
            "prompt:notes_weekly_review week=2024-W3",
            "--complete",
            "prompt:notes_weekly_review week=2024-W4",
        ],
    );
    assert!(ok, "{doc}");
    let c = &doc["completions"];
    assert_eq!(c[0]["values"], c[1]["values"], "{doc}");
    assert_eq!(c[0]["values"].as_array().map(Vec::len), Some(10), "{doc}");
    assert_eq!(c[2]["values"][0], "2024-W40", "{doc}");
    assert_eq!(remote.counts().await["completion/complete"], 2);
    let reasons: Vec<Value> = server
        .stdout
        .events_where(3, |e| e["tool"] == "notes_weekly_review")
        .iter()
        .map(|e| e["reason"].clone())
        .collect();
    assert_eq!(
        reasons,
        ["completion", "completion_cached", "completion"],
        "{reasons:?}"
    );
    // The figures: a forwarded completion (a new typed text each time), the same request sent
    // to the remote directly, and a cached completion.
    let complete = |week: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": {
            "ref": {"type": "ref/prompt", "name": "notes_weekly_review"},
            "argument": {"name": "week", "value": week}}})
    };
    let rpc = Rpc::new(&server.url);
    let direct_url = format!("http://{}/mcp", remote.host());
    let http = reqwest::Client::new();
    let n = 20;
    let before = remote.counts().await;
    let (mut d, mut f, mut k) = (Vec::new(), Vec::new(), Vec::new());
    for i in 1..=n {
        let week = format!("2025-W{i:02}");
        let t = Instant::now();
        let mut direct = complete(&week);
        direct["params"]["ref"]["name"] = "weekly_review".into();
        direct["params"]["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}});
        let r = http
            .post(&direct_url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "completion/complete")
            .body(direct.to_string())
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
        r.bytes().await.unwrap();
        d.push(t.elapsed());
        let t = Instant::now();
        let reply: Value = rpc.post(complete(&week), &[]).await.json().await.unwrap();
        f.push(t.elapsed());
        assert_eq!(reply["result"]["completion"]["values"], json!([week]));
        let t = Instant::now();
        let reply: Value = rpc
            .post(complete("2024-W3"), &[])
            .await
            .json()
            .await
            .unwrap();
        k.push(t.elapsed());
        assert_eq!(reply["result"]["completion"]["total"], 10, "{reply}");
    }
    let after = remote.counts().await;
    let asked = |c: &Value, k: &str| c[k].as_u64().unwrap_or(0);
    assert_eq!(
        asked(&after, "posts") - asked(&before, "posts"),
        2 * n as u64,
        "one upstream request per forwarded completion, none per cached one"
    );
    assert_eq!(
        asked(&after, "completion/complete") - asked(&before, "completion/complete"),
        2 * n as u64
    );
    let cached = server.stdout.events_where(1 + n, |e| {
        e["tool"] == "notes_weekly_review" && e["reason"] == "completion_cached"
    });
    assert_eq!(cached.len(), 1 + n, "{cached:?}");
    let asked_lines = server.stdout.events_where(2 + n, |e| {
        e["tool"] == "notes_weekly_review" && e["reason"] == "completion"
    });
    // Inside the server: the audit lines' `duration_ms`, median.
    let inside = |lines: &[Value]| {
        let mut t: Vec<f64> = lines
            .iter()
            .filter_map(|e| e["duration_ms"].as_f64())
            .collect();
        t.sort_by(f64::total_cmp);
        t.get(t.len() / 2).copied().unwrap_or_default()
    };
    for v in [&mut d, &mut f, &mut k] {
        v.sort();
    }
    let ms = |v: &Duration| v.as_secs_f64() * 1000.0;
    println!(
        "remote completion figures over {n}: median direct {:.2} ms, forwarded {:.2} ms, cached \
         {:.2} ms (p90 {:.2}, {:.2}, {:.2}); inside the server forwarded {:.2} ms, cached {:.2} ms; 1 \
         upstream request per forwarded completion, 0 per cached one",
        ms(&d[n / 2]),
        ms(&f[n / 2]),
        ms(&k[n / 2]),
        ms(&d[n * 9 / 10]),
        ms(&f[n * 9 / 10]),
        ms(&k[n * 9 / 10]),
        inside(&asked_lines),
        inside(&cached),
    );
}
