//! Prompts and completions in the catalog (declared in `model/prompt.rs` and `model/param.rs`): a
//! prompt is a named, described message template with typed arguments (the same `Param` model as
//! tool parameters) that names the tools to use; a `Complete` on a param says where its values can
//! be looked up (`completion/complete`). Here: what a prompt's template holds, and the structural
//! checks ([`problems`]), so the loader only calls them.

use std::collections::BTreeSet;

use crate::model::{Catalog, Complete, ParamIn, ParamType, Prompt, Tool};

/// The largest image a prompt message carries: prompts/get answers stay small.
pub(crate) const MAX_PROMPT_IMAGE: usize = 64 * 1024;

impl Prompt {
    /// The placeholders of every message, in order (repeats kept).
    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.template.iter().flat_map(|m| {
            let resource = m.resource.iter().flat_map(|r| {
                crate::placeholders(&r.uri)
                    .into_iter()
                    .chain(crate::placeholders(&r.text))
            });
            crate::placeholders(&m.text).into_iter().chain(resource)
        })
    }
}

/// The rules on one prompt, in the order their problems are reported.
const PROMPT: &[fn(&Catalog, &Prompt) -> Vec<String>] = &[
    declared_once,
    named_in_the_connectors_space,
    has_words_messages_and_tools,
    messages_carry_one_plain_attachment,
    tools_are_declared_and_mentioned,
    placeholders_are_arguments,
    arguments_are_used_and_plain,
];

/// Every structural problem of the catalog's prompts and completions, as (prompt or tool name,
/// problem).
pub(crate) fn problems(c: &Catalog) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in &c.prompts {
        let problems = PROMPT.iter().flat_map(|rule| rule(c, p));
        out.extend(problems.map(|problem| (p.name.to_string(), problem)));
    }
    for t in &c.tools {
        for (name, param) in &t.params {
            if let Some(complete) = &param.complete {
                for problem in complete_problems(c, complete) {
                    out.push((t.name.to_string(), format!("param `{name}`: {problem}")));
                }
            }
        }
    }
    out
}

/// Said of the second and every later prompt of one name, not the first.
fn declared_once(c: &Catalog, p: &Prompt) -> Vec<String> {
    let mut earlier = c.prompts.iter().take_while(|q| !std::ptr::eq(*q, p));
    if earlier.any(|q| q.name == p.name) {
        return vec![format!("prompt `{}` is declared twice", p.name)];
    }
    Vec::new()
}

fn named_in_the_connectors_space(c: &Catalog, p: &Prompt) -> Vec<String> {
    let prefix = format!("{}_", c.connector);
    if !p.name.starts_with(&prefix)
        || p.name.len() > crate::MAX_TOOL_NAME
        || !p.name[prefix.len().min(p.name.len())..]
            .split('_')
            .all(|w| {
                !w.is_empty()
                    && w.chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit())
            })
    {
        return vec![format!(
            "prompt `{}` must be `{prefix}<words>`: lower-case words joined by `_`, at most {} characters",
            p.name,
            crate::MAX_TOOL_NAME
        )];
    }
    Vec::new()
}

fn has_words_messages_and_tools(_: &Catalog, p: &Prompt) -> Vec<String> {
    let mut out = Vec::new();
    if p.description.trim().is_empty() {
        out.push("a prompt needs a description".into());
    }
    if p.template.is_empty() {
        out.push("a prompt needs at least one message in `template`".into());
    }
    if p.tools.is_empty() {
        out.push("a prompt names the tools it uses in `tools`".into());
    }
    out
}

/// A message carries a `resource` (a non-empty text document) or a small base64 `image`.
fn messages_carry_one_plain_attachment(_: &Catalog, p: &Prompt) -> Vec<String> {
    let mut out = Vec::new();
    for m in &p.template {
        if m.resource.is_some() && m.image.is_some() {
            out.push("a message carries a `resource` or an `image`, not both".into());
        }
        if let Some(r) = &m.resource
            && (!r.mime_type.starts_with("text/") || r.text.is_empty())
        {
            out.push("a message's `resource` is a non-empty `text/*` document".into());
        }
        if let Some(i) = &m.image {
            let decoded = i.data.len() / 4 * 3;
            let base64 = i
                .data
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
            if !i.mime_type.starts_with("image/")
                || i.data.is_empty()
                || i.data.len() % 4 != 0
                || !base64
                || decoded > MAX_PROMPT_IMAGE
            {
                out.push(format!(
                    "a message's `image` is an `image/*` type with base64 `data` of at most {MAX_PROMPT_IMAGE} bytes"
                ));
            }
        }
    }
    out
}

