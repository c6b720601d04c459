//! Rules on a declared upstream job (`job`): started by a write, followed through tools of the
//! same catalog that take the job's id, its states mapped without overlap, its timings bounded.

use super::Http;
use crate::model::{Job, Method, ParamType, Risk};
use crate::template::placeholders;

/// The longest `Prefer: wait` an upstream is asked for: the start request has to answer within
/// the platform's own request time.
pub const MAX_PREFER_WAIT: u32 = 20;

/// The slowest poll interval: a task's reader waits at most this long for news.
pub const MAX_POLL_EVERY: u32 = 300;

/// The job's problems, field by field.
pub(super) fn job(h: &Http<'_>) -> Vec<String> {
    let Some(job) = &h.t.job else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    problems.extend(started_by_a_write(h));
    problems.extend(pointers_are_pointers(job));
    problems.extend(follows_through_a_tool("read", Some(&job.read), true, h));
    problems.extend(follows_through_a_tool(
        "cancel",
        job.cancel.as_ref(),
        false,
        h,
    ));
    problems.extend(states_are_mapped_once(job));
    problems.extend(timings_are_bounded(job));
    problems.extend(asks_through_a_form(job, h));
    problems
}

/// A job is something a call starts: a write, and one call rather than pages of a list.
fn started_by_a_write(h: &Http<'_>) -> Vec<String> {
    if h.t.is_read_only() || h.t.list {
        return vec![
            "`job` is for a write that starts one upstream job, not a read or list".into(),
        ];
    }
    Vec::new()
}

fn pointers_are_pointers(job: &Job) -> Vec<String> {
    let named = [("id", &job.id), ("state", &job.state)]
        .into_iter()
        .chain(job.result.iter().map(|p| ("result", p)))
        .chain(job.error.iter().map(|p| ("error", p)))
        .chain(job.media.iter().map(|p| ("media", p)));
    named
        .filter(|(_, p)| !p.starts_with('/'))
        .map(|(field, p)| format!("job.{field} `{p}` must be a JSON pointer starting with `/`"))
        .collect()
}

/// `read` (a get) and `cancel` (a write) are tools of this catalog whose one path parameter
/// takes the job's id.
fn follows_through_a_tool(
    field: &str,
    name: Option<&crate::model::Text>,
    read: bool,
    h: &Http<'_>,
) -> Vec<String> {
    let Some(name) = name else {
        return Vec::new();
    };
    let kind = if read { "get" } else { "write" };
    // The named tool, when it is of the kind asked for: a get for `read`, a write for `cancel`.
    let http =
        h.c.tools
            .iter()
            .find(|t| &t.name == name && !t.list)
            .and_then(|t| t.http());
    let Some((_, path)) = http.filter(|(method, _)| read == (*method == Method::Get)) else {
        return vec![format!(
            "job.{field} `{name}` is no {kind} tool of this catalog"
        )];
    };
    let holes = placeholders(path);
    if holes.len() != 1 {
        return vec![format!(
            "job.{field} `{name}` must take the job's id as its one path parameter, it has {holes:?}"
        )];
    }
    Vec::new()
}

/// Working, completed and failed each name a state; no state means two things.
fn states_are_mapped_once(job: &Job) -> Vec<String> {
    let s = &job.states;
    let mut out = Vec::new();
    for (status, states) in [
        ("working", &s.working),
        ("completed", &s.completed),
        ("failed", &s.failed),
    ] {
        if states.is_empty() {
            out.push(format!(
                "job.states.{status} must name the upstream's states"
            ));
        }
    }
    let all = [
        &s.working,
        &s.completed,
        &s.failed,
        &s.cancelled,
        &s.input_required,
    ];
    let mut seen = std::collections::BTreeSet::new();
    for state in all.into_iter().flatten() {
        if state.trim().is_empty() {
            out.push("job.states: a state is empty".into());
        } else if !seen.insert(state.as_str()) {
            out.push(format!("job.states: `{state}` is listed twice"));
        }
    }
    out
}

