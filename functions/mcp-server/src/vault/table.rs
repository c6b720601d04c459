//! The vault on Lambda: a DynamoDB table (partition key `pk`: the person's id, sort key `sk`:
//! the entry's slot `<connector>#<scopes>`), each grant sealed with AES-256-GCM under a KMS
//! data key for that person. An item holds the wrapped data key (`data_key`), the sealed grant
//! (`sealed`), `version`, `connected_at`, the token's `token_expires_at` and the scopes the
//! grant holds, `granted` (both for the list; scope names are no secret) and, while a refresh
//! runs, `refreshing_until`. No token and no subject is stored in the clear.
//! A removed entry leaves a tombstone, the item with its `version` (one more) and nothing
//! else: a connection made again continues from it, so a version never comes back and a
//! refresh that claimed the old one cannot overwrite the new connection.
//!
//! A read is one `GetItem` (strongly consistent, so a refresh is seen at once) and, at most
//! every few minutes per person and instance, one KMS `Decrypt`; a connection or refresh one
//! `UpdateItem` and now and then a `GenerateDataKey`.

use std::collections::HashMap;
use std::time::Duration;
use tracing::Instrument;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use super::keys::KmsKeys;
use super::seal;
use super::{
    Connection, EntryKey, Grant, MAX_LISTED, Person, Stored, VaultError, VaultFuture, VaultStore,
};

/// The table's keys (infra creates the table with these).
pub const PARTITION_KEY: &str = "pk";
pub const SORT_KEY: &str = "sk";
const DATA_KEY: &str = "data_key";
const SEALED: &str = "sealed";
const VERSION: &str = "version";
const CONNECTED_AT: &str = "connected_at";
const TOKEN_EXPIRES_AT: &str = "token_expires_at";
const GRANTED: &str = "granted";
const REFRESHING_UNTIL: &str = "refreshing_until";
/// The most one table request may take.
const TIMEOUT: Duration = Duration::from_millis(2000);

pub struct TableVault {
    client: Client,
    table: String,
    keys: KmsKeys,
}

impl TableVault {
    pub fn new(client: Client, table: impl Into<String>, keys: KmsKeys) -> Self {
        TableVault {
            client,
            table: table.into(),
            keys,
        }
    }

    /// The grant sealed for this entry, with the wrapped data key it was sealed under.
    async fn seal(&self, key: &EntryKey, grant: &Grant) -> Result<(Blob, Blob), VaultError> {
        let data_key = self.keys.for_sealing(&key.person().id()).await?;
        let plain = serde_json::to_vec(grant).map_err(|_| VaultError::Corrupt)?;
        let sealed = seal::seal(&data_key.plain, &key.binding(), &plain)?;
        Ok((Blob::new(data_key.wrapped), Blob::new(sealed)))
    }

    async fn open(
        &self,
        key: &EntryKey,
        item: &HashMap<String, AttributeValue>,
    ) -> Result<Stored, VaultError> {
        let blob = |name: &str| {
            item.get(name)
                .and_then(|v| v.as_b().ok())
                .map(|b| b.as_ref().to_vec())
                .ok_or(VaultError::Corrupt)
        };
        let data_key = self
            .keys
            .unwrap(&key.person().id(), &blob(DATA_KEY)?)
            .await?;
        let plain = seal::open(&data_key, &key.binding(), &blob(SEALED)?)?;
        let grant: Grant = serde_json::from_slice(&plain).map_err(|_| VaultError::Corrupt)?;
        Ok(Stored {
            grant,
            version: number(item, VERSION).ok_or(VaultError::Corrupt)?,
            refreshing_until: number(item, REFRESHING_UNTIL),
        })
    }

    fn key_of(&self, key: &EntryKey) -> HashMap<String, AttributeValue> {
        HashMap::from([
            (PARTITION_KEY.to_string(), s(key.person().id())),
            (SORT_KEY.to_string(), s(key.slot())),
        ])
    }
}

impl VaultStore for TableVault {
    fn get<'a>(&'a self, key: &'a EntryKey) -> VaultFuture<'a, Option<Stored>> {
        Box::pin(
            async move {
                let request = self
                    .client
                    .get_item()
                    .table_name(&self.table)
                    .set_key(Some(self.key_of(key)))
                    .consistent_read(true);
                let out = within(request.send()).await?;
                match out.item {
                    Some(item) if item.contains_key(SEALED) => {
                        self.open(key, &item).await.map(Some)
                    }
                    // None, or a tombstone.
                    _ => Ok(None),
                }
            }
            .instrument(crate::telemetry::table("vault", "GetItem")),
        )
    }

