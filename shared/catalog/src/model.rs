//! The catalog file format: one YAML file per upstream API, every tool a contract.
//!
//! `catalog.schema.json` beside this crate describes the same format for editors; a test keeps
//! the two in step.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One upstream API and the tools that reach it.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// Connector name, snake_case; prefixes its env vars (`PAPIERKRAM_EXPOSE_RAW`) and secrets.
    pub connector: String,
    /// Human title used in hints (`Papierkram did not answer…`).
    #[serde(default)]
    pub title: Option<String>,
    /// Base URL; `{field}` placeholders are filled from the connector's secret fields. A REST
    /// connector's, so required unless the connector is a federated MCP server (`mcp`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub base_url: String,
    /// A remote MCP server federated as this connector, instead of `base_url` and `tools`: its
    /// tools are fetched from it, filtered by `allow` and shaped by `overlays`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpRemote>,
    /// Secret fields this connector needs (`connectors.<connector>.<field>` in the deployment
    /// secret, `<CONNECTOR>_<FIELD>` locally).
    #[serde(default)]
    pub secrets: Vec<String>,
    #[serde(default)]
    pub auth: Auth,
    /// Static request headers sent with every request to this upstream
    /// (`cal-api-version: 2024-08-13`); a tool's own `headers` win by name. No credentials:
    /// those belong in `auth`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
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
    pub error_message: Option<String>,
    /// How the upstream answers errors, beyond `error_message`: messages by JSON pointer,
    /// RFC 9457 problem details, a status inside a 2xx body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Errors>,
    #[serde(default)]
    pub quota: Option<Quota>,
    /// A cheap GET used by `/health`.
    #[serde(default)]
    pub health: Option<Health>,
    /// Connector-wide hints per result status; a tool's own hints win.
    #[serde(default)]
    pub hints: BTreeMap<Status, String>,
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
    pub curate: Vec<String>,
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
    pub title: Option<String>,
    /// `info.version` of the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// SHA-256 of the document's bytes, lower-case hex.
    pub sha256: String,
}

fn default_timeout_ms() -> u64 {
    10_000
}

/// How requests authenticate upstream; absent means no credentials. One of:
/// `{bearer: FIELD}` (`Authorization: Bearer <FIELD>`), `{header: NAME, secret: FIELD}` (the
/// secret as the header's value), `{header: NAME, value: "Token {FIELD}"}` (a template over
/// secret fields), `{query: NAME, secret: FIELD}` (a query parameter, never shown in a preview
/// or a log), `{basic: {username: FIELD, password: FIELD}}` (HTTP basic) or
/// `{oauth_user: {…}}` (each person's own token from the upstream's authorization server).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Auth {
    /// `Authorization: Bearer <this secret field>`.
    #[serde(default)]
    pub bearer: Option<String>,
    /// A named header carrying the secret field `secret`, or the template `value`.
    #[serde(default)]
    pub header: Option<String>,
    #[serde(default)]
    pub secret: Option<String>,
    /// With `header`: the header's value, `{field}` placeholders filled from secret fields
    /// (`Bearer {token}`, `{api_key}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A query parameter carrying the secret field `secret`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// HTTP basic authentication from two secret fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic: Option<BasicAuth>,
    /// Each person's own access token, got from the upstream's authorization server (code with
    /// PKCE) and kept in the vault: `Authorization: Bearer <their token>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth_user: Option<OAuthUser>,
}

/// The upstream's authorization server, for `auth: { oauth_user: … }`: where a person grants
/// us access (authorization code with PKCE) and where codes and refresh tokens are exchanged.
/// The client's id and secret are secret fields, not values.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OAuthUser {
    /// The authorization endpoint a person's browser is sent to (https; http only on loopback).
    pub authorization_endpoint: String,
    /// The token endpoint codes and refresh tokens are exchanged at (https; http only on
    /// loopback).
    pub token_endpoint: String,
    /// Secret field with our client id at the upstream.
    pub client_id: String,
    /// Secret field with the client secret; absent for a public client (PKCE alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The scopes asked for; with the person and the connector they name the vault entry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// RFC 8707 resource indicator sent with the authorization and token requests, for
    /// authorization servers that support it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
}

/// HTTP basic credentials: secret field names, not values.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BasicAuth {
    /// Secret field with the user name (or the API key, for APIs that send it as the user).
    pub username: String,
    /// Secret field with the password; absent sends an empty one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

