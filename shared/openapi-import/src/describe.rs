//! The description scaffold (what, when to use, aliases, example) with `CURATE:` markers the
//! lint refuses, and parameters the prose mentions but the operation does not declare.

use std::fmt::Write as _;

use catalog::{Param, ParamType, Params, SCAFFOLD_MARKER};

use crate::naming::snake;
use crate::schema::clean;

/// The first sentence of the summary (or description): what the tool does.
pub(crate) fn what(
    summary: Option<&str>,
    description: Option<&str>,
    method: &str,
    path: &str,
) -> String {
    let text = summary
        .map(clean)
        .filter(|s| !s.is_empty())
        .or_else(|| description.map(clean).filter(|s| !s.is_empty()));
    let Some(text) = text else {
        return format!("Calls {method} {path}.");
    };
    let first = text
        .split_inclusive(". ")
        .next()
        .unwrap_or(&text)
        .trim()
        .trim_end_matches('.')
        .to_string();
    format!("{first}.")
}

/// `<what> Use it when CURATE: …. (CURATE: aliases …) Example: {…}` — the example holds the
/// required parameters with typed sample values so a person only adjusts it.
pub(crate) fn scaffold(what: &str, params: &Params) -> String {
    let mut example = serde_json::Map::new();
    for (name, p) in params.iter().filter(|(_, p)| p.required) {
        example.insert(name.to_string(), sample(p));
    }
    let mut out = String::new();
    let _ = write!(
        out,
        "{what} Use it when {SCAFFOLD_MARKER} say when a model should pick this tool. \
         ({SCAFFOLD_MARKER} aliases, the words users say) Example: {}",
        serde_json::Value::Object(example)
    );
    out
}

fn sample(p: &Param) -> serde_json::Value {
    use serde_json::json;
    if let Some(d) = &p.default {
        return d.clone();
    }
    match p.kind {
        ParamType::String => match &p.choices {
            Some(c) if !c.is_empty() => json!(c[0]),
            _ => json!("example"),
        },
        ParamType::Integer => json!(p.min.map_or(1, |m| m.max(1.0) as i64)),
        ParamType::Number => json!(p.min.unwrap_or(1.0).max(1.0)),
        ParamType::Boolean => json!(true),
        ParamType::Date => json!("2025-01-31"),
        ParamType::Datetime => json!("2025-01-31T10:00:00+01:00"),
        ParamType::TimeZone => json!("Europe/Berlin"),
        ParamType::Array => json!([]),
    }
}

/// Names the prose uses as parameters (`?embed=`, "the parameter `embed`", "`embed` parameter")
/// that the operation does not declare: flagged for a person, never guessed into the tool.
pub(crate) fn prose_params(text: &str, declared: &[String]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut push = |raw: &str| {
        let name = raw
            .trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '[' && c != ']');
        let ok = name.len() >= 2
            && name.len() <= 40
            && name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_[]".contains(c));
        if ok
            && !declared.iter().any(|d| snake(d) == snake(name))
            && !found.iter().any(|f| snake(f) == snake(name))
        {
            found.push(name.to_string());
        }
    };
    // `?name=` and `&name=`.
    for (i, _) in text.match_indices(['?', '&']) {
        let rest = &text[i + 1..];
        if let Some((name, _)) = rest.split_once('=')
            && !name.is_empty()
            && !name.contains(char::is_whitespace)
        {
            push(name);
        }
    }
    // "parameter `name`" / "parameter 'name'" and "`name` parameter".
    let lower = text.to_ascii_lowercase();
    for (i, _) in lower.match_indices("parameter") {
        let after = text[i..]
            .trim_start_matches(|c: char| c.is_ascii_alphabetic())
            .trim_start();
        if let Some(q) = after.chars().next().filter(|c| "`'\"".contains(*c))
            && let Some(name) = after[1..].split(q).next()
        {
            push(name);
        }
        let before = text[..i].trim_end();
        let word = before.trim_end_matches(|c: char| !c.is_whitespace());
        let candidate = &before[word.len()..];
        if candidate.starts_with(['`', '\'', '"']) {
            let lowered = candidate.to_ascii_lowercase();
            if !matches!(
                lowered.trim_matches(['`', '\'', '"']),
                "query" | "path" | "body" | "header" | "the" | "this" | "a"
            ) {
                push(candidate);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scaffold_has_every_part_and_the_marker() {
        let params: Params = Params::from([(
            "invoice_id".into(),
            serde_json::from_value(
                serde_json::json!({"type": "integer", "in": "path", "required": true, "min": 1}),
            )
            .unwrap(),
        )]);
        let d = scaffold("Returns one invoice.", &params);
        assert!(
            d.starts_with("Returns one invoice. Use it when CURATE:"),
            "{d}"
        );
        assert!(d.contains("(CURATE: aliases"), "{d}");
        assert!(d.ends_with(r#"Example: {"invoice_id":1}"#), "{d}");
    }

    #[test]
    fn what_is_the_first_sentence_or_the_call() {
        assert_eq!(
            what(Some("Get invoices. More text."), None, "GET", "/x"),
            "Get invoices."
        );
        assert_eq!(what(None, None, "GET", "/x"), "Calls GET /x.");
    }

    #[test]
    fn prose_parameters_are_found_and_declared_ones_ignored() {
        let text = "Pass `?embed=contact` to embed it. The parameter `countAll` counts. \
                    Use the 'sinceDate' parameter to filter. The query parameter `limit` is declared.";
        let found = prose_params(text, &["limit".to_string()]);
        assert_eq!(found, ["embed", "countAll", "sinceDate"]);
    }
}
