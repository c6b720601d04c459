//! What the lint can say offline about a remote MCP server's tools (`mcp:` catalogs): the
//! tools it knows by name (`allow` entries without `*`, less those an overlay hides or leaves to
//! search) and how many a glob may add, at most what the server lists per remote. The remote's
//! descriptions and schemas arrive at run time only, so their bytes are not counted here.

use catalog::{Catalog, McpRemote, Risk};

use super::{Row, na, row};
use crate::upstream::remote::MAX_LISTED as MAX_LISTED_PER_REMOTE;

/// How many tools one remote may add to `tools/list`: at least the ones named, at most the
/// server's cap per remote (plus the ones an overlay pins with `core: true`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Listed {
    /// Named in `allow` and listed (if the remote serves them).
    pub at_least: usize,
    pub at_most: usize,
    /// `allow` globs: what they match is known only to the remote.
    pub globs: Vec<String>,
}

/// The bounds for an `mcp` catalog; `None` for a REST one.
pub(super) fn listed(c: &Catalog) -> Option<Listed> {
    let remote = c.mcp.as_ref()?;
    let (globs, named): (Vec<&catalog::Text>, Vec<&catalog::Text>) =
        remote.allow.iter().partition(|a| a.contains('*'));
    let hidden = |name: &str| {
        remote
            .overlays
            .get(name)
            .is_some_and(|o| o.risk == Some(Risk::Forbidden) || (o.core == Some(false)))
    };
    let pinned = pinned(remote);
    let unpinned_named = named
        .iter()
        .filter(|n| !hidden(n) && !is_pinned(remote, n))
        .count();
    let pinned_count = pinned.len();
    let at_least = unpinned_named.min(MAX_LISTED_PER_REMOTE) + pinned_count;
    let at_most = if globs.is_empty() {
        at_least
    } else {
        MAX_LISTED_PER_REMOTE + pinned_count
    };
    Some(Listed {
        at_least,
        at_most,
        globs: globs.into_iter().map(|g| g.to_string()).collect(),
    })
}

fn is_pinned(remote: &McpRemote, name: &str) -> bool {
    remote
        .overlays
        .get(name)
        .is_some_and(|o| o.core == Some(true) && o.risk != Some(Risk::Forbidden))
}

/// Overlays that list a tool whatever the cap (only for tools `allow` lets through, which the
/// loader checks).
fn pinned(remote: &McpRemote) -> Vec<&str> {
    remote
        .overlays
        .keys()
        .filter(|n| is_pinned(remote, n))
        .map(catalog::Text::as_str)
        .collect()
}

/// One `remote_tools` row per `mcp` connector: what it adds to `tools/list`, as far as known.
pub(super) fn rows(catalogs: &[Catalog]) -> Vec<Row> {
    catalogs
        .iter()
        .filter_map(|c| Some((c, listed(c)?)))
        .map(|(c, l)| {
            let subject = c.connector.clone();
            if l.at_most == 0 {
                return na(
                    "remote_tools",
                    subject,
                    "every allowed remote tool is hidden or left to search_tools",
                );
            }
            row(
                "remote_tools",
                subject,
                true,
                format!("{} (fetched from the remote at run time)", describe(&l)),
            )
        })
        .collect()
}

/// One `remote_names` row per `mcp` connector: the naming rule (`catalog::name_owner`) keeps
/// every name of a remote's own, so a remote tool named into another connector's space (or as
/// one of the server's own tools) is never served; a gap names which, as far as known offline
/// (the tools `allow` names, and the connectors whose space lies inside this one's).
pub(super) fn name_rows(catalogs: &[Catalog]) -> Vec<Row> {
    let deployment = || catalogs.iter().map(|c| c.connector.as_str());
    catalogs
        .iter()
        .filter_map(|c| Some((c, c.mcp.as_ref()?)))
        .map(|(c, remote)| {
            let prefix = format!("{}_", c.connector);
            let nested: Vec<String> = deployment()
                .filter(|d| d.starts_with(&prefix))
                .map(|d| format!("`{d}_…` is `{d}`'s"))
                .collect();
            let lost: Vec<String> = remote
                .allow
                .iter()
                // An overlay's own name was checked at load.
                .filter(|a| {
                    !a.contains('*')
                        && remote
                            .overlays
                            .get(a.as_str())
                            .is_none_or(|o| o.name.is_none())
                })
                .filter_map(|a| {
                    let name = catalog::local_name(&c.connector, a, catalog::MAX_TOOL_NAME)?;
                    catalog::name_refusal(deployment(), &c.connector, &name)
                        .map(|why| format!("`{a}`: {why}"))
                })
                .collect();
            let problems: Vec<String> = nested.into_iter().chain(lost).collect();
            if problems.is_empty() {
                let detail = format!("every tool name is `{prefix}…` and no other connector's");
                row("remote_names", c.connector.clone(), true, detail)
            } else {
                row(
                    "remote_names",
                    c.connector.clone(),
                    false,
                    format!(
                        "remote tools whose names enter another space are never served: {}; \
                         rename a connector or the tool (mcp.overlays name)",
                        problems.join("; ")
                    ),
                )
            }
        })
        .collect()
}

