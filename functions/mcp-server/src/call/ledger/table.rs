//! The ledger on Lambda: one DynamoDB item per key (`pk`), with the arguments' digest, the
//! recorded result (JSON text) once there is one, and `expires_at` for DynamoDB's TTL. A claim
//! is one conditional `PutItem` (the key is free, or its entry expired); a refused one brings
//! the entry as it was, which says replay, conflict or unknown. Recording is one `UpdateItem`,
//! releasing one `DeleteItem`: a write with a key costs two requests of the table.

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValuesOnConditionCheckFailure};
use serde_json::Value;

use super::{Claim, TTL_S};

/// The table's partition key and TTL attribute (infra creates the table with these).
pub(crate) const KEY: &str = "pk";
pub(crate) const EXPIRES: &str = "expires_at";
const DIGEST: &str = "digest";
const RESULT: &str = "result";
/// The most one ledger request may take.
pub(crate) const TIMEOUT: Duration = Duration::from_millis(1500);

pub struct TableLedger {
    client: Client,
    name: String,
}

impl TableLedger {
    pub fn new(client: Client, name: impl Into<String>) -> Self {
        TableLedger {
            client,
            name: name.into(),
        }
    }

    pub async fn claim(&self, key: &str, digest: &str, now: u64) -> Claim {
        let request = self
            .client
            .put_item()
            .table_name(&self.name)
            .item(KEY, AttributeValue::S(key.to_string()))
            .item(DIGEST, AttributeValue::S(digest.to_string()))
            .item(EXPIRES, AttributeValue::N((now + TTL_S).to_string()))
            .condition_expression("attribute_not_exists(#pk) OR #exp < :now")
            .expression_attribute_names("#pk", KEY)
            .expression_attribute_names("#exp", EXPIRES)
            .expression_attribute_values(":now", AttributeValue::N(now.to_string()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        match tokio::time::timeout(TIMEOUT, request.send()).await {
            Err(_) => Claim::Unavailable(format!("no answer within {} ms", TIMEOUT.as_millis())),
            Ok(Ok(_)) => Claim::New,
            Ok(Err(e)) => match e.as_service_error() {
                Some(PutItemError::ConditionalCheckFailedException(taken)) => {
                    entry(&taken.item.clone().unwrap_or_default(), digest)
                }
                _ => {
                    Claim::Unavailable(aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string())
                }
            },
        }
    }

    pub async fn record(&self, key: &str, result: &Value) -> Result<(), String> {
        let request = self
            .client
            .update_item()
            .table_name(&self.name)
            .key(KEY, AttributeValue::S(key.to_string()))
            .update_expression("SET #r = :r")
            .expression_attribute_names("#r", RESULT)
            .expression_attribute_values(":r", AttributeValue::S(result.to_string()));
        match tokio::time::timeout(TIMEOUT, request.send()).await {
            Err(_) => Err(format!("no answer within {} ms", TIMEOUT.as_millis())),
            Ok(r) => r
                .map(|_| ())
                .map_err(|e| aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string()),
        }
    }

    pub async fn release(&self, key: &str) -> Result<(), String> {
        let request = self
            .client
            .delete_item()
            .table_name(&self.name)
            .key(KEY, AttributeValue::S(key.to_string()));
        match tokio::time::timeout(TIMEOUT, request.send()).await {
            Err(_) => Err(format!("no answer within {} ms", TIMEOUT.as_millis())),
            Ok(r) => r
                .map(|_| ())
                .map_err(|e| aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string()),
        }
    }
}

/// What an entry that is not free says about this claim.
fn entry(item: &HashMap<String, AttributeValue>, digest: &str) -> Claim {
    let same = item
        .get(DIGEST)
        .and_then(|d| d.as_s().ok())
        .map(String::as_str)
        == Some(digest);
    let result = item
        .get(RESULT)
        .and_then(|r| r.as_s().ok())
        .and_then(|r| serde_json::from_str(r).ok());
    match (same, result) {
        (false, _) => Claim::Conflict,
        (true, Some(result)) => Claim::Replay(result),
        (true, None) => Claim::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_entry_says_replay_conflict_or_unknown() {
        let s = |v: &str| AttributeValue::S(v.to_string());
        let mut item = HashMap::from([(DIGEST.to_string(), s("d1"))]);
        assert_eq!(entry(&item, "d1"), Claim::Unknown);
        assert_eq!(entry(&item, "d2"), Claim::Conflict);
        item.insert(RESULT.to_string(), s(r#"{"status":"ok"}"#));
        assert_eq!(
            entry(&item, "d1"),
            Claim::Replay(serde_json::json!({"status": "ok"}))
        );
    }
}
