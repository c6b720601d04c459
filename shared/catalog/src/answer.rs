//! Answers other than JSON (`answer.binary`) and list items as links (`links`): their
//! behaviour and the loader's checks, over the serde types in `model`.

use serde_json::Value;

use crate::model::{BinaryAnswer, BinaryForm, Catalog, InlineDocument, ItemLinks, ParamIn, Tool};
use crate::template::placeholders;

/// The largest document a catalog may declare: a base64 blob of it stays within what a
/// Lambda may answer (6 MB) only up to about 4 MiB, but a link read is the same size, so the
/// bound is the response cap of any reply, 16 MiB.
pub const MAX_BINARY_BYTES: usize = 16 * 1024 * 1024;

impl BinaryAnswer {
    /// Whether an answer's content type (parameters such as `; charset` ignored, any case) is
    /// one of the declared types.
    pub fn accepts(&self, content_type: &str) -> bool {
        let essence = essence(content_type);
        self.mime.iter().any(|m| match m.strip_suffix("/*") {
            Some(kind) => essence
                .split_once('/')
                .is_some_and(|(k, sub)| k == kind && !sub.is_empty()),
            None => *m == essence,
        })
    }
}

/// `Application/PDF; name=x` → `application/pdf`.
pub fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

impl ItemLinks {
    /// The record URI of one list item and its title, when the item has every field the
    /// template names as a plain value (a string of `[A-Za-z0-9_-]` or a number).
    pub fn of_item(&self, item: &Value) -> Option<(String, Option<String>)> {
        let mut uri = self.uri.to_string();
        for name in placeholders(&self.uri) {
            let value = match item.get(name)? {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => return None,
            };
            let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-');
            if value.is_empty() || value.len() > 64 || !value.chars().all(plain) {
                return None;
            }
            uri = uri.replace(&format!("{{{name}}}"), &value);
        }
        let title = self
            .title
            .as_deref()
            .and_then(|f| item.get(f))
            .and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            });
        Some((uri, title))
    }
}

/// A binary answer is a get tool's one document; a link needs the tool's own `resource`
/// template to point at. Item links fill a record template of this catalog from fields a list
/// item has.
pub(crate) fn tool_problems(c: &Catalog, t: &Tool) -> Vec<String> {
    let mut problems = binary_problems(t);
    problems.extend(inline_problems(t));
    problems.extend(crate::parts::problems(t));
    problems.extend(link_problems(c, t));
    problems
}

/// `answer.binary`: a get tool's one document of named types and a bounded size.
fn binary_problems(t: &Tool) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(binary) = t.answer.as_ref().and_then(|a| a.binary.as_ref()) else {
        return problems;
    };
    if t.get.is_none() || t.list || t.raw || t.aggregate.is_some() {
        problems.push(
            "answer.binary is a get tool's one document (not a list, raw, write or \
             aggregate tool)"
                .into(),
        );
    }
    if binary.mime.is_empty() {
        problems.push("answer.binary.mime names no content type".into());
    }
    for m in &binary.mime {
        if !valid_mime(m) {
            problems.push(format!(
                "answer.binary.mime `{m}` is no lower-case `type/subtype` or `type/*`"
            ));
        }
    }
    if binary.max_bytes == 0 || binary.max_bytes > MAX_BINARY_BYTES {
        problems.push(format!(
            "answer.binary.max_bytes must be 1 to {MAX_BINARY_BYTES}"
        ));
    }
    if binary.form == BinaryForm::Link && t.resource.is_none() {
        problems.push(
            "answer.binary `as: link` needs the tool's `resource` template: the link points \
             at it and resources/read reads the document through it"
                .into(),
        );
    }
    problems
}

