//! A real OpenID provider for the OAuth tests: `tests/tools/oidc/op.mjs` (npm `oidc-provider`,
//! pinned in tests/tools/node) on 127.0.0.1, run with the Node 22 from `.tools/node`.
//!
//! It issues JWT access tokens (RS256, `aud` = the resource indicator, 300 s) for the resource URL
//! it is started with and every `<resource>/<profile>`, registers clients dynamically (`/reg`),
//! requires PKCE and logs in and consents by itself (the authorization request's `login_hint`,
//! else `test-user`). The client `svc` / `svc-secret` may use client_credentials. Its
//! test-only endpoints make tokens no grant would ([`Op::mint`]) and count the requests it saw
//! ([`Op::requests`]).

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::{Lines, repo, tool};

/// The confidential client the provider knows from the start (client_credentials only).
pub const SVC_CLIENT_ID: &str = "svc";
pub const SVC_CLIENT_SECRET: &str = "svc-secret";

/// A running `op.mjs`.
pub struct Op {
    child: Child,
    // Held open: the provider exits when it closes, so no provider outlives a killed test.
    _stdin: ChildStdin,
    issuer: String,
    port: u16,
    resource: String,
    http: reqwest::Client,
    pub stderr: Lines,
}

impl Op {
    /// On a port from the OS, for `resource` (and `resource/…`) with `scopes`
    /// (space-separated, e.g. `"mcp:tools mcp:bookkeeping"`).
    pub fn start(resource: &str, scopes: &str) -> Op {
        Op::start_with(0, resource, scopes, &[])
    }

    /// On a given port: a restarted provider comes back at the issuer its clients know, with
    /// new signing keys under the same key ids (`rs-1`, `es-1`) and no clients or grants.
    pub fn start_on(port: u16, resource: &str, scopes: &str) -> Op {
        Op::start_with(port, resource, scopes, &[])
    }

    /// With more `op.mjs` options: `--key-generation N` (key ids `rs-N`/`es-N`: a restart
    /// with another N is a rotation), `--keys FILE` (keep the signing keys across restarts).
    pub fn start_with(port: u16, resource: &str, scopes: &str, extra: &[&str]) -> Op {
        let mut child = Command::new(tool("node/node_modules/.bin/node"))
            .arg(repo().join("tests/tools/oidc/op.mjs"))
            .args(["--port", &port.to_string(), "--resource", resource])
            .args(["--scopes", scopes, "--exit-with-stdin"])
            .args(extra)
            .env("HOSTED_MCP_TOOLS", repo().join(".tools"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start op.mjs");
        let stdin = child.stdin.take().unwrap();
        let stderr = Lines::default();
        stderr.clone().follow(child.stderr.take().unwrap());

        // The first stdout line says where it listens; later lines are only notices.
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines().map_while(Result::ok);
            for line in lines.by_ref() {
                if let Some(issuer) = line.strip_prefix("oidc-provider listening issuer=") {
                    let _ = tx.send(issuer.to_string());
                    break;
                }
            }
            lines.for_each(drop);
        });
        let Ok(issuer) = rx.recv_timeout(Duration::from_secs(30)) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("op.mjs did not start:\n{}", stderr.joined());
        };
        let port = issuer
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("port in issuer");
        Op {
            child,
            _stdin: stdin,
            issuer,
            port,
            resource: resource.to_string(),
            http: reqwest::Client::new(),
            stderr,
        }
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash (as in its metadata and tokens).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The resource URL it was started with (the default audience).
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// A token from `POST /test/mint`: `{claims?, header?, mode?, alg?}` (see op.mjs). Claims
    /// default to `{iss, sub: "test-user", aud: <resource>, iat: now, exp: now + 300,
    /// scope: "mcp:tools", client_id: "svc"}`; given fields override, `null` removes one.
    /// `mode`: `sign` (default), `none`, `hmac-public-key`, `foreign-key`, `bad-signature`;
    /// `alg`: `RS256` (default, kid `rs-N`) or `ES256` (kid `es-N`).
    pub async fn mint(&self, request: Value) -> String {
        let reply = self.post_json("/test/mint", &request).await;
        reply["token"]
            .as_str()
            .unwrap_or_else(|| panic!("no token from /test/mint: {reply}"))
            .to_string()
    }

