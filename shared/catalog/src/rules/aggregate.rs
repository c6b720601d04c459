//! Rules on an aggregation: it references list tools of its own catalog and earlier measures
//! only, and a `days` measure's literals are well-formed.

use crate::model::{Aggregate, Catalog, Days, Measure, Risk, Tool};

/// An aggregation is computed here: it has no HTTP mapping and is neither list nor raw.
pub(super) fn is_aggregate_only(t: &Tool, mappings: usize) -> Vec<String> {
    if mappings != 0 || t.list || t.raw || t.body.is_some() {
        return vec!["an aggregate tool has no HTTP mapping and is neither list nor raw".into()];
    }
    Vec::new()
}

/// The aggregation's problems: its sources, then each measure in order.
pub(super) fn problems(c: &Catalog, agg: &Aggregate) -> Vec<String> {
    let mut out = Vec::new();
    if agg.sources.is_empty() || agg.result.is_empty() {
        out.push("aggregate needs `sources` and `result`".into());
    }
    out.extend(sources_are_list_tools(c, agg));
    out.extend(crate::select::aggregate_problems(c, agg));
    let mut earlier: Vec<&str> = Vec::new();
    for m in &agg.result {
        out.extend(measure(agg, m, &earlier));
        earlier.push(&m.name);
    }
    out
}

/// Each source calls a callable list tool of this catalog with params it declares.
fn sources_are_list_tools(c: &Catalog, agg: &Aggregate) -> Vec<String> {
    let mut out = Vec::new();
    for (name, source) in &agg.sources {
        if let Some(items) = source.items.as_deref().filter(|p| !p.starts_with('/')) {
            out.push(format!(
                "source `{name}`: items `{items}` must be a JSON pointer"
            ));
        }
        match c.tools.iter().find(|t| t.name == source.tool) {
            Some(t)
                if t.risk != Risk::Forbidden
                    && (t.list || (source.items.is_some() && t.is_read_only())) =>
            {
                for arg in source.args.keys() {
                    if !t.params.contains_key(arg) {
                        out.push(format!(
                            "source `{name}`: `{}` has no param `{arg}`",
                            t.name
                        ));
                    }
                }
            }
            _ => out.push(format!(
                "source `{name}`: `{}` is not a list tool of this catalog (nor a read-only one \
                 with the source's `items`)",
                source.tool
            )),
        }
    }
    out
}

/// One measure: exactly one kind, known sources, and a difference of two `earlier` measures.
fn measure(agg: &Aggregate, m: &Measure, earlier: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let kinds = [
        m.count.is_some(),
        m.sum.is_some(),
        m.difference.is_some(),
        m.top.is_some(),
        m.items.is_some(),
        m.days.is_some(),
    ];
    if kinds.iter().filter(|k| **k).count() != 1 {
        out.push(format!(
            "measure `{}` needs exactly one of count, sum, difference, top, items, days",
            m.name
        ));
    }
    let source_of = |reference: &str| reference.split('.').next().unwrap_or("").to_string();
    let mut sources = Vec::new();
    if let Some(s) = &m.count {
        sources.push(s.to_string());
    }
    if let Some(s) = &m.sum {
        sources.push(source_of(s));
        if !s.contains('.') {
            out.push(format!("measure `{}`: sum needs `source.field`", m.name));
        }
    }
    if let Some(t) = &m.top {
        sources.push(t.of.to_string());
    }
    if let Some(i) = &m.items {
        sources.push(i.of.to_string());
    }
    if let Some(d) = &m.days {
        sources.push(d.of.to_string());
        sources.extend(d.also.iter().map(ToString::to_string));
        out.extend(days(&m.name, d));
    }
    for s in sources {
        if !agg.sources.contains_key(s.as_str()) {
            out.push(format!("measure `{}`: unknown source `{s}`", m.name));
        }
    }
    if let Some(d) = &m.difference
        && (d.len() != 2 || d.iter().any(|x| !earlier.contains(&x.as_str())))
    {
        out.push(format!(
            "measure `{}`: difference takes two earlier measures",
            m.name
        ));
    }
    out
}

/// A `days` measure: 1 to 31 days; `from`, `zone` and `hours` literal and well-formed, or one
/// `{param}` placeholder filled at call time (and checked then).
fn days(name: &str, d: &Days) -> Vec<String> {
    let mut out = Vec::new();
    let literal = |s: &str| !s.contains('{');
    if !(1..=31).contains(&d.days) {
        out.push(format!("measure `{name}`: days takes 1 to 31 days"));
    }
    let date_shaped = |s: &str| {
        s.len() == 10
            && s.char_indices().all(|(i, c)| {
                if i == 4 || i == 7 {
                    c == '-'
                } else {
                    c.is_ascii_digit()
                }
            })
    };
    if literal(&d.from) && !date_shaped(&d.from) {
        out.push(format!(
            "measure `{name}`: `from` is a date YYYY-MM-DD or a {{param}}"
        ));
    }
    let zone_shaped = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'))
    };
    if literal(&d.zone) && !zone_shaped(&d.zone) {
        out.push(format!(
            "measure `{name}`: `zone` `{}` is no IANA time zone",
            d.zone
        ));
    }
    if let Some(w) = d.weekdays.as_deref().filter(|w| literal(w))
        && crate::weekdays(w).is_none()
    {
        out.push(format!(
            "measure `{name}`: `weekdays` is Mon-Fri or Mon,Tue,Thu, or a {{param}}"
        ));
    }
    if literal(&d.hours) && crate::working_hours(&d.hours).is_none() {
        out.push(format!(
            "measure `{name}`: `hours` is HH:MM-HH:MM (09:00-17:00) or a {{param}}"
        ));
    }
    if let Some(s) = d.slots.as_deref().filter(|s| literal(s))
        && crate::slot_minutes(s).is_none()
    {
        out.push(format!(
            "measure `{name}`: `slots` is a number of minutes, {} to {}, or a {{param}}",
            crate::MIN_SLOT,
            crate::MAX_SLOT
        ));
    }
    out
}
