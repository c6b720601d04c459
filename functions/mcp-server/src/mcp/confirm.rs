//! Confirmation by a person, for clients that can show a form: on 2026-07-28, a client that
//! declares the elicitation capability gets a `confirmation_required` outcome as an
//! `input_required` result instead: a form elicitation showing the preview (accept/decline),
//! with the outcome's signed confirmation token as the `requestState`. The client echoes the
//! state with the person's answer on the retried call; any instance can check it (it is the
//! same signed token the consent stage verifies: caller, tool, arguments, expiry, nonce). A
//! decline executes nothing and says so.

use rmcp::model::{CallToolRequestParams, InputRequest, InputRequests, InputRequiredResult};
use serde_json::{Map, Value, json};

use crate::call::Outcome;

/// The key of the one input request.
pub const KEY: &str = "confirm";

/// What the retried call brought back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A person accepted the form: the echoed state (the token).
    Accepted(String),
    /// Declined, cancelled, or accepted without ticking the box.
    Declined,
}

/// The person's answer, if the call carries one (a state without an answer asks again).
pub fn answer(request: &CallToolRequestParams) -> Option<Answer> {
    let state = request.request_state.as_ref()?;
    let reply = request.input_responses.as_ref()?.get(KEY)?;
    let accepted = reply.get("action").and_then(Value::as_str) == Some("accept")
        && reply["content"][KEY] == true;
    Some(if accepted {
        Answer::Accepted(state.clone())
    } else {
        Answer::Declined
    })
}

/// The `input_required` result for an outcome that asks for confirmation with a token.
pub fn ask(tool: &str, outcome: &Outcome) -> Option<InputRequiredResult> {
    let token = outcome.fields.get("confirmation_token")?.as_str()?;
    let preview = outcome.fields.get("preview")?.as_object()?;
    let request = json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message(tool, preview),
            "requestedSchema": {
                "type": "object",
                "properties": {KEY: {
                    "type": "boolean",
                    "title": "Do it",
                    "description": "Tick to let the assistant do exactly what is shown above."
                }},
                "required": [KEY]
            }
        }
    });
    let request: InputRequest = serde_json::from_value(request).ok()?;
    let requests: InputRequests = [(KEY.to_string(), request)].into_iter().collect();
    Some(InputRequiredResult::new(
        Some(requests),
        Some(token.to_string()),
    ))
}

/// The outcome of a declined confirmation: nothing was done.
pub fn declined(tool: &str) -> Outcome {
    let mut fields = Map::new();
    fields.insert("declined".into(), true.into());
    Outcome {
        hint: Some(format!(
            "The user declined: {tool} did nothing. Do not try again unless they ask for it."
        )),
        reason: Some("declined".into()),
        ..Outcome::ok(fields)
    }
}

/// What the person reads: the action, the exact request, its effects and warnings.
fn message(tool: &str, preview: &Map<String, Value>) -> String {
    let text = |k: &str| preview.get(k).and_then(Value::as_str);
    let mut out = format!("The assistant wants to run {tool}.\n");
    if let Some(r) = preview.get("request") {
        out.push_str(&format!(
            "Request: {} {}\n",
            r["method"].as_str().unwrap_or(""),
            r["path"].as_str().unwrap_or("")
        ));
        if !r["body"].is_null() {
            out.push_str(&format!("Data sent: {}\n", r["body"]));
        }
    }
    if let Some(s) = text("side_effects") {
        out.push_str(&format!("What it does: {s}\n"));
    }
    if let Some(Value::Object(changes)) = preview.get("changes")
        && !changes.is_empty()
    {
        out.push_str(&format!("Changes: {}\n", Value::Object(changes.clone())));
    }
    if let Some(Value::Array(w)) = preview.get("warnings") {
        for warning in w.iter().filter_map(Value::as_str) {
            out.push_str(&format!("Warning: {warning}\n"));
        }
    }
    out.push_str("Nothing happens unless you agree.");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(state: Option<&str>, reply: Option<Value>) -> CallToolRequestParams {
        let mut r = CallToolRequestParams::new("invoice_deliver");
        r.request_state = state.map(str::to_string);
        r.input_responses = reply.map(|v| [(KEY.to_string(), v)].into_iter().collect());
        r
    }

    #[test]
    fn only_an_accepted_ticked_form_confirms() {
        let accept = json!({"action": "accept", "content": {"confirm": true}});
        assert_eq!(
            answer(&request(Some("s"), Some(accept.clone()))),
            Some(Answer::Accepted("s".into()))
        );
        for other in [
            json!({"action": "accept", "content": {"confirm": false}}),
            json!({"action": "decline"}),
            json!({"action": "cancel"}),
        ] {
            assert_eq!(
                answer(&request(Some("s"), Some(other))),
                Some(Answer::Declined)
            );
        }
        assert_eq!(answer(&request(None, Some(accept))), None);
        assert_eq!(answer(&request(Some("s"), None)), None, "asked again");
    }

    #[test]
    fn the_input_request_shows_the_preview_and_carries_the_token_as_state() {
        let mut o = Outcome::failed(catalog::Status::ConfirmationRequired, "c", "h");
        o.fields
            .insert("confirmation_token".into(), "tok.sig".into());
        o.fields.insert(
            "preview".into(),
            json!({"request": {"method": "POST", "path": "/x/7/deliver", "body": null},
                   "side_effects": "E-mails the invoice.", "warnings": ["Cannot be undone."]}),
        );
        let r = serde_json::to_value(ask("invoice_deliver", &o).unwrap()).unwrap();
        assert_eq!(r["resultType"], "input_required");
        assert_eq!(r["requestState"], "tok.sig");
        let params = &r["inputRequests"][KEY]["params"];
        assert_eq!(params["mode"], "form");
        let m = params["message"].as_str().unwrap();
        assert!(
            m.contains("POST /x/7/deliver") && m.contains("E-mails the invoice."),
            "{m}"
        );
        assert!(m.contains("Warning: Cannot be undone."), "{m}");
        assert_eq!(params["requestedSchema"]["required"], json!([KEY]));
    }
}
