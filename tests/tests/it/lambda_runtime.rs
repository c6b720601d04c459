//! The mcp-server binary as Lambda runs it: `AWS_LAMBDA_RUNTIME_API` set, no command, the
//! deployment secret from Secrets Manager (moto_server), and API Gateway HTTP API events fetched
//! from a local Runtime API (the `2018-06-01` routes Lambda serves), answered back to it.
//!
//! It runs the test build's binary, whose Lambda path is the zip's (its features add only the
//! local `serve` sandbox and the importer); `HOSTED_MCP_LAMBDA_BIN` names another, e.g. the
//! `bootstrap` of a release zip (`tests/lambda-zips.sh`).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use integration_tests::{Lines, Moto, repo, serve_on_loopback, server_binary};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const HOST: &str = "abc123.execute-api.eu-central-1.amazonaws.com";
/// The key the fixtures' events carry (`x-api-key`).
const FIXTURE_KEY: &str = "lambda-key-0123456789abcdef";

fn lambda_binary() -> PathBuf {
    std::env::var_os("HOSTED_MCP_LAMBDA_BIN").map_or_else(server_binary, PathBuf::from)
}

/// What the function posted back: `(route, request id, body)`.
type Posted = (String, String, Value);

#[derive(Clone)]
struct Runtime {
    events: Arc<Mutex<VecDeque<Value>>>,
    next_id: Arc<AtomicU32>,
    posted: mpsc::UnboundedSender<Posted>,
}

/// `GET …/invocation/next`: the next queued event with the headers Lambda sends; with none left
/// the request stays open, as Lambda's does until an event arrives.
async fn next(State(rt): State<Runtime>) -> axum::response::Response {
    let event = rt.events.lock().unwrap().pop_front();
    let Some(event) = event else {
        return std::future::pending().await;
    };
    let id = format!(
        "invocation-{}",
        rt.next_id.fetch_add(1, Ordering::Relaxed) + 1
    );
    let deadline = jiff::Timestamp::now().as_millisecond() + 30_000;
    let mut headers = HeaderMap::new();
    headers.insert("lambda-runtime-aws-request-id", id.parse().unwrap());
    headers.insert("lambda-runtime-deadline-ms", deadline.into());
    headers.insert(
        "lambda-runtime-invoked-function-arn",
        "arn:aws:lambda:eu-central-1:123456789012:function:hosted-mcp"
            .parse()
            .unwrap(),
    );
    headers.insert("content-type", "application/json".parse().unwrap());
    (headers, event.to_string()).into_response()
}

/// `POST …/invocation/{id}/response` and `…/{id}/error`: what the function answered.
async fn answered(
    State(rt): State<Runtime>,
    Path((id, kind)): Path<(String, String)>,
    body: String,
) {
    let body = serde_json::from_str(&body).unwrap_or(Value::String(body));
    let _ = rt.posted.send((kind, id, body));
}

async fn init_error(State(rt): State<Runtime>, body: String) {
    let _ = rt
        .posted
        .send(("init/error".into(), String::new(), Value::String(body)));
}

/// A local Runtime API serving `events` in order; what the function posts arrives on the receiver.
async fn runtime_api(events: Vec<Value>) -> (String, mpsc::UnboundedReceiver<Posted>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let rt = Runtime {
        events: Arc::new(Mutex::new(events.into())),
        next_id: Arc::default(),
        posted: tx,
    };
    let app = Router::new()
        .route("/2018-06-01/runtime/invocation/next", get(next))
        .route("/2018-06-01/runtime/invocation/{id}/{kind}", post(answered))
        .route("/2018-06-01/runtime/init/error", post(init_error))
        .with_state(rt);
    (serve_on_loopback(app).await.to_string(), rx)
}

