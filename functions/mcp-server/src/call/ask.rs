//! Ask: a required argument the catalog lets a person give (`ask` on the param), missing from a
//! call whose client can show a form, is asked for instead of refused. The call answers
//! `input_required`: one form of every such param missing, and a `requestState` signed like a
//! confirmation token, bound to the caller, the tool and the arguments the model sent, for five
//! minutes. The form names each field as its param goes upstream (`as`, else its name), as a
//! waiting job's forms do. The retried call (the same arguments, the state, the person's
//! answers) gets the answers put in as those params and goes on through the stages like any call; a declined form
//! runs nothing and says so; a state of another call is refused as a protocol error, as a remote
//! round's is. The loader keeps `ask` to tools that need no confirmation, whose token would be
//! bound to the arguments without the answers.

use std::borrow::Cow;
use std::ops::ControlFlow;

use catalog::{Param, Status, Tool};
use serde_json::{Map, Value, json};

use super::outcome::Outcome;
use super::rounds::{self, Bound, Resume};
use super::{Caller, Flow};
use crate::upstream::RemoteInput;

/// The key of the one form.
pub(super) const KEY: &str = "arguments";

/// Whether the tool has a param a person may be asked for.
pub(super) fn asks(tool: &Tool) -> bool {
    tool.params.values().any(|p| p.ask.is_some())
}

/// The call's arguments, with a person's answers put in when the call brings them back; or the
/// call's answer now: the form that asks for what is missing, a decline, or a refused state.
/// `can_ask`: the client can show a form and a state can be signed (`keys`).
pub(super) fn fill<'a>(
    keys: &[Vec<u8>],
    caller: &Caller,
    connector: &str,
    tool: &Tool,
    arguments: &'a Map<String, Value>,
    can_ask: bool,
    resumed: Option<Resume<'_>>,
) -> Flow<Cow<'a, Map<String, Value>>> {
    if !asks(tool) {
        return ControlFlow::Continue(Cow::Borrowed(arguments));
    }
    let missing: Vec<(&str, &Param)> = tool
        .params
        .iter()
        .filter(|(name, p)| {
            p.ask.is_some() && arguments.get(name.as_str()).is_none_or(Value::is_null)
        })
        .map(|(name, p)| (name.as_str(), &**p))
        .collect();
    let bound = bound(caller, connector, tool, arguments);
    if let Some(Resume {
        state: Some(state),
        responses,
    }) = resumed
    {
        verify(keys, &bound, tool, state)?;
        let answer = responses.and_then(|r| r.get(KEY));
        if answer.and_then(|a| a.get("action")).and_then(Value::as_str) != Some("accept") {
            return ControlFlow::Break(declined(tool, &missing));
        }
        let content = answer
            .and_then(|a| a.get("content"))
            .and_then(Value::as_object);
        let mut filled = arguments.clone();
        for (name, p) in &missing {
            if let Some(v) = content.and_then(|c| c.get(p.upstream_name(name))) {
                filled.insert((*name).to_string(), v.clone());
            }
        }
        return ControlFlow::Continue(Cow::Owned(filled));
    }
    if missing.is_empty() || !can_ask {
        return ControlFlow::Continue(Cow::Borrowed(arguments));
    }
    match question(keys, &bound, tool, &missing) {
        Some(asking) => ControlFlow::Break(asking),
        None => ControlFlow::Continue(Cow::Borrowed(arguments)),
    }
}

/// The round's binding: the caller, the tool and the arguments as the model sent them.
fn bound(caller: &Caller, connector: &str, tool: &Tool, arguments: &Map<String, Value>) -> Bound {
    use sha2::{Digest, Sha256};
    let qualified = format!("{connector}/{}", tool.name);
    // Sorted keys (serde_json's map is ordered): the same arguments give the same digest.
    let canonical = serde_json::to_string(arguments).unwrap_or_default();
    let hash = Sha256::digest(format!("ask\n{qualified}\n{canonical}").as_bytes());
    Bound {
        who: caller.who(),
        qualified,
        digest: hash.iter().map(|b| format!("{b:02x}")).collect(),
    }
}

/// The form asking for every missing param, with our state; `None` when no state can be signed.
fn question(
    keys: &[Vec<u8>],
    b: &Bound,
    tool: &Tool,
    missing: &[(&str, &Param)],
) -> Option<Outcome> {
    // A question of ours: no remote's state inside.
    let state = rounds::issue(keys, b, String::new())?;
    let questions: Vec<&str> = missing
        .iter()
        .filter_map(|(_, p)| p.ask.as_deref())
        .collect();
    let form = crate::contract::schema::form(missing.iter().map(|(n, p)| (p.upstream_name(n), *p)));
    let request = json!({
        "method": "elicitation/create",
        "params": {"mode": "form", "message": questions.join("\n"), "requestedSchema": form},
    });
    let names: Vec<&str> = missing.iter().map(|(n, _)| *n).collect();
    let mut asking = Outcome::failed(
        Status::InvalidInput,
        "arguments_asked",
        format!(
            "{} needs {} from the user, who is asked for it in a form.",
            tool.name,
            names.join(", ")
        ),
    );
    asking.input_required = Some(Box::new(RemoteInput {
        requests: json!({KEY: request}),
        state: Some(state),
    }));
    Some(asking)
}

