//! Who a conversation is with, and the index of conversations a list reads: pure. A body's
//! `inbound.names` entries give display names (Meta: `value.contacts[].profile.name` beside
//! the messages); each conversation a customer wrote in gets one index entry per body, under
//! the connector's index partition, with the time of its newest message there. A list reads
//! the index newest first; names are compared folded (case and accents aside).

use std::collections::BTreeMap;

use catalog::{Inbound, InboundKind};
use serde_json::{Value, json};
use unicode_normalization::UnicodeNormalization;

use super::events::select;
use super::{Found, InboundRecord, InboundSlot, proof};

/// The longest name kept, characters.
const MAX_NAME_CHARS: usize = 128;

/// The conversations `body` names, each with its display name (the last one given wins).
pub(crate) fn named(inbound: &Inbound, body: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for names in &inbound.names {
        for entry in select(body, &names.at) {
            let text = |p: &str| entry.pointer(p).and_then(scalar);
            if let (Some(who), Some(name)) = (text(&names.conversation), text(&names.name)) {
                out.insert(who, name.chars().take(MAX_NAME_CHARS).collect());
            }
        }
    }
    out
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() && s.len() <= 1024 => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The index partition of a connector: never a conversation's (those end in hex digits).
pub(crate) fn index_key(connector: &str) -> String {
    format!("{connector}#conversations")
}

/// One index entry per conversation a customer wrote in within `events`: its newest message's
/// time and the name `names` gives it. Its slot is the same for every delivery of the body.
pub(crate) fn index_entries(
    (connector, secret): (&str, &str),
    events: &[Found<'_>],
    names: &BTreeMap<String, String>,
) -> Vec<(InboundSlot, InboundRecord)> {
    let mut newest: BTreeMap<&str, u64> = BTreeMap::new();
    for e in events.iter().filter(|e| e.kind == InboundKind::Message) {
        let at = newest.entry(e.conversation.as_str()).or_default();
        *at = (*at).max(e.at);
    }
    newest
        .into_iter()
        .map(|(who, at)| {
            let slot = InboundSlot {
                conversation: index_key(connector),
                event: format!("{at:012}#{}", proof::keyed(secret, "conversation", who, 16)),
            };
            let record = InboundRecord {
                kind: InboundKind::Message,
                at,
                event: json!({"conversation": who, "name": names.get(who)}),
            };
            (slot, record)
        })
        .collect()
}

/// Lower case without accents (`Jörg Müller` → `jorg muller`); with `umlauts`, ä ö ü become
/// ae oe ue first, as German writes them without the dots (`mueller`).
pub(crate) fn fold(text: &str, umlauts: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        match c {
            'ä' if umlauts => out.push_str("ae"),
            'ö' if umlauts => out.push_str("oe"),
            'ü' if umlauts => out.push_str("ue"),
            'ß' => out.push_str("ss"),
            _ => out.extend(
                std::iter::once(c)
                    .nfd()
                    .filter(|c| !unicode_normalization::char::is_combining_mark(*c)),
            ),
        }
    }
    out
}

/// Whether `name` contains `query`, case and accents aside: `muller`, `Müller` and `mueller`
/// all find `Jörg Müller`.
pub(crate) fn name_matches(name: &str, query: &str) -> bool {
    let query = fold(query.trim(), false);
    query.is_empty() || fold(name, false).contains(&query) || fold(name, true).contains(&query)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> Inbound {
        serde_json::from_value(json!({
            "verify_token": "v", "signing_secret": "s",
            "events": [{"at": "/entry/*/changes/*/value/messages", "kind": "message",
                        "id": ["/id"], "conversation": "/from", "timestamp": "/timestamp"}],
            "names": [{"at": "/entry/*/changes/*/value/contacts", "conversation": "/wa_id",
                       "name": "/profile/name"}]
        }))
        .unwrap()
    }

    #[test]
    fn names_come_from_the_contacts_beside_the_messages() {
        let body = json!({"entry": [{"changes": [{"value": {
            "contacts": [{"profile": {"name": " Jörg Müller "}, "wa_id": "4917"},
                         {"profile": {}, "wa_id": "4918"}],
            "messages": [{"id": "a", "from": "4917", "timestamp": "10"}]
        }}]}]});
        let names = named(&meta(), &body);
        assert_eq!(names.len(), 1);
        assert_eq!(names["4917"], "Jörg Müller");
    }

    #[test]
    fn one_index_entry_per_writing_conversation_at_its_newest_message() {
        let body = json!({"entry": [{"changes": [{"value": {"messages": [
            {"id": "a", "from": "4917", "timestamp": "10"},
            {"id": "b", "from": "4917", "timestamp": "30"},
            {"id": "c", "from": "4918", "timestamp": "20"}
        ]}}]}]});
        let inbound = meta();
        let events = super::super::found(&inbound, &body).unwrap();
        let names = BTreeMap::from([("4917".to_string(), "Jörg Müller".to_string())]);
        let entries = index_entries(("chat", "s"), &events, &names);
        assert_eq!(entries.len(), 2);
        let (slot, record) = &entries[0];
        assert_eq!(slot.conversation, "chat#conversations");
        assert!(slot.event.starts_with("000000000030#"), "{}", slot.event);
        assert!(!slot.event.contains("4917"));
        assert_eq!(
            record.event,
            json!({"conversation": "4917", "name": "Jörg Müller"})
        );
        assert_eq!(entries[1].1.event["name"], Value::Null);
        let again = index_entries(("chat", "s"), &events, &names);
        assert_eq!(entries, again, "a retried body lands in the same slots");
    }

    #[test]
    fn names_match_whatever_the_case_and_accents() {
        for query in [
            "muller", "Müller", "MÜLLER", "mueller", "jorg", "Jörg M", "",
        ] {
            assert!(name_matches("Jörg Müller", query), "{query}");
        }
        assert!(name_matches("François Lefèvre", "francois"));
        assert!(name_matches("Strauß", "strauss"));
        assert!(!name_matches("Jörg Müller", "meier"));
        assert!(!name_matches("Anna", "anna b"));
    }
}