impl Auth {
    /// The secret fields the credentials come from, in the order they are used.
    pub fn secret_fields(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        out.extend(self.bearer.as_deref());
        out.extend(self.secret.as_deref());
        if let Some(value) = &self.value {
            out.extend(crate::placeholders(value));
        }
        if let Some(basic) = &self.basic {
            out.push(&basic.username);
            out.extend(basic.password.as_deref());
        }
        if let Some(o) = &self.oauth_user {
            out.push(&o.client_id);
            out.extend(o.client_secret.as_deref());
        }
        out
    }
}

/// How an upstream answers errors. The message becomes `upstream_message` (one line, redacted);
/// the status decides the result status and its hint, as an HTTP status would.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Errors {
    /// JSON pointers (`/error/message`) to the message in an error body, tried in order; a
    /// string, or a list of strings joined with `; `.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message: Vec<String>,
    /// `application/problem+json` answers (RFC 9457): the message is `title: detail` when no
    /// pointer found one.
    #[serde(default)]
    pub problem_details: bool,
    /// JSON pointer to a status inside a 2xx body (`/status`, `/error/code`): a number (or a
    /// numeric string) from 400 to 599 there makes the answer a refusal with that status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// A federated Streamable HTTP MCP server.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct McpRemote {
    /// The server's MCP endpoint; `{field}` placeholders are filled from the connector's secret
    /// fields, like `base_url`.
    pub url: String,
    /// Time allowed for one request to the remote, milliseconds; the catalog's `timeout_ms`
    /// when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// How long a fetched tool list is used before it is fetched again, seconds.
    #[serde(default = "default_tools_ttl_s")]
    pub tools_ttl_s: u64,
    /// The remote tool names (or `*` globs) the deployment serves; every other remote tool is
    /// never listed nor callable. Explicit, so a remote adding a tool adds nothing here.
    pub allow: Vec<String>,
    /// The local contract per remote tool name: risk, name, description, listing, untrusted
    /// fields.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub overlays: BTreeMap<String, RemoteOverlay>,
}

fn default_tools_ttl_s() -> u64 {
    300
}

/// What the catalog says about one remote tool, over what the remote says.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RemoteOverlay {
    /// Our risk level; without it a tool the remote does not declare read-only is `high`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    /// Our name for it instead of `<connector>_<remote name>`; must begin with the connector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Our description instead of the remote's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Listed in `tools/list` (default); `false` leaves it to search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<bool>,
    /// Result fields (dotted) holding text users wrote, marked as untrusted data.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untrusted: Vec<String>,
}

/// How the next page is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PagingStyle {
    /// Numbered pages: `page_param` (from `first_page`, 0 or 1) and `size_param`.
    Page,
    /// An offset and a limit (`offset`/`limit`, `skip`/`take`): `offset_param`, `size_param`.
    Offset,
    /// An opaque cursor from the body (`next`) sent back as `cursor_param` (`pageToken`).
    Cursor,
    /// A full URL of the next page in the body (`next`: Replicate's `next`, Graph's
    /// `@odata.nextLink`), followed only within the connector's base URL.
    NextUrl,
    /// The `Link: <…>; rel="next"` response header (RFC 8288), followed like `next_url`.
    LinkHeader,
}

impl PagingStyle {
    pub fn as_str(self) -> &'static str {
        match self {
            PagingStyle::Page => "page",
            PagingStyle::Offset => "offset",
            PagingStyle::Cursor => "cursor",
            PagingStyle::NextUrl => "next_url",
            PagingStyle::LinkHeader => "link_header",
        }
    }
}

/// The `paging` declaration: a style, its parameter names and JSON pointers into the answer.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Paging {
    pub style: PagingStyle,
    /// JSON pointer to the items array; `""` when the body is the array.
    pub items: String,
    /// `page`: the query parameter of the page number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_param: Option<String>,
    /// `page`: the number of the first page, 0 or 1 (1 when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_page: Option<u32>,
    /// The query parameter of the page size (`per_page`, `limit`, `take`, `pageSize`); needed
    /// by `page` and `offset`, optional otherwise (the upstream's own size when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_param: Option<String>,
    /// `offset`: the query parameter of the number of items skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_param: Option<String>,
    /// `cursor`: the query parameter the cursor goes back in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_param: Option<String>,
    /// JSON pointer to the total number of matches; `count_only` needs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<String>,
    /// JSON pointer to a boolean "more pages follow".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more: Option<String>,
    /// `cursor`, `next_url`: JSON pointer to the next cursor or the next page's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// Largest page the upstream serves.
    #[serde(default = "default_max_page_size")]
    pub max_page_size: u32,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ListEnvelope {
    /// Field holding the items.
    pub items: String,
    /// Query parameter names the upstream uses for paging.
    #[serde(default = "default_page")]
    pub page_param: String,
    #[serde(default = "default_page_size")]
    pub page_size_param: String,
    /// Response fields with the total count and the "more pages" flag.
    #[serde(default)]
    pub total: Option<String>,
    #[serde(default)]
    pub more: Option<String>,
    /// Largest page the upstream serves.
    #[serde(default = "default_max_page_size")]
    pub max_page_size: u32,
}

