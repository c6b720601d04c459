//! The authorization server's store on Lambda: one DynamoDB table (partition key `pk`: the
//! kind and key, `client#<id>`, `code#<hash>`, `refresh#<hash>`, `family#<id>`, `claim#<nonce>`,
//! `reg#<ip>#<hour>`), each record as JSON in `record`, `used` on codes and refresh tokens, and
//! `expires_at` for the table's TTL. Codes and tokens are keyed by their SHA-256, never stored.
//!
//! A single-use take is one conditional `UpdateItem` (`used` from false to true), so two
//! instances racing for one code cannot both win; the loser reads the item once to tell a
//! replay (revoke its family) from an unknown code. A refresh costs three requests: the take
//! (`UpdateItem`), the family check (`GetItem`) and the new token (`PutItem`).

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::store::{Code, IssuerStore, Refresh, Registration, StoreError, StoreFuture, Taken};

/// The table's key and attributes (infra creates the table with `pk` and the TTL attribute).
pub(crate) const PARTITION_KEY: &str = "pk";
pub(crate) const EXPIRES_AT: &str = "expires_at";
const RECORD: &str = "record";
const USED: &str = "used";
const COUNT: &str = "n";
/// The most one table request may take.
const TIMEOUT: Duration = Duration::from_millis(2000);

pub(crate) struct TableIssuer {
    client: Client,
    table: String,
}

type Item = HashMap<String, AttributeValue>;

fn s(value: &str) -> AttributeValue {
    AttributeValue::S(value.to_string())
}

fn n(value: u64) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

fn unavailable<E: std::error::Error>(e: &E) -> StoreError {
    StoreError::Unavailable(format!(
        "DynamoDB: {}",
        aws_sdk_dynamodb::error::DisplayErrorContext(e)
    ))
}

fn timeout() -> StoreError {
    StoreError::Unavailable(format!(
        "DynamoDB gave no answer within {} ms",
        TIMEOUT.as_millis()
    ))
}

fn record<T: DeserializeOwned>(item: &Item) -> Option<T> {
    let text = item.get(RECORD)?.as_s().ok()?;
    serde_json::from_str(text).ok()
}

fn json<T: Serialize>(value: &T) -> Result<AttributeValue, StoreError> {
    serde_json::to_string(value)
        .map(AttributeValue::S)
        .map_err(|_| StoreError::Unavailable("a record did not serialise".into()))
}

impl TableIssuer {
    pub(crate) fn new(client: Client, table: impl Into<String>) -> Self {
        TableIssuer {
            client,
            table: table.into(),
        }
    }

    async fn put(
        &self,
        pk: String,
        value: AttributeValue,
        expires_at: u64,
        used: Option<bool>,
    ) -> Result<(), StoreError> {
        let mut request = self
            .client
            .put_item()
            .table_name(&self.table)
            .item(PARTITION_KEY, s(&pk))
            .item(RECORD, value)
            .item(EXPIRES_AT, n(expires_at));
        if let Some(used) = used {
            request = request.item(USED, AttributeValue::Bool(used));
        }
        match tokio::time::timeout(TIMEOUT, request.send()).await {
            Err(_) => Err(timeout()),
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(unavailable(&e)),
        }
    }

    async fn get(&self, pk: String) -> Result<Option<Item>, StoreError> {
        let request = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(PARTITION_KEY, s(&pk))
            .consistent_read(true)
            .send();
        match tokio::time::timeout(TIMEOUT, request).await {
            Err(_) => Err(timeout()),
            Ok(Ok(out)) => Ok(out.item),
            Ok(Err(e)) => Err(unavailable(&e)),
        }
    }

    /// Marks the item used if it exists unused and unexpired; else tells a replay from nothing.
    async fn take<T: DeserializeOwned>(
        &self,
        pk: String,
        now: u64,
        family: impl Fn(&T) -> String,
    ) -> Result<Taken<T>, StoreError> {
        let request = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(PARTITION_KEY, s(&pk))
            .update_expression("SET #used = :t")
            .condition_expression("attribute_exists(#pk) AND #used = :f AND #exp > :now")
            .expression_attribute_names("#pk", PARTITION_KEY)
            .expression_attribute_names("#used", USED)
            .expression_attribute_names("#exp", EXPIRES_AT)
            .expression_attribute_values(":t", AttributeValue::Bool(true))
            .expression_attribute_values(":f", AttributeValue::Bool(false))
            .expression_attribute_values(":now", n(now))
            .return_values(ReturnValue::AllOld)
            .send();
        match tokio::time::timeout(TIMEOUT, request).await {
            Err(_) => Err(timeout()),
            Ok(Ok(out)) => Ok(out
                .attributes
                .as_ref()
                .and_then(record)
                .map_or(Taken::Missing, Taken::Fresh)),
            Ok(Err(e))
                if e.as_service_error()
                    .is_some_and(|s| s.is_conditional_check_failed_exception()) =>
            {
                let item = self.get(pk).await?;
                let used = item
                    .as_ref()
                    .and_then(|i| i.get(USED))
                    .and_then(|u| u.as_bool().ok())
                    .copied();
                Ok(match (item.as_ref().and_then(record::<T>), used) {
                    (Some(value), Some(true)) => Taken::Replayed {
                        family: family(&value),
                    },
                    _ => Taken::Missing,
                })
            }
            Ok(Err(e)) => Err(unavailable(&e)),
        }
    }
}

