//! The audit event: one JSON object per line, keys at top level.

use std::time::Duration;

use serde::{Deserialize, Serialize, Serializer};

use crate::SCHEMA_VERSION;

/// What happened. Serialized in snake_case (`tool_call`, `auth_denied`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    ToolCall,
    ToolError,
    /// A call of a tool that acts with the person's own upstream account, answered
    /// `connection_required` (an API key, or a person who has not connected or whose grant is
    /// gone; the reason says which): nothing was sent and nothing failed, so it is neither a
    /// `tool_call` nor a `tool_error`.
    ConnectionRequired,
    ClientInit,
    AuthDenied,
    RateLimited,
    ServerError,
    /// quota-alarm asked an upstream for its quota itself (a quiet period's probe).
    QuotaProbe,
    /// mcp-server's limiter, at most once a minute per instance: its store and the daily cap.
    Limiter,
    /// A webhook an upstream sent to `/inbound/<connector>`: accepted (`status: ok`, with the
    /// events stored and the duplicates) or refused (its HTTP status); never a number or a text.
    Inbound,
}

impl EventKind {
    /// The serialized name, for queries and assertions.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ToolCall => "tool_call",
            Self::ToolError => "tool_error",
            Self::ConnectionRequired => "connection_required",
            Self::ClientInit => "client_init",
            Self::AuthDenied => "auth_denied",
            Self::RateLimited => "rate_limited",
            Self::ServerError => "server_error",
            Self::QuotaProbe => "quota_probe",
            Self::Limiter => "limiter",
            Self::Inbound => "inbound",
        }
    }

    /// The level an event of this kind is logged at.
    pub fn level(self) -> Level {
        match self {
            Self::ToolCall
            | Self::ConnectionRequired
            | Self::ClientInit
            | Self::QuotaProbe
            | Self::Limiter
            | Self::Inbound => Level::Info,
            Self::AuthDenied | Self::RateLimited => Level::Warn,
            Self::ToolError | Self::ServerError => Level::Error,
        }
    }
}

/// Severity, serialized lowercase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Info,
    Warn,
    Error,
}

/// One audit event.
///
/// Field names match the constants in [`crate::fields`]. Optional fields are left out of the JSON
/// when unset, so a line only carries what is known.
///
/// # Privacy
///
/// By design there is no field for argument values, request or response bodies, e-mail addresses,
/// tokens, API keys or IP addresses. `user` is a keyed-hash pseudonym (see
/// [`crate::Pseudonymizer`]), `key_id` names a key without revealing it, and `arg_keys` holds
/// argument *names* only. Do not smuggle such data into `reason` either: it is a short code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEvent {
    pub v: u32,
    pub ts: String,
    pub level: Level,
    pub event: EventKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_ms"
    )]
    pub duration_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arg_keys: Vec<String>,
    /// How many distinct argument names were left out of `arg_keys` (over [`MAX_ARG_KEYS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arg_keys_omitted: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota_remaining: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota_consumed: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota_limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limiter_fallback: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily_calls_used_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend_unit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paced_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbound_stored: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbound_duplicates: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
}

/// Placeholder for an argument name that does not look like a name (a client could send an
/// e-mail address or a token as a *key*; it must not reach the audit log).
pub const INVALID_ARG_KEY: &str = "<invalid>";

const MAX_ARG_KEY_LEN: usize = 64;
/// At most this many argument names are kept; the rest are only counted in [`AuditEvent::arg_keys_omitted`].
pub const MAX_ARG_KEYS: usize = 32;
/// Client-supplied identifiers (client name, versions, request id) are cut to these lengths and
/// reduced to [`is_safe_char`] characters: a client controls them, and they must not carry text.
const MAX_NAME_LEN: usize = 64;
const MAX_VERSION_LEN: usize = 32;
const MAX_ID_LEN: usize = 64;

impl AuditEvent {
    /// A new event stamped now, with the level implied by `kind`.
    pub fn new(kind: EventKind) -> Self {
        Self {
            v: SCHEMA_VERSION,
            ts: format_ts(jiff::Timestamp::now()),
            level: kind.level(),
            event: kind,
            tool: None,
            connector: None,
            status: None,
            http_status: None,
            reason: None,
            duration_ms: None,
            request_id: None,
            client: None,
            client_version: None,
            protocol_version: None,
            user: None,
            key_id: None,
            profile: None,
            arg_keys: Vec::new(),
            arg_keys_omitted: None,
            result_bytes: None,
            truncated: None,
            quota_remaining: None,
            quota_consumed: None,
            quota_limit: None,
            limiter_fallback: None,
            daily_calls_used_pct: None,
            spend: None,
            spend_unit: None,
            paced_ms: None,
            audit_event: None,
            risk: None,
            dry_run: None,
            confirmation: None,
            idempotency: None,
            inbound_stored: None,
            inbound_duplicates: None,
            trace_id: None,
        }
    }