fn default_page() -> String {
    "page".into()
}
fn default_page_size() -> String {
    "page_size".into()
}
fn default_max_page_size() -> u32 {
    100
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Quota {
    /// A header family that reports the remaining requests, the limit and the reset
    /// (`x_ratelimit` or `ietf`), instead of a `remaining` header of the API's own name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<RateLimitHeaders>,
    /// With `headers`: the named bucket or policy to read (`X-RateLimit-Remaining-Long`, an IETF
    /// policy `"long"`); `"*"` reads every bucket sent and reports the tightest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<String>,
    /// With `headers: x_ratelimit`: how `X-RateLimit-Reset` counts (seconds from now, or a Unix
    /// time).
    #[serde(default, skip_serializing_if = "ResetFormat::is_seconds")]
    pub reset: ResetFormat,
    /// Response header with the remaining quota.
    #[serde(default)]
    pub remaining: Option<String>,
    /// Response header with the consumed quota.
    #[serde(default)]
    pub consumed: Option<String>,
    /// The limit per window, when the upstream does not send it.
    #[serde(default)]
    pub limit: Option<i64>,
    #[serde(default)]
    pub window: Option<QuotaWindow>,
    /// Utilisation percentages that warn, then page (default 80 and 95).
    #[serde(default = "default_thresholds")]
    pub thresholds: Vec<u8>,
    /// A cheap request `quota-alarm` sends itself when no call reported quota figures for a
    /// while, so a quiet month still has a current figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<QuotaProbe>,
    /// Upstream requests one caller may spend on this connector per UTC day (mcp-server's
    /// budget; aggregations count every page). Unset: no budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller_daily_budget: Option<u64>,
}

/// The rate-limit header families an upstream may send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RateLimitHeaders {
    /// `X-RateLimit-Limit`, `-Remaining`, `-Reset` (GitHub, Cal.com); with `bucket`, the
    /// bucket's name is appended (`X-RateLimit-Remaining-Long`).
    XRatelimit,
    /// The IETF fields: `RateLimit: "policy";r=…;t=…` with `RateLimit-Policy: "policy";q=…;w=…`,
    /// the earlier `RateLimit: limit=…, remaining=…, reset=…`, or the separate
    /// `RateLimit-Limit`, `-Remaining`, `-Reset`.
    Ietf,
}

/// How an `X-RateLimit-Reset` header counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResetFormat {
    /// Seconds until the window resets.
    #[default]
    Seconds,
    /// The Unix time (seconds) the window resets at.
    Epoch,
}

impl ResetFormat {
    fn is_seconds(&self) -> bool {
        *self == ResetFormat::Seconds
    }
}

/// The quiet-period probe of a quota.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QuotaProbe {
    /// Path (under `base_url`) of a cheap GET whose answer carries the quota headers.
    pub get: String,
    /// Probe only after this many hours without quota figures: each probe costs quota too.
    #[serde(default = "default_quiet_hours")]
    pub quiet_hours: u32,
}

fn default_quiet_hours() -> u32 {
    6
}

fn default_thresholds() -> Vec<u8> {
    vec![80, 95]
}

/// The quota window; exactly one field is set.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QuotaWindow {
    /// Calendar month in this IANA time zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calendar_month: Option<String>,
    /// Calendar day in this IANA time zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day: Option<String>,
    /// A rolling window of this many hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling_hours: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Health {
    /// Path (under `base_url`) of a cheap GET.
    pub get: String,
}

