//! End-to-end test harness for hosted-mcp: starts the real `mcp-server` process, `moto_server`
//! for AWS APIs, the Papierkram sandbox upstream, Prism serving a connector's OpenAPI document
//! ([`prism::Prism`]) and a local OpenID provider ([`oidc::Op`]), and talks to them like clients do;
//! an OTLP receiver ([`otlp::Receiver`]) takes the server's traces.
//!
//! Tools come from `.tools/` (`tests/tools/install.sh`, run by `tests/run-all.sh`).
//! Run: `cargo test -p integration-tests` after the install.

pub mod conformance_fixture;
pub mod google;
pub mod graph;
pub mod jobs_upstream;
pub mod logs_endpoint;
pub mod look;
pub mod oidc;
pub mod otlp;
pub mod person;
pub mod prism;
pub mod proxy;
pub mod rate_upstream;
mod sandbox;
pub mod tap;
mod temp_dir;

pub use sandbox::{
    papierkram_env, start_papierkram_server, start_sandbox, start_server_on_sandbox,
};
pub use temp_dir::TempDir;

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Polls `check` every 50 ms until it gives a value, failing after `timeout` with `what`: for a
/// state the server reaches by itself (a retry pause over, a late write done) instead of
/// sleeping for a fixed time.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(start.elapsed() < timeout, "not within {timeout:?}: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The API key every test server accepts.
pub const KEY: &str = "e2e-key-0123456789abcdef";

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A pinned test tool under `.tools/`, with a clear message when the install step was skipped.
pub fn tool(relative: &str) -> PathBuf {
    let path = repo().join(".tools").join(relative);
    assert!(
        path.exists(),
        "{} is missing: run tests/tools/install.sh (tests/run-all.sh does it)",
        path.display()
    );
    path
}

/// The `mcp-server` binary, built (or found fresh) once per test process. `tests/run-all.sh`
/// names the one `cargo test --workspace --no-run` already built (cargo builds a package's
/// binary for its integration tests) in `HOSTED_MCP_SERVER_BIN`, so CI does not compile the
/// server a second time with `cargo build`'s own feature set.
pub fn server_binary() -> PathBuf {
    if let Some(built) = std::env::var_os("HOSTED_MCP_SERVER_BIN") {
        return PathBuf::from(built);
    }
    static BUILD: Once = Once::new();
    BUILD.call_once(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "mcp-server"])
            .current_dir(repo())
            .status()
            .expect("cargo build");
        assert!(status.success(), "building mcp-server failed");
    });
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo().join("target"), PathBuf::from);
    target.join("debug/mcp-server")
}

/// Lines a child wrote, collected by a reader thread.
#[derive(Clone, Default)]
pub struct Lines(Arc<Mutex<Vec<String>>>);