/// A job that waits for a person names the states it waits in and where its questions are, and
/// runs only as a task (a client answers a task's questions; a waited call has nobody to ask).
/// Its `answer` is a write of this catalog whose path takes the job's id and the question's
/// key, and whose other parameters are plain values a form can ask for; it needs no
/// confirmation of its own, since the person's answer is what it sends.
fn asks_through_a_form(job: &Job, h: &Http<'_>) -> Vec<String> {
    let Some(input) = &job.input else {
        return match job.states.input_required.is_empty() {
            true => Vec::new(),
            false => vec!["job.states.input_required needs `job.input`: where the questions are and the tool that answers them".into()],
        };
    };
    let mut out = Vec::new();
    if job.states.input_required.is_empty() {
        out.push("job.input needs job.states.input_required: the states in which the job waits for an answer".into());
    }
    if job.task != crate::model::TaskSupport::Required {
        out.push("job.input needs `task: required`: only a client that holds the task can answer its questions".into());
    }
    for (field, p) in std::iter::once(("questions", &input.questions))
        .chain(input.message.iter().map(|p| ("message", p)))
    {
        if !p.starts_with('/') {
            out.push(format!(
                "job.input.{field} `{p}` must be a JSON pointer starting with `/`"
            ));
        }
    }
    let name = &input.answer;
    let Some(tool) = h.c.tools.iter().find(|t| &t.name == name && !t.list) else {
        return [
            out,
            vec![format!(
                "job.input.answer `{name}` is no tool of this catalog"
            )],
        ]
        .concat();
    };
    let holes = match tool.http() {
        Some((method, path)) if !method.is_read_only() => placeholders(path),
        _ => {
            return [
                out,
                vec![format!("job.input.answer `{name}` must be a write")],
            ]
            .concat();
        }
    };
    if holes.len() != 2 {
        out.push(format!(
            "job.input.answer `{name}` must take the job's id and then the question's key as its two path parameters, it has {holes:?}"
        ));
    }
    if tool.risk >= Risk::High {
        out.push(format!(
            "job.input.answer `{name}` must be `low` or `medium`: the person's answer in the form is what it sends, with no confirmation of its own"
        ));
    }
    for (param, p) in tool
        .params
        .iter()
        .filter(|(k, _)| !holes.contains(&k.as_str()))
    {
        if !matches!(
            p.kind,
            ParamType::String | ParamType::Integer | ParamType::Number | ParamType::Boolean
        ) {
            out.push(format!(
                "job.input.answer `{name}`: param `{param}` must be a string, integer, number or boolean, a field a form can ask for"
            ));
        }
    }
    out
}

