//! hosted-mcp as its own authorization server (`MCP_AS_IDP_ISSUER`), end to end: the real
//! server process, a real OpenID provider as the company IdP (npm `oidc-provider`,
//! `tests/tools/oidc/op.mjs`, which logs people in by itself and puts the person in `staff`
//! through the ID token's `groups` claim), our consent page in between.
//!
//! The server runs as on Lambda: its clients, codes and refresh tokens in a DynamoDB table and
//! its tokens signed by a KMS key, both on `moto_server`.
//!
//! One server and one provider for the module's one test, to keep CI's CPU low: first the
//! flow by hand at the HTTP level with every refusal the front door promises (a redirect URI
//! not registered, PKCE plain or missing, scopes the person's groups do not allow, a consent
//! form without its browser's cookie, a code used twice revoking what it issued, a used refresh
//! token revoking its family, a revoked refresh token), then the real Python `mcp` SDK
//! connecting with the URL alone, in one process twice (dynamic registration, then its metadata
//! document's https URL): sign-in at the IdP, the consent approved, tokens, a tool call, and a
//! refresh. `cimd` adds a client known by its metadata document's URL by hand, and the
//! documents refused; `looks` shows the consent page in headless Chromium; `rotation`, last,
//! restarts the server with a new signing key, then without the old one.

mod cimd;
mod connect;
mod inspector;
mod looks;
mod rotation;

use std::collections::HashMap;
use std::process::Command;

use aws_sdk_kms::types::{KeySpec, KeyUsageType};
use base64::Engine;
use integration_tests::oidc::Op;
use integration_tests::{KEY, Moto, Server, TempDir, env_refs, free_port, repo, tool};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const PEPPER: &str = "as-test-pepper-0123456789abcdef0123";
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CLIENT_REDIRECT: &str = "http://127.0.0.1:1/callback";

const TABLE: &str = "hosted-mcp-authorization";
/// A self-signed certificate for 127.0.0.1 and its key (DER; the connector crate's TLS test
/// fixtures): the Python client serves its metadata document over https with them, and the
/// server trusts the certificate (`MCP_AS_CIMD_TEST_CA`).
const CIMD_CERT: &str = "self-signed.cert.der";
const CIMD_KEY: &str = "self-signed.key.der";

fn fixture(name: &str) -> String {
    let path = repo().join("shared/connector/tests/fixtures").join(name);
    path.to_str().unwrap().to_string()
}
/// `mcp:tools` for `staff`, `mcp:accounting` for `finance`: a person without the IdP's groups
/// claim may approve neither.
const SCOPE_GROUPS: &str = "mcp:tools=staff,mcp:accounting=finance";

/// A connector people connect their own account to, whose provider is the test IdP too.
const MAIL: &str = r#"connector: mail
title: Mail
base_url: "http://127.0.0.1:9/api"
secrets: [client_id]
auth:
  oauth_user:
    authorization_endpoint: "IDP/auth"
    token_endpoint: "IDP/token"
    client_id: client_id
    scopes: [mcp:tools]
    resource: "RESOURCE"
tools:
  - name: mail_me_get
    risk: low
    description: "Who the mail account belongs to. Example: {}"
    get: /me
"#;

