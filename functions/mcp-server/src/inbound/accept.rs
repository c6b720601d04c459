//! One webhook body, once the edge has read it within its limit: its signature checked (nothing
//! else is looked at without it), its events found, each kept once until its TTL. The edge
//! turns the outcome into an HTTP status and an audit line.

use catalog::Inbound;

use super::names::{index_entries, named};
use super::{InboundRecord, InboundSlot, InboundStore, found, signed};

/// A body as it came: for which connector, its signature header and its bytes.
pub(crate) struct Delivery<'a> {
    pub(crate) connector: &'a str,
    /// The connector's signing secret, from the deployment secret.
    pub(crate) secret: &'a str,
    /// The signature header's value (empty when there was none).
    pub(crate) signature: &'a str,
    pub(crate) body: &'a [u8],
}

/// A body taken: its events newly kept, and those kept before (a retry, a reordered delivery).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Accepted {
    pub(crate) stored: u64,
    pub(crate) duplicates: u64,
}

/// Why a body was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// No signature, or not the body's under the secret: nothing read, nothing kept.
    Unsigned,
    /// Not JSON, or an event without its id, conversation or time (or too many): nothing kept.
    Malformed,
    /// The store failed; what was kept stays, and the upstream's retry finds it.
    Unavailable,
}

/// Takes `delivery` at `now`: each event kept under its slot until `ttl_days` from now.
pub(crate) async fn accept(
    store: &dyn InboundStore,
    inbound: &Inbound,
    delivery: Delivery<'_>,
    now: u64,
) -> Result<Accepted, Refused> {
    let Delivery {
        connector,
        secret,
        signature,
        body,
    } = delivery;
    if !signed(secret, &inbound.signature_prefix, signature, body) {
        return Err(Refused::Unsigned);
    }
    let json: serde_json::Value = serde_json::from_slice(body).map_err(|_| Refused::Malformed)?;
    let events = found(inbound, &json).map_err(|_| Refused::Malformed)?;
    let expires_at = now + u64::from(inbound.ttl_days) * 86_400;
    let mut taken = Accepted {
        stored: 0,
        duplicates: 0,
    };
    for event in &events {
        let slot = InboundSlot::of(connector, secret, event);
        let record = InboundRecord {
            kind: event.kind,
            at: event.at,
            event: event.event.clone(),
        };
        match store.add(&slot, &record, expires_at).await {
            Ok(true) => taken.stored += 1,
            Ok(false) => taken.duplicates += 1,
            Err(e) => return Err(not_stored(connector, &e)),
        }
    }
    // After the events: a body whose index entries fail is retried, its events then found kept.
    let names = named(inbound, &json);
    for (slot, record) in index_entries((connector, secret), &events, &names) {
        store
            .add(&slot, &record, expires_at)
            .await
            .map_err(|e| not_stored(connector, &e))?;
    }
    Ok(taken)
}

/// The fault logged (never an event, a number or a name), the body refused for a retry.
fn not_stored(connector: &str, e: &super::InboundError) -> Refused {
    tracing::error!(connector, error = %e, "inbound event not stored");
    Refused::Unavailable
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbound::{MemoryInbound, sign};
    use serde_json::json;

    #[tokio::test]
    async fn only_a_signed_well_formed_body_is_kept_and_each_event_once() {
        let inbound: Inbound = serde_json::from_value(json!({
            "verify_token": "v", "signing_secret": "s",
            "events": [{"at": "/messages", "kind": "message", "id": ["/id"],
                        "conversation": "/from", "timestamp": "/t"}]
        }))
        .unwrap();
        let store = MemoryInbound::default();
        let take = |body: &'static str, secret: &'static str| {
            let signature = sign(secret, "sha256=", body.as_bytes());
            let (store, inbound) = (&store, &inbound);
            async move {
                let delivery = Delivery {
                    connector: "chat",
                    secret: "s",
                    signature: &signature,
                    body: body.as_bytes(),
                };
                accept(store, inbound, delivery, 1_000).await
            }
        };
        let two = r#"{"messages": [{"id": "a", "from": "49", "t": 1}, {"id": "b", "from": "49", "t": 2}]}"#;
        assert_eq!(take(two, "forged").await, Err(Refused::Unsigned));
        assert!(store.recent("chat#x", 10, 0).await.unwrap().is_empty());
        let taken = take(two, "s").await.unwrap();
        assert_eq!((taken.stored, taken.duplicates), (2, 0));
        let taken = take(two, "s").await.unwrap();
        assert_eq!((taken.stored, taken.duplicates), (0, 2));
        assert_eq!(take("{", "s").await, Err(Refused::Malformed));
        let timeless = r#"{"messages": [{"id": "c", "from": "49"}]}"#;
        assert_eq!(take(timeless, "s").await, Err(Refused::Malformed));
    }
}
