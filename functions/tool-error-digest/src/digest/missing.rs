//! The "Missing capabilities" section: what users asked for that no tool could do, from the
//! `missing-capabilities` rows. Searches without a match are grouped by the words their audit
//! line kept (only words of the search index's vocabulary; the others are counted, never
//! written), calls of unknown tools by the name called.

use std::collections::BTreeMap;

use crate::rows::MissRow;

/// Search word groups and unknown tools shown each; the rest are summed in one line.
pub const MISSING_SHOWN: usize = 10;

/// The `search_tools` reason prefix of a search that found nothing.
pub const NO_MATCH_PREFIX: &str = "no_match:";
/// The reason of a call of a name that is no visible tool.
pub const UNKNOWN_TOOL: &str = "unknown_tool";

/// One search word group or one unknown tool name, and how often.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss {
    /// The kept words, space-separated (empty when the search kept none), or the tool name.
    pub what: String,
    pub count: u64,
}

/// Searches without a match and calls of unknown tools in the week.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MissingCapabilities {
    /// Per kept-words group, most first.
    pub searches: Vec<Miss>,
    /// Query words not written to the audit log (not in the vocabulary), over all searches.
    pub dropped_words: u64,
    /// Per tool name, most first.
    pub unknown_tools: Vec<Miss>,
}

impl MissingCapabilities {
    pub fn is_empty(&self) -> bool {
        self.searches.is_empty() && self.unknown_tools.is_empty()
    }

    pub fn search_count(&self) -> u64 {
        self.searches.iter().map(|m| m.count).sum()
    }

    pub fn unknown_tool_calls(&self) -> u64 {
        self.unknown_tools.iter().map(|m| m.count).sum()
    }
}

/// `mahnung lieferschein +2` → (`mahnung lieferschein`, 2); ` +3` → (``, 3). A trailing `+N`
/// that is not a number is taken as a word.
pub fn no_match_words(rest: &str) -> (String, u64) {
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    let dropped = match words.last().and_then(|w| w.strip_prefix('+')) {
        Some(n) => match n.parse::<u64>() {
            Ok(n) => {
                words.pop();
                n
            }
            Err(_) => 0,
        },
        None => 0,
    };
    (words.join(" "), dropped)
}

pub fn missing_capabilities(rows: &[MissRow]) -> MissingCapabilities {
    let mut searches: BTreeMap<String, u64> = BTreeMap::new();
    let mut tools: BTreeMap<String, u64> = BTreeMap::new();
    let mut dropped_words = 0;
    for r in rows {
        let reason = r.reason.as_deref().unwrap_or_default();
        if let Some(rest) = reason.strip_prefix(NO_MATCH_PREFIX) {
            let (words, dropped) = no_match_words(rest);
            *searches.entry(words).or_default() += r.misses;
            dropped_words += dropped * r.misses;
        } else if reason == UNKNOWN_TOOL {
            *tools.entry(r.tool.clone()).or_default() += r.misses;
        }
    }
    MissingCapabilities {
        searches: ranked(searches),
        dropped_words,
        unknown_tools: ranked(tools),
    }
}

fn ranked(counts: BTreeMap<String, u64>) -> Vec<Miss> {
    let mut list: Vec<Miss> = counts
        .into_iter()
        .filter(|(_, count)| *count > 0)
        .map(|(what, count)| Miss { what, count })
        .collect();
    // Stable: ties stay in name order from the map.
    list.sort_by_key(|m| std::cmp::Reverse(m.count));
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(reason: &str, misses: u64) -> MissRow {
        MissRow {
            event: "tool_call".into(),
            tool: "search_tools".into(),
            reason: Some(reason.into()),
            misses,
        }
    }

    fn unknown(tool: &str, misses: u64) -> MissRow {
        MissRow {
            event: "tool_error".into(),
            tool: tool.into(),
            reason: Some(UNKNOWN_TOOL.into()),
            misses,
        }
    }

    fn pairs(list: &[Miss]) -> Vec<(&str, u64)> {
        list.iter().map(|m| (m.what.as_str(), m.count)).collect()
    }

    #[test]
    fn no_match_reasons_split_into_kept_words_and_a_dropped_count() {
        assert_eq!(
            no_match_words("mahnung lieferschein +2"),
            ("mahnung lieferschein".into(), 2)
        );
        assert_eq!(no_match_words("mahnung"), ("mahnung".into(), 0));
        assert_eq!(no_match_words(" +3"), (String::new(), 3));
        assert_eq!(no_match_words(""), (String::new(), 0));
        assert_eq!(no_match_words("c +plus"), ("c +plus".into(), 0));
    }

    #[test]
    fn searches_group_by_kept_words_and_dropped_words_add_up() {
        let m = missing_capabilities(&[
            search("no_match:mahnung lieferschein +2", 3),
            search("no_match:mahnung lieferschein", 1),
            search("no_match:reisekosten", 2),
            search("no_match: +3", 1),
            search("no_match:reisekosten +1", 1),
        ]);
        assert_eq!(
            pairs(&m.searches),
            [("mahnung lieferschein", 4), ("reisekosten", 3), ("", 1)]
        );
        assert_eq!(m.dropped_words, 3 * 2 + 3 + 1);
        assert_eq!(m.search_count(), 8);
        assert!(m.unknown_tools.is_empty());
    }

    #[test]
    fn unknown_tools_are_counted_by_name_most_first() {
        let m = missing_capabilities(&[
            unknown("mahnung_create", 1),
            unknown("papierkram_invoice_send", 2),
            unknown("papierkram_invoice_send", 1),
            MissRow {
                reason: Some("timeout".into()),
                ..unknown("other", 5)
            },
        ]);
        assert_eq!(
            pairs(&m.unknown_tools),
            [("papierkram_invoice_send", 3), ("mahnung_create", 1)]
        );
        assert_eq!(m.unknown_tool_calls(), 4);
        assert!(m.searches.is_empty() && !m.is_empty());
    }

    #[test]
    fn no_rows_nothing_missing() {
        assert!(missing_capabilities(&[]).is_empty());
    }
}
