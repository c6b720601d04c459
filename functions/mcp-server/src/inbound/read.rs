//! Reading a conversation back: its newest events and whether the reply window is open (the
//! customer's last message less than `reply_window_h` ago). The answer is plain data; the
//! window is decided from the newest [`MAX_INBOUND_READ`] events, so a conversation with more
//! of our statuses than that since the customer last wrote reads as closed (the safe side:
//! a template then, not a free-form text).

use catalog::{Inbound, InboundKind, InboundRead, MAX_INBOUND_READ};
use serde_json::{Value, json};

use super::{InboundError, InboundRecord, InboundStore, conversation_key};

/// One conversation as a read answers it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Conversation {
    /// Newest first, at most the tool's `limit`.
    pub(crate) events: Vec<InboundRecord>,
    /// When the customer last wrote, among the events read.
    pub(crate) last_message_at: Option<u64>,
    /// With a `reply_window_h`: until when a free-form reply is allowed, and whether that is
    /// still ahead of `now`.
    pub(crate) window: Option<(bool, u64)>,
}

/// The conversation `who` of `connector`, its key digested under the signing `secret`.
pub(crate) async fn read(
    store: &dyn InboundStore,
    (connector, secret): (&str, &str),
    inbound: &Inbound,
    tool: &InboundRead,
    who: &str,
    now: u64,
) -> Result<Conversation, InboundError> {
    let key = conversation_key(connector, secret, who);
    let records = store
        .recent(&key, tool.limit.max(MAX_INBOUND_READ), now)
        .await?;
    Ok(conversation(
        records,
        inbound.reply_window_h,
        tool.limit,
        now,
    ))
}

/// Pure: the events kept (the newest `limit`) and the window from the customer's last message.
pub(crate) fn conversation(
    mut records: Vec<InboundRecord>,
    reply_window_h: Option<u32>,
    limit: usize,
    now: u64,
) -> Conversation {
    // A store's order is its keys'; events of one second keep theirs.
    records.sort_by_key(|r| std::cmp::Reverse(r.at));
    let last_message_at = records
        .iter()
        .find(|r| r.kind == InboundKind::Message)
        .map(|r| r.at);
    let window = reply_window_h.map(|h| {
        let until = last_message_at.map_or(0, |at| at + u64::from(h) * 3600);
        (now < until, until)
    });
    records.truncate(limit);
    Conversation {
        events: records,
        last_message_at,
        window,
    }
}

impl Conversation {
    /// The tool's answer: the events as the upstream sent them (customer text: untrusted),
    /// with their kind and time, and the window.
    pub(crate) fn to_json(&self) -> Value {
        let events: Vec<Value> = self
            .events
            .iter()
            .map(|r| json!({"kind": r.kind.as_str(), "at": rfc3339(r.at), "event": r.event}))
            .collect();
        let mut out = json!({
            "events": events,
            "last_message_at": self.last_message_at.map(rfc3339),
        });
        if let Some((open, until)) = self.window {
            out["reply_window"] = json!({
                "open": open,
                "closes_at": (until > 0).then(|| rfc3339(until)),
            });
        }
        out
    }
}

pub(crate) fn rfc3339(at: u64) -> String {
    jiff::Timestamp::from_second(i64::try_from(at).unwrap_or(i64::MAX))
        .map(|t| t.to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: InboundKind, at: u64) -> InboundRecord {
        InboundRecord {
            kind,
            at,
            event: json!({"at": at}),
        }
    }

    #[test]
    fn the_window_is_open_for_a_day_after_the_customers_last_message() {
        let records = vec![
            record(InboundKind::Message, 1_000),
            record(InboundKind::Status, 5_000),
            record(InboundKind::Message, 2_000),
        ];
        let open = conversation(records.clone(), Some(24), 2, 2_000 + 86_399);
        assert_eq!(open.window, Some((true, 2_000 + 86_400)));
        assert_eq!(open.last_message_at, Some(2_000));
        assert_eq!(
            open.events.iter().map(|r| r.at).collect::<Vec<_>>(),
            [5_000, 2_000]
        );
        let closed = conversation(records, Some(24), 20, 2_000 + 86_400);
        assert_eq!(closed.window, Some((false, 2_000 + 86_400)));
        assert_eq!(closed.to_json()["reply_window"]["open"], false);
    }

    #[test]
    fn without_a_message_the_window_is_closed_and_without_a_window_none_is_said() {
        let statuses = vec![record(InboundKind::Status, 10)];
        let c = conversation(statuses.clone(), Some(24), 20, 20);
        assert_eq!(c.window, Some((false, 0)));
        assert_eq!(
            c.to_json()["reply_window"],
            json!({"open": false, "closes_at": null})
        );
        let c = conversation(statuses, None, 20, 20);
        assert!(c.to_json().get("reply_window").is_none());
        assert_eq!(c.to_json()["events"][0]["at"], "1970-01-01T00:00:10Z");
    }
}