struct Setup {
    _op: Op,
    /// Papierkram's shipped catalog and [`MAIL`].
    _catalogs: TempDir,
    moto: Moto,
    server: Server,
    resource: String,
    /// The server's environment, but for its keys (`MCP_AS_KEY_ID`, `MCP_AS_PREVIOUS_KEY_IDS`).
    env: Vec<(&'static str, String)>,
    port: u16,
    /// The KMS key id that signs now.
    key_id: String,
}

/// The server as it runs on Lambda: its table on moto's DynamoDB, its tokens signed by a KMS
/// key on moto (`kms:Sign`), the IdP a real OpenID provider with a public client of ours.
async fn setup() -> Setup {
    let port = free_port();
    let origin = format!("http://127.0.0.1:{port}");
    let resource = format!("{origin}/mcp");
    // The one person the IdP signs in is in `staff`, not in `finance`.
    let groups = ["--groups", "test-user=staff"];
    let op = Op::start_with(0, &resource, "mcp:tools mcp:accounting", &groups);
    // A confidential client, as Google's web clients always are: its secret goes with every
    // code exchange (the deployment secret's `idp_client_secret`; locally its variable).
    let (idp_client, idp_secret) = op
        .register(&format!("{origin}/oauth/callback"), false)
        .await;
    let mail_client = op
        .register(&format!("{origin}/connect/mail/callback"), true)
        .await
        .0;
    let catalogs = TempDir::new("as-catalogs");
    let shipped = repo().join("shared/connector/catalogs/papierkram.yaml");
    std::fs::copy(shipped, catalogs.path.join("papierkram.yaml")).unwrap();
    let mail = MAIL
        .replace("IDP", op.issuer())
        .replace("RESOURCE", &resource);
    std::fs::write(catalogs.path.join("mail.yaml"), mail).unwrap();
    let moto = Moto::start();
    moto.create_table(TABLE, "pk", None).await;
    let key_id = signing_key(&moto).await;
    let keys = format!("e2e:{KEY}");
    let mut env: Vec<(&'static str, String)> = moto.env();
    env.extend([
        ("MCP_API_KEYS", keys),
        ("MCP_PSEUDONYM_PEPPER", PEPPER.to_string()),
        ("MCP_OAUTH_ISSUER", origin.clone()),
        ("MCP_RESOURCE_URL", resource.clone()),
        ("MCP_AS_IDP_ISSUER", op.issuer().to_string()),
        ("MCP_AS_IDP_CLIENT_ID", idp_client),
        ("MCP_AS_IDP_CLIENT_SECRET", idp_secret.unwrap()),
        ("MCP_AS_TABLE", TABLE.to_string()),
        ("MCP_AS_CIMD_ALLOW_LOOPBACK", "1".to_string()),
        ("MCP_AS_CIMD_TEST_CA", fixture(CIMD_CERT)),
        ("MCP_PROFILES", "accounting=papierkram/*".to_string()),
        (
            "MCP_OAUTH_PROFILES",
            "mcp:tools=*,mcp:accounting=accounting".to_string(),
        ),
        ("MCP_AS_SCOPE_GROUPS", SCOPE_GROUPS.to_string()),
        (
            "MCP_CATALOG_DIR",
            catalogs.path.to_str().unwrap().to_string(),
        ),
        ("MAIL_CLIENT_ID", mail_client),
    ]);
    let server = start(port, &env, &key_id, &[]);
    Setup {
        _op: op,
        _catalogs: catalogs,
        moto,
        server,
        resource,
        env,
        port,
        key_id,
    }
}

/// A new P-256 signing key on moto's KMS: its id.
async fn signing_key(moto: &Moto) -> String {
    crate::vault::kms_client(&moto.endpoint)
        .create_key()
        .key_spec(KeySpec::EccNistP256)
        .key_usage(KeyUsageType::SignVerify)
        .send()
        .await
        .expect("create the signing key")
        .key_metadata
        .unwrap()
        .key_id
}

/// The server on `port`, signing with `key_id` and accepting `previous` keys' tokens too.
fn start(port: u16, env: &[(&str, String)], key_id: &str, previous: &[&str]) -> Server {
    let mut env: Vec<(&str, &str)> = env_refs(env).collect();
    let previous = previous.join(",");
    env.push(("MCP_AS_KEY_ID", key_id));
    if !previous.is_empty() {
        env.push(("MCP_AS_PREVIOUS_KEY_IDS", &previous));
    }
    Server::start_at(port, &[], &env)
}

/// A browser without a person: redirects followed by hand, a cookie jar per host and port.
#[derive(Default)]
struct Browser {
    http: reqwest::Client,
    jars: HashMap<String, HashMap<String, String>>,
    /// The headers of the last answer.
    headers: reqwest::header::HeaderMap,
}

impl Browser {
    fn new() -> Browser {
        Browser {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            jars: HashMap::new(),
            headers: reqwest::header::HeaderMap::new(),
        }
    }

    /// GET (or POST `form`) `url`: the status, the `Location` and the body.
    async fn open(&mut self, url: &str, form: Option<&[(&str, &str)]>) -> (u16, String, String) {
        let at = reqwest::Url::parse(url).unwrap();
        let netloc = format!("{}:{}", at.host_str().unwrap(), at.port().unwrap_or(80));
        let jar = self.jars.entry(netloc).or_default();
        let cookie: Vec<String> = jar.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut request = match form {
            None => self.http.get(url),
            Some(pairs) => self
                .http
                .post(url)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form_body(pairs)),
        };
        if !cookie.is_empty() {
            request = request.header("cookie", cookie.join("; "));
        }
        let response = request.send().await.unwrap();
        for line in response.headers().get_all("set-cookie") {
            let pair = line.to_str().unwrap().split(';').next().unwrap();
            if let Some((k, v)) = pair.split_once('=') {
                jar.insert(k.trim().to_string(), v.to_string());
            }
        }
        let status = response.status().as_u16();
        self.headers = response.headers().clone();
        let location = response
            .headers()
            .get("location")
            .map(|l| at.join(l.to_str().unwrap()).unwrap().to_string())
            .unwrap_or_default();
        (status, location, response.text().await.unwrap())
    }

    /// Redirects followed from `url` until one goes to `prefix` (returned) or a page answers.
    async fn follow(&mut self, mut url: String, prefix: &str) -> Result<String, (u16, String)> {
        for _ in 0..20 {
            let (status, location, body) = self.open(&url, None).await;
            if location.is_empty() {
                return Err((status, body));
            }
            if location.starts_with(prefix) {
                return Ok(location);
            }
            url = location;
        }
        panic!("no end of redirects from {url}");
    }

    fn forget(&mut self, cookie: &str) {
        self.jars.values_mut().for_each(|jar| {
            jar.remove(cookie);
        });
    }
}

fn form_body(pairs: &[(&str, &str)]) -> String {
    let mut form = reqwest::Url::parse("http://form.invalid/").unwrap();
    form.query_pairs_mut().extend_pairs(pairs);
    form.query().unwrap_or_default().to_string()
}

fn query_of(url: &str) -> HashMap<String, String> {
    reqwest::Url::parse(url)
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

impl Setup {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.base())
    }