    /// The event cut to fit an audit line: argument names only counted, every text field at
    /// most 64 characters. Used when a line would exceed [`crate::MAX_LINE_BYTES`].
    pub fn shrunk(&self) -> AuditEvent {
        let cut = |v: &Option<String>| v.as_deref().map(|t| bounded(t, MAX_NAME_LEN));
        let omitted = self.arg_keys.len() as u64 + self.arg_keys_omitted.unwrap_or(0);
        AuditEvent {
            tool: cut(&self.tool),
            connector: cut(&self.connector),
            status: cut(&self.status),
            reason: cut(&self.reason),
            request_id: cut(&self.request_id),
            client: cut(&self.client),
            client_version: cut(&self.client_version),
            protocol_version: cut(&self.protocol_version),
            user: cut(&self.user),
            key_id: cut(&self.key_id),
            profile: cut(&self.profile),
            arg_keys: Vec::new(),
            arg_keys_omitted: (omitted > 0).then_some(omitted),
            ..self.clone()
        }
    }

    /// Overrides the timestamp (tests, replays).
    pub fn at(mut self, ts: jiff::Timestamp) -> Self {
        self.ts = format_ts(ts);
        self
    }

    pub fn level(mut self, level: Level) -> Self {
        self.level = level;
        self
    }

    pub fn tool(mut self, tool: impl Into<String>) -> Self {
        self.tool = Some(tool.into());
        self
    }

    pub fn connector(mut self, connector: impl Into<String>) -> Self {
        self.connector = Some(connector.into());
        self
    }

    pub fn status(mut self, status: impl Into<String>) -> Self {
        self.status = Some(status.into());
        self
    }

    pub fn http_status(mut self, http_status: u16) -> Self {
        self.http_status = Some(http_status);
        self
    }

    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// Rounded to 3 decimals; a non-finite value is dropped and a negative one clamped to 0.
    pub fn duration_ms(mut self, ms: f64) -> Self {
        self.duration_ms = ms.is_finite().then(|| round_ms(ms.max(0.0)));
        self
    }

    pub fn duration(self, elapsed: Duration) -> Self {
        self.duration_ms(elapsed.as_secs_f64() * 1000.0)
    }

    pub fn request_id(mut self, request_id: impl AsRef<str>) -> Self {
        self.request_id = Some(bounded(request_id.as_ref(), MAX_ID_LEN));
        self
    }

    /// The request's trace id (W3C: 32 hex digits, kept in lower case); anything else is left
    /// out, so a client's text never reaches the line through it.
    pub fn trace_id(mut self, trace_id: impl AsRef<str>) -> Self {
        let trace_id = trace_id.as_ref();
        if trace_id.len() == 32 && trace_id.bytes().all(|b| b.is_ascii_hexdigit()) {
            self.trace_id = Some(trace_id.to_ascii_lowercase());
        }
        self
    }

    pub fn client(mut self, client: impl AsRef<str>) -> Self {
        self.client = Some(bounded(client.as_ref(), MAX_NAME_LEN));
        self
    }

    pub fn client_version(mut self, client_version: impl AsRef<str>) -> Self {
        self.client_version = Some(bounded(client_version.as_ref(), MAX_VERSION_LEN));
        self
    }

    pub fn protocol_version(mut self, protocol_version: impl AsRef<str>) -> Self {
        self.protocol_version = Some(bounded(protocol_version.as_ref(), MAX_VERSION_LEN));
        self
    }

    /// The pseudonym from [`crate::Pseudonymizer`], never a raw identity.
    pub fn user(mut self, pseudonym: impl Into<String>) -> Self {
        self.user = Some(pseudonym.into());
        self
    }

    pub fn key_id(mut self, key_id: impl Into<String>) -> Self {
        self.key_id = Some(key_id.into());
        self
    }

    pub fn profile(mut self, profile: impl Into<String>) -> Self {
        self.profile = Some(profile.into());
        self
    }

