//! What a person reads before a write, the confirmation form's words: the action and what it
//! does (the catalog's `side_effects`), each argument given under its label with its value made
//! readable (dates as dates, amounts with their declared currency, a name beside an id where
//! the call already knows it), the sums a person checks, the published price of what the call
//! uses, the fields that change, and the risk in plain words. No HTTP method or path, no JSON, no advice meant for the model (retry keys,
//! tool names): that stays in the preview the model gets.
//!
//! Pure and bounded: names come only from what the call already holds (the name a completed
//! value carried, `101 · Acme GmbH`, marked as the assistant's words; the current record a
//! dry run read), never from a request of its own; every value is one line of at most
//! [`MAX_VALUE`] characters.

use std::collections::BTreeMap;

use catalog::{Effect, Param, ParamIn, ParamType, Tool};
use serde_json::{Map, Value, json};

use crate::contract::args::ValidArgs;

/// The most characters of one value shown.
const MAX_VALUE: usize = 500;

/// The confirmation form's words for one write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Form {
    /// `Papierkram: invoice create`.
    pub action: String,
    /// What it does, in the catalog's words.
    pub does: Option<String>,
    /// `Label: value` per argument given; an array of records adds one line per item.
    pub lines: Vec<String>,
    /// The declared sums of an array: `Line items: 2, net 1450.00 EUR`.
    pub totals: Vec<String>,
    /// The published price of what the call uses: `Price: 0.000975 USD a second of hardware
    /// gpu-l40s (…)`, or every price when the call does not say which.
    pub price: Option<String>,
    /// The fields that change: `Title: Old → New`.
    pub changes: Vec<String>,
    /// The risk in plain words.
    pub risk: Vec<String>,
}

/// What a form is made of: the call and what its preview found.
pub(super) struct Facts<'a> {
    /// The connector's title (`Papierkram`).
    pub(super) title: &'a str,
    pub(super) connector: &'a str,
    pub(super) tool: &'a Tool,
    pub(super) valid: &'a ValidArgs,
    /// The record as it is now, when the dry run read it.
    pub(super) current: Option<&'a Value>,
    pub(super) changes: Option<&'a Map<String, Value>>,
    pub(super) totals: &'a Map<String, Value>,
    pub(super) price: Option<&'a super::price::Quoted>,
}

/// The form for one write.
pub(super) fn form(facts: &Facts<'_>) -> Form {
    let Facts { tool, valid, .. } = *facts;
    let zone = time_zone(tool, valid);
    let reading = Reading {
        zone: zone.as_deref(),
    };
    let mut lines = Vec::new();
    // Path params (what the write acts on) first, then the rest by name.
    let mut params: Vec<(&str, &Param)> = tool
        .params
        .iter()
        .map(|(n, p)| (n.as_str(), &**p))
        .collect();
    params.sort_by_key(|(_, p)| p.location != ParamIn::Path);
    for (name, p) in params {
        let Some(v) = valid.values.get(name) else {
            continue;
        };
        let label = label(name, p, tool, facts.connector);
        match (&p.items, v) {
            (Some(fields), Value::Array(items)) => {
                lines.push(format!("{label}:"));
                for (i, item) in items.iter().enumerate() {
                    lines.push(format!("  {}. {}", i + 1, record(fields, item, &reading)));
                }
            }
            _ => {
                let value = reading.value(p, v);
                let value = match valid.named.get(name) {
                    Some(named) => format!(
                        "{} ({value}; the name as the assistant gave it)",
                        bounded(named)
                    ),
                    None => match record_name(p, facts.current) {
                        Some(known) => format!("{known} ({value})"),
                        None => value,
                    },
                };
                lines.push(format!("{label}: {value}"));
            }
        }
    }
    // Arguments no param declares (a remote tool's, checked against its own schema).
    for (name, v) in &valid.values {
        if !tool.params.contains_key(name.as_str()) {
            lines.push(format!("{}: {}", bounded(&words(name)), plain(v)));
        }
    }
    Form {
        action: format!("{}: {}", facts.title, action(tool, facts.connector)),
        does: tool.side_effects.as_ref().map(|s| s.trimmed().to_string()),
        lines,
        totals: totals(tool, facts.totals, facts.connector),
        price: facts.price.map(super::price::Quoted::line),
        changes: match (facts.changes, facts.current) {
            (Some(c), Some(current)) => changes(tool, c, current, &reading, facts.connector),
            _ => Vec::new(),
        },
        risk: risk(tool, facts.title),
    }
}

/// How values read: date-times in the zone the call names.
struct Reading<'a> {
    zone: Option<&'a str>,
}

