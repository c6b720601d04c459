//! OAuth end to end: the real server process as a resource server of a real OpenID provider
//! (npm `oidc-provider`, `tests/tools/oidc/op.mjs`) on 127.0.0.1. Discovery from a 401, the
//! metadata documents, tokens that work (the person in the audit line only as a pseudonym),
//! every refusal with its status and `WWW-Authenticate`, the signing-key cache through an
//! outage of the authorization server, API keys beside OAuth, and the real Python `mcp` SDK
//! signing in by itself (dynamic registration, authorization code with PKCE and the resource
//! parameter) for both protocol generations.

use std::process::Command;
use std::time::Duration;

use integration_tests::oidc::Op;
use integration_tests::{KEY, Server, eventually, free_port, repo, tool};
use serde_json::{Value, json};

const PEPPER: &str = "oauth-test-pepper-0123456789abcdef";
const SCOPES: &str = "mcp:tools mcp:bookkeeping";

/// A provider and a server that trusts it, on a port chosen first (the resource URL names it).
struct Setup {
    op: Op,
    server: Server,
    resource: String,
    http: reqwest::Client,
}

fn setup(env: &[(&str, &str)]) -> Setup {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let op = Op::start(&resource, SCOPES);
    let server = start_server(port, &op, &resource, env);
    Setup {
        op,
        server,
        resource,
        http: reqwest::Client::new(),
    }
}

fn start_server(port: u16, op: &Op, resource: &str, env: &[(&str, &str)]) -> Server {
    let keys = format!("e2e:{KEY},webui:{KEY}-webui");
    let mut all = vec![
        ("MCP_API_KEYS", keys.as_str()),
        ("MCP_PSEUDONYM_PEPPER", PEPPER),
        ("MCP_OAUTH_ISSUER", op.issuer()),
        ("MCP_RESOURCE_URL", resource),
        (
            "MCP_PROFILES",
            "bookkeeping=papierkram/invoices_*;reports=papierkram/*_get",
        ),
        (
            "MCP_OAUTH_PROFILES",
            "mcp:tools=*,mcp:bookkeeping=bookkeeping",
        ),
    ];
    all.extend_from_slice(env);
    Server::start_at(port, &[], &all)
}

/// An answer's status, `WWW-Authenticate` and JSON body.
struct Answer {
    status: u16,
    challenge: Option<String>,
    body: Value,
}

impl Setup {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.base())
    }

    async fn post(&self, path: &str, bearer: Option<&str>, body: Value) -> Answer {
        post(&self.http, &self.url(path), bearer, body).await
    }

    async fn list(&self, path: &str, bearer: &str) -> Answer {
        list(&self.http, &self.url(path), bearer).await
    }

    async fn call(&self, path: &str, bearer: &str, tool: &str) -> Answer {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                          "params": {"name": tool, "arguments": {}}});
        self.post(path, Some(bearer), body).await
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.http.get(self.url(path)).send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    fn metadata_url(&self, path: &str) -> String {
        format!(
            "{}/.well-known/oauth-protected-resource{path}",
            self.server.base()
        )
    }
}

async fn post(http: &reqwest::Client, url: &str, bearer: Option<&str>, body: Value) -> Answer {
    let mut r = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(b) = bearer {
        r = r.bearer_auth(b);
    }
    let response = r.send().await.expect("request");
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_string());
    let text = response.text().await.unwrap();
    Answer {
        status,
        challenge,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
    }
}

async fn list(http: &reqwest::Client, url: &str, bearer: &str) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    post(http, url, Some(bearer), body).await
}

fn tool_names(answer: &Answer) -> Vec<String> {
    answer.body["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {}", answer.body))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// The audit events of one kind (`tool_call`, `auth_denied`, …), at least `at_least` of them.
fn events(server: &Server, kind: &str, at_least: usize) -> Vec<Value> {
    server.stdout.events_where(at_least, |e| e["event"] == kind)
}

fn now() -> u64 {
    std::time::UNIX_EPOCH.elapsed().unwrap().as_secs()
}

