//! One tool: its contract, its answer when not JSON, and aggregations over list tools.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::text::Text;

use super::kinds::{Effect, Method, Risk, Status};
use super::param::Params;

/// One tool: a contract between the model and the upstream. Its rarely used parts (`answer`,
/// `links`, `aggregate`, `job`) are boxed: a running server holds every tool, most without them.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// `<resource>_<verb>`.
    pub name: Text,
    /// What it returns, when to use it, the words users say, one JSON example.
    pub description: Text,
    /// Listed in `tools/list` (others are reachable through search only).
    #[serde(default = "yes")]
    pub core: bool,
    pub risk: Risk,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Text>,
    /// Safe to retry with the same arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// Upstream writes the call causes, in words (empty for reads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side_effects: Option<Text>,
    /// Writes: the kind of change, which the risk level must match (see [`Effect`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    /// Writes: the audit event a call records, `<record>.<past tense>` (`invoice.delivered`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_event: Option<Text>,
    /// Writes: how a call can fail, each in words a caller can act on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failure_modes: Vec<Text>,
    /// Updates: the get tool (same path parameters) whose record a dry run shows and compares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<Text>,
    /// Writes that reach people: dotted paths into the request body and the `current` record
    /// whose values (through lists, e-mail strings or objects with `email`) are the people the
    /// upstream contacts; a dry run lists them as `notifies` (`[attendee.email, guests]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notifies: Vec<Text>,
    /// Updates whose upstream replaces the whole record and checks its version (optimistic
    /// locking): fields of the `current` record (dotted paths) sent back with the body, as
    /// `current` reads them just before the write; the body params are set on top of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from_current: Vec<Text>,
    /// The tool's API answers on another host than the catalog's `base_url` (Google's People
    /// API at people.googleapis.com beside Gmail's www.googleapis.com): its path goes under this
    /// one, with the same credentials and habits. `{field}` placeholders are secret fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub get: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub put: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete: Option<Text>,
    /// A raw escape hatch: the caller supplies the path. Only exposed with
    /// `<CONNECTOR>_EXPOSE_RAW=true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub raw: bool,
    /// A POST that only reads: the question goes in a body (Google Calendar's free/busy, search
    /// endpoints), nothing upstream changes. A read for every purpose: no confirmation, no write
    /// contract, retried like a GET.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// The list shape: `page`, `page_size`, `fields`, `count_only` are added (`cursor`
    /// instead of `page` when the catalog pages by cursor).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub list: bool,
    /// List tools: how this list pages when not as the catalog's `paging` says (another style,
    /// its items elsewhere, or `unpaged`); boxed, as few tools need it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paging: Option<Box<super::paging::Paging>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: Params,
    /// Writes: the request body as a JSON template whose `"{param}"` strings are the body
    /// params' values (left out when a param has none); everything else goes up as written
    /// (`objectName: Invoice`). Without it, body params go up under their (dotted) upstream names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<serde_json::Value>,
    /// Static request headers for this tool's requests, over the connector's `headers`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<Text, Text>,
    /// List tools: the item fields a caller may select with `fields` (dotted for nesting).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<Text>,
    /// List tools: the compact projection returned when the caller names no `fields`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub default_fields: Vec<Text>,
    /// Result fields holding text users wrote; marked as untrusted data in results.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untrusted: Vec<Text>,
    /// Hints per status for this tool (e.g. 404 → the right tool).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hints: BTreeMap<Status, Text>,
    /// Largest result in bytes before it is cut with a hint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_result_bytes: Option<usize>,
    /// A get tool's record as an MCP resource: a URI template over its path parameters, e.g.
    /// `papierkram://invoices/{id}` (without path parameters a fixed URI, `test://static-text`),
    /// read through the same contract runtime as the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<Text>,
    /// What the tool answers when it is not JSON: a document (`binary`), embedded or linked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Box<Answer>>,
    /// List tools: each item also comes back as a `resource_link` to its record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Box<ItemLinks>>,
    /// An aggregation tool: a composition over this catalog's list tools instead of one
    /// HTTP call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Box<Aggregate>>,
    /// Reads a conversation's events the upstream sent to `/inbound/<connector>` instead of
    /// calling the upstream (see [`InboundRead`](super::inbound::InboundRead)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbound: Option<Box<super::inbound::InboundRead>>,
    /// What must hold before the write is sent: a conversation's reply window open (see
    /// [`Requires`](super::inbound::Requires)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Box<super::inbound::Requires>>,
    /// The call starts an upstream job that goes on after the answer: how to follow it to its
    /// result (see [`Job`](super::job::Job)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<Box<super::job::Job>>,
    /// What one call spends in its connector's unit (`quota.caller_daily_spend`), reserved
    /// on the caller's daily spend before it runs (see [`Spends`](super::spend::Spends)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spends: Option<Box<super::spend::Spends>>,
    /// Which of the connector's published `prices` the call uses, shown in its preview (see
    /// [`Price`](super::price::Price)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<Box<super::price::Price>>,
    /// The OpenAPI `operationId` this tool was drafted from (provenance for a re-import).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<Text>,
    /// `auth: oauth_user` connectors: the upstream scopes this tool needs. A person whose grant
    /// lacks one is asked to connect again for the connector's scopes and these (incremental
    /// consent) before anything is sent; tools without any need only the connector's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<Text>,
    /// Decisions a person still has to take for this tool (`risk: proposed high because
    /// DELETE`), one sentence each; the lint refuses the tool until the list is gone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curate: Vec<Text>,
}