    fn put<'a>(&'a self, key: &'a EntryKey, grant: &'a Grant, now: u64) -> VaultFuture<'a, ()> {
        Box::pin(
            async move {
            let (data_key, sealed) = self.seal(key, grant).await?;
            let (set, remove) = optional(grant);
            let request = self
                .client
                .update_item()
                .table_name(&self.table)
                .set_key(Some(self.key_of(key)))
                .update_expression(format!(
                    "SET #dk = :dk, #s = :s, #v = if_not_exists(#v, :zero) + :one, #c = :now{set} REMOVE {remove}"
                ))
                .expression_attribute_names("#dk", DATA_KEY)
                .expression_attribute_names("#s", SEALED)
                .expression_attribute_names("#v", VERSION)
                .expression_attribute_names("#c", CONNECTED_AT)
                .expression_attribute_names("#r", REFRESHING_UNTIL)
                .expression_attribute_values(":dk", AttributeValue::B(data_key))
                .expression_attribute_values(":s", AttributeValue::B(sealed))
                .expression_attribute_values(":zero", n(0))
                .expression_attribute_values(":one", n(1))
                .expression_attribute_values(":now", n(now));
            within(with_optional(request, grant).send()).await.map(|_| ())
            }
            .instrument(crate::telemetry::table("vault", "UpdateItem")),
        )
    }

    fn claim_refresh<'a>(
        &'a self,
        key: &'a EntryKey,
        version: u64,
        now: u64,
        until: u64,
    ) -> VaultFuture<'a, bool> {
        Box::pin(
            async move {
                let request = self
                    .client
                    .update_item()
                    .table_name(&self.table)
                    .set_key(Some(self.key_of(key)))
                    .update_expression("SET #r = :until")
                    .condition_expression("#v = :v AND (attribute_not_exists(#r) OR #r < :now)")
                    .expression_attribute_names("#r", REFRESHING_UNTIL)
                    .expression_attribute_names("#v", VERSION)
                    .expression_attribute_values(":until", n(until))
                    .expression_attribute_values(":v", n(version))
                    .expression_attribute_values(":now", n(now));
                conditional(request.send()).await
            }
            .instrument(crate::telemetry::table("vault", "UpdateItem")),
        )
    }

    fn replace<'a>(
        &'a self,
        key: &'a EntryKey,
        version: u64,
        grant: &'a Grant,
    ) -> VaultFuture<'a, bool> {
        Box::pin(
            async move {
                let (data_key, sealed) = self.seal(key, grant).await?;
                let (set, remove) = optional(grant);
                let request = self
                    .client
                    .update_item()
                    .table_name(&self.table)
                    .set_key(Some(self.key_of(key)))
                    .update_expression(format!(
                        "SET #dk = :dk, #s = :s, #v = :next{set} REMOVE {remove}"
                    ))
                    .condition_expression("#v = :v")
                    .expression_attribute_names("#dk", DATA_KEY)
                    .expression_attribute_names("#s", SEALED)
                    .expression_attribute_names("#v", VERSION)
                    .expression_attribute_names("#r", REFRESHING_UNTIL)
                    .expression_attribute_values(":dk", AttributeValue::B(data_key))
                    .expression_attribute_values(":s", AttributeValue::B(sealed))
                    .expression_attribute_values(":v", n(version))
                    .expression_attribute_values(":next", n(version + 1));
                conditional(with_optional(request, grant).send()).await
            }
            .instrument(crate::telemetry::table("vault", "UpdateItem")),
        )
    }

    fn remove<'a>(&'a self, key: &'a EntryKey) -> VaultFuture<'a, bool> {
        Box::pin(
            async move {
                let request = self
                    .client
                    .update_item()
                    .table_name(&self.table)
                    .set_key(Some(self.key_of(key)))
                    .update_expression("SET #v = #v + :one REMOVE #dk, #s, #c, #e, #g, #r")
                    .condition_expression("attribute_exists(#s)")
                    .expression_attribute_names("#v", VERSION)
                    .expression_attribute_names("#dk", DATA_KEY)
                    .expression_attribute_names("#s", SEALED)
                    .expression_attribute_names("#c", CONNECTED_AT)
                    .expression_attribute_names("#e", TOKEN_EXPIRES_AT)
                    .expression_attribute_names("#g", GRANTED)
                    .expression_attribute_names("#r", REFRESHING_UNTIL)
                    .expression_attribute_values(":one", n(1));
                conditional(request.send()).await
            }
            .instrument(crate::telemetry::table("vault", "DeleteItem")),
        )
    }

    fn list<'a>(&'a self, person: &'a Person) -> VaultFuture<'a, Vec<Connection>> {
        Box::pin(
            async move {
                let request = self
                    .client
                    .query()
                    .table_name(&self.table)
                    .key_condition_expression("#pk = :pk")
                    .expression_attribute_names("#pk", PARTITION_KEY)
                    .expression_attribute_names("#sk", SORT_KEY)
                    .expression_attribute_names("#e", TOKEN_EXPIRES_AT)
                    .expression_attribute_names("#c", CONNECTED_AT)
                    .expression_attribute_names("#g", GRANTED)
                    .expression_attribute_values(":pk", s(person.id()))
                    .projection_expression("#sk, #e, #c, #g")
                    .limit(MAX_LISTED as i32);
                let out = within(request.send()).await?;
                Ok(out
                    .items
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|item| {
                        let slot = item.get(SORT_KEY)?.as_s().ok()?;
                        // A tombstone has no `connected_at`: nothing is connected there.
                        let connected_at = number(item, CONNECTED_AT)?;
                        let c = Connection::from_slot(
                            slot,
                            number(item, TOKEN_EXPIRES_AT),
                            connected_at,
                        )?;
                        let granted = item.get(GRANTED).and_then(|g| g.as_s().ok());
                        Some(c.holding(granted.map(|g| g.split_whitespace())))
                    })
                    .collect())
            }
            .instrument(crate::telemetry::table("vault", "Query")),
        )
    }
}

