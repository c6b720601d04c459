//! `/connect/<connector>` end to end, with a browser simulated step by step (redirects followed
//! by hand, cookies kept per host): oidc-provider as our authorization server and a second one
//! as the upstream's, a fake upstream API that answers with the subject of the upstream token
//! it was sent. A person connects and their calls then carry their own upstream token; a link
//! forwarded to someone else is refused after they sign in; a state is used once; a broken
//! link gets a plain page, and every page is looked at in headless Chromium.

use std::collections::HashMap;

use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use base64::Engine;
use integration_tests::look::{assert_clear, assert_plain_and_clear, look_at};
use integration_tests::oidc::Op;
use integration_tests::{KEY, Rpc, Server, TempDir, free_port, repo};
use serde_json::{Value, json};

const CATALOG: &str = r#"connector: mail
title: Mail
base_url: "http://127.0.0.1:9/api"
secrets: [client_id, client_secret]
auth:
  oauth_user:
    authorization_endpoint: "UPSTREAM_ISSUER/auth"
    token_endpoint: "UPSTREAM_ISSUER/token"
    client_id: client_id
    client_secret: client_secret
    scopes: [mail.read]
    resource: "UPSTREAM_API"
tools:
  - name: mail_me_get
    risk: low
    description: "Who the mail account belongs to. Example: {}"
    get: /me
  - name: mail_contacts_list
    risk: low
    description: "The person's address book (a scope of its own). Example: {}"
    get: /contacts
    scopes: [contacts.read]
"#;

/// The fake upstream: answers `{"owner": <sub>}` for a JWT of the upstream's issuer and
/// audience, 401 for anything else; `/contacts` also wants the scope `contacts.read` (403
/// without). (It reads the claims; the signature is the issuer's business in these tests.)
async fn start_upstream_api(issuer: String, port: u16) -> String {
    let api = format!("http://127.0.0.1:{port}/api");
    let audience = api.clone();
    let answer = move |headers: HeaderMap, scope: Option<&'static str>| {
        let (issuer, audience) = (issuer.clone(), audience.clone());
        async move {
            let claims = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .and_then(|jwt| jwt.split('.').nth(1))
                .and_then(|p| {
                    base64::engine::general_purpose::URL_SAFE_NO_PAD
                        .decode(p)
                        .ok()
                })
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
            let scoped = |c: &Value| {
                let held = c["scope"].as_str().unwrap_or("");
                scope.is_none_or(|s| held.split(' ').any(|h| h == s))
            };
            match claims {
                Some(c) if c["iss"] == issuer.as_str() && c["aud"] == audience.as_str() => {
                    if !scoped(&c) {
                        return (StatusCode::FORBIDDEN, "{}".to_string());
                    }
                    (StatusCode::OK, json!({"owner": c["sub"]}).to_string())
                }
                _ => (StatusCode::UNAUTHORIZED, "{}".to_string()),
            }
        }
    };
    let contacts = answer.clone();
    let app = axum::Router::new()
        .route("/api/me", get(move |h| answer(h, None)))
        .route(
            "/api/contacts",
            get(move |h| contacts(h, Some("contacts.read"))),
        );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    api
}

/// Registers a client at `op` (RFC 7591) and answers its id and secret.
/// What a browser ends on: its status, body and the URLs it went through; or, told to stop
/// before a URL, that URL (not requested).
pub(crate) struct Landed {
    pub(crate) status: u16,
    pub(crate) body: String,
    visited: Vec<String>,
    stopped_before: Option<String>,
}

/// One browser: its cookies per host, kept across the pages it opens.
pub(crate) struct Browser {
    http: reqwest::Client,
    jar: HashMap<String, HashMap<String, String>>,
}

/// Follows redirects in a new browser (see [`Browser::open`]).
async fn browse(start: &str, who: &str) -> Landed {
    Browser::new().open(start, who, None).await
}

