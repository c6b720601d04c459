//! A job that waits for a person (`job.input`): its open questions as the upstream lists them,
//! each asked as a form whose fields are the `answer` tool's parameters, and a person's answer
//! made into that tool's arguments. Pure: the job's reads and the answer calls are the job
//! stage's.

use catalog::{JobInput, Tool};
use serde_json::{Map, Value, json};

use crate::tasks::Task;

/// The most questions a task holds at once.
const MAX_QUESTIONS: usize = 16;
/// The longest question key (it goes into the answer tool's path).
const MAX_KEY: usize = 64;
/// The most characters of a question's message.
const MAX_MESSAGE: usize = 1_000;

/// The open questions in the job's answer, `{key: message}`, bounded: at most
/// [`MAX_QUESTIONS`], keys of letters, digits, `-`, `_` and `.` up to [`MAX_KEY`] characters
/// (any other key is skipped: it would go into the answer's path), messages cut to
/// [`MAX_MESSAGE`] characters (empty where the question has none).
pub(crate) fn asked(input: &JobInput, data: &Value) -> Value {
    let Some(Value::Object(questions)) = data.pointer(&input.questions) else {
        return Value::Object(Map::new());
    };
    let open = questions
        .iter()
        .filter(|(key, _)| is_key(key))
        .take(MAX_QUESTIONS)
        .map(|(key, question)| {
            let message = input
                .message
                .as_ref()
                .and_then(|p| question.pointer(p))
                .and_then(Value::as_str)
                .map(|m| m.chars().take(MAX_MESSAGE).collect::<String>())
                .unwrap_or_default();
            (key.clone(), Value::String(message))
        })
        .collect();
    Value::Object(open)
}

fn is_key(key: &str) -> bool {
    (1..=MAX_KEY).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// One question as the person is asked it.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub key: String,
    /// What it asks, in the upstream's words (or ours, where it says nothing).
    pub message: String,
    /// The form: a flat JSON Schema of plain fields, as an elicitation requests it.
    pub form: Value,
}

/// The questions a waiting task holds, each with the form of `answer`.
pub(crate) fn questions(task: &Task, answer: &Tool, title: &str) -> Vec<Question> {
    let form = form(answer);
    let Some(asked) = task.asked.as_ref().and_then(Value::as_object) else {
        return Vec::new();
    };
    asked
        .iter()
        .map(|(key, message)| Question {
            key: key.clone(),
            message: match message.as_str() {
                Some(m) if !m.trim().is_empty() => m.to_string(),
                _ => format!("{title} job {} waits for your answer.", task.job_id),
            },
            form: form.clone(),
        })
        .collect()
}

/// The two parameters the answer tool's path takes: the job's id, then the question's key
/// (the loader checked there are two).
fn in_path(answer: &Tool) -> Option<(&str, &str)> {
    let (_, path) = answer.http()?;
    match catalog::placeholders(path)[..] {
        [id, key] => Some((id, key)),
        _ => None,
    }
}

/// The answer tool's parameters a person fills in (all but the two in its path), each under
/// its form field's name: the name it goes upstream as (`as`), else its own. The form speaks
/// the upstream's words, and its field names are never the platform's own parameters.
fn fields(answer: &Tool) -> impl Iterator<Item = (&str, &str, &catalog::Param)> {
    let path = in_path(answer);
    answer
        .params
        .iter()
        .filter(move |(n, _)| !path.is_some_and(|(id, key)| n.as_str() == id || n.as_str() == key))
        .map(|(name, p)| (p.upstream.as_deref().unwrap_or(name), name.as_str(), &**p))
}

/// The form of an answer: the fields a person fills in, with their labels, descriptions,
/// choices and bounds.
pub(crate) fn form(answer: &Tool) -> Value {
    crate::contract::schema::form(fields(answer).map(|(field, _, p)| (field, p)))
}

