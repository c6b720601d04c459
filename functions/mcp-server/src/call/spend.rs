//! The spend stage: a tool that spends (`spends` in its catalog) is priced from its validated
//! arguments and reserves that much of the caller's daily spend on its connector
//! (`quota.caller_daily_spend`, in the upstream's own unit) before anything is sent
//! (`limits`: one conditional update that admits or refuses). Over the limit, the call is a
//! `rate_limited` result saying what is left in the unit and when it resets. After the call:
//! a call that started nothing upstream (refused before it, a dry run, a replay, an error
//! answer) gives its spend back; one that did carries the spend for its audit line, and its
//! result shows the spend left when less than a fifth is.

use std::ops::ControlFlow;

use catalog::{SpendLimit, Status, Tool};
use serde_json::{Value, json};

use crate::contract::args::ValidArgs;
use crate::inventory::{DeployedCatalog, Registry};
use crate::limits::{LimitKind, Limits, SpendRefused, Spending};

use super::{Caller, Flow, Outcome};

/// The reason code of a call its spend limit refused (audit: a `rate_limited` event).
pub(crate) const REASON: &str = "spend_budget";

/// Below this share of the limit left, results carry `_spend`.
const SHOW_BELOW_PERCENT: u64 = 20;

/// What a call spent, for its audit line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spent {
    pub(crate) amount: u64,
    pub(crate) unit: String,
}

/// The call's spend reserved (none for a tool that spends nothing, or with limits off), or
/// the answer that refuses it.
pub(super) async fn reserve(
    limits: &Limits,
    conn: &DeployedCatalog,
    tool: &Tool,
    valid: &ValidArgs,
    caller: &Caller,
) -> Flow<Option<Spending>> {
    let (Some(spends), Some(limit)) = (tool.spends.as_deref(), spend_limit(conn)) else {
        return ControlFlow::Continue(None);
    };
    let times_max = spends
        .times
        .as_deref()
        .and_then(|name| tool.params.get(name))
        .and_then(|p| p.max);
    let amount = match spends.of(&valid.values, times_max) {
        Ok(amount) => amount,
        // The loader makes every priced argument bounded and priced; a catalog that slipped
        // past it must not run unpriced.
        Err(param) => {
            return ControlFlow::Break(Outcome::failed(
                Status::InvalidInput,
                "spend_unpriced",
                format!(
                    "This call cannot be priced: `{param}` has no value this tool's spend \
                     knows. Give `{param}` one of its documented values."
                ),
            ));
        }
    };
    let who = caller.who();
    let now = crate::clock::now_s();
    match limits
        .spend(&who, &conn.catalog.connector, limit.limit, amount, now)
        .await
    {
        None => ControlFlow::Continue(None),
        Some(Ok(spending)) => ControlFlow::Continue(Some(spending)),
        Some(Err(refused)) => ControlFlow::Break(self::refused(conn, limit, &refused)),
    }
}

/// After the call: the spend kept when the call started something upstream, else given back.
pub(super) fn settle(
    spending: Option<&Spending>,
    outcome: &mut Outcome,
    conn: &DeployedCatalog,
    sent: u64,
) {
    let (Some(spending), Some(limit)) = (spending, spend_limit(conn)) else {
        return;
    };
    let started = started(outcome, sent);
    spending.settle(started);
    if !started {
        return;
    }
    outcome.spent = Some(Spent {
        amount: spending.amount,
        unit: limit.unit.to_string(),
    });
    if spending.remaining() * 100 < spending.limit * SHOW_BELOW_PERCENT {
        let shown = figures(conn, limit, spending.remaining(), spending.reset_after_s);
        outcome.fields.insert("_spend".into(), shown);
    }
}

/// Whether the call started something the upstream bills: it sent a request that was no dry
/// run and no replay of an earlier call, and the upstream did not refuse it. An answer that
/// never came (a timeout) counts as started: the job may run.
fn started(outcome: &Outcome, sent: u64) -> bool {
    if sent == 0 {
        return false;
    }
    if let Some(w) = &outcome.write
        && (w.dry_run || matches!(w.idempotency, Some("replayed" | "conflict")))
    {
        return false;
    }
    if matches!(
        outcome.status,
        Status::ConfirmationRequired | Status::ConnectionRequired
    ) {
        return false;
    }
    outcome.http_status.is_none_or(|code| code < 400)
}

fn spend_limit(conn: &DeployedCatalog) -> Option<&SpendLimit> {
    conn.catalog
        .quota
        .as_ref()
        .and_then(|q| q.caller_daily_spend.as_ref())
}

