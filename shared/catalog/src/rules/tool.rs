//! Rules on every tool: its name, its description, and how many HTTP mappings it has.

use std::collections::BTreeSet;

use crate::model::{Catalog, ParamIn, Tool};
use crate::template::placeholders;

/// The longest tool name clients accept (Claude's and OpenAI's tool-name limit).
pub const MAX_TOOL_NAME: usize = 64;

/// Said of the second and every later tool of one name, not the first.
pub(super) fn name_is_unique(c: &Catalog, t: &Tool) -> Vec<String> {
    let earlier = c.tools.iter().take_while(|u| !std::ptr::eq(*u, t));
    if earlier.into_iter().any(|u| u.name == t.name) {
        return vec!["duplicate tool name".into()];
    }
    Vec::new()
}

/// The connector first, so a model can tell which system a tool acts on.
pub(super) fn name_begins_with_the_connector(c: &Catalog, t: &Tool) -> Vec<String> {
    if let Some(by) = &c.names_fixed_by {
        // Someone else chose the names: only their shape is ours to check.
        if is_snake_case(&t.name) {
            return Vec::new();
        }
        return vec![format!(
            "name must be snake_case (lower-case words joined by `_`), even as {by} fixes it"
        )];
    }
    let rest = t
        .name
        .strip_prefix(c.connector.as_str())
        .and_then(|r| r.strip_prefix('_'));
    if rest.is_some_and(is_tool_name) {
        return Vec::new();
    }
    vec![format!(
        "name must be `{}_<resource>_<verb>` in snake_case: the connector first, so a \
         model can tell which system a tool acts on",
        c.connector
    )]
}

pub(super) fn name_fits_clients(_: &Catalog, t: &Tool) -> Vec<String> {
    if t.name.len() <= MAX_TOOL_NAME {
        return Vec::new();
    }
    vec![format!(
        "name is {} characters; clients accept at most {MAX_TOOL_NAME}",
        t.name.len()
    )]
}

pub(super) fn description_is_not_empty(_: &Catalog, t: &Tool) -> Vec<String> {
    if t.description.trim().is_empty() {
        return vec!["description is empty".into()];
    }
    Vec::new()
}

/// How many of get/post/put/patch/delete the tool declares.
pub(super) fn mappings(t: &Tool) -> usize {
    [&t.get, &t.post, &t.put, &t.patch, &t.delete]
        .iter()
        .filter(|m| m.is_some())
        .count()
}

/// A resource template names this connector's scheme and exactly the tool's path parameters,
/// on a get tool that reads one record.
pub(super) fn resource(c: &Catalog, t: &Tool) -> Vec<String> {
    let Some(template) = &t.resource else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    let prefix = format!("{}://", c.connector);
    if !template.starts_with(&prefix) {
        problems.push(format!("resource `{template}` must start with `{prefix}`"));
    }
    if t.get.is_none() || t.list || t.raw {
        problems
            .push("a resource is a get tool's one record (not a list, raw or write tool)".into());
    }
    let wanted: BTreeSet<&str> = t
        .params
        .iter()
        .filter(|(_, p)| p.location == ParamIn::Path)
        .map(|(n, _)| n.as_str())
        .collect();
    let named: BTreeSet<&str> = placeholders(template).into_iter().collect();
    // A tool without path parameters has one record: a fixed URI (`test://static-text`).
    if named != wanted {
        problems.push(format!(
            "resource `{template}` must name exactly the path parameters ({})",
            wanted.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    problems
}

/// `<resource>_<verb>` (after the connector's prefix): lower-case words joined by single underscores, at least two.
fn is_tool_name(name: &str) -> bool {
    name.split('_').count() >= 2 && is_snake_case(name)
}

/// Lower-case words (letters and digits, the first starting with a letter) joined by single
/// underscores.
fn is_snake_case(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.split('_').all(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_are_resource_and_verb() {
        assert!(is_tool_name("invoices_list") && is_tool_name("month_close_get"));
        for bad in [
            "invoices",
            "invoices_",
            "a__b",
            "_list",
            "Invoices_list",
            "1a_list",
        ] {
            assert!(!is_tool_name(bad), "{bad}");
        }
    }
}
