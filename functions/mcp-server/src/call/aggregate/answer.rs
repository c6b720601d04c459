//! The answer from what the sources gave: the figures, or the first failure's status with the
//! figures marked partial, those whose source read nothing left out.

use std::collections::BTreeMap;

use catalog::{Aggregate, Measure, Status, Text};
use serde_json::{Map, Value, json};

use super::Fetched;
use super::measure::{Overflow, measures};
use crate::call::days::Period;
use crate::call::outcome::{self, Outcome};

/// The answer from what the sources gave: the figures, or, when a source failed, its status
/// with the figures marked partial (those whose source read nothing left out).
pub(super) fn answer(
    agg: &Aggregate,
    fetched: &BTreeMap<Text, Fetched>,
    periods: &BTreeMap<Text, Period>,
) -> Outcome {
    let data = match measures(&agg.result, fetched, periods) {
        Ok(data) => data,
        Err(Overflow(name)) => {
            return Outcome::failed(
                Status::Error,
                "decimal_overflow",
                format!(
                    "The figure `{name}` is beyond the exact decimal range (about 7.9e28), so it \
                     cannot be reported exactly: the upstream data holds implausible amounts. \
                     Narrow the period or the filter, and check the amounts with the list tools."
                ),
            );
        }
    };
    let failed: Vec<(&Text, &Outcome)> = fetched
        .iter()
        .filter_map(|(n, f)| f.failure.as_ref().map(|o| (n, o)))
        .collect();
    let Some((_, first)) = failed.first() else {
        return Outcome::ok(outcome::data(data));
    };
    let sources: Vec<Value> = failed
        .iter()
        .map(|(n, o)| json!({"source": n, "status": o.status.as_str(), "hint": o.hint}))
        .collect();
    let unread: Vec<&str> = fetched
        .iter()
        .filter(|(_, f)| f.failure.is_some() && f.pages_read == 0)
        .map(|(n, _)| n.as_str())
        .collect();
    let mut data = data;
    let left_out = without_figures_of(&mut data, &agg.result, &unread);
    let names = failed
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let first_hint = first.hint.as_deref().unwrap_or("");
    let mut fields = Map::new();
    fields.insert("failed_sources".into(), sources.into());
    let empty = data.as_object().is_none_or(Map::is_empty);
    if empty {
        return Outcome {
            status: first.status,
            hint: Some(format!(
                "Nothing could be read ({names}), so no figures are given. {first_hint}"
            )),
            reason: first.reason.clone(),
            protocol_error: first.protocol_error,
            ..Outcome::ok(fields)
        };
    }
    let left_out = match left_out.is_empty() {
        true => String::new(),
        false => format!(
            " Left out, as nothing of their source could be read: {}.",
            left_out.join(", ")
        ),
    };
    fields.insert("partial".into(), true.into());
    fields.insert("partial_data".into(), data);
    Outcome {
        status: first.status,
        hint: Some(format!(
            "Part of the data could not be read ({names}); the figures in `partial_data` are \
             incomplete.{left_out} {first_hint}"
        )),
        reason: first.reason.as_ref().map(|r| format!("partial_{r}")),
        ..Outcome::ok(fields)
    }
}

/// Removes from `data` every figure that depends on one of the `unread` sources (directly, or
/// through a difference of figures that do), and answers their names: a figure read from
/// nothing would show as zero, a free day or an empty list, which is a wrong answer.
fn without_figures_of(data: &mut Value, result: &[Measure], unread: &[&str]) -> Vec<String> {
    let mut blind: Vec<&str> = Vec::new();
    for m in result {
        let source = m
            .count
            .as_deref()
            .or(m
                .sum
                .as_deref()
                .map(|s| s.split_once('.').map_or(s, |(s, _)| s)))
            .or(m.top.as_ref().map(|t| t.of.as_str()))
            .or(m.items.as_ref().map(|i| i.of.as_str()))
            .or(m.days.as_ref().map(|d| d.of.as_str()));
        let from_blind = m
            .difference
            .iter()
            .flatten()
            .any(|operand| blind.contains(&operand.as_str()));
        if from_blind || source.is_some_and(|s| unread.contains(&s)) {
            blind.push(&m.name);
        }
    }
    if let Some(figures) = data.as_object_mut() {
        for name in &blind {
            figures.remove(*name);
        }
    }
    blind.into_iter().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(v: Value) -> Measure {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn figures_of_a_source_read_from_nothing_are_left_out_with_their_differences() {
        let result = [
            measure(json!({"name": "income", "sum": "inc.total"})),
            measure(json!({"name": "expenses", "sum": "exp.total"})),
            measure(json!({"name": "result", "difference": ["income", "expenses"]})),
            measure(json!({"name": "invoices", "count": "inc"})),
        ];
        let mut data =
            json!({"income": "10.00", "expenses": "0.00", "result": "10.00", "invoices": 2});
        let left_out = without_figures_of(&mut data, &result, &["exp"]);
        assert_eq!(left_out, ["expenses", "result"]);
        assert_eq!(data, json!({"income": "10.00", "invoices": 2}));
    }
}
