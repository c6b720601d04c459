//! What an imported draft still leaves to a person: the importer's `curate` entries (on the
//! catalog and on each tool) and the `CURATE:` scaffold in drafted descriptions. One reading of
//! them for everyone: the lint's `curation` rule reports them and the server refuses to serve
//! a catalog that has any, so the two can never disagree about what a draft is.

use crate::SCAFFOLD_MARKER;
use crate::model::{Catalog, Tool};

/// One decision a draft leaves open, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The tool's name, or `None` for the catalog itself (auth, paging, errors, quota).
    pub tool: Option<String>,
    /// The decision, as the importer wrote it (`risk: proposed high because DELETE`).
    pub decision: String,
}

/// The catalog's own pending decisions, then each tool's ([`tool_pending`]), in file order.
pub fn pending(c: &Catalog) -> Vec<Pending> {
    let own = c.curate.iter().map(|d| Pending {
        tool: None,
        decision: d.to_string(),
    });
    let tools = c.tools.iter().flat_map(|t| {
        tool_pending(t).into_iter().map(|decision| Pending {
            tool: Some(t.name.to_string()),
            decision,
        })
    });
    own.chain(tools).collect()
}

/// A tool's pending decisions: its `curate` entries, and its description while it still holds
/// the importer's scaffold marker.
pub fn tool_pending(t: &Tool) -> Vec<String> {
    let mut out: Vec<String> = t.curate.iter().map(|c| c.to_string()).collect();
    if t.description.contains(SCAFFOLD_MARKER) {
        out.push(format!(
            "description: replace the `{SCAFFOLD_MARKER}` scaffold parts"
        ));
    }
    out
}

impl Catalog {
    /// Whether this is a draft a person has not finished curating.
    pub fn is_draft(&self) -> bool {
        !self.curate.is_empty() || self.tools.iter().any(|t| !tool_pending(t).is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRAFT: &str = r#"connector: d
base_url: "https://d.test"
curate: ["errors: proposed /message"]
tools:
  - name: d_thing_delete
    risk: high
    description: "Deletes a thing. Example: {\"id\": 1}"
    delete: /things/{id}
    params: { id: { type: integer, in: path, min: 1 } }
    curate: ["risk: proposed high because DELETE"]
  - name: d_thing_get
    risk: low
    description: "Returns a thing. Use it when CURATE: say when. Example: {\"id\": 1}"
    get: /things/{id}
    params: { id: { type: integer, in: path, min: 1 } }
  - name: d_things_list
    risk: low
    description: "Lists things. Example: {}"
    get: /things
"#;

    #[test]
    fn curate_entries_and_the_scaffold_marker_are_pending_in_file_order() {
        let c = crate::parse("d.yaml", DRAFT).unwrap();
        assert!(c.is_draft());
        let pending = pending(&c);
        let found: Vec<(Option<&str>, &str)> = pending
            .iter()
            .map(|p| (p.tool.as_deref(), p.decision.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (None, "errors: proposed /message"),
                (Some("d_thing_delete"), "risk: proposed high because DELETE"),
                (
                    Some("d_thing_get"),
                    "description: replace the `CURATE:` scaffold parts"
                ),
            ]
        );
    }

    #[test]
    fn a_curated_catalog_is_no_draft() {
        let curated = DRAFT
            .replace("curate: [\"errors: proposed /message\"]\n", "")
            .replace("    curate: [\"risk: proposed high because DELETE\"]\n", "")
            .replace("Use it when CURATE: say when. ", "");
        let c = crate::parse("d.yaml", &curated).unwrap();
        assert!(!c.is_draft());
        assert!(pending(&c).is_empty());
    }
}