fn timings_are_bounded(job: &Job) -> Vec<String> {
    let mut out = Vec::new();
    if !(1..=MAX_POLL_EVERY).contains(&job.poll_every) {
        out.push(format!(
            "job.poll_every must be 1 to {MAX_POLL_EVERY} seconds, is {}",
            job.poll_every
        ));
    }
    if let Some(wait) = job
        .prefer_wait
        .filter(|w| !(1..=MAX_PREFER_WAIT).contains(w))
    {
        out.push(format!(
            "job.prefer_wait must be 1 to {MAX_PREFER_WAIT} seconds (the start request answers \
             within the platform's request time), is {wait}"
        ));
    }
    if job.output_lives == Some(0) {
        out.push("job.output_lives must be at least 1 second".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::load::parse;

    /// A prediction-style upstream (Replicate's shape): lowercase states, `Prefer: wait`, output
    /// deleted after an hour.
    const PREDICTIONS: &str = r#"
connector: demo
base_url: "https://api.example.com/v1"
secrets: [token]
auth: { bearer: token }
tools:
  - name: demo_prediction_create
    risk: high
    description: 'Starts a prediction. Use it to "run a model". Example {"version": "abc", "input": {}}'
    post: /predictions
    params:
      version: { type: string, required: true, max_length: 64 }
    job:
      id: /id
      state: /status
      read: demo_prediction_get
      cancel: demo_prediction_cancel
      states:
        working: [starting, processing]
        completed: [succeeded]
        failed: [failed]
        cancelled: [canceled]
      result: /output
      error: /error
      media: [/output]
      prefer_wait: 10
      output_lives: 3600
  - name: demo_prediction_get
    risk: low
    description: 'One prediction. Use it when you have an id. Example {"id": "x"}'
    get: /predictions/{id}
    params:
      id: { type: string, in: path, required: true, max_length: 64 }
  - name: demo_prediction_cancel
    risk: medium
    effect: change
    description: 'Cancels a prediction. Use it to "stop it". Example {"id": "x"}'
    post: /predictions/{id}/cancel
    params:
      id: { type: string, in: path, required: true, max_length: 64 }
"#;

    fn problem(catalog: &str) -> String {
        match parse("demo.yaml", catalog) {
            Ok(_) => panic!("loaded:\n{catalog}"),
            Err(e) => e.to_string(),
        }
    }

    /// Each case changes `from` to `to` in [`PREDICTIONS`] and expects the load to say `expected`.
    fn refused(cases: &[(&str, &str, &str)]) {
        for (from, to, expected) in cases {
            assert!(PREDICTIONS.contains(from), "{from}");
            let err = problem(&PREDICTIONS.replacen(from, to, 1));
            assert!(err.contains(expected), "{to}: {err}");
        }
    }

    #[test]
    fn a_prediction_and_a_task_style_job_load_with_their_own_states() {
        let c = parse("demo.yaml", PREDICTIONS).unwrap();
        let job = c.tools[0].job.as_deref().unwrap();
        assert_eq!(job.read, "demo_prediction_get");
        assert_eq!(job.cancel.as_deref(), Some("demo_prediction_cancel"));
        assert_eq!(job.states.working, ["starting", "processing"]);
        assert_eq!((job.poll_every, job.prefer_wait), (5, Some(10)));
        assert_eq!(job.output_lives, Some(3600));

        // A task-style upstream (Runway's shape): uppercase states, a queue state, no cancel, no
        // `Prefer: wait`, polled every ten seconds.
        let tasks = PREDICTIONS
            .replace("      cancel: demo_prediction_cancel\n", "")
            .replace("[starting, processing]", "[PENDING, THROTTLED, RUNNING]")
            .replace("[succeeded]", "[SUCCEEDED]")
            .replace("[failed]", "[FAILED]")
            .replace("[canceled]", "[CANCELLED]")
            .replace("      prefer_wait: 10\n", "      poll_every: 10\n");
        let c = parse("demo.yaml", &tasks).unwrap();
        let job = c.tools[0].job.as_deref().unwrap();
        assert_eq!(job.states.working, ["PENDING", "THROTTLED", "RUNNING"]);
        assert_eq!(
            (job.cancel.as_ref(), job.poll_every, job.prefer_wait),
            (None, 10, None)
        );
    }

    #[test]
    fn a_job_is_started_by_a_write_and_followed_through_tools_taking_its_id() {
        refused(&[
            (
                "    post: /predictions\n",
                "    get: /predictions\n",
                "`job` is for a write that starts one upstream job",
            ),
            (
                "      read: demo_prediction_get\n",
                "      read: demo_prediction_gone\n",
                "job.read `demo_prediction_gone` is no get tool of this catalog",
            ),
            (
                "      read: demo_prediction_get\n",
                "      read: demo_prediction_cancel\n",
                "job.read `demo_prediction_cancel` is no get tool of this catalog",
            ),
            (
                "      cancel: demo_prediction_cancel\n",
                "      cancel: demo_prediction_get\n",
                "job.cancel `demo_prediction_get` is no write tool of this catalog",
            ),
            (
                "    get: /predictions/{id}\n    params:\n      id: { type: string, in: path, required: true, max_length: 64 }\n",
                "    get: /predictions/latest\n",
                "job.read `demo_prediction_get` must take the job's id as its one path parameter",
            ),
        ]);
    }

    #[test]
    fn each_upstream_state_means_one_task_status_and_the_main_ones_are_named() {
        refused(&[
            (
                "[succeeded]",
                "[]",
                "job.states.completed must name the upstream's states",
            ),
            (
                "[failed]",
                "[failed, starting]",
                "job.states: `starting` is listed twice",
            ),
            ("[canceled]", "[' ']", "job.states: a state is empty"),
        ]);
    }

    #[test]
    fn pointers_start_with_a_slash_and_timings_stay_within_bounds() {
        refused(&[
            (
                "      id: /id\n",
                "      id: id\n",
                "job.id `id` must be a JSON pointer",
            ),
            (
                "media: [/output]",
                "media: [output]",
                "job.media `output` must be a JSON pointer",
            ),
            (
                "      prefer_wait: 10\n",
                "      prefer_wait: 60\n",
                "job.prefer_wait must be 1 to 20 seconds",
            ),
            (
                "      prefer_wait: 10\n",
                "      poll_every: 0\n",
                "job.poll_every must be 1 to 300 seconds, is 0",
            ),
            (
                "      output_lives: 3600\n",
                "      output_lives: 0\n",
                "job.output_lives must be at least 1 second",
            ),
        ]);
    }

    /// [`PREDICTIONS`] as a job that waits for a person's approval: its questions under
    /// `/questions`, answered one by one through `demo_prediction_answer`.
    fn asking() -> String {
        PREDICTIONS
            .replace(
                "        cancelled: [canceled]\n",
                "        cancelled: [canceled]\n        input_required: [waiting]\n",
            )
            .replace(
                "      output_lives: 3600\n",
                "      output_lives: 3600\n      task: required\n      input: { questions: /questions, message: /text, answer: demo_prediction_answer }\n",
            )
            + r#"  - name: demo_prediction_answer
    risk: medium
    effect: change
    description: 'Answers a question of a waiting prediction. Use it to "approve". Example {"id": "x", "key": "k", "approve": true}'
    post: /predictions/{id}/answers/{key}
    params:
      id: { type: string, in: path, required: true, max_length: 64 }
      key: { type: string, in: path, required: true, max_length: 64 }
      approve: { type: boolean, required: true, description: Whether to go on. }
"#
    }

    #[test]
    fn a_job_that_asks_a_person_runs_as_a_task_and_is_answered_through_a_form() {
        let c = parse("demo.yaml", &asking()).unwrap();
        let job = c.tools[0].job.as_deref().unwrap();
        let input = job.input.as_ref().unwrap();
        assert_eq!(job.states.input_required, ["waiting"]);
        assert_eq!(
            (
                input.questions.as_str(),
                input.message.as_deref(),
                input.answer.as_str()
            ),
            ("/questions", Some("/text"), "demo_prediction_answer")
        );
        for (from, to, expected) in [
            (
                "      task: required\n",
                "",
                "job.input needs `task: required`",
            ),
            (
                "        input_required: [waiting]\n",
                "",
                "job.input needs job.states.input_required",
            ),
            (
                "input_required: [waiting]",
                "input_required: [processing]",
                "job.states: `processing` is listed twice",
            ),
            (
                "questions: /questions",
                "questions: questions",
                "job.input.questions `questions` must be a JSON pointer",
            ),
            (
                "answer: demo_prediction_answer",
                "answer: demo_prediction_get",
                "job.input.answer `demo_prediction_get` must be a write",
            ),
            (
                "answer: demo_prediction_answer",
                "answer: demo_nobody",
                "job.input.answer `demo_nobody` is no tool of this catalog",
            ),
            (
                "/answers/{key}",
                "/answers",
                "must take the job's id and then the question's key as its two path parameters",
            ),
            (
                "    risk: medium\n    effect: change\n    description: 'Answers",
                "    risk: high\n    effect: change\n    description: 'Answers",
                "job.input.answer `demo_prediction_answer` must be `low` or `medium`",
            ),
            (
                "approve: { type: boolean",
                "approve: { type: date",
                "param `approve` must be a string, integer, number or boolean",
            ),
        ] {
            let catalog = asking();
            assert!(catalog.contains(from), "{from}");
            let err = problem(&catalog.replacen(from, to, 1));
            assert!(err.contains(expected), "{to}: {err}");
        }
        let no_input = PREDICTIONS.replace(
            "        cancelled: [canceled]\n",
            "        cancelled: [canceled]\n        input_required: [waiting]\n",
        );
        assert!(problem(&no_input).contains("job.states.input_required needs `job.input`"));
    }

    #[test]
    fn an_unknown_job_field_is_refused() {
        let err =
            problem(&PREDICTIONS.replacen("      error: /error\n", "      errors: /error\n", 1));
        assert!(err.contains("unknown field `errors`"), "{err}");
    }
}
