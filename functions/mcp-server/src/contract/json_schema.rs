//! A remote tool's arguments checked against the remote's own `inputSchema`, before anything is
//! sent: the common JSON Schema keywords (`type`, `properties`, `required`,
//! `additionalProperties`, `enum`, `items`, `maxLength`, `minimum`, `maximum`,
//! `maxItems`), numeric strings accepted for numbers as for catalog tools, and an argument the
//! schema does not name refused with a "did you mean" (as for catalog tools) unless the schema
//! welcomes others. Keywords beyond these
//! are left to the remote. The schema was bounded in size and depth when the tool list was
//! fetched, and this walk follows the schema, so the work is bounded too.

use catalog::Tool;
use serde_json::{Map, Value};

use super::args::{self, Invalid, ValidArgs, invalid};
use super::names::{closest, shown};
use super::risk;

/// The platform's own arguments a remote tool takes besides its schema's (the write stages').
fn platform_names(tool: &Tool) -> Vec<&'static str> {
    let mut names = Vec::new();
    if risk::is_write(tool) {
        names.extend(["dry_run", "idempotency_key"]);
    }
    if risk::needs_confirmation(tool) {
        names.push("confirmation_token");
    }
    names
}

/// The arguments for the remote (normalised), and the platform's write arguments.
pub(crate) fn validate(
    tool: &Tool,
    schema: &Map<String, Value>,
    arguments: &Map<String, Value>,
) -> Result<ValidArgs, Invalid> {
    let platform = platform_names(tool);
    let mut own = Map::new();
    for (k, v) in arguments {
        if !platform.contains(&k.as_str()) {
            own.insert(k.clone(), v.clone());
        }
    }
    let checked = object("", schema, &own, &platform)?;
    Ok(ValidArgs {
        values: checked.into_iter().collect(),
        list: None,
        write: args::write_args(arguments)?,
        remote: args::RemoteRound::default(),
        named: Default::default(),
    })
}

fn object(
    at: &str,
    schema: &Map<String, Value>,
    given: &Map<String, Value>,
    platform: &[&str],
) -> Result<Map<String, Value>, Invalid> {
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    // Strict like catalog tools: an argument the schema does not name is refused, unless the
    // remote says other arguments are welcome (`additionalProperties: true` or a schema).
    let closed = !matches!(
        schema.get("additionalProperties"),
        Some(Value::Bool(true) | Value::Object(_))
    );
    let path = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    if closed {
        for key in given.keys() {
            if !props.contains_key(key) {
                let known = props
                    .keys()
                    .map(String::as_str)
                    .chain(platform.iter().copied());
                let hint = match closest(key, known) {
                    Some(best) => {
                        format!("Unknown argument `{}`. Did you mean `{best}`?", path(key))
                    }
                    None => format!("Unknown argument `{}`.", shown(&path(key))),
                };
                let valid: Vec<&str> = props.keys().map(String::as_str).collect();
                return Err(invalid(format!(
                    "{hint} Valid arguments: {}.",
                    valid.join(", ")
                )));
            }
        }
    }
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if given.get(name).is_none_or(Value::is_null) {
            return Err(invalid(format!(
                "Missing required argument `{}`.",
                path(name)
            )));
        }
    }
    let mut out = Map::new();
    for (key, v) in given {
        let value = match props.get(key).and_then(Value::as_object) {
            Some(sub) => value(&path(key), sub, v, platform)?,
            None => v.clone(),
        };
        out.insert(key.clone(), value);
    }
    Ok(out)
}