impl Lines {
    /// Collects what `stream` says, line by line, until it closes.
    pub fn follow(self, stream: impl std::io::Read + Send + 'static) {
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                self.0.lock().unwrap().push(line);
            }
        });
    }
    pub fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
    pub fn joined(&self) -> String {
        self.all().join("\n")
    }
    /// Waits until a line satisfies `pred`, returning it.
    pub fn wait_for(&self, pred: impl Fn(&str) -> bool, timeout: Duration) -> Option<String> {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if let Some(l) = self.all().into_iter().find(|l| pred(l)) {
                return Some(l);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
    /// Whether a line containing `needle` arrives within 5 s; the reader thread may lag behind
    /// the answer that caused the line.
    pub fn shows(&self, needle: &str) -> bool {
        self.wait_for(|l| l.contains(needle), Duration::from_secs(5))
            .is_some()
    }
    /// Waits (up to 5 s) for the first audit event about `tool`; the reader thread may lag.
    pub fn event_for(&self, tool: &str) -> Value {
        self.events_where(1, |e| e["tool"] == tool).remove(0)
    }

    /// The audit events that satisfy `pred`, once there are at least `at_least` of them (up to
    /// 5 s): the reader thread may lag behind the answers that caused them.
    pub fn events_where(&self, at_least: usize, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let found: Vec<Value> = self.events().into_iter().filter(|e| pred(e)).collect();
            if found.len() >= at_least {
                return found;
            }
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "{} of {at_least} expected audit events:\n{}",
                found.len(),
                self.joined()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Audit events (stdout JSON lines) so far.
    pub fn events(&self) -> Vec<Value> {
        self.all()
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

/// A running `mcp-server serve` process.
pub struct Server {
    child: Child,
    pub url: String,
    pub stdout: Lines,
    pub stderr: Lines,
}

impl Server {
    /// Starts `mcp-server serve --addr 127.0.0.1:0 ARGS` with `env` (and nothing inherited but
    /// PATH/HOME), waiting until it listens.
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::start_at(0, args, env)
    }

    /// [`Server::start`] without arguments, with an environment of owned values (as
    /// [`papierkram_env`] and `Moto::env` give).
    pub fn start_with_env(env: &[(&str, String)]) -> Server {
        let env: Vec<(&str, &str)> = env_refs(env).collect();
        Server::start(&[], &env)
    }

    /// The same on a given port (0: one from the OS), for a URL known before the start.
    pub fn start_at(port: u16, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(server_binary());
        cmd.arg("serve")
            .args(["--addr", &format!("127.0.0.1:{port}")])
            .args(args);
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("RUST_LOG", "info,rmcp=warn")
            .env("MCP_LOG_FORMAT", "text")
            // These tests make many calls a minute from one address; the limits have their own
            // tests, which pass MCP_LIMITS=on.
            .env("MCP_LIMITS", "off")
            .current_dir(std::env::temp_dir());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start mcp-server");
        let stdout = Lines::default();
        let stderr = Lines::default();
        stdout.clone().follow(child.stdout.take().unwrap());
        stderr.clone().follow(child.stderr.take().unwrap());
        let line = stderr.wait_for(|l| l.contains("serving MCP"), Duration::from_secs(30));
        let Some(line) = line else {
            let _ = child.kill();
            panic!("mcp-server did not start:\n{}", stderr.joined());
        };
        let url = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("url="))
            .expect("url in start line")
            .to_string();
        Server {
            child,
            url,
            stdout,
            stderr,
        }
    }

    pub fn base(&self) -> String {
        self.url.trim_end_matches("/mcp").to_string()
    }

    /// The process id (for `/proc/<pid>/status`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The process's peak resident set size in KiB (`VmHWM`), on Linux.
    pub fn peak_rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An environment of owned values borrowed as `(name, value)` pairs, to add to one of `&str`s.
pub fn env_refs<'a, 'k>(
    env: &'a [(&'k str, String)],
) -> impl Iterator<Item = (&'k str, &'a str)> + 'a {
    env.iter().map(|(k, v)| (*k, v.as_str()))
}

/// Serves `router` on a loopback port from the OS (a fake upstream, a fake runtime API) for as
/// long as the test's runtime runs: its address.
pub async fn serve_on_loopback(router: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    addr
}

/// A free loopback port (bound and released; a tiny race, acceptable for tests).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn wait_for_port(addr: SocketAddr, timeout: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// `moto_server` on a loopback port.
pub struct Moto {
    child: Child,
    pub endpoint: String,
}

/// The functions' AWS client (`aws-json`) for `service` at a local `endpoint` (moto, or the
/// local Logs endpoint), in eu-central-1 with moto's test credentials.
pub fn aws_client(service: aws_json::Service, endpoint: &str) -> aws_json::AwsJson {
    use aws_sdk_dynamodb::config::{Credentials, SharedCredentialsProvider};
    let credentials = Credentials::new("testing", "testing", None, None, "moto");
    let sdk = aws_config::SdkConfig::builder()
        .region(aws_config::Region::new("eu-central-1"))
        .credentials_provider(SharedCredentialsProvider::new(credentials))
        .endpoint_url(endpoint)
        .build();
    aws_json::AwsJson::new(&sdk, service, reqwest::Client::new(), |_| None)
        .expect("a client with a region and credentials")
}

impl Moto {
    /// On a port the emulator's OS picks (it says which): no race with another process for a
    /// port chosen before the start.
    pub fn start() -> Moto {
        Moto::start_on(0)
    }