    /// Argument names, sorted and deduplicated. A name that does not look like an identifier
    /// (over 64 chars, or containing anything but ASCII letters, digits, `_`, `-`, `.`) becomes
    /// [`INVALID_ARG_KEY`], since clients control these strings.
    pub fn arg_keys<I, S>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut keys: Vec<String> = keys
            .into_iter()
            .map(|key| sanitize_arg_key(key.as_ref()))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        if keys.len() > MAX_ARG_KEYS {
            self.arg_keys_omitted = Some((keys.len() - MAX_ARG_KEYS) as u64);
            keys.truncate(MAX_ARG_KEYS);
        }
        self.arg_keys = keys;
        self
    }

    pub fn result_bytes(mut self, result_bytes: u64) -> Self {
        self.result_bytes = Some(result_bytes);
        self
    }

    pub fn truncated(mut self, truncated: bool) -> Self {
        self.truncated = Some(truncated);
        self
    }

    pub fn quota_remaining(mut self, remaining: i64) -> Self {
        self.quota_remaining = Some(remaining);
        self
    }

    pub fn quota_consumed(mut self, consumed: i64) -> Self {
        self.quota_consumed = Some(consumed);
        self
    }

    pub fn quota_limit(mut self, limit: i64) -> Self {
        self.quota_limit = Some(limit);
        self
    }

    /// What the call spent in its connector's unit: an amount and the catalog's word for the
    /// unit (bounded here), no argument and no price.
    pub fn spend(mut self, amount: u64, unit: &str) -> Self {
        self.spend = Some(amount);
        self.spend_unit = Some(crate::bounded(unit, 32));
        self
    }

    /// How long the call's requests waited for their turns at the upstream's own rate.
    pub fn paced(mut self, waited_ms: u64) -> Self {
        self.paced_ms = Some(waited_ms);
        self
    }

    /// A write's facts: the contract's event and risk, whether it was a preview, how it was
    /// confirmed and what the idempotency ledger found. Fixed words only (bounded here).
    pub fn write(
        mut self,
        audit_event: Option<&str>,
        risk: &str,
        dry_run: bool,
        confirmation: Option<&str>,
        idempotency: Option<&str>,
    ) -> Self {
        self.audit_event = audit_event.map(|e| crate::bounded(e, 64));
        self.risk = Some(crate::bounded(risk, 16));
        self.dry_run = Some(dry_run);
        self.confirmation = confirmation.map(|c| crate::bounded(c, 16));
        self.idempotency = idempotency.map(|i| crate::bounded(i, 16));
        self
    }

    /// An accepted webhook's figures: events stored, and those already stored before.
    pub fn inbound(mut self, stored: u64, duplicates: u64) -> Self {
        self.inbound_stored = Some(stored);
        self.inbound_duplicates = Some(duplicates);
        self
    }

    /// A `limiter` line's figures: whether the instance counts in memory, and the daily cap used.
    pub fn limiter(mut self, fallback: bool, daily_calls_used_pct: Option<f64>) -> Self {
        self.limiter_fallback = Some(u8::from(fallback));
        self.daily_calls_used_pct = daily_calls_used_pct.map(|p| (p * 10.0).round() / 10.0);
        self
    }
}

fn format_ts(ts: jiff::Timestamp) -> String {
    format!("{ts:.3}")
}

fn round_ms(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

fn serialize_ms<S: Serializer>(ms: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    ms.map(round_ms).serialize(serializer)
}

/// Characters a client-supplied identifier keeps; anything else becomes `_`.
pub(crate) fn is_safe_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(c, '.' | '_' | '-' | '+' | '/' | ':' | '=' | ' ' | '(' | ')')
}

