//! One tool call as a pipeline of named stages, read top to bottom:
//!
//! 1. **validate** the arguments against the contract (`contract::args`);
//! 2. **budget**: the caller's daily budget of upstream requests on the connector (`budget`);
//! 3. **dry run**: a write with `dry_run: true` answers its preview and stops (`dry_run`);
//! 4. **consent**: what the risk level asks: a `high` or `critical` call runs only with a
//!    confirmation of its preview (`consent`);
//! 5. **ledger**: a write with an idempotency key claims it, so it runs once (`ledger`);
//! 6. **execute**: one upstream request (`plain`) or an aggregation over pages (`aggregate`),
//!    all within the call's [`Deadline`] and the budget's [`Meter`], what was sent booked; the
//!    ledger records what came of a claimed write;
//! 7. **shape**: the list shape, untrusted marking and the output budget (`shape`).
//!
//! Every stage answers with an [`Outcome`]; the MCP adapter turns it into a result in one place.

pub mod aggregate;
pub mod budget;
pub mod caller;
pub mod consent;
pub mod dry_run;
pub mod ledger;
pub mod outcome;
pub mod shape;

pub use caller::Caller;
pub use outcome::{Outcome, WriteFacts};

use std::sync::Arc;

use catalog::{Status, Tool};
use serde_json::{Map, Value};

use crate::contract::args::{self, ValidArgs};
use crate::contract::risk;
use crate::inventory::{Connector, Scope};
use crate::limits::window::now_s;
use crate::limits::{Admission, Limits};
use crate::upstream::{Deadline, Happened, Meter, Upstream};
use consent::{Channel, Consent, Presented, Step};
use ledger::{Claim, Ledger};

/// What the client can do for a confirmation, and what it brought back.
#[derive(Debug, Clone, Copy, Default)]
pub struct Elicitation<'a> {
    /// The client can show a person a form.
    pub available: bool,
    /// The token of a form a person accepted (the echoed `requestState`).
    pub accepted: Option<&'a str>,
}

/// Who calls, within what time and budget, and what the client can do for a confirmation.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub caller: &'a Caller,
    pub deadline: &'a Deadline,
    /// What the edge counted for this call (the caller's budgets); none when limits are off.
    pub admission: Option<&'a Admission>,
    pub elicitation: Elicitation<'a>,
}

/// What a tool call needs, built once at start.
pub struct Pipeline {
    pub upstream: Upstream,
    /// Where spent upstream requests are booked.
    pub limits: Arc<Limits>,
    /// The default output budget; a tool's `max_result_bytes` overrides it.
    pub max_result_bytes: usize,
    /// Where confirmed and keyed writes are claimed and recorded.
    pub ledger: Ledger,
    /// Profiles (`*`: the whole deployment) whose critical tools accept a confirmation token.
    pub token_confirms_critical: Vec<String>,
}

impl Pipeline {
    pub async fn call(
        &self,
        conn: &Connector,
        tool: &Tool,
        arguments: &Map<String, Value>,
        request: Request<'_>,
    ) -> Outcome {
        let admission = request.admission;
        let valid = match args::validate(tool, arguments) {
            Ok(v) => v,
            Err(e) => return Outcome::failed(Status::InvalidInput, "invalid_argument", e.hint),
        };
        let budget = admission.and_then(|a| a.budgets.get(&conn.catalog.connector).copied());
        let meter = match budget::admit(conn, budget) {
            Ok(meter) => meter,
            Err(refused) => return *refused,
        };
        let mut outcome = self.run(conn, tool, &valid, request, &meter).await;
        if let Some(a) = admission {
            self.limits
                .spent(&a.caller, &conn.catalog.connector, meter.sent(), now_s());
        }
        budget::settle(&mut outcome, conn, budget, &meter);
        shape::cap(
            &mut outcome,
            tool.max_result_bytes.unwrap_or(self.max_result_bytes),
        );
        outcome
    }

