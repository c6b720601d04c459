//! A stateful upstream that runs jobs, the way Replicate's predictions and Runway's tasks
//! behave, behind the `slow` connector (`tests/catalogs/jobs/slow.yaml`): a job is
//! created `queued`, reads `running` until its time is up, then `succeeded` with output (a text
//! and file URLs) or `failed` with an error, as it was asked; it can be cancelled while it runs.
//! The test holds the state: it counts every request per job, can take the upstream down
//! (503 on every read) and can forget a job (404, like an expired or deleted one); a job asked to
//! `vanish` is forgotten by itself once done. A job asked to `ask` questions first waits
//! (`waiting`, its open questions under `questions`) until each is answered at
//! `/jobs/{id}/answers/{key}`; its time starts then, and an answer `confirm: false` cancels it.
//! It also greets (`/greet?name=`), for the tasks
//! connector of the conformance suite's fixtures (`tests/catalogs/conformance/tasks.yaml`). Times are
//! the wall clock's, so a job outlives any server process that follows it. Listens on 127.0.0.1
//! only.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Debug)]
struct Job {
    started: Instant,
    takes: Duration,
    fail: bool,
    label: String,
    cancelled: bool,
    forgotten: bool,
    vanish: bool,
    reads: usize,
    /// Open questions, key → what it asks.
    asks: BTreeMap<String, String>,
    /// The answers given, key → the answer's body.
    answers: Map<String, Value>,
}

impl Job {
    /// No longer known: forgotten by the test, or a vanishing job that is done.
    fn gone(&self) -> bool {
        self.forgotten || (self.vanish && self.started.elapsed() >= self.takes)
    }
}

#[derive(Debug, Default)]
struct Jobs {
    jobs: HashMap<String, Job>,
    created: usize,
    down: bool,
}

/// The upstream's state, shared with the test that started it.
#[derive(Clone, Debug, Default)]
pub struct JobsState(Arc<Mutex<Jobs>>);

impl JobsState {
    fn lock(&self) -> std::sync::MutexGuard<'_, Jobs> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many times the job was read.
    pub fn reads(&self, id: &str) -> usize {
        self.lock().jobs.get(id).map_or(0, |j| j.reads)
    }

    /// How many jobs were created.
    pub fn created(&self) -> usize {
        self.lock().created
    }

    /// Every read answers 503 while `down`.
    pub fn set_down(&self, down: bool) {
        self.lock().down = down;
    }

    /// The job is no longer known (its records expired): reads answer 404.
    pub fn forget(&self, id: &str) {
        if let Some(j) = self.lock().jobs.get_mut(id) {
            j.forgotten = true;
        }
    }

    /// Whether the job was cancelled.
    pub fn cancelled(&self, id: &str) -> bool {
        self.lock().jobs.get(id).is_some_and(|j| j.cancelled)
    }
}

/// Starts the upstream on a free loopback port.
pub async fn spawn(state: JobsState) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
    let addr = listener.local_addr()?;
    let router = router(state);
    let handle = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Ok((addr, handle))
}

/// The upstream's routes over `state` (another fixture upstream serves them too).
pub fn router(state: JobsState) -> Router {
    Router::new()
        .route("/jobs", post(create))
        .route("/jobs/{id}", get(read))
        .route("/jobs/{id}/cancel", post(cancel))
        .route("/jobs/{id}/answers/{key}", post(answer))
        .route("/greet", get(greet))
        .with_state(state)
}

#[derive(Deserialize)]
struct Create {
    seconds: f64,
    #[serde(default)]
    fail: bool,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    vanish: bool,
    #[serde(default)]
    ask: BTreeMap<String, String>,
}

