//! An upstream's own request rate (`quota.rate`), kept by every instance and caller together:
//! requests to the upstream take turns at least one interval apart (Lexware's two a second:
//! 500 ms). The next free turn is one number per connector, `t` on the item `r#<connector>` of
//! the limits table when there is one (in memory per instance otherwise), and a request
//! reserves its turn in one conditional update:
//!
//! - **idle** (no turn pending: `t` is not after now): the turn is now, `t` becomes now plus the
//!   interval;
//! - **busy** (`t` after now, but not after the latest turn the call can wait for): the turn is
//!   `t`, which moves on by the interval (`ADD`, so concurrent requests each get their own);
//! - **too late** (`t` after that): nothing is reserved, and the call hears when to retry.
//!
//! A failed condition returns the item as it was, which says which case holds now; at most
//! [`ATTEMPTS`] updates per request. Turns are handed out in the order they are asked for, so
//! an aggregation reading many pages takes a turn per page between everybody else's: the rate
//! is shared fairly. A turn not used (its call gave up) is lost, never given twice: the upstream
//! sees at most the rate. A table that does not answer falls back to this instance's turns.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tracing::Instrument;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, ReturnValuesOnConditionCheckFailure};

use super::table::{EXPIRES, KEY, TableError};

/// The next free turn, in milliseconds since the epoch.
const NEXT: &str = "t";

/// Updates one request may make before it gives up on the table.
const ATTEMPTS: usize = 4;

/// A request's turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// Send at this time (milliseconds since the epoch; now or later).
    At(u64),
    /// The next free turn is later than the call can wait: retry after this long.
    TooLate { retry_after_ms: u64 },
}

/// Where the turns are kept.
pub struct Pace {
    table: Option<(Client, String, Duration)>,
    memory: Mutex<HashMap<String, u64>>,
}

impl Pace {
    pub fn new(table: Option<(Client, String, Duration)>) -> Self {
        Pace {
            table,
            memory: Mutex::default(),
        }
    }

    /// Reserves the next turn of `connector`'s rate (`interval_ms` apart) at `now_ms`, if it
    /// comes no later than `latest_ms`.
    pub async fn turn(
        &self,
        connector: &str,
        interval_ms: u64,
        now_ms: u64,
        latest_ms: u64,
    ) -> Turn {
        if let Some((client, name, timeout)) = &self.table {
            let asked = Asked {
                key: format!("r#{connector}"),
                interval_ms,
                now_ms,
                latest_ms,
            };
            // Boxed: the SDK's request futures are large, and this one would otherwise sit in
            // every upstream request's future, the calls that declare no rate included.
            match Box::pin(in_table(client, name, *timeout, &asked)).await {
                Ok(turn) => return turn,
                Err(e) => {
                    tracing::warn!(error = %e, %connector, "the rate's turns fell back to this instance");
                }
            }
        }
        let mut turns = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        let next = turns.get(connector).copied();
        let (turn, moved) = decide(next, interval_ms, now_ms, latest_ms);
        if let Some(moved) = moved {
            turns.insert(connector.to_string(), moved);
        }
        turn
    }
}

/// The turn for a request at `now_ms` when the next free one is `next`, and where the next free
/// turn moves (none: nothing reserved). Pure: what the table's conditions decide too.
pub(crate) fn decide(
    next: Option<u64>,
    interval_ms: u64,
    now_ms: u64,
    latest_ms: u64,
) -> (Turn, Option<u64>) {
    let at = next.map_or(now_ms, |t| t.max(now_ms));
    if at > latest_ms {
        return (
            Turn::TooLate {
                retry_after_ms: at - now_ms,
            },
            None,
        );
    }
    (Turn::At(at), Some(at + interval_ms))
}

struct Asked {
    key: String,
    interval_ms: u64,
    now_ms: u64,
    latest_ms: u64,
}