/// At most `max` characters, each safe (see `is_safe_char`); cut ones end in `…`. Reads at most
/// `max + 1` characters of `text`, however long it is.
pub fn bounded(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .take(max)
        .map(|c| if is_safe_char(c) { c } else { '_' })
        .collect();
    if text.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

fn sanitize_arg_key(key: &str) -> String {
    let looks_like_a_name = !key.is_empty()
        && key.len() <= MAX_ARG_KEY_LEN
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if looks_like_a_name {
        key.to_owned()
    } else {
        INVALID_ARG_KEY.to_owned()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fields;

    pub(crate) fn full_event() -> AuditEvent {
        // A fixed time, so two calls build equal events.
        let mut event = AuditEvent::new(EventKind::ToolCall)
            .at("2026-11-23T07:00:00.123Z".parse().unwrap())
            .tool("list_invoices")
            .connector("papierkram")
            .status("ok")
            .http_status(200)
            .reason("partial_page")
            .duration_ms(12.3456)
            .request_id("req-1")
            .trace_id("4bf92f3577b34da6a3ce929d0e0e4736")
            .client("claude-ai")
            .client_version("1.0.0")
            .protocol_version("2025-11-25")
            .user("u_0123456789abcdef")
            .key_id("key-1")
            .profile("default")
            .arg_keys(["page", "fields"])
            .result_bytes(2048)
            .truncated(false)
            .quota_remaining(900)
            .quota_consumed(100)
            .quota_limit(1000)
            .spend(2, "predictions")
            .paced(500);
        event.arg_keys_omitted = Some(3);
        event
    }

    #[test]
    fn new_event_has_schema_version_and_millisecond_utc_timestamp() {
        let event = AuditEvent::new(EventKind::ClientInit);
        assert_eq!(event.v, SCHEMA_VERSION);
        let ts: jiff::Timestamp = event.ts.parse().unwrap();
        assert!(event.ts.ends_with('Z'), "{}", event.ts);
        let fraction = event.ts.rsplit('.').next().unwrap();
        assert_eq!(fraction.len(), 4, "three digits then Z: {}", event.ts);
        assert_eq!(format_ts(ts), event.ts);
    }

    #[test]
    fn level_follows_event_kind() {
        let cases = [
            (EventKind::ToolCall, Level::Info),
            (EventKind::ClientInit, Level::Info),
            (EventKind::ToolError, Level::Error),
            (EventKind::ServerError, Level::Error),
            (EventKind::AuthDenied, Level::Warn),
            (EventKind::RateLimited, Level::Warn),
            (EventKind::QuotaProbe, Level::Info),
        ];
        for (kind, level) in cases {
            assert_eq!(AuditEvent::new(kind).level, level, "{kind:?}");
        }
    }

    #[test]
    fn kinds_and_levels_serialize_as_documented() {
        let kinds = [
            EventKind::ToolCall,
            EventKind::ToolError,
            EventKind::ClientInit,
            EventKind::AuthDenied,
            EventKind::RateLimited,
            EventKind::ServerError,
            EventKind::QuotaProbe,
            EventKind::Inbound,
        ];
        for kind in kinds {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, kind.as_str());
        }
        assert_eq!(serde_json::to_value(Level::Warn).unwrap(), "warn");
        assert_eq!(serde_json::to_value(Level::Info).unwrap(), "info");
        assert_eq!(serde_json::to_value(Level::Error).unwrap(), "error");
    }

    #[test]
    fn fields_all_matches_keys_of_a_fully_populated_event() {
        // The limiter's figures ride only on `limiter` lines; a field is a field all the same.
        let event = full_event().limiter(false, Some(1.0)).inbound(2, 1).write(
            Some("invoice.delivered"),
            "critical",
            false,
            Some("token"),
            Some("new"),
        );
        let json = serde_json::to_value(event).unwrap();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = fields::ALL.to_vec();
        let mut actual = keys.clone();
        expected.sort_unstable();
        actual.sort_unstable();
        assert_eq!(actual, expected);
    }

    #[test]
    fn minimal_event_serializes_only_required_keys() {
        let json = serde_json::to_value(AuditEvent::new(EventKind::ToolCall)).unwrap();
        let mut keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, [fields::EVENT, fields::LEVEL, fields::TS, fields::V]);
    }

    #[test]
    fn a_trace_id_that_is_not_32_hex_digits_is_left_out() {
        for bad in [
            "",
            "4bf92f35",
            "4bf92f3577b34da6a3ce929d0e0e473z",
            "a@b.example",
        ] {
            assert_eq!(
                AuditEvent::new(EventKind::ToolCall).trace_id(bad).trace_id,
                None
            );
        }
        let upper =
            AuditEvent::new(EventKind::ToolCall).trace_id("4BF92F3577B34DA6A3CE929D0E0E4736");
        assert_eq!(
            upper.trace_id.as_deref(),
            Some("4bf92f3577b34da6a3ce929d0e0e4736")
        );
    }

    #[test]
    fn full_event_round_trips_through_json() {
        let event = full_event();
        let json = serde_json::to_string(&event).unwrap();
        assert_eq!(serde_json::from_str::<AuditEvent>(&json).unwrap(), event);
    }

    #[test]
    fn minimal_event_round_trips_through_json() {
        let event = AuditEvent::new(EventKind::AuthDenied);
        let json = serde_json::to_string(&event).unwrap();
        assert_eq!(serde_json::from_str::<AuditEvent>(&json).unwrap(), event);
    }

    #[test]
    fn unknown_fields_from_a_future_version_are_ignored() {
        let line = r#"{"v":2,"ts":"2026-01-01T00:00:00.000Z","level":"info","event":"tool_call",
            "tool":"t","new_field":{"nested":[1,2]},"_aws":{"Timestamp":1},"calls":1}"#;
        let event: AuditEvent = serde_json::from_str(line).unwrap();
        assert_eq!(event.v, 2);
        assert_eq!(event.tool.as_deref(), Some("t"));
    }

    #[test]
    fn duration_is_rounded_to_three_decimals() {
        let event = AuditEvent::new(EventKind::ToolCall).duration_ms(1.234_567);
        assert_eq!(event.duration_ms, Some(1.235));
        let event = AuditEvent::new(EventKind::ToolCall).duration(Duration::from_micros(1500));
        assert_eq!(event.duration_ms, Some(1.5));
    }

    #[test]
    fn duration_set_directly_is_rounded_when_serialized() {
        let mut event = AuditEvent::new(EventKind::ToolCall);
        event.duration_ms = Some(0.123_456_789);
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json[fields::DURATION_MS], 0.123);
    }

    #[test]
    fn non_finite_duration_is_dropped_and_negative_clamped() {
        let event = AuditEvent::new(EventKind::ToolCall).duration_ms(f64::NAN);
        assert_eq!(event.duration_ms, None);
        let event = AuditEvent::new(EventKind::ToolCall).duration_ms(-3.0);
        assert_eq!(event.duration_ms, Some(0.0));
    }

    #[test]
    fn arg_keys_are_sorted_deduplicated_and_never_carry_values() {
        let event = AuditEvent::new(EventKind::ToolCall).arg_keys([
            "page",
            "fields",
            "page",
            "alice@example.com",
            "has space",
            &"x".repeat(65),
        ]);
        assert_eq!(event.arg_keys, [INVALID_ARG_KEY, "fields", "page"]);
    }

    #[test]
    fn arg_keys_are_capped_and_the_rest_counted() {
        let keys: Vec<String> = (0..100).map(|i| format!("k{i:03}")).collect();
        let event = AuditEvent::new(EventKind::ToolCall).arg_keys(&keys);
        assert_eq!(event.arg_keys.len(), MAX_ARG_KEYS);
        assert_eq!(event.arg_keys_omitted, Some(68));
    }

    #[test]
    fn client_identifiers_are_bounded_and_reduced_to_safe_characters() {
        let event = AuditEvent::new(EventKind::ToolCall)
            .client(format!(
                "evil\n{{\"x\":1}}<script>{}",
                "a".repeat(1_000_000)
            ))
            .client_version("1.0\u{202e}beta")
            .protocol_version("2025-11-25")
            .request_id("req\r\nX-Injected: 1");
        let client = event.client.as_deref().unwrap();
        assert_eq!(client.chars().count(), MAX_NAME_LEN + 1, "{client}");
        assert!(client.starts_with("evil___x_:1__script_a"), "{client}");
        assert_eq!(event.client_version.as_deref(), Some("1.0_beta"));
        assert_eq!(event.protocol_version.as_deref(), Some("2025-11-25"));
        assert_eq!(event.request_id.as_deref(), Some("req__X-Injected: 1"));
    }

    #[test]
    fn an_over_long_event_is_shrunk_to_fit_a_line() {
        let keys: Vec<String> = (0..32).map(|i| format!("{}{i}", "k".repeat(60))).collect();
        let mut event = AuditEvent::new(EventKind::ToolCall).arg_keys(&keys);
        event.reason = Some("r".repeat(20_000));
        let small = event.shrunk();
        assert!(small.arg_keys.is_empty());
        assert_eq!(small.arg_keys_omitted, Some(32));
        assert!(small.to_json_line(None).len() < 2048);
    }

    #[test]
    fn empty_arg_keys_are_omitted() {
        let json = serde_json::to_value(AuditEvent::new(EventKind::ToolCall)).unwrap();
        assert!(json.get(fields::ARG_KEYS).is_none());
    }
}
