//! The shared table on Lambda (`MCP_LIMITS_TABLE`): its key `pk`, the TTL attribute
//! `expires_at`, and the client the counters (`items`: one small item per counter and window)
//! use; the `/health` probe items (`crate::probes`) live in the same table.

use std::time::Duration;

use aws_sdk_dynamodb::Client;

/// The table's partition key and TTL attribute (infra creates the table with these).
pub(crate) const KEY: &str = "pk";
pub(crate) const EXPIRES: &str = "expires_at";

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

    /// The client, table name and request timeout, for other items kept in this table.
    pub(crate) fn parts(&self) -> (Client, String, Duration) {
        (self.client.clone(), self.name.clone(), self.timeout)
    }

    /// The same table for the counter items (`items`): what tool calls count.
    pub fn items(&self) -> super::items::Items {
        super::items::Items::new(self.client.clone(), self.name.clone(), self.timeout)
    }
}
