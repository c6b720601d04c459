//! A remote MCP server that acts with each person's own account (`mcp:` with
//! `auth: oauth_user`), end to end: the Python SDK remote (`tests/remote/remote_server.py
//! --issuer`) as a resource server of a second oidc-provider (the upstream's authorization
//! server: it checks each token's signature against that provider's JWKS, its issuer, audience
//! and expiry, and logs whose token each request carried), our server in front of it as the
//! resource server of our own oidc-provider, the vault on moto's DynamoDB and KMS.
//!
//! An API key and a person not connected yet get `connection_required` and nothing reaches the
//! remote; two people then list and call the remote at once, each request carrying the caller's
//! own upstream token (the remote's log), never our inbound token; a grant the remote refuses
//! is cleared and asked for again; the vault reads per call are counted.

use integration_tests::oidc::Op;
use integration_tests::{KEY, Rpc, Server, TempDir, env_refs, free_port, interleaved_calls};
use mcp_server::{EntryKey, Grant, Person, VaultStore};
use serde_json::{Value, json};

use crate::federation::Remote;
use crate::vault::Aws;

const PEPPER: &str = "oauth-remote-test-pepper-0123456789";

fn catalog(upstream_issuer: &str) -> String {
    format!(
        r#"connector: notes
title: Notes
secrets: [host, client_id]
auth:
  oauth_user:
    authorization_endpoint: "{upstream_issuer}/auth"
    token_endpoint: "{upstream_issuer}/token"
    client_id: client_id
    scopes: [notes.read]
mcp:
  url: "http://{{host}}/mcp"
  timeout_ms: 5000
  allow: [whoami, search_notes]
"#
    )
}

async fn listed(url: &str, bearer: &str) -> Vec<String> {
    let reply = Rpc::with_bearer(url, bearer)
        .request("tools/list", json!({}))
        .await;
    reply["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{reply}"))
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect()
}