/// A state issued for this call, else the protocol error a remote round's foreign state gets.
fn verify(keys: &[Vec<u8>], b: &Bound, tool: &Tool, state: &str) -> Flow<()> {
    match rounds::open(keys, b, &tool.name, state) {
        // Ours carries no remote's state.
        Ok(inner) if inner.is_empty() => ControlFlow::Continue(()),
        Ok(_) => ControlFlow::Break(*rounds::refused(
            &tool.name,
            "This requestState is not a question of this request.",
        )),
        Err(refused) => ControlFlow::Break(*refused),
    }
}

/// The person would not give what the call needs: nothing ran.
fn declined(tool: &Tool, missing: &[(&str, &Param)]) -> Outcome {
    let names: Vec<&str> = missing.iter().map(|(n, _)| *n).collect();
    Outcome {
        hint: Some(format!(
            "The user declined to give {}: {} did nothing. Do not try again unless they ask for it.",
            names.join(", "),
            tool.name
        )),
        reason: Some("declined".into()),
        ..Outcome::ok(Map::from_iter([(
            "declined".to_string(),
            Value::Bool(true),
        )]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &[&[u8]] = &[b"ask-test-key-0123456789abcdef0123456789"];

    fn keys() -> Vec<Vec<u8>> {
        KEYS.iter().map(|k| k.to_vec()).collect()
    }

    fn tool() -> Tool {
        let yaml = r#"
connector: n
base_url: http://x
tools:
  - name: n_greeting_get
    risk: low
    description: 'Greets. Use it to say hello. Example {"name": "Ada"}'
    get: /greet
    params:
      name: { type: string, required: true, max_length: 50, label: Name, ask: Whom should I greet? }
      loud: { type: boolean }
"#;
        catalog::parse("n.yaml", yaml).unwrap().tools.remove(0)
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    /// The form a call without `name` gets, and its state.
    fn asked(given: &Map<String, Value>) -> (Value, String) {
        let ControlFlow::Break(o) =
            fill(&keys(), &Caller::key("k"), "n", &tool(), given, true, None)
        else {
            panic!("not asked");
        };
        assert_eq!(
            (o.status, o.reason.as_deref()),
            (Status::InvalidInput, Some("arguments_asked"))
        );
        let asked = o.input_required.unwrap();
        (asked.requests, asked.state.unwrap())
    }

    fn answer(action: &str, content: Value) -> Value {
        json!({KEY: {"action": action, "content": content}})
    }

    #[test]
    fn a_missing_param_is_asked_for_in_a_form_only_where_a_form_can_be_shown() {
        let given = args(json!({"loud": true}));
        let (requests, _) = asked(&given);
        let params = &requests[KEY]["params"];
        assert_eq!(params["message"], "Whom should I greet?");
        assert_eq!(
            params["requestedSchema"]["properties"]["name"]["title"],
            "Name"
        );
        assert_eq!(params["requestedSchema"]["required"], json!(["name"]));
        let t = tool();
        for (can_ask, keys) in [(false, keys()), (true, Vec::new())] {
            let flow = fill(&keys, &Caller::key("k"), "n", &t, &given, can_ask, None);
            assert!(
                matches!(flow, ControlFlow::Continue(Cow::Borrowed(_))),
                "validation refuses it as before"
            );
        }
        let complete = args(json!({"name": "Ada"}));
        let flow = fill(&keys(), &Caller::key("k"), "n", &t, &complete, true, None);
        assert!(matches!(flow, ControlFlow::Continue(Cow::Borrowed(_))));
    }

    /// `who`'s retried call with `given` arguments, bringing `state` and `responses` back.
    fn retried(
        who: &str,
        given: &Map<String, Value>,
        state: &str,
        responses: &Value,
    ) -> Flow<Map<String, Value>> {
        let resume = Resume {
            state: Some(state),
            responses: Some(responses),
        };
        let keys = keys();
        fill(
            &keys,
            &Caller::key(who),
            "n",
            &tool(),
            given,
            true,
            Some(resume),
        )
        .map_continue(Cow::into_owned)
    }

    #[test]
    fn the_answer_goes_in_only_for_the_same_call_of_the_same_caller() {
        let given = args(json!({"loud": true}));
        let (_, state) = asked(&given);
        let responses = answer("accept", json!({"name": "Alice", "loud": false}));
        let ControlFlow::Continue(filled) = retried("k", &given, &state, &responses) else {
            panic!("not filled");
        };
        assert_eq!(
            Value::Object(filled),
            json!({"loud": true, "name": "Alice"}),
            "only what was asked"
        );

        let changed = args(json!({"loud": false}));
        for (who, args) in [("other", &given), ("k", &changed)] {
            let ControlFlow::Break(o) = retried(who, args, &state, &responses) else {
                panic!("{who} resumed another call");
            };
            assert_eq!(
                o.protocol_error,
                Some(crate::call::ProtocolError::InvalidRequestState),
                "{who}"
            );
        }
        let declined = answer("decline", json!({}));
        let ControlFlow::Break(o) = retried("k", &given, &state, &declined) else {
            panic!("a decline ran");
        };
        assert_eq!(
            (o.status, o.reason.as_deref()),
            (Status::Ok, Some("declined"))
        );
    }
}
