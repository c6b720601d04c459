//! Rules on a tool's params: names, where they go, what each type takes, arrays and the
//! `body` template that places them.

use std::collections::BTreeSet;

use super::{Http, is_snake};
use crate::model::{Method, Param, ParamIn, ParamType};

/// A rule on one param (by name) of a tool with an HTTP mapping.
type ParamRule = fn(&Http<'_>, &str, &Param) -> Vec<String>;

/// The param rules, in the order their problems are reported.
const PARAM: &[ParamRule] = &[
    name_is_ours,
    path_param_is_in_the_path,
    options_fit_the_type,
    |_, name, p| {
        let problems = array_problems(p).into_iter();
        problems
            .map(|problem| format!("param `{name}`: {problem}"))
            .collect()
    },
    currency_is_an_iso_code_on_a_number,
    bounds_are_ordered,
    no_body_on_a_get,
    asked_of_a_person,
];

/// Every param's problems, param by param.
pub(super) fn params(h: &Http<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for (name, p) in &h.t.params {
        out.extend(PARAM.iter().flat_map(|rule| rule(h, name, p)));
    }
    out
}

/// A param a person is asked for (`ask`) is one the call cannot go without (required, or in
/// the path), a plain value a form can ask (no array), and of a tool that needs no
/// confirmation: the retried call that brings the answer goes on to the upstream.
fn asked_of_a_person(h: &Http<'_>, name: &str, p: &Param) -> Vec<String> {
    let Some(question) = &p.ask else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if question.trim().is_empty() {
        out.push(format!(
            "param `{name}`: `ask` is empty; write the question a person reads"
        ));
    }
    if !(p.required || p.location == ParamIn::Path) {
        out.push(format!("param `{name}`: `ask` is for a required param (an optional one is left out, not asked for)"));
    }
    if p.kind == ParamType::Array {
        out.push(format!(
            "param `{name}`: `ask` is for a plain value, not an array"
        ));
    }
    if h.t.risk >= crate::model::Risk::High {
        out.push(format!(
            "param `{name}`: `ask` is for tools of risk `low` or `medium` (a confirmation is bound to the arguments the model sent, not to what the person adds)"
        ));
    }
    out
}

/// Snake case, and none of the names the platform adds itself.
fn name_is_ours(_: &Http<'_>, name: &str, _: &Param) -> Vec<String> {
    let mut out = Vec::new();
    if !is_snake(name) {
        out.push(format!("param `{name}` must be snake_case"));
    }
    if crate::RESERVED_PARAMS.contains(&name) {
        out.push(format!("param `{name}` is reserved by the platform"));
    }
    out
}

fn path_param_is_in_the_path(h: &Http<'_>, name: &str, p: &Param) -> Vec<String> {
    if p.location == ParamIn::Path && !h.holes.contains(&name) {
        return vec![format!(
            "path param `{name}` does not appear in `{}`",
            h.path
        )];
    }
    Vec::new()
}

/// A `currency` (on the param, or on a field of its array's elements) is an ISO 4217 code on a
/// number.
fn currency_is_an_iso_code_on_a_number(_: &Http<'_>, name: &str, p: &Param) -> Vec<String> {
    std::iter::once((name, p))
        .chain(p.items.iter().flatten().map(|(n, f)| (n.as_str(), &**f)))
        .chain(p.item.as_deref().map(|f| ("item", f)))
        .filter_map(|(field, f)| {
            let code = f.currency.as_deref()?;
            let problem = if !matches!(f.kind, ParamType::Number | ParamType::Integer) {
                "`currency` only applies to numbers"
            } else if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
                "`currency` is an ISO 4217 code like EUR"
            } else {
                return None;
            };
            Some(format!("param `{name}`: `{field}`: {problem}"))
        })
        .collect()
}

/// `values` is for booleans, `enum` for strings, and a date goes up one way.
fn options_fit_the_type(_: &Http<'_>, name: &str, p: &Param) -> Vec<String> {
    let mut out = Vec::new();
    if p.values.is_some() && p.kind != ParamType::Boolean {
        out.push(format!("param `{name}`: `values` only applies to booleans"));
    }
    if p.choices.is_some() && p.kind != ParamType::String {
        out.push(format!("param `{name}`: `enum` only applies to strings"));
    }
    if p.unix_time.is_some() && p.kind != ParamType::Date {
        out.push(format!("param `{name}`: `unix_time` only applies to dates"));
    }
    if p.date_time.is_some() && p.kind != ParamType::Date {
        out.push(format!("param `{name}`: `date_time` only applies to dates"));
    }
    if p.date_time.is_some() && p.unix_time.is_some() {
        out.push(format!(
            "param `{name}`: a date goes up either as `unix_time` or as `date_time`, not both"
        ));
    }
    out
}

fn bounds_are_ordered(_: &Http<'_>, name: &str, p: &Param) -> Vec<String> {
    match (p.min, p.max) {
        (Some(lo), Some(hi)) if lo > hi => {
            vec![format!("param `{name}`: min {lo} is above max {hi}")]
        }
        _ => Vec::new(),
    }
}

fn no_body_on_a_get(h: &Http<'_>, name: &str, p: &Param) -> Vec<String> {
    if p.location == ParamIn::Body && h.method == Method::Get {
        return vec![format!("param `{name}`: a GET has no body")];
    }
    Vec::new()
}