/// The remote's request log: `{"method", "tool", "sub"}` per MCP request.
async fn seen(remote: &Remote) -> Vec<Value> {
    reqwest::get(format!("http://{}/seen", remote.host()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_person_lists_and_calls_the_remote_with_their_own_token() {
    let aws = Aws::counting("DynamoDB_20120810.GetItem").await;
    // The upstream's authorization server issues tokens for the remote's URL.
    let remote_port = free_port();
    let remote_url = format!("http://127.0.0.1:{remote_port}/mcp");
    let upstream_as = Op::start(&remote_url, "notes.read");
    let remote = Remote::start_on(
        remote_port,
        &["--issuer", upstream_as.issuer(), "--audience", &remote_url],
    );
    let dir = TempDir::new("oauth-remote");
    std::fs::write(dir.path.join("notes.yaml"), catalog(upstream_as.issuer())).unwrap();

    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let op = Op::start(&resource, "mcp:tools");
    let keys = format!("e2e:{KEY}");
    let host = remote.host();
    let vault = aws.server_env();
    let mut env = vec![
        ("MCP_API_KEYS", keys.as_str()),
        ("MCP_PSEUDONYM_PEPPER", PEPPER),
        ("MCP_OAUTH_ISSUER", op.issuer()),
        ("MCP_RESOURCE_URL", &resource),
        ("MCP_CATALOG_DIR", dir.path.to_str().unwrap()),
        ("NOTES_HOST", &host),
        ("NOTES_CLIENT_ID", "notes-client"),
    ];
    env.extend(env_refs(&vault));
    let server = Server::start_at(port, &[], &env);
    let http = reqwest::Client::new();
    let alice = op.mint(json!({"claims": {"sub": "alice"}})).await;
    let bob = op.mint(json!({"claims": {"sub": "bob"}})).await;

    // An API key names no person: refused, nothing listed, nothing sent.
    let by_key = Rpc::with_bearer(&server.url, KEY)
        .tool("notes_whoami", json!({}))
        .await;
    assert_eq!(by_key["status"], "connection_required", "{by_key}");
    assert!(by_key.get("connect_url").is_none(), "{by_key}");
    assert!(
        !listed(&server.url, KEY)
            .await
            .iter()
            .any(|n| n.starts_with("notes_"))
    );
    // Alice has not connected: her own link, and the remote's tools are not listed to her yet.
    assert!(
        !listed(&server.url, &alice)
            .await
            .iter()
            .any(|n| n.starts_with("notes_"))
    );
    let first = Rpc::with_bearer(&server.url, &alice)
        .tool("notes_whoami", json!({}))
        .await;
    assert_eq!(first["status"], "connection_required", "{first}");
    let link = first["connect_url"].as_str().unwrap();
    assert!(
        link.starts_with(&format!("http://127.0.0.1:{port}/connect/notes?for=")),
        "{link}"
    );
    // A 2026-07-28 client that can open links gets it as a URL-mode elicitation.
    let asked = Rpc::with_bearer(&server.url, &alice)
        .modern(
            "tools/call",
            Some("notes_whoami"),
            json!({"name": "notes_whoami", "arguments": {}}),
            json!({"elicitation": {"url": {}}}),
        )
        .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let request = &asked["result"]["inputRequests"]["connect"]["params"];
    assert_eq!(request["mode"], "url", "{asked}");
    assert!(
        request["url"]
            .as_str()
            .unwrap()
            .contains("/connect/notes?for=")
    );
    assert_eq!(
        remote.counts().await["posts"],
        0,
        "nothing reached the remote"
    );

    // Both connect: their grants as the connect callback stores them, tokens the upstream's
    // authorization server issued for the remote.
    let vault = aws.vault();
    let key_of = |who: &str| {
        EntryKey::new(
            Person::new(op.issuer(), who).unwrap(),
            "notes",
            ["notes.read"],
        )
        .unwrap()
    };
    let mut upstream_tokens = Vec::new();
    for who in ["alice", "bob"] {
        let token = upstream_as.mint(json!({"claims": {"sub": who}})).await;
        let grant = Grant {
            access_token: token.clone(),
            refresh_token: None,
            expires_at: None,
            scopes: None,
        };
        vault.put(&key_of(who), &grant, 1).await.unwrap();
        upstream_tokens.push(token);
    }

    // Each lists the remote's tools with their own token (one vault read each).
    let reads = aws.dynamodb.count();
    for bearer in [&alice, &bob] {
        let names = listed(&server.url, bearer).await;
        assert!(names.contains(&"notes_whoami".to_string()), "{names:?}");
        assert!(
            names.contains(&"notes_search_notes".to_string()),
            "{names:?}"
        );
    }
    assert_eq!(
        aws.dynamodb.count() - reads,
        2,
        "one vault read per person's list"
    );

    // Twenty calls at once, interleaved: each acts as its caller, and reads the vault once.
    let reads = aws.dynamodb.count();
    let people = [("alice", alice.as_str()), ("bob", bob.as_str())];
    for (who, answer) in interleaved_calls(&server.url, "notes_whoami", &people, 20).await {
        assert_eq!(answer["status"], "ok", "{who}: {answer}");
        assert_eq!(
            answer["data"]["subject"], who,
            "{who} acted as someone else"
        );
    }
    let reads = aws.dynamodb.count() - reads;
    println!("20 federated calls by two people (lists cached): {reads} vault reads (GetItem)");
    assert_eq!(reads, 20, "one vault read per call");

    // The remote's log: every request carried a token it accepted, each call its caller's.
    let log = seen(&remote).await;
    assert!(
        log.iter().all(|e| e["sub"].is_string()),
        "a request was refused: {log:?}"
    );
    let calls_by = |who: &str| {
        log.iter()
            .filter(|e| e["method"] == "tools/call" && e["sub"] == who)
            .count()
    };
    assert_eq!((calls_by("alice"), calls_by("bob")), (10, 10), "{log:?}");
    let lists_by = |who: &str| {
        log.iter()
            .filter(|e| e["method"] == "tools/list" && e["sub"] == who)
            .count()
    };
    assert_eq!(
        (lists_by("alice"), lists_by("bob")),
        (1, 1),
        "one list per person, cached"
    );

    // The figure: a federated call as a person (vault read, the remote with their token) against
    // the same call sent to the remote directly with the same token, one at a time, same run.
    let median = |mut d: Vec<f64>| {
        d.sort_by(f64::total_cmp);
        d[d.len() / 2]
    };
    let direct_body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "whoami", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "direct", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let (mut through, mut direct) = (Vec::new(), Vec::new());
    for _ in 0..30 {
        let started = std::time::Instant::now();
        let answer = Rpc::with_bearer(&server.url, &alice)
            .tool("notes_whoami", json!({}))
            .await;
        through.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(answer["data"]["subject"], "alice", "{answer}");
        let started = std::time::Instant::now();
        let r = http
            .post(&remote_url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "whoami")
            .bearer_auth(&upstream_tokens[0])
            .body(direct_body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let text = r.text().await.unwrap();
        direct.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(text.contains("alice"), "{text}");
    }
    let (through, direct) = (median(through), median(direct));
    println!(
        "median of 30 calls: {through:.2} ms through us as the person (one vault read on moto), \
         {direct:.2} ms to the remote directly with the same token: {:.2} ms added",
        through - direct
    );

    // Bob's grant is revoked upstream (here: a token the remote does not accept): the call is
    // refused, his entry cleared, and he is asked to connect again.
    let bad = upstream_as
        .mint(json!({"claims": {"sub": "bob"}, "mode": "foreign-key"}))
        .await;
    let grant = Grant {
        access_token: bad.clone(),
        refresh_token: None,
        expires_at: None,
        scopes: None,
    };
    vault.put(&key_of("bob"), &grant, 2).await.unwrap();
    let revoked = Rpc::with_bearer(&server.url, &bob)
        .tool("notes_whoami", json!({}))
        .await;
    assert_eq!(revoked["status"], "connection_required", "{revoked}");
    assert!(revoked["connect_url"].is_string(), "{revoked}");
    assert_eq!(vault.get(&key_of("bob")).await.unwrap(), None);
    let again = Rpc::with_bearer(&server.url, &alice)
        .tool("notes_whoami", json!({}))
        .await;
    assert_eq!(again["data"]["subject"], "alice", "{again}");

    // No token of ours or the upstream's in what the server printed; the audit lines say why.
    let printed = format!("{}\n{}", server.stdout.joined(), server.stderr.joined());
    for secret in [alice.as_str(), bob.as_str(), bad.as_str()]
        .into_iter()
        .chain(upstream_tokens.iter().map(String::as_str))
    {
        assert!(!printed.contains(secret), "a token was printed");
    }
    // Asking to connect is its own audit kind, never a tool_error (the digest counts those).
    let asked: Vec<Value> = server.stdout.events_where(4, |e| {
        e["tool"] == "notes_whoami" && e["status"] == "connection_required"
    });
    let reasons: Vec<&Value> = asked.iter().map(|e| &e["reason"]).collect();
    for reason in ["no_person", "not_connected", "grant_refused"] {
        assert!(reasons.contains(&&json!(reason)), "{reason}: {reasons:?}");
    }
    for e in &asked {
        assert_eq!(e["event"], "connection_required", "{e}");
        assert_eq!(e["level"], "info", "{e}");
        let line = e.to_string();
        assert!(
            !line.contains("connect_url") && !line.contains("for="),
            "{line}"
        );
    }
    assert!(
        !server
            .stdout
            .events()
            .iter()
            .any(|e| e["event"] == "tool_error"),
        "no call here failed"
    );
}

/// Registers a client at `op` (RFC 7591): its id and, for a confidential one, its secret.
/// `tests/clients/python_client.py` signed in with OAuth as `who`, connecting when asked.
fn python_client(url: &str, who: &str, extra: &[&str]) -> (bool, Value) {
    let out = std::process::Command::new(integration_tests::tool("venv/bin/python"))
        .arg(integration_tests::repo().join("tests/clients/python_client.py"))
        .args(["--url", url, "--oauth", "--oauth-user", who])
        .args(extra)
        .output()
        .expect("run python client");
    let mut doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "no JSON from the client: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    // Where a connect link stopped short of its page, as the client said on stderr.
    let said = String::from_utf8_lossy(&out.stderr);
    if let Some(line) = said.lines().find(|l| l.starts_with("connect link stopped")) {
        doc["stderr"] = json!(line);
    }
    (out.status.success(), doc)
}

/// What the server logged about the connect steps (`connect: …` warnings) and what both
/// authorization servers wrote on stderr (their `server_error`s), for a failure's message.
fn connect_warnings(c: &Connectable) -> String {
    let ours: Vec<String> = c
        .server
        .stderr
        .all()
        .into_iter()
        .filter(|l| l.contains("connect:"))
        .collect();
    format!(
        "server's connect log: {ours:?}\nour provider: {:?}\ntheirs: {:?}",
        c.ours.stderr.all(),
        c.theirs.stderr.all()
    )
}

/// Our server in front of the OAuth-protected remote, with `/connect` working end to end: our
/// oidc-provider signs people in, the upstream's issues tokens for the remote (and revokes them).
struct Connectable {
    server: Server,
    theirs: Op,
    ours: Op,
    remote: Remote,
    notes_client: String,
    notes_secret: String,
    /// The catalog directory, removed when the test ends.
    _catalogs: TempDir,
}

async fn connectable(scopes: &str, revocation: bool, env: &[(&str, &str)]) -> Connectable {
    let remote_port = free_port();
    let remote_url = format!("http://127.0.0.1:{remote_port}/mcp");
    let theirs = Op::start(&remote_url, "notes.read");
    let remote = Remote::start_on(
        remote_port,
        &["--issuer", theirs.issuer(), "--audience", &remote_url],
    );
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let resource = format!("{base}/mcp");
    let ours = Op::start(&resource, "mcp:tools");
    let (connect_client, _) = ours
        .register(&format!("{base}/connect/notes/signed-in"), true)
        .await;
    let (notes_client, notes_secret) = theirs
        .register(&format!("{base}/connect/notes/callback"), false)
        .await;
    let notes_secret = notes_secret.unwrap();

    let dir = TempDir::new("oauth-remote-sdk");
    let revoke = if revocation {
        format!(
            "    revocation_endpoint: \"{}/token/revocation\"\n",
            theirs.issuer()
        )
    } else {
        String::new()
    };
    // A refresh token needs offline_access, which oidc-provider grants on a consent prompt.
    let consent = if revocation {
        "/auth?prompt=consent\""
    } else {
        "/auth\""
    };
    let catalog = catalog(theirs.issuer())
        .replace("/auth\"", consent)
        .replace("secrets: [host, client_id]", "secrets: [host, client_id, client_secret]")
        .replace("scopes: [notes.read]", &format!("scopes: [{scopes}]"))
        .replace(
            "    client_id: client_id\n",
            &format!("    client_id: client_id\n    client_secret: client_secret\n    resource: \"{remote_url}\"\n{revoke}"),
        );
    std::fs::write(dir.path.join("notes.yaml"), catalog).unwrap();
    let keys = format!("e2e:{KEY}");
    let host = remote.host();
    let mut all: Vec<(&str, &str)> = vec![
        ("MCP_API_KEYS", keys.as_str()),
        ("MCP_PSEUDONYM_PEPPER", PEPPER),
        ("MCP_OAUTH_ISSUER", ours.issuer()),
        ("MCP_RESOURCE_URL", &resource),
        ("MCP_CONNECT_CLIENT_ID", &connect_client),
        ("MCP_CATALOG_DIR", dir.path.to_str().unwrap()),
        ("NOTES_HOST", &host),
        ("NOTES_CLIENT_ID", &notes_client),
        ("NOTES_CLIENT_SECRET", &notes_secret),
    ];
    all.extend_from_slice(env);
    let server = Server::start_at(port, &[], &all);
    Connectable {
        server,
        theirs,
        ours,
        remote,
        notes_client,
        notes_secret,
        _catalogs: dir,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_connects_a_person_and_then_calls_as_them_in_both_generations() {
    // Bound whole: the providers in it must live to the end.
    let c = connectable("notes.read", false, &[]).await;
    let (server, remote) = (&c.server, &c.remote);

    // One person per way of asking: each starts unconnected, opens what the server gave the
    // client (the result's link; on 2025-11-25 the -32042 error's URL; on 2026-07-28 the URL
    // elicitation), and the same call then acts as them at the remote.
    for (who, era, connect, via) in [
        ("alice", "handshake", "link", "result"),
        ("bob", "handshake", "elicit", "url_error"),
        ("carol", "modern", "elicit", "url_elicitation"),
        ("dave", "modern", "link", "result"),
    ] {
        let (ok, doc) = python_client(
            &server.url,
            who,
            &[
                "--era",
                era,
                "--connect",
                connect,
                "--call",
                "notes_whoami={}",
            ],
        );
        // A page short of 200 says which step stopped (the client's `stderr`); the server's
        // warnings say why (a code not exchanged, a token refused, a state reused).
        let why = || connect_warnings(&c);
        assert!(ok, "{who}: {doc}\n{}", why());
        let call = &doc["calls"][0];
        assert_eq!(call["connected"]["via"], via, "{who}: {doc}");
        assert_eq!(
            call["connected"]["pages"],
            json!([200]),
            "{who}: {doc}\n{}",
            why()
        );
        assert_eq!(call["structured"]["status"], "ok", "{who}: {doc}");
        assert_eq!(call["structured"]["data"]["subject"], who, "{who}: {doc}");
        // Once connected the remote's tools are listed to them.
        let (ok, doc) = python_client(&server.url, who, &["--era", era]);
        assert!(ok, "{who}: {doc}");
        let tools = doc["tools"].as_array().unwrap();
        assert!(tools.contains(&json!("notes_whoami")), "{who}: {doc}");
    }
    // The remote saw each person's own token on their calls, and no other.
    let log = seen(remote).await;
    for who in ["alice", "bob", "carol", "dave"] {
        assert!(
            log.iter()
                .any(|e| e["method"] == "tools/call" && e["sub"] == who),
            "{who}: {log:?}"
        );
    }
    assert!(log.iter().all(|e| e["sub"].is_string()), "{log:?}");
    // A 2025-11-25 client that declared URL elicitation got the error, audited as asked.
    let asked = server
        .stdout
        .events_where(4, |e| e["event"] == "connection_required");
    assert!(
        asked.iter().all(|e| e["reason"] == "not_connected"),
        "{asked:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disconnect_revokes_the_grant_at_the_upstream() {
    let aws = Aws::start().await;
    let vault = aws.server_env();
    let env: Vec<(&str, &str)> = env_refs(&vault).collect();
    let c = connectable("notes.read, offline_access", true, &env).await;
    let (ok, doc) = python_client(
        &c.server.url,
        "erin",
        &["--connect", "link", "--call", "notes_whoami={}"],
    );
    assert!(ok, "{doc}");
    assert_eq!(
        doc["calls"][0]["structured"]["data"]["subject"], "erin",
        "{doc}"
    );

    // The grant the connect flow stored, read from the vault on moto.
    let person = Person::new(c.ours.issuer(), "erin").unwrap();
    let key = EntryKey::new(person, "notes", ["notes.read", "offline_access"]).unwrap();
    let stored = aws.vault().get(&key).await.unwrap().expect("erin's grant");
    let refresh = stored
        .grant
        .refresh_token
        .clone()
        .expect("the upstream issued a refresh token (offline_access)");
    assert_eq!(c.theirs.requests_to("/token/revocation").await, 0);

    let (ok, doc) = python_client(
        &c.server.url,
        "erin",
        &[
            "--call",
            r#"connections={"action": "disconnect", "connector": "notes"}"#,
        ],
    );
    assert!(ok, "{doc}");
    let answer = &doc["calls"][0]["structured"];
    assert_eq!(answer["disconnected"], true, "{doc}");
    assert_eq!(answer["revoked_upstream"], true, "{doc}");
    assert_eq!(c.theirs.requests_to("/token/revocation").await, 1);
    assert_eq!(aws.vault().get(&key).await.unwrap(), None, "forgotten here");

    // Revoked there: the refresh token no longer buys a token.
    let mut form = reqwest::Url::parse("http://form.invalid/").unwrap();
    form.query_pairs_mut()
        .append_pair("grant_type", "refresh_token")
        .append_pair("refresh_token", &refresh);
    let refused = reqwest::Client::new()
        .post(format!("{}/token", c.theirs.issuer()))
        .basic_auth(&c.notes_client, Some(&c.notes_secret))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.query().unwrap().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"], "invalid_grant", "{body}");
    // And the next call asks to connect again; the remote saw only erin's token.
    let (_, doc) = python_client(&c.server.url, "erin", &["--call", "notes_whoami={}"]);
    assert_eq!(
        doc["calls"][0]["structured"]["status"], "connection_required",
        "{doc}"
    );
    assert!(seen(&c.remote).await.iter().all(|e| e["sub"] == "erin"));
}
