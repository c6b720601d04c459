//! The import report: per operation what was drafted and why, what a person must decide, and
//! the counts. Plain text a person reads in a terminal or a pull request.

use std::fmt;

use crate::Selection;

/// What an import proposed, operation by operation.
#[derive(Debug, Clone)]
pub struct Report {
    /// The connector drafted.
    pub connector: String,
    /// `info.title` and `info.version` of the document.
    pub title: Option<String>,
    /// `info.version`.
    pub version: Option<String>,
    /// SHA-256 of the document.
    pub sha256: String,
    /// The slice imported, in words.
    pub slice: String,
    /// Operations read (all methods): the whole document's, or a path slice's paths'.
    pub total_operations: usize,
    /// Operations the catalog cannot map (HEAD, OPTIONS, TRACE).
    pub unmapped: Vec<String>,
    /// Connector-wide proposals and open questions (auth, errors, paging, rate limits).
    pub connector_notes: Vec<String>,
    /// Rate-limit headers the document names on its answers.
    pub rate_limit_headers: Vec<String>,
    /// One entry per operation in the slice, in document order.
    pub operations: Vec<OperationReport>,
}

/// One operation's outcome.
#[derive(Debug, Clone)]
pub struct OperationReport {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path as the document writes it.
    pub path: String,
    /// The document's `operationId`.
    pub operation_id: Option<String>,
    /// The drafted tool's short name (also for operations left out, for reference).
    pub tool: String,
    /// Where the tool goes.
    pub selection: Selection,
    /// Why it goes there.
    pub reason: String,
    /// The proposed risk and why.
    pub risk: String,
    /// What keeps the tool from working until a person acts.
    pub needs_person: Vec<String>,
    /// Parameters the prose mentions but the operation does not declare.
    pub prose_params: Vec<String>,
    /// Everything else worth knowing (fields left out, proposals).
    pub notes: Vec<String>,
}

/// The figures of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Operations in the slice.
    pub operations: usize,
    /// Tools in the draft (core + searchable).
    pub tools: usize,
    /// Proposed core tools.
    pub core: usize,
    /// Proposed searchable tools.
    pub searchable: usize,
    /// Operations left out of the draft.
    pub left_out: usize,
    /// Operations with something only a person can resolve.
    pub needs_person: usize,
    /// Operations whose prose mentions undeclared parameters.
    pub prose_params: usize,
}

impl Report {
    /// The figures.
    pub fn counts(&self) -> Counts {
        let count = |s: Selection| self.operations.iter().filter(|o| o.selection == s).count();
        Counts {
            operations: self.operations.len(),
            tools: self.operations.len() - count(Selection::LeftOut),
            core: count(Selection::Core),
            searchable: count(Selection::Searchable),
            left_out: count(Selection::LeftOut),
            needs_person: self
                .operations
                .iter()
                .filter(|o| !o.needs_person.is_empty())
                .count(),
            prose_params: self
                .operations
                .iter()
                .filter(|o| !o.prose_params.is_empty())
                .count(),
        }
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "operations {}, tools {} (core {}, searchable {}), left out {}, needing a person {}, prose-only parameters {}",
            self.operations,
            self.tools,
            self.core,
            self.searchable,
            self.left_out,
            self.needs_person,
            self.prose_params
        )
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let title = self.title.as_deref().unwrap_or("(untitled)");
        let version = self.version.as_deref().unwrap_or("?");
        writeln!(f, "# Import of {title} {version} as `{}`", self.connector)?;
        writeln!(
            f,
            "sha256 {}; {}; {} operations read (a path slice reads its paths only)",
            self.sha256, self.slice, self.total_operations
        )?;
        writeln!(
            f,
            "\nA draft: every proposal below is a `curate` entry the lint refuses until a person decides."
        )?;
        writeln!(f, "\n## Connector")?;
        for n in &self.connector_notes {
            writeln!(f, "- {n}")?;
        }
        if !self.rate_limit_headers.is_empty() {
            writeln!(
                f,
                "- rate-limit headers documented: {}",
                self.rate_limit_headers.join(", ")
            )?;
        }
        if !self.unmapped.is_empty() {
            writeln!(
                f,
                "- not mapped (the catalog has no such method): {}",
                self.unmapped.join(", ")
            )?;
        }
        for (title, selection) in [
            ("Core (listed)", Selection::Core),
            ("Searchable", Selection::Searchable),
            ("Left out", Selection::LeftOut),
        ] {
            let ops: Vec<&OperationReport> = self
                .operations
                .iter()
                .filter(|o| o.selection == selection)
                .collect();
            if ops.is_empty() {
                continue;
            }
            writeln!(f, "\n## {title}: {}", ops.len())?;
            for o in ops {
                let id = o
                    .operation_id
                    .as_deref()
                    .map(|i| format!(" ({i})"))
                    .unwrap_or_default();
                writeln!(
                    f,
                    "- `{}` ← {} {}{id}: {}; risk {}",
                    o.tool, o.method, o.path, o.reason, o.risk
                )?;
                for n in &o.needs_person {
                    writeln!(f, "  - needs a person: {n}")?;
                }
                if !o.prose_params.is_empty() {
                    writeln!(
                        f,
                        "  - parameters only in prose: {}",
                        o.prose_params.join(", ")
                    )?;
                }
                for n in &o.notes {
                    writeln!(f, "  - {n}")?;
                }
            }
        }
        writeln!(f, "\ncounts: {}", self.counts())
    }
}
