//! The consent stage: what a tool's risk level asks before it may run. `low` reads and `medium`
//! writes run on their own. A `high` or `critical` call first answers `confirmation_required`
//! with the preview and a `confirmation_token`; the call repeated with that token and the same
//! arguments runs. A client that can show a person a form (2026-07-28 elicitation) gets the
//! same token as the `requestState` of an input request instead. The token is bound to the caller, the tool, a hash of the canonical
//! arguments, an expiry and a nonce, and signed with the deployment's confirmation key
//! (HMAC-SHA-256; every listed key verifies, the first signs, so keys rotate without breaking
//! tokens in flight). The nonce becomes the write's idempotency key.
//!
//! A token proves that the model saw the preview, not that a person agreed: `critical` tools
//! accept one only in the profiles the deployment names (`MCP_TOKEN_CONFIRMS_CRITICAL`);
//! elsewhere they need a person's answer through the client.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catalog::{Risk, Status, Tool};
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::outcome::{Confirmation, Outcome};
use super::preview::Preview;
use crate::contract::risk;

/// How long a confirmation stays valid.
pub(crate) const TOKEN_TTL_S: u64 = 300;
/// Domain separation: a tag made here never verifies anything else signed with the same key.
const LABEL: &str = "hosted-mcp/confirmation/v1.";

/// What a token binds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    /// Key id: which confirmation key signed it.
    pub k: String,
    /// The caller (key id, and the user's pseudonym when known).
    pub c: String,
    /// `connector/tool`.
    pub t: String,
    /// The canonical arguments' hash.
    pub a: String,
    /// Expiry, Unix seconds.
    pub e: u64,
    /// Nonce: the confirmed write's idempotency key.
    pub n: String,
    /// A remote MCP tool's own `requestState`, carried inside ours so the client cannot alter
    /// it (multi-round calls passed through; never set on a confirmation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s: Option<String>,
}

/// Whether a token carries a remote tool's own state (a question of that tool, not our
/// confirmation form), read without checking its signature: only to tell the two apart, since
/// whichever path takes the token verifies it before anything counts.
pub(crate) fn carries_remote_state(token: &str) -> bool {
    token
        .split_once('.')
        .and_then(|(payload, _)| URL_SAFE_NO_PAD.decode(payload).ok())
        .and_then(|bytes| serde_json::from_slice::<Binding>(&bytes).ok())
        .is_some_and(|b| b.s.is_some())
}

/// Why a token is refused; each says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error(
        "This confirmation_token is not valid (altered, or not from this deployment). Call again without it for a new preview and token."
    )]
    Invalid,
    #[error(
        "This confirmation_token has expired (they last {TOKEN_TTL_S} s). Call again without it for a new preview, and confirm that."
    )]
    Expired,
    #[error(
        "This confirmation_token was issued to another caller. Call again without it for your own preview and token."
    )]
    OtherCaller,
    #[error(
        "This confirmation_token is for another tool. Call this tool without it for its own preview and token."
    )]
    OtherTool,
    #[error(
        "The arguments differ from the ones the confirmation_token was issued for. Call again without it: the new arguments need their own preview and confirmation."
    )]
    ChangedArguments,
}

/// The signing side: the deployment's confirmation keys, the first of which signs.
pub struct Signer<'a> {
    keys: &'a [Vec<u8>],
}

impl<'a> Signer<'a> {
    pub fn new(keys: &'a [Vec<u8>]) -> Self {
        Signer { keys }
    }

    /// A token for this binding (its key id set here), or `None` without keys.
    pub fn issue(&self, mut binding: Binding) -> Option<String> {
        let key = self.keys.first()?;
        binding.k = key_id(key);
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&binding).ok()?);
        let tag = URL_SAFE_NO_PAD.encode(tag(key, &payload));
        Some(format!("{payload}.{tag}"))
    }

    /// The binding of a genuine token, checked against this call.
    pub fn verify(
        &self,
        token: &str,
        caller: &str,
        tool: &str,
        digest: &str,
        now: u64,
    ) -> Result<Binding, Refused> {
        let (payload, sent) = token.split_once('.').ok_or(Refused::Invalid)?;
        let binding: Binding = URL_SAFE_NO_PAD
            .decode(payload)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or(Refused::Invalid)?;
        let key = self
            .keys
            .iter()
            .find(|k| key_id(k) == binding.k)
            .ok_or(Refused::Invalid)?;
        let sent = URL_SAFE_NO_PAD.decode(sent).map_err(|_| Refused::Invalid)?;
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(key).map_err(|_| Refused::Invalid)?;
        mac.update(LABEL.as_bytes());
        mac.update(payload.as_bytes());
        mac.verify_slice(&sent).map_err(|_| Refused::Invalid)?;
        if binding.e <= now {
            return Err(Refused::Expired);
        }
        if binding.c != caller {
            return Err(Refused::OtherCaller);
        }
        if binding.t != tool {
            return Err(Refused::OtherTool);
        }
        if binding.a != digest {
            return Err(Refused::ChangedArguments);
        }
        Ok(binding)
    }
}

