//! The typed result of one tool call, and the one place it becomes the JSON a model reads.

use catalog::{QuotaFigures, Status, Tool};
use serde_json::{Map, Value};

use super::documents::{Attachment, ItemLink};
use super::preview::Preview;
use crate::inventory::DeployedCatalog;
use crate::upstream::{UpstreamError, describe};

/// A finished tool call, before it becomes MCP content.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    /// What to do next; required when the status is not ok.
    pub hint: Option<String>,
    /// The result's other fields: `data` or the list shape, `upstream_message`, partial data…
    pub fields: Map<String, Value>,
    /// Short code for the audit log (`upstream_404`, `invalid_argument`, …).
    pub reason: Option<String>,
    pub http_status: Option<u16>,
    /// What the call cost upstream, when the upstream sent figures.
    pub quota: Option<QuotaFigures>,
    /// Whether the result was cut to the output budget.
    pub truncated: bool,
    /// What the write would do: a dry run's answer, or what a confirmation is asked for.
    pub preview: Option<Preview>,
    /// The confirmation a `confirmation_required` answer asks for.
    pub confirmation: Option<Confirmation>,
    /// What the write stages did, for the audit line (none for reads).
    pub write: Option<WriteFacts>,
    /// A remote MCP tool's questions for the person, its state wrapped in ours.
    pub input_required: Option<Box<crate::upstream::RemoteInput>>,
    /// Documents that ride along: a document answer embedded, as an image or audio, or a link
    /// (`answer.binary`); the documents a JSON answer held (`answer.inline`).
    pub attachments: Vec<Attachment>,
    /// A list page's items as links to their records (`links`).
    pub links: Vec<ItemLink>,
    /// The protocol error this outcome becomes instead of a tool result, decided where the
    /// outcome is made (the `reason` above is for the audit log only).
    pub protocol_error: Option<ProtocolError>,
    /// The task kept for the upstream job this call started (the client holds tasks): answered
    /// as the task instead of a tool result.
    pub task: Option<Box<crate::tasks::Task>>,
    /// The answer's prose (`answer.text`): an ok result's text content instead of the JSON.
    pub text: Option<String>,
    /// A finished job's media (`job.media`): each a link to the upstream's file, and until when
    /// it lives there.
    pub media: Vec<MediaLink>,
    /// What the call spent in its connector's unit (`spends`), for the audit line.
    pub(crate) spent: Option<super::spend::Spent>,
    /// Milliseconds the call's requests waited for turns at the upstream's own rate, when they
    /// waited, for the audit line.
    pub(crate) paced_ms: Option<u64>,
}

/// A file an upstream job made, where the upstream keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaLink {
    pub url: String,
    /// When the upstream deletes it (ISO 8601), when the catalog says (`output_lives`).
    pub expires_at: Option<String>,
}

/// Why an outcome is answered as a JSON-RPC error rather than a tool result: the client sent
/// or lacks something at the protocol level, which no model can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolError {
    /// A `requestState` that fails its integrity check (SEP-2322): no server of ours issued
    /// it, so the params are invalid.
    InvalidRequestState,
    /// A remote heard exactly what our client declared and found a capability missing: its
    /// verdict is ours, naming the `required_capabilities`.
    MissingClientCapability,
    /// A tool that runs only as an MCP task, called by a client that asked for none: the
    /// `required_capabilities` name the tasks extension (2026-07-28); a 2025-11-25 client hears
    /// that generation's word for it.
    TaskRequired,
}

/// The signed token a `confirmation_required` answer carries, and how long it stays valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    pub token: String,
    pub expires_in_s: u64,
}

/// How a write went through the stages, in fixed audit words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteFacts {
    pub dry_run: bool,
    /// How the call was confirmed (the audit field `confirmation`): `token` or `elicitation`;
    /// none when no confirmation was needed or given.
    pub confirmed_by: Option<&'static str>,
    /// `new`, `replayed`, `conflict` or `unknown`; none without an idempotency key.
    pub idempotency: Option<&'static str>,
}

