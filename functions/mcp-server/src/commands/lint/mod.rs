//! `mcp-server lint [DIR]`: checks catalogs against the audit checklist, one row per rule and
//! tool (or connector) with ok / gap / n/a. Any gap fails the run.

mod connector;
mod deployment;
mod description;
pub(crate) mod page;
mod prompts;
mod remote;
mod spend;
mod tool;

use std::fmt::Write as _;

use catalog::Catalog;

use crate::config::Config;
use crate::contract::cursor::ListShape;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Ok,
    /// Worth a look, but no gap: the run passes.
    Warn,
    Gap,
    NotApplicable,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Warn => "warn",
            Verdict::Gap => "gap",
            Verdict::NotApplicable => "n/a",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    pub rule: &'static str,
    /// The tool (its name carries the connector), or the connector for connector-wide rules.
    pub subject: String,
    pub verdict: Verdict,
    pub detail: String,
}

/// Most tools a client should see at once; beyond it, selection degrades (search instead).
pub(crate) const MAX_LISTED: usize = 30;

pub(super) fn row(
    rule: &'static str,
    subject: impl Into<String>,
    ok: bool,
    detail: impl Into<String>,
) -> Row {
    let verdict = if ok { Verdict::Ok } else { Verdict::Gap };
    Row {
        rule,
        subject: subject.into(),
        verdict,
        detail: detail.into(),
    }
}

pub(super) fn na(rule: &'static str, subject: impl Into<String>, detail: &str) -> Row {
    Row {
        rule,
        subject: subject.into(),
        verdict: Verdict::NotApplicable,
        detail: detail.into(),
    }
}

/// The checklist: each catalog's connector rules then its tools' rules, then the rules over
/// the deployment (listed tools, remote servers, list budgets, prompts).
pub(crate) fn lint(catalogs: &[Catalog], config: &Config) -> Vec<Row> {
    let mut rows = Vec::new();
    for c in catalogs {
        rows.extend(connector::rows(c, config));
        for t in &c.tools {
            tool::rows(t, ListShape::of(c, t), &mut rows);
            rows.extend(spend::row_of(c, t));
        }
    }
    let remotes: Vec<_> = catalogs.iter().filter_map(remote::listed).collect();
    rows.push(deployment::listed_row(catalogs, &remotes));
    rows.extend(remote::rows(catalogs));
    rows.extend(remote::name_rows(catalogs));
    rows.extend(remote::pin_rows(catalogs));
    let inventory = deployment::deployed(catalogs, config);
    deployment::budget_rows(&inventory, remotes.is_empty(), &mut rows);
    rows.extend(prompts::rows(&inventory));
    rows
}

/// The table, one row per line, and a summary.
pub(crate) fn render(rows: &[Row]) -> String {
    let width = rows.iter().map(|r| r.subject.len()).max().unwrap_or(10);
    let mut out = String::new();
    let _ = writeln!(out, "{:<18} {:<width$} {:<4} detail", "rule", "subject", "");
    for r in rows {
        let _ = writeln!(
            out,
            "{:<18} {:<width$} {:<4} {}",
            r.rule,
            r.subject,
            r.verdict.as_str(),
            r.detail
        );
    }
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    let (oks, warns, gaps) = (
        count(Verdict::Ok),
        count(Verdict::Warn),
        count(Verdict::Gap),
    );
    let _ = match warns {
        0 => writeln!(
            out,
            "\n{oks} ok, {gaps} gap(s), {} n/a",
            rows.len() - oks - gaps
        ),
        _ => writeln!(
            out,
            "\n{oks} ok, {warns} warning(s), {gaps} gap(s), {} n/a",
            rows.len() - oks - warns - gaps
        ),
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::EnvSnapshot;

    pub(super) fn config() -> Config {
        Config::from(EnvSnapshot::default()).unwrap()
    }

    #[test]
    fn shipped_catalogs_have_no_gaps() {
        let catalogs = catalog::load_sources(crate::EMBEDDED_CATALOGS).unwrap();
        let rows = lint(&catalogs, &config());
        let gaps: Vec<&Row> = rows.iter().filter(|r| r.verdict == Verdict::Gap).collect();
        assert!(gaps.is_empty(), "{}", render(&rows));
    }

    #[test]
    fn a_bad_catalog_shows_its_gaps() {
        let bad = catalog::parse(
            "bad.yaml",
            r#"
connector: bad
base_url: "http://x"
list_envelope: { items: entries }
tools:
  - name: bad_things_list
    risk: low
    list: true
    description: Lists things.
    get: /things
    params:
      order: { type: string, enum: [asc, desc] }
      limit: { type: integer }
  - name: bad_thing_delete
    risk: low
    description: 'Deletes a thing (Ding, Sache). Use it to remove one. Example: {"id": 1}'
    delete: /things/{id}
    params:
      id: { type: integer, in: path, min: 1 }
"#,
        )
        .unwrap();
        let rows = lint(&[bad], &config());
        let gap = |rule: &str, subject: &str| {
            rows.iter()
                .any(|r| r.rule == rule && r.subject == subject && r.verdict == Verdict::Gap)
        };
        assert!(gap("aggregation_tools", "bad"));
        assert!(!gap("credentials", "bad"), "no secrets: n/a");
        assert!(gap("error_message", "bad"));
        assert!(gap("error_hints", "bad"));
        assert!(gap("description", "bad_things_list"));
        assert!(gap("booleans", "bad_things_list"));
        assert!(gap("typed_params", "bad_things_list"));
        assert!(gap("list_shape", "bad_things_list"));
        assert!(gap("risk", "bad_thing_delete"));
        assert!(gap("write_contract", "bad_thing_delete"));
        assert!(!gap("write_contract", "bad_things_list"));
        assert!(!gap("description", "bad_thing_delete"));
        assert!(render(&rows).contains(" gap(s)"));
    }

    #[test]
    fn pending_curation_and_a_scaffold_description_are_gaps() {
        let c = catalog::parse(
            "d.yaml",
            r#"
connector: d
base_url: "http://x"
curate: ["errors: proposed /message"]
tools:
  - name: d_thing_delete
    risk: high
    description: 'Deletes a thing (Ding, Sache). Use it to remove one. Example: {"id": 1}'
    delete: /things/{id}
    curate: ["risk: proposed high because DELETE"]
    params:
      id: { type: integer, in: path, min: 1 }
  - name: d_thing_get
    risk: low
    description: 'Returns a thing. Use it when CURATE: when to use. Example: {"id": 1}'
    get: /things/{id}
    params:
      id: { type: integer, in: path, min: 1 }
"#,
        )
        .unwrap();
        let rows = lint(&[c], &config());
        let curation = |subject: &str| {
            rows.iter()
                .find(|r| r.rule == "curation" && r.subject == subject)
                .unwrap()
        };
        assert_eq!(curation("d").verdict, Verdict::Gap);
        assert!(curation("d_thing_delete").detail.contains("proposed high"));
        assert_eq!(curation("d_thing_get").verdict, Verdict::Gap);
        assert!(curation("d_thing_get").detail.contains("scaffold"));
    }
}