    /// Dry run, consent, ledger and execution of a validated call within its budget. A read
    /// that needs no confirmation goes straight to the upstream: reads pay for none of this.
    async fn run(
        &self,
        conn: &Connector,
        tool: &Tool,
        valid: &ValidArgs,
        request: Request<'_>,
        meter: &Meter,
    ) -> Outcome {
        let Request {
            caller,
            deadline,
            elicitation,
            ..
        } = request;
        let write = risk::is_write(tool);
        if !write && !risk::needs_confirmation(tool) {
            return self.execute(conn, tool, valid, deadline, meter).await.0;
        }
        if write && valid.write.dry_run {
            let mut outcome =
                match dry_run::preview(&self.upstream, conn, tool, valid, deadline, meter).await {
                    Ok(preview) => dry_run::answer(tool, preview),
                    Err(outcome) => outcome,
                };
            outcome.write = Some(WriteFacts {
                dry_run: true,
                ..WriteFacts::default()
            });
            return outcome;
        }
        let qualified = format!("{}/{}", conn.catalog.connector, tool.name);
        let digest = valid.digest(&conn.catalog.connector, &tool.name);
        let who = who(caller);
        let keys = self.confirmation_keys().await;
        let now = now_s();
        let presented = Presented {
            token: elicitation
                .accepted
                .map(|t| (t, Channel::Elicitation))
                .or(valid
                    .write
                    .confirmation_token
                    .as_deref()
                    .map(|t| (t, Channel::Token))),
            can_elicit: elicitation.available,
            token_confirms_critical: self.token_confirms_critical(&caller.scope),
        };
        let step = consent::check(tool, &qualified, presented, &who, &digest, &keys, now);
        let consent =
            match step {
                Step::Go(consent) => consent,
                Step::Answer(outcome) => return with_facts(*outcome, write, None, None),
                Step::Ask => {
                    let outcome =
                        match dry_run::preview(&self.upstream, conn, tool, valid, deadline, meter)
                            .await
                        {
                            Ok(preview) => {
                                consent::ask(tool, &qualified, &who, &digest, &keys, now, preview)
                            }
                            Err(outcome) => outcome,
                        };
                    return with_facts(outcome, write, None, None);
                }
            };
        let channel = consent.channel();
        let key = match (&consent, &valid.write.idempotency_key) {
            (Consent::Confirmed { nonce, .. }, _) => Some(format!("confirmed:{nonce}")),
            (Consent::NotNeeded, Some(k)) if write => Some(format!("{who}|{qualified}|{k}")),
            _ => None,
        };
        let Some(key) = key else {
            let outcome = self.execute(conn, tool, valid, deadline, meter).await.0;
            return with_facts(outcome, write, channel, None);
        };
        match self.ledger.claim(&key, &digest, now).await {
            Claim::New => {}
            Claim::Replay(stored) => {
                return with_facts(Outcome::replayed(&stored), write, channel, Some("replayed"));
            }
            Claim::Conflict => {
                let outcome = Outcome::failed(
                    Status::InvalidInput,
                    "idempotency_conflict",
                    "This idempotency_key was used for a call with other arguments. Use a new key \
                     for a new write; reuse a key only to retry the very same call.",
                );
                return with_facts(outcome, write, channel, Some("conflict"));
            }
            Claim::Unknown => {
                return with_facts(unknown(conn, tool), write, channel, Some("unknown"));
            }
            Claim::Unavailable(why) => {
                tracing::error!(reason = %why, "the idempotency ledger cannot answer: write refused");
                let outcome = Outcome::failed(
                    Status::Unavailable,
                    "ledger_unavailable",
                    "This write cannot be made sure to run once right now, so it was not sent; \
                     try again in a minute with the same arguments.",
                );
                return with_facts(outcome, write, channel, None);
            }
        }
        let (outcome, happened) = self.execute(conn, tool, valid, deadline, meter).await;
        match happened {
            Happened::Unknown => {} // the claim stays: a retry answers outcome_unknown
            Happened::No => self.ledger.release(&key).await, // nothing happened: a retry may go
            Happened::Yes => self.ledger.record(&key, stored(&outcome)).await,
        }
        with_facts(outcome, write, channel, Some("new"))
    }