    async fn register(&self, redirect: &str) -> (u16, Value) {
        self.register_named(redirect, "Test client").await
    }

    async fn register_named(&self, redirect: &str, name: &str) -> (u16, Value) {
        let r = reqwest::Client::new()
            .post(self.url("/oauth/register"))
            .json(&json!({"redirect_uris": [redirect], "client_name": name}))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }

    fn authorize_url(&self, client: &str, redirect: &str, pkce: &[(&str, &str)]) -> String {
        self.authorize_url_for(client, redirect, pkce, "mcp:tools")
    }

    fn authorize_url_for(
        &self,
        client: &str,
        redirect: &str,
        pkce: &[(&str, &str)],
        scope: &str,
    ) -> String {
        let mut url = reqwest::Url::parse(&self.url("/oauth/authorize")).unwrap();
        url.query_pairs_mut()
            .extend_pairs([
                ("response_type", "code"),
                ("client_id", client),
                ("redirect_uri", redirect),
                ("state", "st-1"),
                ("scope", scope),
                ("resource", &self.resource),
            ])
            .extend_pairs(pkce);
        url.to_string()
    }

    /// The sign-in up to the consent page: the browser and the page's ticket.
    async fn to_consent(&self, client: &str) -> (Browser, String) {
        let (browser, ticket, _) = self.consent_page(client).await;
        (browser, ticket)
    }

    /// The sign-in up to the consent page: the browser, the page's ticket and the page.
    async fn consent_page(&self, client: &str) -> (Browser, String, String) {
        let mut browser = Browser::new();
        let pkce = [
            ("code_challenge", challenge(VERIFIER)),
            ("code_challenge_method", "S256".to_string()),
        ];
        let pkce: Vec<(&str, &str)> = pkce.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let start = self.authorize_url(client, CLIENT_REDIRECT, &pkce);
        let (ticket, page) = self.consent_from(&mut browser, start).await;
        assert!(
            page.contains("Test client") && page.contains("127.0.0.1"),
            "{page}"
        );
        (browser, ticket, page)
    }

    /// From an authorization request (`start`) through the IdP to our consent page in
    /// `browser`: the page's ticket, and the page.
    async fn consent_from(&self, browser: &mut Browser, start: String) -> (String, String) {
        let back = browser
            .follow(start, &self.url("/oauth/callback"))
            .await
            .unwrap_or_else(|e| panic!("no return from the IdP: {e:?}"));
        let (status, _, page) = browser.open(&back, None).await;
        assert_eq!(status, 200, "the consent page: {page}");
        let ticket = page
            .split("name=\"ticket\" value=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a ticket in the form")
            .to_string();
        (ticket, page)
    }

