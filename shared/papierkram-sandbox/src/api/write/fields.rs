//! Reading write bodies: typed access to the fields of a JSON object, with errors that name the
//! field. Fields a resource does not know are ignored, as the upstream (Rails strong parameters)
//! ignores them.
//!
//! Every getter answers `Option<Option<T>>`: `None` when the field is absent (an update leaves it
//! alone), `Some(None)` when it is `null` (or a blank string, `{}` for a reference), `Some(Some(v))`
//! otherwise.

use crate::api::error::ApiError;
use crate::api::list::parse_date;
use jiff::civil::Date;
use rust_decimal::Decimal;
use serde_json::{Map, Value};

pub(crate) type Field<T> = Option<Option<T>>;

/// The fields of one JSON object; `at` names it in messages (`""`, `"line_items[2]."`, …).
#[derive(Clone, Copy)]
pub(crate) struct Fields<'a> {
    map: &'a Map<String, Value>,
    at: &'a str,
}

fn invalid(message: String) -> ApiError {
    ApiError::unprocessable(message)
}

impl<'a> Fields<'a> {
    pub(crate) fn new(map: &'a Map<String, Value>, at: &'a str) -> Self {
        Fields { map, at }
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    fn get(&self, key: &str) -> Field<&'a Value> {
        self.map.get(key).map(|v| (!v.is_null()).then_some(v))
    }

    fn wrong(&self, key: &str, what: &str, got: &Value) -> ApiError {
        let mut shown = got.to_string();
        if shown.len() > 60 {
            let cut = (0..=60)
                .rev()
                .find(|i| shown.is_char_boundary(*i))
                .unwrap_or(0);
            shown.truncate(cut);
            shown.push('…');
        }
        invalid(format!("{}{key} must be {what}, got {shown}", self.at))
    }

    /// A string; blank (only whitespace) counts as `null`.
    pub(crate) fn text(&self, key: &str) -> Result<Field<String>, ApiError> {
        self.raw_text(key)
            .map(|f| f.map(|t| t.filter(|s| !s.trim().is_empty())))
    }

    /// A string kept as sent, blanks included (for fields the upstream stores as `""`).
    pub(crate) fn raw_text(&self, key: &str) -> Result<Field<String>, ApiError> {
        match self.get(key) {
            None => Ok(None),
            Some(None) => Ok(Some(None)),
            Some(Some(Value::String(s))) => Ok(Some(Some(s.clone()))),
            Some(Some(other)) => Err(self.wrong(key, "a string", other)),
        }
    }

    /// A string or a number, kept as text (budgets, article numbers).
    pub(crate) fn text_or_number(&self, key: &str) -> Result<Field<String>, ApiError> {
        match self.get(key) {
            Some(Some(Value::Number(n))) => Ok(Some(Some(n.to_string()))),
            _ => self.text(key),
        }
    }

    pub(crate) fn boolean(&self, key: &str) -> Result<Field<bool>, ApiError> {
        match self.get(key) {
            None => Ok(None),
            Some(None) => Ok(Some(None)),
            Some(Some(Value::Bool(b))) => Ok(Some(Some(*b))),
            Some(Some(other)) => Err(self.wrong(key, "true or false", other)),
        }
    }

    /// `YYYY-MM-DD`.
    pub(crate) fn date(&self, key: &str) -> Result<Field<Date>, ApiError> {
        match self.text(key)? {
            Some(Some(s)) => {
                let name = format!("{}{key}", self.at);
                parse_date(&name, &s).map(|d| Some(Some(d)))
            }
            other => Ok(other.map(|_| None)),
        }
    }

    /// `HH:MM` (24 hours), as hour and minute.
    pub(crate) fn time_of_day(&self, key: &str) -> Result<Field<(i8, i8)>, ApiError> {
        let Some(Some(s)) = self.text(key)? else {
            return Ok(self.get(key).map(|_| None));
        };
        let parsed = s.split_once(':').and_then(|(h, m)| {
            let ok = h.len() == 2 && m.len() == 2;
            let (h, m) = (h.parse::<i8>().ok()?, m.parse::<i8>().ok()?);
            (ok && (0..24).contains(&h) && (0..60).contains(&m)).then_some((h, m))
        });
        match parsed {
            Some(hm) => Ok(Some(Some(hm))),
            None => Err(invalid(format!(
                "{}{key} must be a time like 09:30, got {s:?}",
                self.at
            ))),
        }
    }

