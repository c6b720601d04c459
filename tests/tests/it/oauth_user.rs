//! Tools that act with each person's own upstream account (`auth: oauth_user`), end to end:
//! the real server process as a resource server of a real OpenID provider (our issuer), its
//! vault on moto's DynamoDB and KMS, and a fake upstream API on 127.0.0.1 that answers only
//! the tokens it issued and logs which one each request carried. Two people's calls at once
//! each carry their own token, never the other's (ContextForge's issue 1078 as a test), an API
//! key gets `connection_required` and never a token, a person without a connection gets their
//! own link, a revoked grant is cleared and asked for again, and the vault reads are counted.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use integration_tests::oidc::Op;
use integration_tests::{
    KEY, Rpc, Server, TempDir, env_refs, free_port, interleaved_calls, serve_on_loopback,
};
use mcp_server::{EntryKey, Grant, Person, VaultStore};
use serde_json::{Value, json};

use crate::vault::Aws;

const PEPPER: &str = "oauth-user-test-pepper-0123456789ab";

const CATALOG: &str = r#"connector: mail
title: Mail
base_url: "http://127.0.0.1:9/api"
secrets: [client_id]
auth:
  oauth_user:
    authorization_endpoint: "http://127.0.0.1:9/authorize"
    token_endpoint: "http://127.0.0.1:9/token"
    client_id: client_id
    scopes: [mail.read]
tools:
  - name: mail_me_get
    risk: low
    description: "Who the mail account belongs to. Example: {}"
    get: /me
"#;

/// The fake upstream: which tokens it honours (token → owner) and every token it was sent.
#[derive(Clone, Default)]
struct Upstream {
    owners: Arc<Mutex<HashMap<String, String>>>,
    seen: Arc<Mutex<Vec<String>>>,
}

async fn me(State(u): State<Upstream>, headers: HeaderMap) -> (StatusCode, String) {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("")
        .to_string();
    u.seen.lock().unwrap().push(token.clone());
    match u.owners.lock().unwrap().get(&token) {
        Some(owner) => (StatusCode::OK, json!({"owner": owner}).to_string()),
        None => (
            StatusCode::UNAUTHORIZED,
            json!({"error": "invalid_token"}).to_string(),
        ),
    }
}

async fn start_upstream(u: Upstream) -> String {
    let app = axum::Router::new().route("/api/me", get(me)).with_state(u);
    format!("http://{}/api", serve_on_loopback(app).await)
}

/// The same upstream with the deployment's one token: the baseline of the latency figure.
const PLAIN: &str = r#"connector: plain
base_url: "http://127.0.0.1:9/api"
secrets: [token]
auth: { bearer: token }
tools:
  - name: plain_me_get
    risk: low
    description: "Who the token belongs to. Example: {}"
    get: /me
"#;

