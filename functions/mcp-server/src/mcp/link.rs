//! A person asked to connect their own account, in a client that can open a link for them: on
//! 2026-07-28, a client that declares URL-mode elicitation gets a `connection_required` outcome
//! as an `input_required` result whose one request is `elicitation/create` in `url` mode with
//! the outcome's `connect_url`. The client shows the person the link; once they connected, the
//! retried call finds their token. No state is needed: the link itself names the person.

use catalog::Status;
use rmcp::model::{InputRequest, InputRequests, InputRequiredResult};
use serde_json::json;

use crate::call::Outcome;

/// The key of the one input request.
pub(super) const KEY: &str = "connect";

/// The `input_required` result for an outcome that asks the person to connect.
pub(super) fn ask(outcome: &Outcome) -> Option<InputRequiredResult> {
    if outcome.status != Status::ConnectionRequired {
        return None;
    }
    let url = outcome.fields.get("connect_url")?.as_str()?;
    let connector = outcome
        .fields
        .get("connector")
        .and_then(|c| c.as_str())
        .unwrap_or("the service");
    let request = json!({
        "method": "elicitation/create",
        "params": {
            "mode": "url",
            "message": format!(
                "To use {connector} with your own account, open this link, sign in and allow \
                 access; then the assistant can go on."
            ),
            "url": url,
        }
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
}
