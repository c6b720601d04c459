//! Who is calling: set by the HTTP edge after authentication, read by every later stage.

use crate::inventory::Scope;
use crate::vault::Person;

#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    /// The API key's id.
    pub key_id: String,
    /// Keyed-hash pseudonym of the end user, when one is known.
    pub user: Option<String>,
    /// What this request may see: one profile, or the whole deployment.
    pub scope: Scope,
    /// The person as our authorization server named them (issuer and subject): only OAuth
    /// callers have one. It opens their own entries in the vault and nothing else.
    pub person: Option<Person>,
}

impl Caller {
    /// Who is counted and bound: the key's id, and the user beside it when known (a key shared
    /// by several people counts each on their own).
    pub(crate) fn who(&self) -> String {
        match &self.user {
            Some(user) => format!("{}:{user}", self.key_id),
            None => self.key_id.clone(),
        }
    }
}

#[cfg(test)]
impl Caller {
    /// A caller by API key alone, on the whole deployment (the stages' tests call as it).
    pub(crate) fn key(key_id: &str) -> Caller {
        Caller {
            key_id: key_id.into(),
            user: None,
            scope: Scope::Deployment,
            person: None,
        }
    }
}

/// Facts about the HTTP request the edge hands down: its id (API Gateway's on Lambda, generated
/// locally), the client IP and, on Lambda, how long the invocation has left.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestMeta {
    pub id: String,
    pub time_left: Option<std::time::Duration>,
    /// The client's IP (see `http::client_ip`), for the limits; never logged.
    pub client_ip: Option<std::net::IpAddr>,
    /// The request's span, the parent of the call's (disabled when traces are off).
    pub span: crate::telemetry::RequestSpan,
}
