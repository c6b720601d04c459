//! Multi-round remote calls: a remote MCP tool that answers `input_required` gets its questions
//! passed to our client, with the remote's `requestState` wrapped inside ours, signed like a
//! confirmation token and bound to the caller, the tool, the arguments and five minutes. The
//! retried call brings our state back; only a genuine one for the same call is unwrapped, and
//! the remote gets its own state and the client's answers; any other state is refused with
//! [`INVALID_REQUEST_STATE`] in the audit log and marked [`ProtocolError::InvalidRequestState`],
//! which the MCP layer answers as a protocol error. Answers that come
//! without a state go to the remote as they are (it asked for none, or it asks again). The
//! remote's state is carried, not trusted: the remote checks its own.

use catalog::{Status, Tool};
use serde_json::Value;

use super::Caller;
use super::consent::{self, Binding, Signer, TOKEN_TTL_S};
use super::outcome::{Outcome, ProtocolError};
use crate::clock::now_s;
use crate::contract::args::ValidArgs;
use crate::upstream::RemoteInput;

/// The longest remote state carried (it travels in every retry).
const MAX_REMOTE_STATE: usize = 8 * 1024;

/// The reason of an outcome that refused a `requestState` this server did not issue for this
/// call (changed, expired, another caller's or another call's).
pub(crate) const INVALID_REQUEST_STATE: &str = "invalid_request_state";

/// What a retried call brought: our state (when it sent one) and the client's answers.
#[derive(Debug, Clone, Copy)]
pub struct Resume<'a> {
    pub state: Option<&'a str>,
    pub responses: Option<&'a Value>,
}

/// Who, what and which arguments a state is bound to.
pub(super) struct Bound {
    pub(super) who: String,
    pub(super) qualified: String,
    pub(super) digest: String,
}

/// What a state is for: a remote tool's call, or a remote prompt's `prompts/get` (its own
/// kind, so a state issued for the one is never valid for the other of the same name).
#[derive(Debug, Clone, Copy)]
pub(super) enum Asking<'a> {
    Tool(&'a Tool),
    Prompt(&'a str),
}

impl Asking<'_> {
    fn qualified(&self) -> String {
        match self {
            Asking::Tool(t) => t.name.to_string(),
            Asking::Prompt(p) => format!("prompt:{p}"),
        }
    }

    fn name(&self) -> &str {
        match self {
            Asking::Tool(t) => &t.name,
            Asking::Prompt(p) => p,
        }
    }
}

fn bound(caller: &Caller, connector: &str, asking: Asking<'_>, valid: &ValidArgs) -> Bound {
    let qualified = asking.qualified();
    Bound {
        who: caller.who(),
        digest: valid.digest(connector, &qualified),
        qualified: format!("{connector}/{qualified}"),
    }
}

/// The remote's state and the answers into `valid`, from a genuine state of this call.
pub(super) fn resume(
    keys: &[Vec<u8>],
    caller: &Caller,
    connector: &str,
    asking: Asking<'_>,
    valid: &mut ValidArgs,
    resume: Resume<'_>,
) -> Result<(), Box<Outcome>> {
    let Some(ours) = resume.state else {
        valid.remote.responses = resume.responses.cloned();
        return Ok(());
    };
    let b = bound(caller, connector, asking, valid);
    let state = open(keys, &b, asking.name(), ours)?;
    // A remote that sent no state gets none back (ours carried an empty one).
    valid.remote.state = (!state.is_empty()).then_some(state);
    valid.remote.responses = resume.responses.cloned();
    Ok(())
}

/// The remote's state inside ours, on an outcome that asks the person; an outcome that cannot
/// be wrapped (no keys, a state too long) loses its questions and stays an error.
pub(super) fn wrap(
    keys: &[Vec<u8>],
    caller: &Caller,
    connector: &str,
    tool: &Tool,
    valid: &ValidArgs,
    outcome: &mut Outcome,
) {
    let Some(asked) = outcome.input_required.take() else {
        return;
    };
    outcome.input_required = seal(keys, caller, connector, Asking::Tool(tool), valid, *asked);
}

