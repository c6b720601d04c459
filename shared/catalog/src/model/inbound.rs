//! Webhooks an upstream sends us (`/inbound/<connector>`): how it proves a request is its own
//! (a subscription handshake with a verify token, an HMAC of the body in a header), where in a
//! body its events are, and how long they are kept; and the tools that read them back per
//! conversation. Meta's WhatsApp Cloud API is the first such upstream, but nothing here names it.

use serde::{Deserialize, Serialize};

use super::text::Text;

/// What the upstream pushes to `/inbound/<connector>` and how it is checked and kept.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Inbound {
    /// Secret field with the token the upstream echoes in its subscription handshake
    /// (`GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`).
    pub verify_token: Text,
    /// Secret field with the key the upstream signs each body with (Meta: the app secret).
    pub signing_secret: Text,
    /// The header carrying the body's signature.
    #[serde(default = "default_signature_header")]
    pub signature_header: Text,
    /// What precedes the signature's hex digits in the header; the signature is
    /// HMAC-SHA256 of the raw body under `signing_secret`.
    #[serde(default = "default_signature_prefix")]
    pub signature_prefix: Text,
    /// Where a body's events are: each entry names arrays of one kind of event.
    pub events: Vec<InboundEvents>,
    /// How long an event is kept, days (then the table's TTL removes it).
    #[serde(default = "default_ttl_days")]
    pub ttl_days: u32,
    /// The largest body accepted, bytes; a larger one is refused with 413 unread.
    #[serde(default = "default_max_body_bytes")]
    pub max_body_bytes: usize,
    /// Hours after the customer's last message in which a free-form reply is allowed (Meta:
    /// 24); a read then says whether the window is open and until when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_window_h: Option<u32>,
    /// Where a body names the people its conversations are with (Meta: `value.contacts`
    /// beside `value.messages`): kept with the conversation, so a list finds it by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<InboundNames>,
}

/// Where a body says who a conversation is with.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InboundNames {
    /// JSON pointer to the arrays of entries, `*` standing for every element of an array
    /// (`/entry/*/changes/*/value/contacts`).
    pub at: Text,
    /// Pointer in an entry to the conversation it names (`/wa_id`).
    pub conversation: Text,
    /// Pointer in an entry to the display name (`/profile/name`).
    pub name: Text,
}

/// One kind of event in a body, and where its facts are.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InboundEvents {
    /// JSON pointer to the arrays of events, `*` standing for every element of an array
    /// (`/entry/*/changes/*/value/messages`); a pointer that finds nothing is no events.
    pub at: Text,
    /// What these events are.
    pub kind: InboundKind,
    /// Pointers in an event whose values together identify it: a retry or a reordered
    /// delivery of the same event is stored once (a message: `[/id]`; a status: `[/id, /status]`).
    pub id: Vec<Text>,
    /// Pointer in an event to the conversation it belongs to: the customer's number or id.
    pub conversation: Text,
    /// Pointer in an event to when it happened, Unix seconds (a number or a numeric string).
    pub timestamp: Text,
}

/// What an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InboundKind {
    /// Something the customer sent: it opens the reply window.
    Message,
    /// What became of something we sent (sent, delivered, read, failed).
    Status,
}

impl InboundKind {
    pub fn as_str(self) -> &'static str {
        match self {
            InboundKind::Message => "message",
            InboundKind::Status => "status",
        }
    }
}

/// A tool that reads what the upstream pushed instead of calling it: one conversation's
/// stored events (`conversation`), or the list of conversations, newest first
/// (`conversations: true`, optionally filtered by name).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InboundRead {
    /// The tool's param naming the conversation (the customer's number or id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<Text>,
    /// The tool lists conversations (who wrote, when, under which name) instead.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub conversations: bool,
    /// With `conversations`: the tool's optional string param whose text keeps only the
    /// conversations whose name contains it (case and accents aside).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Text>,
    /// The most events (or conversations) one read answers, newest first.
    #[serde(default = "default_read_limit")]
    pub limit: usize,
}

/// What a write needs before anything is sent (a tool's `requires`), checked by the call
/// pipeline's precondition stage against the events kept under the catalog's `inbound`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    /// The tool's param naming a conversation whose reply window (`inbound.reply_window_h`)
    /// must be open: a free-form message to someone who has not written within the window
    /// is refused before the upstream is called.
    pub reply_window: Text,
    /// The tool of this catalog to use instead while the window is closed (an approved
    /// template), named in the refusal's hint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub otherwise: Option<Text>,
}

/// The most events a read may answer.
pub const MAX_INBOUND_READ: usize = 100;
/// The most entries of the conversation list one read looks at (each one body's message
/// from one conversation, newest first): bounded work, however busy the number is.
pub const MAX_CONVERSATIONS_READ: usize = 500;
/// The largest body a catalog may accept (Meta's notifications are a few KiB).
pub const MAX_INBOUND_BODY: usize = 1024 * 1024;
/// The longest time events may be kept, days.
pub const MAX_INBOUND_TTL_DAYS: u32 = 90;

fn default_signature_header() -> Text {
    Text::from_static("X-Hub-Signature-256")
}

fn default_signature_prefix() -> Text {
    Text::from_static("sha256=")
}

fn default_ttl_days() -> u32 {
    30
}

fn default_max_body_bytes() -> usize {
    256 * 1024
}

fn default_read_limit() -> usize {
    20
}