    /// The consent page's `ticket` approved in `browser`: where the browser is sent (the
    /// client's redirect URI with the code).
    async fn approved(&self, browser: &mut Browser, ticket: &str) -> String {
        let form = [("ticket", ticket), ("decision", "approve")];
        let (status, location, _) = browser.open(&self.url("/oauth/consent"), Some(&form)).await;
        assert_eq!(status, 302);
        location
    }

    /// Approved: the code sent back to the client.
    async fn approve(&self, browser: &mut Browser, ticket: &str) -> String {
        let location = self.approved(browser, ticket).await;
        assert!(location.starts_with(CLIENT_REDIRECT), "{location}");
        let q = query_of(&location);
        assert_eq!(q.get("state").map(String::as_str), Some("st-1"));
        assert_eq!(q.get("iss"), Some(&self.server.base()));
        q["code"].clone()
    }

    async fn token(&self, form: &[(&str, &str)]) -> (u16, Value) {
        let r = reqwest::Client::new()
            .post(self.url("/oauth/token"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form_body(form))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }

    async fn by_code(&self, client: &str, code: &str) -> (u16, Value) {
        self.token(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("client_id", client),
            ("redirect_uri", CLIENT_REDIRECT),
            ("code_verifier", VERIFIER),
        ])
        .await
    }

    async fn by_refresh(&self, client: &str, tokens: &Value) -> (u16, Value) {
        let refresh = tokens["refresh_token"].as_str().unwrap();
        self.token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("client_id", client),
        ])
        .await
    }

    async fn tools_list(&self, access: &str) -> u16 {
        reqwest::Client::new()
            .post(&self.server.url)
            .bearer_auth(access)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }
}

