//! The budget stage: a caller's daily budget of upstream requests on a connector
//! (`caller_daily_budget` in its catalog). The edge reserved the requests this call may send
//! before it ran (`limits`: one conditional update that admits or refuses). Before the call:
//! nothing reserved (nothing left) is a `rate_limited` result, otherwise the reservation
//! becomes the call's [`Meter`] allowance (an aggregation stops at it). After: what the call
//! sent settles the reservation (the rest is returned), and a result shows the budget when
//! less than a fifth of it is left, so the model can tell the user before it runs out.

use catalog::Status;
use serde_json::{Value, json};

use crate::inventory::{DeployedCatalog, Registry};
use crate::limits::{Budget, LimitKind};
use crate::upstream::Meter;

use super::Outcome;

/// The reason code of a call its budget refused (audit: a `rate_limited` event).
pub(crate) const REASON: &str = "limit_budget";

/// Below this share of the budget left, results carry `_budget`.
const SHOW_BELOW_PERCENT: u64 = 20;

/// The call's meter, or the answer when the budget is used up.
pub(super) fn admit(conn: &DeployedCatalog, budget: Option<Budget>) -> Result<Meter, Box<Outcome>> {
    let Some(budget) = budget else {
        return Ok(Meter::unlimited());
    };
    match budget.reserved {
        0 => Err(Box::new(refused(
            conn,
            &budget,
            format!(
                "Your daily budget of {} {} requests is used up; it resets in {} (00:00 UTC). \
                 Tell the user; do not retry before then. Save requests with count_only, fields \
                 and larger pages, or ask an operator to raise the connector's \
                 caller_daily_budget.",
                budget.limit,
                Registry::title(&conn.catalog),
                duration(budget.reset_after_s),
            ),
        ))),
        reserved => Ok(Meter::allowing(reserved)),
    }
}

/// After the call: a call stopped by its allowance becomes a `rate_limited` result, and a
/// budget nearly spent rides along as `_budget`.
pub(super) fn settle(
    outcome: &mut Outcome,
    conn: &DeployedCatalog,
    budget: Option<Budget>,
    meter: &Meter,
) {
    let Some(before) = budget else {
        return;
    };
    let after = Budget {
        spent: before.spent + meter.sent(),
        ..before
    };
    if meter.ran_out() {
        *outcome = refused(
            conn,
            &after,
            format!(
                "This call needed more than the {} {} requests left of your daily budget of {}, \
                 so it returned nothing. Narrow it (a shorter period, a filter, count_only) or \
                 wait until the budget resets in {} (00:00 UTC); tell the user.",
                before.reserved,
                Registry::title(&conn.catalog),
                before.limit,
                duration(after.reset_after_s),
            ),
        );
        return;
    }
    if after.remaining() * 100 < after.limit * SHOW_BELOW_PERCENT {
        outcome
            .fields
            .insert("_budget".into(), figures(conn, &after));
    }
}

fn refused(conn: &DeployedCatalog, budget: &Budget, hint: String) -> Outcome {
    let mut outcome = Outcome::failed(Status::RateLimited, REASON, hint);
    outcome
        .fields
        .insert("scope".into(), json!(LimitKind::Budget.as_str()));
    outcome
        .fields
        .insert("retry_after_s".into(), json!(budget.reset_after_s));
    outcome
        .fields
        .insert("_budget".into(), figures(conn, budget));
    outcome
}

fn figures(conn: &DeployedCatalog, budget: &Budget) -> Value {
    json!({
        "connector": conn.catalog.connector,
        "limit": budget.limit,
        "remaining": budget.remaining(),
        "window": "utc_day",
        "resets_in_s": budget.reset_after_s,
    })
}

/// `3 h 12 min`, `12 min`, `40 s`.
pub(super) fn duration(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min", seconds / 60),
        _ => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn() -> DeployedCatalog {
        let catalog = connector::load(None)
            .unwrap()
            .into_iter()
            .find(|c| c.connector == "papierkram")
            .unwrap();
        DeployedCatalog {
            base_url: catalog.base_url.to_string(),
            expose_raw: false,
            catalog,
        }
    }

    fn budget(spent: u64) -> Budget {
        Budget {
            limit: 1000,
            spent,
            reserved: (1000 - spent).min(100),
            reset_after_s: 3 * 3600 + 12 * 60 + 5,
        }
    }

    #[test]
    fn no_budget_left_is_a_rate_limited_result_before_any_request() {
        let refused = admit(&conn(), Some(budget(1000))).unwrap_err();
        let json = refused.to_json();
        assert_eq!(json["status"], "rate_limited");
        assert_eq!(json["scope"], "budget");
        assert_eq!(json["retry_after_s"], 11_525);
        assert_eq!(json["_budget"]["remaining"], 0);
        let hint = json["hint"].as_str().unwrap();
        assert!(
            hint.contains("1000 Papierkram requests") && hint.contains("3 h 12 min"),
            "{hint}"
        );
        assert_eq!(refused.reason.as_deref(), Some(REASON));
    }

    #[test]
    fn what_is_left_is_the_allowance_and_shows_below_a_fifth() {
        let conn = conn();
        let meter = admit(&conn, Some(budget(800))).unwrap();
        meter.take().unwrap();
        let mut outcome = Outcome::ok(serde_json::Map::new());
        settle(&mut outcome, &conn, Some(budget(800)), &meter);
        assert_eq!(
            outcome.fields["_budget"]["remaining"], 199,
            "199 of 1000 left"
        );

        let meter = admit(&conn, Some(budget(799))).unwrap();
        meter.take().unwrap();
        let mut outcome = Outcome::ok(serde_json::Map::new());
        settle(&mut outcome, &conn, Some(budget(799)), &meter);
        assert!(!outcome.fields.contains_key("_budget"), "a fifth left");
    }

    #[test]
    fn a_call_stopped_by_its_allowance_returns_nothing_but_the_refusal() {
        let conn = conn();
        let meter = admit(&conn, Some(budget(998))).unwrap();
        meter.take().unwrap();
        meter.take().unwrap();
        assert!(meter.take().is_err());
        let mut outcome = Outcome::ok(serde_json::Map::from_iter([("data".into(), json!(1))]));
        settle(&mut outcome, &conn, Some(budget(998)), &meter);
        let json = outcome.to_json();
        assert_eq!(json["status"], "rate_limited");
        assert!(json.get("data").is_none());
        assert_eq!(json["_budget"]["remaining"], 0);
        assert!(
            json["hint"]
                .as_str()
                .unwrap()
                .contains("more than the 2 Papierkram requests")
        );
    }
}
