//! The figures: counts, exact decimal sums and their differences, top groups, picked items and
//! day-by-day periods, computed from the items the sources gave. Pure.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::str::FromStr;

use catalog::{Items, Measure, Text, Top};
use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

use super::Fetched;
use crate::call::days::{self, Period};
use crate::call::shape;

/// A sum beyond `Decimal`'s range (about 7.9e28).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the figure `{0}` is beyond the exact decimal range")]
pub(super) struct Overflow(pub(super) String);

fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Whether the item's fields hold one of the allowed values each.
pub(super) fn matches(item: &Value, filter: &BTreeMap<Text, Vec<Text>>) -> bool {
    filter.iter().all(|(f, allowed)| {
        let value = text(shape::at(item, f));
        allowed.iter().any(|a| *a == value)
    })
}

/// A JSON number or numeric string as an exact decimal (the printed form, not the float).
fn decimal(v: Option<&Value>) -> Option<Decimal> {
    match v? {
        Value::Number(n) => Decimal::from_str(&n.to_string())
            .or_else(|_| Decimal::from_scientific(&n.to_string()))
            .ok(),
        Value::String(s) => Decimal::from_str(s.trim()).ok(),
        _ => None,
    }
}

/// Amounts as strings with two decimals: exact, and unambiguous for a model to read.
fn money(d: Decimal) -> Value {
    let mut d = d.round_dp(2);
    d.rescale(2);
    Value::String(d.to_string())
}

/// Every measure's figure, in the catalog's order; a difference reads the sums before it.
pub(super) fn measures(
    result: &[Measure],
    fetched: &BTreeMap<Text, Fetched>,
    periods: &BTreeMap<Text, Period>,
) -> Result<Value, Overflow> {
    let mut out = Map::new();
    let mut sums: BTreeMap<&str, Decimal> = BTreeMap::new();
    let items_of = |source: &str, m: &Measure| -> Vec<&Value> {
        fetched
            .get(source)
            .map(|f| f.items.iter().filter(|i| matches(i, &m.filter)).collect())
            .unwrap_or_default()
    };
    for m in result {
        let overflow = || Overflow(m.name.to_string());
        let value = if let Some(source) = &m.count {
            Value::from(items_of(source, m).len())
        } else if let Some(reference) = &m.sum {
            let (source, path) = reference.split_once('.').unwrap_or((reference, ""));
            let total = sum(&items_of(source, m), path).ok_or_else(overflow)?;
            sums.insert(&m.name, total);
            money(total)
        } else if let Some([a, b]) = m.difference.as_deref() {
            let figure = |name: &Text| sums.get(name.as_str()).copied().unwrap_or_default();
            let total = figure(a).checked_sub(figure(b)).ok_or_else(overflow)?;
            sums.insert(&m.name, total);
            money(total)
        } else if let Some(top) = &m.top {
            top_groups(&items_of(&top.of, m), top).ok_or_else(overflow)?
        } else if let (Some(spec), Some(period)) = (&m.days, periods.get(m.name.as_str())) {
            let mut items = items_of(&spec.of, m);
            items.extend(spec.also.iter().flat_map(|s| items_of(s, m)));
            days::compute(&items, spec, period)
        } else if let Some(spec) = &m.items {
            picked(items_of(&spec.of, m), spec)
        } else {
            Value::Null
        };
        out.insert(m.name.to_string(), value);
    }
    Ok(Value::Object(out))
}

/// The exact sum of the amounts at `path`; `None` beyond the decimal range.
fn sum(items: &[&Value], path: &str) -> Option<Decimal> {
    items
        .iter()
        .filter_map(|i| decimal(shape::at(i, path)))
        .try_fold(Decimal::ZERO, |sum, d| sum.checked_add(d))
}

/// The `n` largest groups, by their sum when the measure sums, else by their count (ties by
/// name); `None` when a group's sum is beyond the decimal range.
fn top_groups(items: &[&Value], top: &Top) -> Option<Value> {
    let mut groups: BTreeMap<String, (Decimal, usize)> = BTreeMap::new();
    for item in items {
        let g = groups.entry(text(shape::at(item, &top.by))).or_default();
        let amount = top
            .sum
            .as_deref()
            .and_then(|p| decimal(shape::at(item, p)))
            .unwrap_or_default();
        g.0 = g.0.checked_add(amount)?;
        g.1 += 1;
    }
    let mut ranked: Vec<(String, (Decimal, usize))> = groups.into_iter().collect();
    ranked.sort_by(|x, y| match top.sum {
        Some(_) => y.1.0.cmp(&x.1.0).then(x.0.cmp(&y.0)),
        None => y.1.1.cmp(&x.1.1).then(x.0.cmp(&y.0)),
    });
    Some(Value::Array(
        ranked
            .into_iter()
            .take(top.n)
            .map(|(name, (total, count))| match top.sum {
                Some(_) => json!({"name": name, "total": money(total), "count": count}),
                None => json!({"name": name, "count": count}),
            })
            .collect(),
    ))
}

