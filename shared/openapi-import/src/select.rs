//! The selection proposal: at most 30 `core` tools a model sees in `tools/list`, the rest
//! searchable (`core: false`) or left out of the draft, each with its reason.

use catalog::{Method, Risk};

/// Where an operation goes in the draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// Listed in `tools/list`.
    Core,
    /// In the catalog with `core: false`: found through search.
    Searchable,
    /// Not in the draft; the report says why.
    LeftOut,
}

impl Selection {
    /// The word used in reports and `curate` entries.
    pub fn as_str(self) -> &'static str {
        match self {
            Selection::Core => "core",
            Selection::Searchable => "searchable",
            Selection::LeftOut => "left out",
        }
    }
}

/// What selection looks at per operation.
pub(crate) struct Candidate<'a> {
    pub(crate) method: Method,
    pub(crate) path: &'a str,
    pub(crate) verb: &'a str,
    pub(crate) risk: Risk,
    pub(crate) deprecated: bool,
    pub(crate) needs_person: bool,
}

/// How the reason of an operation left out over the draft's size begins: such operations are
/// only sketched, never drafted in full.
pub(crate) const OVER_CAP: &str = "over the draft's";

/// Path words of plumbing a model rarely needs: left out of a draft.
const PLUMBING: &[&str] = &[
    "webhook",
    "webhooks",
    "oauth",
    "oauth-clients",
    "admin",
    "internal",
    "debug",
    "health",
    "metrics",
];

/// Proposes a selection for all candidates (in document order): plumbing and deprecated
/// operations left out, then the most useful up to `max_core` core (reads of top-level
/// resources first, then creates and updates), the rest searchable up to `max_tools` in all.
pub(crate) fn propose(
    all: &[Candidate<'_>],
    max_core: usize,
    max_tools: usize,
) -> Vec<(Selection, String)> {
    let mut out: Vec<(Selection, String)> = all
        .iter()
        .map(|c| {
            let lower = c.path.to_ascii_lowercase();
            if c.deprecated {
                (Selection::LeftOut, "deprecated in the document".to_string())
            } else if let Some(word) = lower.split('/').find(|s| PLUMBING.contains(s)) {
                (
                    Selection::LeftOut,
                    format!("plumbing (`{word}` in the path), rarely a person's task"),
                )
            } else {
                (Selection::Searchable, String::new())
            }
        })
        .collect();
    // Resources with many operations are the API's main records (invoices, contacts).
    let mut family: std::collections::BTreeMap<&str, i32> = std::collections::BTreeMap::new();
    for c in all {
        *family.entry(first_segment(c.path)).or_default() += 1;
    }
    let mut ranked: Vec<(i32, usize)> = all
        .iter()
        .enumerate()
        .filter(|(i, _)| out[*i].0 != Selection::LeftOut)
        .map(|(i, c)| (rank(c) - family[first_segment(c.path)].min(12) / 3, i))
        .collect();
    ranked.sort();
    let mut core = 0;
    for (n, (score, i)) in ranked.iter().enumerate() {
        let c = &all[*i];
        out[*i] = if n >= max_tools {
            (
                Selection::LeftOut,
                format!(
                    "over the draft's {max_tools} tools: import a slice (--tag, --path-prefix) to see it"
                ),
            )
        } else if c.needs_person {
            (
                Selection::Searchable,
                "needs a person before it can work (see its notes)".into(),
            )
        } else if c.risk >= Risk::Critical {
            (
                Selection::Searchable,
                "critical: listed only when a person decides so".into(),
            )
        } else if core < max_core && *score < 12 {
            core += 1;
            (
                Selection::Core,
                format!(
                    "among the {max_core} most useful (`{}` on a main resource)",
                    c.verb
                ),
            )
        } else if core >= max_core {
            (
                Selection::Searchable,
                format!("beyond the {max_core} core tools"),
            )
        } else {
            (Selection::Searchable, "a rarer operation".into())
        };
    }
    out
}

/// The resource family: the first path segment that is no version, `api` or placeholder.
fn first_segment(path: &str) -> &str {
    let version = |s: &str| {
        s.strip_prefix('v')
            .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
    };
    path.split('/')
        .find(|s| !s.is_empty() && !s.starts_with('{') && !version(s) && *s != "api")
        .unwrap_or("")
}

/// Lower is better: reads, then creates, then updates; shallow paths first.
fn rank(c: &Candidate<'_>) -> i32 {
    let verb = match c.verb {
        "list" => 0,
        "get" => 1,
        "search" => 2,
        "create" => 4,
        "update" => 6,
        "send" | "cancel" | "book" | "pay" | "download" | "upload" | "archive" | "unarchive" => 8,
        "delete" => 10,
        _ => 14,
    };
    let segments: Vec<&str> = c.path.split('/').filter(|s| !s.is_empty()).collect();
    let params = segments.iter().filter(|s| s.starts_with('{')).count() as i32;
    let statics = segments.len() as i32 - params;
    let write = i32::from(c.method != Method::Get);
    verb + write + 10 * (params - 1).max(0) + 3 * (statics - 1).max(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c<'a>(method: Method, path: &'a str, verb: &'a str) -> Candidate<'a> {
        Candidate {
            method,
            path,
            verb,
            risk: Risk::Low,
            deprecated: false,
            needs_person: false,
        }
    }

    #[test]
    fn at_most_the_core_budget_and_every_reason_given() {
        let paths: Vec<String> = (0..50).map(|i| format!("/things{i}")).collect();
        let all: Vec<Candidate<'_>> = paths.iter().map(|p| c(Method::Get, p, "list")).collect();
        let sel = propose(&all, 30, 40);
        assert_eq!(sel.iter().filter(|s| s.0 == Selection::Core).count(), 30);
        assert_eq!(sel.iter().filter(|s| s.0 == Selection::LeftOut).count(), 10);
        assert!(sel.iter().all(|s| !s.1.is_empty()));
    }

    #[test]
    fn plumbing_deprecated_and_critical_stay_out_of_core() {
        let mut critical = c(Method::Post, "/invoices/{id}/send", "send");
        critical.risk = Risk::Critical;
        let mut old = c(Method::Get, "/old", "list");
        old.deprecated = true;
        let all = [
            c(Method::Get, "/webhooks", "list"),
            old,
            critical,
            c(Method::Get, "/invoices", "list"),
        ];
        let sel: Vec<Selection> = propose(&all, 30, 100).into_iter().map(|s| s.0).collect();
        assert_eq!(
            sel,
            [
                Selection::LeftOut,
                Selection::LeftOut,
                Selection::Searchable,
                Selection::Core
            ]
        );
    }
}