/// Result status of every tool call; the same words in results, audit lines and queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    NotFound,
    InvalidInput,
    Unauthorized,
    RateLimited,
    Unavailable,
    Error,
    ConfirmationRequired,
    /// A write whose upstream answer never got recorded: it may or may not have happened.
    OutcomeUnknown,
    /// The tool acts with the person's own upstream account, which they have not connected
    /// (or the caller is no person).
    ConnectionRequired,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::NotFound => "not_found",
            Status::InvalidInput => "invalid_input",
            Status::Unauthorized => "unauthorized",
            Status::RateLimited => "rate_limited",
            Status::Unavailable => "unavailable",
            Status::Error => "error",
            Status::ConfirmationRequired => "confirmation_required",
            Status::OutcomeUnknown => "outcome_unknown",
            Status::ConnectionRequired => "connection_required",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    Low,
    Medium,
    High,
    Critical,
    /// Never listed, never callable: documents what the platform refuses to do.
    Forbidden,
}

/// What a write does, in the terms of the risk model: the least risk level each needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// A reversible change in a narrow scope (a contact's phone number): at least `medium`.
    Change,
    /// A change to a financial document (an invoice's lines): at least `high`.
    Financial,
    /// Removes a record: at least `high`.
    Delete,
    /// Communicates outside the company (e-mails an invoice to a customer): `critical`.
    External,
    /// Moves or books money (marks a voucher paid): `critical`.
    Money,
    /// Cannot be undone (cancels an invoice with a reverse entry): `critical`.
    Irreversible,
}