/// One `remote_pins` row per `mcp` connector: its tools pinned to what was reviewed
/// (`mcp.pins`), so a remote cannot change a tool's description or schema after review. A gap
/// without pins, or when a tool `allow` names has none (it would be withheld).
pub(super) fn pin_rows(catalogs: &[Catalog]) -> Vec<Row> {
    catalogs
        .iter()
        .filter_map(|c| Some((c, c.mcp.as_ref()?)))
        .map(|(c, remote)| {
            let subject = c.connector.clone();
            if remote.pins.is_empty() {
                return row(
                    "remote_pins",
                    subject,
                    false,
                    "no mcp.pins: the remote may change a tool's description or schema after \
                     review; pin each tool as the server's log names it",
                );
            }
            let unpinned: Vec<String> = remote
                .allow
                .iter()
                .filter(|a| !a.contains('*') && !remote.pins.contains_key(a.as_str()))
                .map(|a| format!("`{a}`"))
                .collect();
            if unpinned.is_empty() {
                let detail = format!(
                    "{} tools pinned; a changed or unpinned one is withheld",
                    remote.pins.len()
                );
                row("remote_pins", subject, true, detail)
            } else {
                let detail = format!("no pin for {} (withheld until pinned)", unpinned.join(", "));
                row("remote_pins", subject, false, detail)
            }
        })
        .collect()
}

/// "2 named" or "2 named, up to 30 through `note_*` (unknown offline)".
pub(super) fn describe(l: &Listed) -> String {
    let named = format!("{} listed by name", l.at_least);
    if l.globs.is_empty() {
        return named;
    }
    let globs: Vec<String> = l.globs.iter().map(|g| format!("`{g}`")).collect();
    format!(
        "{named}, up to {} through {} (what a glob matches is unknown offline; the server \
         lists at most {MAX_LISTED_PER_REMOTE} per remote)",
        l.at_most,
        globs.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog(allow: &str, overlays: &str) -> Catalog {
        let text = format!(
            "connector: notes\ntitle: Notes\nsecrets: [host]\nmcp:\n  url: \"http://{{host}}/mcp\"\n  allow: {allow}\n{overlays}"
        );
        catalog::parse("notes.yaml", &text).unwrap()
    }

    #[test]
    fn named_tools_are_counted_and_globs_bounded_by_the_cap() {
        let named = catalog(
            "[search_notes, create_note, delete_note]",
            "  overlays:\n    delete_note: { risk: forbidden }\n",
        );
        let l = listed(&named).unwrap();
        assert_eq!((l.at_least, l.at_most), (2, 2));
        assert_eq!(describe(&l), "2 listed by name");

        let globbed = catalog(
            "[search_notes, \"note_*\"]",
            "  overlays:\n    search_notes: { core: false }\n    note_pin: { core: true }\n",
        );
        let l = listed(&globbed).unwrap();
        assert_eq!((l.at_least, l.at_most), (1, MAX_LISTED_PER_REMOTE + 1));
        assert!(describe(&l).contains("unknown offline"), "{}", describe(&l));

        let hidden = catalog(
            "[search_notes]",
            "  overlays:\n    search_notes: { core: false }\n",
        );
        assert_eq!(
            rows(&[hidden])[0].verdict,
            super::super::Verdict::NotApplicable
        );
    }

    #[test]
    fn a_remote_whose_space_holds_another_connector_or_a_meta_tool_is_a_gap() {
        let evil = catalog("[note_get]", "");
        let mut nested = evil.clone();
        nested.connector = "notes_b".into();
        let rows = name_rows(&[evil.clone(), nested]);
        assert_eq!(rows[0].verdict, super::super::Verdict::Gap);
        assert!(
            rows[0].detail.contains("`notes_b_…` is `notes_b`'s"),
            "{}",
            rows[0].detail
        );
        assert_eq!(rows[1].verdict, super::super::Verdict::Ok);
        let mut search = catalog("[tools, note_get]", "");
        search.connector = "search".into();
        let rows = name_rows(&[search]);
        assert!(
            rows[0]
                .detail
                .contains("`tools`: `search_tools` is the name of one of the server's own tools"),
            "{}",
            rows[0].detail
        );
        assert_eq!(name_rows(&[evil])[0].verdict, super::super::Verdict::Ok);
    }

    #[test]
    fn a_remote_without_pins_or_with_a_named_tool_unpinned_is_a_gap() {
        let gap = super::super::Verdict::Gap;
        assert_eq!(pin_rows(&[catalog("[a, b]", "")])[0].verdict, gap);
        let pin = "\"sha256:0123456789abcdef0123456789abcdef\"";
        let half = catalog("[a, b]", &format!("  pins: {{ a: {pin} }}\n"));
        let row = &pin_rows(&[half])[0];
        assert_eq!(row.verdict, gap);
        assert!(row.detail.contains("no pin for `b`"), "{}", row.detail);
        let all = catalog("[a, b]", &format!("  pins: {{ a: {pin}, b: {pin} }}\n"));
        assert_eq!(pin_rows(&[all])[0].verdict, super::super::Verdict::Ok);
    }
}
