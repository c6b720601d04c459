//! The rule that keeps tool and prompt names apart across connectors: a name belongs to the
//! connector whose name, then `_`, begins it, the longest such when several do
//! (`test_logging_tool` is `test_logging`'s, not `test`'s). Connector names may nest like that
//! (the conformance suites need `test` beside `test_logging`), so a name a connector would give
//! itself inside a longer connector's space is refused: at load for what a catalog declares (its
//! tools, prompts and overlay names, [`problems`]), and skipped with a warning when a remote
//! lists it (a remote's names arrive at run time). No two connectors can then answer to one
//! name, and a call goes to exactly one connector.

use crate::model::Catalog;

/// Names the server gives its own tools (the meta tools and the person's connections): no
/// connector's tool may take them.
pub const RESERVED_TOOL_NAMES: &[&str] = &["search_tools", "call_tool", "connections"];

/// The connector a tool or prompt name belongs to: the longest of `connectors` that, followed
/// by `_`, begins `name`.
pub fn owner<'a>(connectors: impl IntoIterator<Item = &'a str>, name: &str) -> Option<&'a str> {
    connectors
        .into_iter()
        .filter(|c| {
            name.strip_prefix(c)
                .is_some_and(|rest| rest.starts_with('_'))
        })
        .max_by_key(|c| c.len())
}

/// Why `name`, given by `connector`, may not be used in a deployment of `connectors`: it is
/// reserved, or it belongs to another connector by the longest-prefix rule.
pub fn refusal<'a>(
    connectors: impl IntoIterator<Item = &'a str>,
    connector: &str,
    name: &str,
) -> Option<String> {
    if RESERVED_TOOL_NAMES.contains(&name) {
        return Some(format!(
            "`{name}` is the name of one of the server's own tools"
        ));
    }
    match owner(connectors, name) {
        Some(o) if o == connector => None,
        Some(o) => Some(format!(
            "`{name}` begins with `{o}_`, so it belongs to connector `{o}` (a name belongs to \
             the connector with the longest prefix) and could collide with its tools"
        )),
        None => Some(format!("`{name}` does not begin with `{connector}_`")),
    }
}

/// The first name a catalog of the set declares (tool, prompt, overlay name) that another
/// connector owns, as (the declaring connector, the problem).
pub(crate) fn problems(catalogs: &[Catalog]) -> Option<(String, String)> {
    let connectors: Vec<&str> = catalogs.iter().map(|c| c.connector.as_str()).collect();
    catalogs.iter().find_map(|c| {
        let tools = c.tools.iter().map(|t| ("tool", t.name.as_str()));
        let prompts = c.prompts.iter().map(|p| ("prompt", p.name.as_str()));
        let overlays = c
            .mcp
            .iter()
            .flat_map(|m| m.overlays.values())
            .filter_map(|o| Some(("mcp.overlays name", o.name.as_ref()?.as_str())));
        tools
            .chain(prompts)
            .chain(overlays)
            .find_map(|(what, name)| {
                let why = refusal(connectors.iter().copied(), &c.connector, name)?;
                Some((
                    c.connector.to_string(),
                    format!("{what} of connector `{}`: {why}; rename it", c.connector),
                ))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_belongs_to_the_connector_with_the_longest_prefix() {
        let connectors = ["evil", "evil_b", "test", "evilb"];
        assert_eq!(owner(connectors, "evil_b_x"), Some("evil_b"));
        assert_eq!(owner(connectors, "evil_x"), Some("evil"));
        assert_eq!(owner(connectors, "evilb_x"), Some("evilb"));
        assert_eq!(owner(connectors, "evil_bx"), Some("evil"));
        assert_eq!(owner(connectors, "evil"), None);
        assert_eq!(owner(connectors, "other_x"), None);
    }

    #[test]
    fn a_name_inside_a_longer_connectors_space_or_reserved_is_refused() {
        let connectors = ["search", "evil", "evil_b"];
        assert_eq!(refusal(connectors, "evil", "evil_note_get"), None);
        let theirs = refusal(connectors, "evil", "evil_b_note_get").unwrap();
        assert!(theirs.contains("belongs to connector `evil_b`"), "{theirs}");
        let ours = refusal(connectors, "search", "search_tools").unwrap();
        assert!(ours.contains("server's own tools"), "{ours}");
        assert!(refusal(connectors, "evil", "other_x").is_some());
    }
}
