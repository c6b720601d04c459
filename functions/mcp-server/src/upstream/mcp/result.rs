//! A remote's `tools/call` answer in our terms: a [`Reply`] with the result's data, or the typed
//! error its failure is. Pure.

use serde_json::Value;

use super::wire::Answer;
use crate::upstream::Reply;
use crate::upstream::error::{RemoteInput, UpstreamError};

/// A `tools/call` answer as a reply: `structuredContent`, else the text content joined (parsed
/// when it is a JSON object); `isError`, JSON-RPC errors and `input_required` as typed errors.
pub(super) fn call_result(
    redactor: &audit::Redactor,
    answer: Answer,
) -> Result<Reply, UpstreamError> {
    let result = match answer {
        Answer::Error { code, message } => {
            return Err(UpstreamError::RemoteError {
                code,
                message: one_line(redactor, &message),
            });
        }
        Answer::Result(r) => r,
    };
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Err(UpstreamError::RemoteInputRequired(Box::new(RemoteInput {
            requests: result.get("inputRequests").cloned().unwrap_or(Value::Null),
            state: result
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_string),
        })));
    }
    let text: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    let text = text.join("\n");
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(UpstreamError::RemoteToolFailed {
            message: one_line(redactor, &text),
        });
    }
    let body = match result.get("structuredContent") {
        Some(s @ Value::Object(_)) => s.clone(),
        _ => serde_json::from_str::<Value>(&text)
            .ok()
            .filter(Value::is_object)
            .unwrap_or(Value::String(text)),
    };
    Ok(Reply {
        http_status: 200,
        body,
        quota: None,
        document: None,
        next: None,
    })
}

/// A remote's words for `upstream_message`: one line, bounded, redacted.
pub(super) fn one_line(redactor: &audit::Redactor, text: &str) -> Option<String> {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!line.is_empty()).then(|| audit::bounded(&redactor.redact(&line), 500))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(v: Value) -> Result<Reply, UpstreamError> {
        call_result(
            &audit::Redactor::new(),
            Answer::Result(v.as_object().cloned().unwrap()),
        )
    }

    #[test]
    fn structured_content_or_json_text_becomes_the_data() {
        let r = result(json!({"structuredContent": {"a": 1}, "content": []})).unwrap();
        assert_eq!(r.body, json!({"a": 1}));
        let r = result(json!({"content": [{"type": "text", "text": "{\"b\": 2}"}]})).unwrap();
        assert_eq!(r.body, json!({"b": 2}));
        let r = result(json!({"content": [{"type": "text", "text": "plain"}]})).unwrap();
        assert_eq!(r.body, json!("plain"));
    }

    #[test]
    fn failures_become_typed_errors_with_the_remotes_words_on_one_line() {
        let e =
            result(json!({"isError": true, "content": [{"type": "text", "text": "db\n  locked"}]}));
        assert_eq!(
            e.unwrap_err(),
            UpstreamError::RemoteToolFailed {
                message: Some("db locked".into())
            }
        );
        let e = call_result(
            &audit::Redactor::new(),
            Answer::Error {
                code: -32602,
                message: "bad".into(),
            },
        );
        assert!(matches!(
            e,
            Err(UpstreamError::RemoteError { code: -32602, .. })
        ));
        let e = result(
            json!({"resultType": "input_required", "inputRequests": {"k": {}},
                              "requestState": "s"}),
        );
        assert_eq!(
            e.unwrap_err(),
            UpstreamError::RemoteInputRequired(Box::new(RemoteInput {
                requests: json!({"k": {}}),
                state: Some("s".into()),
            }))
        );
    }
}
