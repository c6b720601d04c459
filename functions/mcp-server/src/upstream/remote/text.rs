//! A remote's words as they reach a model: a remote's descriptions, titles and schema texts are
//! its own, unreviewed and unbounded, so each is cut to a bound like our catalogs' (a tool
//! description to 2,000 characters, a parameter's text to [`MAX_SCHEMA_TEXT`]) and a tool's or
//! prompt's description says whose it is ([`marked`]): a model reads it as a remote's claim,
//! never as this server's word. A catalog overlay's description is ours and is not marked. Pure.

use serde_json::{Map, Value};

/// The longest text kept of one `description`, `title` or `$comment` inside a remote's input
/// schema, characters (a catalog parameter's description is one line).
pub(super) const MAX_SCHEMA_TEXT: usize = 300;

/// `text` cut to `max` characters, with `…` where it was cut.
pub(super) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => {
            let mut kept = text[..end].trim_end().to_string();
            kept.push('…');
            kept
        }
    }
}

/// A remote's description as listed: marked as the remote's, unreviewed.
pub(super) fn marked(connector: &str, text: &str) -> String {
    format!("[unreviewed text from remote MCP server {connector}] {text}")
}

/// Cuts every schema text (`description`, `title`, `$comment` with a string value, at any
/// depth) to [`MAX_SCHEMA_TEXT`]; how many were cut. Keys of `properties` are parameter
/// names, not texts, so a parameter named `title` stays as it is.
pub(super) fn cut_schema_texts(schema: &mut Map<String, Value>) -> usize {
    let mut n = 0;
    for (key, value) in schema.iter_mut() {
        match value {
            Value::String(s)
                if matches!(key.as_str(), "description" | "title" | "$comment")
                    && s.chars().nth(MAX_SCHEMA_TEXT).is_some() =>
            {
                *s = cut(s, MAX_SCHEMA_TEXT);
                n += 1;
            }
            _ => n += cut_in(value),
        }
    }
    n
}

fn cut_in(value: &mut Value) -> usize {
    match value {
        Value::Object(m) => cut_schema_texts(m),
        Value::Array(a) => a.iter_mut().map(cut_in).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_schema_text_is_cut_and_names_and_values_are_not() {
        let long = "x".repeat(56_700);
        let mut schema = json!({
            "type": "object", "description": long, "title": long,
            "properties": {
                "title": {"type": "string", "description": long, "enum": [long]},
                "items": {"type": "array", "items": {"$comment": long, "anyOf": [{"description": long}]}}
            },
            "$defs": {"a": {"title": "short"}}
        });
        let cut_count = cut_schema_texts(schema.as_object_mut().unwrap());
        assert_eq!(cut_count, 5);
        let shown = cut(&long, MAX_SCHEMA_TEXT);
        assert_eq!(shown.chars().count(), MAX_SCHEMA_TEXT + 1);
        assert!(shown.ends_with('…'));
        assert_eq!(schema["description"], shown);
        assert_eq!(schema["properties"]["title"]["description"], shown);
        assert_eq!(
            schema["properties"]["items"]["items"]["anyOf"][0]["description"],
            shown
        );
        assert_eq!(
            schema["properties"]["title"]["enum"][0], long,
            "values are checked, not cut"
        );
        assert_eq!(schema["$defs"]["a"]["title"], "short");
        assert_eq!(cut("kurz", 300), "kurz");
    }
}