impl Reading<'_> {
    /// One value as a person reads it, by its param's type.
    fn value(&self, p: &Param, v: &Value) -> String {
        match p.kind {
            ParamType::Date => date(p, v).unwrap_or_else(|| plain(v)),
            ParamType::Datetime => self.moment(v).unwrap_or_else(|| plain(v)),
            ParamType::Integer | ParamType::Number => match (&p.currency, v.as_f64()) {
                (Some(currency), Some(amount)) => format!("{amount:.2} {currency}"),
                _ => plain(v),
            },
            ParamType::Boolean => match v.as_bool() {
                Some(true) => "yes".into(),
                Some(false) => "no".into(),
                None => plain(v),
            },
            ParamType::Array => match (&p.item, v) {
                (Some(item), Value::Array(values)) => bounded(
                    &values
                        .iter()
                        .map(|x| self.value(item, x))
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                _ => plain(v),
            },
            ParamType::String | ParamType::TimeZone => plain(v),
        }
    }

    /// `2026-05-04T08:00:00Z` → `Monday, 4 May 2026, 10:00 (Europe/Berlin)`, or in UTC.
    fn moment(&self, v: &Value) -> Option<String> {
        let at: jiff::Timestamp = v.as_str()?.parse().ok()?;
        let zone = self
            .zone
            .and_then(|z| jiff::tz::TimeZone::get(z).ok().map(|tz| (z, tz)));
        Some(match zone {
            Some((name, tz)) => format!(
                "{} ({name})",
                at.to_zoned(tz).strftime("%A, %-d %B %Y, %H:%M")
            ),
            None => format!(
                "{} UTC",
                at.to_zoned(jiff::tz::TimeZone::UTC)
                    .strftime("%A, %-d %B %Y, %H:%M")
            ),
        })
    }
}

/// A date as a person reads it (`Monday, 4 May 2026`), also when it goes up as Unix seconds
/// or as a date-time of its zone's midnight.
fn date(p: &Param, v: &Value) -> Option<String> {
    let day = match (v, &p.unix_time, &p.date_time) {
        (Value::Number(n), Some(zone), _) => {
            let at = jiff::Timestamp::from_second(n.as_i64()?).ok()?;
            at.to_zoned(jiff::tz::TimeZone::get(zone).ok()?).date()
        }
        (Value::String(s), _, Some(zone)) => {
            let at: jiff::Timestamp = s.parse().ok()?;
            at.to_zoned(jiff::tz::TimeZone::get(zone).ok()?).date()
        }
        (Value::String(s), _, _) => s.parse::<jiff::civil::Date>().ok()?,
        _ => return None,
    };
    Some(day.strftime("%A, %-d %B %Y").to_string())
}

/// The zone the call's date-times read in: the value of its first time-zone param.
fn time_zone(tool: &Tool, valid: &ValidArgs) -> Option<String> {
    tool.params
        .iter()
        .filter(|(_, p)| p.kind == ParamType::TimeZone)
        .find_map(|(n, _)| valid.values.get(n.as_str())?.as_str().map(str::to_string))
}

/// One record of an array: `Name: Konzept; Quantity: 8; Net price: 95.00 EUR`, its name
/// first.
fn record(fields: &catalog::Params, item: &Value, reading: &Reading<'_>) -> String {
    let Value::Object(item) = item else {
        return plain(item);
    };
    let mut parts: Vec<(bool, String)> = fields
        .iter()
        .filter_map(|(name, p)| {
            let v = item.get(name.as_str())?;
            let first = matches!(name.as_str(), "name" | "title");
            let label = p
                .label
                .as_deref()
                .map_or_else(|| words(name), str::to_string);
            Some((!first, format!("{label}: {}", reading.value(p, v))))
        })
        .collect();
    parts.sort_by_key(|(later, _)| *later);
    bounded(
        &parts
            .into_iter()
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join("; "),
    )
}

/// The name of the record a path param names, as the current record reads it (`name`,
/// `title` or `subject`), quoted: read from the upstream, not said by the assistant.
fn record_name(p: &Param, current: Option<&Value>) -> Option<String> {
    if p.location != ParamIn::Path {
        return None;
    }
    let current = current?;
    ["name", "title", "subject"]
        .iter()
        .find_map(|k| current.get(*k)?.as_str().filter(|s| !s.trim().is_empty()))
        .map(|s| format!("“{}”", bounded(s)))
}