/// `answer.inline`: documents inside a get tool's one JSON record, each at a pointer.
fn inline_problems(t: &Tool) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(answer) = &t.answer else {
        return problems;
    };
    let declared = [
        answer.binary.is_some(),
        !answer.inline.is_empty(),
        answer.text.is_some(),
        answer.parts.is_some(),
    ];
    if declared.into_iter().filter(|d| *d).count() != 1 {
        problems.push("answer declares one of `binary`, `inline`, `text` and `parts`".into());
    }
    if let Some(text) = &answer.text
        && !text.starts_with('/')
    {
        problems.push(format!(
            "answer.text `{text}` must be a JSON pointer starting with `/`"
        ));
    }
    if !answer.inline.is_empty() && (t.get.is_none() || t.list || t.raw) {
        problems.push("answer.inline is for a get tool's one JSON record".into());
    }
    for doc in &answer.inline {
        if !doc.pointer.starts_with('/') {
            problems.push(format!(
                "answer.inline pointer `{}` must start with `/`",
                doc.pointer
            ));
        }
        let fixed_mime = valid_mime(&doc.mime) && !doc.mime.ends_with("/*");
        if !fixed_mime && !names_a_param(t, &doc.mime) {
            problems.push(format!(
                "answer.inline mime `{}` is no lower-case `type/subtype` nor `{{param}}` of the tool",
                doc.mime
            ));
        }
        if let Some(name) = &doc.name
            && (name.is_empty() || (name.contains('{') && !names_a_param(t, name)))
        {
            problems.push(format!(
                "answer.inline name `{name}` is no fixed file name nor `{{param}}` of the tool"
            ));
        }
        if doc.max_bytes == 0 || doc.max_bytes > MAX_BINARY_BYTES {
            problems.push(format!(
                "answer.inline max_bytes must be 1 to {MAX_BINARY_BYTES}"
            ));
        }
    }
    problems.extend(answer_params_placed(t));
    problems
}

/// `in: answer` params: each one named as `{param}` in an `answer.inline` document's `mime` or
/// `name`, the only place such a value goes.
fn answer_params_placed(t: &Tool) -> Vec<String> {
    let used = |name: &str| {
        let whole = format!("{{{name}}}");
        let inline = t.answer.iter().flat_map(|a| &a.inline);
        inline
            .into_iter()
            .any(|d| *d.mime == *whole || d.name.as_deref() == Some(&*whole))
    };
    t.params
        .iter()
        .filter(|(name, p)| p.location == ParamIn::Answer && !used(name))
        .map(|(name, _)| {
            format!(
                "param `{name}` is `in: answer` but no `answer.inline` document's `mime` or \
                 `name` is `{{{name}}}`"
            )
        })
        .collect()
}

/// `{param}` naming one of the tool's params, the whole text.
fn names_a_param(t: &Tool, text: &str) -> bool {
    text.strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'))
        .is_some_and(|p| t.params.contains_key(p))
}

impl InlineDocument {
    /// The document's content type and file name for one call: fixed, or the argument a
    /// `{param}` names (`arg` answers it). A content type that is no `type/subtype` (or none
    /// given) is `application/octet-stream`: the caller's word is never trusted further.
    pub fn resolve(&self, arg: impl Fn(&str) -> Option<String>) -> (String, Option<String>) {
        let value = |text: &str| match text.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            Some(param) => arg(param),
            None => Some(text.to_string()),
        };
        let mime = value(&self.mime)
            .map(|m| essence(&m))
            .filter(|m| valid_mime(m) && !m.ends_with("/*"))
            .unwrap_or_else(|| "application/octet-stream".to_string());
        let name = self
            .name
            .as_deref()
            .and_then(value)
            .filter(|n| !n.is_empty());
        (mime, name)
    }
}

/// `links`: a list tool's items link to a record template of this catalog, from listed fields.
fn link_problems(c: &Catalog, t: &Tool) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(links) = &t.links else {
        return problems;
    };
    if !t.list {
        problems.push("links are for list tools: each item links to its record".into());
    }
    let known = c
        .tools
        .iter()
        .any(|o| o.resource.as_deref() == Some(links.uri.as_str()));
    if !known {
        problems.push(format!(
            "links.uri `{}` is no `resource` template of a get tool of this catalog",
            links.uri
        ));
    }
    if !t.fields.is_empty() {
        let named = placeholders(&links.uri).into_iter();
        for field in named.chain(links.title.as_deref()) {
            if !t.fields.iter().any(|f| f == field) {
                problems.push(format!(
                    "links names `{field}`, which is not in the tool's `fields`"
                ));
            }
        }
    }
    problems
}

