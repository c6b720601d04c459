//! What an upstream's answers say of a job, read through the tool's `job` declaration, and the
//! answers a call or a task gives about it. Pure: plain values in, plain values out.

use catalog::{Job, Status, Tool};
use serde_json::{Map, Value, json};

use crate::call::Outcome;
use crate::tasks::{Task, TaskStatus};

/// The most of a finished job a task keeps (a DynamoDB item holds 400 KB); a larger answer is
/// kept as its result alone, or not at all.
pub(crate) const MAX_END_BYTES: usize = 64 * 1024;

/// The job's id in a start answer: a string, or a number as its digits.
pub(crate) fn id(job: &Job, data: &Value) -> Option<String> {
    match data.pointer(&job.id)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The upstream's word for the job's state; none when the answer names none (a start answer
/// that is only the id).
pub(crate) fn state(job: &Job, data: &Value) -> Option<String> {
    data.pointer(&job.state)?.as_str().map(str::to_string)
}

/// The task status a state means; a state the catalog does not list is still working.
pub(crate) fn status_of(job: &Job, state: Option<&str>) -> TaskStatus {
    let Some(state) = state else {
        return TaskStatus::Working;
    };
    let s = &job.states;
    let listed = |words: &[catalog::Text]| words.iter().any(|w| w.as_str() == state);
    if listed(&s.completed) {
        TaskStatus::Completed
    } else if listed(&s.failed) {
        TaskStatus::Failed
    } else if listed(&s.cancelled) {
        TaskStatus::Cancelled
    } else if listed(&s.input_required) {
        TaskStatus::InputRequired
    } else {
        TaskStatus::Working
    }
}

/// What reading the job at the upstream brought.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Read {
    /// The job as the upstream answered (the read tool's `data`).
    Job(Value),
    /// The upstream no longer knows the job (a 404): deleted, or its records expired.
    Gone,
    /// No answer this time (down, throttled, a timeout): read again later.
    NotNow,
}

impl Read {
    /// The read tool's outcome as a read of the job.
    pub(crate) fn of(outcome: &Outcome) -> Read {
        match (outcome.status, outcome.fields.get("data")) {
            (Status::Ok, Some(data)) => Read::Job(data.clone()),
            (Status::NotFound, _) => Read::Gone,
            _ => Read::NotNow,
        }
    }
}

/// The task after a read at `now_ms`: its state and status, its next poll, the finished job
/// kept (bounded), and the questions of a job that waits for input. A read that brought
/// nothing leaves it as it was, polled again later.
pub(crate) fn advance(task: &Task, job: &Job, read: Read, now_ms: u64) -> Task {
    let next = Task {
        next_poll_ms: now_ms.saturating_add(task.poll_every_ms),
        ..task.clone()
    };
    match read {
        Read::NotNow => next,
        Read::Gone => Task {
            status: TaskStatus::Failed,
            updated_ms: now_ms,
            end: Some(json!({"_gone": true})),
            asked: None,
            ..next
        },
        Read::Job(data) => {
            let state = state(job, &data);
            let status = status_of(job, state.as_deref());
            let asked = match (status, &job.input) {
                (TaskStatus::InputRequired, Some(input)) => Some(super::input::asked(input, &data)),
                _ => None,
            };
            Task {
                status,
                state: state.unwrap_or_default(),
                updated_ms: now_ms,
                end: status.is_terminal().then(|| kept(job, data)),
                asked,
                ..next
            }
        }
    }
}

/// A finished job within [`MAX_END_BYTES`]: whole, else its result and error alone, else a mark
/// that it was too large to keep.
fn kept(job: &Job, data: Value) -> Value {
    let fits = |v: &Value| serde_json::to_vec(v).is_ok_and(|b| b.len() <= MAX_END_BYTES);
    if fits(&data) {
        return data;
    }
    let mut slim = Map::new();
    for pointer in [&job.state, &job.id]
        .into_iter()
        .chain(job.result.as_ref())
        .chain(job.error.as_ref())
    {
        if let Some(v) = data.pointer(pointer) {
            set(&mut slim, pointer, v.clone());
        }
    }
    let slim = Value::Object(slim);
    if fits(&slim) {
        slim
    } else {
        json!({"_too_large": true})
    }
}

/// Puts `value` at `pointer` in `into`, making the objects on the way.
fn set(into: &mut Map<String, Value>, pointer: &str, value: Value) {
    let keys: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|k| k.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((last, path)) = keys.split_last() else {
        return;
    };
    let mut at = into;
    for k in path {
        let slot = at
            .entry(k.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let Value::Object(next) = slot else { return };
        at = next;
    }
    at.insert(last.clone(), value);
}

/// Whether the task ended because the upstream no longer knew its job: no tool result came of
/// it (the extension's `failed`, with an error).
pub(crate) fn gone(task: &Task) -> bool {
    task.end.as_ref().is_some_and(|e| e.get("_gone").is_some())
}

/// Who the job's answers are about: the catalog's title, the tool that reads the job and the
/// name of its id parameter.
pub(crate) struct Follow<'a> {
    pub title: &'a str,
    pub read: &'a Tool,
    pub param: &'a str,
}

/// The call's or the task's answer about the job as it stands: its result once it finished, or
/// `pending` with the read tool and id that fetch it later.
pub(crate) fn answer(job: &Job, task: &Task, follow: &Follow<'_>) -> Outcome {
    let described = json!({"id": task.job_id, "state": task.state});
    let mut outcome = match (task.status, task.end.as_ref()) {
        (TaskStatus::Working, _) => pending(task, follow),
        (TaskStatus::InputRequired, _) => Outcome::failed(
            Status::Pending,
            "job_waits_for_input",
            format!(
                "{} job {} waits for the user's answer ({}); nothing failed. The questions are \
                 in the task: the user answers them in the client.",
                follow.title, task.job_id, task.state
            ),
        ),
        _ if gone(task) => Outcome::failed(
            Status::NotFound,
            "job_gone",
            format!(
                "{} no longer knows job {} (deleted, or its records expired); its result is \
                 lost. Start a new job if it is still needed.",
                follow.title, task.job_id
            ),
        ),
        (_, Some(end)) if end.get("_too_large").is_some() => Outcome::failed(
            Status::Error,
            "job_too_large",
            format!(
                "Job {} finished ({}), but its answer is too large to keep. Read it with `{}` \
                 and `{}: {}`, using `fields` to pick what is needed.",
                task.job_id, task.state, follow.read.name, follow.param, task.job_id
            ),
        ),
        (TaskStatus::Completed, end) => completed(job, task, end),
        (TaskStatus::Failed, end) => {
            let why = end
                .and_then(|e| job.error.as_ref().and_then(|p| e.pointer(p)))
                .and_then(crate::upstream::one_line);
            let words = match why {
                Some(_) => "; its words are in `upstream_message`",
                None => "",
            };
            let mut o = Outcome::failed(
                Status::Error,
                "job_failed",
                format!(
                    "{} reports that job {} failed ({}){words}. Check the input against the \
                     tool's description before starting a new job; do not retry unchanged.",
                    follow.title, task.job_id, task.state,
                ),
            );
            if let Some(why) = why {
                o.fields.insert("upstream_message".into(), why.into());
            }
            o
        }
        (TaskStatus::Cancelled, _) => Outcome::failed(
            Status::Error,
            "job_cancelled",
            format!(
                "Job {} was cancelled ({}); nothing more comes of it. Start a new job if it \
                 is still needed.",
                task.job_id,
                if task.state.is_empty() {
                    "cancelled"
                } else {
                    &task.state
                }
            ),
        ),
    };
    outcome.fields.insert("job".into(), described);
    outcome
}

fn pending(task: &Task, follow: &Follow<'_>) -> Outcome {
    let state = match task.state.as_str() {
        "" => String::new(),
        s => format!(" (state `{s}`)"),
    };
    Outcome::failed(
        Status::Pending,
        "job_pending",
        format!(
            "{} is still running job {}{state}; nothing failed. Fetch its result later with \
             `{}` and `{}: {}` (about every {} s); do not start the job again.",
            follow.title,
            task.job_id,
            follow.read.name,
            follow.param,
            task.job_id,
            task.poll_every_ms / 1000,
        ),
    )
}

/// A finished job's result (its `result` pointer, or the whole job), with its media links and
/// until when the upstream keeps them.
fn completed(job: &Job, task: &Task, end: Option<&Value>) -> Outcome {
    let end = end.cloned().unwrap_or(Value::Null);
    let result = match &job.result {
        Some(p) => end.pointer(p).cloned().unwrap_or(Value::Null),
        None => end.clone(),
    };
    let mut outcome = Outcome::ok(Map::from_iter([("data".into(), result)]));
    let urls: Vec<&str> = job
        .media
        .iter()
        .filter_map(|p| end.pointer(p))
        .flat_map(|v| match v {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        })
        .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
        .collect();
    if urls.is_empty() {
        return outcome;
    }
    let until = job
        .output_lives
        .map(|s| crate::clock::iso_utc((task.updated_ms / 1000 + u64::from(s)) * 1000));
    let media: Vec<Value> = urls
        .iter()
        .map(|u| match &until {
            Some(t) => json!({"url": u, "expires_at": t}),
            None => json!({"url": u}),
        })
        .collect();
    outcome.fields.insert("media".into(), media.into());
    outcome.media = urls
        .iter()
        .map(|u| crate::call::MediaLink {
            url: (*u).to_string(),
            expires_at: until.clone(),
        })
        .collect();
    if let Some(t) = until {
        outcome.hint = Some(format!(
            "The media links stop working at {t} ({}'s retention); save what is needed \
             before then.",
            task.connector
        ));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::tests::working;

    pub(crate) fn replicate_job() -> Job {
        yaml_serde::from_str(
            "id: /id\nstate: /status\nread: get\ncancel: cancel\n\
             states: {working: [starting, processing], completed: [succeeded], failed: [failed], cancelled: [canceled]}\n\
             result: /output\nerror: /error\nmedia: [/output]\noutput_lives: 3600\n",
        )
        .unwrap()
    }

    #[test]
    fn states_map_to_statuses_and_an_unlisted_one_still_works() {
        let job = replicate_job();
        for (state, status) in [
            (Some("starting"), TaskStatus::Working),
            (Some("succeeded"), TaskStatus::Completed),
            (Some("failed"), TaskStatus::Failed),
            (Some("canceled"), TaskStatus::Cancelled),
            (Some("queued_somewhere_new"), TaskStatus::Working),
            (None, TaskStatus::Working),
        ] {
            assert_eq!(status_of(&job, state), status, "{state:?}");
        }
        assert_eq!(id(&job, &json!({"id": 42})).as_deref(), Some("42"));
        assert_eq!(id(&job, &json!({"id": ""})), None);
    }

    #[test]
    fn a_read_moves_the_task_on_and_keeps_a_finished_job() {
        let job = replicate_job();
        let t = working("t", "o", 0);
        let same = advance(&t, &job, Read::NotNow, 7_000);
        assert_eq!(
            (same.status, same.next_poll_ms, same.updated_ms),
            (TaskStatus::Working, 12_000, 0)
        );
        let running = advance(
            &t,
            &job,
            Read::Job(json!({"id": "p1", "status": "processing"})),
            7_000,
        );
        assert_eq!(
            (running.state.as_str(), running.end.as_ref()),
            ("processing", None)
        );
        let done = json!({"id": "p1", "status": "succeeded", "output": ["https://r/1.png"]});
        let finished = advance(&t, &job, Read::Job(done.clone()), 8_000);
        assert_eq!(
            (finished.status, finished.end),
            (TaskStatus::Completed, Some(done))
        );
        assert_eq!(advance(&t, &job, Read::Gone, 1).status, TaskStatus::Failed);
    }

    #[test]
    fn a_job_that_waits_for_input_holds_its_questions_until_it_goes_on() {
        let mut job = replicate_job();
        job.states.input_required = vec!["waiting".into()];
        job.input = Some(catalog::JobInput {
            questions: "/questions".into(),
            message: Some("/message".into()),
            answer: "answer".into(),
        });
        let waits = json!({"id": "p1", "status": "waiting", "questions": {"confirm": {"message": "Go on?"}}});
        let t = advance(&working("t", "o", 0), &job, Read::Job(waits), 1);
        assert_eq!(t.status, TaskStatus::InputRequired);
        assert_eq!(t.asked, Some(json!({"confirm": "Go on?"})));
        assert!(!t.status.is_terminal() && t.end.is_none());
        let read = read_tool();
        let o = answer(&job, &t, &follow(&read));
        assert_eq!(
            (o.status, o.reason.as_deref()),
            (Status::Pending, Some("job_waits_for_input"))
        );
        let goes_on = advance(
            &t,
            &job,
            Read::Job(json!({"id": "p1", "status": "processing"})),
            2,
        );
        assert_eq!((goes_on.status, goes_on.asked), (TaskStatus::Working, None));
    }

    #[test]
    fn a_finished_job_too_large_to_keep_keeps_its_result_alone() {
        let job = replicate_job();
        let big = json!({"id": "p1", "status": "succeeded", "output": "https://r/1.png",
                         "logs": "x".repeat(MAX_END_BYTES)});
        let t = advance(&working("t", "o", 0), &job, Read::Job(big), 1);
        assert_eq!(
            t.end,
            Some(json!({"id": "p1", "status": "succeeded", "output": "https://r/1.png"}))
        );
        let huge = json!({"id": "p1", "status": "succeeded", "output": "x".repeat(MAX_END_BYTES)});
        let t = advance(&working("t", "o", 0), &job, Read::Job(huge), 1);
        assert_eq!(t.end, Some(json!({"_too_large": true})));
    }

    fn follow(read: &Tool) -> Follow<'_> {
        Follow {
            title: "Replicate",
            read,
            param: "prediction_id",
        }
    }

    fn read_tool() -> Tool {
        yaml_serde::from_str(
            "name: replicate_prediction_get\nrisk: low\ndescription: d\nget: /predictions/{prediction_id}\n",
        )
        .unwrap()
    }

    #[test]
    fn each_end_of_a_job_is_answered_in_the_models_terms() {
        let (job, read) = (replicate_job(), read_tool());
        let t = working("t", "o", 0);
        let o = answer(&job, &t, &follow(&read));
        assert_eq!(o.status, Status::Pending);
        let hint = o.hint.unwrap();
        assert!(
            hint.contains("`replicate_prediction_get` and `prediction_id: p1`"),
            "{hint}"
        );
        let done = advance(
            &t,
            &job,
            Read::Job(json!({"id": "p1", "status": "succeeded", "output": ["https://r/1.png", 3]})),
            1_000,
        );
        let o = answer(&job, &done, &follow(&read));
        assert_eq!(o.status, Status::Ok);
        assert_eq!(o.fields["data"], json!(["https://r/1.png", 3]));
        assert_eq!(
            o.fields["media"],
            json!([{"url": "https://r/1.png", "expires_at": "1970-01-01T01:00:01.000Z"}])
        );
        assert_eq!(o.fields["job"], json!({"id": "p1", "state": "succeeded"}));
        let failed = advance(
            &t,
            &job,
            Read::Job(json!({"id": "p1", "status": "failed", "error": "CUDA out of memory"})),
            1,
        );
        let o = answer(&job, &failed, &follow(&read));
        assert_eq!(
            (o.status, o.reason.as_deref()),
            (Status::Error, Some("job_failed"))
        );
        assert_eq!(o.fields["upstream_message"], "CUDA out of memory");
        assert!(
            !o.hint.unwrap().contains("CUDA"),
            "upstream text never goes into a hint"
        );
        let gone = advance(&t, &job, Read::Gone, 1);
        assert_eq!(answer(&job, &gone, &follow(&read)).status, Status::NotFound);
    }
}
