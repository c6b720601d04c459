//! The catalog itself: one upstream API, its connection, and the tools that reach it; where a
//! drafted catalog came from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::text::Text;

use super::connection::{Auth, Errors, McpRemote};
use super::kinds::Status;
use super::paging::{ListEnvelope, Paging};
use super::prompt::Prompt;
use super::quota::{Health, Quota};
use super::tool::Tool;

/// One upstream API and the tools that reach it.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// Connector name, snake_case; prefixes its env vars (`PAPIERKRAM_EXPOSE_RAW`) and secrets.
    pub connector: Text,
    /// Human title used in hints (`Papierkram did not answer…`).
    #[serde(default)]
    pub title: Option<Text>,
    /// What the connector is for, in one or two sentences of the company's words: the
    /// capability page's `purpose`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<Text>,
    /// Base URL; `{field}` placeholders are filled from the connector's secret fields. A REST
    /// connector's, so required unless the connector is a federated MCP server (`mcp`).
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub base_url: Text,
    /// A remote MCP server federated as this connector, instead of `base_url` and `tools`: its
    /// tools are fetched from it, filtered by `allow` and shaped by `overlays`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpRemote>,
    /// Who fixes this connector's tool names, when it is not the platform: a conformance suite's
    /// fixtures, an interface clients already call by name. Its names then need not begin with
    /// the connector (they must still be snake_case, unreserved, clear of every other
    /// connector's prefix and of every other connector's names); the lint reports the gap, since
    /// a model can no longer tell the system from the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names_fixed_by: Option<Text>,
    /// Secret fields this connector needs (`connectors.<connector>.<field>` in the deployment
    /// secret, `<CONNECTOR>_<FIELD>` locally).
    #[serde(default)]
    pub secrets: Vec<Text>,
    #[serde(default)]
    pub auth: Auth,
    /// Static request headers sent with every request to this upstream
    /// (`cal-api-version: 2024-08-13`); a tool's own `headers` win by name. No credentials:
    /// those belong in `auth`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<Text, Text>,
    /// Whether the upstream may be sent our W3C trace context (`traceparent`, `tracestate`) when
    /// traces are exported: an upstream that joins the trace. Off by default: the header tells
    /// the upstream our trace and span ids, and an API may refuse a header it does not know.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trace_context: bool,
    /// Upstream timeout per request, milliseconds.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    /// The largest answer body read from the upstream, bytes (the server's default, 4 MiB, when
    /// unset); a larger answer is `unavailable` with a hint to narrow.
    #[serde(default)]
    pub max_response_bytes: Option<usize>,
    /// How the upstream wraps lists, the older form of `paging` (1-based pages, dotted
    /// top-level names); list tools need it or `paging`.
    #[serde(default)]
    pub list_envelope: Option<ListEnvelope>,
    /// How the upstream pages its lists: one of five styles (see [`Paging`](crate::Paging)); list tools
    /// need it or `list_envelope`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paging: Option<Paging>,
    /// Where the upstream puts its error message in an error body (dotted path).
    #[serde(default)]
    pub error_message: Option<Text>,
    /// How the upstream answers errors, beyond `error_message`: messages by JSON pointer,
    /// RFC 9457 problem details, a status inside a 2xx body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Errors>,
    #[serde(default)]
    pub quota: Option<Quota>,
    /// Published prices a write's preview shows (see [`Prices`](crate::Prices)): the
    /// hardware a prediction runs on, by the second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prices: Option<Box<super::price::Prices>>,
    /// Webhooks the upstream sends to `/inbound/<connector>` (signed), kept for the tools that
    /// read them (see [`Inbound`](crate::Inbound)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbound: Option<Box<super::inbound::Inbound>>,
    /// A cheap GET used by `/health`.
    #[serde(default)]
    pub health: Option<Health>,
    /// Connector-wide hints per result status; a tool's own hints win.
    #[serde(default)]
    pub hints: BTreeMap<Status, Text>,
    /// The tools; a federated MCP connector declares none (its tools come from the remote).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// Prompts a user can pick in the client, each naming tools of this catalog.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<Prompt>,
    /// Decisions a person still has to take for this connector (auth, errors, paging, quota),
    /// one sentence each, left by the OpenAPI importer; the lint refuses the catalog until the
    /// list is gone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curate: Vec<Text>,
    /// The OpenAPI document an importer drafted this catalog from; a re-import compares
    /// against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<Provenance>,
}

/// Which OpenAPI document a drafted catalog came from: enough to tell whether it changed.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// `info.title` of the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Text>,
    /// `info.version` of the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<Text>,
    /// SHA-256 of the document's bytes, lower-case hex.
    pub sha256: Text,
}

fn default_timeout_ms() -> u64 {
    10_000
}