#[tokio::test]
async fn a_client_connects_with_the_url_alone_and_forgeries_are_refused() {
    let s = setup().await;
    assert_eq!(
        jwks_kid(&s).await.get(..4),
        Some("kms-"),
        "signed by the KMS key"
    );

    // Discovery: the resource points at us, we say what we accept.
    let prm: Value = reqwest::get(s.url("/.well-known/oauth-protected-resource/mcp"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(prm["authorization_servers"], json!([s.server.base()]));
    let meta: Value = reqwest::get(s.url("/.well-known/oauth-authorization-server"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(
        meta["token_endpoint_auth_methods_supported"],
        json!(["none"])
    );
    assert_eq!(meta["client_id_metadata_document_supported"], true);

    // Registration: a redirect URI off the loopback over plain http is refused.
    let (status, body) = s.register("http://evil.example.com/cb").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_redirect_uri"))
    );
    let (status, client) = s.register(CLIENT_REDIRECT).await;
    assert_eq!(status, 201, "{client}");
    let client = client["client_id"].as_str().unwrap().to_string();

    refusals_before_the_idp(&s, &client).await;
    scopes_narrowed_by_the_persons_groups(&s, &client).await;
    consent_needs_its_browser(&s, &client).await;
    a_code_replayed_revokes_its_tokens(&s, &client).await;
    a_reused_refresh_token_revokes_its_family(&s, &client).await;
    revoking_a_refresh_token_ends_it(&s, &client).await;
    looks::the_consent_page_reads_on_a_phone_and_a_desktop(&s).await;
    connect::a_person_connects_an_account_through_our_own_sign_in(&s, &client).await;
    inspector::the_inspector_connects_by_itself(&s).await;
    cimd::a_metadata_document_client_connects(&s).await;
    python_sdk_connects_by_itself(&s);
    rotation::a_rotated_keys_tokens_pass_until_it_is_removed(s, &client).await;
}

/// The key id our JWKS publishes first (the key that signs).
async fn jwks_kid(s: &Setup) -> String {
    jwks_kids(s).await.swap_remove(0)
}

/// The key ids our JWKS publishes.
async fn jwks_kids(s: &Setup) -> Vec<String> {
    let jwks: Value = reqwest::get(s.url("/oauth/jwks"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let keys = jwks["keys"].as_array().unwrap().iter();
    keys.map(|k| k["kid"].as_str().unwrap().to_string())
        .collect()
}

/// A redirect URI not registered gets a page, not a redirect; PKCE plain or missing goes back
/// to the client as `invalid_request`, before anyone is sent to sign in.
async fn refusals_before_the_idp(s: &Setup, client: &str) {
    let mut browser = Browser::new();
    let s256 = challenge(VERIFIER);
    let elsewhere = s.authorize_url(
        client,
        "https://evil.example.com/callback",
        &[("code_challenge", &s256), ("code_challenge_method", "S256")],
    );
    let (status, location, _) = browser.open(&elsewhere, None).await;
    assert_eq!(
        (status, location.as_str()),
        (400, ""),
        "a page, never a redirect"
    );
    for pkce in [
        vec![
            ("code_challenge", VERIFIER),
            ("code_challenge_method", "plain"),
        ],
        vec![("code_challenge", s256.as_str())],
        vec![],
    ] {
        let url = s.authorize_url(client, CLIENT_REDIRECT, &pkce);
        let (status, location, _) = browser.open(&url, None).await;
        assert_eq!(status, 302, "{pkce:?}");
        assert!(location.starts_with(CLIENT_REDIRECT), "{location}");
        assert_eq!(query_of(&location)["error"], "invalid_request", "{pkce:?}");
    }
}

/// `MCP_AS_SCOPE_GROUPS` with the IdP's `groups` claim: the person (in `staff`, so the claim
/// was read) asking for both scopes is shown `mcp:tools` only; asking for `mcp:accounting` alone, the client gets
/// `access_denied` and no consent page is shown; so does another person the client's
/// `login_hint` names.
async fn scopes_narrowed_by_the_persons_groups(s: &Setup, client: &str) {
    let s256 = challenge(VERIFIER);
    let pkce = [
        ("code_challenge", s256.as_str()),
        ("code_challenge_method", "S256"),
    ];
    let mut answers = Vec::new();
    for scope in ["mcp:tools mcp:accounting", "mcp:accounting"] {
        let mut browser = Browser::new();
        let start = s.authorize_url_for(client, CLIENT_REDIRECT, &pkce, scope);
        let back = browser.follow(start, &s.url("/oauth/callback")).await;
        answers.push(browser.open(&back.unwrap(), None).await);
    }
    let (status, _, page) = &answers[0];
    assert_eq!(*status, 200, "{page}");
    assert!(
        page.contains("mcp:tools") && !page.contains("mcp:accounting"),
        "{page}"
    );
    let (status, location, _) = &answers[1];
    assert_eq!(*status, 302);
    assert!(location.starts_with(CLIENT_REDIRECT), "{location}");
    assert_eq!(query_of(location)["error"], "access_denied");
    // The client's `login_hint` reaches the IdP: it signs in the person named (here one in no
    // group, so `mcp:tools` too is denied where the default person was shown it).
    let mut browser = Browser::new();
    let start = s.authorize_url(client, CLIENT_REDIRECT, &pkce) + "&login_hint=anna";
    let back = browser.follow(start, &s.url("/oauth/callback")).await;
    let (status, location, page) = browser.open(&back.unwrap(), None).await;
    assert_eq!(status, 302, "{page}");
    assert_eq!(query_of(&location)["error"], "access_denied");
}

/// A consent form posted without the cookie of the browser that signed in (a forged
/// cross-site form) issues nothing; the form from its own browser still works after it.
async fn consent_needs_its_browser(s: &Setup, client: &str) {
    let (mut browser, ticket) = s.to_consent(client).await;
    let mut stranger = Browser::new();
    let form = [("ticket", ticket.as_str()), ("decision", "approve")];
    let (status, location, _) = stranger.open(&s.url("/oauth/consent"), Some(&form)).await;
    assert_eq!((status, location.as_str()), (403, ""));
    browser.forget("__Host-mcp-authorize");
    let (status, _, _) = browser.open(&s.url("/oauth/consent"), Some(&form)).await;
    assert_eq!(status, 403, "the same browser without its cookie");
}

/// A code used twice: the second use is refused and the refresh token of the first is revoked.
async fn a_code_replayed_revokes_its_tokens(s: &Setup, client: &str) {
    let (mut browser, ticket) = s.to_consent(client).await;
    let code = s.approve(&mut browser, &ticket).await;
    let (status, tokens) = s.by_code(client, &code).await;
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(
        s.tools_list(tokens["access_token"].as_str().unwrap()).await,
        200
    );
    let (status, replay) = s.by_code(client, &code).await;
    assert_eq!(
        (status, replay["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    let (status, _) = s.by_refresh(client, &tokens).await;
    assert_eq!(status, 400, "the replayed code's refresh token is revoked");
}

/// Refresh rotates; the old refresh token again revokes the family, the newest with it.
async fn a_reused_refresh_token_revokes_its_family(s: &Setup, client: &str) {
    let (mut browser, ticket) = s.to_consent(client).await;
    let code = s.approve(&mut browser, &ticket).await;
    let (_, first) = s.by_code(client, &code).await;
    let (status, second) = s.by_refresh(client, &first).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(
        s.tools_list(second["access_token"].as_str().unwrap()).await,
        200
    );
    let (status, _) = s.by_refresh(client, &first).await;
    assert_eq!(status, 400, "a used refresh token");
    let (status, _) = s.by_refresh(client, &second).await;
    assert_eq!(status, 400, "its family is revoked");
}

/// RFC 7009: the client revokes its refresh token (on disconnect); it no longer refreshes.
async fn revoking_a_refresh_token_ends_it(s: &Setup, client: &str) {
    let (mut browser, ticket) = s.to_consent(client).await;
    let code = s.approve(&mut browser, &ticket).await;
    let (_, tokens) = s.by_code(client, &code).await;
    let refresh = tokens["refresh_token"].as_str().unwrap();
    let revoked = reqwest::Client::new()
        .post(s.url("/oauth/revoke"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form_body(&[("token", refresh), ("client_id", client)]))
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status().as_u16(), 200);
    let (status, _) = s.by_refresh(client, &tokens).await;
    assert_eq!(status, 400, "a revoked refresh token");
}

/// The real Python SDK with the URL alone, in one process twice: first registering (DCR),
/// then named by its metadata document's https URL (CIMD, the document served by the client
/// itself on loopback): 401 → metadata → registration or none → our authorize → the IdP → our
/// consent (approved) → token → a tool call → a refresh.
fn python_sdk_connects_by_itself(s: &Setup) {
    let cert = format!("{},{}", fixture(CIMD_CERT), fixture(CIMD_KEY));
    let output = Command::new(tool("venv/bin/python"))
        .arg(repo().join("tests/clients/python_client.py"))
        .args([
            "--url",
            &s.server.url,
            "--era",
            "modern",
            "--oauth",
            "--oauth-refresh",
            "--oauth-client",
            "both",
            "--oauth-cimd-cert",
            &cert,
        ])
        // The person asks for both scopes; not in `finance`, they approve `mcp:tools` only.
        .args(["--oauth-scope", "mcp:tools mcp:accounting"])
        .args(["--call", "papierkram_invoices_list={}", "--timeout", "60"])
        .output()
        .expect("python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_str(stdout.trim()).unwrap();
    sdk_run_connected(&report, "/oauth/register");
    let cimd = &report["cimd"];
    sdk_run_connected(cimd, "/oauth/authorize");
    let client_id = cimd["oauth"]["client_id"].as_str().unwrap_or_default();
    assert!(
        client_id.starts_with("https://127.0.0.1:") && client_id.ends_with("/client.json"),
        "{cimd}"
    );
    let steps = cimd["oauth"]["steps"].to_string();
    assert!(
        !steps.contains("/oauth/register"),
        "no registration: {steps}"
    );
}

/// One of the SDK's runs: a tool call, the consent approved, a refresh, the scopes narrowed,
/// the flow's requests (`step` among them).
fn sdk_run_connected(report: &Value, step: &str) {
    assert_eq!(report["calls"][0]["is_error"], false, "{report}");
    assert_eq!(report["oauth"]["consent"], true, "{report}");
    assert_eq!(report["oauth"]["refreshed"], true, "{report}");
    assert_eq!(
        report["oauth"]["token_scope"], "mcp:tools",
        "narrowed: {report}"
    );
    let steps = report["oauth"]["steps"].to_string();
    for step in [
        "/oauth-authorization-server",
        step,
        "/oauth/authorize",
        "/oauth/token",
    ] {
        assert!(steps.contains(step), "{step} in {steps}");
    }
}