/// The update expression's parts for what a grant may leave unsaid, its expiry and its scopes:
/// each set when known, else removed (the refresh lease always is).
fn optional(grant: &Grant) -> (String, String) {
    let (mut set, mut remove) = (String::new(), vec!["#r"]);
    match grant.expires_at {
        Some(_) => set.push_str(", #e = :e"),
        None => remove.push("#e"),
    }
    match grant.scopes {
        Some(_) => set.push_str(", #g = :g"),
        None => remove.push("#g"),
    }
    (set, remove.join(", "))
}

/// The names and values of [`optional`]'s parts.
fn with_optional(
    request: aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder,
    grant: &Grant,
) -> aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder {
    let mut request = request
        .expression_attribute_names("#e", TOKEN_EXPIRES_AT)
        .expression_attribute_names("#g", GRANTED);
    if let Some(e) = grant.expires_at {
        request = request.expression_attribute_values(":e", n(e));
    }
    if let Some(g) = &grant.scopes {
        request = request.expression_attribute_values(":g", s(g.join(" ")));
    }
    request
}

fn s(v: String) -> AttributeValue {
    AttributeValue::S(v)
}

fn n(v: u64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn number(item: &HashMap<String, AttributeValue>, name: &str) -> Option<u64> {
    item.get(name)?.as_n().ok()?.parse().ok()
}

async fn within<T, E, F>(send: F) -> Result<T, VaultError>
where
    F: Future<Output = Result<T, aws_sdk_dynamodb::error::SdkError<E>>>,
    E: std::error::Error + 'static,
{
    match tokio::time::timeout(TIMEOUT, send).await {
        Err(_) => Err(VaultError::Unavailable(format!(
            "the vault table gave no answer within {} ms",
            TIMEOUT.as_millis()
        ))),
        Ok(r) => r.map_err(|e| {
            VaultError::Unavailable(aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string())
        }),
    }
}

/// A conditional update: `false` when its condition failed.
async fn conditional<T, F>(send: F) -> Result<bool, VaultError>
where
    F: Future<
        Output = Result<
            T,
            aws_sdk_dynamodb::error::SdkError<
                aws_sdk_dynamodb::operation::update_item::UpdateItemError,
            >,
        >,
    >,
{
    match tokio::time::timeout(TIMEOUT, send).await {
        Err(_) => Err(VaultError::Unavailable(format!(
            "the vault table gave no answer within {} ms",
            TIMEOUT.as_millis()
        ))),
        Ok(Ok(_)) => Ok(true),
        Ok(Err(e))
            if e.as_service_error()
                .is_some_and(|s| s.is_conditional_check_failed_exception()) =>
        {
            Ok(false)
        }
        Ok(Err(e)) => Err(VaultError::Unavailable(
            aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
        )),
    }
}
