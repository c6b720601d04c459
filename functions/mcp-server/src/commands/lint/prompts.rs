//! The lint's prompt and completion rules, judged on the deployed views: a prompt names only
//! tools some scope can reach (and says which profiles see it), every argument is documented
//! and bounded, a completion reads a low-risk list tool the prompt's or tool's scopes can call,
//! and each scope's `prompts/list` stays small.

use catalog::{Complete, Param, Risk};

use super::tool::unbounded;
use super::{Row, na, row};
use crate::inventory::{Inventory, Scope};
use crate::mcp::prompts;

/// The prompt rules, in the table's order: each prompt's tools, arguments and completions, the
/// exposed tools' completions, then each scope's `prompts/list` budget.
pub(super) fn rows(inventory: &Inventory) -> Vec<Row> {
    let mut rows = Vec::new();
    let profiles: Vec<Scope> = inventory
        .profiles
        .names()
        .map(|n| Scope::Profile(n.to_string()))
        .collect();
    for (_, p) in inventory.registry.prompts() {
        rows.push(tools_row(inventory, &profiles, p));
        rows.push(arguments_row(p));
        rows.extend(completion_rows(inventory, &p.name, p.arguments.iter()));
    }
    for (_, t) in inventory.registry.exposed() {
        rows.extend(completion_rows(
            inventory,
            &t.name,
            t.params.iter().map(|(n, p)| (n, &**p)),
        ));
    }
    rows.extend(budget_rows(inventory));
    rows
}

/// `prompt_tools`: a prompt names only tools some client can call, and says which profiles
/// show it.
fn tools_row(inventory: &Inventory, profiles: &[Scope], p: &catalog::Prompt) -> Row {
    let unreachable: Vec<&str> = p
        .tools
        .iter()
        .filter(|t| inventory.registry.find(t).is_none())
        .map(catalog::Text::as_str)
        .collect();
    let seen_by: Vec<&str> = profiles
        .iter()
        .filter(|s| inventory.view(s).allows_prompt(&p.name))
        .filter_map(Scope::profile)
        .collect();
    row(
        "prompt_tools",
        p.name.to_string(),
        unreachable.is_empty(),
        if unreachable.is_empty() {
            let profiles = if profiles.is_empty() {
                "no profiles configured".to_string()
            } else if seen_by.is_empty() {
                "shown in no profile".to_string()
            } else {
                format!("shown in profiles {}", seen_by.join(", "))
            };
            format!("names {} ({profiles})", p.tools.join(", "))
        } else {
            format!(
                "names tools no client can call (forbidden, raw or missing): {}",
                unreachable.join(", ")
            )
        },
    )
}

/// `prompt_arguments`: every argument is described and bounded.
fn arguments_row(p: &catalog::Prompt) -> Row {
    let undocumented: Vec<&str> = p
        .arguments
        .iter()
        .filter(|(_, a)| a.description.as_deref().is_none_or(|d| d.trim().is_empty()))
        .map(|(n, _)| n.as_str())
        .collect();
    let open: Vec<&str> = p
        .arguments
        .iter()
        .filter(|(_, a)| unbounded(a))
        .map(|(n, _)| n.as_str())
        .collect();
    row(
        "prompt_arguments",
        p.name.to_string(),
        undocumented.is_empty() && open.is_empty(),
        match (undocumented.is_empty(), open.is_empty()) {
            (true, true) => format!(
                "{} arguments, each described and bounded",
                p.arguments.len()
            ),
            _ => format!(
                "without a description: [{}]; without bounds: [{}]",
                undocumented.join(", "),
                open.join(", ")
            ),
        },
    )
}

