//! What a write would do, as typed data: the dry run answers it, a confirmation shows it and the
//! client's confirmation form renders it. It reaches the model as the result's `preview`.

use std::collections::BTreeMap;

use catalog::Text;
use serde::Serialize;
use serde_json::{Map, Value};

use super::form::Form;
use super::price::Quoted;

/// The preview of one write. Serialized as the result's `preview` object; fields left out
/// here are left out there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Preview {
    /// The exact upstream request.
    pub request: RequestLine,
    /// The tool's risk level, in the catalog's words.
    pub risk: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side_effects: Option<Text>,
    /// The contract's effect word (`financial`, `external`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<&'static str>,
    pub retry_safe: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failure_modes: Vec<Text>,
    /// What the call needs before it runs, in words.
    pub confirmation: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<&'static str>,
    /// For an update with a `current` get tool: the record as it is now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<Value>,
    /// Whom the write reaches (the catalog's `notifies`): e-mail addresses from the request
    /// body and the current record, each once, in the order found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notifies: Vec<String>,
    /// Fields of [`Preview::current`] holding text users wrote (data, not instructions), as
    /// the get tool marks them `_untrusted`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub current_untrusted: Vec<Text>,
    /// Why the current record is not shown: the caller may not call the get tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_withheld: Option<String>,
    /// The body's fields that differ from [`Preview::current`]: `{field: {from, to}}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Map<String, Value>>,
    /// What reading the current record cost, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<String>,
    /// Per array param with `totals`: how many items and each declared sum
    /// (`{positions: {items: 2, net: 1450.0}}`), what a person checks before confirming.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub totals: Map<String, Value>,
    /// The published price of what the call uses (the catalog's `prices` and the tool's
    /// `price`), or the whole table when the call does not say which item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<Quoted>,
    /// For a write that `requires` an open reply window: the window it was judged by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply_window: Option<super::window::ReplyWindow>,
    /// What a person reads in a confirmation form (not sent to the model, which reads the
    /// fields above).
    #[serde(skip)]
    pub form: Form,
}

/// Method, path with query (no host, no credentials) and body of an upstream request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestLine {
    pub method: &'static str,
    pub path: String,
    /// `null` when the request has no body.
    pub body: Option<Value>,
}

/// The most addresses a preview lists (a booking has at most a few dozen attendees).
const MAX_NOTIFIED: usize = 100;

/// The people `paths` name in `sources` (dotted paths, through lists; a string, or an object's
/// `email`), each once, in the order found, at most [`MAX_NOTIFIED`].
pub(super) fn notified<'a>(
    paths: &[Text],
    sources: impl Iterator<Item = &'a Value> + Clone,
) -> Vec<String> {
    fn walk(v: &Value, path: &[&str], out: &mut Vec<String>) {
        match (v, path.split_first()) {
            (Value::Array(items), _) => items.iter().for_each(|i| walk(i, path, out)),
            (Value::Object(o), Some((key, rest))) => {
                if let Some(next) = o.get(*key) {
                    walk(next, rest, out);
                }
            }
            (Value::Object(o), None) => {
                if let Some(email) = o.get("email") {
                    walk(email, &[], out);
                }
            }
            (Value::String(s), None) if !s.trim().is_empty() && !out.contains(s) => {
                out.push(s.clone());
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for path in paths {
        let parts: Vec<&str> = path.split('.').collect();
        for source in sources.clone() {
            walk(source, &parts, &mut out);
        }
    }
    out.truncate(MAX_NOTIFIED);
    out
}

/// The declared `totals` of `params` over the validated `values`: per array param, its item
/// count and each sum of products of item fields, rounded to 1e-6 (no float noise such as
/// 0.30000000000000004). An item without one of the fields adds nothing to that sum.
pub(super) fn totals(
    params: &catalog::Params,
    values: &BTreeMap<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, p) in params {
        let (Some(sums), Some(Value::Array(items))) = (&p.totals, values.get(name.as_str())) else {
            continue;
        };
        let mut entry = Map::new();
        entry.insert("items".into(), items.len().into());
        for (total, factors) in sums {
            let sum: f64 = items
                .iter()
                .filter_map(|item| {
                    factors
                        .iter()
                        .map(|f| item.get(f.as_str()).and_then(Value::as_f64))
                        .product::<Option<f64>>()
                })
                .sum();
            entry.insert(total.to_string(), json_number((sum * 1e6).round() / 1e6));
        }
        out.insert(name.to_string(), Value::Object(entry));
    }
    out
}

fn json_number(n: f64) -> Value {
    serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
}

impl Preview {
    /// The preview as the JSON object a model reads.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn totals_sum_products_of_item_fields_per_array() {
        let c = catalog::parse(
            "t.yaml",
            r#"
connector: shop
base_url: "http://x"
tools:
  - name: shop_invoice_create
    risk: high
    description: d
    post: /invoices
    params:
      positions:
        type: array
        in: body
        max_items: 5
        items:
          quantity: { type: number, min: 0, max: 99 }
          price: { type: number, min: 0, max: 999 }
        totals: { net: [quantity, price], pieces: [quantity] }
      note: { type: string, in: body, max_length: 9 }
"#,
        )
        .unwrap();
        let values = json!({"note": "n", "positions": [
            {"quantity": 3, "price": 0.1}, {"quantity": 10, "price": 100.0}, {"price": 5}]});
        let values: BTreeMap<String, Value> = serde_json::from_value(values).unwrap();
        let got = totals(&c.tools[0].params, &values);
        assert_eq!(
            Value::Object(got),
            json!({"positions": {"items": 3, "net": 1000.3, "pieces": 13.0}})
        );
        assert!(totals(&c.tools[0].params, &BTreeMap::new()).is_empty());
    }

    #[test]
    fn notified_people_come_from_the_body_and_the_current_record_once_each() {
        let body = json!({"attendee": {"email": "a@x.example"}, "guests": ["g@x.example", ""]});
        let current = json!({"attendees": [{"email": "a@x.example", "name": "A"},
                                           {"email": "b@x.example"}],
                             "guests": ["g@x.example"], "hosts": [{"email": "h@x.example"}]});
        let paths =
            ["attendee.email", "attendees", "guests", "missing.email"].map(Text::from_static);
        assert_eq!(
            notified(&paths, [&body, &current].into_iter()),
            ["a@x.example", "b@x.example", "g@x.example"]
        );
        assert!(notified(&[], [&body].into_iter()).is_empty());
        let many =
            json!({"guests": (0..300).map(|i| format!("p{i}@x.example")).collect::<Vec<_>>()});
        assert_eq!(
            notified(&[Text::from_static("guests")], [&many].into_iter()).len(),
            MAX_NOTIFIED
        );
    }
}
