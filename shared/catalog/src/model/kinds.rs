//! The small words every contract uses: result status, risk, a write's effect, the HTTP method.

use serde::{Deserialize, Serialize};

/// Result status of every tool call; the same words in results, audit lines and queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    NotFound,
    InvalidInput,
    /// The upstream refused a change because of the record's state (HTTP 409): changed by someone
    /// else since it was read (an optimistic lock's version moved on), or not in a state that
    /// allows it. Read it again before deciding.
    Conflict,
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
    /// An upstream job still running when the call could wait no longer: nothing failed, and
    /// the hint names the tool and id that fetch its result later.
    Pending,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::NotFound => "not_found",
            Status::InvalidInput => "invalid_input",
            Status::Conflict => "conflict",
            Status::Unauthorized => "unauthorized",
            Status::RateLimited => "rate_limited",
            Status::Unavailable => "unavailable",
            Status::Error => "error",
            Status::ConfirmationRequired => "confirmation_required",
            Status::OutcomeUnknown => "outcome_unknown",
            Status::ConnectionRequired => "connection_required",
            Status::Pending => "pending",
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