impl Browser {
    pub(crate) fn new() -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        Browser {
            http,
            jar: HashMap::new(),
        }
    }

    /// A form's `POST` of one field, `ticket`, with this browser's cookies for the host.
    async fn post(&mut self, url: &str, ticket: &str) -> Landed {
        let url = reqwest::Url::parse(url).unwrap();
        let host = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(80));
        let cookie = self
            .jar
            .get(&host)
            .map(|c| {
                c.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default();
        let mut body = reqwest::Url::parse("http://form/").unwrap();
        body.query_pairs_mut().append_pair("ticket", ticket);
        let response = self
            .http
            .post(url)
            .header("cookie", cookie)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.query().unwrap_or_default().to_string())
            .send()
            .await
            .unwrap();
        Landed {
            status: response.status().as_u16(),
            body: response.text().await.unwrap(),
            visited: Vec::new(),
            stopped_before: None,
        }
    }

    /// Follows redirects by hand as `who` would (each authorization request gets `login_hint`,
    /// which the test providers sign in as), keeping cookies per host; stops before the first URL
    /// that starts with `stop_before`, if given.
    pub(crate) async fn open(
        &mut self,
        start: &str,
        who: &str,
        stop_before: Option<&str>,
    ) -> Landed {
        let http = &self.http;
        let jar = &mut self.jar;
        let mut url = reqwest::Url::parse(start).unwrap();
        let mut visited = Vec::new();
        for _ in 0..30 {
            if url.path().ends_with("/auth") && !url.query().unwrap_or("").contains("login_hint") {
                url.query_pairs_mut().append_pair("login_hint", who);
            }
            if stop_before.is_some_and(|p| url.as_str().starts_with(p)) {
                return Landed {
                    status: 0,
                    body: String::new(),
                    visited,
                    stopped_before: Some(url.to_string()),
                };
            }
            visited.push(url.to_string());
            let host = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(80));
            let cookies = jar.entry(host.clone()).or_default();
            let header = cookies
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("; ");
            let mut request = http.get(url.clone());
            if !header.is_empty() {
                request = request.header("cookie", header);
            }
            let response = request.send().await.unwrap();
            for set in response.headers().get_all("set-cookie") {
                let pair = set.to_str().unwrap().split(';').next().unwrap();
                if let Some((k, v)) = pair.split_once('=') {
                    if v.is_empty() {
                        cookies.remove(k);
                    } else {
                        cookies.insert(k.to_string(), v.to_string());
                    }
                }
            }
            let status = response.status().as_u16();
            if let Some(next) = response.headers().get("location") {
                url = url.join(next.to_str().unwrap()).unwrap();
                continue;
            }
            let body = response.text().await.unwrap();
            return Landed {
                status,
                body,
                visited,
                stopped_before: None,
            };
        }
        panic!("more than 30 redirects: {visited:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_connects_their_own_account_and_a_forwarded_link_attaches_nobody() {
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let resource = format!("{base}/mcp");
    let ours = Op::start(&resource, "mcp:tools");
    let api_port = free_port();
    let api_url = format!("http://127.0.0.1:{api_port}/api");
    let theirs = Op::start(&api_url, "mail.read contacts.read");
    let api = start_upstream_api(theirs.issuer().to_string(), api_port).await;
    let (connect_client, _) = ours
        .register_for(
            &[
                &format!("{base}/connect/mail/signed-in"),
                &format!("{base}/connections/signed-in"),
            ],
            true,
        )
        .await;
    let (mail_client, mail_secret) = theirs
        .register(&format!("{base}/connect/mail/callback"), false)
        .await;

    let dir = TempDir::new("connect");
    let catalog = CATALOG
        .replace("UPSTREAM_ISSUER", theirs.issuer())
        .replace("UPSTREAM_API", &api);
    std::fs::write(dir.path.join("mail.yaml"), catalog).unwrap();
    let keys = format!("e2e:{KEY}");
    let server = Server::start_at(
        port,
        &[],
        &[
            ("MCP_API_KEYS", keys.as_str()),
            ("MCP_PSEUDONYM_PEPPER", "connect-test-pepper-0123456789abcd"),
            ("MCP_OAUTH_ISSUER", ours.issuer()),
            ("MCP_RESOURCE_URL", &resource),
            ("MCP_CONNECT_CLIENT_ID", &connect_client),
            ("MCP_CATALOG_DIR", dir.path.to_str().unwrap()),
            ("MAIL_BASE_URL", &api),
            ("MAIL_CLIENT_ID", &mail_client),
            ("MAIL_CLIENT_SECRET", mail_secret.as_deref().unwrap()),
        ],
    );
    let alice = ours.mint(json!({"claims": {"sub": "alice"}})).await;
    let bob = ours.mint(json!({"claims": {"sub": "bob"}})).await;

    let asked = Rpc::with_bearer(&server.url, &alice)
        .tool("mail_me_get", json!({}))
        .await;
    assert_eq!(asked["status"], "connection_required", "{asked}");
    let alices_link = asked["connect_url"].as_str().unwrap().to_string();

    // Forwarded to Bob: he signs in as himself and is refused; nothing is attached.
    let forwarded = browse(&alices_link, "bob").await;
    assert_eq!(forwarded.status, 403, "{}", forwarded.body);
    assert!(
        forwarded.body.contains("made for someone else"),
        "{}",
        forwarded.body
    );
    assert!(
        !forwarded
            .visited
            .iter()
            .any(|u| u.starts_with(theirs.issuer())),
        "Bob was never sent to the upstream: {:?}",
        forwarded.visited
    );
    assert_eq!(
        Rpc::with_bearer(&server.url, &alice)
            .tool("mail_me_get", json!({}))
            .await["status"],
        "connection_required"
    );
    assert_eq!(
        Rpc::with_bearer(&server.url, &bob)
            .tool("mail_me_get", json!({}))
            .await["status"],
        "connection_required"
    );

    // Mallory starts her own flow and sends Bob what her browser was about to open: the
    // upstream's authorization page, or our own return from her sign-in. Bob approves in his
    // browser; his account is attached to nobody, and Mallory's flow is not used up.
    let mallory = ours.mint(json!({"claims": {"sub": "mallory"}})).await;
    let mallorys_link = Rpc::with_bearer(&server.url, &mallory)
        .tool("mail_me_get", json!({}))
        .await["connect_url"]
        .as_str()
        .unwrap()
        .to_string();
    for stop_before in [
        theirs.issuer().to_string(),
        format!("{base}/connect/mail/signed-in"),
    ] {
        let lured = Browser::new()
            .open(&mallorys_link, "mallory", Some(&stop_before))
            .await;
        let sent_to_bob = lured.stopped_before.expect("Mallory's flow got that far");
        let bobs_browser = browse(&sent_to_bob, "bob").await;
        assert_eq!(bobs_browser.status, 403, "{}", bobs_browser.body);
        assert!(
            bobs_browser
                .body
                .contains("Finish in the browser you started in"),
            "{}",
            bobs_browser.body
        );
        assert_eq!(
            Rpc::with_bearer(&server.url, &mallory)
                .tool("mail_me_get", json!({}))
                .await["status"],
            "connection_required",
            "nothing was attached to Mallory (stopped before {stop_before})"
        );
        assert_eq!(
            Rpc::with_bearer(&server.url, &bob)
                .tool("mail_me_get", json!({}))
                .await["status"],
            "connection_required"
        );
    }

    // Alice opens her own link: signed in at ours, then at the upstream, then connected.
    let mut alices_browser = Browser::new();
    let connected = alices_browser.open(&alices_link, "alice", None).await;
    assert_eq!(connected.status, 200, "{}", connected.body);
    assert!(
        connected.body.contains("Mail is connected"),
        "{}",
        connected.body
    );
    assert!(connected.body.starts_with("<!doctype html>"));
    let answer = Rpc::with_bearer(&server.url, &alice)
        .tool("mail_me_get", json!({}))
        .await;
    assert_eq!(answer["status"], "ok", "{answer}");
    assert_eq!(answer["data"]["owner"], "alice");

    // The address book needs `contacts.read`, which Alice's first connection did not ask for:
    // she is asked to allow it (incremental consent) before anything reaches the upstream.
    let more = Rpc::with_bearer(&server.url, &alice)
        .tool("mail_contacts_list", json!({}))
        .await;
    assert_eq!(more["status"], "connection_required", "{more}");
    assert!(
        more["hint"]
            .as_str()
            .unwrap()
            .contains("without the access this tool needs"),
        "{more}"
    );
    let asked = Browser::new()
        .open(more["connect_url"].as_str().unwrap(), "alice", None)
        .await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    let authorize = asked
        .visited
        .iter()
        .find(|u| u.starts_with(&format!("{}/auth", theirs.issuer())))
        .unwrap();
    assert!(
        authorize.contains("scope=mail.read+contacts.read"),
        "{authorize}"
    );
    let listed_contacts = Rpc::with_bearer(&server.url, &alice)
        .tool("mail_contacts_list", json!({}))
        .await;
    assert_eq!(listed_contacts["status"], "ok", "{listed_contacts}");
    assert_eq!(listed_contacts["data"]["owner"], "alice");
    assert_eq!(
        Rpc::with_bearer(&server.url, &bob)
            .tool("mail_me_get", json!({}))
            .await["status"],
        "connection_required"
    );

    // The upstream's redirect back, replayed in the same browser: its state was used.
    let back = connected
        .visited
        .iter()
        .find(|u| u.contains("/connect/mail/callback"))
        .unwrap();
    assert!(
        alices_browser
            .jar
            .values()
            .any(|c| c.contains_key("__Host-mcp-connect")),
        "the first step bound Alice's browser"
    );
    let replay = alices_browser.open(back, "alice", None).await;
    assert_eq!(replay.status, 400);
    assert!(replay.body.contains("already used"), "{}", replay.body);

    // Bob with his own link: his own account, and Alice's calls stay hers.
    let bobs_link = Rpc::with_bearer(&server.url, &bob)
        .tool("mail_me_get", json!({}))
        .await["connect_url"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(browse(&bobs_link, "bob").await.status, 200);
    assert_eq!(
        Rpc::with_bearer(&server.url, &bob)
            .tool("mail_me_get", json!({}))
            .await["data"]["owner"],
        "bob"
    );
    assert_eq!(
        Rpc::with_bearer(&server.url, &alice)
            .tool("mail_me_get", json!({}))
            .await["data"]["owner"],
        "alice"
    );

    // Each person sees and ends their own connections with the `connections` tool.
    let listed = Rpc::with_bearer(&server.url, &alice)
        .tool("connections", json!({}))
        .await;
    assert_eq!(listed["status"], "ok", "{listed}");
    assert_eq!(listed["connections"][0]["connector"], "mail");
    assert_eq!(listed["connections"][0]["connected"], true);
    let allowed = &listed["connections"][0]["scopes"];
    assert!(
        [
            json!(["mail.read", "contacts.read"]),
            json!(["contacts.read", "mail.read"])
        ]
        .contains(allowed),
        "the first consent's and the added one: {listed}"
    );
    let by_key = Rpc::with_bearer(&server.url, KEY)
        .tool("connections", json!({}))
        .await;
    assert_eq!(by_key["status"], "connection_required", "{by_key}");
    let bad = Rpc::with_bearer(&server.url, &alice)
        .tool("connections", json!({"action": "disconnect"}))
        .await;
    assert_eq!(bad["status"], "invalid_input", "{bad}");
    let gone = Rpc::with_bearer(&server.url, &alice)
        .tool(
            "connections",
            json!({"action": "disconnect", "connector": "mail"}),
        )
        .await;
    assert_eq!(gone["disconnected"], true, "{gone}");
    assert!(gone["hint"].as_str().unwrap().contains("revoke it there"));
    assert_eq!(
        Rpc::with_bearer(&server.url, &alice)
            .tool("mail_me_get", json!({}))
            .await["status"],
        "connection_required"
    );
    assert_eq!(
        Rpc::with_bearer(&server.url, &bob)
            .tool("mail_me_get", json!({}))
            .await["data"]["owner"],
        "bob"
    );
    let after = Rpc::with_bearer(&server.url, &alice)
        .tool("connections", json!({"action": "list"}))
        .await;
    assert_eq!(after["connections"][0]["connected"], false, "{after}");

    // "My connections": Bob signs in on the page in his own browser, sees Mail connected and
    // disconnects it with its button; the button works once, and only in his browser.
    let mut bobs_browser = Browser::new();
    let mine = bobs_browser
        .open(&format!("{base}/connections"), "bob", None)
        .await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    assert!(
        mine.body.contains("<strong>Mail</strong>: connected since")
            && mine.body.contains("allowed: mail.read"),
        "{}",
        mine.body
    );
    let ticket = mine
        .body
        .split("name=\"ticket\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a disconnect button")
        .to_string();
    let disconnect = format!("{base}/connections/disconnect");
    let elsewhere = Browser::new().post(&disconnect, &ticket).await;
    assert_eq!(elsewhere.status, 403, "{}", elsewhere.body);
    let done = bobs_browser.post(&disconnect, &ticket).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(
        done.body.contains("forgot your Mail connection"),
        "{}",
        done.body
    );
    assert!(
        done.body.contains("<strong>Mail</strong>: not connected"),
        "{}",
        done.body
    );
    assert!(
        done.body
            .contains(&format!("href=\"{base}/connect/mail?for="))
    );
    let again = bobs_browser.post(&disconnect, &ticket).await;
    assert_eq!(again.status, 400, "{}", again.body);
    assert_eq!(
        Rpc::with_bearer(&server.url, &bob)
            .tool("mail_me_get", json!({}))
            .await["status"],
        "connection_required"
    );
    let line = server
        .stdout
        .events_where(1, |e| {
            e["tool"] == "connections" && e["connector"] == "mail"
        })
        .pop()
        .unwrap();
    assert_eq!(line["status"], "ok", "{line}");
    assert!(
        line["user"].as_str().is_some_and(|u| !u.contains("bob")),
        "{line}"
    );
    // The page with its button, and after it, as Chromium shows them (target/look/connections/).
    let seen = look_at(
        &repo().join("target/look/connections"),
        &[("connected", &mine.body), ("disconnected", &done.body)],
    );
    assert_clear(&seen);
    for page in &seen {
        let (forms, links) = if page.name == "connected" {
            (1, 0)
        } else {
            (0, 1)
        };
        assert_eq!(
            (page.forms, page.links.len()),
            (forms, links),
            "{}",
            page.name
        );
    }

    // A broken or missing link: a plain page that says what to do.
    let broken = browse(&format!("{base}/connect/mail?for=nonsense"), "alice").await;
    assert_eq!(broken.status, 400);
    assert!(broken.body.contains("not valid"), "{}", broken.body);
    let missing = browse(&format!("{base}/connect/mail"), "alice").await;
    assert!(
        missing.body.contains("link from your chat"),
        "{}",
        missing.body
    );
    assert_eq!(
        browse(&format!("{base}/connect/nope?for=x"), "alice")
            .await
            .status,
        404
    );

    // No code, state or token in what the server printed.
    let printed = format!("{}\n{}", server.stdout.joined(), server.stderr.joined());
    for url in &connected.visited {
        if let Some(code) = reqwest::Url::parse(url)
            .unwrap()
            .query_pairs()
            .find(|(k, _)| k == "code")
        {
            assert!(!printed.contains(code.1.as_ref()), "a code was printed");
        }
    }
    assert!(!printed.contains(&alice));

    // Every page above as headless Chromium shows it, screenshots in target/look/connect/.
    let seen = look_at(
        &repo().join("target/look/connect"),
        &[
            ("forwarded", &forwarded.body),
            ("connected", &connected.body),
            ("replayed", &replay.body),
            ("broken", &broken.body),
            ("missing", &missing.body),
        ],
    );
    assert_plain_and_clear(&seen);
}
