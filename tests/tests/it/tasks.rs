//! Upstream jobs as MCP tasks (the 2026-07-28 extension `io.modelcontextprotocol/tasks`): the
//! `slow` connector's jobs (`tests/src/jobs_upstream.rs`, a stateful fake that runs them the
//! way Replicate and Runway do) started through two server instances that share one task table
//! in DynamoDB (`moto_server`), as two Lambda instances do: a task answered by one is found,
//! polled and finished by the other, a finished task never changes, a job is cancelled
//! upstream, and a caller sees only its own tasks. A client that holds no tasks gets the call
//! waited for, then `pending` naming the tool and id that fetch the result.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use audit::{AuditLog, Redactor};
use integration_tests::jobs_upstream::{self, JobsState};
use integration_tests::{Moto, Rpc, repo, serve_on_loopback};
use mcp_server::{ApiKey, SecretLoader, SecretStore, SecretValues};
use mcp_server::{AppState, Config, EnvSnapshot, Stores, TableTasks, TaskStore, app};
use serde_json::{Value, json};

const TABLE: &str = "hosted-mcp-ledger";
const KEY: &str = "tasks-key-0123456789abcdef";
const OTHER: &str = "tasks-other-0123456789abcdef";
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// One server instance over the `slow` connector at `upstream`, its tasks in `tasks`.
async fn instance(
    upstream: std::net::SocketAddr,
    tasks: TaskStore,
    env: &[(&str, &str)],
) -> String {
    audited(upstream, tasks, env).await.0
}

/// [`instance`], with the sink its audit lines go to.
async fn audited(
    upstream: std::net::SocketAddr,
    tasks: TaskStore,
    env: &[(&str, &str)],
) -> (String, audit::MemorySink) {
    let mut pairs = vec![("MCP_LIMITS", "off")];
    pairs.extend_from_slice(env);
    let config = Config::from(EnvSnapshot::from_pairs(pairs)).unwrap();
    let values = SecretValues {
        origin_verify: Vec::new(),
        idp_client_secret: None,
        api_keys: vec![ApiKey::new("alice", KEY), ApiKey::new("bob", OTHER)],
        pepper: Some(b"pepper-0123456789abcdef0123456789".to_vec()),
        confirmation_keys: vec![b"tasks-confirmation-key-0123456789abcdef".to_vec()],
        connectors: HashMap::from([(
            "slow".to_string(),
            HashMap::from([("host".to_string(), upstream.to_string())]),
        )]),
    };
    let store = SecretStore::new(
        SecretLoader::Static(Arc::new(values)),
        Duration::from_secs(60),
        Redactor::new(),
    );
    let catalogs = catalog::load_dir(&repo().join("tests/catalogs/jobs")).unwrap();
    let stores = Stores {
        tasks,
        ..Stores::default()
    };
    let (audit, sink) = AuditLog::memory();
    let state = AppState::new(
        config,
        catalogs,
        Arc::new(store),
        audit,
        Redactor::new(),
        mcp_server::http_client(),
        stores,
    );
    (
        format!("http://{}/mcp", serve_on_loopback(app(state)).await),
        sink,
    )
}

/// A 2026-07-28 request of a client that declares the tasks extension.
async fn modern(rpc: &Rpc, method: &str, name: Option<&str>, params: Value) -> Value {
    let caps = json!({"extensions": {TASKS: {}}});
    rpc.modern(method, name, params, caps).await
}

async fn start(rpc: &Rpc, args: Value) -> Value {
    let r = modern(
        rpc,
        "tools/call",
        Some("slow_job_start"),
        json!({"name": "slow_job_start", "arguments": args}),
    )
    .await;
    r["result"].clone()
}

async fn get(rpc: &Rpc, id: &str) -> Value {
    modern(rpc, "tasks/get", Some(id), json!({"taskId": id})).await
}