fn valid_mime(m: &str) -> bool {
    let Some((kind, sub)) = m.split_once('/') else {
        return false;
    };
    let word = |s: &str, first: fn(char) -> bool| {
        s.chars().next().is_some_and(first)
            && s.chars().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '+' | '-')
            })
    };
    word(kind, |c| c.is_ascii_lowercase())
        && (sub == "*" || word(sub, |c| c.is_ascii_lowercase() || c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn binary(mime: &[&str]) -> BinaryAnswer {
        BinaryAnswer {
            mime: mime.iter().map(|m| crate::Text::from(*m)).collect(),
            max_bytes: 10,
            form: BinaryForm::Resource,
            redirect: false,
        }
    }

    #[test]
    fn content_types_match_exactly_or_by_kind_without_parameters() {
        let pdf = binary(&["application/pdf"]);
        assert!(pdf.accepts("application/pdf"));
        assert!(pdf.accepts("Application/PDF; name=\"x.pdf\""));
        assert!(!pdf.accepts("application/pdfx"));
        assert!(!pdf.accepts("text/html"));
        let images = binary(&["image/*"]);
        assert!(images.accepts("image/png"));
        assert!(!images.accepts("image/"));
        assert!(!images.accepts("imagex/png"));
    }

    #[test]
    fn an_item_link_fills_the_template_from_plain_values_only() {
        let links = ItemLinks {
            uri: "t://companies/{company_id}/persons/{id}".into(),
            title: Some("name".into()),
        };
        assert_eq!(
            links.of_item(&json!({"company_id": 7, "id": "42", "name": "Ada"})),
            Some(("t://companies/7/persons/42".into(), Some("Ada".into())))
        );
        assert_eq!(links.of_item(&json!({"id": 42})), None);
        assert_eq!(
            links.of_item(&json!({"company_id": "7/../8", "id": 1})),
            None
        );
        assert_eq!(
            links.of_item(&json!({"company_id": 1, "id": 2})),
            Some(("t://companies/1/persons/2".into(), None))
        );
    }

    #[test]
    fn mime_patterns_are_lower_case_type_and_subtype() {
        for ok in [
            "application/pdf",
            "image/*",
            "application/vnd.ms-excel",
            "image/svg+xml",
        ] {
            assert!(valid_mime(ok), "{ok}");
        }
        for bad in [
            "pdf",
            "*/*",
            "Application/pdf",
            "image/",
            "/pdf",
            "image/png; q=1",
        ] {
            assert!(!valid_mime(bad), "{bad}");
        }
    }

    #[test]
    fn an_answer_param_must_name_an_inline_document() {
        let tool = |name: &str| {
            format!(
                "connector: mail\nbase_url: https://m\ntools:\n  - name: mail_file_get\n    \
                 risk: low\n    description: d\n    get: /files/{{id}}\n    params:\n      \
                 id: {{ type: string, in: path }}\n      kind: {{ type: string, in: answer }}\n    \
                 answer: {{ inline: [{{ pointer: /data, mime: \"{{kind}}\", name: \"{name}\", \
                 max_bytes: 100 }}] }}\n"
            )
        };
        let ok = crate::parse("mail.yaml", &tool("a.pdf")).unwrap();
        assert_eq!(ok.tools[0].params["kind"].location, ParamIn::Answer);
        let unused = tool("a.pdf").replace("mime: \"{kind}\"", "mime: application/pdf");
        let e = crate::parse("mail.yaml", &unused).unwrap_err().to_string();
        assert!(e.contains("`kind` is `in: answer` but no"), "{e}");
    }

    fn resolved(doc: &InlineDocument, given: &[(&str, &str)]) -> (String, Option<String>) {
        doc.resolve(|p| {
            given
                .iter()
                .find(|(k, _)| *k == p)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn an_inline_documents_type_and_name_come_from_the_call_when_it_names_params() {
        let doc = InlineDocument {
            pointer: "/data".into(),
            mime: "{mime_type}".into(),
            name: Some("{filename}".into()),
            max_bytes: 10,
        };
        assert_eq!(
            resolved(
                &doc,
                &[("mime_type", "Application/PDF"), ("filename", "a.pdf")]
            ),
            ("application/pdf".into(), Some("a.pdf".into()))
        );
        for odd in ["text/*", "no type", "<script>/x"] {
            let (mime, _) = resolved(&doc, &[("mime_type", odd)]);
            assert_eq!(mime, "application/octet-stream", "{odd}");
        }
        assert_eq!(
            resolved(&doc, &[]),
            ("application/octet-stream".into(), None)
        );
        let fixed = InlineDocument {
            mime: "image/png".into(),
            name: None,
            ..doc
        };
        assert_eq!(resolved(&fixed, &[]), ("image/png".into(), None));
    }
}