    /// On a given port: a restarted emulator comes back where its clients expect it (empty).
    pub fn start_on(port: u16) -> Moto {
        let mut child = Command::new(tool("venv/bin/moto_server"))
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start moto_server");
        // Its server says ` * Running on http://127.0.0.1:PORT` on stderr once it listens (or
        // why it could not, and exits); every request is logged there after that.
        let log = Lines::default();
        log.clone().follow(child.stderr.take().unwrap());
        let Some(endpoint) = log
            .wait_for(
                |l| l.contains("Running on http://"),
                Duration::from_secs(60),
            )
            .and_then(|l| Some(l[l.find("http://")?..].trim().to_string()))
        else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("moto_server did not listen within 60 s:\n{}", log.joined());
        };
        Moto { child, endpoint }
    }

    pub fn port(&self) -> u16 {
        self.endpoint
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("port in endpoint")
    }

    /// Stops the emulator now (a store that goes away in the middle of a run).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Environment for a process using the real AWS SDK against this emulator.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
            ("AWS_ACCESS_KEY_ID", "testing".into()),
            ("AWS_SECRET_ACCESS_KEY", "testing".into()),
            ("AWS_REGION", "eu-central-1".into()),
            ("AWS_EC2_METADATA_DISABLED", "true".into()),
        ]
    }

    pub async fn secrets_client(&self) -> aws_sdk_secretsmanager::Client {
        let config = aws_sdk_secretsmanager::Config::builder()
            .behavior_version_latest()
            .region(aws_sdk_secretsmanager::config::Region::new("eu-central-1"))
            .endpoint_url(&self.endpoint)
            .credentials_provider(aws_sdk_secretsmanager::config::Credentials::new(
                "testing", "testing", None, None, "moto",
            ))
            .build();
        aws_sdk_secretsmanager::Client::from_conf(config)
    }

    pub fn dynamodb_client(&self, endpoint: &str) -> aws_sdk_dynamodb::Client {
        Moto::dynamodb_client_for(endpoint)
    }

    /// A DynamoDB client for an emulator (or a relay in front of one) at `endpoint`.
    pub fn dynamodb_client_for(endpoint: &str) -> aws_sdk_dynamodb::Client {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version_latest()
            .region(aws_sdk_dynamodb::config::Region::new("eu-central-1"))
            .endpoint_url(endpoint)
            .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                "testing", "testing", None, None, "moto",
            ))
            .build();
        aws_sdk_dynamodb::Client::from_conf(config)
    }

    /// The limits table as infra creates it: partition key `pk`, on demand.
    pub async fn create_limits_table(&self, name: &str) -> aws_sdk_dynamodb::Client {
        self.create_table(name, "pk", None).await
    }

    /// A table as infra creates ours: on demand, keyed by the string `partition` and, when
    /// given, the string `sort`.
    pub async fn create_table(
        &self,
        name: &str,
        partition: &str,
        sort: Option<&str>,
    ) -> aws_sdk_dynamodb::Client {
        use aws_sdk_dynamodb::types::{
            AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
        };
        let client = self.dynamodb_client(&self.endpoint);
        let mut request = client
            .create_table()
            .table_name(name)
            .billing_mode(BillingMode::PayPerRequest);
        let keys = [(partition, KeyType::Hash)]
            .into_iter()
            .chain(sort.map(|s| (s, KeyType::Range)));
        for (key, kind) in keys {
            request = request
                .key_schema(
                    KeySchemaElement::builder()
                        .attribute_name(key)
                        .key_type(kind)
                        .build()
                        .unwrap(),
                )
                .attribute_definitions(
                    AttributeDefinition::builder()
                        .attribute_name(key)
                        .attribute_type(ScalarAttributeType::S)
                        .build()
                        .unwrap(),
                );
        }
        request
            .send()
            .await
            .unwrap_or_else(|e| panic!("create the table {name}: {e:?}"));
        client
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `tests/clients/python_client.py` (the Python MCP SDK) against `url` with the test key and
/// `extra` arguments: whether it exited cleanly, and the JSON document it printed.
pub fn python_client(url: &str, extra: &[&str]) -> (bool, Value) {
    let out = Command::new(tool("venv/bin/python"))
        .arg(repo().join("tests/clients/python_client.py"))
        .args(["--url", url, "--key", KEY])
        .args(extra)
        .output()
        .expect("run python client");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "no JSON from the client: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.success(), doc)
}

/// A tool call through the Python `mcp` SDK (`tests/clients/confirm_client.py`) as `bearer`
/// (an API key or a person's token), answering the confirmation form with `answer` (`accept`,
/// `decline`, `none`): the JSON document it printed.
pub fn confirm_client(
    url: &str,
    bearer: &str,
    tool_name: &str,
    args: &Value,
    answer: &str,
) -> Value {
    let out = Command::new(tool("venv/bin/python"))
        .arg(repo().join("tests/clients/confirm_client.py"))
        .args(["--url", url, "--key", bearer, "--tool", tool_name])
        .args(["--args", &args.to_string(), "--answer", answer])
        .output()
        .expect("run confirm client");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "no JSON from the client: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// [`confirm_client`] as `bearer`, accepting the form as a person would.
pub fn confirm_as(url: &str, bearer: &str, tool_name: &str, args: &Value) -> Value {
    confirm_client(url, bearer, tool_name, args, "accept")
}

/// [`python_client`] for a run that must exit cleanly: the JSON document it printed.
pub fn python_client_ok(url: &str, extra: &[&str]) -> Value {
    let (ok, doc) = python_client(url, extra);
    assert!(ok, "python client failed: {doc}");
    doc
}

/// The tool names a [`python_client`] run listed, in its order.
pub fn listed_tools(doc: &Value) -> Vec<&str> {
    doc["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools listed: {doc}"))
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

/// A small JSON-RPC client for raw protocol checks.
pub struct Rpc {
    pub http: reqwest::Client,
    pub url: String,
    pub key: Option<String>,
}

impl Rpc {
    pub fn new(url: &str) -> Rpc {
        Rpc {
            http: reqwest::Client::new(),
            url: url.to_string(),
            key: Some(KEY.to_string()),
        }
    }

    /// A client that signs in with `bearer`: an API key or a person's access token.
    pub fn with_bearer(url: &str, bearer: &str) -> Rpc {
        Rpc {
            key: Some(bearer.to_string()),
            ..Rpc::new(url)
        }
    }

    pub async fn post(&self, body: Value, headers: &[(&str, &str)]) -> reqwest::Response {
        let mut r = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(body.to_string());
        if let Some(k) = &self.key {
            r = r.bearer_auth(k);
        }
        for (k, v) in headers {
            r = r.header(*k, *v);
        }
        r.send().await.expect("request")
    }

    /// One stateless request of the 2026-07-28 generation, as a client of that generation with
    /// `capabilities` sends it: the version and the client in the params' `_meta`, the version,
    /// the method and `name` (a tool's or prompt's name, a resource's URI) in headers too. The
    /// whole reply, whatever its status.
    pub async fn modern(
        &self,
        method: &str,
        name: Option<&str>,
        mut params: Value,
        capabilities: Value,
    ) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities
        });
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut r = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .body(body.to_string());
        if let Some(name) = name {
            r = r.header("mcp-name", name);
        }
        if let Some(k) = &self.key {
            r = r.bearer_auth(k);
        }
        r.send()
            .await
            .expect("request")
            .json()
            .await
            .expect("json reply")
    }

    pub async fn call(&self, tool: &str, args: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": tool, "arguments": args}});
        self.post(body, &[]).await.json().await.expect("json reply")
    }

    /// One JSON-RPC request of the 2025-11-25 generation (stateless: no session); the reply
    /// must be a 200.
    pub async fn request(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let response = self.post(body, &[]).await;
        assert_eq!(response.status(), 200, "{method}");
        response.json().await.expect("json reply")
    }

    /// Calls `tool` and returns its structured result; the reply must be a 200.
    pub async fn tool(&self, tool: &str, args: Value) -> Value {
        let params = json!({"name": tool, "arguments": args});
        structured(&self.request("tools/call", params).await).clone()
    }

    pub async fn list(&self) -> Vec<String> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let reply: Value = self.post(body, &[]).await.json().await.expect("json reply");
        reply["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("no tools: {reply}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }
}

/// `n` calls of `tool` sent at once, taking turns among `people` (a name and a bearer each): each
/// call's structured result with the name of whose call it was.
pub async fn interleaved_calls(
    url: &str,
    tool: &str,
    people: &[(&str, &str)],
    n: usize,
) -> Vec<(String, Value)> {
    let calls: Vec<_> = (0..n)
        .map(|i| {
            let (who, bearer) = people[i % people.len()];
            let (who, rpc, tool) = (
                who.to_string(),
                Rpc::with_bearer(url, bearer),
                tool.to_string(),
            );
            tokio::spawn(async move { (who, rpc.tool(&tool, json!({})).await) })
        })
        .collect();
    let mut answers = Vec::new();
    for call in calls {
        answers.push(call.await.expect("a call task"));
    }
    answers
}

/// The structured result of a tools/call reply.
pub fn structured(reply: &Value) -> &Value {
    &reply["result"]["structuredContent"]
}
