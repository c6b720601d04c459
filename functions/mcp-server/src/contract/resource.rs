//! A get tool's record as an MCP resource: its URI template (`papierkram://invoices/{id}`) and
//! the arguments a concrete URI fills in. Bounded: a URI is at most [`MAX_URI_LEN`] characters
//! and a value only `[A-Za-z0-9_-]`, so nothing but an id reaches the tool's validation.

use catalog::{ParamType, Tool};

use super::args::COMPLETED;
use serde_json::{Map, Value};

pub(crate) const MAX_URI_LEN: usize = 256;
const MAX_VALUE_LEN: usize = 64;

/// The tool's arguments for `uri` when it matches the tool's template.
pub(crate) fn arguments(tool: &Tool, uri: &str) -> Option<Map<String, Value>> {
    let template = tool.resource.as_deref()?;
    if uri.len() > MAX_URI_LEN {
        return None;
    }
    let mut rest = uri;
    let mut args = Map::new();
    let mut literal = template;
    loop {
        let Some(open) = literal.find('{') else {
            return (rest == literal).then_some(args);
        };
        rest = rest.strip_prefix(&literal[..open])?;
        let close = open + literal[open..].find('}')?;
        let name = &literal[open + 1..close];
        literal = &literal[close + 1..];
        // A value runs to the next literal character (a `/`), or to the end.
        let end = match literal.chars().next() {
            Some(c) => rest.find(c).unwrap_or(rest.len()),
            None => rest.len(),
        };
        let value = completed(tool, name, &rest[..end]);
        rest = &rest[end..];
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-');
        if value.is_empty() || value.len() > MAX_VALUE_LEN || !value.chars().all(plain) {
            return None;
        }
        let typed = match tool.params.get(name).map(|p| p.kind) {
            Some(ParamType::Integer) => Value::from(value.parse::<i64>().ok()?),
            _ => Value::from(value.as_ref()),
        };
        args.insert(name.to_string(), typed);
    }
}

/// A URI value as a param declaring `complete` takes it: a completion value as offered
/// (`101 · Acme GmbH`, as sent or percent-encoded by the client's template expansion) is the
/// value before the separator; anything else is the value as written, checked as before.
fn completed<'a>(tool: &Tool, name: &str, value: &'a str) -> std::borrow::Cow<'a, str> {
    let completable = tool.params.get(name).is_some_and(|p| p.complete.is_some());
    let decoded = percent_encoding::percent_decode_str(value).decode_utf8();
    match decoded {
        Ok(text) if completable => match text.split_once(COMPLETED) {
            Some((value, _)) => std::borrow::Cow::Owned(value.trim().to_string()),
            None => std::borrow::Cow::Borrowed(value),
        },
        _ => std::borrow::Cow::Borrowed(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(resource: &str, path: &str) -> Tool {
        let yaml = format!(
            r#"
connector: t
base_url: "http://x"
list_envelope: {{ items: entries }}
tools:
  - name: t_person_get
    risk: low
    description: d
    get: {path}
    resource: "{resource}"
    params:
      company_id: {{ type: integer, in: path, min: 1 }}
      id: {{ type: integer, in: path, min: 1, complete: {{ from: t_people_list, match: name, value: id }} }}
  - name: t_people_list
    risk: low
    list: true
    description: d
    get: /people
    fields: [id, name]
"#
        );
        catalog::parse("t.yaml", &yaml).unwrap().tools.remove(0)
    }

    #[test]
    fn a_uri_fills_the_templates_parameters_typed() {
        let t = tool(
            "t://companies/{company_id}/persons/{id}",
            "/c/{company_id}/p/{id}",
        );
        let args = arguments(&t, "t://companies/7/persons/42").unwrap();
        assert_eq!(args["company_id"], 7);
        assert_eq!(args["id"], 42);
    }

    #[test]
    fn anything_else_matches_nothing() {
        let t = tool(
            "t://companies/{company_id}/persons/{id}",
            "/c/{company_id}/p/{id}",
        );
        for uri in [
            "t://companies/7/persons/",
            "t://companies/7/persons/42/more",
            "t://companies/x/persons/42",
            "t://companies/7/people/42",
            "u://companies/7/persons/42",
            "t://companies/../persons/42",
            "t://companies/7%2F8/persons/42",
        ] {
            assert_eq!(arguments(&t, uri), None, "{uri}");
        }
        let long = format!("t://companies/1/persons/{}", "9".repeat(300));
        assert_eq!(arguments(&t, &long), None);
    }

    #[test]
    fn a_completed_value_names_its_record_by_the_value_before_the_name() {
        let t = tool(
            "t://companies/{company_id}/persons/{id}",
            "/c/{company_id}/p/{id}",
        );
        for uri in [
            "t://companies/7/persons/42 · Jana Berg",
            "t://companies/7/persons/42%20%C2%B7%20Jana%20Berg",
        ] {
            assert_eq!(arguments(&t, uri).unwrap()["id"], 42, "{uri}");
        }
        // Only a param declaring `complete` takes the form, and only with a plain value.
        for uri in [
            "t://companies/7 · Acme/persons/42",
            "t://companies/7/persons/4%2F2 · Jana",
            "t://companies/7/persons/Jana Berg",
        ] {
            assert_eq!(arguments(&t, uri), None, "{uri}");
        }
    }
}