fn yes() -> bool {
    true
}

/// A tool's answer other than JSON.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// The upstream answers a document (a PDF, an image) instead of JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<BinaryAnswer>,
    /// The JSON answer holds documents as base64 strings (a thumbnail, an attachment): each is
    /// taken out of the JSON and sent as content of its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inline: Vec<InlineDocument>,
    /// Where the JSON answer's prose is (`/greeting`): an ok result's text content is that
    /// string instead of the JSON (its structured content keeps the JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Text>,
    /// Typed parts whose content is base64url-encoded (Gmail's MIME parts): the content of each
    /// part of a shown type becomes text in place, any other's a note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<EncodedParts>,
}

/// Where a JSON answer's encoded parts are and which of them to show as text.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EncodedParts {
    /// JSON pointers to the parts, `*` for every element of an array (`/payload/parts/*`).
    pub at: Vec<Text>,
    /// Where a part's encoded content is, from the part (`/body/data`).
    pub data: Text,
    /// Where a part's content type is, from the part (`/mimeType`).
    #[serde(rename = "type")]
    pub kind: Text,
    /// The content types decoded into text (`text/plain`); parameters such as `charset` ignored.
    pub show: Vec<Text>,
    /// The largest part in bytes decoded; a larger one is a note.
    pub max_bytes: usize,
}

/// A document a JSON answer holds as a base64 (or base64url) string.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InlineDocument {
    /// Where the base64 string is (`/thumbnail`, `/attachment/data`).
    pub pointer: Text,
    /// Its content type (`image/png`), or `{param}`: the call's argument when only the caller
    /// knows it (Gmail's attachment answer holds no type; the message named it). `image/*` and
    /// `audio/*` become image and audio content, anything else an embedded resource.
    pub mime: Text,
    /// The document's file name, or `{param}`: the call's argument; it ends the embedded
    /// resource's URI and is named where the document was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Text>,
    /// The largest document in bytes once decoded.
    pub max_bytes: usize,
}

/// A document answer: which content types are accepted, how large it may be, and how it
/// reaches the client.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BinaryAnswer {
    /// Accepted content types (`application/pdf`, `image/*`); an answer of another type is an
    /// error. An `image/*` answer comes back as image content.
    pub mime: Vec<Text>,
    /// The largest document in bytes; a larger one is a status result with a hint, never cut.
    pub max_bytes: usize,
    /// `resource`: embedded (base64 with its MIME type); `link`: a `resource_link` to the
    /// tool's `resource` URI, read by `resources/read`.
    #[serde(default, rename = "as")]
    pub form: BinaryForm,
    /// The upstream answers a redirect to a pre-authenticated download URL (OneDrive's 302,
    /// a presigned S3 URL): its `Location` is fetched once, with a GET that carries none of
    /// our credentials; https only (http only on loopback).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redirect: bool,
}

/// How a document reaches the client.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BinaryForm {
    #[default]
    Resource,
    Link,
}

/// A list's items as `resource_link`s: the record URI each item fills in.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ItemLinks {
    /// A `resource` template of a get tool of this catalog, filled from each item's fields
    /// (`papierkram://invoices/{id}`).
    pub uri: Text,
    /// The item field shown as the link's title (`name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Text>,
}

/// A composition: every page of some list tools, reduced to a compact answer.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Aggregate {
    /// Named inputs, each all pages of a list tool.
    pub sources: BTreeMap<Text, Source>,
    /// The answer's fields, in order.
    pub result: Vec<Measure>,
}

/// All pages of a list tool, or one answer of a read-only tool whose items are scattered in it
/// (`items`). String arguments may use `{param}` of the aggregation tool and, when it has
/// `year` and `month`, `{month_start}`/`{month_end}` (else `{year_start}`/`{year_end}` with
/// just `year`); an argument that is exactly one `{param}` takes that argument's value as it
/// is (an array stays an array). An argument whose placeholder has no value is left out.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub tool: Text,
    #[serde(default)]
    pub args: BTreeMap<Text, serde_json::Value>,
    /// A read-only tool that is no list (Google's free/busy): its one answer's items are every
    /// value this JSON pointer names, `*` for every element or member
    /// (`/calendars/*/busy/*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Text>,
    /// Keep only items whose (dotted) field has one of these values.
    #[serde(default, rename = "where", skip_serializing_if = "BTreeMap::is_empty")]
    pub filter: BTreeMap<Text, Vec<Text>>,
}

