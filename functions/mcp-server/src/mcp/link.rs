//! A person asked to connect their own account, in a client that can open a link for them: on
//! 2026-07-28, a client that declares URL-mode elicitation gets a `connection_required` outcome
//! as an `input_required` result whose one request is `elicitation/create` in `url` mode with
//! the outcome's `connect_url`. The client shows the person the link; once they connected, the
//! retried call finds their token. No state is needed: the link itself names the person.
//!
//! On 2025-11-25 the client declares its capabilities once, at `initialize`, which a stateless
//! server does not see again. So a client that declares URL-mode elicitation there gets a session
//! id that says so (`hm1-url-<random>`, answered by the edge, `http/declared.rs`), and every
//! later request carries it: such a client gets the spec's `URLElicitationRequiredError`
//! (JSON-RPC error -32042, `data.elicitations`: one `url`-mode elicitation with an
//! `elicitationId`) instead of the result. The id grants nothing: it only says what the client
//! can show, and a forged one only turns the result with the link into that error.

use catalog::Status;
use rmcp::ErrorData as McpError;
use rmcp::model::{ErrorCode, InputRequest, InputRequests, InputRequiredResult};
use serde_json::json;

use crate::call::Outcome;

/// The key of the one input request.
pub(super) const KEY: &str = "connect";
/// JSON-RPC error code of `URLElicitationRequiredError` (2025-11-25).
pub(super) const URL_ELICITATION_REQUIRED: i32 = -32042;
/// How a session id that records a declared URL-mode elicitation begins.
const SESSION_PREFIX: &str = "hm1-url-";

/// A new session id for a 2025-11-25 client that declared URL-mode elicitation; `None` when
/// no randomness is available.
pub(crate) fn url_session_id() -> Option<String> {
    crate::random::hex(16).map(|r| format!("{SESSION_PREFIX}{r}"))
}

/// Whether a request's session id says its client declared URL-mode elicitation.
pub(super) fn declares_url(session_id: Option<&str>) -> bool {
    session_id.is_some_and(|s| {
        s.strip_prefix(SESSION_PREFIX)
            .is_some_and(|r| r.len() == 32 && r.bytes().all(|b| b.is_ascii_hexdigit()))
    })
}

fn message(outcome: &Outcome) -> String {
    let connector = outcome
        .fields
        .get("connector")
        .and_then(|c| c.as_str())
        .unwrap_or("the service");
    format!(
        "To use {connector} with your own account, open this link, sign in and allow access; \
         then the assistant can go on."
    )
}

/// The 2025-11-25 `URLElicitationRequiredError` for an outcome that asks the person to
/// connect, with one URL-mode elicitation.
pub(super) fn required_error(outcome: &Outcome) -> Option<McpError> {
    if outcome.status != Status::ConnectionRequired {
        return None;
    }
    let url = outcome.fields.get("connect_url")?.as_str()?;
    let id = crate::random::hex_or_clock(16);
    let message = message(outcome);
    let data = json!({"elicitations": [{
        "mode": "url", "elicitationId": id, "url": url, "message": message,
    }]});
    Some(McpError::new(
        ErrorCode(URL_ELICITATION_REQUIRED),
        "URL elicitation required: the person must connect their account first.",
        Some(data),
    ))
}

/// The `input_required` result for an outcome that asks the person to connect.
pub(super) fn ask(outcome: &Outcome) -> Option<InputRequiredResult> {
    if outcome.status != Status::ConnectionRequired {
        return None;
    }
    let url = outcome.fields.get("connect_url")?.as_str()?;
    let request = json!({
        "method": "elicitation/create",
        "params": {"mode": "url", "message": message(outcome), "url": url}
    });
    let request: InputRequest = serde_json::from_value(request).ok()?;
    let requests: InputRequests = [(KEY.to_string(), request)].into_iter().collect();
    Some(InputRequiredResult::new(Some(requests), None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn only_a_connection_required_with_a_link_becomes_a_url_request() {
        let mut o = Outcome::failed(Status::ConnectionRequired, "not_connected", "h");
        assert!(ask(&o).is_none(), "no link, nothing to open");
        o.fields.insert("connector".into(), "mail".into());
        o.fields.insert(
            "connect_url".into(),
            "https://mcp.example/connect/mail?for=t".into(),
        );
        let asked = serde_json::to_value(ask(&o).unwrap()).unwrap();
        let params: &Value = &asked["inputRequests"][KEY]["params"];
        assert_eq!(params["mode"], "url", "{asked}");
        assert_eq!(params["url"], "https://mcp.example/connect/mail?for=t");
        assert!(params["message"].as_str().unwrap().contains("mail"));
        assert!(ask(&Outcome::failed(Status::Unauthorized, "x", "h")).is_none());
    }

    #[test]
    fn a_2025_client_that_declared_urls_gets_the_url_elicitation_required_error() {
        let mut o = Outcome::failed(Status::ConnectionRequired, "not_connected", "h");
        assert!(required_error(&o).is_none(), "no link, nothing to open");
        o.fields.insert("connector".into(), "mail".into());
        o.fields.insert(
            "connect_url".into(),
            "https://mcp.example/connect/mail?for=t".into(),
        );
        let e = required_error(&o).unwrap();
        assert_eq!(e.code.0, -32042);
        let data = e.data.unwrap();
        let one = &data["elicitations"][0];
        assert_eq!(one["mode"], "url", "{data}");
        assert_eq!(one["url"], "https://mcp.example/connect/mail?for=t");
        assert_eq!(one["elicitationId"].as_str().unwrap().len(), 32);
        assert!(required_error(&Outcome::failed(Status::Unauthorized, "x", "h")).is_none());
    }

    #[test]
    fn only_a_session_id_of_ours_says_urls_were_declared() {
        let id = url_session_id().unwrap();
        assert!(declares_url(Some(&id)), "{id}");
        assert_ne!(url_session_id().unwrap(), id, "each is new");
        for other in [
            None,
            Some(""),
            Some("hm1-url-"),
            Some("hm1-url-zz"),
            Some("abc"),
        ] {
            assert!(!declares_url(other), "{other:?}");
        }
    }
}
