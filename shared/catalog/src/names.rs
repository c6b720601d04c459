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
/// connector owns, as (the declaring connector, the problem). A catalog whose names someone
/// else fixes (`names_fixed_by`) needs no prefix of its own, but its names stay clear of every
/// other connector's prefix and names.
pub(crate) fn problems(catalogs: &[Catalog]) -> Option<(String, String)> {
    let connectors: Vec<&str> = catalogs.iter().map(|c| c.connector.as_str()).collect();
    fixed_name_problem(catalogs, &connectors).or_else(|| prefix_problem(catalogs, &connectors))
}

/// A fixed name that is reserved, in another connector's space, or another connector's too.
fn fixed_name_problem(catalogs: &[Catalog], connectors: &[&str]) -> Option<(String, String)> {
    let mut seen = std::collections::BTreeMap::new();
    for c in catalogs {
        for t in &c.tools {
            seen.entry(t.name.as_str())
                .or_insert_with(Vec::new)
                .push(c.connector.as_str());
        }
    }
    catalogs
        .iter()
        .filter(|c| c.names_fixed_by.is_some())
        .flat_map(|c| c.tools.iter().map(move |t| (c, t.name.as_str())))
        .find_map(|(c, name)| {
            let why = match owner(connectors.iter().copied(), name) {
                _ if RESERVED_TOOL_NAMES.contains(&name) => {
                    refusal(connectors.iter().copied(), &c.connector, name)
                }
                Some(o) if o != c.connector => {
                    refusal(connectors.iter().copied(), &c.connector, name)
                }
                _ => seen[name]
                    .iter()
                    .find(|other| **other != c.connector)
                    .map(|other| format!("`{name}` is a tool of connector `{other}` too")),
            }?;
            Some((
                c.connector.to_string(),
                format!("tool of connector `{}`: {why}; rename it", c.connector),
            ))
        })
}

/// A name outside its connector's own space.
fn prefix_problem(catalogs: &[Catalog], connectors: &[&str]) -> Option<(String, String)> {
    catalogs
        .iter()
        .filter(|c| c.names_fixed_by.is_none())
        .find_map(|c| {
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

    fn catalog(text: &str) -> Catalog {
        crate::parse("c.yaml", text).unwrap()
    }

    #[test]
    fn fixed_names_need_no_prefix_but_stay_clear_of_other_connectors() {
        let fixed = |tool: &str| {
            catalog(&format!(
                "connector: fixtures\nnames_fixed_by: a suite\nbase_url: http://x\ntools:\n  - {{ name: {tool}, risk: low, description: d, get: /g }}\n"
            ))
        };
        let other = catalog(
            "connector: slow\nbase_url: http://x\ntools:\n  - { name: slow_job_get, risk: low, description: d, get: /g }\n",
        );
        assert_eq!(problems(&[fixed("greet"), other.clone()]), None);
        for (tool, why) in [
            ("slow_compute", "belongs to connector `slow`"),
            ("search_tools", "server's own tools"),
        ] {
            let (_, problem) = problems(&[fixed(tool), other.clone()]).unwrap();
            assert!(problem.contains(why), "{tool}: {problem}");
        }
        let twin = catalog(
            "connector: twins\nnames_fixed_by: a suite\nbase_url: http://x\ntools:\n  - { name: greet, risk: low, description: d, get: /g }\n",
        );
        let (_, problem) = problems(&[fixed("greet"), twin]).unwrap();
        assert!(
            problem.contains("`greet` is a tool of connector `twins` too"),
            "{problem}"
        );
    }

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
