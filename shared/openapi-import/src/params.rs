//! An operation's inputs as catalog params: path, query and header parameters (the path item's
//! and the operation's), and the fields of a JSON request body. What a param cannot carry is a
//! note, or a reason a person has to act when the operation cannot work without it.

use std::collections::BTreeMap;

use catalog::{Method, Param, ParamIn, Params, Text};
use serde_json::Value;

use crate::ImportError;
use crate::habits;
use crate::naming::snake;
use crate::schema::{Flat, Resolver, clean};
use crate::spec::{Deref, Op, escape};

/// The params of one operation and what drafting them found.
pub(crate) struct Inputs<'a> {
    pub(crate) params: Params,
    /// Static headers (a header parameter with a default or a single value).
    pub(crate) headers: BTreeMap<Text, Text>,
    /// The path with its placeholders in snake_case.
    pub(crate) path: String,
    /// Upstream names of the query parameters (for the paging proposal).
    pub(crate) query_names: Vec<&'a str>,
    /// Every declared name (for the prose check).
    pub(crate) all_names: Vec<String>,
    pub(crate) needs: Vec<String>,
    pub(crate) notes: Vec<String>,
}

/// One declared parameter, resolved.
struct Declared<'a> {
    name: &'a str,
    place: &'a str,
    body: &'a Value,
    at: String,
}

fn declared<'a>(
    r: &Resolver<'a>,
    op: &Op<'a>,
    needs: &mut Vec<String>,
) -> Result<Vec<Declared<'a>>, ImportError> {
    let mut out: Vec<Declared<'a>> = Vec::new();
    let item_at = op
        .at
        .rsplit_once('/')
        .map_or(op.at.as_str(), |(a, _)| a)
        .to_string();
    let lists = [
        (op.item.get("parameters"), item_at),
        (op.op.get("parameters"), op.at.clone()),
    ];
    for (list, base) in lists {
        let Some(list) = list else { continue };
        let Some(list) = list.as_array() else {
            return Err(ImportError::invalid(
                &format!("{base}/parameters"),
                "must be a list",
            ));
        };
        for (i, p) in list.iter().enumerate() {
            let at = format!("{base}/parameters/{i}");
            let p = match r.deref(p, &at)? {
                Deref::Found(p) => p,
                Deref::External(reference) => {
                    needs.push(format!(
                        "parameter `$ref: {reference}` is in another document: inline it"
                    ));
                    continue;
                }
            };
            let name = p
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| ImportError::invalid(&at, "a parameter needs a `name`"))?;
            let place = p
                .get("in")
                .and_then(Value::as_str)
                .ok_or_else(|| ImportError::invalid(&at, "a parameter needs `in`"))?;
            // An operation's parameter replaces the path item's of the same name and place.
            out.retain(|d| !(d.name == name && d.place == place));
            out.push(Declared {
                name,
                place,
                body: p,
                at,
            });
        }
    }
    Ok(out)
}