/// The declared sums of arrays: `Line items: 2, net 1450.00 EUR`.
fn totals(tool: &Tool, totals: &Map<String, Value>, connector: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (name, sums) in totals {
        let Some(p) = tool.params.get(name.as_str()) else {
            continue;
        };
        let Value::Object(sums) = sums else {
            continue;
        };
        let mut parts = Vec::new();
        match sums.get("items").and_then(Value::as_u64) {
            Some(1) => parts.push("1 item".to_string()),
            Some(n) => parts.push(format!("{n} items")),
            None => {}
        }
        let declared: BTreeMap<&str, &Vec<catalog::Text>> = p
            .totals
            .iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v))
            .collect();
        for (sum, v) in sums.iter().filter(|(k, _)| k.as_str() != "items") {
            // A sum is in the currency of the first factor that has one.
            let currency = declared.get(sum.as_str()).and_then(|factors| {
                factors.iter().find_map(|f| {
                    p.items
                        .as_ref()?
                        .get(f.as_str())?
                        .currency
                        .as_deref()
                        .map(str::to_string)
                })
            });
            let amount = match (currency, v.as_f64()) {
                (Some(c), Some(n)) => format!("{n:.2} {c}"),
                _ => plain(v),
            };
            parts.push(format!("{} {amount}", sum.replace('_', " ")));
        }
        out.push(format!(
            "{}: {}",
            label(name, p, tool, connector),
            parts.join(", ")
        ));
    }
    out
}

/// The fields that change, `{field: {from, to}}` by upstream name, under their params' labels:
/// only fields the current record has (an action's options, `send_via`, are no field of the
/// record, and the form already shows them), a nested body value field by field
/// (`email.recipient`).
fn changes(
    tool: &Tool,
    changes: &Map<String, Value>,
    current: &Value,
    reading: &Reading<'_>,
    connector: &str,
) -> Vec<String> {
    let mut flat = Vec::new();
    for (key, change) in changes {
        flatten(key, change.get("to").unwrap_or(&Value::Null), &mut flat);
    }
    flat.into_iter()
        .filter_map(|(key, to)| {
            let from = key.split('.').try_fold(current, |v, k| v.get(k))?;
            (from != &to).then(|| (key, json!({"from": from, "to": to})))
        })
        .map(|(key, change)| {
            let key = &key;
            let param = tool
                .params
                .iter()
                .find(|(n, p)| p.upstream_name(n) == key.as_str());
            let show = |v: Option<&Value>| match (v, param) {
                (None | Some(Value::Null), _) => "(empty)".to_string(),
                (Some(v), Some((_, p))) => reading.value(p, v),
                (Some(v), None) => plain(v),
            };
            let label = match param {
                Some((n, p)) => label(n, p, tool, connector),
                None => words(key),
            };
            format!(
                "{label}: {} → {}",
                show(change.get("from")),
                show(change.get("to"))
            )
        })
        .collect()
}

/// A body value as `(dotted key, value)` leaves: `email: {recipient: x}` → `email.recipient`.
fn flatten(key: &str, value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(fields) if !fields.is_empty() => {
            for (k, v) in fields {
                flatten(&format!("{key}.{k}"), v, out);
            }
        }
        other => out.push((key.to_string(), other.clone())),
    }
}

/// The risk in plain words.
fn risk(tool: &Tool, title: &str) -> Vec<String> {
    let said = match tool.effect {
        Some(Effect::External) => {
            "It reaches people outside your company, and that cannot be called back.".into()
        }
        Some(Effect::Money) => format!("It moves or books money in {title}."),
        Some(Effect::Irreversible) => "It cannot be undone.".into(),
        Some(Effect::Delete) => format!("It deletes this in {title}."),
        Some(Effect::Financial) => {
            format!("It creates or changes a financial document in {title}.")
        }
        Some(Effect::Change) | None => format!("It changes data in {title}."),
    };
    vec![said]
}

/// An argument's label: its declared `label`, else its name in words; a bare `id` (or `uid`)
/// is the record the tool acts on (`papierkram_invoice_send`'s `id` → `Invoice`).
fn label(name: &str, p: &Param, tool: &Tool, connector: &str) -> String {
    if let Some(label) = &p.label {
        return label.to_string();
    }
    if matches!(name, "id" | "uid") {
        let action = action(tool, connector);
        if let Some((record, _)) = action.rsplit_once(' ') {
            return capitalised(record);
        }
    }
    words(name)
}

/// `customer_id` → `Customer`, `email_recipient` → `Email recipient`.
fn words(name: &str) -> String {
    let base = name
        .strip_suffix("_ids")
        .or_else(|| name.strip_suffix("_id"))
        .unwrap_or(name);
    capitalised(&base.replace('_', " "))
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The tool's name without its connector, in words: `invoice create`.
fn action(tool: &Tool, connector: &str) -> String {
    let name = tool.name.as_str();
    let own = name
        .strip_prefix(connector)
        .and_then(|rest| rest.strip_prefix('_'))
        .unwrap_or(name);
    own.replace('_', " ")
}

/// A value as plain text: a string as written, anything else compact; one line, bounded.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => bounded(s),
        // A whole number validated as a float reads as a whole number (`8`, not `8.0`).
        Value::Number(n)
            if n.as_f64()
                .is_some_and(|f| f.fract() == 0.0 && f.abs() < 1e15) =>
        {
            format!("{}", n.as_f64().unwrap_or_default() as i64)
        }
        Value::Array(items) => bounded(&items.iter().map(plain).collect::<Vec<_>>().join(", ")),
        other => bounded(&other.to_string()),
    }
}