/// A person's accepted answer to question `key` as the answer tool's arguments: the job's id
/// and the key for its path, and of `content` only the fields the form asked for, each under
/// its parameter's name.
pub(crate) fn arguments(
    answer: &Tool,
    job_id: &str,
    key: &str,
    content: &Map<String, Value>,
) -> Option<Map<String, Value>> {
    let (id_param, key_param) = in_path(answer)?;
    let mut arguments: Map<String, Value> = fields(answer)
        .filter_map(|(field, param, _)| Some((param.to_string(), content.get(field)?.clone())))
        .collect();
    arguments.insert(id_param.to_string(), json!(job_id));
    arguments.insert(key_param.to_string(), json!(key));
    Some(arguments)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer_tool() -> Tool {
        let c = catalog::parse(
            "demo.yaml",
            r#"
connector: demo
base_url: "https://api.example.com"
tools:
  - name: demo_job_answer
    risk: medium
    effect: change
    description: 'Answers a question of a waiting job. Use it to "approve". Example {"id": "j", "key": "k", "approve": true}'
    post: /jobs/{id}/answers/{key}
    params:
      id: { type: string, in: path, required: true, max_length: 64 }
      key: { type: string, in: path, required: true, max_length: 64 }
      approve: { type: boolean, required: true, as: confirm, label: Go ahead, description: Whether the job goes on. }
      note: { type: string, max_length: 200 }
      copies: { type: integer, min: 1, max: 5 }
"#,
        )
        .unwrap();
        c.tools[0].clone()
    }

    fn input() -> JobInput {
        JobInput {
            questions: "/questions".into(),
            message: Some("/message".into()),
            answer: "demo_job_answer".into(),
        }
    }

    #[test]
    fn the_open_questions_are_kept_bounded_and_odd_keys_are_skipped() {
        let long = "x".repeat(5_000);
        let data = json!({"questions": {
            "confirm": {"message": "Delete a.txt?"},
            "bare": {},
            "../admin": {"message": "a key that would leave the path"},
            "long": {"message": long},
        }});
        let asked = asked(&input(), &data);
        assert_eq!(asked["confirm"], "Delete a.txt?");
        assert_eq!(asked["bare"], "");
        assert!(asked.get("../admin").is_none());
        assert_eq!(asked["long"].as_str().unwrap().len(), MAX_MESSAGE);
        let many: Map<String, Value> = (0..100).map(|i| (format!("q{i}"), json!({}))).collect();
        let asked_many = super::asked(&input(), &json!({"questions": many}));
        assert_eq!(asked_many.as_object().unwrap().len(), MAX_QUESTIONS);
        assert_eq!(
            super::asked(&input(), &json!({"questions": [1]})),
            json!({})
        );
    }

    #[test]
    fn a_question_is_asked_as_a_form_of_the_answer_tools_own_fields() {
        let form = form(&answer_tool());
        assert_eq!(
            form,
            json!({"type": "object", "properties": {
                "confirm": {"type": "boolean", "title": "Go ahead", "description": "Whether the job goes on."},
                "note": {"type": "string", "maxLength": 200},
                "copies": {"type": "integer", "minimum": 1, "maximum": 5},
            }, "required": ["confirm"]})
        );
        let task = Task {
            asked: Some(json!({"confirm": "Delete a.txt?", "other": ""})),
            ..crate::tasks::tests::working("t", "o", 0)
        };
        let q = questions(&task, &answer_tool(), "Demo");
        assert_eq!(q.len(), 2);
        assert_eq!(
            (q[0].key.as_str(), q[0].message.as_str()),
            ("confirm", "Delete a.txt?")
        );
        assert_eq!(q[1].message, "Demo job p1 waits for your answer.");
    }

    #[test]
    fn an_answer_sends_the_forms_fields_with_the_job_and_the_question_in_the_path() {
        let content = json!({"confirm": true, "approve": false, "id": "someone-elses-job", "key": "x", "extra": 1});
        let args = arguments(
            &answer_tool(),
            "j1",
            "confirm",
            content.as_object().unwrap(),
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"approve": true, "id": "j1", "key": "confirm"}),
            "the path is ours, the form's field goes in as its param, and what the form did not ask for is not sent"
        );
    }
}
