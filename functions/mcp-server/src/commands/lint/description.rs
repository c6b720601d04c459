//! The lint's `description` rule: what a model reads to pick a tool, with an example the
//! tool accepts.

use catalog::Tool;

use super::{Row, row};
use crate::contract::args;
use crate::contract::cursor::ListShape;

/// At least two sentences, aliases in parentheses, and an `Example: {…}` the tool accepts.
pub(super) fn description_row(t: &Tool, shape: ListShape, subject: String) -> Row {
    let d = t.description.trim();
    let mut problems = Vec::new();
    let sentences = d
        .split_terminator(['.', '!', '?'])
        .filter(|s| s.split_whitespace().count() >= 3)
        .count();
    if sentences < 2 {
        problems.push("fewer than two sentences".to_string());
    }
    let aliases = d
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .is_some_and(|(inside, _)| inside.contains(',') || inside.split_whitespace().count() >= 2);
    if !aliases {
        problems.push("no aliases in parentheses (the words users say)".into());
    }
    match d
        .find("Example")
        .map(|i| &d[i..])
        .and_then(|s| s.find('{').map(|j| &s[j..]))
    {
        None => problems.push("no `Example: {…}`".into()),
        Some(json) => match serde_json::Deserializer::from_str(json)
            .into_iter::<serde_json::Value>()
            .next()
        {
            Some(Ok(serde_json::Value::Object(example))) => {
                if let Err(e) = args::validate(t, shape, &example) {
                    problems.push(format!("the example is refused: {}", e.hint));
                }
            }
            _ => problems.push("the example is not a JSON object".into()),
        },
    }
    let detail = if problems.is_empty() {
        "what, when, aliases, example".to_string()
    } else {
        problems.join("; ")
    };
    row("description", subject, problems.is_empty(), detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::lint::Verdict;

    #[test]
    fn an_example_the_tool_refuses_is_a_gap() {
        let t: Tool = catalog::parse(
            "t.yaml",
            r#"
connector: t
base_url: "http://x"
tools:
  - name: t_thing_get
    risk: low
    description: 'Returns a thing (Ding, Sache). Use it when you know the id. Example: {"thing_id": 1}'
    get: /things/{id}
    params:
      id: { type: integer, in: path, min: 1 }
"#,
        )
        .unwrap()
        .tools
        .remove(0);
        let r = description_row(&t, ListShape::PAGES, "t_thing_get".into());
        assert_eq!(r.verdict, Verdict::Gap);
        assert!(r.detail.contains("Did you mean `id`?"), "{}", r.detail);
    }
}
