//! `/health` probe results shared by every instance, kept in the limits table: one item per
//! connector, `pk = health#<connector>`, with `claimed_ms` (when an instance last took the
//! right to probe), `probed_ms` and `status` (the result of the claim made at `probed_ms`) and
//! `expires_at` (TTL). Apart from the tally's day items; two kinds of request, both
//! `UpdateItem` (the table's one grant):
//!
//! - [`ProbeTable::claim`]: `SET claimed_ms` on condition that no claim was made within the
//!   interval. Exactly one instance per interval gets [`Turn::Mine`] and probes; the others get
//!   [`Turn::Theirs`] with the item as it was (its last result), from the same request.
//! - [`ProbeTable::record`]: the claimer writes its result back, on condition that its claim is
//!   still the latest.

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValuesOnConditionCheckFailure};

use crate::limits::table::{EXPIRES, KEY, Table, TableError};

/// How long a probe item outlives its last claim before DynamoDB's TTL may remove it.
const KEEP_S: u64 = 86_400;

/// The answer to a claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Turn {
    /// This instance may probe now; it records the result with `claimed_ms`.
    Mine { claimed_ms: u64 },
    /// Another instance claimed this interval at `claimed_ms`; its result (or an earlier one,
    /// or none yet) as the item holds it.
    Theirs {
        claimed_ms: u64,
        last: Option<Probed>,
    },
}

/// A recorded probe result: the status word, and the claim it answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Probed {
    pub status: String,
    pub probed_ms: u64,
}

pub(crate) struct ProbeTable {
    client: Client,
    name: String,
    timeout: Duration,
}

impl ProbeTable {
    pub(crate) fn new(client: Client, name: impl Into<String>, timeout: Duration) -> Self {
        ProbeTable {
            client,
            name: name.into(),
            timeout,
        }
    }

    /// The probe items of the limits table `table`.
    pub(crate) fn in_table(table: &Table) -> Self {
        let (client, name, timeout) = table.parts();
        ProbeTable::new(client, name, timeout)
    }

    /// Claims the right to probe `connector` at `now_ms`, granted when no claim is younger than
    /// `interval`.
    pub(crate) async fn claim(
        &self,
        connector: &str,
        now_ms: u64,
        interval: Duration,
    ) -> Result<Turn, TableError> {
        let due = now_ms.saturating_sub(interval.as_millis() as u64);
        let request = self
            .client
            .update_item()
            .table_name(&self.name)
            .key(KEY, AttributeValue::S(item(connector)))
            .update_expression("SET claimed_ms = :now, #exp = :exp")
            .condition_expression("attribute_not_exists(claimed_ms) OR claimed_ms <= :due")
            .expression_attribute_names("#exp", EXPIRES)
            .expression_attribute_values(":now", number(now_ms))
            .expression_attribute_values(":due", number(due))
            .expression_attribute_values(
                ":exp",
                number(now_ms / 1000 + interval.as_secs() + KEEP_S),
            )
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        match self.send(request.send()).await? {
            Ok(_) => Ok(Turn::Mine { claimed_ms: now_ms }),
            Err(UpdateItemError::ConditionalCheckFailedException(refusal)) => {
                let item = refusal.item.unwrap_or_default();
                let claimed_ms = read_number(&item, "claimed_ms").ok_or_else(|| {
                    TableError::Failed(format!("the probe item of {connector} has no claim"))
                })?;
                let last = match (item.get("status"), read_number(&item, "probed_ms")) {
                    (Some(AttributeValue::S(status)), Some(probed_ms)) => Some(Probed {
                        status: status.clone(),
                        probed_ms,
                    }),
                    _ => None,
                };
                Ok(Turn::Theirs { claimed_ms, last })
            }
            Err(e) => Err(TableError::Failed(
                aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
            )),
        }
    }

    /// Records the result of the claim made at `claimed_ms`, unless a later claim replaced it.
    pub(crate) async fn record(
        &self,
        connector: &str,
        claimed_ms: u64,
        status: &str,
    ) -> Result<(), TableError> {
        let request = self
            .client
            .update_item()
            .table_name(&self.name)
            .key(KEY, AttributeValue::S(item(connector)))
            .update_expression("SET probed_ms = :claimed, #status = :status")
            .condition_expression("claimed_ms = :claimed")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":claimed", number(claimed_ms))
            .expression_attribute_values(":status", AttributeValue::S(status.to_string()));
        match self.send(request.send()).await? {
            Ok(_) | Err(UpdateItemError::ConditionalCheckFailedException(_)) => Ok(()),
            Err(e) => Err(TableError::Failed(
                aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
            )),
        }
    }

    /// The request within the timeout: a service error comes back to be told apart, anything
    /// else (no answer, no connection) is a failed table.
    async fn send<T, R: std::fmt::Debug>(
        &self,
        request: impl Future<Output = Result<T, SdkError<UpdateItemError, R>>>,
    ) -> Result<Result<T, UpdateItemError>, TableError> {
        match tokio::time::timeout(self.timeout, request).await {
            Err(_) => Err(TableError::Timeout(self.timeout.as_millis())),
            Ok(Ok(answer)) => Ok(Ok(answer)),
            Ok(Err(e)) => match e {
                SdkError::ServiceError(service) => Ok(Err(service.into_err())),
                other => Err(TableError::Failed(
                    aws_sdk_dynamodb::error::DisplayErrorContext(&other).to_string(),
                )),
            },
        }
    }
}

/// The item of a connector's probe.
pub(crate) fn item(connector: &str) -> String {
    format!("health#{connector}")
}

fn number(n: u64) -> AttributeValue {
    AttributeValue::N(n.to_string())
}

fn read_number(item: &HashMap<String, AttributeValue>, name: &str) -> Option<u64> {
    item.get(name)?.as_n().ok()?.parse().ok()
}