impl Outcome {
    /// An ok result with these fields.
    pub fn ok(fields: Map<String, Value>) -> Self {
        Outcome {
            status: Status::Ok,
            hint: None,
            fields,
            reason: None,
            http_status: None,
            quota: None,
            truncated: false,
            preview: None,
            confirmation: None,
            write: None,
            input_required: None,
            attachments: Vec::new(),
            links: Vec::new(),
            protocol_error: None,
            task: None,
            text: None,
            media: Vec::new(),
            spent: None,
            paced_ms: None,
        }
    }

    /// A non-ok status with a hint the caller can act on.
    pub fn failed(status: Status, reason: &str, hint: impl Into<String>) -> Self {
        Outcome {
            status,
            hint: Some(hint.into()),
            reason: Some(reason.to_string()),
            ..Outcome::ok(Map::new())
        }
    }

    /// An upstream fault as a result: its status, reason and hint, the upstream's own message
    /// in `upstream_message`, and whatever HTTP status and quota came back.
    pub fn from_upstream(conn: &DeployedCatalog, tool: &Tool, err: &UpstreamError) -> Self {
        let fault = describe(conn, tool, err);
        let mut outcome = Outcome::failed(fault.status, &fault.reason, fault.hint);
        outcome.http_status = err.http_status();
        if let Some(m) = err.message() {
            outcome
                .fields
                .insert("upstream_message".into(), m.to_string().into());
        }
        if let UpstreamError::Refused(r) = err
            && let Some(s) = r.retry_after_s
        {
            outcome.fields.insert("retry_after_s".into(), s.into());
        }
        if let UpstreamError::Paced { retry_after_s, .. } = err {
            outcome
                .fields
                .insert("retry_after_s".into(), (*retry_after_s).into());
        }
        if let UpstreamError::RemoteNeedsCapability { required } = err {
            outcome.fields.insert(
                "required_capabilities".into(),
                Value::Object(required.clone()),
            );
            outcome.protocol_error = Some(ProtocolError::MissingClientCapability);
        }
        if let UpstreamError::RemoteInputRequired(asked) = err {
            outcome.input_required = Some(asked.clone());
        }
        outcome.with_quota(err.quota())
    }

    /// This outcome, answered as that protocol error instead of a tool result.
    pub fn with_protocol_error(mut self, error: ProtocolError) -> Self {
        self.protocol_error = Some(error);
        self
    }

    pub fn with_http(mut self, status: u16) -> Self {
        self.http_status = Some(status);
        self
    }

    /// Keeps the quota figures when the upstream sent any.
    pub fn with_quota(mut self, quota: Option<QuotaFigures>) -> Self {
        if let Some(q) =
            quota.filter(|q| q.remaining.is_some() || q.consumed.is_some() || q.reset_s.is_some())
        {
            self.quota = Some(q);
        }
        self
    }

    /// A recorded result again: its status, hint and fields, marked `replayed: true`.
    pub fn replayed(stored: &Value) -> Self {
        let status = stored
            .get("status")
            .and_then(|s| serde_json::from_value(s.clone()).ok())
            .unwrap_or(Status::Ok);
        let mut fields = stored.as_object().cloned().unwrap_or_default();
        let hint = fields
            .remove("hint")
            .and_then(|h| h.as_str().map(str::to_string));
        fields.remove("status");
        fields.insert("replayed".into(), true.into());
        Outcome {
            status,
            hint,
            reason: Some("replayed".into()),
            ..Outcome::ok(fields)
        }
    }

    /// The result a model gets: `status`, `hint`, the fields, `preview`, `confirmation_token`
    /// with `expires_in_s`, `truncated` and `_quota`.
    pub fn to_json(&self) -> Value {
        let mut out = Map::with_capacity(self.fields.len() + 4);
        out.insert("status".into(), self.status.as_str().into());
        if let Some(hint) = &self.hint {
            out.insert("hint".into(), hint.clone().into());
        }
        for (k, v) in &self.fields {
            out.insert(k.clone(), v.clone());
        }
        if let Some(preview) = &self.preview {
            out.insert("preview".into(), preview.to_json());
        }
        if let Some(c) = &self.confirmation {
            out.insert("confirmation_token".into(), c.token.clone().into());
            out.insert("expires_in_s".into(), c.expires_in_s.into());
        }
        if self.truncated {
            out.insert("truncated".into(), true.into());
        }
        if let Some(q) = &self.quota {
            out.insert("_quota".into(), quota_json(q));
        }
        Value::Object(out)
    }
}