/// A key's id: the first 8 hex digits of its SHA-256 (names the key, reveals nothing).
fn key_id(key: &[u8]) -> String {
    Sha256::digest(key)[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn tag(key: &[u8], payload: &str) -> Vec<u8> {
    // HMAC takes keys of any length.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("any key length");
    mac.update(LABEL.as_bytes());
    mac.update(payload.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// A fresh nonce: 16 random bytes, hex. Without entropy a clock value at least differs per
/// call, and the ledger still refuses a second use.
pub(super) fn nonce() -> String {
    crate::random::hex_or_clock(16)
}

/// How a token came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Channel {
    /// In the call's arguments: the model saw the preview.
    Token,
    /// As the `requestState` of a form a person accepted in the client.
    Elicitation,
}

impl Channel {
    pub(super) fn word(self) -> &'static str {
        match self {
            Channel::Token => "token",
            Channel::Elicitation => "elicitation",
        }
    }
}

/// How this call is confirmed, once the stage lets it through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Consent {
    /// A `low` or `medium` tool: it runs on its own.
    NotNeeded,
    /// Confirmed; the token's nonce is the write's idempotency key.
    Confirmed { nonce: String, channel: Channel },
}

impl Consent {
    /// The audit word for the confirmation channel.
    pub(super) fn channel(&self) -> Option<&'static str> {
        match self {
            Consent::NotNeeded => None,
            Consent::Confirmed { channel, .. } => Some(channel.word()),
        }
    }
}

/// What the stage decides for a call that carries `token` (or none).
pub(super) enum ConsentCheck {
    Go(Consent),
    /// Refused: the call answers with this.
    Refuse(Box<Outcome>),
    /// Ask for a confirmation of the preview ([`ask`]).
    Ask,
}

/// What the call brings and what its client can do.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Presented<'a> {
    /// A token and how it came back.
    pub token: Option<(&'a str, Channel)>,
    /// The client can show a person a form (it declared elicitation, 2026-07-28).
    pub can_elicit: bool,
    /// This profile's critical tools accept a token in the arguments.
    pub token_confirms_critical: bool,
}

/// The stage's decision: run, refuse, or ask.
pub(super) fn check(
    tool: &Tool,
    qualified: &str,
    presented: Presented<'_>,
    caller: &str,
    digest: &str,
    keys: &[Vec<u8>],
    now: u64,
) -> ConsentCheck {
    if !risk::needs_confirmation(tool) {
        return ConsentCheck::Go(Consent::NotNeeded);
    }
    let critical = tool.risk == Risk::Critical && !presented.token_confirms_critical;
    if let Some((_, Channel::Token)) = presented.token
        && critical
    {
        return ConsentCheck::Refuse(Box::new(Outcome::failed(
            Status::ConfirmationRequired,
            "person_confirmation_required",
            format!(
                "{} is a critical action: a confirmation_token does not confirm it here, only \
                 a person's answer in the client's confirmation form does.",
                tool.name
            ),
        )));
    }
    if presented.token.is_none() && critical && !presented.can_elicit {
        return ConsentCheck::Refuse(Box::new(Outcome::failed(
            Status::ConfirmationRequired,
            "person_confirmation_required",
            format!(
                "{} is a critical action: it needs a person's confirmation through the client's \
                 confirmation form, which this client or deployment does not provide. Ask the \
                 user to do it in the application itself; an operator can allow confirmation \
                 tokens for this profile (MCP_TOKEN_CONFIRMS_CRITICAL).",
                tool.name
            ),
        )));
    }
    let Some((token, channel)) = presented.token else {
        return ConsentCheck::Ask;
    };
    match Signer::new(keys).verify(token, caller, qualified, digest, now) {
        Ok(binding) => ConsentCheck::Go(Consent::Confirmed {
            nonce: binding.n,
            channel,
        }),
        Err(e) => ConsentCheck::Refuse(Box::new(Outcome::failed(
            Status::InvalidInput,
            "confirmation_refused",
            e.to_string(),
        ))),
    }
}

