//! Template variables and their filling: the call's arguments, the period bounds they imply,
//! a source's arguments filled from them, and every `days` measure's period resolved.

use std::collections::BTreeMap;

use catalog::{Measure, Text};
use serde_json::Value;

use crate::call::days::{self, Period};
use crate::contract::args::ValidArgs;

/// The filled and checked period of every `days` measure, by measure name.
pub(super) fn periods(
    result: &[Measure],
    vars: &BTreeMap<String, String>,
) -> Result<BTreeMap<Text, Period>, days::BadPeriod> {
    let text = |t: &str| match fill(&Value::String(t.to_string()), vars) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(days::BadPeriod(format!(
            "`{t}` has no value: pass the argument it names."
        ))),
    };
    result
        .iter()
        .filter_map(|m| m.days.as_ref().map(|d| (m, d)))
        .map(|(m, d)| {
            let weekdays = d.weekdays.as_deref().map(text).transpose()?;
            let slots = d.slots.as_deref().map(text).transpose()?;
            let period = Period::resolve(
                d,
                &text(&d.from)?,
                &text(&d.zone)?,
                &text(&d.hours)?,
                weekdays.as_deref(),
            )?
            .with_slots(slots.as_deref())?;
            Ok((m.name.clone(), period))
        })
        .collect()
}

/// Template variables: the tool's arguments, period bounds from `year`/`month`, and
/// `{week_end}` (the sixth day after a `week_start` date).
pub(super) fn variables(valid: &ValidArgs) -> BTreeMap<String, String> {
    let mut vars: BTreeMap<String, String> = valid
        .values
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect();
    let year = valid.values.get("year").and_then(Value::as_i64);
    let month = valid.values.get("month").and_then(Value::as_i64);
    if let Some(y) = year.and_then(|y| i16::try_from(y).ok()) {
        if let Some(m) = month.and_then(|m| i8::try_from(m).ok())
            && let Ok(start) = jiff::civil::Date::new(y, m, 1)
        {
            vars.insert("month_start".into(), start.to_string());
            vars.insert("month_end".into(), start.last_of_month().to_string());
        }
        if let Ok(start) = jiff::civil::Date::new(y, 1, 1) {
            vars.insert("year_start".into(), start.to_string());
            vars.insert("year_end".into(), start.last_of_year().to_string());
        }
    }
    let week_start = valid.values.get("week_start").and_then(Value::as_str);
    if let Some(end) = week_start
        .and_then(|s| s.parse::<jiff::civil::Date>().ok())
        .and_then(|d| d.checked_add(jiff::ToSpan::days(6)).ok())
    {
        vars.insert("week_end".into(), end.to_string());
    }
    vars
}

/// A source argument filled: one that is exactly `{param}` of a non-string argument takes that
/// argument's value as it is (an array stays an array), any other string is filled as text.
pub(super) fn argument(
    template: &Value,
    vars: &BTreeMap<String, String>,
    values: &BTreeMap<String, Value>,
) -> Option<Value> {
    let whole = template
        .as_str()
        .and_then(|t| t.strip_prefix('{')?.strip_suffix('}'))
        .and_then(|name| values.get(name))
        .filter(|v| !v.is_string());
    match whole {
        Some(value) => Some(value.clone()),
        None => fill(template, vars),
    }
}

/// Fills `{name}` placeholders; `None` when one has no value (the argument is left out).
pub(super) fn fill(template: &Value, vars: &BTreeMap<String, String>) -> Option<Value> {
    let Value::String(text) = template else {
        return Some(template.clone());
    };
    let mut out = text.clone();
    for hole in catalog::placeholders(text) {
        out = out.replace(&format!("{{{hole}}}"), vars.get(hole)?);
    }
    Some(Value::String(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn month_variables_cover_the_whole_month() {
        let valid = ValidArgs {
            values: BTreeMap::from([("year".into(), json!(2024)), ("month".into(), json!(2))]),
            ..ValidArgs::default()
        };
        let vars = variables(&valid);
        assert_eq!(vars["month_start"], "2024-02-01");
        assert_eq!(vars["month_end"], "2024-02-29");
        assert_eq!(
            fill(&json!("{month_end}"), &vars),
            Some(json!("2024-02-29"))
        );
        assert_eq!(fill(&json!("{company_id}"), &vars), None);
        let values = BTreeMap::from([("with".to_string(), json!([{"id": "anna@x"}]))]);
        assert_eq!(
            argument(&json!("{with}"), &vars, &values),
            Some(json!([{"id": "anna@x"}]))
        );
        assert_eq!(
            argument(&json!("{with}-x"), &vars, &values),
            None,
            "text needs text"
        );
        assert_eq!(
            argument(&json!("{month_end}"), &vars, &values),
            Some(json!("2024-02-29"))
        );
    }
}