/// The remote's questions with its state inside ours; `None` when it cannot be wrapped (no
/// keys, a state too long).
pub(super) fn seal(
    keys: &[Vec<u8>],
    caller: &Caller,
    connector: &str,
    asking: Asking<'_>,
    valid: &ValidArgs,
    mut asked: RemoteInput,
) -> Option<Box<RemoteInput>> {
    if asked
        .state
        .as_ref()
        .is_some_and(|s| s.len() > MAX_REMOTE_STATE)
    {
        return None;
    }
    let b = bound(caller, connector, asking, valid);
    asked.state = Some(issue(keys, &b, asked.state.clone().unwrap_or_default())?);
    Some(Box::new(asked))
}

/// The protocol error of a `requestState` we did not issue for this call of `name`.
pub(super) fn refused(name: &str, why: &str) -> Box<Outcome> {
    Box::new(
        Outcome::failed(
            Status::InvalidInput,
            INVALID_REQUEST_STATE,
            format!("{why} Call {name} again without it to start over."),
        )
        .with_protocol_error(ProtocolError::InvalidRequestState),
    )
}

/// Our `requestState` of a round bound as `b`, carrying `inner` (a remote's own state; empty
/// for a question of ours), signed like a confirmation token, for five minutes.
pub(super) fn issue(keys: &[Vec<u8>], b: &Bound, inner: String) -> Option<String> {
    Signer::new(keys).issue(Binding {
        k: String::new(),
        c: b.who.clone(),
        t: b.qualified.clone(),
        a: b.digest.clone(),
        e: now_s() + TOKEN_TTL_S,
        n: consent::nonce(),
        s: Some(inner),
    })
}