/// Each tool in `tools` is this catalog's, and some message names it.
fn tools_are_declared_and_mentioned(c: &Catalog, p: &Prompt) -> Vec<String> {
    let text: String = p
        .template
        .iter()
        .map(|m| m.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    for tool in &p.tools {
        if !c.tools.iter().any(|t| &t.name == tool) {
            out.push(format!(
                "`tools` names `{tool}`, which this catalog does not declare"
            ));
        } else if !text.contains(tool.as_str()) {
            out.push(format!(
                "`tools` names `{tool}`, but no message mentions it"
            ));
        }
    }
    out
}

fn placeholders_are_arguments(_: &Catalog, p: &Prompt) -> Vec<String> {
    let used: BTreeSet<&str> = p.placeholders().collect();
    let unknown = used
        .into_iter()
        .filter(|name| !p.arguments.contains_key(name));
    unknown
        .map(|name| format!("the template uses {{{name}}}, which is no argument"))
        .collect()
}

/// Each argument is used, a plain value, and completed from a fitting list tool.
fn arguments_are_used_and_plain(c: &Catalog, p: &Prompt) -> Vec<String> {
    let used: BTreeSet<&str> = p.placeholders().collect();
    let mut out = Vec::new();
    for (name, arg) in p.arguments.iter() {
        if !used.contains(name.as_str()) {
            out.push(format!("argument `{name}` is never used in the template"));
        }
        if arg.kind == ParamType::Array
            || arg.location != ParamIn::Query
            || arg.upstream.is_some()
            || arg.values.is_some()
            || arg.ask.is_some()
        {
            out.push(format!(
                "argument `{name}`: a prompt argument is a plain string, integer, number, boolean or date (no `in`, `as`, `values`, `ask` or arrays)"
            ));
        }
        if let Some(complete) = &arg.complete {
            for problem in complete_problems(c, complete) {
                out.push(format!("argument `{name}`: {problem}"));
            }
        }
    }
    out
}

/// A completion's source is a list tool of the catalog whose `fields` hold `match` and `value`,
/// and whose `query` (if any) is one of its string params.
fn complete_problems(c: &Catalog, complete: &Complete) -> Vec<String> {
    let Some(source) = c.tools.iter().find(|t| t.name == complete.from) else {
        return vec![format!(
            "complete.from `{}` is no tool of this catalog",
            complete.from
        )];
    };
    let mut out = Vec::new();
    if !source.list || source.get.is_none() || source.raw {
        out.push(format!(
            "complete.from `{}` must be a list tool (one GET page of items)",
            complete.from
        ));
    }
    for (key, field) in [("match", &complete.match_field), ("value", &complete.value)] {
        if !source.fields.contains(field) {
            out.push(format!(
                "complete.{key} `{field}` is not in the `fields` of `{}`",
                complete.from
            ));
        }
    }
    if let Some(query) = &complete.query
        && !is_string_param(source, query)
    {
        out.push(format!(
            "complete.query `{query}` is not a string param of `{}`",
            complete.from
        ));
    }
    out
}

fn is_string_param(tool: &Tool, name: &str) -> bool {
    tool.params
        .get(name)
        .is_some_and(|p| p.kind == ParamType::String)
}

#[cfg(test)]
mod tests {
    const BASE: &str = r#"
connector: demo
base_url: "https://x/api"
list_envelope: { items: entries }
tools:
  - name: demo_companies_list
    risk: low
    list: true
    description: 'Companies. Example {"page": 1}'
    get: /companies
    fields: [id, name]
    params:
      search: { type: string, description: "Name part." }
  - name: demo_company_get
    risk: low
    description: 'One company. Example {"id": 1}'
    get: /companies/{id}
    resource: "demo://companies/{id}"
    params:
      id: { type: integer, in: path, min: 1, complete: { from: demo_companies_list, match: name, value: id } }
"#;

    fn with_prompt(prompt: &str) -> Result<crate::Catalog, String> {
        crate::parse("demo.yaml", &format!("{BASE}prompts:\n{prompt}")).map_err(|e| e.to_string())
    }

    const GOOD: &str = r#"
  - name: demo_company_review
    description: Reviews a company.
    tools: [demo_company_get]
    arguments:
      id: { type: integer, min: 1, required: true, description: "Company.", complete: { from: demo_companies_list, match: name, value: id, query: search } }
    template:
      - { role: user, text: "Call demo_company_get with id {id}." }
"#;

    #[test]
    fn a_message_carries_one_text_document_or_one_base64_image() {
        let with = |extra: &str| {
            with_prompt(&GOOD.replace(
                "      - { role: user, text: \"Call demo_company_get with id {id}.\" }\n",
                &format!(
                    "      - role: user\n        text: \"Call demo_company_get with id {{id}}.\"\n{extra}"
                ),
            ))
        };
        let c = with("        resource: { uri: \"demo://companies/{id}\", mime_type: text/plain, text: \"Company {id}.\" }\n")
            .unwrap();
        assert_eq!(
            c.prompts[0].placeholders().collect::<Vec<_>>(),
            ["id", "id", "id"]
        );
        assert!(with("        image: { mime_type: image/png, data: iVBORw0KGgo= }\n").is_ok());
        for (extra, says) in [
            (
                "        image: { mime_type: image/png, data: \"not base64!\" }\n",
                "base64 `data`",
            ),
            (
                "        resource: { uri: \"demo://x\", mime_type: application/pdf, text: x }\n",
                "`text/*` document",
            ),
            (
                "        resource: { uri: \"demo://x\", mime_type: text/plain, text: x }\n        image: { mime_type: image/png, data: iVBORw0KGgo= }\n",
                "not both",
            ),
        ] {
            let err = with(extra).unwrap_err();
            assert!(err.contains(says), "{extra}: {err}");
        }
    }

    #[test]
    fn a_prompt_with_typed_completable_arguments_loads() {
        let c = with_prompt(GOOD).unwrap();
        assert_eq!(c.prompts[0].placeholders().collect::<Vec<_>>(), ["id"]);
        assert!(c.prompts[0].arguments.get("id").unwrap().complete.is_some());
    }

    #[test]
    fn arguments_keep_the_declared_order_and_a_name_once() {
        let two = GOOD
            .replace(
                "    template:",
                "      after: { type: string, max_length: 9, description: \"Z.\" }\n    template:",
            )
            .replace("with id {id}.", "with id {id} {after}.");
        let c = with_prompt(&two).unwrap();
        let names: Vec<&crate::Text> = c.prompts[0].arguments.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["id", "after"]);
        let twice = two.replace("after: {", "id: {");
        assert!(with_prompt(&twice).unwrap_err().contains("`id`"));
    }

    #[test]
    fn placeholders_tools_and_names_are_checked() {
        for (change, problem) in [
            (("{id}.", "{ident}."), "{ident}, which is no argument"),
            (
                ("with id {id}.", "with id 7."),
                "argument `id` is never used",
            ),
            (
                ("tools: [demo_company_get]", "tools: [demo_invoice_get]"),
                "`demo_invoice_get`, which this catalog does not declare",
            ),
            (
                (
                    "tools: [demo_company_get]",
                    "tools: [demo_company_get, demo_companies_list]",
                ),
                "`demo_companies_list`, but no message mentions it",
            ),
            (
                ("name: demo_company_review", "name: company_review"),
                "must be `demo_<words>`",
            ),
            (
                ("match: name", "match: title"),
                "complete.match `title` is not in the `fields`",
            ),
            (
                ("from: demo_companies_list", "from: demo_company_get"),
                "must be a list tool",
            ),
            (
                ("query: search", "query: name"),
                "complete.query `name` is not a string param",
            ),
        ] {
            let err = with_prompt(&GOOD.replace(change.0, change.1)).unwrap_err();
            assert!(err.contains(problem), "{change:?}: {err}");
        }
    }

    #[test]
    fn prompt_names_are_unique_across_catalogs() {
        let a = format!("{BASE}prompts:\n{GOOD}");
        let b = a
            .replace("connector: demo", "connector: demo2")
            .replace("demo_comp", "demo2_comp")
            .replace("demo://", "demo2://")
            .replace("name: demo2_company_review", "name: demo_company_review");
        // The second catalog's prompt keeps the first one's name: refused by its own prefix
        // rule, and across catalogs by the uniqueness check.
        let err = crate::load_sources(&[("a.yaml", &a), ("b.yaml", &b)]).unwrap_err();
        assert!(err.to_string().contains("demo_company_review"), "{err}");
    }
}
