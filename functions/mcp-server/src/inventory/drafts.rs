//! Imported drafts at start. A catalog the importer wrote and no person has finished curating
//! (`curate` entries, `CURATE:` in a description: [`catalog::pending_curation`], what the
//! lint's `curation` rule reports) is a proposal: its names, risks and descriptions are guesses
//! about an API, and its risk levels would let a guessed `medium` write run unasked. So serving
//! one is refused, naming the file, its pending decisions and the way out.
//!
//! `serve --allow-drafts` serves it anyway, to try it on a laptop: each of its tools then says
//! it is a draft, and each of its writes asks for confirmation first (at least `high`, whatever
//! risk the draft proposes). Lambda mode never serves a draft, flag or not.

use std::fmt::Write as _;
use std::path::Path;

use catalog::{Catalog, Pending, Risk};

use crate::contract::risk;

/// What start-up does with a draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drafts {
    /// Refused, with curation and `serve --allow-drafts` as the ways out (local `serve`).
    Refuse,
    /// Refused, with curation as the only way out (Lambda mode: a deployment serves contracts).
    Never,
    /// Served, every tool marked and every write confirmed (`serve --allow-drafts`).
    Allow,
}

/// The start of each tool description of a draft served with `--allow-drafts`: the model reads
/// it, and so does a person looking at `tools/list`.
pub const DRAFT_MARK: &str = "DRAFT, not curated: an imported proposal whose name, risk and \
                              text no person has reviewed; every write asks for confirmation. ";

/// How many pending decisions a refusal quotes per file (the lint lists them all).
const QUOTED: usize = 5;

/// Drafts found where none may be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", refusal(.drafts, *.policy))]
pub(crate) struct DraftRefused {
    /// Each draft's file and its pending decisions.
    drafts: Vec<(String, Vec<Pending>)>,
    policy: Drafts,
}

/// What start-up serves.
#[derive(Debug)]
pub(crate) struct Admitted {
    /// Every catalog, the drafts among them marked ([`mark`]).
    pub catalogs: Vec<Catalog>,
    /// The drafts served anyway: file and number of pending decisions.
    pub drafts: Vec<(String, usize)>,
}

/// The catalogs to serve from `(file, catalog)` pairs: all of them when none is a draft; with
/// drafts, refused unless `policy` is [`Drafts::Allow`], which serves each draft marked.
pub(crate) fn admit(
    loaded: Vec<(String, Catalog)>,
    policy: Drafts,
) -> Result<Admitted, DraftRefused> {
    let drafts: Vec<(String, Vec<Pending>)> = loaded
        .iter()
        .filter(|(_, c)| c.is_draft())
        .map(|(file, c)| (file.clone(), catalog::pending_curation(c)))
        .collect();
    if !drafts.is_empty() && policy != Drafts::Allow {
        return Err(DraftRefused { drafts, policy });
    }
    let catalogs = loaded
        .into_iter()
        .map(|(_, c)| if c.is_draft() { mark(c) } else { c })
        .collect();
    Ok(Admitted {
        catalogs,
        drafts: drafts
            .into_iter()
            .map(|(file, pending)| (file, pending.len()))
            .collect(),
    })
}

/// A draft as `--allow-drafts` serves it: every description starts with [`DRAFT_MARK`], and
/// every write is at least `high`, so it asks for confirmation against its preview first (a
/// `critical` one still needs a person; `forbidden` stays forbidden).
pub(crate) fn mark(mut c: Catalog) -> Catalog {
    for t in &mut c.tools {
        t.description = format!("{DRAFT_MARK}{}", t.description).into();
        if risk::is_write(t) && t.risk < Risk::High {
            t.risk = Risk::High;
        }
    }
    c
}