    /// A JSON number or a numeric string (`150.8`, `"150.0"`), exact.
    pub(crate) fn decimal(&self, key: &str) -> Result<Field<Decimal>, ApiError> {
        let text = match self.get(key) {
            None => return Ok(None),
            Some(None) => return Ok(Some(None)),
            Some(Some(Value::Number(n))) => n.to_string(),
            Some(Some(Value::String(s))) if s.trim().is_empty() => return Ok(Some(None)),
            Some(Some(Value::String(s))) => s.trim().to_owned(),
            Some(Some(other)) => return Err(self.wrong(key, "a number", other)),
        };
        text.parse::<Decimal>()
            .or_else(|_| Decimal::from_scientific(&text))
            .map(|d| Some(Some(d.normalize())))
            .map_err(|_| invalid(format!("{}{key} must be a number, got {text:?}", self.at)))
    }

    /// A positive integer id, such as the `id` inside `customer: {"id": 3, …}`.
    pub(crate) fn id(&self, key: &str) -> Result<Field<u64>, ApiError> {
        match self.get(key) {
            None => Ok(None),
            Some(None) => Ok(Some(None)),
            Some(Some(Value::Number(n))) if n.as_u64().is_some_and(|id| id >= 1) => {
                Ok(Some(n.as_u64()))
            }
            Some(Some(other)) => Err(self.wrong(key, "a positive integer", other)),
        }
    }

    /// A reference `{"id": 3}`; `{}` and `null` mean none.
    pub(crate) fn reference(&self, key: &str) -> Result<Field<u64>, ApiError> {
        match self.get(key) {
            None => Ok(None),
            Some(None) => Ok(Some(None)),
            Some(Some(Value::Object(m))) => match m.get("id") {
                None | Some(Value::Null) => Ok(Some(None)),
                Some(Value::Number(n)) if n.as_u64().is_some_and(|id| id >= 1) => {
                    Ok(Some(n.as_u64()))
                }
                Some(other) => Err(invalid(format!(
                    "{}{key}.id must be a positive integer, got {other}",
                    self.at
                ))),
            },
            Some(Some(other)) => Err(self.wrong(key, "an object like {\"id\": 3}", other)),
        }
    }

    /// A nested object (absent and `null` are `None`).
    pub(crate) fn object(&self, key: &str) -> Result<Option<&'a Map<String, Value>>, ApiError> {
        match self.get(key).flatten() {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(other) => Err(self.wrong(key, "an object", other)),
        }
    }

    /// An array of objects, at most `max` long (absent and `null` are `None`).
    pub(crate) fn objects(
        &self,
        key: &str,
        max: usize,
    ) -> Result<Option<Vec<&'a Map<String, Value>>>, ApiError> {
        let Some(value) = self.get(key).flatten() else {
            return Ok(None);
        };
        let Value::Array(items) = value else {
            return Err(self.wrong(key, "an array", value));
        };
        if items.len() > max {
            return Err(invalid(format!(
                "{}{key} may hold at most {max} entries, got {}",
                self.at,
                items.len()
            )));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Object(m) => Ok(m),
                other => Err(self.wrong(&format!("{key}[{i}]"), "an object", other)),
            })
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// An array of strings, at most `max` long.
    pub(crate) fn strings(&self, key: &str, max: usize) -> Result<Field<Vec<String>>, ApiError> {
        match self.get(key) {
            None => Ok(None),
            Some(None) => Ok(Some(None)),
            Some(Some(Value::Array(items))) if items.len() <= max => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.wrong(key, "an array of strings", other)),
                })
                .collect::<Result<_, _>>()
                .map(|v| Some(Some(v))),
            Some(Some(other)) => {
                Err(self.wrong(key, &format!("an array of at most {max} strings"), other))
            }
        }
    }

    /// One of `allowed`.
    pub(crate) fn choice(&self, key: &str, allowed: &[&str]) -> Result<Field<String>, ApiError> {
        match self.text(key)? {
            Some(Some(s)) if !allowed.contains(&s.as_str()) => Err(invalid(format!(
                "{}{key} must be one of {}, got {s:?}",
                self.at,
                allowed.join(", ")
            ))),
            other => Ok(other),
        }
    }
}

