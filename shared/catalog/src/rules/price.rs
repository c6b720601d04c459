//! Rules on published prices: a connector's `prices` table says what its items are, what one
//! price pays for, in which currency, where and when it was published, and has sane figures; a
//! tool's `price` picks an item from a write's argument or from the record its dry run reads.

use super::Http;
use crate::model::{Catalog, ParamType, Prices};

/// The most items a table holds (a preview shows the whole table when the item is unknown).
const MAX_PRICE_ITEMS: usize = 200;
/// The longest item name, and the longest word of `of` and `per`.
const MAX_NAME: usize = 100;
const MAX_WORD: usize = 32;
/// The longest `unknown` sentence.
const MAX_UNKNOWN: usize = 300;

/// The table is what a person may read as a price: named, dated, sourced and finite.
pub(super) fn table_is_published(c: &Catalog) -> Vec<String> {
    let Some(p) = c.prices.as_deref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (field, word) in [("of", &p.of), ("per", &p.per)] {
        if !is_word(word) {
            out.push(format!(
                "prices.{field} `{word}` must be a lower-case word of at most {MAX_WORD} \
                 letters (`hardware`, `second`): the preview says it"
            ));
        }
    }
    if !(p.currency.len() == 3 && p.currency.chars().all(|ch| ch.is_ascii_uppercase())) {
        out.push(format!(
            "prices.currency `{}` must be an ISO 4217 code (`USD`)",
            p.currency
        ));
    }
    if !p.source.starts_with("https://") || p.source.len() <= "https://".len() {
        out.push(format!(
            "prices.source `{}` must be the https URL the prices are published at",
            p.source
        ));
    }
    if !is_date(&p.as_of) {
        out.push(format!(
            "prices.as_of `{}` must be the day they were read there, YYYY-MM-DD",
            p.as_of
        ));
    }
    if p.unknown.as_ref().is_some_and(|u| u.len() > MAX_UNKNOWN) {
        out.push(format!(
            "prices.unknown is longer than {MAX_UNKNOWN} characters"
        ));
    }
    out.extend(items(p));
    out
}

fn items(p: &Prices) -> Vec<String> {
    if !(1..=MAX_PRICE_ITEMS).contains(&p.items.len()) {
        return vec![format!(
            "prices.items must hold 1 to {MAX_PRICE_ITEMS} prices, found {}",
            p.items.len()
        )];
    }
    p.items
        .iter()
        .filter_map(|(name, price)| {
            if name.trim().is_empty() || name.len() > MAX_NAME {
                Some(format!(
                    "prices.items: `{name}` must be a name of 1 to {MAX_NAME} characters"
                ))
            } else if !price.is_finite() || *price < 0.0 {
                Some(format!(
                    "prices.items `{name}` must be a price of 0 or more, found {price}"
                ))
            } else {
                None
            }
        })
        .collect()
}

/// A write's `price` has a table to pick from and picks by something the dry run knows.
pub(super) fn price(h: &Http<'_>) -> Vec<String> {
    let t = h.t;
    let Some(price) = t.price.as_deref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if h.c.prices.is_none() {
        out.push("`price` needs the connector's `prices`: the table it picks from".into());
    }
    if h.t.is_read_only() {
        out.push("`price` is for writes: their preview shows it".into());
    }
    match (&price.by, &price.from) {
        (Some(_), Some(_)) => {
            out.push("price takes at most one of `by` (an argument) and `from` (a field)".into())
        }
        (Some(by), None) => match t.params.get(by.as_str()) {
            Some(p) if p.kind == ParamType::String => {}
            Some(_) => out.push(format!("price.by `{by}` must be a string param")),
            None => out.push(format!("price.by `{by}` is not a param of this tool")),
        },
        (None, Some(from)) => {
            if t.current.is_none() {
                out.push(format!(
                    "price.from `{from}` reads the record the dry run reads: the tool needs \
                     `current`"
                ));
            }
            let dotted = from.split('.').all(|w| {
                !w.is_empty() && w.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
            });
            if !dotted {
                out.push(format!(
                    "price.from `{from}` must be a dotted path of field names"
                ));
            }
        }
        (None, None) => {}
    }
    out
}

