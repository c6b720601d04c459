//! Spending: what one caller may spend on a connector per UTC day, in the upstream's own unit
//! (`quota.caller_daily_spend`), and what one call of a tool spends in it (`spends`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::text::Text;

/// A caller's daily spend limit on a connector, in the unit the upstream bills in (Replicate's
/// `predictions`, Runway's `credits`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SpendLimit {
    /// The unit, a plural noun in lower case (`predictions`, `credits`): hints and the audit
    /// line name it.
    pub unit: Text,
    /// How much of it one caller may spend per UTC day.
    pub limit: u64,
}

/// What one call of a tool spends, in its connector's unit: a fixed `amount`, or the amount its
/// `by` argument's value picks from `amounts`; either multiplied by the numeric argument
/// `times` when one is named (credits per second × `duration`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Spends {
    /// The amount of every call (or per unit of `times`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<u64>,
    /// An enum param whose value picks the amount from `amounts` (`model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<Text>,
    /// The amount per value of `by`; every value of its enum has one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub amounts: BTreeMap<Text, u64>,
    /// A numeric param the amount is multiplied by (`duration`); a fraction is rounded up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<Text>,
}

impl Spends {
    /// What a call with these (validated, defaults filled in) arguments spends, or the param
    /// whose value it could not be priced by (no amount for it, not a number). An argument left
    /// out is priced at its dearest: the largest amount of `by`'s table, `times_max` (the
    /// param's `max`) for `times`, as the upstream then chooses and may choose that.
    pub fn of(&self, args: &BTreeMap<String, Value>, times_max: Option<f64>) -> Result<u64, &str> {
        let base = match (&self.by, self.amount) {
            (Some(by), _) => match args.get(by.as_str()) {
                None | Some(Value::Null) => {
                    self.amounts.values().copied().max().ok_or(by.as_str())?
                }
                Some(value) => value
                    .as_str()
                    .and_then(|value| self.amounts.get(value))
                    .copied()
                    .ok_or(by.as_str())?,
            },
            (None, Some(amount)) => amount,
            (None, None) => return Err(""),
        };
        let Some(times) = &self.times else {
            return Ok(base);
        };
        let factor = match args.get(times.as_str()) {
            None | Some(Value::Null) => times_max,
            Some(value) => value.as_f64(),
        }
        .filter(|f| f.is_finite() && *f >= 0.0)
        .ok_or(times.as_str())?;
        // Exact for the integers a catalog bounds its params to; a fraction of a unit counts
        // as a whole one, as the upstreams bill it.
        Ok((base as f64 * factor).ceil().min(u64::MAX as f64) as u64)
    }

    /// The most a call can spend, given the largest value `times` may take (none: unbounded).
    pub fn most(&self, times_max: Option<f64>) -> Option<u64> {
        let base = match &self.by {
            Some(_) => self.amounts.values().copied().max()?,
            None => self.amount?,
        };
        match &self.times {
            None => Some(base),
            Some(_) => times_max.map(|max| (base as f64 * max).ceil() as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn per_model() -> Spends {
        Spends {
            amount: None,
            by: Some("model".into()),
            amounts: BTreeMap::from([("gen4_turbo".into(), 5), ("veo3".into(), 40)]),
            times: Some("duration".into()),
        }
    }

    #[test]
    fn a_fixed_amount_is_what_every_call_spends() {
        let fixed = Spends {
            amount: Some(1),
            by: None,
            amounts: BTreeMap::new(),
            times: None,
        };
        assert_eq!(fixed.of(&args(&[]), None), Ok(1));
        assert_eq!(fixed.most(None), Some(1));
    }

    #[test]
    fn an_amount_times_an_argument_rounds_a_fraction_up() {
        let per_second = Spends {
            amount: Some(5),
            by: None,
            amounts: BTreeMap::new(),
            times: Some("duration".into()),
        };
        let max = Some(10.0);
        assert_eq!(
            per_second.of(&args(&[("duration", json!(10))]), max),
            Ok(50)
        );
        assert_eq!(
            per_second.of(&args(&[("duration", json!(2.1))]), max),
            Ok(11)
        );
        let negative = args(&[("duration", json!(-1))]);
        assert_eq!(per_second.of(&negative, max), Err("duration"));
        // Left out, the upstream chooses: priced at the param's max.
        assert_eq!(per_second.of(&args(&[]), max), Ok(50));
        assert_eq!(
            per_second.of(&args(&[("duration", Value::Null)]), max),
            Ok(50)
        );
        assert_eq!(per_second.of(&args(&[]), None), Err("duration"));
        assert_eq!(per_second.most(Some(10.0)), Some(50));
        assert_eq!(per_second.most(None), None);
    }

    #[test]
    fn a_table_prices_each_value_of_its_argument() {
        let spends = per_model();
        let call = |model: &str, duration: u64| {
            let args = args(&[("model", json!(model)), ("duration", json!(duration))]);
            spends.of(&args, Some(10.0))
        };
        assert_eq!(call("gen4_turbo", 10), Ok(50));
        assert_eq!(call("veo3", 8), Ok(320));
        assert_eq!(call("gen2", 8), Err("model"), "a value without an amount");
        // No model named: the upstream's choice is priced at the dearest.
        let no_model = spends.of(&args(&[("duration", json!(2))]), Some(10.0));
        assert_eq!(no_model, Ok(80));
        assert_eq!(spends.most(Some(10.0)), Some(400));
    }
}
