//! The shared counters on Lambda, one small item per counter: `pk` names the counter and its
//! window (`d#<date>` the deployment's day, `m#<caller>#<minute start>` a caller's minute,
//! `b#<caller>#<connector>#<date>` a caller's budget on a connector), `n` is the count and
//! `expires_at` lets DynamoDB's TTL remove the item once its window is over. An item holds one
//! number whatever the load (about 60 bytes), and only the day's item is shared by all callers.
//!
//! A tally is **one `TransactWriteItems`**: an `ADD` per counter, each limited counter on the
//! condition that it stays within its limit (a refund, the unspent part of an earlier
//! reservation, counted first). DynamoDB applies all of them or none, so a refused call
//! changes nothing, and a budget reservation is exact under any concurrency and across
//! instances. A refusal names each counter whose condition failed with its count (the item as
//! it was comes back with the cancellation). An admitted transaction returns no counts: the
//! caller keeps what it booked (`shared`).

use std::collections::HashMap;
use std::time::Duration;
use tracing::Instrument;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};

use super::store::{Hit, Tally};
use super::table::{EXPIRES, KEY, TableError};

/// The count attribute of a counter item.
pub(crate) const COUNT: &str = "n";

/// How often a transaction that met another one on the same item (DynamoDB's
/// `TransactionConflict`: the day's item under concurrency) is sent again.
const CONFLICT_RETRIES: u32 = 3;

/// The table's answer to a tally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TallyAnswer {
    /// Every counter was changed.
    Admitted,
    /// Nothing was changed: these hits (by index) would have passed their limit, with their
    /// counts as they are.
    Refused(Vec<(usize, u64)>),
}

pub struct Items {
    client: Client,
    name: String,
    timeout: Duration,
}

impl Items {
    pub fn new(client: Client, name: impl Into<String>, timeout: Duration) -> Self {
        Items {
            client,
            name: name.into(),
            timeout,
        }
    }

    /// One transaction for the whole tally (counters that change nothing are left out).
    pub async fn count(&self, tally: &Tally) -> Result<TallyAnswer, TableError> {
        let mut actions = Vec::with_capacity(tally.hits.len());
        // The hit of each action, in order (cancellation reasons come in the same order).
        let mut of_action = Vec::with_capacity(tally.hits.len());
        for (i, hit) in tally.hits.iter().enumerate() {
            match self.action(hit)? {
                Action::Unchanged => {}
                Action::Refused => return Ok(TallyAnswer::Refused(vec![(i, 0)])),
                Action::Send(item) => {
                    actions.push(*item);
                    of_action.push(i);
                }
            }
        }
        if actions.is_empty() {
            return Ok(TallyAnswer::Admitted);
        }
        self.send(actions, &of_action).await
    }

    /// The `ADD` of one hit, on the condition that a limited counter stays within its limit.
    fn action(&self, hit: &Hit) -> Result<Action, TableError> {
        let delta = hit.add as i64 - hit.refund as i64;
        if delta == 0 && hit.limit.is_none() {
            return Ok(Action::Unchanged);
        }
        let mut update = Update::builder()
            .table_name(&self.name)
            .key(KEY, AttributeValue::S(hit.key.clone()))
            .update_expression("SET #exp = :exp ADD #n :d")
            .expression_attribute_names("#exp", EXPIRES)
            .expression_attribute_names("#n", COUNT)
            .expression_attribute_values(":exp", AttributeValue::N(hit.expires.to_string()))
            .expression_attribute_values(":d", AttributeValue::N(delta.to_string()));
        if let Some(limit) = hit.limit {
            // Passes while the count, less the refund, plus the add stays within the limit.
            let max = limit as i64 + hit.refund as i64 - hit.add as i64;
            if max < 0 {
                return Ok(Action::Refused);
            }
            update = update
                .condition_expression("attribute_not_exists(#n) OR #n <= :max")
                .expression_attribute_values(":max", AttributeValue::N(max.to_string()))
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                );
        }
        let update = update
            .build()
            .map_err(|e| TableError::Failed(e.to_string()))?;
        Ok(Action::Send(Box::new(
            TransactWriteItem::builder().update(update).build(),
        )))
    }

    /// The transaction, sent again after a conflict with another one; a refusal names each
    /// hit (by `of_action`) whose condition failed, with its count.
    async fn send(
        &self,
        actions: Vec<TransactWriteItem>,
        of_action: &[usize],
    ) -> Result<TallyAnswer, TableError> {
        let mut attempt = 0;
        loop {
            let request = self
                .client
                .transact_write_items()
                .set_transact_items(Some(actions.clone()));
            let sent = tokio::time::timeout(self.timeout, request.send()).instrument(
                crate::telemetry::table("limits_table", "TransactWriteItems"),
            );
            let error = match sent.await {
                Err(_) => return Err(TableError::Timeout(self.timeout.as_millis())),
                Ok(Ok(_)) => return Ok(TallyAnswer::Admitted),
                Ok(Err(e)) => e,
            };
            let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) =
                error.as_service_error()
            else {
                return Err(TableError::Failed(
                    aws_sdk_dynamodb::error::DisplayErrorContext(&error).to_string(),
                ));
            };
            let reasons = cancelled.cancellation_reasons();
            let refused: Vec<(usize, u64)> = reasons
                .iter()
                .enumerate()
                .filter(|(_, r)| r.code() == Some("ConditionalCheckFailed"))
                .filter_map(|(a, r)| Some((*of_action.get(a)?, count_in(r.item()))))
                .collect();
            if !refused.is_empty() {
                return Ok(TallyAnswer::Refused(refused));
            }
            let conflict = reasons
                .iter()
                .any(|r| r.code() == Some("TransactionConflict"));
            if !conflict || attempt >= CONFLICT_RETRIES {
                return Err(TableError::Failed(
                    aws_sdk_dynamodb::error::DisplayErrorContext(&error).to_string(),
                ));
            }
            attempt += 1;
            // A random few milliseconds apart, so concurrent calls of one instance (one process
            // id, one clock) do not meet again in lockstep.
            let jitter = getrandom::u32().map_or(0, |r| u64::from(r % 20));
            tokio::time::sleep(Duration::from_millis(u64::from(attempt) * 5 + jitter)).await;
        }
    }
}

/// What one hit asks of the table.
enum Action {
    /// It changes no count and has no limit: left out.
    Unchanged,
    /// Its add alone passes its limit: the tally is refused without asking the table.
    Refused,
    /// Boxed: an update is large beside the other answers.
    Send(Box<TransactWriteItem>),
}

/// The count of an item as it was (0 when there was none, or it was below 0).
fn count_in(item: Option<&HashMap<String, AttributeValue>>) -> u64 {
    item.and_then(|i| i.get(COUNT))
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse::<i64>().ok())
        .map_or(0, |n| n.max(0) as u64)
}