#[tokio::test]
async fn discovery_starts_at_the_401_and_leads_to_the_authorization_server() {
    let s = setup(&[]);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    for (path, suffix) in [("/mcp", "/mcp"), ("/mcp/bookkeeping", "/mcp/bookkeeping")] {
        let a = s.post(path, None, initialize.clone()).await;
        assert_eq!(a.status, 401, "{}", a.body);
        let challenge = a.challenge.expect("WWW-Authenticate");
        let expected = format!(r#"Bearer resource_metadata="{}""#, s.metadata_url(suffix));
        assert!(challenge.starts_with(&expected), "{challenge}");
        assert!(
            !challenge.contains("error="),
            "no error code without a token: {challenge}"
        );
        // The body repeats it, for front doors that rename the header.
        assert_eq!(a.body["www_authenticate"], challenge.as_str());
        assert_eq!(a.body["resource_metadata"], s.metadata_url(suffix).as_str());
    }
    // The metadata: root and path-suffixed, unauthenticated.
    let (status, root) = s.get("/.well-known/oauth-protected-resource").await;
    assert_eq!(status, 200);
    assert_eq!(root["resource"], s.resource.as_str());
    assert_eq!(root["authorization_servers"], json!([s.op.issuer()]));
    assert_eq!(root["bearer_methods_supported"], json!(["header"]));
    assert_eq!(root["scopes_supported"], json!(["mcp:tools"]));
    let (_, mcp) = s.get("/.well-known/oauth-protected-resource/mcp").await;
    assert_eq!(mcp, root);
    let (status, books) = s
        .get("/.well-known/oauth-protected-resource/mcp/bookkeeping")
        .await;
    assert_eq!(status, 200);
    assert_eq!(books["resource"], format!("{}/bookkeeping", s.resource));
    assert_eq!(
        books["scopes_supported"],
        json!(["mcp:bookkeeping", "mcp:tools"])
    );
    let (status, _) = s
        .get("/.well-known/oauth-protected-resource/mcp/nope")
        .await;
    assert_eq!(status, 404);
    // And the authorization server it names answers its own metadata.
    let issuer = root["authorization_servers"][0].as_str().unwrap();
    let as_meta: Value = s
        .http
        .get(format!("{issuer}/.well-known/oauth-authorization-server"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(as_meta["issuer"], issuer);
    assert!(as_meta["registration_endpoint"].is_string());
    assert_eq!(as_meta["code_challenge_methods_supported"], json!(["S256"]));
}

#[tokio::test]
async fn the_resource_metadata_counts_against_the_per_ip_limit() {
    let s = setup(&[("MCP_LIMITS", "on"), ("MCP_LIMIT_PER_IP_PER_MINUTE", "2")]);
    // At most two a minute: within five requests one is refused, even if a minute turns over.
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let (status, _) = s.get("/.well-known/oauth-protected-resource/mcp").await;
        statuses.push(status);
        if status == 429 {
            break;
        }
    }
    assert_eq!(statuses.last(), Some(&429), "{statuses:?}");
    assert_eq!(statuses[0], 200, "{statuses:?}");
}

#[tokio::test]
async fn tokens_open_their_profiles_and_the_audit_names_the_person_by_pseudonym() {
    let s = setup(&[]);
    let alice =
        s.op.mint(json!({"claims": {"sub": "alice@example.com"}}))
            .await;
    let everything = s.list("/mcp", &alice).await;
    assert_eq!(everything.status, 200, "{}", everything.body);
    assert!(tool_names(&everything).len() > 5);
    let call = s.call("/mcp", &alice, "papierkram_invoices_list").await;
    assert_eq!(call.status, 200);
    assert_eq!(call.body["result"]["isError"], false, "{}", call.body);

    // A bookkeeping token sees its profile at /mcp and at /mcp/bookkeeping, nothing else.
    let bob =
        s.op.mint(json!({"claims": {"sub": "bob@example.com", "scope": "openid mcp:bookkeeping"}}))
            .await;
    let at_root = s.list("/mcp", &bob).await;
    assert_eq!(at_root.status, 200);
    let names = tool_names(&at_root);
    assert!(
        names.contains(&"papierkram_invoices_list".to_string()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"papierkram_companies_list".to_string()),
        "{names:?}"
    );
    assert_eq!(tool_names(&s.list("/mcp/bookkeeping", &bob).await), names);
    let reports = s.list("/mcp/reports", &bob).await;
    assert_eq!(reports.status, 403, "{}", reports.body);
    let challenge = reports.challenge.unwrap();
    assert!(
        challenge.starts_with(r#"Bearer error="insufficient_scope", scope="mcp:tools""#),
        "{challenge}"
    );
    // A token bound to the profile's own resource URL works there, not at the root.
    let bound = s
        .op
        .mint(json!({"claims": {"aud": format!("{}/bookkeeping", s.resource), "scope": "mcp:bookkeeping"}}))
        .await;
    assert_eq!(s.list("/mcp/bookkeeping", &bound).await.status, 200);
    let wrong = s.list("/mcp", &bound).await;
    assert_eq!(wrong.status, 401);
    assert!(wrong.challenge.unwrap().contains("another resource"));

    // Signed with the provider's other key (ES256).
    let es = s.op.mint(json!({"alg": "ES256"})).await;
    assert_eq!(s.list("/mcp", &es).await.status, 200);

    // A token from the provider's own grant (client credentials, resource indicator) works too.
    let service =
        s.op.client_credentials("mcp:tools", Some(&s.resource))
            .await;
    assert_eq!(
        s.call("/mcp", &service, "papierkram_invoices_list")
            .await
            .status,
        200
    );

    // Subjects are case-sensitive: two that differ only in case are two people.
    for sub in ["AbCdEf-user", "abcdef-USER"] {
        let token = s.op.mint(json!({"claims": {"sub": sub}})).await;
        assert_eq!(
            s.call("/mcp", &token, "papierkram_invoices_list")
                .await
                .status,
            200
        );
    }

    let calls = events(&s.server, "tool_call", 4);
    let users: Vec<&str> = calls.iter().map(|e| e["user"].as_str().unwrap()).collect();
    assert!(calls.iter().all(|e| e["key_id"] == "oauth"), "{calls:?}");
    assert!(users.iter().all(|u| u.starts_with("u_")), "{users:?}");
    assert_eq!(users.len(), 4, "{users:?}");
    assert_ne!(users[0], users[1], "alice and the service differ");
    assert_ne!(users[2], users[3], "AbCdEf-user and abcdef-USER differ");
    let out = s.server.stdout.joined() + &s.server.stderr.joined();
    for planted in [
        "alice@example.com",
        "bob@example.com",
        &alice,
        &bob,
        &service,
    ] {
        assert!(!out.contains(planted), "{planted} in the server's output");
    }
}

/// Every kind of bad token: 401 `invalid_token` naming why (403 `insufficient_scope` for a
/// token that opens nothing here), audited by reason, the token in no output.
#[tokio::test]
async fn refusals_each_with_its_status_and_challenge() {
    let s = setup(&[]);
    let t = now();
    let cases: Vec<(&str, Value, u16, &str)> = vec![
        (
            "expired",
            json!({"claims": {"iat": t - 7200, "exp": t - 3600}}),
            401,
            "expired",
        ),
        (
            "not yet valid",
            json!({"claims": {"nbf": t + 3600}}),
            401,
            "not_yet_valid",
        ),
        (
            "wrong issuer",
            json!({"claims": {"iss": "http://127.0.0.1:1/other"}}),
            401,
            "issuer",
        ),
        (
            "another resource",
            json!({"claims": {"aud": "http://127.0.0.1:9/mcp"}}),
            401,
            "audience",
        ),
        (
            "our resource inside another audience string (never split on spaces)",
            json!({"claims": {"aud": format!("http://127.0.0.1:9/api {}", s.resource)}}),
            401,
            "audience",
        ),
        (
            "an ID token's type",
            json!({"header": {"typ": "JWT"}}),
            401,
            "token_type",
        ),
        (
            "no type",
            json!({"header": {"typ": null}}),
            401,
            "token_type",
        ),
        (
            "no subject",
            json!({"claims": {"sub": null}}),
            401,
            "missing_claim",
        ),
        (
            "bad signature",
            json!({"mode": "bad-signature"}),
            401,
            "signature",
        ),
        ("alg none", json!({"mode": "none"}), 401, "algorithm"),
        (
            "HMAC with the public key",
            json!({"mode": "hmac-public-key"}),
            401,
            "algorithm",
        ),
        (
            "foreign key, known kid",
            json!({"mode": "foreign-key"}),
            401,
            "signature",
        ),
        (
            "scope opens nothing",
            json!({"claims": {"scope": "openid profile"}}),
            403,
            "insufficient_scope",
        ),
    ];
    let mut tokens = Vec::new();
    for (name, request, status, reason) in &cases {
        let token = s.op.mint(request.clone()).await;
        let a = s.list("/mcp", &token).await;
        assert_eq!(a.status, *status, "{name}: {}", a.body);
        let challenge = a
            .challenge
            .unwrap_or_else(|| panic!("{name}: no WWW-Authenticate"));
        let code = if *status == 401 {
            "invalid_token"
        } else {
            "insufficient_scope"
        };
        assert!(
            challenge.contains(&format!(r#"error="{code}""#)),
            "{name}: {challenge}"
        );
        assert!(
            challenge.contains(&s.metadata_url("/mcp")),
            "{name}: {challenge}"
        );
        if *status == 403 {
            assert!(
                challenge.contains(r#"scope="mcp:tools""#),
                "{name}: {challenge}"
            );
        }
        let text = a.body.to_string();
        assert!(!text.contains(&token), "{name}: the token echoed");
        tokens.push((name, token, reason));
    }
    let denied = events(&s.server, "auth_denied", cases.len());
    let reasons: Vec<&str> = denied
        .iter()
        .map(|e| e["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        cases.iter().map(|c| c.3).collect::<Vec<_>>(),
        "one audit line per refusal, by reason"
    );
    // A bearer value that is no JWT is checked as an API key: invalid, 401 with the challenge.
    let a = s.list("/mcp", "not-a-jwt-and-no-key").await;
    assert_eq!(a.status, 401);
    assert!(
        a.challenge
            .unwrap()
            .starts_with("Bearer resource_metadata=")
    );
    let out = s.server.stdout.joined() + &s.server.stderr.joined();
    for (name, token, _) in &tokens {
        assert!(
            !out.contains(token.as_str()),
            "{name}: token in the server's output"
        );
        let signature = token.rsplit('.').next().unwrap();
        assert!(
            signature.is_empty() || !out.contains(signature),
            "{name}: signature logged"
        );
    }
}

#[tokio::test]
async fn api_keys_keep_working_beside_oauth_and_the_user_header_needs_a_trusted_key() {
    let s = setup(&[("MCP_USER_HEADER_KEYS", "webui")]);
    let webui_key = format!("{KEY}-webui");
    for key in [KEY, webui_key.as_str()] {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                          "params": {"name": "papierkram_invoices_list", "arguments": {}}});
        let r = s
            .http
            .post(s.url("/mcp"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("x-user-email", "carol@example.com")
            .bearer_auth(key)
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let calls = events(&s.server, "tool_call", 2);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0]["key_id"], "e2e");
    assert_eq!(
        calls[0]["user"],
        Value::Null,
        "an untrusted key's header is ignored"
    );
    assert_eq!(calls[1]["key_id"], "webui");
    assert!(calls[1]["user"].as_str().unwrap().starts_with("u_"));

    // OAuth alone: keys are refused.
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let only = start_server(port, &s.op, &resource, &[("MCP_AUTH", "oauth")]);
    let r = reqwest::Client::new()
        .post(format!("{}/mcp", only.base()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(KEY)
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

/// The keys are fetched on the first token, not at start; cached keys carry valid tokens
/// through an outage of the authorization server, an unknown key id is refused meanwhile;
/// without any keys the answer is 503 until the server is back.
#[tokio::test]
async fn signing_keys_are_fetched_on_first_need_and_survive_an_outage() {
    let mut s = setup(&[]);
    // Start, /health and API-key calls do not touch the authorization server.
    assert_eq!(s.get("/health").await.0, 200);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    assert_eq!(s.post("/mcp", Some(KEY), body).await.status, 200);
    let seen = s.op.requests().await;
    assert_eq!(
        seen,
        json!({}),
        "the server asked the provider before any token: {seen}"
    );

    let valid = s.op.mint(json!({})).await;
    let unknown_kid =
        s.op.mint(json!({"mode": "foreign-key", "header": {"kid": "rs-unknown"}}))
            .await;
    assert_eq!(s.list("/mcp", &valid).await.status, 200);
    assert_eq!(s.op.requests_to("/jwks").await, 1);
    assert_eq!(s.list("/mcp", &valid).await.status, 200);
    assert_eq!(s.op.requests_to("/jwks").await, 1, "cached");

    s.op.kill();
    assert_eq!(
        s.list("/mcp", &valid).await.status,
        200,
        "cached keys, provider down"
    );
    let a = s.list("/mcp", &unknown_kid).await;
    assert_eq!(a.status, 401, "{}", a.body);
    assert!(a.challenge.unwrap().contains("signing key is unknown"));

    // A fresh server that never saw the keys: 503 with a clear message, and it recovers.
    let fresh = start_server(free_port(), &s.op, &s.resource, &[]);
    let url = format!("{}/mcp", fresh.base());
    let a = list(&s.http, &url, &valid).await;
    assert_eq!(a.status, 503, "{}", a.body);
    assert!(
        a.body["message"]
            .as_str()
            .unwrap()
            .contains("signing keys cannot be loaded"),
        "{}",
        a.body
    );
    assert!(fresh.stderr.shows("cannot load the OAuth signing keys"));
    let back = Op::start_on(s.op.port(), &s.resource, SCOPES);
    let token = back.mint(json!({})).await;
    // After the server's wait before asking the authorization server again (5 s).
    eventually(
        "the keys load once the provider is back",
        Duration::from_secs(15),
        || async { (list(&s.http, &url, &token).await.status == 200).then_some(()) },
    )
    .await;
}

/// The real Python SDK client signs in by itself: 401 → resource metadata → authorization
/// server metadata → dynamic registration → authorization code with PKCE and `resource` →
/// token → the MCP requests, for both protocol generations.
#[tokio::test]
async fn python_sdk_signs_in_through_discovery_for_both_generations() {
    let s = setup(&[]);
    let mut users = Vec::new();
    for (era, person) in [
        ("handshake", "alice@example.com"),
        ("modern", "alice@example.com"),
        ("modern", "dave@example.com"),
    ] {
        let output = Command::new(tool("venv/bin/python"))
            .arg(repo().join("tests/clients/python_client.py"))
            .args(["--url", &s.server.url, "--era", era, "--oauth"])
            .args(["--oauth-user", person, "--oauth-scope", "mcp:tools"])
            .args(["--call", "papierkram_invoices_list={}", "--timeout", "60"])
            .output()
            .expect("python client");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{era}: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert!(report["tools"].as_array().unwrap().len() > 5, "{report}");
        assert_eq!(report["calls"][0]["is_error"], false, "{report}");
        let steps: Vec<String> = report["oauth"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let position = |needle: &str| {
            steps
                .iter()
                .position(|u| u.contains(needle))
                .unwrap_or_else(|| panic!("{era}: no {needle} in {steps:?}"))
        };
        let order = [
            position("/.well-known/oauth-protected-resource"),
            position("/.well-known/oauth-authorization-server"),
            position("/reg"),
            position("/auth"),
            position("/token"),
        ];
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{era}: {steps:?}");
        let calls = events(&s.server, "tool_call", users.len() + 1);
        let last = calls.last().unwrap();
        assert_eq!(last["key_id"], "oauth");
        users.push(last["user"].as_str().unwrap().to_string());
    }
    assert_eq!(
        users[0], users[1],
        "one person, one pseudonym across sessions"
    );
    assert_ne!(users[1], users[2]);
    let out = s.server.stdout.joined() + &s.server.stderr.joined();
    assert!(!out.contains("alice@example.com") && !out.contains("dave@example.com"));
}

/// `mcp-server smoke --oauth` walks the discovery from outside: 401 → resource metadata →
/// authorization server metadata; against a server without OAuth it fails, naming the step.
#[tokio::test]
async fn smoke_checks_discovery_from_outside() {
    let s = setup(&[]);
    let smoke = |url: &str| {
        let out = Command::new(integration_tests::server_binary())
            .args(["smoke", "--url", url, "--key", KEY, "--oauth"])
            .output()
            .expect("run smoke");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (ok, out) = smoke(&s.server.url);
    assert!(ok, "{out}");
    for line in [
        "ok   401 names metadata",
        "ok   resource metadata",
        "ok   authorization server",
    ] {
        assert!(out.contains(line), "{line}:\n{out}");
    }
    assert!(out.contains("dynamic registration"), "{out}");
    let keys_only = Server::start(&[], &[("MCP_API_KEYS", &format!("e2e:{KEY}"))]);
    let (ok, out) = smoke(&keys_only.url);
    assert!(!ok, "{out}");
    assert!(out.contains("FAIL 401 names metadata"), "{out}");
}
