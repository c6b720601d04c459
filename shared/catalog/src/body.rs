//! JSON body templates: a write's `body` and an array param's `item_body`. A string that is
//! exactly `"{name}"` stands for a value (typed: a number stays a number); every other value is
//! sent as written. A placeholder without a value leaves its key (or list element) out. Pure:
//! the loader checks templates with [`template_problems`], the request is built with [`fill`].

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// Objects and arrays in a template nest at most this deep (a body is a few levels).
const MAX_DEPTH: usize = 8;

/// The name in a string that is exactly one placeholder, `"{contact_id}"` → `contact_id`.
pub fn placeholder(s: &str) -> Option<&str> {
    let name = s.strip_prefix('{')?.strip_suffix('}')?;
    (!name.is_empty() && !name.contains(['{', '}'])).then_some(name)
}

/// The template with each placeholder replaced by `value(name)`; a key or element whose
/// placeholder has no value is left out, and so is an object all of whose placeholders have
/// none (an optional reference `{id: "{supplier_id}", objectName: Contact}` without its id).
pub fn fill(template: &Value, value: &dyn Fn(&str) -> Option<Value>) -> Option<Value> {
    fill_counting(template, value).0
}

/// The filled value, and how many placeholders it held and how many got a value.
fn fill_counting(
    template: &Value,
    value: &dyn Fn(&str) -> Option<Value>,
) -> (Option<Value>, usize, usize) {
    match template {
        Value::String(s) => match placeholder(s) {
            Some(name) => {
                let v = value(name);
                let filled = usize::from(v.is_some());
                (v, 1, filled)
            }
            None => (Some(template.clone()), 0, 0),
        },
        Value::Object(fields) => {
            let (mut held, mut filled, mut out) = (0, 0, Map::new());
            for (k, v) in fields {
                let (v, h, f) = fill_counting(v, value);
                (held, filled) = (held + h, filled + f);
                if let Some(v) = v {
                    out.insert(k.clone(), v);
                }
            }
            let kept = (held == 0 || filled > 0).then_some(Value::Object(out));
            (kept, held, filled)
        }
        Value::Array(items) => {
            let (mut held, mut filled, mut out) = (0, 0, Vec::new());
            for v in items {
                let (v, h, f) = fill_counting(v, value);
                (held, filled) = (held + h, filled + f);
                out.extend(v);
            }
            (Some(Value::Array(out)), held, filled)
        }
        other => (Some(other.clone()), 0, 0),
    }
}

/// What is wrong with a template whose placeholders must be exactly `names`, each used (so no
/// declared value is silently dropped): a JSON object at the top, strings with a `{` that are
/// not one whole placeholder, unknown names, unused names, nesting beyond [`MAX_DEPTH`].
pub(crate) fn template_problems(
    what: &str,
    template: &Value,
    names: &BTreeSet<&str>,
) -> Vec<String> {
    let mut out = Vec::new();
    if !template.is_object() {
        out.push(format!("{what} must be a JSON object"));
        return out;
    }
    let mut used = BTreeSet::new();
    walk(template, 0, &mut used, &mut out, what);
    for name in &used {
        if !names.contains(name.as_str()) {
            let known: Vec<&str> = names.iter().copied().collect();
            out.push(format!(
                "{what} uses {{{name}}}, which is none of {}",
                if known.is_empty() {
                    "(no values to place)".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
    }
    for name in names {
        if !used.contains(*name) {
            out.push(format!(
                "{what} does not place `{name}`; add \"{{{name}}}\" where it goes"
            ));
        }
    }
    out
}

fn walk(v: &Value, depth: usize, used: &mut BTreeSet<String>, out: &mut Vec<String>, what: &str) {
    if depth > MAX_DEPTH {
        out.push(format!("{what} nests deeper than {MAX_DEPTH} levels"));
        return;
    }
    match v {
        Value::String(s) => match placeholder(s) {
            Some(name) => {
                used.insert(name.to_string());
            }
            None if s.contains('{') => out.push(format!(
                "{what}: `{s}` is not one whole placeholder; a value is either \"{{name}}\" or text without braces"
            )),
            None => {}
        },
        Value::Object(fields) => fields
            .values()
            .for_each(|v| walk(v, depth + 1, used, out, what)),
        Value::Array(items) => items
            .iter()
            .for_each(|v| walk(v, depth + 1, used, out, what)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_are_whole_strings() {
        assert_eq!(placeholder("{contact_id}"), Some("contact_id"));
        for not in ["contact_id", "{}", "RE-{n}", "{a}{b}", "{{a}}"] {
            assert_eq!(placeholder(not), None, "{not}");
        }
    }

    #[test]
    fn fill_keeps_types_constants_and_drops_missing_values() {
        let template = json!({
            "invoice": {"objectName": "Invoice", "status": 100, "mapAll": true,
                        "contact": {"id": "{contact_id}", "objectName": "Contact"},
                        "header": "{header}"},
            "invoicePosSave": "{positions}",
            "tags": ["fixed", "{tag}"],
            "supplier": {"id": "{supplier_id}", "objectName": "Contact"},
            "unity": {"id": 1, "objectName": "Unity"}
        });
        let values = json!({"contact_id": 7, "positions": [{"quantity": 2}]});
        let got = fill(&template, &|n| values.get(n).cloned()).unwrap();
        assert_eq!(
            got,
            json!({
                "invoice": {"objectName": "Invoice", "status": 100, "mapAll": true,
                            "contact": {"id": 7, "objectName": "Contact"}},
                "invoicePosSave": [{"quantity": 2}],
                "tags": ["fixed"],
                "unity": {"id": 1, "objectName": "Unity"}
            })
        );
    }

    #[test]
    fn problems_name_unknown_unused_and_partial_placeholders() {
        let names = BTreeSet::from(["a", "b"]);
        assert!(template_problems("`body`", &json!({"x": "{a}", "y": ["{b}"]}), &names).is_empty());
        let p = template_problems(
            "`body`",
            &json!({"x": "{a}", "y": "{c}", "z": "N-{a}"}),
            &names,
        );
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(
            p[0].contains("`N-{a}` is not one whole placeholder"),
            "{p:?}"
        );
        assert!(p[1].contains("{c}, which is none of a, b"), "{p:?}");
        assert!(p[2].contains("does not place `b`"), "{p:?}");
        assert_eq!(
            template_problems("`body`", &json!(["{a}"]), &names),
            ["`body` must be a JSON object"]
        );
        let mut deep = json!("{a}");
        for _ in 0..10 {
            deep = json!({ "d": deep });
        }
        let p = template_problems("`body`", &deep, &BTreeSet::from(["a"]));
        assert!(p.iter().any(|p| p.contains("nests deeper")), "{p:?}");
    }
}