/// The server with the catalogs in `dir`, `mail` at `api`, the vault in `aws` and `extra`
/// environment, and the OpenID provider that signs its people in.
fn start_server(aws: &Aws, dir: &TempDir, api: &str, extra: &[(&str, &str)]) -> (Server, Op) {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let op = Op::start(&resource, "mcp:tools");
    let keys = format!("e2e:{KEY}");
    let vault = aws.server_env();
    let mut env = vec![
        ("MCP_API_KEYS", keys.as_str()),
        ("MCP_PSEUDONYM_PEPPER", PEPPER),
        ("MCP_OAUTH_ISSUER", op.issuer()),
        ("MCP_RESOURCE_URL", &resource),
        ("MCP_CATALOG_DIR", dir.path.to_str().unwrap()),
        ("MAIL_BASE_URL", api),
        ("MAIL_CLIENT_ID", "mail-client"),
    ];
    env.extend_from_slice(extra);
    env.extend(env_refs(&vault));
    (Server::start_at(port, &[], &env), op)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_people_each_call_with_their_own_token_and_an_api_key_with_none() {
    let aws = Aws::counting("DynamoDB_20120810.GetItem").await;
    let upstream = Upstream::default();
    let api = start_upstream(upstream.clone()).await;
    let dir = TempDir::new("oauth-user");
    std::fs::write(dir.path.join("mail.yaml"), CATALOG).unwrap();
    std::fs::write(dir.path.join("plain.yaml"), PLAIN).unwrap();

    let plain = [
        ("PLAIN_BASE_URL", api.as_str()),
        ("PLAIN_TOKEN", "alice-upstream-token"),
    ];
    let (server, op) = start_server(&aws, &dir, &api, &plain);
    let alice = op.mint(json!({"claims": {"sub": "alice"}})).await;
    let bob = op.mint(json!({"claims": {"sub": "bob"}})).await;

    // An API key has no person: refused, and nothing reaches the upstream.
    let by_key = Rpc::with_bearer(&server.url, KEY)
        .tool("mail_me_get", json!({}))
        .await;
    assert_eq!(by_key["status"], "connection_required", "{by_key}");
    assert!(by_key.get("connect_url").is_none(), "{by_key}");
    // A person who has not connected gets a link to connect, at this server.
    let first = Rpc::with_bearer(&server.url, &alice)
        .tool("mail_me_get", json!({}))
        .await;
    assert_eq!(first["status"], "connection_required", "{first}");
    let link = first["connect_url"].as_str().unwrap();
    assert!(
        link.starts_with(&format!("{}/connect/mail?for=", server.base())),
        "{link}"
    );
    // A 2026-07-28 client that can open links gets the link as a URL-mode elicitation.
    let asked = Rpc::with_bearer(&server.url, &alice)
        .modern(
            "tools/call",
            Some("mail_me_get"),
            json!({"name": "mail_me_get", "arguments": {}}),
            json!({"elicitation": {"url": {}}}),
        )
        .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let request = &asked["result"]["inputRequests"]["connect"];
    assert_eq!(request["method"], "elicitation/create", "{asked}");
    assert_eq!(request["params"]["mode"], "url");
    let offered = request["params"]["url"].as_str().unwrap();
    assert!(offered.contains("/connect/mail?for="), "{offered}");
    assert!(upstream.seen.lock().unwrap().is_empty());

    // Both connect (their grants as the connect callback stores them).
    let vault = aws.vault();
    for who in ["alice", "bob"] {
        let key = EntryKey::new(
            Person::new(op.issuer(), who).unwrap(),
            "mail",
            ["mail.read"],
        )
        .unwrap();
        let token = format!("{who}-upstream-token");
        upstream
            .owners
            .lock()
            .unwrap()
            .insert(token.clone(), who.to_string());
        let grant = Grant {
            access_token: token,
            refresh_token: None,
            expires_at: None,
            scopes: None,
        };
        vault.put(&key, &grant, 1).await.unwrap();
    }

    // Each one's first call: one vault read, and KMS once to unwrap their data key.
    let (reads, unwraps) = (aws.dynamodb.count(), aws.kms.count());
    for (who, bearer) in [("alice", &alice), ("bob", &bob)] {
        assert_eq!(
            Rpc::with_bearer(&server.url, bearer)
                .tool("mail_me_get", json!({}))
                .await["data"]["owner"],
            who
        );
    }
    assert_eq!(aws.dynamodb.count() - reads, 2);
    assert_eq!(aws.kms.count() - unwraps, 2, "one Decrypt per person");

    // Twenty calls at once, interleaved: each answer is its caller's own account.
    let (reads, unwraps) = (aws.dynamodb.count(), aws.kms.count());
    let people = [("alice", alice.as_str()), ("bob", bob.as_str())];
    for (who, answer) in interleaved_calls(&server.url, "mail_me_get", &people, 20).await {
        assert_eq!(answer["status"], "ok", "{who}: {answer}");
        assert_eq!(
            answer["data"]["owner"], who,
            "{who} got someone else's account"
        );
    }
    let seen = upstream.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 22);
    assert_eq!(
        seen.iter().filter(|t| *t == "alice-upstream-token").count(),
        11
    );
    assert_eq!(
        seen.iter().filter(|t| *t == "bob-upstream-token").count(),
        11
    );
    let (reads, unwraps) = (aws.dynamodb.count() - reads, aws.kms.count() - unwraps);
    println!("20 calls by two people: {reads} vault reads (GetItem), {unwraps} KMS requests");
    assert_eq!(reads, 20, "one vault read per call");
    assert_eq!(unwraps, 0, "the unwrapped data keys are cached");

    // Bob revokes the grant at the upstream: his entry is cleared and he is asked again.
    upstream.owners.lock().unwrap().remove("bob-upstream-token");
    let revoked = Rpc::with_bearer(&server.url, &bob)
        .tool("mail_me_get", json!({}))
        .await;
    assert_eq!(revoked["status"], "connection_required", "{revoked}");
    assert_eq!(
        revoked["reason"],
        Value::Null,
        "reasons stay in the audit line"
    );
    assert!(revoked["connect_url"].is_string());
    let bob_key = EntryKey::new(
        Person::new(op.issuer(), "bob").unwrap(),
        "mail",
        ["mail.read"],
    )
    .unwrap();
    assert_eq!(vault.get(&bob_key).await.unwrap(), None);
    assert_eq!(
        Rpc::with_bearer(&server.url, &alice)
            .tool("mail_me_get", json!({}))
            .await["data"]["owner"],
        "alice"
    );

    // Neither our callers' tokens nor the upstream's show in what the server printed.
    let printed = format!("{}\n{}", server.stdout.joined(), server.stderr.joined());
    for secret in [
        alice.as_str(),
        bob.as_str(),
        "alice-upstream-token",
        "bob-upstream-token",
    ] {
        assert!(!printed.contains(secret), "a token was printed");
    }
    // Our callers' own tokens never went upstream.
    assert!(!seen.iter().any(|t| t.starts_with("eyJ")));
    let reasons: Vec<Value> = server
        .stdout
        .events_where(25, |e| e["tool"] == "mail_me_get")
        .iter()
        .map(|e| e["reason"].clone())
        .collect();
    assert!(reasons.contains(&json!("no_person")), "{reasons:?}");
    assert!(reasons.contains(&json!("not_connected")), "{reasons:?}");
    assert!(reasons.contains(&json!("grant_refused")), "{reasons:?}");

    // The figure: what the credentials stage adds to a call (the audit lines' duration, which
    // covers the server's whole work), the same upstream with the deployment's token beside.
    // The median of the last `n` ok calls of `tool`, of at least `at_least`.
    let median = |tool: &str, at_least: usize, n: usize| {
        let events = server
            .stdout
            .events_where(at_least, |e| e["tool"] == tool && e["status"] == "ok");
        let mut d: Vec<f64> = events[events.len() - n..]
            .iter()
            .filter_map(|e| e["duration_ms"].as_f64())
            .collect();
        d.sort_by(f64::total_cmp);
        d[d.len() / 2]
    };
    let before = server
        .stdout
        .events_where(0, |e| e["tool"] == "mail_me_get" && e["status"] == "ok")
        .len();
    for _ in 0..30 {
        assert_eq!(
            Rpc::with_bearer(&server.url, &alice)
                .tool("plain_me_get", json!({}))
                .await["status"],
            "ok"
        );
        assert_eq!(
            Rpc::with_bearer(&server.url, &alice)
                .tool("mail_me_get", json!({}))
                .await["status"],
            "ok"
        );
    }
    let plain = median("plain_me_get", 30, 30);
    let person = median("mail_me_get", before + 30, 30);
    println!(
        "median server time per call: {person:.2} ms with the person's token from the vault \
         (one GetItem on moto), {plain:.2} ms with the deployment's token"
    );
}

