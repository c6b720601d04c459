//! Rules on spending: a connector's daily spend limit (`quota.caller_daily_spend`) and what a
//! tool's call spends (`spends`). A call is priced from its validated arguments before it is
//! sent, so every argument the price reads is numeric and bounded or one of a priced enum: no
//! call may go unpriced (one left out is priced at its dearest, see
//! [`Spends::of`](crate::model::Spends::of)).

use crate::model::{Catalog, ParamType, Spends, Tool};

/// The largest daily spend limit.
pub const MAX_SPEND_LIMIT: u64 = 1_000_000_000;
/// The largest amount one call (or one unit of `times`) may spend.
pub const MAX_SPEND_AMOUNT: u64 = 1_000_000;
/// The longest unit name.
const MAX_UNIT: usize = 32;

/// The limit names a unit a hint can say, and is bounded.
pub(super) fn limit_is_bounded(c: &Catalog) -> Vec<String> {
    let Some(s) = c.quota.as_ref().and_then(|q| q.caller_daily_spend.as_ref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let unit_ok = s.unit.len() <= MAX_UNIT
        && s.unit.starts_with(|ch: char| ch.is_ascii_lowercase())
        && s.unit
            .chars()
            .all(|ch| ch.is_ascii_lowercase() || ch == '_');
    if !unit_ok {
        out.push(format!(
            "quota.caller_daily_spend.unit `{}` must be a lower-case word of at most {MAX_UNIT} \
             letters (`predictions`, `credits`): hints and the audit line name it",
            s.unit
        ));
    }
    if !(1..=MAX_SPEND_LIMIT).contains(&s.limit) {
        out.push(format!(
            "quota.caller_daily_spend.limit must be 1 to {MAX_SPEND_LIMIT}, found {}",
            s.limit
        ));
    }
    out
}

/// A tool that spends is priced in its connector's unit, by arguments that are always there.
pub(super) fn spends(c: &Catalog, t: &Tool) -> Vec<String> {
    let Some(s) = t.spends.as_deref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if c.quota
        .as_ref()
        .and_then(|q| q.caller_daily_spend.as_ref())
        .is_none()
    {
        out.push(
            "`spends` needs `quota.caller_daily_spend` on the connector: the unit it is \
             counted in and each caller's daily limit"
                .into(),
        );
    }
    out.extend(amount_or_table(t, s));
    if let Some(times) = &s.times {
        out.extend(times_param(t, times));
    }
    out
}

/// Exactly one of a fixed `amount` and a `by` table, each amount bounded.
fn amount_or_table(t: &Tool, s: &Spends) -> Vec<String> {
    let mut out = Vec::new();
    match (&s.by, s.amount, s.amounts.is_empty()) {
        (None, Some(amount), true) => {
            if !(1..=MAX_SPEND_AMOUNT).contains(&amount) {
                out.push(format!(
                    "spends.amount must be 1 to {MAX_SPEND_AMOUNT}, found {amount}"
                ));
            }
        }
        (Some(by), None, false) => out.extend(table(t, by, s)),
        (Some(_), None, true) => {
            out.push("spends.by needs `amounts`: the amount for each of its values".into())
        }
        (None, None, false) => {
            out.push("spends.amounts needs `by`: the param whose value picks the amount".into())
        }
        _ => out.push(
            "spends needs exactly one of `amount` (every call) and `by` with `amounts` \
             (per value of an argument)"
                .into(),
        ),
    }
    out
}

/// `by` is an enum param that is always there, and every value of it (only those) is priced.
fn table(t: &Tool, by: &str, s: &Spends) -> Vec<String> {
    let Some(p) = t.params.get(by) else {
        return vec![format!("spends.by `{by}` is not a param of this tool")];
    };
    let Some(choices) = p.choices.as_ref().filter(|_| p.kind == ParamType::String) else {
        return vec![format!(
            "spends.by `{by}` must be a string param with an `enum`: each value is priced"
        )];
    };
    let mut out = Vec::new();
    for choice in choices {
        if !s.amounts.contains_key(choice) {
            out.push(format!(
                "spends.amounts has no amount for `{choice}`, a value of `{by}`: a call with \
                 it could not be priced"
            ));
        }
    }
    for (value, amount) in &s.amounts {
        if !choices.contains(value) {
            out.push(format!(
                "spends.amounts prices `{value}`, which is no value of `{by}`'s enum"
            ));
        }
        if *amount > MAX_SPEND_AMOUNT {
            out.push(format!(
                "spends.amounts `{value}` must be at most {MAX_SPEND_AMOUNT}, found {amount}"
            ));
        }
    }
    out
}

/// `times` is a bounded, non-negative number (left out, it is priced at its `max`).
fn times_param(t: &Tool, times: &str) -> Vec<String> {
    let Some(p) = t.params.get(times) else {
        return vec![format!(
            "spends.times `{times}` is not a param of this tool"
        )];
    };
    if !matches!(p.kind, ParamType::Integer | ParamType::Number) {
        return vec![format!(
            "spends.times `{times}` must be an integer or number param"
        )];
    }
    let mut out = Vec::new();
    if p.min.is_none_or(|min| min < 0.0) || p.max.is_none() {
        out.push(format!(
            "spends.times `{times}` needs `min` of at least 0 and a `max`: a call's spend \
             must be bounded"
        ));
    }
    out
}