/// What our `requestState` carries, when it is genuine and bound as `b`; else the protocol
/// error, saying to call `name` again without it.
pub(super) fn open(
    keys: &[Vec<u8>],
    b: &Bound,
    name: &str,
    state: &str,
) -> Result<String, Box<Outcome>> {
    let refused = |why: &str| refused(name, why);
    let binding = Signer::new(keys)
        .verify(state, &b.who, &b.qualified, &b.digest, now_s())
        .map_err(|e| match e {
            consent::Refused::Expired => refused("This requestState has expired."),
            _ => refused("This requestState is not valid for this call."),
        })?;
    binding
        .s
        .ok_or_else(|| refused("This requestState is not a question of this request."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::RemoteInput;
    use serde_json::json;

    fn tool() -> Tool {
        let yaml = "connector: n\nbase_url: http://x\ntools:\n  - { name: n_greet_get, risk: low, description: d, get: /g }\n";
        catalog::parse("n.yaml", yaml).unwrap().tools.remove(0)
    }

    fn valid(greeting: &str) -> ValidArgs {
        ValidArgs {
            values: [("greeting".to_string(), json!(greeting))].into(),
            ..ValidArgs::default()
        }
    }

    fn asked(state: &str) -> Outcome {
        let mut o = Outcome::failed(Status::Error, "remote_input_required", "h");
        o.input_required = Some(Box::new(RemoteInput {
            requests: json!({"who": {}}),
            state: Some(state.into()),
        }));
        o
    }

    #[test]
    fn the_remote_state_comes_back_only_for_the_same_caller_tool_and_arguments() {
        let keys = vec![b"0123456789abcdef0123456789abcdef".to_vec()];
        let mut o = asked("remote-state");
        wrap(&keys, &Caller::key("a"), "n", &tool(), &valid("Hi"), &mut o);
        let ours = o.input_required.unwrap().state.unwrap();
        assert_ne!(ours, "remote-state");
        let answers = json!({"who": {"action": "accept"}});
        let back = |who: &str, greeting: &str, state: &str| {
            let mut v = valid(greeting);
            let resumed = Resume {
                state: Some(state),
                responses: Some(&answers),
            };
            resume(
                &keys,
                &Caller::key(who),
                "n",
                Asking::Tool(&tool()),
                &mut v,
                resumed,
            )
            .map(|_| v.remote)
        };
        let round = back("a", "Hi", &ours).unwrap();
        assert_eq!(round.state.as_deref(), Some("remote-state"));
        assert_eq!(round.responses, Some(answers.clone()));
        for (who, greeting, state) in [
            ("b", "Hi", ours.as_str()),
            ("a", "Yo", &ours),
            ("a", "Hi", "remote-state"),
        ] {
            let refused = back(who, greeting, state).unwrap_err();
            assert_eq!(refused.status, Status::InvalidInput);
            assert_eq!(refused.reason.as_deref(), Some(INVALID_REQUEST_STATE));
            assert_eq!(
                refused.protocol_error,
                Some(ProtocolError::InvalidRequestState)
            );
        }
        let tampered = format!("{ours}-TAMPERED");
        assert!(back("a", "Hi", &tampered).is_err());
    }

    #[test]
    fn a_state_issued_for_a_tool_is_no_state_of_a_prompt_of_the_same_name() {
        let keys = vec![b"0123456789abcdef0123456789abcdef".to_vec()];
        let asked = RemoteInput {
            requests: json!({"k": {}}),
            state: Some("remote".into()),
        };
        let tool = tool();
        let sealed = seal(
            &keys,
            &Caller::key("a"),
            "n",
            Asking::Tool(&tool),
            &valid("Hi"),
            asked,
        );
        let ours = sealed.unwrap().state.unwrap();
        let back = |asking: Asking<'_>| {
            let mut v = valid("Hi");
            let resumed = Resume {
                state: Some(&ours),
                responses: None,
            };
            resume(&keys, &Caller::key("a"), "n", asking, &mut v, resumed).map(|_| v.remote.state)
        };
        assert_eq!(
            back(Asking::Tool(&tool)).unwrap().as_deref(),
            Some("remote")
        );
        let refused = back(Asking::Prompt(&tool.name)).unwrap_err();
        assert_eq!(refused.reason.as_deref(), Some(INVALID_REQUEST_STATE));
    }

    #[test]
    fn a_remote_that_sent_no_state_gets_none_back() {
        let keys = vec![b"0123456789abcdef0123456789abcdef".to_vec()];
        let mut o = asked("s");
        o.input_required.as_mut().unwrap().state = None;
        wrap(&keys, &Caller::key("a"), "n", &tool(), &valid("Hi"), &mut o);
        let ours = o.input_required.unwrap().state.unwrap();
        let mut v = valid("Hi");
        let resumed = Resume {
            state: Some(&ours),
            responses: None,
        };
        resume(
            &keys,
            &Caller::key("a"),
            "n",
            Asking::Tool(&tool()),
            &mut v,
            resumed,
        )
        .unwrap();
        assert_eq!(v.remote.state, None);
    }

    #[test]
    fn answers_without_a_state_go_to_the_remote_without_one() {
        let keys = vec![b"0123456789abcdef0123456789abcdef".to_vec()];
        let answers = json!({"user_name": {"action": "accept", "content": {"name": "A"}}});
        let mut v = valid("Hi");
        let resumed = Resume {
            state: None,
            responses: Some(&answers),
        };
        resume(
            &keys,
            &Caller::key("a"),
            "n",
            Asking::Tool(&tool()),
            &mut v,
            resumed,
        )
        .unwrap();
        assert_eq!(v.remote.state, None);
        assert_eq!(v.remote.responses, Some(answers));
    }

    #[test]
    fn without_keys_or_with_a_huge_state_the_question_is_not_passed_on() {
        let mut o = asked("s");
        wrap(&[], &Caller::key("a"), "n", &tool(), &valid("Hi"), &mut o);
        assert!(o.input_required.is_none());
        let keys = vec![b"0123456789abcdef0123456789abcdef".to_vec()];
        let mut o = asked(&"x".repeat(MAX_REMOTE_STATE + 1));
        wrap(&keys, &Caller::key("a"), "n", &tool(), &valid("Hi"), &mut o);
        assert!(o.input_required.is_none());
    }
}
