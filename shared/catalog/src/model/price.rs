//! Published prices a write's preview shows: a connector's `prices` table (what one unit of each
//! item costs, where and when that was published) and a tool's `price` (which item its call
//! uses, when the request or the record the dry run reads says so).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::text::Text;

/// A connector's published price table: Replicate's hardware by the second.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    /// What the items are, a lower-case word (`hardware`).
    pub of: Text,
    /// What one price pays for, a lower-case word (`second`).
    pub per: Text,
    /// ISO 4217 code of the prices (`USD`).
    pub currency: Text,
    /// Where the prices are published, an https URL.
    pub source: Text,
    /// The day they were read there, `YYYY-MM-DD`.
    pub as_of: Text,
    /// Shown with the whole table when a call's item is not known: where a person finds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown: Option<Text>,
    /// The price of one `per` of each item (`gpu-t4: 0.000225`).
    pub items: BTreeMap<Text, f64>,
}

/// Which item of the connector's `prices` a call uses: the value of the string argument `by`,
/// or the field at `from` (a dotted path) of the record the dry run reads through `current`;
/// neither, or a value the table lacks, shows the whole table.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Price {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Text>,
}