impl Effect {
    /// The least risk level a tool with this effect must declare.
    pub fn least_risk(self) -> Risk {
        match self {
            Effect::Change => Risk::Medium,
            Effect::Financial | Effect::Delete => Risk::High,
            Effect::External | Effect::Money | Effect::Irreversible => Risk::Critical,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    pub fn is_read_only(self) -> bool {
        self == Method::Get
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// One tool: a contract between the model and the upstream.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// `<resource>_<verb>`.
    pub name: String,
    /// What it returns, when to use it, the words users say, one JSON example.
    pub description: String,
    /// Listed in `tools/list` (others are reachable through search only).
    #[serde(default = "yes")]
    pub core: bool,
    pub risk: Risk,
    #[serde(default)]
    pub category: Option<String>,
    /// Safe to retry with the same arguments.
    #[serde(default)]
    pub idempotent: Option<bool>,
    /// Upstream writes the call causes, in words (empty for reads).
    #[serde(default)]
    pub side_effects: Option<String>,
    /// Writes: the kind of change, which the risk level must match (see [`Effect`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    /// Writes: the audit event a call records, `<record>.<past tense>` (`invoice.delivered`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_event: Option<String>,
    /// Writes: how a call can fail, each in words a caller can act on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failure_modes: Vec<String>,
    /// Updates: the get tool (same path parameters) whose record a dry run shows and compares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<String>,
    /// Writes that reach people: dotted paths into the request body and the `current` record
    /// whose values (through lists, e-mail strings or objects with `email`) are the people the
    /// upstream contacts; a dry run lists them as `notifies` (`[attendee.email, guests]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notifies: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub get: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub put: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete: Option<String>,
    /// A raw escape hatch: the caller supplies the path. Only exposed with
    /// `<CONNECTOR>_EXPOSE_RAW=true`.
    #[serde(default)]
    pub raw: bool,
    /// The list shape: `page`, `page_size`, `fields`, `count_only` are added (`cursor`
    /// instead of `page` when the catalog pages by cursor).
    #[serde(default)]
    pub list: bool,
    #[serde(default)]
    pub params: BTreeMap<String, Param>,
    /// Static request headers for this tool's requests, over the connector's `headers`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// List tools: the item fields a caller may select with `fields` (dotted for nesting).
    #[serde(default)]
    pub fields: Vec<String>,
    /// List tools: the compact projection returned when the caller names no `fields`.
    #[serde(default)]
    pub default_fields: Vec<String>,
    /// Result fields holding text users wrote; marked as untrusted data in results.
    #[serde(default)]
    pub untrusted: Vec<String>,
    /// Hints per status for this tool (e.g. 404 → the right tool).
    #[serde(default)]
    pub hints: BTreeMap<Status, String>,
    /// Largest result in bytes before it is cut with a hint.
    #[serde(default)]
    pub max_result_bytes: Option<usize>,
    /// A get tool's record as an MCP resource: a URI template over its path parameters, e.g.
    /// `papierkram://invoices/{id}` (without path parameters a fixed URI, `test://static-text`),
    /// read through the same contract runtime as the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// What the tool answers when it is not JSON: a document (`binary`), embedded or linked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
    /// List tools: each item also comes back as a `resource_link` to its record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<ItemLinks>,
    /// An aggregation tool: a composition over this catalog's list tools instead of one
    /// HTTP call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Aggregate>,
    /// The OpenAPI `operationId` this tool was drafted from (provenance for a re-import).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    /// Decisions a person still has to take for this tool (`risk: proposed high because
    /// DELETE`), one sentence each; the lint refuses the tool until the list is gone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curate: Vec<String>,
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
}

/// A document a JSON answer holds as a base64 string.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InlineDocument {
    /// Where the base64 string is (`/thumbnail`, `/attachment/data`).
    pub pointer: String,
    /// Its content type (`image/png`); `image/*` and `audio/*` become image and audio content,
    /// anything else an embedded resource.
    pub mime: String,
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
    pub mime: Vec<String>,
    /// The largest document in bytes; a larger one is a status result with a hint, never cut.
    pub max_bytes: usize,
    /// `resource`: embedded (base64 with its MIME type); `link`: a `resource_link` to the
    /// tool's `resource` URI, read by `resources/read`.
    #[serde(default, rename = "as")]
    pub form: BinaryForm,
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
    pub uri: String,
    /// The item field shown as the link's title (`name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// A composition: every page of some list tools, reduced to a compact answer.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Aggregate {
    /// Named inputs, each all pages of a list tool.
    pub sources: BTreeMap<String, Source>,
    /// The answer's fields, in order.
    pub result: Vec<Measure>,
}

/// All pages of a list tool. String arguments may use `{param}` of the aggregation tool and,
/// when it has `year` and `month`, `{month_start}`/`{month_end}` (else `{year_start}`/`{year_end}`
/// with just `year`). An argument whose placeholder has no value is left out.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub tool: String,
    #[serde(default)]
    pub args: BTreeMap<String, serde_json::Value>,
    /// Keep only items whose (dotted) field has one of these values.
    #[serde(default, rename = "where", skip_serializing_if = "BTreeMap::is_empty")]
    pub filter: BTreeMap<String, Vec<String>>,
}

/// One answer field; exactly one of `count`, `sum`, `difference`, `top`, `items`, `days`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    pub name: String,
    /// Number of items of a source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<String>,
    /// Exact decimal sum of `source.field`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sum: Option<String>,
    /// `[a, b]`: earlier measure a minus earlier measure b.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<Vec<String>>,
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
    pub filter: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Top {
    /// The source.
    pub of: String,
    /// The field to group by (dotted).
    pub by: String,
    /// Rank groups by the sum of this field; by item count when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sum: Option<String>,
    #[serde(default = "five")]
    pub n: usize,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Items {
    pub of: String,
    pub fields: Vec<String>,
    /// Field to order by (dates and numbers compare as such).
    pub sort: String,
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
    pub of: String,
    /// The (dotted) item field with the start, an RFC 3339 moment.
    pub start: String,
    /// The (dotted) item field with the end, an RFC 3339 moment.
    pub end: String,
    /// The first day, `YYYY-MM-DD`.
    pub from: String,
    /// How many days, 1 to 31.
    #[serde(default = "seven")]
    pub days: usize,
    /// The IANA time zone the days and hours are in (`Europe/Berlin`).
    pub zone: String,
    /// The working hours each day, `HH:MM-HH:MM`, within which free time is counted.
    pub hours: String,
    /// The working days (`Mon-Fri`, `Mon,Tue,Thu`); other days have no free time and say
    /// `off`. Unset: every day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekdays: Option<String>,
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

    pub fn is_read_only(&self) -> bool {
        self.http().is_some_and(|(m, _)| m.is_read_only())
    }
}

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
}

/// One typed, bounded input parameter.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Param {
    #[serde(rename = "type")]
    pub kind: ParamType,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub required: bool,
    /// Where it goes; path parameters are always required.
    #[serde(default, rename = "in")]
    pub location: ParamIn,
    /// Upstream name when it differs (`company_id` → `creditor_id`).
    #[serde(default, rename = "as")]
    pub upstream: Option<String>,
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
    #[serde(default)]
    pub max_length: Option<usize>,
    #[serde(default, rename = "enum")]
    pub choices: Option<Vec<String>>,
    /// For booleans the upstream spells as words: `{true: desc, false: asc}`.
    #[serde(default)]
    pub values: Option<BooleanValues>,
    #[serde(default)]
    pub default: Option<serde_json::Value>,
    /// For `type: array`: the fields of each item, typed and bounded like params (no `in`, `as`
    /// or nested arrays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<BTreeMap<String, Param>>,
    /// For `type: array` of plain values (instead of `items`): the scalar each element is,
    /// typed and bounded like a param (no `in`, `as`, `required`, `default` or nested arrays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<Box<Param>>,
    /// For `type: array`: the most items accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<usize>,
    /// Where `completion/complete` looks this value up (a prompt argument, or a path
    /// parameter of a tool with a `resource` template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete: Option<Complete>,
    /// For `type: date`: an IANA time zone (`Europe/Berlin`); the date then goes up as the Unix
    /// seconds of 00:00 of that day in the zone, for upstreams that filter by timestamp (sevdesk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unix_time: Option<String>,
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
    pub when_true: String,
    #[serde(rename = "false")]
    pub when_false: String,
}