/// One line of at most [`MAX_VALUE`] characters.
fn bounded(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut cut: String = line.chars().take(MAX_VALUE).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> catalog::Catalog {
        catalog::parse(
            "t.yaml",
            r#"
connector: shop
title: Shop
base_url: "http://x"
list_envelope: { items: entries }
tools:
  - name: shop_companies_list
    risk: low
    list: true
    description: d
    get: /companies
    fields: [id, name]
  - name: shop_invoice_create
    risk: high
    effect: financial
    side_effects: Creates an invoice draft; nobody is contacted.
    description: d
    post: /invoices
    params:
      customer_id: { type: integer, in: body, required: true, min: 1, complete: { from: shop_companies_list, match: name, value: id } }
      document_date: { type: date, in: body, label: Invoice date }
      due: { type: datetime, in: body }
      zone: { type: time_zone, in: body }
      paid: { type: boolean, in: body }
      positions:
        type: array
        in: body
        max_items: 5
        items:
          name: { type: string, required: true, max_length: 50 }
          quantity: { type: number, min: 0, max: 99 }
          price: { type: number, min: 0, max: 999, currency: EUR, label: Net price }
        totals: { net: [quantity, price] }
"#,
        )
        .unwrap()
    }

    fn valid(tool: &Tool, args: Value) -> ValidArgs {
        let shape = crate::contract::cursor::ListShape::PAGES;
        crate::contract::args::validate(tool, shape, args.as_object().unwrap()).unwrap()
    }

    #[test]
    fn arguments_read_under_their_labels_with_dates_amounts_and_the_name_beside_the_id() {
        let c = catalog();
        let tool = &c.tools[1];
        let valid = valid(
            tool,
            json!({"customer_id": "101 · Acme GmbH", "document_date": "2026-05-04",
                   "due": "2026-05-04T10:00[Europe/Berlin]", "zone": "Europe/Berlin",
                   "paid": false,
                   "positions": [{"name": "Konzept", "quantity": 8, "price": 95}]}),
        );
        let totals = crate::call::preview::totals(&tool.params, &valid.values);
        let form = form(&Facts {
            title: "Shop",
            connector: "shop",
            tool,
            valid: &valid,
            current: None,
            changes: None,
            totals: &totals,
            price: None,
        });
        assert_eq!(form.action, "Shop: invoice create");
        assert_eq!(
            form.does.as_deref(),
            Some("Creates an invoice draft; nobody is contacted.")
        );
        assert_eq!(
            form.lines,
            [
                "Customer: Acme GmbH (101; the name as the assistant gave it)",
                "Invoice date: Monday, 4 May 2026",
                "Due: Monday, 4 May 2026, 10:00 (Europe/Berlin)",
                "Paid: no",
                "Positions:",
                "  1. Name: Konzept; Net price: 95.00 EUR; Quantity: 8",
                "Zone: Europe/Berlin",
            ]
        );
        assert_eq!(form.totals, ["Positions: 1 item, net 760.00 EUR"]);
        assert_eq!(
            form.risk,
            ["It creates or changes a financial document in Shop."]
        );
    }

    #[test]
    fn a_record_the_dry_run_read_names_the_id_and_changes_read_under_labels() {
        let c = catalog::parse(
            "t.yaml",
            r#"
connector: shop
base_url: "http://x"
tools:
  - name: shop_invoice_update
    risk: high
    effect: financial
    description: d
    put: /invoices/{id}
    params:
      id: { type: integer, in: path, min: 1 }
      name: { type: string, in: body, max_length: 50, label: Title }
      document_date: { type: date, in: body }
"#,
        )
        .unwrap();
        let tool = &c.tools[0];
        let valid = valid(
            tool,
            json!({"id": 7, "name": "New", "document_date": "2026-05-31"}),
        );
        let current = json!({"id": 7, "name": "Old", "document_date": "2026-05-01"});
        let changes = json!({"name": {"from": "Old", "to": "New"},
                             "document_date": {"from": "2026-05-01", "to": "2026-05-31"}});
        let form = form(&Facts {
            title: "Shop",
            connector: "shop",
            tool,
            valid: &valid,
            current: Some(&current),
            changes: changes.as_object(),
            totals: &Map::new(),
            price: None,
        });
        assert_eq!(form.lines[0], "Invoice: “Old” (7)");
        assert_eq!(
            form.changes,
            [
                "Document date: Friday, 1 May 2026 → Sunday, 31 May 2026",
                "Title: Old → New",
            ]
        );
    }
}