/// `confirmation_required` with the preview and a token bound to this call.
pub(super) fn ask(
    tool: &Tool,
    qualified: &str,
    caller: &str,
    digest: &str,
    keys: &[Vec<u8>],
    now: u64,
    preview: Preview,
) -> Outcome {
    let binding = Binding {
        k: String::new(),
        c: caller.to_string(),
        t: qualified.to_string(),
        a: digest.to_string(),
        e: now + TOKEN_TTL_S,
        n: nonce(),
        s: None,
    };
    let Some(token) = Signer::new(keys).issue(binding) else {
        return Outcome::failed(
            Status::Error,
            "no_confirmation_keys",
            "This deployment cannot confirm actions: its secret has no confirmation_keys. An \
             operator must add them.",
        );
    };
    let outcome = Outcome::failed(
        Status::ConfirmationRequired,
        "confirmation_required",
        format!(
            "Nothing was done yet. Show the user this preview: what is sent, to whom, and whether \
             it can be undone. Only if they agree, call {} again with the same arguments and \
             this confirmation_token (valid {TOKEN_TTL_S} s).",
            tool.name
        ),
    );
    Outcome {
        preview: Some(preview),
        confirmation: Some(Confirmation {
            token,
            expires_in_s: TOKEN_TTL_S,
        }),
        ..outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEW: &[u8] = b"new-confirmation-key-0123456789abcdef";
    const OLD: &[u8] = b"old-confirmation-key-0123456789abcdef";

    fn binding(now: u64) -> Binding {
        Binding {
            k: String::new(),
            c: "e2e".into(),
            t: "papierkram/invoice_deliver".into(),
            a: "abc".into(),
            e: now + TOKEN_TTL_S,
            n: nonce(),
            s: None,
        }
    }

    #[test]
    fn a_token_verifies_only_for_its_caller_tool_arguments_and_time() {
        let keys = [NEW.to_vec()];
        let s = Signer::new(&keys);
        let token = s.issue(binding(1000)).unwrap();
        let ok = s.verify(&token, "e2e", "papierkram/invoice_deliver", "abc", 1000);
        assert_eq!(ok.unwrap().n.len(), 32);
        let check =
            |c: &str, t: &str, a: &str, now: u64| s.verify(&token, c, t, a, now).unwrap_err();
        assert_eq!(
            check("other", "papierkram/invoice_deliver", "abc", 1000),
            Refused::OtherCaller
        );
        assert_eq!(
            check("e2e", "papierkram/invoice_cancel", "abc", 1000),
            Refused::OtherTool
        );
        assert_eq!(
            check("e2e", "papierkram/invoice_deliver", "abd", 1000),
            Refused::ChangedArguments
        );
        assert_eq!(
            check("e2e", "papierkram/invoice_deliver", "abc", 1300),
            Refused::Expired
        );
    }

    #[test]
    fn tampered_or_foreign_tokens_are_invalid_and_rotation_keeps_old_tokens() {
        let old = [OLD.to_vec()];
        let token = Signer::new(&old).issue(binding(1000)).unwrap();
        // The payload re-encoded with another caller keeps its old tag.
        let (payload, tag) = token.split_once('.').unwrap();
        let mut b: Binding =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
        b.c = "attacker".into();
        let forged = format!(
            "{}.{tag}",
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&b).unwrap())
        );
        let rotated = [NEW.to_vec(), OLD.to_vec()];
        let s = Signer::new(&rotated);
        assert_eq!(
            s.verify(&forged, "attacker", &b.t, "abc", 1000)
                .unwrap_err(),
            Refused::Invalid
        );
        for bad in ["", "x", "a.b", &format!("{payload}.AAAA")] {
            assert_eq!(
                s.verify(bad, "e2e", &b.t, "abc", 1000).unwrap_err(),
                Refused::Invalid
            );
        }
        // Signed with the old key, verified while both are listed; refused once it is gone.
        assert!(s.verify(&token, "e2e", &b.t, "abc", 1000).is_ok());
        let only_new = [NEW.to_vec()];
        assert_eq!(
            Signer::new(&only_new)
                .verify(&token, "e2e", &b.t, "abc", 1000)
                .unwrap_err(),
            Refused::Invalid
        );
        // New tokens are signed with the first key.
        let fresh = s.issue(binding(1000)).unwrap();
        assert!(
            Signer::new(&only_new)
                .verify(&fresh, "e2e", &b.t, "abc", 1000)
                .is_ok()
        );
    }
}