    /// Requests the provider has seen per path (`{"/jwks": 2, …}`; its `/test/` endpoints
    /// are not counted).
    pub async fn requests(&self) -> Value {
        let url = format!("{}/test/requests", self.issuer);
        let reply = self
            .http
            .get(&url)
            .send()
            .await
            .expect("GET /test/requests");
        assert!(
            reply.status().is_success(),
            "GET /test/requests: {}",
            reply.status()
        );
        reply.json().await.expect("JSON from /test/requests")
    }

    /// Moves the provider's clock `seconds` ahead: its grants, refresh tokens and sessions age
    /// at once (started with `--refresh-ttl 604800`, a week later Google's testing-mode refresh
    /// tokens are refused with `invalid_grant`).
    pub async fn advance_clock(&self, seconds: u64) {
        let url = format!("{}/test/clock", self.issuer);
        let reply = self
            .http
            .post(&url)
            .json(&json!({ "advance_s": seconds }))
            .send()
            .await
            .expect("POST /test/clock");
        assert!(
            reply.status().is_success(),
            "POST /test/clock: {}",
            reply.status()
        );
    }

    /// How often the provider has seen `path` (0 when never).
    pub async fn requests_to(&self, path: &str) -> u64 {
        self.requests().await[path].as_u64().unwrap_or(0)
    }

    /// A real access token for the `svc` client (client_credentials grant), for `scope` and,
    /// when given, the resource indicator `resource` (else the provider's default resource).
    pub async fn client_credentials(&self, scope: &str, resource: Option<&str>) -> String {
        // Form-encoded through Url's query serializer (the workspace's reqwest has no `form`).
        let mut form = reqwest::Url::parse("http://form.invalid/").unwrap();
        form.query_pairs_mut()
            .append_pair("grant_type", "client_credentials")
            .append_pair("scope", scope)
            .extend_pairs(resource.map(|r| ("resource", r)));
        let reply = self
            .http
            .post(format!("{}/token", self.issuer))
            .basic_auth(SVC_CLIENT_ID, Some(SVC_CLIENT_SECRET))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form.query().unwrap_or_default().to_string())
            .send()
            .await
            .expect("POST /token");
        let status = reply.status();
        let body: Value = reply.json().await.expect("JSON from /token");
        assert!(status.is_success(), "client_credentials: {status} {body}");
        body["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no access_token: {body}"))
            .to_string()
    }

    /// Registers a client (dynamic client registration) that may return to `redirect`: public
    /// (no secret, PKCE only) or confidential (`client_secret_basic`). Its id and secret.
    pub async fn register(&self, redirect: &str, public: bool) -> (String, Option<String>) {
        self.register_for(&[redirect], public).await
    }

    /// [`Op::register`] with several redirect URIs.
    pub async fn register_for(&self, redirects: &[&str], public: bool) -> (String, Option<String>) {
        let method = if public {
            "none"
        } else {
            "client_secret_basic"
        };
        let reply: Value = self
            .http
            .post(format!("{}/reg", self.issuer))
            .json(&json!({
                "redirect_uris": redirects,
                "token_endpoint_auth_method": method,
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
            }))
            .send()
            .await
            .expect("POST /reg")
            .json()
            .await
            .expect("JSON from /reg");
        let id = reply["client_id"]
            .as_str()
            .unwrap_or_else(|| panic!("{reply}"));
        (
            id.to_string(),
            reply["client_secret"].as_str().map(str::to_string),
        )
    }

    /// Stops the provider now (an authorization server that goes away in the middle of a run).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    async fn post_json(&self, path: &str, body: &Value) -> Value {
        let reply = self
            .http
            .post(format!("{}{path}", self.issuer))
            .json(body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {path}: {e}"));
        let status = reply.status();
        let body: Value = reply.json().await.expect("JSON reply");
        assert!(status.is_success(), "POST {path}: {status} {body}");
        body
    }
}

impl Drop for Op {
    fn drop(&mut self) {
        self.kill();
    }
}
