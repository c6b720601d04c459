//! A tool's typed, bounded parameters, and where a parameter's values are completed from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::text::Text;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamType {
    String,
    Integer,
    Number,
    Boolean,
    /// `YYYY-MM-DD`.
    Date,
    /// A moment with its time zone: RFC 3339 with an offset or `Z` (`2026-05-04T10:00:00+02:00`),
    /// or a local time with an IANA zone in brackets (`2026-05-04T10:00[Europe/Berlin]`); a time
    /// without either is refused. It goes up as UTC, `2026-05-04T08:00:00Z`.
    Datetime,
    /// An IANA time zone name (`Europe/Berlin`, `UTC`), checked against the tz database.
    TimeZone,
    /// A list of at most `max_items`: objects with the typed fields `items` declares, or plain
    /// values each checked as the one param `item` declares.
    Array,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ParamIn {
    #[default]
    Query,
    Path,
    Body,
    /// Only inside this tool's `headers`, where `{name}` is filled with the value as it goes
    /// up (Graph's `Prefer: outlook.timezone="{time_zone}"`); without a value the header is
    /// not sent.
    Header,
    /// Never sent upstream: a value only the tool's answer uses, placed as `{name}` in an
    /// `answer.inline` document's `mime` or `name` (Gmail's attachment answer holds neither the
    /// type nor the name: the caller passes them from the message part it read).
    Answer,
}

impl ParamIn {
    /// The default, which the serialized model leaves out.
    fn is_query(&self) -> bool {
        *self == ParamIn::Query
    }
}

/// Params by name, each boxed: a map node then holds eleven pointers instead of eleven params of
/// over 300 bytes each, which kept most of a loaded catalog's memory in nodes nearly empty.
pub type Params = BTreeMap<Text, Box<Param>>;

/// One typed, bounded input parameter. Its rarely used parts (`values`, `complete`) are boxed:
/// a running server holds every param of every catalog, most without them.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Param {
    #[serde(rename = "type")]
    pub kind: ParamType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Text>,
    /// What a person reads for this argument in a confirmation form (`Customer`, `VAT rate`);
    /// without it the name in words (`customer_id` → `Customer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Text>,
    /// For a number that is an amount of money: its ISO 4217 currency (`EUR`), shown with the
    /// amount in a confirmation form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<Text>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// Where it goes; path parameters are always required.
    #[serde(default, rename = "in", skip_serializing_if = "ParamIn::is_query")]
    pub location: ParamIn,
    /// Upstream name when it differs (`company_id` → `creditor_id`).
    #[serde(default, rename = "as", skip_serializing_if = "Option::is_none")]
    pub upstream: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<usize>,
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<Text>>,
    /// For booleans the upstream spells as words: `{true: desc, false: asc}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Box<BooleanValues>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    /// For `type: array`: the fields of each item, typed and bounded like params (no `in`, `as`
    /// or nested arrays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Params>,
    /// For `type: array` of plain values (instead of `items`): the scalar each element is,
    /// typed and bounded like a param (no `in`, `as`, `required`, `default` or nested arrays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<Box<Param>>,
    /// For `type: array` of objects: what each item goes up as, a JSON template whose
    /// `"{field}"` strings are the item's fields (`{name: "{name}", unity: {id: "{unit_id}",
    /// objectName: Unity}}`); without it an item goes up as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_body: Option<serde_json::Value>,
    /// For `type: array` of objects: sums a dry run shows, each the sum over the items of the
    /// product of the listed number fields (`{net: [quantity, price]}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totals: Option<BTreeMap<Text, Vec<Text>>>,
    /// For `type: array`: the most items accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<usize>,
    /// Where `completion/complete` looks this value up (a prompt argument, a path parameter
    /// of a tool with a `resource` template, or any tool param). Such a param also takes a
    /// completion value as offered, `<value> · <name>`: the value before the separator counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete: Option<Box<Complete>>,
    /// For `type: date`: an IANA time zone (`Europe/Berlin`); the date then goes up as the Unix
    /// seconds of 00:00 of that day in the zone, for upstreams that filter by timestamp (sevdesk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unix_time: Option<Text>,
    /// For `type: date`: an IANA time zone (`Europe/Berlin`); the date then goes up as the
    /// RFC 3339 date-time of 00:00 of that day in the zone, in UTC (`2026-04-30T22:00:00Z`), for
    /// upstreams whose date filters are date-times (sevdesk's transactions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_time: Option<Text>,
    /// For a required param a person can give: what they are asked (`Whom should the mail
    /// go to?`) when a call lacks it and the client can show a form, instead of the call
    /// failing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<Text>,
}

impl Param {
    pub fn upstream_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.upstream.as_deref().unwrap_or(name)
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BooleanValues {
    #[serde(rename = "true")]
    pub when_true: Text,
    #[serde(rename = "false")]
    pub when_false: Text,
}

/// Where a param's values come from for `completion/complete`: one page of a list tool of the
/// same catalog, its items' `match` field compared with what the user typed (case-insensitive
/// prefix of the field or of one of its words), each match's `value` field offered.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Complete {
    /// A list tool of this catalog (`papierkram_companies_list`).
    pub from: Text,
    /// The item field the typed text is matched against (`name`).
    #[serde(rename = "match")]
    pub match_field: Text,
    /// The item field offered as the value (`id`).
    pub value: Text,
    /// A string param of `from` that takes the typed text, for an upstream that searches
    /// itself; without it the upstream's first page is filtered here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<Text>,
}