fn quota_json(q: &QuotaFigures) -> Value {
    let mut m = Map::new();
    for (k, v) in [
        ("remaining", q.remaining),
        ("consumed", q.consumed),
        ("limit", q.limit),
        ("reset_s", q.reset_s.map(|s| s.min(i64::MAX as u64) as i64)),
    ] {
        if let Some(v) = v {
            m.insert(k.into(), v.into());
        }
    }
    Value::Object(m)
}

/// `{"data": …}` as fields.
pub(super) fn data(value: Value) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("data".into(), value);
    fields
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conn() -> DeployedCatalog {
        let catalog = connector::load(None)
            .unwrap()
            .into_iter()
            .find(|c| c.connector == "papierkram")
            .unwrap();
        DeployedCatalog {
            base_url: catalog.base_url.to_string(),
            expose_raw: false,
            catalog,
        }
    }

    #[test]
    fn only_a_remote_missing_a_client_capability_is_marked_a_protocol_error() {
        let conn = conn();
        let tool = &conn.catalog.tools[0];
        let mut required = Map::new();
        required.insert("elicitation".into(), json!({}));
        let missing = UpstreamError::RemoteNeedsCapability { required };
        let o = Outcome::from_upstream(&conn, tool, &missing);
        assert_eq!(
            o.protocol_error,
            Some(ProtocolError::MissingClientCapability)
        );
        assert_eq!(
            o.reason.as_deref(),
            Some(crate::upstream::REMOTE_NEEDS_CAPABILITY),
            "the audit reason stays"
        );
        let other = UpstreamError::RemoteError {
            code: -32603,
            message: None,
        };
        let o = Outcome::from_upstream(&conn, tool, &other);
        assert_eq!(o.protocol_error, None);
        assert_eq!(Outcome::ok(Map::new()).protocol_error, None);
    }

    #[test]
    fn quota_is_passed_through_and_status_and_hint_come_first() {
        let q = QuotaFigures {
            remaining: Some(9910),
            consumed: Some(1),
            limit: Some(10_000),
            reset_s: Some(30),
        };
        let o = Outcome::failed(Status::RateLimited, "upstream_429", "wait").with_quota(Some(q));
        let v = o.to_json();
        assert_eq!(
            v["_quota"],
            json!({"remaining": 9910, "consumed": 1, "limit": 10000, "reset_s": 30})
        );
        assert_eq!(v["status"], json!("rate_limited"));
        assert_eq!(v["hint"], json!("wait"));
        assert!(v.get("truncated").is_none());
    }

    #[test]
    fn the_typed_preview_and_token_reach_the_json_under_their_old_keys() {
        let mut o = Outcome::failed(Status::ConfirmationRequired, "confirmation_required", "h");
        o.preview = Some(Preview {
            request: crate::call::RequestLine {
                method: "POST",
                path: "/x/7/deliver".into(),
                body: None,
            },
            risk: "high",
            side_effects: None,
            effect: Some("external"),
            retry_safe: false,
            failure_modes: Vec::new(),
            confirmation: "confirmation of this preview",
            warnings: vec!["This cannot be undone."],
            current: None,
            notifies: Vec::new(),
            current_untrusted: Vec::new(),
            current_withheld: None,
            changes: None,
            cost: None,
            totals: serde_json::Map::new(),
            price: None,
            reply_window: None,
            form: Default::default(),
        });
        o.confirmation = Some(Confirmation {
            token: "tok.sig".into(),
            expires_in_s: 300,
        });
        assert_eq!(
            o.to_json().to_string(),
            r#"{"confirmation_token":"tok.sig","expires_in_s":300,"hint":"h","preview":{"confirmation":"confirmation of this preview","effect":"external","request":{"body":null,"method":"POST","path":"/x/7/deliver"},"retry_safe":false,"risk":"high","warnings":["This cannot be undone."]},"status":"confirmation_required"}"#
        );
    }

    #[test]
    fn figures_without_remaining_or_cost_are_not_reported() {
        let q = QuotaFigures {
            limit: Some(10_000),
            ..QuotaFigures::default()
        };
        assert_eq!(Outcome::ok(Map::new()).with_quota(Some(q)).quota, None);
    }
}