/// `tasks/get` until the task is no longer working (at most `secs`).
async fn settled(rpc: &Rpc, id: &str, secs: u64) -> Value {
    for _ in 0..secs * 5 {
        let r = get(rpc, id).await;
        if r["result"]["status"] != "working" {
            return r["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("task {id} still working after {secs} s");
}

async fn table_tasks(moto: &Moto) -> TaskStore {
    let dynamodb = moto.create_limits_table(TABLE).await;
    TaskStore::Table(TableTasks::new(dynamodb, TABLE))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_instance_is_polled_and_finished_by_another() {
    let moto = Moto::start();
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let a = Rpc::with_bearer(
        &instance(upstream, table_tasks(&moto).await, &[]).await,
        KEY,
    );
    let b_tasks = TaskStore::Table(TableTasks::new(moto.dynamodb_client(&moto.endpoint), TABLE));
    let b = Rpc::with_bearer(&instance(upstream, b_tasks, &[]).await, KEY);

    // The extension is declared where a client of this generation looks.
    let discovered = modern(&a, "server/discover", None, json!({})).await;
    let caps = &discovered["result"]["capabilities"];
    assert_eq!(caps["extensions"][TASKS], json!({}), "{discovered}");
    assert!(
        caps.get("tasks").is_none(),
        "not the 2025-11-25 slot: {caps}"
    );

    let created = start(&a, json!({"seconds": 1.5, "label": "lift"})).await;
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working");
    assert_eq!(created["pollIntervalMs"], 1000);
    assert_eq!(created["ttlMs"], 3_600_000);
    let id = created["taskId"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 32, "128 random bits: {id}");

    // Durable before it was answered: the other instance finds it at once.
    let first = get(&b, &id).await;
    assert_eq!(first["result"]["status"], "working", "{first}");
    assert_eq!(first["result"]["resultType"], "complete");

    // Another caller, and an id nobody issued, get the same answer.
    let bob = Rpc::with_bearer(&b.url, OTHER);
    for (who, task) in [
        (&bob, id.as_str()),
        (&b, "0123456789abcdef0123456789abcdef"),
    ] {
        let refused = get(who, task).await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("Task not found")
        );
    }

    let done = settled(&b, &id, 10).await;
    assert_eq!(done["status"], "completed", "{done}");
    let result = &done["result"];
    assert_eq!(result["isError"], false, "{done}");
    let structured = &result["structuredContent"];
    assert_eq!(
        structured["data"]["text"], "Computed lift in 1.5 s",
        "{done}"
    );
    assert_eq!(structured["job"]["state"], "succeeded");
    let media = &structured["media"][0];
    assert_eq!(media["url"], "https://files.example.com/job-1.png");
    assert!(
        media["expires_at"].as_str().unwrap().ends_with('Z'),
        "{media}"
    );
    assert!(
        result["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none()
    );
    // The file as a link the client fetches from the upstream, until it is deleted there.
    let content = result["content"].as_array().unwrap();
    let link = content
        .iter()
        .find(|c| c["type"] == "resource_link")
        .unwrap();
    assert_eq!(link["uri"], "https://files.example.com/job-1.png", "{link}");
    assert_eq!(
        (link["name"].as_str(), link["mimeType"].as_str()),
        (Some("job-1.png"), Some("image/png"))
    );
    let described = link["description"].as_str().unwrap();
    assert!(described.contains("deletes it at"), "{link}");

    // Finished: no more reads upstream, however often the task is asked for.
    let reads = jobs.reads("job-1");
    for rpc in [&a, &b, &a] {
        assert_eq!(get(rpc, &id).await["result"]["status"], "completed");
    }
    assert_eq!(jobs.reads("job-1"), reads, "a finished task reads nothing");
    assert!(
        reads <= 3,
        "one read a poll interval at most: {reads} for a 1.5 s job"
    );

    // A finished task is not cancelled: the acknowledgement changes nothing.
    let ack = modern(&a, "tasks/cancel", Some(&id), json!({"taskId": id})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    assert_eq!(get(&b, &id).await["result"]["status"], "completed");

    // The record: one item keyed by the id, expiring with the task.
    let items = moto
        .dynamodb_client(&moto.endpoint)
        .scan()
        .table_name(TABLE)
        .send()
        .await
        .unwrap()
        .items
        .unwrap_or_default();
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["pk"].as_s().unwrap(), &format!("task:{id}"));
    let expires: u64 = items[0]["expires_at"].as_n().unwrap().parse().unwrap();
    let now = mcp_server::now_s();
    assert!(
        (now + 3590..=now + 3601).contains(&expires),
        "{expires} vs {now}"
    );
    assert!(
        !items[0]["owner"].as_s().unwrap().contains(KEY),
        "no secret in the record"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_task_cancels_its_job_upstream_and_a_failed_job_is_an_error_result() {
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let (url, sink) = audited(upstream, TaskStore::default(), &[]).await;
    let rpc = Rpc::with_bearer(&url, KEY);

    let long = start(&rpc, json!({"seconds": 60})).await;
    let id = long["taskId"].as_str().unwrap();
    let ack = modern(&rpc, "tasks/cancel", Some(id), json!({"taskId": id})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    assert!(jobs.cancelled("job-1"), "cancelled upstream");
    assert_eq!(get(&rpc, id).await["result"]["status"], "cancelled");

    let failing = start(&rpc, json!({"seconds": 0.5, "fail": true, "label": "bad"})).await;
    let id = failing["taskId"].as_str().unwrap();
    let failed = settled(&rpc, id, 10).await;
    assert_eq!(
        failed["status"], "completed",
        "a tool error completes the task: {failed}"
    );
    assert_eq!(failed["result"]["isError"], true);
    let s = &failed["result"]["structuredContent"];
    assert_eq!(s["status"], "error");
    assert_eq!(s["upstream_message"], "job bad failed as asked", "{s}");
    // Its start and its end each have their audit line; the end says how the job ended, once,
    // however often the task is read.
    get(&rpc, id).await;
    let lines: Vec<Value> = sink
        .lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|l: &Value| l["tool"] == "slow_job_start")
        .collect();
    let reasons: Vec<&str> = lines.iter().filter_map(|l| l["reason"].as_str()).collect();
    assert_eq!(
        reasons,
        [
            "task_started",
            "task_cancelled",
            "task_started",
            "job_failed"
        ],
        "{lines:?}"
    );
    let end = lines.last().unwrap();
    assert_eq!(
        (end["event"].as_str(), end["status"].as_str()),
        (Some("tool_error"), Some("error"))
    );
    assert!(
        !end.to_string().contains("failed as asked"),
        "no upstream words in the audit line"
    );

    // The upstream down mid-job: the task keeps working, and finishes once it is back.
    let outage = start(&rpc, json!({"seconds": 0.2})).await;
    let id = outage["taskId"].as_str().unwrap();
    jobs.set_down(true);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(get(&rpc, id).await["result"]["status"], "working");
    jobs.set_down(false);
    assert_eq!(settled(&rpc, id, 10).await["status"], "completed");

    // A job the upstream forgot (its records expired): no result came of it, the task failed.
    let lost = start(&rpc, json!({"seconds": 30})).await;
    let id = lost["taskId"].as_str().unwrap();
    jobs.forget("job-4");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let gone = settled(&rpc, id, 10).await;
    assert_eq!(gone["status"], "failed", "{gone}");
    assert_eq!(gone["error"]["code"], -32603, "{gone}");
    let message = gone["error"]["message"].as_str().unwrap();
    assert!(message.contains("no longer knows job job-4"), "{message}");
    assert!(gone.get("result").is_none(), "{gone}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_tasks_waits_for_the_job_then_hears_it_is_pending() {
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let url = instance(
        upstream,
        TaskStore::default(),
        &[("MCP_JOB_WAIT_MS", "2500")],
    )
    .await;
    let rpc = Rpc::with_bearer(&url, KEY);

    // Done within the wait: the job's result, as one call.
    let quick = rpc
        .tool("slow_job_start", json!({"seconds": 1, "label": "q"}))
        .await;
    assert_eq!(quick["status"], "ok", "{quick}");
    assert_eq!(quick["data"]["text"], "Computed q in 1 s");

    // Longer than the wait: `pending`, never a timeout, with what fetches the result.
    let started = std::time::Instant::now();
    let slow = rpc.tool("slow_job_start", json!({"seconds": 30})).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(slow["status"], "pending", "{slow}");
    let hint = slow["hint"].as_str().unwrap();
    assert!(
        hint.contains("`slow_job_get` and `job_id: job-2`"),
        "{hint}"
    );
    assert_eq!(slow["job"], json!({"id": "job-2", "state": "running"}));
    let later = rpc.tool("slow_job_get", json!({"job_id": "job-2"})).await;
    assert_eq!(later["data"]["status"], "running", "{later}");

    // A task-only tool refuses it, naming the extension it lacks.
    let refused = rpc
        .modern(
            "tools/call",
            Some("slow_render_start"),
            json!({"name": "slow_render_start", "arguments": {"seconds": 1}}),
            json!({}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"][TASKS],
        json!({}),
        "{refused}"
    );

    // A 2026-07-28 client that does not declare the extension waits the same way.
    let modern = rpc
        .modern(
            "tools/call",
            Some("slow_job_start"),
            json!({"name": "slow_job_start", "arguments": {"seconds": 0.5}}),
            json!({}),
        )
        .await;
    assert_eq!(
        modern["result"]["structuredContent"]["status"], "ok",
        "{modern}"
    );
    assert!(modern["result"].get("taskId").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_client_augments_a_call_with_a_task_and_reads_its_result() {
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let rpc = Rpc::with_bearer(&instance(upstream, TaskStore::default(), &[]).await, KEY);

    let init = rpc
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}),
        )
        .await;
    let tasks = &init["result"]["capabilities"]["tasks"];
    assert_eq!(
        tasks,
        &json!({"cancel": {}, "requests": {"tools": {"call": {}}}}),
        "{init}"
    );
    let listed = rpc.request("tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    let support = |name: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap()["execution"]["taskSupport"].clone()
    };
    assert_eq!(support("slow_job_start"), "optional");
    assert_eq!(support("slow_job_get"), Value::Null, "absent: forbidden");

    let created = rpc
        .request(
            "tools/call",
            json!({"name": "slow_job_start", "arguments": {"seconds": 1, "label": "v1"},
                   "task": {"ttl": 120000}}),
        )
        .await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(task["ttl"], 120000, "the ttl asked for");
    assert_eq!(task["pollInterval"], 1000);
    let id = task["taskId"].as_str().unwrap();

    let got = rpc.request("tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["taskId"], id, "{got}");
    assert!(got["result"].get("resultType").is_none());

    // tasks/result waits for the job, then answers the tool result naming its task.
    let result = rpc.request("tasks/result", json!({"taskId": id})).await;
    let r = &result["result"];
    assert_eq!(
        r["structuredContent"]["data"]["text"], "Computed v1 in 1 s",
        "{result}"
    );
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id
    );
    assert_eq!(
        rpc.request("tasks/get", json!({"taskId": id})).await["result"]["status"],
        "completed"
    );

    // A finished task cannot be cancelled; a running one is, upstream too.
    let late = rpc.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(late["error"]["code"], -32602, "{late}");
    let long = rpc
        .request(
            "tools/call",
            json!({"name": "slow_job_start", "arguments": {"seconds": 60}, "task": {}}),
        )
        .await;
    let id = long["result"]["task"]["taskId"].as_str().unwrap();
    let cancelled = rpc.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    assert!(jobs.cancelled("job-2"));

    // A job that failed upstream is a failed task whose result is the tool error.
    let bad = rpc
        .request(
            "tools/call",
            json!({"name": "slow_job_start", "arguments": {"seconds": 0.2, "fail": true}, "task": {}}),
        )
        .await;
    let id = bad["result"]["task"]["taskId"].as_str().unwrap();
    let result = rpc.request("tasks/result", json!({"taskId": id})).await;
    assert_eq!(result["result"]["isError"], true, "{result}");
    assert_eq!(
        rpc.request("tasks/get", json!({"taskId": id})).await["result"]["status"],
        "failed"
    );

    // No listing is declared, and a tool that starts no job takes no task.
    // A task-only tool called without a task: that generation's "method not found".
    let bare = rpc
        .request(
            "tools/call",
            json!({"name": "slow_render_start", "arguments": {"seconds": 1}}),
        )
        .await;
    assert_eq!(bare["error"]["code"], -32601, "{bare}");
    let list = rpc.request("tasks/list", json!({})).await;
    assert_eq!(list["error"]["code"], -32601, "{list}");
    let plain = rpc
        .request(
            "tools/call",
            json!({"name": "slow_job_get", "arguments": {"job_id": "job-1"}, "task": {}}),
        )
        .await;
    assert_eq!(plain["error"]["code"], -32601, "{plain}");
    let other = Rpc::with_bearer(&rpc.url, OTHER);
    let foreign = other.request("tasks/get", json!({"taskId": id})).await;
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");
}

/// The official Python SDK as the client: on 2026-07-28 it declares the extension and claims
/// the task answer through its own extension mechanism (a `ResultClaim` whose resolver polls
/// `tasks/get`), on 2025-11-25 it sends `params.task` with that generation's models and reads
/// `tasks/result`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_runs_a_job_as_a_task_in_both_generations() {
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let url = instance(upstream, TaskStore::default(), &[]).await;
    for era in ["modern", "handshake"] {
        let (ok, doc) = tokio::task::spawn_blocking({
            let url = url.clone();
            move || {
                integration_tests::python_client(
                    &url,
                    &[
                        "--key",
                        KEY,
                        "--era",
                        era,
                        "--task",
                        r#"slow_job_start={"seconds": 1, "label": "py"}"#,
                    ],
                )
            }
        })
        .await
        .unwrap();
        assert!(ok, "{era}: {doc}");
        let call = &doc["calls"][0];
        assert_eq!(
            call["structured"]["data"]["text"], "Computed py in 1 s",
            "{era}: {call}"
        );
        let task = &call["task"];
        assert_eq!(task["id"].as_str().map(str::len), Some(32), "{era}: {task}");
        let statuses = task["statuses"].as_array().unwrap();
        assert_eq!(statuses.first().unwrap(), "working", "{era}: {task}");
        assert_eq!(statuses.last().unwrap(), "completed", "{era}: {task}");
    }
}

/// What each task request costs the table (DynamoDB on moto, counted by two relays in front of
/// it: reads, and every request): a creation one conditional write; a `tasks/get` one strongly
/// consistent read, plus, when a poll is due, one conditional write claiming it, and one more
/// only when the upstream's state changed (recorded under the claim); a finished task one read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_request_costs_one_read_and_a_due_poll_one_claim() {
    use integration_tests::proxy::CountingProxy;
    let moto = Moto::start();
    moto.create_limits_table(TABLE).await;
    let moto_addr: std::net::SocketAddr =
        moto.endpoint.trim_start_matches("http://").parse().unwrap();
    let all = CountingProxy::start(moto_addr, "DynamoDB_20120810.").await;
    let reads = CountingProxy::start(all.addr, "DynamoDB_20120810.GetItem").await;
    let tasks = TaskStore::Table(TableTasks::new(
        Moto::dynamodb_client_for(&reads.endpoint()),
        TABLE,
    ));
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let rpc = Rpc::with_bearer(&instance(upstream, tasks, &[]).await, KEY);
    let counted = |before: (u64, u64)| (reads.count() - before.0, all.count() - before.1);
    let now = || (reads.count(), all.count());

    let at = now();
    // Long enough that the second poll finds it still running on a loaded machine.
    let created = start(&rpc, json!({"seconds": 4})).await;
    assert_eq!(counted(at), (0, 1), "a creation: one conditional write");
    let id = created["taskId"].as_str().unwrap();

    let at = now();
    assert_eq!(get(&rpc, id).await["result"]["status"], "working");
    assert_eq!(counted(at), (1, 1), "no poll due: one read");

    tokio::time::sleep(Duration::from_millis(1100)).await;
    let at = now();
    get(&rpc, id).await;
    assert_eq!(jobs.reads("job-1"), 1);
    assert_eq!(
        counted(at),
        (1, 3),
        "a poll that found a new state (queued, now running): read, claim, record"
    );

    tokio::time::sleep(Duration::from_millis(1100)).await;
    let at = now();
    get(&rpc, id).await;
    assert_eq!(jobs.reads("job-1"), 2);
    assert_eq!(
        counted(at),
        (1, 2),
        "a poll that found the same state: read and claim"
    );

    tokio::time::sleep(Duration::from_millis(2000)).await;
    let at = now();
    assert_eq!(get(&rpc, id).await["result"]["status"], "completed");
    assert_eq!(
        counted(at),
        (1, 3),
        "the poll that found it done: read, claim, record"
    );

    let at = now();
    assert_eq!(get(&rpc, id).await["result"]["status"], "completed");
    assert_eq!(counted(at), (1, 1), "a finished task: one read");
    assert_eq!(jobs.reads("job-1"), 3, "and no read upstream");
}

/// The figures of tasks in milliseconds, printed, not asserted (`tests/bench/tasks.sh` runs it):
/// a `tools/call` that starts a job and answers its task once it is durable, a `tasks/get` that
/// only reads the task, and one whose poll is due (claim, the upstream's read, the record of a
/// new state), each `N` times (`TASKS_N`, default 40) against the in-memory store and against
/// DynamoDB on moto, both on loopback.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: tests/bench/tasks.sh"]
async fn measure_task_requests() {
    let n: usize = std::env::var("TASKS_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let moto = Moto::start();
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    println!(
        "| store | create (task durable) | get, no poll | get, poll due | (ms, p50 / p95 of {n}) |"
    );
    println!("|---|---|---|---|---|");
    for (name, store) in [
        ("memory", TaskStore::default()),
        ("DynamoDB (moto)", table_tasks(&moto).await),
    ] {
        let rpc = Rpc::with_bearer(&instance(upstream, store, &[]).await, KEY);
        let mut create = Vec::new();
        let mut ids = Vec::new();
        for _ in 0..n {
            let started = std::time::Instant::now();
            let created = start(&rpc, json!({"seconds": 600})).await;
            create.push(started.elapsed());
            ids.push(created["taskId"].as_str().unwrap().to_string());
        }
        let mut plain = Vec::new();
        for id in &ids {
            let started = std::time::Instant::now();
            get(&rpc, id).await;
            plain.push(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let mut polled = Vec::new();
        for id in &ids {
            let started = std::time::Instant::now();
            get(&rpc, id).await;
            polled.push(started.elapsed());
        }
        let figure = |mut v: Vec<Duration>| {
            v.sort();
            let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1000.0;
            format!("{:.2} / {:.2}", at(0.5), at(0.95))
        };
        println!(
            "| {name} | {} | {} | {} | |",
            figure(create),
            figure(plain),
            figure(polled)
        );
    }
}

/// Many `tasks/get` of one due task at once, through two instances sharing the table: one of
/// them claims the poll, so the upstream is read once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_reads_of_a_due_task_poll_the_upstream_once() {
    let moto = Moto::start();
    moto.create_limits_table(TABLE).await;
    // One request at a time, as DynamoDB applies each conditional write atomically: threaded
    // moto would now and then let two concurrent claims pass.
    let relay = integration_tests::proxy::CountingProxy::start(
        format!("127.0.0.1:{}", moto.port()).parse().unwrap(),
        "DynamoDB_20120810.UpdateItem",
    )
    .await;
    let store = || {
        TaskStore::Table(TableTasks::new(
            moto.dynamodb_client(&relay.endpoint()),
            TABLE,
        ))
    };
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let a = Rpc::with_bearer(&instance(upstream, store(), &[]).await, KEY);
    let b = Rpc::with_bearer(&instance(upstream, store(), &[]).await, KEY);
    let created = start(&a, json!({"seconds": 60})).await;
    let id = created["taskId"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let mut asks = tokio::task::JoinSet::new();
    for i in 0..12 {
        let (url, id) = (if i % 2 == 0 { &a.url } else { &b.url }.clone(), id.clone());
        asks.spawn(async move { get(&Rpc::with_bearer(&url, KEY), &id).await });
    }
    let answers = asks.join_all().await;
    assert!(
        answers.iter().all(|r| r["result"]["status"] == "working"),
        "{answers:?}"
    );
    assert_eq!(jobs.reads("job-1"), 1, "one claimed poll for 12 requests");
}

/// The MCP Inspector CLI: a tool the 2025-11-25 `tools/list` marks `taskSupport: required` it
/// calls as a task with its own task client (`params.task`, then `tasks/get` and
/// `tasks/result`); a tool that runs either way it calls plainly, and the call waits for the job.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inspector_runs_a_task_only_tool_as_a_task_and_waits_for_the_rest() {
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let url = instance(upstream, TaskStore::default(), &[]).await;
    for (tool, era) in [
        ("slow_render_start", "legacy"),
        ("slow_job_start", "legacy"),
        ("slow_job_start", "modern"),
    ] {
        let (url, name, era) = (url.clone(), tool.to_string(), era.to_string());
        let out = tokio::task::spawn_blocking(move || {
            std::process::Command::new(repo().join("tests/clients/inspector.sh"))
                .args([&url, KEY, "tools/call", "--tool-name", &name])
                .args(["--tool-arg", "seconds=1", "--tool-arg", "label=inspected"])
                .args(["--protocol-era", &era])
                .output()
                .expect("run inspector")
        })
        .await
        .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed: Value = serde_json::from_str(&text).unwrap();
        // A task's result comes wrapped, naming its task; a plain call's as it is.
        let result = printed.get("result").unwrap_or(&printed);
        assert_eq!(
            result["structuredContent"]["data"]["text"], "Computed inspected in 1 s",
            "{printed}"
        );
        let task = &result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"];
        assert_eq!(task.is_string(), tool == "slow_render_start", "{printed}");
    }
    assert_eq!(jobs.created(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_asks_a_person_is_answered_through_the_task_on_any_instance() {
    let moto = Moto::start();
    let jobs = JobsState::default();
    let (upstream, _u) = jobs_upstream::spawn(jobs.clone()).await.unwrap();
    let (url_a, sink) = audited(upstream, table_tasks(&moto).await, &[]).await;
    let shared = TaskStore::Table(TableTasks::new(moto.dynamodb_client(&moto.endpoint), TABLE));
    let url_b = instance(upstream, shared, &[]).await;
    let (a, b) = (Rpc::with_bearer(&url_a, KEY), Rpc::with_bearer(&url_b, KEY));
    let call = |label: &str| json!({"name": "slow_approval_start", "arguments": {"label": label}});

    let started = modern(
        &a,
        "tools/call",
        Some("slow_approval_start"),
        call("report"),
    )
    .await;
    let id = started["result"]["taskId"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    // Read on the other instance: the job waits, and its questions are forms of the answer
    // tool's own fields.
    let waiting = get(&b, &id).await["result"].clone();
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let asked = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(asked.keys().collect::<Vec<_>>(), ["approve", "approver"]);
    let approve = &asked["approve"];
    assert_eq!(approve["method"], "elicitation/create");
    assert_eq!(approve["params"]["message"], "Go ahead? (report)");
    let schema = &approve["params"]["requestedSchema"];
    assert_eq!(
        schema["properties"]["confirm"]["type"], "boolean",
        "{schema}"
    );
    assert_eq!(
        schema["properties"]["name"]["title"], "Your name",
        "{schema}"
    );

    // Another caller cannot answer it; a key the job does not ask is ignored.
    let foreign = Rpc::with_bearer(&url_b, OTHER);
    let refused = answer(
        &foreign,
        &id,
        json!({"approve": {"action": "accept", "content": {"confirm": true}}}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let ack = answer(
        &b,
        &id,
        json!({"nothing-asked": {"action": "accept", "content": {}}}),
    )
    .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");

    // One answer: the other question stays open.
    let ack = answer(
        &a,
        &id,
        json!({"approve": {"action": "accept", "content": {"confirm": true}}}),
    )
    .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let half = get(&b, &id).await["result"].clone();
    assert_eq!(half["status"], "input_required", "{half}");
    assert_eq!(
        half["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["approver"]
    );
    // The last: the job goes on and finishes with what the person said.
    answer(
        &b,
        &id,
        json!({"approver": {"action": "accept", "content": {"name": "Ada"}}}),
    )
    .await;
    let done = settled(&a, &id, 10).await;
    assert_eq!(done["status"], "completed", "{done}");
    let text = done["result"]["structuredContent"]["data"]["text"]
        .as_str()
        .unwrap();
    assert!(text.ends_with("for Ada"), "{text}");

    // Declined: the job is cancelled upstream, and the task with it.
    let second = modern(&a, "tools/call", Some("slow_approval_start"), call("other")).await;
    let id = second["result"]["taskId"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(get(&a, &id).await["result"]["status"], "input_required");
    answer(&b, &id, json!({"approve": {"action": "decline"}})).await;
    assert!(jobs.cancelled("job-2"), "cancelled upstream");
    assert_eq!(get(&a, &id).await["result"]["status"], "cancelled");

    // The answers' audit lines are the answer tool's, with no words of the person.
    let lines: Vec<Value> = sink
        .lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let answers: Vec<&Value> = lines
        .iter()
        .filter(|l| l["tool"] == "slow_job_answer")
        .collect();
    assert_eq!(answers.len(), 1, "instance a sent one answer: {lines:?}");
    assert_eq!(answers[0]["reason"], "task_input");
    assert!(!sink.lines().iter().any(|l| l.contains("Ada")));
}

/// `tasks/update` with a person's `responses` to the task's questions.
async fn answer(rpc: &Rpc, id: &str, responses: Value) -> Value {
    let params = json!({"taskId": id, "inputResponses": responses});
    modern(rpc, "tasks/update", Some(id), params).await
}
