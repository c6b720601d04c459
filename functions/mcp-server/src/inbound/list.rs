//! Reading the conversations back: who wrote, newest first, under which name, and whether the
//! reply window is still open. The index holds one entry per body and conversation, so a read
//! looks at the newest [`MAX_CONVERSATIONS_READ`] entries, keeps each conversation's newest
//! (its name from an older entry when the newest has none) and stops at the tool's `limit`.
//! A number far busier than that reads the conversations within those entries only.

use std::collections::BTreeMap;

use catalog::{Inbound, MAX_CONVERSATIONS_READ};
use serde_json::{Value, json};

use super::names::{index_key, name_matches};
use super::{InboundError, InboundRecord, InboundStore, rfc3339};

/// One conversation as a list answers it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Listed {
    pub(crate) conversation: String,
    pub(crate) name: Option<String>,
    /// When the customer last wrote, Unix seconds.
    pub(crate) last_message_at: u64,
}

/// The conversations of `connector`, newest first, at most `limit`, those whose name contains
/// `name` when one is given.
pub(crate) async fn list(
    store: &dyn InboundStore,
    connector: &str,
    name: Option<&str>,
    limit: usize,
    now: u64,
) -> Result<Vec<Listed>, InboundError> {
    let entries = store
        .recent(&index_key(connector), MAX_CONVERSATIONS_READ, now)
        .await?;
    Ok(listing(entries, name, limit))
}

/// Pure: each conversation once at its newest entry, filtered by name, newest first.
pub(crate) fn listing(
    mut entries: Vec<InboundRecord>,
    name: Option<&str>,
    limit: usize,
) -> Vec<Listed> {
    entries.sort_by_key(|r| std::cmp::Reverse(r.at));
    let mut order: Vec<Listed> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for entry in &entries {
        let text = |k: &str| {
            entry
                .event
                .get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let Some(conversation) = text("conversation") else {
            continue;
        };
        match seen.get(&conversation) {
            Some(&i) => {
                let older = &mut order[i];
                older.name = older.name.take().or_else(|| text("name"));
            }
            None => {
                seen.insert(conversation.clone(), order.len());
                order.push(Listed {
                    conversation,
                    name: text("name"),
                    last_message_at: entry.at,
                });
            }
        }
    }
    order
        .into_iter()
        .filter(|l| name.is_none_or(|q| l.name.as_deref().is_some_and(|n| name_matches(n, q))))
        .take(limit)
        .collect()
}

/// The tool's answer: each conversation with its name (the customer's own profile name:
/// untrusted), number, last message time and, with a reply window, whether it is open.
pub(crate) fn to_json(listed: &[Listed], inbound: &Inbound, now: u64) -> Value {
    let conversations: Vec<Value> = listed
        .iter()
        .map(|l| {
            let mut out = json!({
                "name": l.name,
                "conversation": l.conversation,
                "last_message_at": rfc3339(l.last_message_at),
            });
            if let Some(h) = inbound.reply_window_h {
                let until = l.last_message_at + u64::from(h) * 3600;
                out["reply_window"] = json!({"open": now < until, "closes_at": rfc3339(until)});
            }
            out
        })
        .collect();
    json!({"conversations": conversations, "count": listed.len()})
}

#[cfg(test)]
mod tests {
    use super::*;
    use catalog::InboundKind;

    fn entry(at: u64, who: &str, name: Option<&str>) -> InboundRecord {
        InboundRecord {
            kind: InboundKind::Message,
            at,
            event: json!({"conversation": who, "name": name}),
        }
    }

    #[test]
    fn each_conversation_once_newest_first_with_the_newest_name_known() {
        let entries = vec![
            entry(10, "4917", Some("Jörg Müller")),
            entry(40, "4918", Some("Anna Berg")),
            entry(30, "4917", None),
            entry(20, "4919", None),
        ];
        let listed = listing(entries.clone(), None, 10);
        let who: Vec<_> = listed.iter().map(|l| l.conversation.as_str()).collect();
        assert_eq!(who, ["4918", "4917", "4919"]);
        assert_eq!(listed[1].name.as_deref(), Some("Jörg Müller"));
        assert_eq!(listed[1].last_message_at, 30);
        assert_eq!(listing(entries.clone(), None, 2).len(), 2);
        let muller = listing(entries.clone(), Some("muller"), 10);
        assert_eq!(muller.len(), 1);
        assert_eq!(muller[0].conversation, "4917");
        assert!(listing(entries, Some("meier"), 10).is_empty());
    }

    #[test]
    fn the_answer_says_whether_each_window_is_open() {
        let inbound: Inbound = serde_json::from_value(json!({
            "verify_token": "v", "signing_secret": "s", "reply_window_h": 24,
            "events": [{"at": "/m", "kind": "message", "id": ["/id"], "conversation": "/from", "timestamp": "/t"}]
        }))
        .unwrap();
        let listed = listing(
            vec![
                entry(0, "4917", Some("Jörg Müller")),
                entry(90_000, "4918", None),
            ],
            None,
            10,
        );
        let answer = to_json(&listed, &inbound, 86_400);
        assert_eq!(answer["count"], 2);
        let first = &answer["conversations"][0];
        assert_eq!(first["conversation"], "4918");
        assert_eq!(first["reply_window"]["open"], true);
        assert_eq!(answer["conversations"][1]["reply_window"]["open"], false);
        assert_eq!(answer["conversations"][1]["name"], "Jörg Müller");
    }
}