    /// The upstream part, and whether a failed write may have happened.
    async fn execute(
        &self,
        conn: &Connector,
        tool: &Tool,
        valid: &ValidArgs,
        deadline: &Deadline,
        meter: &Meter,
    ) -> (Outcome, Happened) {
        match &tool.aggregate {
            Some(agg) => (
                aggregate::run(&self.upstream, conn, agg, valid, deadline, meter).await,
                Happened::No,
            ),
            None => self.plain(conn, tool, valid, deadline, meter).await,
        }
    }

    async fn confirmation_keys(&self) -> Vec<Vec<u8>> {
        match self.upstream.secrets.get().await {
            Ok(s) => s.confirmation_keys.clone(),
            Err(_) => Vec::new(),
        }
    }

    fn token_confirms_critical(&self, scope: &Scope) -> bool {
        self.token_confirms_critical
            .iter()
            .any(|p| p == "*" || scope.profile() == Some(p.as_str()))
    }

    /// One upstream request, its answer in the tool's shape.
    async fn plain(
        &self,
        conn: &Connector,
        tool: &Tool,
        valid: &ValidArgs,
        deadline: &Deadline,
        meter: &Meter,
    ) -> (Outcome, Happened) {
        let reply = match self
            .upstream
            .fetch(conn, tool, valid, deadline, meter)
            .await
        {
            Ok(r) => r,
            Err(e) => return (Outcome::from_upstream(conn, tool, &e), e.happened()),
        };
        let outcome = match shape::ok(&conn.catalog, tool, valid.list.as_ref(), reply.body) {
            Ok(fields) => {
                let hint = shape::more_hint(&fields);
                Outcome {
                    hint,
                    ..Outcome::ok(fields)
                }
            }
            Err(e) => e.into(),
        };
        (
            outcome.with_http(reply.http_status).with_quota(reply.quota),
            Happened::Yes,
        )
    }
}

/// The caller as a token and a ledger key bind it: the key id, and the user when known.
fn who(caller: &Caller) -> String {
    match &caller.user {
        Some(user) => format!("{}:{user}", caller.key_id),
        None => caller.key_id.clone(),
    }
}

/// The most of a result the ledger keeps; a larger one is kept as its status and a hint.
pub const MAX_STORED_BYTES: usize = 64 * 1024;

/// A claimed write's result as the ledger keeps it, bounded.
fn stored(outcome: &Outcome) -> Value {
    let full = outcome.to_json();
    if full.to_string().len() <= MAX_STORED_BYTES {
        return full;
    }
    serde_json::json!({
        "status": outcome.status.as_str(),
        "hint": "The write ran; its result was too large to keep for a replay. Read the record \
                 with the matching get tool.",
        "truncated": true,
    })
}

/// `outcome_unknown`: the write was sent before and its answer never recorded.
fn unknown(conn: &Connector, tool: &Tool) -> Outcome {
    let check = tool
        .current
        .as_deref()
        .map(|get| format!("check with {get}"))
        .unwrap_or_else(|| format!("check in {}", conn.catalog.connector));
    Outcome::failed(
        Status::OutcomeUnknown,
        "outcome_unknown",
        format!(
            "This write was sent before and its outcome is unknown (it may still be running, or \
             its answer was lost): {check} whether it happened before trying again, and retry \
             only with a new idempotency_key if it did not."
        ),
    )
}

/// The write facts for the audit line, on writes and confirmed calls.
fn with_facts(
    mut outcome: Outcome,
    write: bool,
    confirmation: Option<&'static str>,
    idempotency: Option<&'static str>,
) -> Outcome {
    if write || confirmation.is_some() {
        outcome.write = Some(WriteFacts {
            dry_run: false,
            confirmation,
            idempotency,
        });
    }
    outcome
}