impl IssuerStore for TableIssuer {
    fn note_registration<'a>(&'a self, ip: &'a str, window: u64) -> StoreFuture<'a, u32> {
        Box::pin(async move {
            let request = self
                .client
                .update_item()
                .table_name(&self.table)
                .key(PARTITION_KEY, s(&format!("reg#{ip}#{window}")))
                .update_expression("ADD #n :one SET #exp = :exp")
                .expression_attribute_names("#n", COUNT)
                .expression_attribute_names("#exp", EXPIRES_AT)
                .expression_attribute_values(":one", n(1))
                .expression_attribute_values(":exp", n(window + 3600))
                .return_values(ReturnValue::UpdatedNew)
                .send();
            let out = match tokio::time::timeout(TIMEOUT, request).await {
                Err(_) => return Err(timeout()),
                Ok(Ok(out)) => out,
                Ok(Err(e)) => return Err(unavailable(&e)),
            };
            let count = out
                .attributes
                .as_ref()
                .and_then(|a| a.get(COUNT))
                .and_then(|v| v.as_n().ok());
            Ok(count.and_then(|c| c.parse().ok()).unwrap_or(u32::MAX))
        })
    }

    fn put_client<'a>(&'a self, client: &'a Registration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.put(
                format!("client#{}", client.id),
                json(client)?,
                client.expires_at,
                None,
            )
            .await
        })
    }

    fn client<'a>(&'a self, id: &'a str, now: u64) -> StoreFuture<'a, Option<Registration>> {
        Box::pin(async move {
            let item = self.get(format!("client#{id}")).await?;
            Ok(item
                .as_ref()
                .and_then(record::<Registration>)
                .filter(|c| c.expires_at > now))
        })
    }

    fn put_code<'a>(&'a self, hash: &'a str, code: &'a Code) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.put(
                format!("code#{hash}"),
                json(code)?,
                code.expires_at,
                Some(false),
            )
            .await
        })
    }

    fn take_code<'a>(&'a self, hash: &'a str, now: u64) -> StoreFuture<'a, Taken<Code>> {
        Box::pin(self.take(format!("code#{hash}"), now, |c: &Code| {
            c.grant.family.clone()
        }))
    }

    fn put_refresh<'a>(&'a self, hash: &'a str, refresh: &'a Refresh) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.put(
                format!("refresh#{hash}"),
                json(refresh)?,
                refresh.expires_at,
                Some(false),
            )
            .await
        })
    }

    fn take_refresh<'a>(&'a self, hash: &'a str, now: u64) -> StoreFuture<'a, Taken<Refresh>> {
        Box::pin(self.take(format!("refresh#{hash}"), now, |r: &Refresh| {
            r.grant.family.clone()
        }))
    }

    fn refresh<'a>(&'a self, hash: &'a str) -> StoreFuture<'a, Option<Refresh>> {
        Box::pin(async move {
            Ok(self
                .get(format!("refresh#{hash}"))
                .await?
                .as_ref()
                .and_then(record))
        })
    }

    fn revoke_family<'a>(&'a self, family: &'a str) -> StoreFuture<'a, ()> {
        // Kept as long as any of its refresh tokens could live.
        let until = crate::clock::now_s() + super::settings::REFRESH_TTL_S;
        Box::pin(async move {
            self.put(format!("family#{family}"), s("revoked"), until, None)
                .await
        })
    }

    fn family_revoked<'a>(&'a self, family: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move { Ok(self.get(format!("family#{family}")).await?.is_some()) })
    }

    fn claim<'a>(&'a self, nonce: &'a str, expires_at: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let request = self
                .client
                .put_item()
                .table_name(&self.table)
                .item(PARTITION_KEY, s(&format!("claim#{nonce}")))
                .item(EXPIRES_AT, n(expires_at))
                .condition_expression("attribute_not_exists(#pk)")
                .expression_attribute_names("#pk", PARTITION_KEY)
                .send();
            match tokio::time::timeout(TIMEOUT, request).await {
                Err(_) => Err(timeout()),
                Ok(Ok(_)) => Ok(true),
                Ok(Err(e))
                    if e.as_service_error()
                        .is_some_and(|s| s.is_conditional_check_failed_exception()) =>
                {
                    Ok(false)
                }
                Ok(Err(e)) => Err(unavailable(&e)),
            }
        })
    }
}
