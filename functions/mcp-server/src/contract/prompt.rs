//! A catalog prompt rendered for `prompts/get`: its arguments validated like a tool call's
//! (`args::validate_params`, the one validator), then every `{argument}` in its template filled
//! with the normalised value. Pure: catalog data in, plain messages out.

use catalog::{Prompt, PromptRole};
use serde_json::{Map, Value};

use super::args::{self, Invalid};

/// One rendered message: its text, and what it carries after it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    pub role: PromptRole,
    pub text: String,
    pub carries: Option<Carried>,
}

/// A document or image a message carries, filled in.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Carried {
    Resource {
        uri: String,
        mime_type: String,
        text: String,
    },
    Image {
        mime_type: String,
        data: String,
    },
}

/// The prompt's messages for these arguments, or why the arguments were refused. Clients send
/// prompt arguments as strings, and a form's empty field as `""`: an empty string counts as
/// not given.
pub(crate) fn render(
    prompt: &Prompt,
    arguments: &Map<String, Value>,
) -> Result<Vec<Message>, Invalid> {
    let given: Map<String, Value> = arguments
        .iter()
        .filter(|(_, v)| !matches!(v, Value::String(s) if s.trim().is_empty()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let values = args::validate_params(prompt.arguments.iter(), &given)?;
    let value = |name: &str| values.get(name).map_or_else(String::new, text_of);
    Ok(prompt
        .template
        .iter()
        .map(|m| Message {
            role: m.role,
            text: fill(&m.text, value),
            carries: match (&m.resource, &m.image) {
                (Some(r), _) => Some(Carried::Resource {
                    uri: fill(&r.uri, value),
                    mime_type: r.mime_type.to_string(),
                    text: fill(&r.text, value),
                }),
                (None, Some(i)) => Some(Carried::Image {
                    mime_type: i.mime_type.to_string(),
                    data: i.data.to_string(),
                }),
                (None, None) => None,
            },
        })
        .collect())
}

/// A value as the text a model reads: strings without quotes, everything else as JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The template with each `{name}` replaced; the loader made sure every name is an argument.
fn fill(template: &str, value: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&value(&rest[open + 1..close]));
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prompt() -> Prompt {
        let yaml = r#"
connector: t
base_url: "http://x"
tools:
  - name: t_month_get
    risk: low
    description: d
    get: /m
prompts:
  - name: t_month_review
    description: Reviews a month.
    tools: [t_month_get]
    arguments:
      year: { type: integer, min: 2000, max: 2100, required: true, description: "Year." }
      month: { type: integer, min: 1, max: 12, required: true, description: "Month." }
      note: { type: string, max_length: 20, description: "Note." }
    template:
      - { role: user, text: "Call t_month_get for {year}-{month}. {note}" }
"#;
        catalog::parse("t.yaml", yaml).unwrap().prompts.remove(0)
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn string_arguments_are_typed_then_filled_in() {
        let m = render(
            &prompt(),
            &args(json!({"year": "2026", "month": "5", "note": "Hi"})),
        )
        .unwrap();
        assert_eq!(m[0].text, "Call t_month_get for 2026-5. Hi");
        assert_eq!(m[0].role, PromptRole::User);
    }

    #[test]
    fn a_carried_document_is_filled_in_like_the_text() {
        let yaml = r#"
connector: t
base_url: "http://x"
tools:
  - name: t_month_get
    risk: low
    description: d
    get: /m
prompts:
  - name: t_attached
    description: Carries a document.
    tools: [t_month_get]
    arguments:
      uri: { type: string, max_length: 60, required: true, description: "URI." }
    template:
      - role: user
        text: "Call t_month_get, see {uri}."
        resource: { uri: "{uri}", mime_type: text/plain, text: "About {uri}." }
"#;
        let p = catalog::parse("t.yaml", yaml).unwrap().prompts.remove(0);
        let m = render(&p, &args(json!({"uri": "t://x"}))).unwrap();
        assert_eq!(
            m[0].carries,
            Some(Carried::Resource {
                uri: "t://x".into(),
                mime_type: "text/plain".into(),
                text: "About t://x.".into()
            })
        );
    }

    #[test]
    fn an_empty_optional_argument_is_left_out() {
        let m = render(
            &prompt(),
            &args(json!({"year": 2026, "month": 5, "note": ""})),
        )
        .unwrap();
        assert_eq!(m[0].text, "Call t_month_get for 2026-5. ");
    }

    #[test]
    fn bad_arguments_get_the_tool_hints() {
        let hint = |v: Value| render(&prompt(), &args(v)).unwrap_err().hint;
        assert!(hint(json!({"year": 2026})).contains("Missing required argument `month`"));
        assert!(hint(json!({"year": 2026, "month": "13"})).contains("`month`"));
        assert!(
            hint(json!({"year": 2026, "month": 5, "mnth": 5})).contains("Did you mean `month`?")
        );
    }
}
