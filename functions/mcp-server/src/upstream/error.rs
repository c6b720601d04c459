//! Everything that can go wrong reaching an upstream, as one typed error. `hints` turns each
//! into a status, a reason code and a hint; nothing here is shown to a model as is.

use catalog::QuotaFigures;

use super::request::BuildError;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UpstreamError {
    #[error("the deployment secret is unavailable")]
    SecretUnavailable,
    #[error("the request could not be built: {0}")]
    NotConfigured(#[from] BuildError),
    #[error("no answer within {after_ms} ms")]
    Timeout { after_ms: u64 },
    #[error("the call's deadline ({budget_ms} ms) passed")]
    Deadline { budget_ms: u64 },
    #[error("the upstream cannot be reached")]
    Unreachable,
    #[error("the answer is larger than {limit} bytes")]
    TooLarge {
        limit: usize,
        /// The answer's size when it said so (`Content-Length`).
        size: Option<u64>,
        http_status: u16,
        quota: Option<QuotaFigures>,
    },
    #[error("the HTTP {http_status} answer is not JSON ({content_type})")]
    NotJson {
        http_status: u16,
        content_type: String,
        quota: Option<QuotaFigures>,
    },
    /// A tool declaring a document answer got another content type.
    #[error("the HTTP {http_status} answer is not the declared document ({content_type})")]
    NotDocument {
        http_status: u16,
        content_type: String,
        quota: Option<QuotaFigures>,
    },
    #[error("the upstream answered HTTP {}", .0.http_status)]
    Refused(Box<Refusal>),
    /// A remote MCP tool answered `isError: true`: it ran and reported a failure.
    #[error("the remote tool reported a failure")]
    RemoteToolFailed { message: Option<String> },
    /// A remote MCP server answered a JSON-RPC error (or no JSON-RPC answer at all).
    #[error("the remote answered JSON-RPC error {code}")]
    RemoteError { code: i64, message: Option<String> },
    /// A remote MCP tool needs a client capability our client did not declare (JSON-RPC
    /// `-32021`): the capabilities it named, of those an input request uses.
    #[error("the remote tool needs client capabilities the client did not declare")]
    RemoteNeedsCapability {
        required: serde_json::Map<String, serde_json::Value>,
    },
    /// A remote MCP tool asked the person for input (`input_required`).
    #[error("the remote asked for input")]
    RemoteInputRequired(Box<RemoteInput>),
    /// A remote asked the person something this server does not pass on (a link to a host the
    /// catalog does not allow, a form asking for a secret): what, in our words.
    #[error("the remote's question was refused: it asked for {0}")]
    RemoteQuestionRefused(String),
    /// The caller's budget allowed no more requests (the budget stage words the answer).
    #[error("the caller's budget allows no more than {allowance} upstream requests")]
    OverBudget { allowance: u64 },
    /// The upstream's own rate (`quota.rate`) has no turn free before the call's deadline:
    /// nothing was sent.
    #[error("the upstream's rate of {rate} has no turn free for {retry_after_s} s")]
    Paced { rate: String, retry_after_s: u64 },
}

/// A non-2xx answer, reduced to what a result may carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub http_status: u16,
    /// The upstream's own message (one line, redacted), for `upstream_message`.
    pub message: Option<String>,
    pub quota: Option<QuotaFigures>,
    /// `Retry-After` in seconds (sent as seconds or as an HTTP date).
    pub retry_after_s: Option<u64>,
    /// The upstream's own error code (`errors.code`), as text; `errors.codes` may give it a
    /// status of its own.
    pub code: Option<String>,
}

/// What a remote tool asks the person before it goes on: its input requests, as sent, and its
/// own state, which the client must echo (wrapped in ours, see `call::Pipeline::call_remote`).
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteInput {
    pub requests: serde_json::Value,
    pub state: Option<String>,
}

/// Whether a failed write may have happened upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Happened {
    /// Nothing was sent, or the upstream refused it (4xx): it did not happen.
    No,
    /// The upstream accepted it (2xx) but its answer was unusable.
    Yes,
    /// Sent without a usable answer (a timeout, a broken connection, a 5xx): it may have.
    Unknown,
}

impl UpstreamError {
    /// What a failed write's error says about the write itself.
    pub fn happened(&self) -> Happened {
        match self {
            UpstreamError::SecretUnavailable
            | UpstreamError::NotConfigured(_)
            | UpstreamError::OverBudget { .. }
            | UpstreamError::Paced { .. }
            // The remote refused the request or its tool reported that it failed.
            | UpstreamError::RemoteToolFailed { .. }
            | UpstreamError::RemoteError { .. }
            | UpstreamError::RemoteNeedsCapability { .. }
            | UpstreamError::RemoteInputRequired(_)
            | UpstreamError::RemoteQuestionRefused(_) => Happened::No,
            UpstreamError::Refused(r) if r.http_status < 500 => Happened::No,
            UpstreamError::TooLarge { http_status, .. }
            | UpstreamError::NotJson { http_status, .. }
            | UpstreamError::NotDocument { http_status, .. }
                if (200..300).contains(http_status) =>
            {
                Happened::Yes
            }
            _ => Happened::Unknown,
        }
    }

    /// The quota figures the failed answer carried, if any came back.
    pub fn quota(&self) -> Option<QuotaFigures> {
        match self {
            UpstreamError::TooLarge { quota, .. }
            | UpstreamError::NotJson { quota, .. }
            | UpstreamError::NotDocument { quota, .. } => *quota,
            UpstreamError::Refused(r) => r.quota,
            _ => None,
        }
    }

    /// The upstream's own words about the failure (one line, redacted), for `upstream_message`.
    pub fn message(&self) -> Option<&str> {
        match self {
            UpstreamError::Refused(r) => r.message.as_deref(),
            UpstreamError::RemoteToolFailed { message }
            | UpstreamError::RemoteError { message, .. } => message.as_deref(),
            _ => None,
        }
    }

    /// The HTTP status the upstream answered with, if it answered.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            UpstreamError::TooLarge { http_status, .. }
            | UpstreamError::NotJson { http_status, .. }
            | UpstreamError::NotDocument { http_status, .. } => Some(*http_status),
            UpstreamError::Refused(r) => Some(r.http_status),
            _ => None,
        }
    }
}
