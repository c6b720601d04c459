//! Confirmation by a person, for clients that can show a form: on 2026-07-28, a client that
//! declares the elicitation capability gets a `confirmation_required` outcome as an
//! `input_required` result instead: a form elicitation showing the preview (accept/decline),
//! with the outcome's signed confirmation token as the `requestState`. The client echoes the
//! state with the person's answer on the retried call; any instance can check it (it is the
//! same signed token the consent stage verifies: caller, tool, arguments, expiry, nonce). A
//! decline executes nothing and says so.

use rmcp::model::{CallToolRequestParams, InputRequest, InputRequests, InputRequiredResult};
use serde_json::{Map, Value, json};

use crate::call::{Outcome, Preview};

/// The key of the one input request.
pub(super) const KEY: &str = "confirm";

/// What the person decided, as the retried call brought it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Decision {
    /// A person accepted the form: the echoed state (the token).
    Accepted(String),
    /// Declined, cancelled, or accepted without ticking the box.
    Declined,
}

/// The person's decision, if the call carries one (a state without an answer asks again). A
/// state that carries a remote tool's own is that tool's round, whatever its questions are
/// called (a remote may ask under the key `confirm` too).
pub(super) fn decision(request: &CallToolRequestParams) -> Option<Decision> {
    let state = request.request_state.as_ref()?;
    if crate::call::carries_remote_state(state) {
        return None;
    }
    let reply = request.input_responses.as_ref()?.get(KEY)?;
    let accepted = reply.get("action").and_then(Value::as_str) == Some("accept")
        && reply["content"][KEY] == true;
    Some(if accepted {
        Decision::Accepted(state.clone())
    } else {
        Decision::Declined
    })
}

/// The `input_required` result for an outcome that asks for confirmation with a token.
pub(super) fn ask(tool: &str, outcome: &Outcome) -> Option<InputRequiredResult> {
    let token = &outcome.confirmation.as_ref()?.token;
    let preview = outcome.preview.as_ref()?;
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
pub(super) fn declined(tool: &str) -> Outcome {
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

/// What the person reads, in their words (`call::Form`): the action and what it does, each
/// argument under its label, the sums, the published price, who is notified, what changes and
/// the risk. No HTTP
/// method or path and no advice meant for the model: the preview the model gets keeps those.
fn message(tool: &str, preview: &Preview) -> String {
    let form = &preview.form;
    let action = if form.action.is_empty() {
        tool
    } else {
        &form.action
    };
    let mut out = format!("The assistant asks to do this in {action}.\n");
    if let Some(does) = &form.does {
        out.push_str(&format!("What it does: {does}\n"));
    }
    if !form.lines.is_empty() {
        out.push('\n');
        for line in &form.lines {
            out.push_str(line);
            out.push('\n');
        }
    }
    for total in &form.totals {
        out.push_str(&format!("In total: {total}\n"));
    }
    if let Some(price) = &form.price {
        out.push_str(price);
        out.push('\n');
    }
    if !preview.notifies.is_empty() {
        out.push_str(&format!(
            "Who is notified: {}\n",
            preview.notifies.join(", ")
        ));
    }
    if !form.changes.is_empty() {
        out.push_str("What changes:\n");
        for change in &form.changes {
            out.push_str(&format!("  {change}\n"));
        }
    }
    out.push('\n');
    for risk in &form.risk {
        out.push_str(risk);
        out.push('\n');
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
            decision(&request(Some("s"), Some(accept.clone()))),
            Some(Decision::Accepted("s".into()))
        );
        for other in [
            json!({"action": "accept", "content": {"confirm": false}}),
            json!({"action": "decline"}),
            json!({"action": "cancel"}),
        ] {
            assert_eq!(
                decision(&request(Some("s"), Some(other))),
                Some(Decision::Declined)
            );
        }
        assert_eq!(decision(&request(None, Some(accept))), None);
        assert_eq!(decision(&request(Some("s"), None)), None, "asked again");
    }

    #[test]
    fn a_remote_question_keyed_confirm_is_the_remote_round_not_our_form() {
        let keys = vec![b"0123456789abcdef0123456789abcdef".to_vec()];
        let binding = |s: Option<&str>| crate::call::Binding {
            k: String::new(),
            c: "a".into(),
            t: "n/n_x_get".into(),
            a: "d".into(),
            e: u64::MAX,
            n: "n".into(),
            s: s.map(str::to_string),
        };
        let signer = crate::call::Signer::new(&keys);
        let round = signer.issue(binding(Some("remote"))).unwrap();
        let ours = signer.issue(binding(None)).unwrap();
        let answer = json!({"action": "accept", "content": {"ok": true}});
        assert_eq!(decision(&request(Some(&round), Some(answer.clone()))), None);
        assert_eq!(
            decision(&request(Some(&ours), Some(answer))),
            Some(Decision::Declined)
        );
    }

    #[test]
    fn the_input_request_shows_the_preview_and_carries_the_token_as_state() {
        let mut o = Outcome::failed(catalog::Status::ConfirmationRequired, "c", "h");
        o.confirmation = Some(crate::call::Confirmation {
            token: "tok.sig".into(),
            expires_in_s: 300,
        });
        o.preview = Some(Preview {
            request: crate::call::RequestLine {
                method: "POST",
                path: "/x/7/deliver".into(),
                body: None,
            },
            risk: "high",
            side_effects: Some("E-mails the invoice.".into()),
            effect: None,
            retry_safe: false,
            failure_modes: Vec::new(),
            confirmation: "confirmation of this preview",
            warnings: vec!["Not safe to repeat: retry only with the same idempotency_key."],
            current: None,
            notifies: vec!["a@x.example".into()],
            current_untrusted: Vec::new(),
            current_withheld: None,
            changes: None,
            cost: None,
            totals: serde_json::Map::new(),
            price: None,
            reply_window: None,
            form: crate::call::Form {
                action: "Shop: invoice deliver".into(),
                does: Some("E-mails the invoice.".into()),
                lines: vec!["Invoice: “Relaunch” (7)".into()],
                price: Some(
                    "Price: 0.5 EUR a page of paper a4 (https://x.example, as of 2026-12-06)"
                        .into(),
                ),
                risk: vec!["It cannot be undone.".into()],
                ..Default::default()
            },
        });
        let r = serde_json::to_value(ask("invoice_deliver", &o).unwrap()).unwrap();
        assert_eq!(r["resultType"], "input_required");
        assert_eq!(r["requestState"], "tok.sig");
        let params = &r["inputRequests"][KEY]["params"];
        assert_eq!(params["mode"], "form");
        assert_eq!(
            params["message"],
            "The assistant asks to do this in Shop: invoice deliver.\n\
             What it does: E-mails the invoice.\n\n\
             Invoice: “Relaunch” (7)\n\
             Price: 0.5 EUR a page of paper a4 (https://x.example, as of 2026-12-06)\n\
             Who is notified: a@x.example\n\n\
             It cannot be undone.\n\
             Nothing happens unless you agree."
        );
        assert_eq!(params["requestedSchema"]["required"], json!([KEY]));
    }
}