fn is_word(w: &str) -> bool {
    w.len() <= MAX_WORD
        && w.starts_with(|ch: char| ch.is_ascii_lowercase())
        && w.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_')
}

/// `YYYY-MM-DD` with a month and a day that can be.
fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return false;
    };
    let number = |p: &str, len: usize| {
        (p.len() == len && p.chars().all(|ch| ch.is_ascii_digit()))
            .then(|| p.parse::<u32>().ok())
            .flatten()
    };
    matches!(
        (number(y, 4), number(m, 2), number(d, 2)),
        (Some(_), Some(1..=12), Some(1..=31))
    )
}

#[cfg(test)]
mod tests {
    use crate::load::parse;
    use crate::rules::tests::GOOD;

    const TABLE: &str = "prices: { of: hardware, per: second, currency: USD, source: \
                         \"https://example.com/pricing\", as_of: \"2026-12-06\", items: { \
                         cpu: 0.0001, gpu-t4: 0.000225 } }\n";

    /// GOOD with `table` on the connector and a write that runs on an invoice with `price`.
    fn priced(table: &str, price: &str) -> Result<crate::model::Catalog, String> {
        let text = GOOD.replacen("tools:\n", &format!("{table}tools:\n"), 1)
            + &format!(
                r#"  - name: demo_invoice_render
    risk: high
    description: 'Renders an invoice. Use it to print one. Example {{"id": 1}}'
    effect: change
    audit_event: invoice.rendered
    failure_modes: ["404: no such invoice"]
    current: demo_invoice_get
    post: /invoices/{{id}}/render
    price: {price}
    params:
      id: {{ type: integer, in: path, required: true, min: 1 }}
      hardware: {{ type: string, in: body, max_length: 20 }}
      pages: {{ type: integer, in: body, min: 1, max: 9 }}
"#
            );
        parse("demo.yaml", &text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_write_prices_by_an_argument_a_field_of_its_current_record_or_the_whole_table() {
        for price in [
            "{}",
            "{ by: hardware }",
            "{ from: current_release.configuration.hardware }",
        ] {
            let c = priced(TABLE, price);
            assert!(c.is_ok(), "{price}: {:?}", c.err());
        }
    }

    #[test]
    fn a_price_picks_from_a_table_by_something_the_dry_run_knows() {
        let err = priced("", "{}").unwrap_err();
        assert!(err.contains("needs the connector's `prices`"), "{err}");
        let err = priced(TABLE, "{ by: hardware, from: hardware }").unwrap_err();
        assert!(err.contains("at most one of `by`"), "{err}");
        let err = priced(TABLE, "{ by: pages }").unwrap_err();
        assert!(err.contains("must be a string param"), "{err}");
        let err = priced(TABLE, "{ by: gpu }").unwrap_err();
        assert!(err.contains("`gpu` is not a param"), "{err}");
        let err = priced(TABLE, "{ from: \"release..hardware\" }").unwrap_err();
        assert!(err.contains("dotted path of field names"), "{err}");
        let without_current = GOOD.replacen("tools:\n", &format!("{TABLE}tools:\n"), 1)
            + "    price: { from: hardware }\n";
        let err = parse("demo.yaml", &without_current)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`price` is for writes"), "{err}");
    }

    #[test]
    fn a_table_is_named_dated_sourced_and_finite() {
        let broken = [
            ("of: hardware", "of: Hardware", "prices.of `Hardware`"),
            ("per: second", "per: per second", "prices.per `per second`"),
            ("currency: USD", "currency: usd", "ISO 4217"),
            (
                "\"https://example.com/pricing\"",
                "\"http://example.com/pricing\"",
                "https URL",
            ),
            ("\"2026-12-06\"", "\"2026-13-06\"", "YYYY-MM-DD"),
            ("cpu: 0.0001", "cpu: -1", "a price of 0 or more"),
            (
                "items: { cpu: 0.0001, gpu-t4: 0.000225 }",
                "items: {}",
                "1 to 200 prices",
            ),
        ];
        for (from, to, says) in broken {
            let table = TABLE.replace(from, to);
            assert_ne!(table, TABLE, "{from}");
            let err = priced(&table, "{}").unwrap_err();
            assert!(err.contains(says), "{to}: {err}");
        }
    }
}
