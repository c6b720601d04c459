//! The published price a write's preview shows (the catalog's `prices`, the tool's `price`):
//! the item the call uses, read from its argument or from the record the dry run read, with
//! its price, unit, currency, source and day; or, when the call does not say which item (or the
//! table lacks it), the whole table with the catalog's sentence on where the item is found.
//! Pure: it reads only what the preview already holds.

use std::collections::BTreeMap;

use catalog::{Price, Prices, Text};
use serde::Serialize;
use serde_json::Value;

/// What a preview says about the price. Serialized as the preview's `price`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Quoted {
    /// What the items are (`hardware`).
    pub of: Text,
    /// The call's item, when its argument or the record read names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// The item's price per `per`, when the table has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<f64>,
    pub currency: Text,
    pub per: Text,
    /// Every item's price, when the call's is not known.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub table: BTreeMap<Text, f64>,
    /// Why the table is shown, and where the item is found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Where and when the prices were published.
    pub source: Text,
    pub as_of: Text,
}

/// The quote for one call: `values` are its validated arguments, `current` the record its dry
/// run read (none when it read none or the caller may not see it).
pub(super) fn quote(
    prices: &Prices,
    price: &Price,
    values: &BTreeMap<String, Value>,
    current: Option<&Value>,
) -> Quoted {
    let item = match (&price.by, &price.from) {
        (Some(by), _) => values.get(by.as_str()).and_then(Value::as_str),
        (None, Some(from)) => current.and_then(|record| field(record, from)),
        (None, None) => None,
    };
    let found = item.and_then(|item| prices.items.get(item).copied());
    let note = match (item, found) {
        (_, Some(_)) => None,
        (Some(item), None) => Some(format!(
            "{} `{item}` is not in the published table; every {}'s price is shown.",
            prices.of, prices.of
        )),
        (None, None) => prices.unknown.as_ref().map(|u| u.trimmed().to_string()),
    };
    Quoted {
        of: prices.of.clone(),
        item: item.map(str::to_string),
        price: found,
        currency: prices.currency.clone(),
        per: prices.per.clone(),
        table: match found {
            Some(_) => BTreeMap::new(),
            None => prices.items.clone(),
        },
        note,
        source: prices.source.clone(),
        as_of: prices.as_of.clone(),
    }
}

/// The string at a dotted path of a record.
fn field<'a>(record: &'a Value, dotted: &str) -> Option<&'a str> {
    dotted
        .split('.')
        .try_fold(record, |v, key| v.get(key))?
        .as_str()
}

impl Quoted {
    /// The line a person reads in a confirmation form: `Price: 0.000975 USD a second of
    /// hardware gpu-l40s (https://replicate.com/pricing, as of 2026-12-06)`, or the table.
    pub(super) fn line(&self) -> String {
        let published = format!("{}, as of {}", self.source, self.as_of);
        match (&self.item, self.price) {
            (Some(item), Some(price)) => format!(
                "Price: {price} {} a {} of {} {item} ({published})",
                self.currency, self.per, self.of
            ),
            _ => {
                let table: Vec<String> = self
                    .table
                    .iter()
                    .map(|(item, price)| format!("{item} {price}"))
                    .collect();
                let mut line = format!(
                    "Price: {} a {} of {}: {} ({published}).",
                    self.currency,
                    self.per,
                    self.of,
                    table.join(", ")
                );
                if let Some(note) = &self.note {
                    line.push(' ');
                    line.push_str(note);
                }
                line
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prices() -> Prices {
        Prices {
            of: "hardware".into(),
            per: "second".into(),
            currency: "USD".into(),
            source: "https://replicate.com/pricing".into(),
            as_of: "2026-12-06".into(),
            unknown: Some("The model's page says which hardware it runs on.".into()),
            items: BTreeMap::from([("cpu".into(), 0.0001), ("gpu-l40s".into(), 0.000975)]),
        }
    }

    fn price(by: Option<&str>, from: Option<&str>) -> Price {
        Price {
            by: by.map(Text::from),
            from: from.map(Text::from),
        }
    }

    #[test]
    fn the_item_named_by_the_record_read_gets_its_price_alone() {
        let deployment = json!({"current_release": {"configuration": {"hardware": "gpu-l40s"}}});
        let q = quote(
            &prices(),
            &price(None, Some("current_release.configuration.hardware")),
            &BTreeMap::new(),
            Some(&deployment),
        );
        assert_eq!(q.item.as_deref(), Some("gpu-l40s"));
        assert_eq!(q.price, Some(0.000975));
        assert!(q.table.is_empty() && q.note.is_none(), "{q:?}");
        assert_eq!(
            q.line(),
            "Price: 0.000975 USD a second of hardware gpu-l40s \
             (https://replicate.com/pricing, as of 2026-12-06)"
        );
    }

    #[test]
    fn an_argument_names_the_item_and_one_missing_from_the_table_shows_the_table() {
        let values = BTreeMap::from([("hardware".to_string(), json!("cpu"))]);
        let q = quote(&prices(), &price(Some("hardware"), None), &values, None);
        assert_eq!(q.price, Some(0.0001));
        let values = BTreeMap::from([("hardware".to_string(), json!("gpu-b200"))]);
        let q = quote(&prices(), &price(Some("hardware"), None), &values, None);
        assert_eq!((q.item.as_deref(), q.price), (Some("gpu-b200"), None));
        assert_eq!(q.table.len(), 2);
        assert!(
            q.note
                .unwrap()
                .contains("`gpu-b200` is not in the published table")
        );
    }

    #[test]
    fn an_unknown_item_shows_every_price_and_where_to_find_it() {
        // No record was read (or the caller may not see it): the table and the sentence.
        let q = quote(
            &prices(),
            &price(None, Some("current_release.configuration.hardware")),
            &BTreeMap::new(),
            None,
        );
        assert_eq!(q.item, None);
        let line = q.line();
        assert_eq!(
            line,
            "Price: USD a second of hardware: cpu 0.0001, gpu-l40s 0.000975 \
             (https://replicate.com/pricing, as of 2026-12-06). The model's page says which \
             hardware it runs on."
        );
        let json =
            serde_json::to_value(quote(&prices(), &price(None, None), &BTreeMap::new(), None))
                .unwrap();
        assert_eq!(json["table"]["gpu-l40s"], 0.000975);
        assert!(
            json.get("item").is_none() && json.get("price").is_none(),
            "{json}"
        );
    }
}