async fn create(State(state): State<JobsState>, axum::Json(c): axum::Json<Create>) -> Response {
    if !(0.0..=3600.0).contains(&c.seconds) {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(json!({"message": "seconds must be from 0 to 3600"})),
        )
            .into_response();
    }
    let mut jobs = state.lock();
    jobs.created += 1;
    let id = format!("job-{}", jobs.created);
    let job = Job {
        started: Instant::now(),
        takes: Duration::from_secs_f64(c.seconds),
        fail: c.fail,
        label: c.label.unwrap_or_default(),
        cancelled: false,
        forgotten: false,
        vanish: c.vanish,
        reads: 0,
        asks: c.ask,
        answers: Map::new(),
    };
    let body = shown(&id, &job);
    jobs.jobs.insert(id, job);
    (StatusCode::CREATED, axum::Json(body)).into_response()
}

async fn read(State(state): State<JobsState>, Path(id): Path<String>) -> Response {
    let mut jobs = state.lock();
    let down = jobs.down;
    match jobs.jobs.get_mut(&id) {
        _ if down => (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(json!({"message": "down for maintenance"})),
        )
            .into_response(),
        Some(job) if !job.gone() => {
            job.reads += 1;
            axum::Json(shown(&id, job)).into_response()
        }
        _ => not_found(),
    }
}

#[derive(Deserialize)]
struct Greet {
    name: String,
}

async fn greet(axum::extract::Query(g): axum::extract::Query<Greet>) -> Response {
    axum::Json(json!({"greeting": format!("Hello, {}!", g.name)})).into_response()
}

async fn cancel(State(state): State<JobsState>, Path(id): Path<String>) -> Response {
    let mut jobs = state.lock();
    match jobs.jobs.get_mut(&id) {
        Some(job) if !job.forgotten => {
            if !job.asks.is_empty() || job.started.elapsed() < job.takes {
                job.cancelled = true;
            }
            axum::Json(shown(&id, job)).into_response()
        }
        _ => not_found(),
    }
}

async fn answer(
    State(state): State<JobsState>,
    Path((id, key)): Path<(String, String)>,
    axum::Json(body): axum::Json<Map<String, Value>>,
) -> Response {
    let mut jobs = state.lock();
    let Some(job) = jobs.jobs.get_mut(&id).filter(|j| !j.gone()) else {
        return not_found();
    };
    if job.asks.remove(&key).is_none() {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"message": "the job asks no such question"})),
        )
            .into_response();
    }
    if body.get("confirm") == Some(&Value::Bool(false)) {
        job.cancelled = true;
    }
    job.answers.insert(key, Value::Object(body));
    if job.asks.is_empty() {
        job.started = Instant::now();
    }
    axum::Json(shown(&id, job)).into_response()
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"message": "no such job"})),
    )
        .into_response()
}

/// The job as the upstream answers it.
fn shown(id: &str, job: &Job) -> Value {
    let done = job.started.elapsed() >= job.takes;
    let questions: Map<String, Value> = job
        .asks
        .iter()
        .map(|(key, asks)| {
            (
                key.clone(),
                json!({"message": format!("{asks} ({})", job.label)}),
            )
        })
        .collect();
    let named: Vec<&str> = job
        .answers
        .values()
        .filter_map(|a| a.get("name")?.as_str())
        .collect();
    match (job.cancelled, done, job.fail) {
        (true, ..) => json!({"id": id, "status": "canceled"}),
        _ if !questions.is_empty() => {
            json!({"id": id, "status": "waiting", "questions": questions})
        }
        (false, false, _) if job.reads == 0 => json!({"id": id, "status": "queued"}),
        (false, false, _) => json!({"id": id, "status": "running"}),
        (false, true, true) => {
            json!({"id": id, "status": "failed", "error": format!("job {} failed as asked", job.label)})
        }
        (false, true, false) => json!({
            "id": id,
            "status": "succeeded",
            "output": {
                "text": match named[..] {
                    [] => format!("Computed {} in {} s", job.label, job.takes.as_secs_f64()),
                    _ => format!("Computed {} in {} s for {}", job.label, job.takes.as_secs_f64(), named.join(" and ")),
                },
                "files": [format!("https://files.example.com/{id}.png")]
            }
        }),
    }
}
