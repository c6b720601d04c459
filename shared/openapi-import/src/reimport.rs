//! Re-import: the current document against a curated catalog. A person's curation is never
//! overwritten; the answer is what changed (new, removed and changed operations and params).

use std::collections::BTreeMap;
use std::fmt;

use catalog::{Catalog, Param, Tool};

use crate::assemble::{Drafts, drafts};
use crate::{ImportError, Options};

/// What changed in the document since the catalog was curated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changes {
    /// The document's SHA-256 differs from the catalog's `imported_from`.
    pub document_changed: bool,
    /// Operations in the document that no tool comes from: `METHOD path (operationId)`.
    pub new: Vec<String>,
    /// Tools whose operation the document no longer has: `tool (operationId)`.
    pub removed: Vec<String>,
    /// Tools whose operation changed, each with what changed.
    pub changed: Vec<(String, Vec<String>)>,
}

impl Changes {
    /// Nothing to do for a person.
    pub fn is_empty(&self) -> bool {
        self.new.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// Compares `text` with the `curated` catalog: tools match operations by `operation_id`, else
/// by method and path. Every operation of the slice counts, whatever the draft would select.
pub fn reimport(text: &str, curated: &Catalog, options: &Options) -> Result<Changes, ImportError> {
    let mut all = options.clone();
    all.max_tools = usize::MAX;
    let Drafts { spec, ops, .. } = drafts(text, &all, true)?;
    let mut changes = Changes {
        document_changed: curated
            .imported_from
            .as_ref()
            .is_none_or(|p| p.sha256 != spec.sha256),
        ..Changes::default()
    };
    // A curated list tool does not declare the paging parameters: the platform sends them, as
    // the tool pages (its own `paging`, else the connector's).
    let paging_of = |tool: &Tool| -> Vec<String> {
        curated
            .pager_for(tool)
            .map(|p| p.params().iter().map(|q| format!("query `{q}`")).collect())
            .unwrap_or_default()
    };
    let mut matched = vec![false; curated.tools.len()];
    for (d, _, _) in &ops {
        let found = curated
            .tools
            .iter()
            .position(|t| match (&t.operation_id, &d.operation_id) {
                (Some(a), Some(b)) => a == b,
                _ => same_route(t, &d.tool),
            });
        let Some(i) = found else {
            let id = d
                .operation_id
                .as_deref()
                .map(|i| format!(" ({i})"))
                .unwrap_or_default();
            changes
                .new
                .push(format!("{} {}{id}", d.method.as_str(), d.path));
            continue;
        };
        matched[i] = true;
        let diffs = compare(&curated.tools[i], &d.tool, &paging_of(&curated.tools[i]));
        if !diffs.is_empty() {
            changes
                .changed
                .push((curated.tools[i].name.to_string(), diffs));
        }
    }
    for (t, seen) in curated.tools.iter().zip(matched) {
        if !seen && t.aggregate.is_none() && !t.raw {
            let id = t
                .operation_id
                .as_deref()
                .map(|i| format!(" ({i})"))
                .unwrap_or_default();
            changes.removed.push(format!("{}{id}", t.name));
        }
    }
    Ok(changes)
}

/// The same method and path, whatever the placeholders are called.
fn same_route(a: &Tool, b: &Tool) -> bool {
    match (a.http(), b.http()) {
        (Some((ma, pa)), Some((mb, pb))) => ma == mb && shape(pa) == shape(pb),
        _ => false,
    }
}

fn shape(path: &str) -> String {
    let mut out = String::new();
    let mut hole = false;
    for c in path.chars() {
        match c {
            '{' => {
                hole = true;
                out.push_str("{}");
            }
            '}' => hole = false,
            c if !hole => out.push(c),
            _ => {}
        }
    }
    out
}

/// Params by upstream name and place.
fn by_upstream(t: &Tool) -> BTreeMap<String, &Param> {
    t.params
        .iter()
        .map(|(n, p)| {
            let place = format!("{:?}", p.location).to_lowercase();
            (format!("{place} `{}`", p.upstream_name(n)), &**p)
        })
        .collect()
}

fn compare(curated: &Tool, now: &Tool, paging: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if let (Some((m1, p1)), Some((m2, p2))) = (curated.http(), now.http())
        && (m1 != m2 || shape(p1) != shape(p2))
    {
        out.push(format!(
            "route {} {p1} is now {} {p2}",
            m1.as_str(),
            m2.as_str()
        ));
    }
    let (old, new) = (by_upstream(curated), by_upstream(now));
    for (key, p) in &new {
        match old.get(key) {
            None if curated.list && paging.contains(key) => {}
            None => out.push(format!(
                "new {key} param{}",
                if p.required { " (required)" } else { "" }
            )),
            Some(o) => {
                if o.kind != p.kind {
                    let kind = |k: catalog::ParamType| format!("{k:?}").to_lowercase();
                    out.push(format!(
                        "{key} param: type {} is now {}",
                        kind(o.kind),
                        kind(p.kind)
                    ));
                }
                if p.required && !o.required {
                    out.push(format!("{key} param is now required"));
                }
                if o.choices.is_some() && p.choices.is_some() && o.choices != p.choices {
                    out.push(format!(
                        "{key} param: enum changed to {:?}",
                        p.choices.as_deref().unwrap_or_default()
                    ));
                }
            }
        }
    }
    for key in old.keys() {
        if !new.contains_key(key) {
            out.push(format!("{key} param is gone from the document"));
        }
    }
    out
}

impl fmt::Display for Changes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "# Re-import: the document against the curated catalog (nothing was overwritten)"
        )?;
        writeln!(
            f,
            "document {}",
            if self.document_changed {
                "changed since the import"
            } else {
                "unchanged (same sha256)"
            }
        )?;
        let section = |f: &mut fmt::Formatter<'_>, title: &str, items: &[String]| -> fmt::Result {
            writeln!(f, "\n## {title}: {}", items.len())?;
            items.iter().try_for_each(|i| writeln!(f, "- {i}"))
        };
        section(
            f,
            "New in the document (or left out at the import)",
            &self.new,
        )?;
        section(f, "Removed from the document", &self.removed)?;
        writeln!(f, "\n## Changed: {}", self.changed.len())?;
        for (tool, diffs) in &self.changed {
            writeln!(f, "- `{tool}`")?;
            for d in diffs {
                writeln!(f, "  - {d}")?;
            }
        }
        writeln!(
            f,
            "\ncounts: new {}, removed {}, changed {}",
            self.new.len(),
            self.removed.len(),
            self.changed.len()
        )
    }
}