/// A reusable conversation starter a user picks in the client (a slash command in Claude Code,
/// a prompt in claude.ai's "+" menu): rendered from `template` with the caller's arguments.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    /// `<connector>_<words>`, unique across catalogs, like a tool name.
    pub name: String,
    /// What a person sees in the client's menu.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt does and when to pick it.
    pub description: String,
    /// The tools the rendered messages tell the model to use, by their full names: the prompt is
    /// shown only to callers whose profile may call every one of them.
    pub tools: Vec<String>,
    /// Typed arguments, validated like a tool's params (scalars only: a client sends strings),
    /// in the order declared: clients ask for them in this order (Claude Code takes them
    /// positionally).
    #[serde(default, skip_serializing_if = "PromptArguments::is_empty")]
    pub arguments: PromptArguments,
    /// The messages, in order; `{argument}` placeholders are filled with the validated values.
    pub template: Vec<PromptMessage>,
}

/// A prompt's arguments by name, in the order the catalog declares them (a YAML mapping).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptArguments(Vec<(String, Param)>);

impl PromptArguments {
    pub fn get(&self, name: &str) -> Option<&Param> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, p)| p)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Name and param, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Param)> + Clone {
        self.0.iter().map(|(n, p)| (n, p))
    }

    pub fn values(&self) -> impl Iterator<Item = &Param> {
        self.0.iter().map(|(_, p)| p)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Vec<(String, Param)>> for PromptArguments {
    fn from(arguments: Vec<(String, Param)>) -> Self {
        PromptArguments(arguments)
    }
}

impl Serialize for PromptArguments {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, param) in &self.0 {
            map.serialize_entry(name, param)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for PromptArguments {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> serde::de::Visitor<'de> for InOrder {
            type Value = PromptArguments;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a mapping of argument names to params")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(String, Param)> = Vec::new();
                while let Some((name, param)) = map.next_entry::<String, Param>()? {
                    if out.iter().any(|(n, _)| *n == name) {
                        return Err(serde::de::Error::custom(format!(
                            "argument `{name}` is declared twice"
                        )));
                    }
                    out.push((name, param));
                }
                Ok(PromptArguments(out))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

/// One message of a prompt's template.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PromptMessage {
    pub role: PromptRole,
    /// Text with `{argument}` placeholders (no other braces).
    pub text: String,
    /// A text document sent after the text, as an embedded resource of the same role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<PromptResource>,
    /// An image sent after the text, as image content of the same role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<PromptImage>,
}

/// A text document a prompt message carries (a checklist, a reference), embedded as a resource.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PromptResource {
    /// Its URI; may hold `{argument}` placeholders.
    pub uri: String,
    /// A `text/*` type.
    pub mime_type: String,
    /// The document; may hold `{argument}` placeholders.
    pub text: String,
}

/// An image a prompt message carries (a logo, a sample), base64 in the catalog.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PromptImage {
    /// An `image/*` type.
    pub mime_type: String,
    /// The image, base64 (at most 64 KiB of it).
    pub data: String,
}

/// Who speaks a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptRole {
    User,
    Assistant,
}

/// Where a param's values come from for `completion/complete`: one page of a list tool of the
/// same catalog, its items' `match` field compared with what the user typed (case-insensitive
/// prefix of the field or of one of its words), each match's `value` field offered.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Complete {
    /// A list tool of this catalog (`papierkram_companies_list`).
    pub from: String,
    /// The item field the typed text is matched against (`name`).
    #[serde(rename = "match")]
    pub match_field: String,
    /// The item field offered as the value (`id`).
    pub value: String,
    /// A string param of `from` that takes the typed text, for an upstream that searches
    /// itself; without it the upstream's first page is filtered here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}
