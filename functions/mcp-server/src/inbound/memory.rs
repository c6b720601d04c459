//! Inbound events in memory, per process: the store of `serve` (events last as long as the
//! process) and of the tests. Bounded: past [`MAX_EVENTS`] the expired go, then the oldest.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::{InboundFuture, InboundRecord, InboundSlot, InboundStore};

/// The most events one process keeps.
const MAX_EVENTS: usize = 10_000;

#[derive(Default)]
pub(crate) struct MemoryInbound {
    events: Mutex<BTreeMap<InboundSlot, (InboundRecord, u64)>>,
}

impl InboundStore for MemoryInbound {
    fn add<'a>(
        &'a self,
        slot: &'a InboundSlot,
        record: &'a InboundRecord,
        expires_at: u64,
    ) -> InboundFuture<'a, bool> {
        let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        if events.contains_key(slot) {
            return Box::pin(std::future::ready(Ok(false)));
        }
        if events.len() >= MAX_EVENTS {
            let now = crate::clock::now_s();
            events.retain(|_, (_, until)| *until > now);
            if events.len() >= MAX_EVENTS {
                events.pop_first();
            }
        }
        events.insert(slot.clone(), (record.clone(), expires_at));
        Box::pin(std::future::ready(Ok(true)))
    }

    fn recent<'a>(
        &'a self,
        conversation: &'a str,
        limit: usize,
        now: u64,
    ) -> InboundFuture<'a, Vec<InboundRecord>> {
        let events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        let found = events
            .iter()
            .rev()
            .filter(|(slot, (_, until))| slot.conversation == conversation && *until > now)
            .take(limit)
            .map(|(_, (record, _))| record.clone())
            .collect();
        Box::pin(std::future::ready(Ok(found)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use catalog::InboundKind;
    use serde_json::json;

    fn slot(conversation: &str, event: &str) -> InboundSlot {
        InboundSlot {
            conversation: conversation.into(),
            event: event.into(),
        }
    }

    fn record(at: u64) -> InboundRecord {
        InboundRecord {
            kind: InboundKind::Message,
            at,
            event: json!({"at": at}),
        }
    }

    #[tokio::test]
    async fn an_event_is_kept_once_and_read_newest_first_until_it_expires() {
        let store = MemoryInbound::default();
        let a = slot("c#1", "000000000010#a");
        assert!(store.add(&a, &record(10), 100).await.unwrap());
        assert!(!store.add(&a, &record(10), 100).await.unwrap());
        assert!(
            store
                .add(&slot("c#1", "000000000005#b"), &record(5), 50)
                .await
                .unwrap()
        );
        assert!(
            store
                .add(&slot("c#2", "000000000020#c"), &record(20), 100)
                .await
                .unwrap()
        );
        let read = store.recent("c#1", 10, 0).await.unwrap();
        assert_eq!(read.iter().map(|r| r.at).collect::<Vec<_>>(), [10, 5]);
        let read = store.recent("c#1", 10, 60).await.unwrap();
        assert_eq!(read.iter().map(|r| r.at).collect::<Vec<_>>(), [10]);
        assert_eq!(store.recent("c#1", 1, 0).await.unwrap().len(), 1);
    }
}