/// A `body` template: on a write, placing every body param exactly where it goes (so no
/// body param also has `as`).
pub(super) fn body_template(h: &Http<'_>) -> Vec<String> {
    let Some(template) = &h.t.body else {
        return Vec::new();
    };
    if h.method == Method::Get {
        return vec!["`body` is for writes; a GET has no body".to_string()];
    }
    let mut out = Vec::new();
    let mut names = BTreeSet::new();
    for (name, p) in
        h.t.params
            .iter()
            .filter(|(_, p)| p.location == ParamIn::Body)
    {
        if p.upstream.is_some() {
            out.push(format!(
                "param `{name}`: `as` does not apply with `body`; the template places it"
            ));
        }
        names.insert(name.as_str());
    }
    out.extend(crate::body::template_problems("`body`", template, &names));
    out.extend(crate::message::template_problems("`body`", template));
    out
}

/// An array param: body only, with `max_items` and exactly one of `items` (objects of plain
/// typed fields) or `item` (one plain typed value per element). No arrays nest, `in` and `as`
/// belong to the array, `enum` is for strings and `values` for booleans.
fn array_problems(p: &Param) -> Vec<String> {
    if p.kind != ParamType::Array {
        return array_options_on_an_array(p);
    }
    let mut out = Vec::new();
    if p.location != ParamIn::Body {
        out.push("an array goes in the body (`in: body`)".to_string());
    }
    if p.max_items.is_none_or(|n| n == 0) {
        out.push("an array needs `max_items` of at least 1".to_string());
    }
    out.extend(elements_declared_once(p));
    out.extend(item_body(p));
    out.extend(totals(p));
    for (field, f) in p.items.iter().flatten() {
        if !is_snake(field) {
            out.push(format!("item field `{field}` must be snake_case"));
        }
        out.extend(element_problems(&format!("item field `{field}`"), f));
    }
    if let Some(item) = &p.item {
        out.extend(element_problems("`item`", item));
        if item.required || item.default.is_some() {
            out.push(
                "`item`: `required` and `default` do not apply (every element is checked)"
                    .to_string(),
            );
        }
    }
    out
}

fn array_options_on_an_array(p: &Param) -> Vec<String> {
    if p.items.is_some()
        || p.item.is_some()
        || p.max_items.is_some()
        || p.item_body.is_some()
        || p.totals.is_some()
    {
        return vec![
            "`items`, `item`, `item_body`, `totals` and `max_items` only apply to arrays"
                .to_string(),
        ];
    }
    Vec::new()
}

/// `items` (fields of objects) or `item` (one plain value), exactly one.
fn elements_declared_once(p: &Param) -> Vec<String> {
    match (&p.items, &p.item) {
        (Some(_), Some(_)) => vec![
            "an array takes `items` (fields of objects) or `item` (one plain value), not both"
                .to_string(),
        ],
        (Some(fields), None) if !fields.is_empty() => Vec::new(),
        (None, Some(_)) => Vec::new(),
        _ => vec![
            "an array needs `items` with at least one field, or `item` for plain values"
                .to_string(),
        ],
    }
}

/// An `item_body` places an object's fields, as `body` places the params.
fn item_body(p: &Param) -> Vec<String> {
    match (&p.item_body, &p.items) {
        (Some(template), Some(fields)) => {
            let names = fields.keys().map(crate::Text::as_str).collect();
            crate::body::template_problems("`item_body`", template, &names)
        }
        (Some(_), None) => vec!["`item_body` needs `items` (fields of objects)".to_string()],
        _ => Vec::new(),
    }
}

/// Each total multiplies number fields of `items`.
fn totals(p: &Param) -> Vec<String> {
    let mut out = Vec::new();
    for (total, factors) in p.totals.iter().flatten() {
        if !is_snake(total) || factors.is_empty() {
            out.push(format!(
                "total `{total}` needs a snake_case name and at least one field"
            ));
        }
        for f in factors {
            let number = p
                .items
                .as_ref()
                .and_then(|i| i.get(f))
                .is_some_and(|f| matches!(f.kind, ParamType::Integer | ParamType::Number));
            if !number {
                out.push(format!(
                    "total `{total}`: `{f}` is not a number field of `items`"
                ));
            }
        }
    }
    out
}

/// What an array's element (an item field, or the `item`) may not be.
fn element_problems(what: &str, f: &Param) -> Vec<String> {
    let mut out = Vec::new();
    if f.kind == ParamType::Array
        || f.items.is_some()
        || f.item.is_some()
        || f.max_items.is_some()
        || f.item_body.is_some()
        || f.totals.is_some()
    {
        out.push(format!("{what}: arrays do not nest"));
    }
    if f.location != ParamIn::Query || f.upstream.is_some() {
        out.push(format!(
            "{what}: `in` and `as` do not apply inside an array"
        ));
    }
    if f.values.is_some() && f.kind != ParamType::Boolean {
        out.push(format!("{what}: `values` only applies to booleans"));
    }
    if f.choices.is_some() && f.kind != ParamType::String {
        out.push(format!("{what}: `enum` only applies to strings"));
    }
    if f.unix_time.is_some() || f.date_time.is_some() {
        out.push(format!(
            "{what}: `unix_time` and `date_time` do not apply inside an array"
        ));
    }
    out
}