/// Drafts the params of `op`. `auth_header` is the header the credentials go in (not a param).
pub(crate) fn inputs<'a>(
    r: &mut Resolver<'a>,
    op: &Op<'a>,
    auth_header: Option<&str>,
) -> Result<Inputs<'a>, ImportError> {
    let mut needs: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut params = Params::new();
    let mut headers: BTreeMap<Text, Text> = BTreeMap::new();
    let mut renames: Vec<(String, String)> = Vec::new();
    let mut query_names: Vec<&str> = Vec::new();
    let mut all_names: Vec<String> = Vec::new();
    for d in declared(r, op, &mut needs)? {
        all_names.push(d.name.to_string());
        let own = d.body.get("description").and_then(Value::as_str);
        let required = d
            .body
            .get("required")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let schema_at = format!("{}/schema", d.at);
        let Some(schema) = d.body.get("schema") else {
            let why = format!(
                "{} parameter `{}` has no `schema` (a `content` parameter)",
                d.place, d.name
            );
            if required || d.place == "path" {
                needs.push(why)
            } else {
                notes.push(format!("{why}: left out"))
            }
            continue;
        };
        match d.place {
            "path" | "query" => {
                let location = if d.place == "path" {
                    ParamIn::Path
                } else {
                    ParamIn::Query
                };
                let mut key = snake(d.name);
                if location == ParamIn::Query && catalog::RESERVED_PARAMS.contains(&key.as_str()) {
                    key.push_str("_value");
                }
                if params.contains_key(key.as_str()) {
                    key = format!("{key}_{}", d.place);
                }
                let p = match r.param(schema, &schema_at, location, own)? {
                    Ok(mut p) => {
                        p.required = required || location == ParamIn::Path;
                        p
                    }
                    Err(why) if location == ParamIn::Path => {
                        needs.push(format!(
                            "path parameter `{}`: {why}; drafted as a string",
                            d.name
                        ));
                        let mut p = fallback_string(own);
                        p.location = ParamIn::Path;
                        p
                    }
                    Err(why) if required => {
                        needs.push(format!("required query parameter `{}`: {why}", d.name));
                        continue;
                    }
                    Err(why) => {
                        notes.push(format!(
                            "optional query parameter `{}` left out: {why}",
                            d.name
                        ));
                        continue;
                    }
                };
                let mut p = p;
                if location == ParamIn::Path {
                    renames.push((d.name.to_string(), key.clone()));
                } else {
                    query_names.push(d.name);
                    if key != d.name {
                        p.upstream = Some(d.name.into());
                    }
                }
                params.insert(key.into(), Box::new(p));
            }
            "header" => {
                if auth_header.is_some_and(|h| h.eq_ignore_ascii_case(d.name))
                    || d.name.eq_ignore_ascii_case("authorization")
                {
                    continue;
                }
                let flat = r.flatten(schema, &schema_at)?;
                let stated = d
                    .body
                    .get("description")
                    .and_then(Value::as_str)
                    .and_then(stated_value);
                let fixed = flat
                    .default
                    .or(flat
                        .choices
                        .filter(|c| c.len() == 1)
                        .and_then(|c| c.first()))
                    .and_then(Value::as_str)
                    .or(stated);
                match fixed {
                    Some(value) => {
                        headers.insert(d.name.into(), value.into());
                    }
                    None if required => needs.push(format!(
                        "required header `{}`: a secret (then `auth`) or a fixed value (then `headers`)?",
                        d.name
                    )),
                    None => notes.push(format!("optional header `{}` left out", d.name)),
                }
            }
            other => {
                let why = format!("{other} parameter `{}`: the catalog sends none", d.name);
                if required {
                    needs.push(why)
                } else {
                    notes.push(format!("{why}; left out"))
                }
            }
        }
    }
    // The tool's path uses the snake_case names; holes the document forgot become strings.
    let mut path = op.path.to_string();
    for (from, to) in &renames {
        path = path.replace(&format!("{{{from}}}"), &format!("{{{to}}}"));
    }
    for hole in catalog::placeholders(&path.clone()) {
        if !params.contains_key(hole) {
            let key = snake(hole);
            path = path.replace(&format!("{{{hole}}}"), &format!("{{{key}}}"));
            notes.push(format!(
                "path parameter `{hole}` is not declared: drafted as a string"
            ));
            let mut p = fallback_string(None);
            p.location = ParamIn::Path;
            params.insert(key.into(), Box::new(p));
        }
    }
    if path.contains("..") || path.contains('?') {
        needs.push(format!("the path `{path}` is no fixed template"));
    }
    if op.method != Method::Get {
        body(r, op, &mut params, &mut needs, &mut notes, &mut all_names)?;
    }
    Ok(Inputs {
        params,
        headers,
        path,
        query_names,
        all_names,
        needs,
        notes,
    })
}

/// A header's one value when its description states it: "Must be set to `2024-08-13`"
/// (Cal.com's `cal-api-version`), "must be `v2`".
fn stated_value(description: &str) -> Option<&str> {
    let lower = description.to_ascii_lowercase();
    let at = ["set to `", "must be `"]
        .iter()
        .find_map(|m| lower.find(m).map(|i| i + m.len()))?;
    let value = description.get(at..)?.split('`').next()?;
    (!value.is_empty() && value.len() <= 64 && value.bytes().all(|b| b.is_ascii_graphic()))
        .then_some(value)
}

fn fallback_string(own: Option<&str>) -> Param {
    Param {
        description: own.map(clean).filter(|d| !d.is_empty()).map(Text::from),
        required: true,
        ..crate::schema::blank(ParamIn::Query)
    }
}

/// The request body's fields as body params: JSON objects only; multipart, other media types,
/// alternatives and bare arrays need a person.
fn body<'a>(
    r: &mut Resolver<'a>,
    op: &Op<'a>,
    params: &mut Params,
    needs: &mut Vec<String>,
    notes: &mut Vec<String>,
    names: &mut Vec<String>,
) -> Result<(), ImportError> {
    let Some(raw) = op.op.get("requestBody") else {
        return Ok(());
    };
    let at = format!("{}/requestBody", op.at);
    let rb = match r.deref(raw, &at)? {
        Deref::Found(rb) => rb,
        Deref::External(reference) => {
            needs.push(format!(
                "request body `$ref: {reference}` is in another document"
            ));
            return Ok(());
        }
    };
    let required = rb.get("required").and_then(Value::as_bool).unwrap_or(false);
    let Some(Value::Object(content)) = rb.get("content") else {
        return Ok(());
    };
    let Some((media, m)) = content.iter().find(|(t, _)| habits::is_json(t)) else {
        let types: Vec<&str> = content.keys().map(String::as_str).collect();
        needs.push(format!(
            "request body is {} only: the catalog sends JSON",
            types.join(", ")
        ));
        return Ok(());
    };
    let Some(schema) = m.get("schema") else {
        return Ok(());
    };
    let at = format!("{at}/content/{}/schema", escape(media));
    let flat = r.flatten(schema, &at)?;
    if let Some(reference) = flat.external {
        needs.push(format!(
            "request body `$ref: {reference}` is in another document: inline it"
        ));
        return Ok(());
    }
    if let Some(reference) = flat.cycle {
        notes.push(format!("recursive body schema cut at `{reference}`"));
    }
    if flat.alternatives {
        needs.push("request body is `oneOf`/`anyOf`: pick one shape and declare its fields".into());
        return Ok(());
    }
    if flat.kind != Some("object") {
        if required || flat.kind.is_some() {
            needs.push(format!(
                "request body is {}, not an object of fields",
                flat.kind.unwrap_or("untyped")
            ));
        }
        return Ok(());
    }
    let mut out = BodyOut {
        params,
        needs,
        notes,
        names,
    };
    fields(r, &flat, &at, None, &mut out)
}