fn refusal(drafts: &[(String, Vec<Pending>)], policy: Drafts) -> String {
    let mut out = String::new();
    for (file, pending) in drafts {
        let _ = writeln!(
            out,
            "{file} is an uncurated draft (from `mcp-server import openapi`) with {} pending \
             decision(s), so it is not served:",
            pending.len()
        );
        for p in pending.iter().take(QUOTED) {
            let place = p.tool.as_deref().unwrap_or("catalog");
            let _ = writeln!(out, "  - {place}: {}", p.decision);
        }
        if pending.len() > QUOTED {
            let _ = writeln!(out, "  - … and {} more", pending.len() - QUOTED);
        }
    }
    let dir = drafts
        .first()
        .and_then(|(file, _)| Path::new(file).parent())
        .map(|d| d.display().to_string())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| ".".into());
    let _ = write!(
        out,
        "Curate it: take each decision, then delete its `curate` entry and every `{}` marker \
         (`mcp-server lint {dir}` lists them all under the rule `curation`).",
        catalog::SCAFFOLD_MARKER
    );
    match policy {
        Drafts::Never => out.push_str(" Lambda mode never serves a draft."),
        Drafts::Refuse | Drafts::Allow => out.push_str(
            " To try a draft locally as it is, run `mcp-server serve --allow-drafts`: each of \
             its tools is then marked as a draft and each write asks for confirmation first.",
        ),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRAFT: &str = r#"connector: d
base_url: "https://d.test"
curate: ["errors: proposed /message"]
tools:
  - name: d_thing_create
    risk: medium
    description: "Creates a thing. Use it when CURATE: say when. Example: {}"
    post: /things
  - name: d_thing_delete
    risk: high
    description: "Deletes a thing. Example: {\"id\": 1}"
    delete: /things/{id}
    params: { id: { type: integer, in: path, min: 1 } }
    curate: ["risk: proposed high because DELETE"]
  - name: d_thing_send
    risk: critical
    description: "Sends a thing. Example: {}"
    post: /things/send
  - name: d_things_list
    risk: low
    description: "Lists things. Example: {}"
    get: /things
"#;

    fn loaded() -> Vec<(String, Catalog)> {
        let curated = connector::load_files(None).unwrap();
        let draft = catalog::parse("drafts/d.yaml", DRAFT).unwrap();
        curated
            .into_iter()
            .chain([("drafts/d.yaml".to_string(), draft)])
            .collect()
    }

    #[test]
    fn a_draft_is_refused_naming_its_file_its_decisions_and_the_ways_out() {
        let err = admit(loaded(), Drafts::Refuse).unwrap_err().to_string();
        assert!(
            err.starts_with("drafts/d.yaml is an uncurated draft"),
            "{err}"
        );
        assert!(err.contains("with 3 pending decision(s)"), "{err}");
        assert!(
            err.contains("  - catalog: errors: proposed /message"),
            "{err}"
        );
        assert!(
            err.contains("  - d_thing_delete: risk: proposed high because DELETE"),
            "{err}"
        );
        assert!(err.contains("`mcp-server lint drafts`"), "{err}");
        assert!(err.contains("`mcp-server serve --allow-drafts`"), "{err}");
        let lambda = admit(loaded(), Drafts::Never).unwrap_err().to_string();
        assert!(
            lambda.contains("Lambda mode never serves a draft."),
            "{lambda}"
        );
        assert!(!lambda.contains("--allow-drafts"), "{lambda}");
    }

    #[test]
    fn curated_catalogs_pass_unchanged_whatever_the_policy() {
        let curated = connector::load_files(None).unwrap();
        let expected: Vec<Catalog> = curated.iter().map(|(_, c)| c.clone()).collect();
        for policy in [Drafts::Never, Drafts::Refuse, Drafts::Allow] {
            let admitted = admit(curated.clone(), policy).unwrap();
            assert_eq!(admitted.catalogs, expected);
            assert!(admitted.drafts.is_empty());
        }
    }

    #[test]
    fn an_allowed_draft_is_marked_and_each_write_asks_for_confirmation() {
        let admitted = admit(loaded(), Drafts::Allow).unwrap();
        assert_eq!(admitted.drafts, [("drafts/d.yaml".to_string(), 3)]);
        let draft = admitted.catalogs.last().unwrap();
        let risk_of = |name: &str| {
            let t = draft.tools.iter().find(|t| t.name == name).unwrap();
            assert!(t.description.starts_with(DRAFT_MARK), "{}", t.description);
            (t.risk, risk::needs_confirmation(t))
        };
        assert_eq!(risk_of("d_thing_create"), (Risk::High, true));
        assert_eq!(risk_of("d_thing_delete"), (Risk::High, true));
        assert_eq!(risk_of("d_thing_send"), (Risk::Critical, true));
        assert_eq!(risk_of("d_things_list"), (Risk::Low, false));
        let papierkram = &admitted.catalogs[1];
        assert!(
            papierkram
                .tools
                .iter()
                .all(|t| !t.description.starts_with(DRAFT_MARK)),
            "a curated catalog beside a draft is not marked"
        );
    }
}