fn refused(conn: &DeployedCatalog, limit: &SpendLimit, refused: &SpendRefused) -> Outcome {
    let unit = &limit.unit;
    let title = Registry::title(&conn.catalog);
    let left = refused.remaining();
    let hint = match left {
        0 => format!(
            "Your daily {title} spend of {} {unit} is used up; it resets in {} (00:00 UTC). \
             Tell the user; do not retry before then, or ask an operator to raise the \
             connector's caller_daily_spend.",
            refused.limit,
            super::budget::duration(refused.reset_after_s),
        ),
        _ => format!(
            "This call would spend {} {unit}, but only {left} of your daily {} {unit} on \
             {title} are left; it resets in {} (00:00 UTC). Tell the user: a smaller call \
             (a shorter duration, a cheaper option) may fit, or wait for the reset.",
            refused.amount,
            refused.limit,
            super::budget::duration(refused.reset_after_s),
        ),
    };
    let mut outcome = Outcome::failed(Status::RateLimited, REASON, hint);
    outcome
        .fields
        .insert("scope".into(), json!(LimitKind::Spend.as_str()));
    outcome
        .fields
        .insert("retry_after_s".into(), json!(refused.reset_after_s));
    outcome.fields.insert(
        "_spend".into(),
        figures(conn, limit, left, refused.reset_after_s),
    );
    outcome
}

fn figures(conn: &DeployedCatalog, limit: &SpendLimit, remaining: u64, reset: u64) -> Value {
    json!({
        "connector": conn.catalog.connector,
        "unit": limit.unit,
        "limit": limit.limit,
        "remaining": remaining,
        "window": "utc_day",
        "resets_in_s": reset,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::call::WriteFacts;
    use crate::limits::Thresholds;

    /// Replicate's catalog as shipped: its prediction creates spend one of 50 predictions.
    fn replicate() -> DeployedCatalog {
        let catalog = connector::load(None)
            .unwrap()
            .into_iter()
            .find(|c| c.connector == "replicate")
            .unwrap();
        DeployedCatalog {
            base_url: catalog.base_url.to_string(),
            expose_raw: false,
            catalog,
        }
    }

    fn create(conn: &DeployedCatalog) -> &Tool {
        conn.catalog
            .tools
            .iter()
            .find(|t| t.name == "replicate_prediction_create")
            .unwrap()
    }

    #[tokio::test]
    async fn the_call_past_the_daily_spend_is_refused_in_the_unit_with_the_reset() {
        let conn = replicate();
        let limits = Limits::new(Thresholds::DEFAULT, BTreeMap::new(), None);
        let valid = ValidArgs::default();
        for _ in 0..50 {
            let ControlFlow::Continue(Some(spending)) =
                reserve(&limits, &conn, create(&conn), &valid, &Caller::key("k1")).await
            else {
                panic!("within the limit");
            };
            let mut outcome = Outcome::ok(serde_json::Map::new());
            settle(Some(&spending), &mut outcome, &conn, 1);
            assert_eq!(outcome.spent.as_ref().map(|s| s.amount), Some(1));
        }
        let ControlFlow::Break(refused) =
            reserve(&limits, &conn, create(&conn), &valid, &Caller::key("k1")).await
        else {
            panic!("the 51st prediction of the day is refused");
        };
        let json = refused.to_json();
        assert_eq!(json["status"], "rate_limited");
        assert_eq!(json["scope"], "spend");
        assert_eq!(json["_spend"]["remaining"], 0);
        assert_eq!(json["_spend"]["unit"], "predictions");
        let hint = json["hint"].as_str().unwrap();
        assert!(
            hint.contains("50 predictions is used up") && hint.contains("(00:00 UTC)"),
            "{hint}"
        );
        assert_eq!(refused.reason.as_deref(), Some(REASON));
        assert!(matches!(
            reserve(&limits, &conn, create(&conn), &valid, &Caller::key("k2")).await,
            ControlFlow::Continue(Some(_))
        ));
    }

    #[test]
    fn only_a_call_that_started_something_upstream_keeps_its_spend() {
        let sent = |outcome: &Outcome| started(outcome, 1);
        assert!(sent(&Outcome::ok(serde_json::Map::new())));
        assert!(
            !started(&Outcome::ok(serde_json::Map::new()), 0),
            "nothing sent"
        );
        let mut dry_run = Outcome::ok(serde_json::Map::new());
        dry_run.write = Some(WriteFacts {
            dry_run: true,
            confirmed_by: None,
            idempotency: None,
        });
        assert!(!sent(&dry_run), "a dry run's current-record read");
        let mut replayed = Outcome::ok(serde_json::Map::new());
        replayed.write = Some(WriteFacts {
            dry_run: false,
            confirmed_by: Some("token"),
            idempotency: Some("replayed"),
        });
        assert!(!sent(&replayed));
        let mut refused = Outcome::failed(Status::InvalidInput, "upstream_422", "h");
        refused.http_status = Some(422);
        assert!(!sent(&refused), "the upstream refused it");
        let unknown = Outcome::failed(Status::OutcomeUnknown, "timeout", "h");
        assert!(sent(&unknown), "no answer: the job may run");
        let asked = Outcome::failed(Status::ConfirmationRequired, "confirmation_required", "h");
        assert!(!sent(&asked));
    }
}