/// A person's contacts as completion values: the upstream answers each token's owner's own.
const CONTACTS: &str = r#"connector: mail
title: Mail
base_url: "http://127.0.0.1:9/api"
secrets: [client_id]
list_envelope: { items: entries }
auth:
  oauth_user:
    authorization_endpoint: "http://127.0.0.1:9/authorize"
    token_endpoint: "http://127.0.0.1:9/token"
    client_id: client_id
    scopes: [mail.read]
tools:
  - name: mail_contacts_list
    risk: low
    list: true
    description: "The person's contacts. Use it to find a contact id. Example: {}"
    get: /contacts
    fields: [id, name]
  - name: mail_contact_get
    risk: low
    description: 'One contact. Use it with an id. Example: {"id": 1}'
    get: /contacts/{id}
    params:
      id:
        type: integer
        in: path
        min: 1
        description: "Contact id."
        complete: { from: mail_contacts_list, match: name, value: id }
"#;

async fn contacts(State(u): State<Upstream>, headers: HeaderMap) -> (StatusCode, String) {
    let (status, body) = me(State(u), headers).await;
    if status != StatusCode::OK {
        return (status, body);
    }
    let owner: Value = serde_json::from_str(&body).unwrap();
    let id = if owner["owner"] == "alice" {
        7001
    } else {
        7002
    };
    let name = format!("Aunt of {}", owner["owner"].as_str().unwrap());
    (
        StatusCode::OK,
        json!({"entries": [{"id": id, "name": name}]}).to_string(),
    )
}

