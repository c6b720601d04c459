//! A remote prompt argument's completion: one `completion/complete` to the remote under its own
//! prompt name, as the deployment, within the deadline, and its answer read bounded: at most
//! [`MAX_VALUES`] values of at most [`MAX_VALUE_CHARS`] characters, with `total` and `hasMore`
//! kept honest about what was left out.

use serde_json::{Map, Value, json};

use super::Forwarded;
use super::result::remote_error;
use super::wire::RpcAnswer;
use crate::inventory::DeployedCatalog;
use crate::upstream::Upstream;
use crate::upstream::deadline::Deadline;
use crate::upstream::error::UpstreamError;

/// The most values a completion offers (the MCP limit).
const MAX_VALUES: usize = 100;
/// The longest value kept; a longer one is left out (and counted in `has_more`).
const MAX_VALUE_CHARS: usize = 500;

/// What the remote offered, bounded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RemoteCompletion {
    pub values: Vec<String>,
    /// How many values match in all: the remote's `total` when it gave one no smaller than
    /// what it sent, else what it sent.
    pub total: usize,
    /// More match than are offered: the remote said so, or values were left out here.
    pub has_more: bool,
}

impl Upstream {
    /// `completion/complete` of argument `name` (typed so far: `value`) of the remote's prompt
    /// `remote_name`, with the arguments already filled in (`context`).
    pub async fn remote_complete(
        &self,
        conn: &DeployedCatalog,
        remote_name: &str,
        (name, value): (&str, &str),
        context: &Map<String, Value>,
        deadline: &Deadline,
    ) -> Result<RemoteCompletion, UpstreamError> {
        let exchanged = self
            .deployment_request(
                conn,
                Forwarded {
                    method: "completion/complete",
                    name: None,
                    param_headers: &[],
                },
                |_| params(remote_name, (name, value), context),
                deadline,
            )
            .await?;
        match exchanged.answer {
            RpcAnswer::Error {
                code,
                message,
                data,
            } => Err(remote_error(&self.redactor, code, &message, &data)),
            RpcAnswer::Result(r) => completion(&r).ok_or(UpstreamError::RemoteError {
                code: -32603,
                message: Some("the remote's answer is no completion".into()),
            }),
        }
    }
}

/// The request's params: the prompt by the remote's name, the argument, and the context only
/// when there is one.
fn params(
    remote_name: &str,
    (name, value): (&str, &str),
    context: &Map<String, Value>,
) -> Map<String, Value> {
    let mut params = json!({
        "ref": {"type": "ref/prompt", "name": remote_name},
        "argument": {"name": name, "value": value},
    });
    if !context.is_empty() {
        params["context"] = json!({ "arguments": context });
    }
    params.as_object().cloned().unwrap_or_default()
}

/// A `CompleteResult` read bounded; `None` when it is none.
fn completion(result: &Map<String, Value>) -> Option<RemoteCompletion> {
    let c = result.get("completion")?.as_object()?;
    let sent = c.get("values")?.as_array()?;
    let kept: Vec<String> = sent
        .iter()
        .filter_map(Value::as_str)
        .filter(|v| v.chars().count() <= MAX_VALUE_CHARS)
        .take(MAX_VALUES)
        .map(str::to_string)
        .collect();
    let total = c
        .get("total")
        .and_then(Value::as_u64)
        .map_or(sent.len(), |t| usize::try_from(t).unwrap_or(usize::MAX))
        .max(sent.len());
    let has_more = c.get("hasMore").and_then(Value::as_bool) == Some(true) || kept.len() < total;
    Some(RemoteCompletion {
        values: kept,
        total,
        has_more,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(v: Value) -> Option<RemoteCompletion> {
        completion(v.as_object()?)
    }

    #[test]
    fn the_remote_answer_is_kept_as_it_came_when_within_bounds() {
        let got = read(
            json!({"completion": {"values": ["2026-W48", "2026-W49"], "total": 7, "hasMore": true}}),
        );
        assert_eq!(
            got,
            Some(RemoteCompletion {
                values: vec!["2026-W48".into(), "2026-W49".into()],
                total: 7,
                has_more: true
            })
        );
        let plain = read(json!({"completion": {"values": ["a"]}})).unwrap();
        assert_eq!((plain.total, plain.has_more), (1, false));
    }

    #[test]
    fn more_than_a_hundred_or_overlong_values_are_cut_and_said_to_be_more() {
        let many: Vec<String> = (0..250).map(|i| format!("v{i}")).collect();
        let got =
            read(json!({"completion": {"values": many, "total": 3, "hasMore": false}})).unwrap();
        assert_eq!(got.values.len(), MAX_VALUES);
        assert_eq!(got.values[0], "v0");
        assert_eq!(
            got.total, 250,
            "a total smaller than what was sent is not kept"
        );
        assert!(got.has_more);
        let long = "x".repeat(MAX_VALUE_CHARS + 1);
        let got = read(json!({"completion": {"values": ["ok", long, 7]}})).unwrap();
        assert_eq!(
            (got.values, got.total, got.has_more),
            (vec!["ok".to_string()], 3, true)
        );
    }

    #[test]
    fn an_answer_without_a_completion_is_none() {
        assert_eq!(read(json!({"values": []})), None);
        assert_eq!(read(json!({"completion": {"values": "a"}})), None);
    }

    #[test]
    fn the_request_names_the_remote_prompt_and_sends_context_only_when_given() {
        let p = params("weekly_review", ("week", "2026-W"), &Map::new());
        assert_eq!(
            Value::Object(p),
            json!({"ref": {"type": "ref/prompt", "name": "weekly_review"},
                   "argument": {"name": "week", "value": "2026-W"}})
        );
        let ctx = json!({"tone": "brief"}).as_object().cloned().unwrap();
        let p = params("weekly_review", ("week", ""), &ctx);
        assert_eq!(p["context"], json!({"arguments": {"tone": "brief"}}));
    }
}