/// A required field sent blank, in the upstream's wording.
pub(crate) fn blank(label: &str) -> ApiError {
    invalid(format!("{label} muss ausgefüllt werden"))
}

/// An update's value for a required field: `None` when absent, an error when blank or `null`.
pub(crate) fn still_required<T>(label: &str, field: Field<T>) -> Result<Option<T>, ApiError> {
    match field {
        None => Ok(None),
        Some(None) => Err(blank(label)),
        Some(Some(v)) => Ok(Some(v)),
    }
}

/// Required fields that came blank, collected so one answer names them all, in the upstream's
/// wording (`Name muss ausgefüllt werden`, recorded for a nameless company).
#[derive(Default)]
pub(crate) struct Required(Vec<&'static str>);

impl Required {
    /// `value` if it is there; otherwise notes `label` as missing.
    pub(crate) fn check<T>(&mut self, label: &'static str, value: Option<T>) -> Option<T> {
        if value.is_none() {
            self.0.push(label);
        }
        value
    }

    pub(crate) fn done(self) -> Result<(), ApiError> {
        if self.0.is_empty() {
            return Ok(());
        }
        let messages: Vec<String> = self.0.iter().map(|label| blank(label).message).collect();
        Err(invalid(messages.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn with<R>(v: Value, f: impl FnOnce(Fields<'_>) -> R) -> R {
        let map = v.as_object().unwrap().clone();
        f(Fields::new(&map, ""))
    }

    #[test]
    fn absent_null_and_blank_are_told_apart() {
        with(json!({"a": null, "b": "  ", "c": "x"}), |f| {
            assert_eq!(f.text("missing").unwrap(), None);
            assert_eq!(f.text("a").unwrap(), Some(None));
            assert_eq!(f.text("b").unwrap(), Some(None));
            assert_eq!(f.raw_text("b").unwrap(), Some(Some("  ".into())));
            assert_eq!(f.text("c").unwrap(), Some(Some("x".into())));
        });
    }

    #[test]
    fn wrong_types_name_the_field() {
        with(json!({"phone": 12, "customer": 3, "price": "abc"}), |f| {
            let e = f.text("phone").unwrap_err();
            assert_eq!(e.message, "phone must be a string, got 12");
            assert!(
                f.reference("customer")
                    .unwrap_err()
                    .message
                    .contains("customer")
            );
            assert!(f.decimal("price").unwrap_err().message.contains("price"));
        });
    }

    #[test]
    fn numbers_come_as_numbers_or_numeric_strings() {
        with(json!({"a": 150.8, "b": "150.0", "c": 15, "d": 1e2}), |f| {
            let d = |k| f.decimal(k).unwrap().flatten().unwrap().to_string();
            assert_eq!(
                (d("a"), d("b"), d("c"), d("d")),
                ("150.8".into(), "150".into(), "15".into(), "100".into())
            );
        });
    }

    #[test]
    fn references_and_times_parse() {
        with(
            json!({"c": {"id": 3}, "e": {}, "bad": {"id": -1}, "t": "09:30", "u": "9:30"}),
            |f| {
                assert_eq!(f.reference("c").unwrap(), Some(Some(3)));
                assert_eq!(f.reference("e").unwrap(), Some(None));
                assert!(f.reference("bad").is_err());
                assert_eq!(f.time_of_day("t").unwrap(), Some(Some((9, 30))));
                assert!(f.time_of_day("u").is_err());
            },
        );
    }

    #[test]
    fn missing_required_fields_are_reported_together() {
        let mut r = Required::default();
        assert_eq!(r.check("Name", Some(1)), Some(1));
        r.check::<u8>("Kunde", None);
        r.check::<u8>("Positionen", None);
        let e = r.done().unwrap_err();
        assert_eq!(
            e.message,
            "Kunde muss ausgefüllt werden, Positionen muss ausgefüllt werden"
        );
    }
}