/// `completion/complete` of the argument, as `bearer`: the values, or the error.
async fn complete(http: &reqwest::Client, url: &str, bearer: &str, typed: &str) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": {
        "ref": {"type": "ref/resource", "uri": "mail://contacts/{id}"},
        "argument": {"name": "id", "value": typed}}});
    http.post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .bearer_auth(bearer)
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persons_completions_reach_nobody_else_and_pass_the_credentials_stage() {
    let aws = Aws::counting("DynamoDB_20120810.GetItem").await;
    let upstream = Upstream::default();
    let app = axum::Router::new()
        .route("/api/contacts", get(contacts))
        .with_state(upstream.clone());
    let api = format!("http://{}/api", serve_on_loopback(app).await);
    let dir = TempDir::new("oauth-user-complete");
    let catalog = CONTACTS.replace(
        "    get: /contacts/{id}\n",
        "    get: /contacts/{id}\n    resource: \"mail://contacts/{id}\"\n",
    );
    std::fs::write(dir.path.join("mail.yaml"), catalog).unwrap();
    let (server, op) = start_server(&aws, &dir, &api, &[]);
    let http = reqwest::Client::new();
    let alice = op.mint(json!({"claims": {"sub": "alice"}})).await;
    let bob = op.mint(json!({"claims": {"sub": "bob"}})).await;
    let key = EntryKey::new(
        Person::new(op.issuer(), "alice").unwrap(),
        "mail",
        ["mail.read"],
    )
    .unwrap();
    upstream
        .owners
        .lock()
        .unwrap()
        .insert("alice-upstream-token".into(), "alice".into());
    let grant = Grant {
        access_token: "alice-upstream-token".into(),
        refresh_token: None,
        expires_at: None,
        scopes: None,
    };
    aws.vault().put(&key, &grant, 1).await.unwrap();

    // Alice completes from her own contacts.
    let hers = complete(&http, &server.url, &alice, "Au").await;
    assert_eq!(
        hers["result"]["completion"]["values"],
        json!(["7001 · Aunt of alice"]),
        "{hers}"
    );
    // Bob, who never connected, and an API key: no values, nothing of Alice's, and an error
    // that says to connect.
    for (who, bearer) in [("bob", bob.as_str()), ("the API key", KEY)] {
        let theirs = complete(&http, &server.url, bearer, "Au").await;
        assert!(theirs.get("result").is_none(), "{who}: {theirs}");
        assert!(!theirs.to_string().contains("7001"), "{who}: {theirs}");
        assert!(
            theirs["error"]["message"]
                .as_str()
                .unwrap()
                .contains("connection_required"),
            "{who}: {theirs}"
        );
    }
    // Alice disconnects: her next keystroke passes the credentials stage again and is refused.
    let asked = upstream.seen.lock().unwrap().len();
    assert!(aws.vault().remove(&key).await.unwrap());
    let after = complete(&http, &server.url, &alice, "Aun").await;
    assert!(after.get("result").is_none(), "{after}");
    assert_eq!(upstream.seen.lock().unwrap().len(), asked, "nothing sent");
}
