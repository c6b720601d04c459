//! SEP-2243 `Mcp-Param-*` headers on a call to a remote: a tool whose input schema marks a
//! property `x-mcp-header: Name` expects that argument in the header `Mcp-Param-Name` too (so a
//! gateway can route on it without reading the body), and a remote of the 2026-07-28 generation
//! refuses a call without it. Built from the remote's own schema and the validated arguments:
//! strings, numbers and booleans only, a value a header cannot carry as is (outer blanks,
//! control or non-ASCII characters, or one that looks like the wrapper) as `=?base64?…?=`. An
//! annotation that is no header token is skipped (the remote's schema is not ours to fix).
//! Pure.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

const PREFIX: &str = "=?base64?";
const SUFFIX: &str = "?=";

/// The `Mcp-Param-*` headers for `arguments` under `schema`, nested properties included.
pub(crate) fn of(
    schema: &Map<String, Value>,
    arguments: &Map<String, Value>,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    collect(schema.get("properties"), arguments, &mut out);
    out
}

fn collect(
    properties: Option<&Value>,
    arguments: &Map<String, Value>,
    out: &mut Vec<(String, String)>,
) {
    let Some(Value::Object(properties)) = properties else {
        return;
    };
    for (name, schema) in properties {
        let Some(argument) = arguments.get(name) else {
            continue;
        };
        if let Some(header) = schema.get("x-mcp-header").and_then(Value::as_str)
            && is_token(header)
            && let Some(text) = primitive(argument)
        {
            out.push((format!("mcp-param-{header}"), encode(&text)));
        }
        if let Value::Object(inner) = argument {
            collect(schema.get("properties"), inner, out);
        }
    }
}

fn primitive(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The value as a header carries it: as is, or Base64 in the SEP-2243 wrapper.
fn encode(value: &str) -> String {
    let blank_edge = |c: Option<char>| matches!(c, Some(' ' | '\t'));
    let wrapped_already = value.starts_with(PREFIX) && value.ends_with(SUFFIX);
    if blank_edge(value.chars().next())
        || blank_edge(value.chars().last())
        || value.chars().any(|c| !(' '..='~').contains(&c))
        || wrapped_already
    {
        format!("{PREFIX}{}{SUFFIX}", STANDARD.encode(value))
    } else {
        value.to_string()
    }
}

/// An RFC 9110 token: what a header name may be made of.
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn annotated_arguments_become_headers_encoded_when_a_header_cannot_carry_them() {
        let schema = object(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "note": {"type": "string"},
            "bad": {"type": "string", "x-mcp-header": "no:token"},
            "inner": {"type": "object", "properties": {"id": {"type": "string", "x-mcp-header": "Id"}}}
        }}));
        let args = object(
            json!({"region": "eu-west", "count": 3, "note": "n", "bad": "x",
                                 "inner": {"id": " Grüße "}}),
        );
        let headers = of(&schema, &args);
        assert_eq!(
            headers,
            [
                ("mcp-param-Count".to_string(), "3".to_string()),
                (
                    "mcp-param-Id".to_string(),
                    format!("=?base64?{}?=", STANDARD.encode(" Grüße "))
                ),
                ("mcp-param-Region".to_string(), "eu-west".to_string()),
            ]
        );
        assert_eq!(encode("=?base64?SGk=?="), "=?base64?PT9iYXNlNjQ/U0drPT89?=");
        assert!(of(&schema, &object(json!({}))).is_empty());
    }
}
