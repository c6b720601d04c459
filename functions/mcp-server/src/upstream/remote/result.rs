//! A remote's `tools/call` or `prompts/get` answer in our terms: a [`Reply`] with the result's data, or the typed
//! error its failure is. Pure.

use serde_json::{Map, Value};

use super::wire::RpcAnswer;
use crate::upstream::Reply;
use crate::upstream::error::{RemoteInput, UpstreamError};

/// A `tools/call` answer as a reply: `structuredContent`, else the text content joined (parsed
/// when it is a JSON object); `isError`, JSON-RPC errors and `input_required` as typed errors.
pub(super) fn call_result(
    redactor: &audit::Redactor,
    answer: RpcAnswer,
) -> Result<Reply, UpstreamError> {
    let result = match answer {
        RpcAnswer::Error {
            code,
            message,
            data,
        } => return Err(remote_error(redactor, code, &message, &data)),
        RpcAnswer::Result(r) => r,
    };
    if let Some(asked) = input_required(&result) {
        return Err(asked);
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

/// A `prompts/get` answer: the result as it came, or the typed error its failure or its
/// `input_required` is.
pub(super) fn prompt_result(
    redactor: &audit::Redactor,
    answer: RpcAnswer,
) -> Result<Map<String, Value>, UpstreamError> {
    match answer {
        RpcAnswer::Error {
            code,
            message,
            data,
        } => Err(remote_error(redactor, code, &message, &data)),
        RpcAnswer::Result(mut r) => match input_required(&r) {
            Some(asked) => Err(asked),
            None => {
                // The remote's description, cut like the one it lists (its messages are the
                // prompt itself).
                if let Some(Value::String(d)) = r.get_mut("description") {
                    *d = super::text::cut(d, super::prompts::MAX_DESCRIPTION);
                }
                Ok(r)
            }
        },
    }
}

/// An `input_required` result as the typed error that carries its questions and state.
fn input_required(result: &Map<String, Value>) -> Option<UpstreamError> {
    (result.get("resultType").and_then(Value::as_str) == Some("input_required")).then(|| {
        UpstreamError::RemoteInputRequired(Box::new(RemoteInput {
            requests: result.get("inputRequests").cloned().unwrap_or(Value::Null),
            state: result
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_string),
        }))
    })
}

/// A remote's JSON-RPC error as a typed one: `-32021` (its tool needs a client capability our
/// client did not declare) with the capabilities it names among those we pass on
/// (`elicitation`, `sampling`, `roots`), any other as [`UpstreamError::RemoteError`].
pub(super) fn remote_error(
    redactor: &audit::Redactor,
    code: i64,
    message: &str,
    data: &Value,
) -> UpstreamError {
    if code == MISSING_REQUIRED_CLIENT_CAPABILITY {
        let required: Map<String, Value> = ["elicitation", "sampling", "roots"]
            .into_iter()
            .filter_map(|k| {
                let v = data.get("requiredCapabilities")?.get(k)?;
                v.is_object().then(|| (k.to_string(), v.clone()))
            })
            .collect();
        if !required.is_empty() {
            return UpstreamError::RemoteNeedsCapability { required };
        }
    }
    UpstreamError::RemoteError {
        code,
        message: one_line(redactor, message),
    }
}

/// JSON-RPC error code: the request needs a client capability the client did not declare.
const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

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
            RpcAnswer::Result(v.as_object().cloned().unwrap()),
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
    fn a_prompt_answer_comes_back_as_it_came_or_as_the_typed_error_it_is() {
        let redactor = audit::Redactor::new();
        let got =
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}]});
        assert_eq!(
            prompt_result(
                &redactor,
                RpcAnswer::Result(got.as_object().cloned().unwrap())
            )
            .unwrap(),
            got.as_object().cloned().unwrap()
        );
        let wordy = json!({"description": "d".repeat(60_000), "messages": []});
        let got = prompt_result(
            &redactor,
            RpcAnswer::Result(wordy.as_object().cloned().unwrap()),
        );
        let d = got.unwrap()["description"].as_str().unwrap().to_string();
        assert_eq!(
            d.chars().count(),
            super::super::prompts::MAX_DESCRIPTION + 1
        );
        let asked = json!({"resultType": "input_required", "inputRequests": {"k": {}}});
        assert_eq!(
            prompt_result(
                &redactor,
                RpcAnswer::Result(asked.as_object().cloned().unwrap())
            )
            .unwrap_err(),
            UpstreamError::RemoteInputRequired(Box::new(RemoteInput {
                requests: json!({"k": {}}),
                state: None,
            }))
        );
        let refused = RpcAnswer::Error {
            code: -32602,
            message: "missing\n week".into(),
            data: Value::Null,
        };
        assert_eq!(
            prompt_result(&redactor, refused).unwrap_err(),
            UpstreamError::RemoteError {
                code: -32602,
                message: Some("missing week".into())
            }
        );
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
            RpcAnswer::Error {
                code: -32602,
                message: "bad".into(),
                data: Value::Null,
            },
        );
        assert!(matches!(
            e,
            Err(UpstreamError::RemoteError { code: -32602, .. })
        ));
        // -32021 names what the client must declare; only the capabilities we pass on count.
        let needs = |data: Value| {
            call_result(
                &audit::Redactor::new(),
                RpcAnswer::Error {
                    code: -32021,
                    message: "needs sampling".into(),
                    data,
                },
            )
            .unwrap_err()
        };
        assert_eq!(
            needs(json!({"requiredCapabilities": {"sampling": {}, "extensions": {"x": {}}}})),
            UpstreamError::RemoteNeedsCapability {
                required: json!({"sampling": {}}).as_object().unwrap().clone()
            }
        );
        assert!(matches!(
            needs(json!({"requiredCapabilities": {"extensions": {"x": {}}}})),
            UpstreamError::RemoteError { code: -32021, .. }
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
