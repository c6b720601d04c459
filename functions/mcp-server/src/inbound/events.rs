//! The events in a webhook body, as the catalog's `inbound.events` says where they are: pure,
//! over the parsed JSON. An event missing an id, a conversation or a time makes the body
//! malformed (refused whole, so the upstream retries rather than loses it); a pointer that
//! finds no array is no events of that kind (Meta sends messages and statuses apart).

use catalog::{Inbound, InboundEvents, InboundKind};
use serde_json::Value;

/// One event as found: what identifies it, its conversation, when it happened, and itself.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found<'a> {
    pub(crate) kind: InboundKind,
    /// The values of the catalog's `id` pointers, joined with `\n`.
    pub(crate) id: String,
    pub(crate) conversation: String,
    /// Unix seconds.
    pub(crate) at: u64,
    pub(crate) event: &'a Value,
}

/// Why a body is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Malformed {
    #[error("an event has no `{0}`")]
    Missing(&'static str),
    #[error("more than {MAX_EVENTS} events in one body")]
    TooMany,
}

/// The most events one body may carry: bounded work per request.
pub(crate) const MAX_EVENTS: usize = 1000;

/// Every event of `body`, in the catalog's order of kinds and the body's order within them.
pub(crate) fn found<'a>(inbound: &Inbound, body: &'a Value) -> Result<Vec<Found<'a>>, Malformed> {
    let mut out = Vec::new();
    for kind in &inbound.events {
        for event in select(body, &kind.at) {
            out.push(one(kind, event)?);
            if out.len() > MAX_EVENTS {
                return Err(Malformed::TooMany);
            }
        }
    }
    Ok(out)
}

fn one<'a>(kind: &InboundEvents, event: &'a Value) -> Result<Found<'a>, Malformed> {
    let ids = kind
        .id
        .iter()
        .map(|p| scalar(event.pointer(p)).ok_or(Malformed::Missing("id")))
        .collect::<Result<Vec<_>, _>>()?;
    let conversation =
        scalar(event.pointer(&kind.conversation)).ok_or(Malformed::Missing("conversation"))?;
    let at = scalar(event.pointer(&kind.timestamp))
        .and_then(|t| t.parse::<u64>().ok())
        .ok_or(Malformed::Missing("timestamp"))?;
    Ok(Found {
        kind: kind.kind,
        id: ids.join("\n"),
        conversation,
        at,
        event,
    })
}

/// A non-empty string or a number, as text.
fn scalar(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) if !s.is_empty() && s.len() <= 256 => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The elements of the arrays `pattern` finds: a JSON pointer whose `*` segments stand for
/// every element of an array there.
pub(crate) fn select<'a>(body: &'a Value, pattern: &str) -> Vec<&'a Value> {
    let mut nodes = vec![body];
    for segment in pattern.split('/').skip(1) {
        nodes = nodes
            .into_iter()
            .flat_map(|node| -> Vec<&'a Value> {
                match (segment, node) {
                    ("*", Value::Array(items)) => items.iter().collect(),
                    (key, _) => node.pointer(&format!("/{key}")).into_iter().collect(),
                }
            })
            .collect();
    }
    nodes
        .into_iter()
        .flat_map(|n| n.as_array().map(|a| a.iter()).into_iter().flatten())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Inbound {
        serde_json::from_value(json!({
            "verify_token": "v", "signing_secret": "s",
            "events": [
                {"at": "/entry/*/changes/*/value/messages", "kind": "message",
                 "id": ["/id"], "conversation": "/from", "timestamp": "/timestamp"},
                {"at": "/entry/*/changes/*/value/statuses", "kind": "status",
                 "id": ["/id", "/status"], "conversation": "/recipient_id", "timestamp": "/timestamp"}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn messages_and_statuses_are_found_across_entries_and_changes() {
        let body = json!({"entry": [
            {"changes": [{"value": {"messages": [
                {"id": "wamid.1", "from": "4917", "timestamp": "1700000000", "text": {"body": "Ja"}}
            ]}}]},
            {"changes": [{"value": {"statuses": [
                {"id": "wamid.0", "status": "read", "recipient_id": "4917", "timestamp": 1700000001}
            ]}}, {"value": {}}]}
        ]});
        let inbound = meta();
        let found = found(&inbound, &body).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].kind, InboundKind::Message);
        assert_eq!(
            (found[0].id.as_str(), found[0].at),
            ("wamid.1", 1_700_000_000)
        );
        assert_eq!(found[1].id, "wamid.0\nread");
        assert_eq!(found[1].conversation, "4917");
    }

    #[test]
    fn an_event_without_its_facts_refuses_the_body() {
        let body = json!({"entry": [{"changes": [{"value": {"messages": [
            {"id": "wamid.1", "from": "4917", "timestamp": "soon"}
        ]}}]}]});
        assert_eq!(found(&meta(), &body), Err(Malformed::Missing("timestamp")));
        let body = json!({"entry": [{"changes": [{"value": {"messages": [{"from": "4917"}]}}]}]});
        assert_eq!(found(&meta(), &body), Err(Malformed::Missing("id")));
        assert!(
            found(&meta(), &json!({"object": "page"}))
                .unwrap()
                .is_empty()
        );
    }
}
