//! Inbound events on Lambda: a DynamoDB table (partition key `pk`: the conversation's slot
//! `<connector>#<digest>`, sort key `sk`: `<time>#<digest of the event's id>`), each event
//! sealed with the vault's AES-256-GCM under a KMS data key made for its connector (encryption
//! context `connector`), bound to its slot. An item holds the wrapped data key (`data_key`),
//! the sealed event (`sealed`) and `expires_at`, the table's TTL attribute. Nothing readable:
//! no number, no text, no id.
//!
//! Adding is one conditional `PutItem` (`attribute_not_exists(pk)`): a retried or reordered
//! delivery of an event finds its slot taken and is not stored again. Reading is one `Query`,
//! newest first.

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use super::{InboundError, InboundFuture, InboundRecord, InboundSlot, InboundStore};
use crate::vault::KmsKeys;
use crate::vault::seal;

/// The table's keys and TTL attribute (infra creates the table with these).
pub(crate) const PARTITION_KEY: &str = "pk";
pub(crate) const SORT_KEY: &str = "sk";
pub(crate) const EXPIRES_AT: &str = "expires_at";
/// The encryption context's key of the data keys.
pub(crate) const CONTEXT_KEY: &str = "connector";
const DATA_KEY: &str = "data_key";
const SEALED: &str = "sealed";
/// The most one table request may take: a webhook is acknowledged fast or retried.
const TIMEOUT: Duration = Duration::from_millis(2000);

pub(crate) struct TableInbound {
    client: Client,
    table: String,
    keys: KmsKeys,
}

impl TableInbound {
    /// Over a table and the KMS keys made with [`KmsKeys::in_context`] and [`CONTEXT_KEY`].
    pub(crate) fn new(client: Client, table: impl Into<String>, keys: KmsKeys) -> Self {
        TableInbound {
            client,
            table: table.into(),
            keys,
        }
    }

    async fn open(
        &self,
        item: &HashMap<String, AttributeValue>,
    ) -> Result<InboundRecord, InboundError> {
        let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
        let blob = |name: &str| {
            item.get(name)
                .and_then(|v| v.as_b().ok())
                .map(|b| b.as_ref().to_vec())
                .ok_or(InboundError::Corrupt)
        };
        let (Some(pk), Some(sk)) = (text(PARTITION_KEY), text(SORT_KEY)) else {
            return Err(InboundError::Corrupt);
        };
        let data_key = self.keys.unwrap(owner(&pk), &blob(DATA_KEY)?).await?;
        let plain = seal::open(&data_key, &binding(&pk, &sk), &blob(SEALED)?)?;
        serde_json::from_slice(&plain).map_err(|_| InboundError::Corrupt)
    }
}

impl InboundStore for TableInbound {
    fn add<'a>(
        &'a self,
        slot: &'a InboundSlot,
        record: &'a InboundRecord,
        expires_at: u64,
    ) -> InboundFuture<'a, bool> {
        Box::pin(async move {
            let data_key = self.keys.for_sealing(owner(&slot.conversation)).await?;
            let plain = serde_json::to_vec(record).map_err(|_| InboundError::Corrupt)?;
            let binding = binding(&slot.conversation, &slot.event);
            let sealed = seal::seal(&data_key.plain, &binding, &plain)?;
            let request = self
                .client
                .put_item()
                .table_name(&self.table)
                .item(PARTITION_KEY, s(&slot.conversation))
                .item(SORT_KEY, s(&slot.event))
                .item(DATA_KEY, AttributeValue::B(Blob::new(data_key.wrapped)))
                .item(SEALED, AttributeValue::B(Blob::new(sealed)))
                .item(EXPIRES_AT, AttributeValue::N(expires_at.to_string()))
                .condition_expression("attribute_not_exists(#pk)")
                .expression_attribute_names("#pk", PARTITION_KEY);
            match tokio::time::timeout(TIMEOUT, request.send()).await {
                Err(_) => Err(timeout()),
                Ok(Ok(_)) => Ok(true),
                Ok(Err(e)) => match e.as_service_error() {
                    Some(s) if s.is_conditional_check_failed_exception() => Ok(false),
                    _ => Err(unavailable(&e)),
                },
            }
        })
    }

    fn recent<'a>(
        &'a self,
        conversation: &'a str,
        limit: usize,
        now: u64,
    ) -> InboundFuture<'a, Vec<InboundRecord>> {
        Box::pin(async move {
            let request = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression("#pk = :pk")
                .filter_expression("#expires > :now")
                .expression_attribute_names("#pk", PARTITION_KEY)
                .expression_attribute_names("#expires", EXPIRES_AT)
                .expression_attribute_values(":pk", s(conversation))
                .expression_attribute_values(":now", AttributeValue::N(now.to_string()))
                .scan_index_forward(false)
                .limit(i32::try_from(limit).unwrap_or(i32::MAX));
            let out = tokio::time::timeout(TIMEOUT, request.send())
                .await
                .map_err(|_| timeout())?
                .map_err(|e| unavailable(&e))?;
            let mut records = Vec::new();
            for item in out.items() {
                records.push(self.open(item).await?);
            }
            Ok(records)
        })
    }
}

/// Whose data key seals a conversation's events: its connector (the slot's prefix).
fn owner(conversation: &str) -> &str {
    conversation.split('#').next().unwrap_or(conversation)
}

/// What a sealed event is bound to: its slot, so it opens nowhere else.
fn binding(pk: &str, sk: &str) -> Vec<u8> {
    [pk.as_bytes(), b"\n", sk.as_bytes()].concat()
}

fn s(value: &str) -> AttributeValue {
    AttributeValue::S(value.to_string())
}

fn timeout() -> InboundError {
    InboundError::Unavailable(format!(
        "the inbound table gave no answer within {} ms",
        TIMEOUT.as_millis()
    ))
}

fn unavailable<E: std::error::Error>(e: &E) -> InboundError {
    InboundError::Unavailable(format!(
        "inbound table: {}",
        aws_sdk_dynamodb::error::DisplayErrorContext(e)
    ))
}