/// `prompt_list_budget`: each scope's `prompts/list` (the deployment's, each profile's) stays
/// small.
fn budget_rows(inventory: &Inventory) -> Vec<Row> {
    let mut scopes: Vec<_> = prompts::build(inventory).into_iter().collect();
    scopes.sort_by_key(|(scope, _)| scope.profile().map(str::to_string));
    scopes
        .into_iter()
        .map(|(scope, listed)| {
            let bytes = prompts::bytes(&listed);
            let subject = match scope.profile() {
                Some(p) => format!("(profile {p})"),
                None => "(deployment)".into(),
            };
            if listed.is_empty() {
                na("prompt_list_budget", subject, "no prompts")
            } else {
                row(
                    "prompt_list_budget",
                    subject,
                    bytes <= prompts::MAX_BYTES,
                    format!(
                        "prompts/list: {bytes} B (max {}); {} prompts",
                        prompts::MAX_BYTES,
                        listed.len()
                    ),
                )
            }
        })
        .collect()
}

/// `completion_source`: each completable param reads an exposed, low-risk list tool.
fn completion_rows<'a>(
    inventory: &Inventory,
    subject: &str,
    params: impl Iterator<Item = (&'a catalog::Text, &'a Param)>,
) -> Vec<Row> {
    params
        .filter_map(|(name, p)| p.complete.as_ref().map(|c| (name, c)))
        .map(|(name, c)| {
            let problem = source_problem(inventory, c);
            row(
                "completion_source",
                subject.to_string(),
                problem.is_none(),
                match problem {
                    None => format!(
                        "`{name}` completes from {} ({} → {})",
                        c.from, c.match_field, c.value
                    ),
                    Some(p) => format!("`{name}`: {p}"),
                },
            )
        })
        .collect()
}

fn source_problem(inventory: &Inventory, c: &Complete) -> Option<String> {
    let Some((_, tool)) = inventory.registry.find(&c.from) else {
        return Some(format!(
            "{} cannot be called (forbidden, raw or missing)",
            c.from
        ));
    };
    if !tool.list || tool.risk != Risk::Low {
        return Some(format!("{} is not a low-risk list tool", c.from));
    }
    if !tool.fields.contains(&c.match_field) || !tool.fields.contains(&c.value) {
        return Some(format!(
            "{} has no field `{}` or `{}` in its `fields`",
            c.from, c.match_field, c.value
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::commands::lint::{Verdict, lint};
    use crate::config::{Config, EnvSnapshot};

    const CATALOG: &str = r#"
connector: t
base_url: "http://x"
list_envelope: { items: entries }
tools:
  - name: t_companies_list
    risk: low
    list: true
    description: 'Companies (Firmen). Use it to find ids. Example: {"page": 1}'
    get: /companies
    fields: [id, name]
  - name: t_company_delete
    risk: forbidden
    description: 'Never. Use the app itself.'
    delete: /companies/{id}
    params:
      id: { type: integer, in: path, min: 1 }
prompts:
  - name: t_cleanup
    description: Cleans up.
    tools: [t_company_delete]
    arguments:
      id: { type: integer, complete: { from: t_companies_list, match: name, value: id } }
    template:
      - { role: user, text: "Call t_company_delete with id {id}." }
"#;

    fn gaps(env: &[(&str, &str)]) -> Vec<(String, String)> {
        let config = Config::from(EnvSnapshot::from_pairs(env.iter().copied())).unwrap();
        let catalogs = vec![catalog::parse("t.yaml", CATALOG).unwrap()];
        lint(&catalogs, &config)
            .into_iter()
            .filter(|r| r.verdict == Verdict::Gap)
            .map(|r| (r.rule.to_string(), r.detail))
            .collect()
    }

    #[test]
    fn a_prompt_naming_a_forbidden_tool_or_an_undocumented_argument_is_a_gap() {
        let gaps = gaps(&[]);
        let rules: Vec<&str> = gaps.iter().map(|(r, _)| r.as_str()).collect();
        assert!(rules.contains(&"prompt_tools"), "{gaps:?}");
        assert!(rules.contains(&"prompt_arguments"), "{gaps:?}");
        assert!(!rules.contains(&"completion_source"), "{gaps:?}");
        let detail = &gaps
            .iter()
            .find(|(r, _)| r == "prompt_arguments")
            .unwrap()
            .1;
        assert!(detail.contains("without a description: [id]"), "{detail}");
        assert!(detail.contains("without bounds: [id]"), "{detail}");
    }
}