fn value(
    at: &str,
    schema: &Map<String, Value>,
    v: &Value,
    platform: &[&str],
) -> Result<Value, Invalid> {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let checked = if types.is_empty() || (v.is_null() && types.contains(&"null")) {
        v.clone()
    } else {
        let mut last = None;
        let mut found = None;
        for t in &types {
            match typed(at, t, schema, v, platform) {
                Ok(ok) => {
                    found = Some(ok);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        match (found, last) {
            (Some(ok), _) => ok,
            (None, Some(e)) => return Err(e),
            (None, None) => v.clone(),
        }
    };
    if let Some(choices) = schema.get("enum").and_then(Value::as_array)
        && !choices.contains(&checked)
    {
        let words: Vec<String> = choices.iter().take(20).map(Value::to_string).collect();
        return Err(invalid(format!(
            "`{at}` must be one of {}.",
            words.join(", ")
        )));
    }
    Ok(checked)
}

fn typed(
    at: &str,
    t: &str,
    schema: &Map<String, Value>,
    v: &Value,
    platform: &[&str],
) -> Result<Value, Invalid> {
    let limit = |key: &str| schema.get(key).and_then(Value::as_f64);
    let bounded = |n: f64| -> Result<(), Invalid> {
        if limit("minimum").is_some_and(|m| n < m) || limit("maximum").is_some_and(|m| n > m) {
            return Err(invalid(format!(
                "`{at}` must be between {} and {}, got {n}.",
                limit("minimum").map_or("-∞".into(), |m| m.to_string()),
                limit("maximum").map_or("∞".into(), |m| m.to_string())
            )));
        }
        Ok(())
    };
    match t {
        "string" => match v {
            Value::String(s) => {
                if limit("maxLength").is_some_and(|m| s.chars().count() as f64 > m) {
                    return Err(invalid(format!("`{at}` is longer than allowed.")));
                }
                Ok(v.clone())
            }
            _ => Err(invalid(format!("`{at}` must be a string."))),
        },
        "integer" => {
            let n = args::integer(at, v)?;
            bounded(n as f64)?;
            Ok(n.into())
        }
        "number" => {
            let n = args::number(at, v)?;
            bounded(n)?;
            Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
        }
        "boolean" => args::boolean(at, v).map(Value::Bool),
        "array" => {
            let Value::Array(items) = v else {
                return Err(invalid(format!("`{at}` must be a list.")));
            };
            if limit("maxItems").is_some_and(|m| items.len() as f64 > m) {
                return Err(invalid(format!("`{at}` has more items than allowed.")));
            }
            match schema.get("items").and_then(Value::as_object) {
                Some(item) => items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| value(&format!("{at}[{i}]"), item, x, platform))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array),
                None => Ok(v.clone()),
            }
        }
        "object" => match v {
            Value::Object(m) => object(at, schema, m, &[]).map(Value::Object),
            _ => Err(invalid(format!("`{at}` must be an object."))),
        },
        "null" if v.is_null() => Ok(Value::Null),
        _ => Err(invalid(format!("`{at}` must be of type {t}."))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(write: bool) -> Tool {
        let yaml = format!(
            "connector: n\nbase_url: http://x\ntools:\n  - {{ name: n_a_get, risk: {}, description: d, {}: /a }}\n",
            if write { "high" } else { "low" },
            if write { "post" } else { "get" }
        );
        catalog::parse("n.yaml", &yaml).unwrap().tools.remove(0)
    }

    fn schema() -> Map<String, Value> {
        json!({"type": "object", "additionalProperties": false, "required": ["title"],
               "properties": {"title": {"type": "string", "maxLength": 10},
                              "count": {"type": "integer", "minimum": 1},
                              "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                              "meta": {"type": "object", "properties": {"on": {"type": "boolean"}}}}})
        .as_object()
        .cloned()
        .unwrap()
    }

    fn check(write: bool, args: Value) -> Result<ValidArgs, String> {
        validate(&tool(write), &schema(), args.as_object().unwrap()).map_err(|e| e.hint)
    }

    #[test]
    fn arguments_are_checked_against_the_remote_schema_and_normalised() {
        let ok = check(
            false,
            json!({"title": "t", "count": "5", "meta": {"on": "true"}}),
        )
        .unwrap();
        assert_eq!(ok.values["count"], json!(5));
        assert_eq!(ok.values["meta"], json!({"on": true}));
        for (args, hint) in [
            (json!({}), "Missing required argument `title`"),
            (json!({"title": "t", "titel": 1}), "Did you mean `title`?"),
            (json!({"title": "01234567890"}), "longer than allowed"),
            (json!({"title": "t", "count": 0}), "between 1 and"),
            (
                json!({"title": "t", "tags": ["c"]}),
                "`tags[0]` must be one of",
            ),
            (json!({"title": 5}), "`title` must be a string"),
        ] {
            let e = check(false, args.clone()).unwrap_err();
            assert!(e.contains(hint), "{args}: {e}");
        }
    }

    #[test]
    fn platform_write_arguments_are_taken_out_for_writes_only() {
        let ok = check(
            true,
            json!({"title": "t", "dry_run": true, "confirmation_token": "x.y"}),
        )
        .unwrap();
        assert!(ok.write.dry_run);
        assert_eq!(ok.write.confirmation_token.as_deref(), Some("x.y"));
        assert!(!ok.values.contains_key("dry_run"));
        let e = check(false, json!({"title": "t", "dry_run": true})).unwrap_err();
        assert!(e.contains("Unknown argument `dry_run`"), "{e}");
    }
}
