//! The shared counters on Lambda: one DynamoDB item per UTC day (`pk`), one number attribute
//! per counter, the item's `expires_at` for DynamoDB's TTL. A tally is one conditional
//! `UpdateItem`: `ADD` every counter, `REMOVE` the stale ones, and the guards (the caller's
//! minute, the daily cap) as its condition, so a tool call costs one request whatever it counts,
//! and a refused one changes nothing (the item as it was comes back with the refusal).

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, ReturnValuesOnConditionCheckFailure};

use super::store::{Counted, Tally};

/// The table's partition key and TTL attribute (infra creates the table with these).
pub const KEY: &str = "pk";
pub const EXPIRES: &str = "expires_at";

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum TableError {
    #[error("the counter table gave no answer within {0} ms")]
    Timeout(u128),
    #[error("the counter table failed: {0}")]
    Failed(String),
}

pub struct Table {
    client: Client,
    name: String,
    timeout: Duration,
}

impl Table {
    pub fn new(client: Client, name: impl Into<String>, timeout: Duration) -> Self {
        Table {
            client,
            name: name.into(),
            timeout,
        }
    }

    /// The same table for the `/health` probe items (`probes`).
    pub fn probes(&self) -> super::probes::ProbeTable {
        super::probes::ProbeTable::new(self.client.clone(), self.name.clone(), self.timeout)
    }

    pub async fn count(&self, tally: &Tally) -> Result<Counted, TableError> {
        let mut names = HashMap::from([("#exp".to_string(), EXPIRES.to_string())]);
        let mut values = HashMap::from([(
            ":exp".to_string(),
            AttributeValue::N(tally.expires.to_string()),
        )]);
        let mut adds = Vec::with_capacity(tally.hits.len());
        for (i, hit) in tally.hits.iter().enumerate() {
            names.insert(format!("#h{i}"), hit.key.clone());
            values.insert(format!(":h{i}"), AttributeValue::N(hit.add.to_string()));
            adds.push(format!("#h{i} :h{i}"));
        }
        let mut expression = format!("SET #exp = :exp ADD {}", adds.join(", "));
        if !tally.stale.is_empty() {
            let removes: Vec<String> = (0..tally.stale.len()).map(|i| format!("#s{i}")).collect();
            for (i, key) in tally.stale.iter().enumerate() {
                names.insert(format!("#s{i}"), key.clone());
            }
            expression = format!("{expression} REMOVE {}", removes.join(", "));
        }
        let mut request = self
            .client
            .update_item()
            .table_name(&self.name)
            .key(KEY, AttributeValue::S(tally.item.clone()))
            // The whole item: `UPDATED_NEW` may leave out a counter an `ADD 0` did not change
            // (a budget read), and the day's item stays small (minutes past are removed).
            .return_values(ReturnValue::AllNew);
        let mut conditions = Vec::new();
        for guard in &tally.guards {
            let Some(hit) = tally.hits.get(guard.hit) else {
                continue;
            };
            // Passes while the counter plus this add stays within the limit.
            let Some(max) = guard.limit.checked_sub(hit.add) else {
                return Ok(Counted::Refused(vec![0; tally.hits.len()]));
            };
            let i = guard.hit;
            values.insert(format!(":max{i}"), AttributeValue::N(max.to_string()));
            conditions.push(format!("(attribute_not_exists(#h{i}) OR #h{i} <= :max{i})"));
        }
        if !conditions.is_empty() {
            request = request
                .condition_expression(conditions.join(" AND "))
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                );
        }
        let request = request
            .update_expression(expression)
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values));
        let answer = match tokio::time::timeout(self.timeout, request.send()).await {
            Err(_) => return Err(TableError::Timeout(self.timeout.as_millis())),
            Ok(Err(e)) => {
                if let Some(aws_sdk_dynamodb::operation::update_item::UpdateItemError::ConditionalCheckFailedException(refusal)) = e.as_service_error() {
                    let item = refusal.item.clone().unwrap_or_default();
                    return Ok(Counted::Refused(values_of(tally, &item, false)?));
                }
                return Err(TableError::Failed(
                    aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
                ));
            }
            Ok(Ok(answer)) => answer,
        };
        let item = answer.attributes.unwrap_or_default();
        values_of(tally, &item, true).map(Counted::Values)
    }
}

/// The tally's counters in an item. After an update (`updated`) each must be there; in the item
/// as it was before a refused one, a counter not there yet is 0.
fn values_of(
    tally: &Tally,
    item: &HashMap<String, AttributeValue>,
    updated: bool,
) -> Result<Vec<u64>, TableError> {
    tally
        .hits
        .iter()
        .map(|hit| match item.get(&hit.key) {
            Some(v) => v
                .as_n()
                .ok()
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or_else(|| {
                    TableError::Failed(format!("the counter `{}` is no count", hit.key))
                }),
            None if !updated => Ok(0),
            None => Err(TableError::Failed(format!(
                "the answer lacks the counter `{}`",
                hit.key
            ))),
        })
        .collect()
}