/// The turn as the table hands it out: idle or busy, in one conditional update each.
async fn in_table(
    client: &Client,
    name: &str,
    timeout: Duration,
    a: &Asked,
) -> Result<Turn, TableError> {
    let n = |v: u64| AttributeValue::N(v.to_string());
    // Kept an hour past the last turn it holds (a rate's period is an hour at most).
    let expires = |t: u64| n(t / 1000 + 3600);
    let mut next: Option<u64> = None;
    for _ in 0..ATTEMPTS {
        let request = match next {
            // Idle (or not known yet): the turn is now.
            None => client
                .update_item()
                .table_name(name)
                .key(KEY, AttributeValue::S(a.key.clone()))
                .update_expression("SET #t = :after, #e = :expires")
                .condition_expression("attribute_not_exists(#t) OR #t <= :now")
                .expression_attribute_values(":after", n(a.now_ms + a.interval_ms))
                .expression_attribute_values(":now", n(a.now_ms))
                .expression_attribute_values(":expires", expires(a.now_ms + a.interval_ms)),
            Some(t) if t > a.latest_ms => {
                return Ok(Turn::TooLate {
                    retry_after_ms: t - a.now_ms,
                });
            }
            // Busy: the turn is the next free one, which moves on by the interval.
            Some(_) => client
                .update_item()
                .table_name(name)
                .key(KEY, AttributeValue::S(a.key.clone()))
                .update_expression("SET #t = #t + :i, #e = :expires")
                .condition_expression("#t > :now AND #t <= :latest")
                .expression_attribute_values(":i", n(a.interval_ms))
                .expression_attribute_values(":now", n(a.now_ms))
                .expression_attribute_values(":latest", n(a.latest_ms))
                .expression_attribute_values(":expires", expires(a.latest_ms + a.interval_ms))
                .return_values(ReturnValue::UpdatedNew),
        }
        .expression_attribute_names("#t", NEXT)
        .expression_attribute_names("#e", EXPIRES)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let sent = tokio::time::timeout(timeout, request.send())
            .instrument(crate::telemetry::table("limits_table", "UpdateItem"));
        let answer = match sent.await {
            Err(_) => return Err(TableError::Timeout(timeout.as_millis())),
            Ok(answer) => answer,
        };
        let was_busy = next.is_some();
        match answer {
            Ok(out) if was_busy => {
                let moved = out.attributes().and_then(|i| number(i.get(NEXT)));
                return moved.map(|t| Turn::At(t - a.interval_ms)).ok_or_else(|| {
                    TableError::Failed("the turn came back without its time".into())
                });
            }
            Ok(_) => return Ok(Turn::At(a.now_ms)),
            Err(e) => {
                let failed = e.as_service_error().and_then(|s| match s {
                    aws_sdk_dynamodb::operation::update_item::UpdateItemError::ConditionalCheckFailedException(c) => Some(c),
                    _ => None,
                });
                let Some(failed) = failed else {
                    return Err(TableError::Failed(
                        aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
                    ));
                };
                // As it is now: a pending turn (busy, or too late), or idle again.
                next = number(failed.item().and_then(|i| i.get(NEXT))).filter(|t| *t > a.now_ms);
            }
        }
    }
    Err(TableError::Failed(format!(
        "no turn after {ATTEMPTS} conditional updates"
    )))
}

fn number(v: Option<&AttributeValue>) -> Option<u64> {
    v?.as_n().ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_are_an_interval_apart_and_a_turn_too_late_reserves_nothing() {
        assert_eq!(
            decide(None, 500, 1_000, 5_000),
            (Turn::At(1_000), Some(1_500))
        );
        assert_eq!(
            decide(Some(900), 500, 1_000, 5_000),
            (Turn::At(1_000), Some(1_500)),
            "idle"
        );
        assert_eq!(
            decide(Some(1_500), 500, 1_000, 5_000),
            (Turn::At(1_500), Some(2_000)),
            "busy"
        );
        assert_eq!(
            decide(Some(6_000), 500, 1_000, 5_000),
            (
                Turn::TooLate {
                    retry_after_ms: 5_000
                },
                None
            )
        );
    }

    #[tokio::test]
    async fn in_memory_each_request_gets_its_own_turn() {
        let pace = Pace::new(None);
        let mut turns = Vec::new();
        for _ in 0..4 {
            turns.push(pace.turn("lexware", 500, 10_000, 11_200).await);
        }
        assert_eq!(
            turns,
            [
                Turn::At(10_000),
                Turn::At(10_500),
                Turn::At(11_000),
                Turn::TooLate {
                    retry_after_ms: 1_500
                }
            ]
        );
        assert_eq!(
            pace.turn("other", 500, 10_000, 10_000).await,
            Turn::At(10_000),
            "per connector"
        );
    }
}