/// Objects inside a body nest at most this deep as dotted params; a deeper one needs a person.
const MAX_BODY_NESTING: usize = 3;

/// Where body params and findings go.
struct BodyOut<'p> {
    params: &'p mut Params,
    needs: &'p mut Vec<String>,
    notes: &'p mut Vec<String>,
    names: &'p mut Vec<String>,
}

/// The object a field sits in: its param name prefix, its dotted upstream path, whether it is
/// required itself, and how deep it is.
struct Parent {
    key: String,
    upstream: String,
    required: bool,
    depth: usize,
}

/// The fields of a body object as body params. A field that is itself an object with declared
/// fields becomes one param per field, named `<object>_<field>` and sent under its dotted path
/// (`content: {text}` → `content_text`, `as: content.text`, which the runtime nests again), so a
/// message's content survives; such a field is required when it and every object around it is.
fn fields<'a>(
    r: &mut Resolver<'a>,
    flat: &Flat<'a>,
    at: &str,
    parent: Option<&Parent>,
    out: &mut BodyOut<'_>,
) -> Result<(), ImportError> {
    for (name, prop) in flat.properties.iter() {
        out.names.push(name.to_string());
        let field_at = format!("{at}/properties/{}", escape(name));
        let shown = parent.map_or(name.to_string(), |p| format!("{}.{name}", p.upstream));
        let is_required = flat.required.contains(name) && parent.is_none_or(|p| p.required);
        // `readOnly` fields are answers, not inputs.
        if let Deref::Found(resolved) = r.deref(prop, &field_at)?
            && resolved.get("readOnly").and_then(Value::as_bool) == Some(true)
        {
            continue;
        }
        let mut key = match parent {
            Some(p) => format!("{}_{}", p.key, snake(name)),
            None => snake(name),
        };
        if catalog::RESERVED_PARAMS.contains(&key.as_str()) {
            key.push_str("_value");
        }
        if out.params.contains_key(key.as_str()) {
            key.push_str("_body");
        }
        let inner = r.flatten(prop, &field_at)?;
        let object = inner.kind == Some("object")
            && !inner.properties.is_empty()
            && !inner.alternatives
            && inner.external.is_none();
        let depth = parent.map_or(1, |p| p.depth + 1);
        if object && depth <= MAX_BODY_NESTING && !name.contains('.') {
            if let Some(reference) = inner.cycle {
                out.notes
                    .push(format!("recursive body schema cut at `{reference}`"));
            }
            let here = Parent {
                key,
                upstream: shown,
                required: is_required,
                depth,
            };
            fields(r, &inner, &field_at, Some(&here), out)?;
            continue;
        }
        let param = if object {
            Err(if name.contains('.') {
                "an object whose name holds a `.` (sent nested, it would split)".to_string()
            } else {
                format!("an object nested deeper than {MAX_BODY_NESTING} levels")
            })
        } else {
            r.param(prop, &field_at, ParamIn::Body, None)?
        };
        match param {
            Ok(mut p) => {
                p.required = is_required;
                if key != shown {
                    p.upstream = Some(shown.as_str().into());
                }
                out.params.insert(key.into(), Box::new(p));
            }
            Err(why) if is_required => out
                .needs
                .push(format!("required body field `{shown}`: {why}")),
            Err(why) => out
                .notes
                .push(format!("optional body field `{shown}` left out: {why}")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::stated_value;

    #[test]
    fn a_header_value_stated_in_its_description_is_taken() {
        assert_eq!(
            stated_value("Must be set to `2024-08-13`. Otherwise v1 is used."),
            Some("2024-08-13")
        );
        assert_eq!(stated_value("The version; must be `v2`"), Some("v2"));
        assert_eq!(stated_value("Must be set to `a b`"), None, "one token only");
        assert_eq!(stated_value("Any version, e.g. `2024-08-13`"), None);
        assert_eq!(stated_value("Must be set to `"), None);
    }
}