/// One answer field; exactly one of `count`, `sum`, `difference`, `top`, `items`, `days`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    pub name: Text,
    /// Number of items of a source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<Text>,
    /// Exact decimal sum of `source.field`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sum: Option<Text>,
    /// `[a, b]`: earlier measure a minus earlier measure b.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<Vec<Text>>,
    /// Group by a field and keep the largest groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top: Option<Top>,
    /// The first items of a source in a given order, with a few fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Items>,
    /// Per calendar day in a time zone: the items on that day, the time they take and the free
    /// time left within the working hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<Days>,
    /// Keep only items whose (dotted) field has one of these values.
    #[serde(default, rename = "where", skip_serializing_if = "BTreeMap::is_empty")]
    pub filter: BTreeMap<Text, Vec<Text>>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Top {
    /// The source.
    pub of: Text,
    /// The field to group by (dotted).
    pub by: Text,
    /// Rank groups by the sum of this field; by item count when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sum: Option<Text>,
    #[serde(default = "five")]
    pub n: usize,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Items {
    pub of: Text,
    pub fields: Vec<Text>,
    /// Field to order by (dates and numbers compare as such).
    pub sort: Text,
    #[serde(default)]
    pub descending: bool,
    #[serde(default = "five")]
    pub n: usize,
}

/// A day-by-day view of a source of appointments (`start`/`end` moments): for each of `days`
/// calendar days from `from` in `zone`, how many items start that day, the minutes they take,
/// and the free minutes left within `hours` (overlaps counted once). `from`, `zone` and `hours`
/// may be `{param}` placeholders of the aggregation tool.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Days {
    /// The source.
    pub of: Text,
    /// The (dotted) item field with the start, an RFC 3339 moment.
    pub start: Text,
    /// The (dotted) item field with the end, an RFC 3339 moment.
    pub end: Text,
    /// The first day, `YYYY-MM-DD`.
    pub from: Text,
    /// How many days, 1 to 31.
    #[serde(default = "seven")]
    pub days: usize,
    /// The IANA time zone the days and hours are in (`Europe/Berlin`).
    pub zone: Text,
    /// The working hours each day, `HH:MM-HH:MM`, within which free time is counted.
    pub hours: Text,
    /// The working days (`Mon-Fri`, `Mon,Tue,Thu`); other days have no free time and say
    /// `off`. Unset: every day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekdays: Option<Text>,
    /// More sources whose items take time too (the busy stretches of the other people asked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<Text>,
    /// Free slots: each working day lists its free stretches within the hours of at least this
    /// many minutes (a number, or a `{param}`), earliest first, instead of its counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<Text>,
}

/// The weekdays a `Mon-Fri` or `Mon,Tue,Thu` text names, as indexes from Monday (0) to Sunday
/// (6); `None` when a word is no English three-letter day or a range runs backwards.
pub fn weekdays(text: &str) -> Option<[bool; 7]> {
    const NAMES: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
    let day = |w: &str| NAMES.iter().position(|n| n.eq_ignore_ascii_case(w.trim()));
    let mut set = [false; 7];
    for part in text.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (day(a)?, day(b)?);
                if a > b {
                    return None;
                }
                set[a..=b].iter_mut().for_each(|d| *d = true);
            }
            None => set[day(part)?] = true,
        }
    }
    Some(set)
}

/// `HH:MM-HH:MM` as minutes after midnight, the start before the end (`24:00` ends a day).
pub fn working_hours(text: &str) -> Option<(u32, u32)> {
    let minutes = |s: &str| -> Option<u32> {
        let (h, m) = s.trim().split_once(':')?;
        if h.len() != 2 || m.len() != 2 {
            return None;
        }
        let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
        (m < 60 && (h < 24 || (h == 24 && m == 0))).then_some(h * 60 + m)
    };
    let (a, b) = text.split_once('-')?;
    let (a, b) = (minutes(a)?, minutes(b)?);
    (a < b).then_some((a, b))
}

/// The shortest and longest free slot a `days` measure looks for, minutes.
pub const MIN_SLOT: u32 = 5;
pub const MAX_SLOT: u32 = 720;

/// A slot length in minutes, within [`MIN_SLOT`] and [`MAX_SLOT`].
pub fn slot_minutes(text: &str) -> Option<u32> {
    text.trim()
        .parse()
        .ok()
        .filter(|m| (MIN_SLOT..=MAX_SLOT).contains(m))
}

fn seven() -> usize {
    7
}

fn five() -> usize {
    5
}

impl Tool {
    /// The HTTP mapping: method and fixed path template.
    pub fn http(&self) -> Option<(Method, &str)> {
        [
            (Method::Get, &self.get),
            (Method::Post, &self.post),
            (Method::Put, &self.put),
            (Method::Patch, &self.patch),
            (Method::Delete, &self.delete),
        ]
        .into_iter()
        .find_map(|(m, p)| p.as_deref().map(|p| (m, p)))
    }

    /// Whether the tool only reads: a GET, or a POST declared `read_only`.
    pub fn is_read_only(&self) -> bool {
        self.http()
            .is_some_and(|(m, _)| m.is_read_only() || self.read_only)
    }
}