fn fixture(name: &str) -> Value {
    let path = repo()
        .join("functions/mcp-server/tests/fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

struct Function {
    child: Child,
    stderr: Lines,
}

impl Drop for Function {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The binary started as Lambda starts it: no command, nothing inherited but PATH.
fn start(runtime_api: &str, moto: &Moto, secret_id: &str) -> Function {
    start_with(runtime_api, moto, secret_id, &[])
}

/// [`start`], with `extra` variables.
fn start_with(runtime_api: &str, moto: &Moto, secret_id: &str, extra: &[(&str, &str)]) -> Function {
    let mut cmd = Command::new(lambda_binary());
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AWS_LAMBDA_RUNTIME_API", runtime_api)
        .env("AWS_LAMBDA_FUNCTION_NAME", "hosted-mcp")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1024")
        .env("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/hosted-mcp")
        .env(
            "AWS_LAMBDA_LOG_STREAM_NAME",
            "2026/12/05/[$LATEST]0123456789abcdef",
        )
        .env("MCP_SECRET_ID", secret_id)
        .env("MCP_ALLOWED_HOSTS", HOST)
        .current_dir(std::env::temp_dir());
    for (k, v) in moto.env() {
        cmd.env(k, v);
    }
    cmd.envs(extra.iter().copied());
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the Lambda binary");
    let stderr = Lines::default();
    stderr.clone().follow(child.stderr.take().unwrap());
    Function { child, stderr }
}

async fn posted(rx: &mut mpsc::UnboundedReceiver<Posted>, function: &Function) -> Posted {
    match tokio::time::timeout(Duration::from_secs(30), rx.recv()).await {
        Ok(Some(posted)) => posted,
        _ => panic!(
            "the function posted nothing to the Runtime API within 30 s:\n{}",
            function.stderr.joined()
        ),
    }
}

fn body(response: &Value) -> Value {
    serde_json::from_str(response["body"].as_str().expect("a body")).expect("a JSON body")
}

#[tokio::test]
async fn the_lambda_binary_answers_api_gateway_events_fetched_from_the_runtime_api() {
    let moto = Moto::start();
    moto.secrets_client()
        .await
        .create_secret()
        .name("hosted-mcp/lambda")
        .secret_string(
            json!({
                "api_keys": {"claude-ai": FIXTURE_KEY},
                "pseudonym_pepper": "lambda-pepper-0123456789abcdef0123456789",
            })
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    let (api, mut rx) = runtime_api(vec![
        fixture("apigw-v2-initialize.json"),
        fixture("apigw-v2-tools-list-base64.json"),
    ])
    .await;
    let function = start(&api, &moto, "hosted-mcp/lambda");

    let (route, id, response) = posted(&mut rx, &function).await;
    assert_eq!(
        (route.as_str(), id.as_str()),
        ("response", "invocation-1"),
        "{response}"
    );
    assert_eq!(response["statusCode"], 200, "{response}");
    assert_eq!(
        body(&response)["result"]["serverInfo"]["name"],
        "hosted-mcp"
    );

    let (route, id, response) = posted(&mut rx, &function).await;
    assert_eq!(
        (route.as_str(), id.as_str()),
        ("response", "invocation-2"),
        "{response}"
    );
    assert_eq!(response["statusCode"], 200, "{response}");
    let tools = body(&response)["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"search_tools"), "{names:?}");
}

/// Without its secret the function still starts and answers every event with a 503 that says
/// what an operator must fix, rather than failing its start (which Lambda would retry and report
/// as a bare runtime error).
#[tokio::test]
async fn a_missing_deployment_secret_is_answered_with_503_through_the_runtime_api() {
    let moto = Moto::start();
    let (api, mut rx) = runtime_api(vec![fixture("apigw-v2-initialize.json")]).await;
    let function = start(&api, &moto, "hosted-mcp/absent");
    let (route, _, response) = posted(&mut rx, &function).await;
    assert_eq!(route, "response", "{response}");
    assert_eq!(response["statusCode"], 503, "{response}");
    assert_eq!(body(&response)["error"], "unavailable", "{response}");
    assert!(
        function.stderr.shows("hosted-mcp/absent"),
        "{}",
        function.stderr.joined()
    );
}

/// With traces on, an invocation's spans reach the collector before its answer does: the
/// instance may be frozen as soon as it answers, so the batch's own schedule (ten minutes here)
/// is not waited for.
#[tokio::test]
async fn an_invocation_exports_its_spans_before_it_answers() {
    let moto = Moto::start();
    let (receiver, otlp) = integration_tests::otlp::Receiver::start().await;
    let (api, mut rx) = runtime_api(vec![fixture("apigw-v2-initialize.json")]).await;
    let traced = [
        ("MCP_OTLP_ENDPOINT", otlp.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "600000"),
    ];
    let function = start_with(&api, &moto, "hosted-mcp/absent", &traced);
    let (_, _, response) = posted(&mut rx, &function).await;
    assert_eq!(response["statusCode"], 503, "{response}");
    let spans = receiver.spans();
    let request = spans.iter().find(|s| s.name == "request");
    let request = request.unwrap_or_else(|| panic!("no request span at the answer: {spans:#?}"));
    assert_eq!(request.attr("http.response.status_code"), "503");
}