/// The first `n` items in the measure's order, each with only its fields.
fn picked(mut items: Vec<&Value>, spec: &Items) -> Value {
    items.sort_by(|x, y| {
        let order = compare(shape::at(x, &spec.sort), shape::at(y, &spec.sort));
        if spec.descending {
            order.reverse()
        } else {
            order
        }
    });
    Value::Array(
        items
            .into_iter()
            .take(spec.n)
            .map(|i| shape::project(i, &spec.fields))
            .collect(),
    )
}

/// Numbers compare as decimals, everything else (ISO dates included) as text.
fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (decimal(a), decimal(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => text(a).cmp(&text(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetched(items: Vec<Value>) -> BTreeMap<Text, Fetched> {
        BTreeMap::from([(
            "inc".into(),
            Fetched {
                items,
                failure: None,
                pages_read: 1,
            },
        )])
    }

    fn measure(v: Value) -> Measure {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn sums_are_exact_decimals_not_floats() {
        let items = (0..10).map(|_| json!({"total": 0.1})).collect();
        let m = [measure(json!({"name": "s", "sum": "inc.total"}))];
        assert_eq!(
            measures(&m, &fetched(items), &BTreeMap::new()).unwrap()["s"],
            json!("1.00")
        );
    }

    #[test]
    fn string_amounts_and_filters_and_differences() {
        let items = vec![
            json!({"amount": "119.0", "state": "paid"}),
            json!({"amount": "80.5", "state": "overdue"}),
            json!({"amount": null, "state": "overdue"}),
        ];
        let m = [
            measure(json!({"name": "all", "sum": "inc.amount"})),
            measure(
                json!({"name": "overdue", "sum": "inc.amount", "where": {"state": ["overdue"]}}),
            ),
            measure(json!({"name": "rest", "difference": ["all", "overdue"]})),
            measure(json!({"name": "n", "count": "inc", "where": {"state": ["overdue"]}})),
        ];
        let out = measures(&m, &fetched(items), &BTreeMap::new()).unwrap();
        assert_eq!(
            out,
            json!({"all": "199.50", "overdue": "80.50", "rest": "119.00", "n": 2})
        );
    }

    #[test]
    fn top_groups_rank_by_sum_then_name() {
        let items = vec![
            json!({"c": {"name": "B"}, "t": 10}),
            json!({"c": {"name": "A"}, "t": 10}),
            json!({"c": {"name": "C"}, "t": 25.5}),
            json!({"c": {"name": "A"}, "t": 1}),
        ];
        let m = [measure(
            json!({"name": "top", "top": {"of": "inc", "by": "c.name", "sum": "t", "n": 2}}),
        )];
        assert_eq!(
            measures(&m, &fetched(items), &BTreeMap::new()).unwrap()["top"],
            json!([{"name": "C", "total": "25.50", "count": 1}, {"name": "A", "total": "11.00", "count": 2}])
        );
    }

    #[test]
    fn items_sort_by_date_and_project_fields() {
        let items = vec![
            json!({"id": 1, "due": "2026-03-01", "x": 1}),
            json!({"id": 2, "due": "2026-01-15", "x": 2}),
        ];
        let m = [measure(
            json!({"name": "next", "items": {"of": "inc", "fields": ["id", "due"], "sort": "due", "n": 1}}),
        )];
        assert_eq!(
            measures(&m, &fetched(items), &BTreeMap::new()).unwrap()["next"],
            json!([{"id": 2, "due": "2026-01-15"}])
        );
    }

    #[test]
    fn a_sum_beyond_the_decimal_range_is_an_error_not_a_panic() {
        let items = (0..3)
            .map(|_| json!({"t": "79228162514264337593543950335"}))
            .collect();
        let m = [measure(json!({"name": "s", "sum": "inc.t"}))];
        assert_eq!(
            measures(&m, &fetched(items), &BTreeMap::new()),
            Err(Overflow("s".into()))
        );
        let items = (0..3)
            .map(|_| json!({"c": "A", "t": "79228162514264337593543950335"}))
            .collect();
        let m = [measure(
            json!({"name": "top", "top": {"of": "inc", "by": "c", "sum": "t", "n": 2}}),
        )];
        assert_eq!(
            measures(&m, &fetched(items), &BTreeMap::new()),
            Err(Overflow("top".into()))
        );
    }
}
