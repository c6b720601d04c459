//! The answer when nothing matched, which should still get the model to a tool: it says whether
//! the query or the connector name was unknown, names the tools closest to the query with each
//! word corrected a typo away ("did you mean"), and lists the connectors nearest to the query.

use std::fmt::Write as _;

use serde_json::json;

use super::advice;
use super::arguments::{Detail, SearchRequest};
use super::index::Index;
use super::query::PARTIAL_UP_TO;
use super::rank::{Group, top};
use super::render::{SearchAnswer, thousands};
use super::text::{SURFACE, Word};

impl Index {
    /// Nothing matched: say so, and name the closest tools (query words corrected against the
    /// vocabulary) and connectors.
    pub(super) fn no_match(
        &self,
        q: &SearchRequest,
        words: &[Word],
        vis: &[bool],
        in_scope: &[bool],
        total: usize,
    ) -> SearchAnswer {
        let mut text = self.headline(q);
        let names = self.closest_tools(words, in_scope);
        if !names.is_empty() {
            let _ = writeln!(text, "Closest tools: {}.", names.join(", "));
        }
        let connectors = self.nearest_connectors(q, words, vis);
        let listed: Vec<String> = connectors
            .iter()
            .take(10)
            .map(|(name, n)| format!("{name} ({n} tools)"))
            .collect();
        if !listed.is_empty() {
            let more = connectors.len().saturating_sub(10);
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let _ = writeln!(text, "Connectors: {}{tail}.", listed.join(", "));
        }
        let scope = q
            .connector
            .as_deref()
            .map_or(String::new(), |c| format!("{c} "));
        let advice = advice::after_no_match(q, connectors.first().map(|(name, _)| *name));
        let _ = write!(
            text,
            "\n0 of {} {scope}tools matched — detail: names (closest to the query). {}",
            thousands(total),
            advice.text()
        );
        let structured = json!({
            "query": q.query, "connector": q.connector, "matched": 0, "total": total,
            "detail": "names", "closest": names,
            "connectors": listed, "refine": advice.calls(),
        });
        SearchAnswer {
            text,
            structured,
            matched: 0,
            total,
            detail: Detail::Names,
        }
    }

    /// The first line: an unknown connector name is the likelier cause, so it is named first.
    fn headline(&self, q: &SearchRequest) -> String {
        let unknown_connector = q
            .connector
            .as_deref()
            .filter(|c| !self.connectors.iter().any(|k| k == c));
        match unknown_connector {
            Some(c) => format!("No connector is named \"{c}\".\n"),
            None => format!("No tool matched \"{}\".\n", q.query.trim()),
        }
    }

    /// The tools the query's words match once each is corrected a typo away, best first.
    fn closest_tools(&self, words: &[Word], in_scope: &[bool]) -> Vec<&str> {
        let fixed: Vec<Group> = words
            .iter()
            .filter_map(|w| self.closest_term(&w.first))
            .map(|t| Group {
                terms: vec![(t, 1.0)],
                surface: None,
            })
            .collect();
        let mut hits = self.score(&fixed, in_scope);
        // A word a typo away is a guess, not evidence to act on: no write is named closest.
        // Searching again with the corrected words finds one the query gives evidence for.
        hits.retain(|h| !self.docs[h.doc as usize].writes);
        top(&mut hits, PARTIAL_UP_TO);
        hits.iter()
            .take(PARTIAL_UP_TO)
            .map(|h| self.docs[h.doc as usize].name.as_str())
            .collect()
    }

    /// The connectors with visible tools, each with how many, nearest (in edit distance) to a
    /// query word or the connector asked for first.
    fn nearest_connectors(
        &self,
        q: &SearchRequest,
        words: &[Word],
        vis: &[bool],
    ) -> Vec<(&str, usize)> {
        let mut per = vec![0usize; self.connectors.len()];
        for (d, v) in vis.iter().enumerate() {
            if *v {
                per[self.doc_connector[d] as usize] += 1;
            }
        }
        let probe: Vec<String> = words
            .iter()
            .map(|w| w.surface.clone())
            .chain(q.connector.clone())
            .collect();
        let mut connectors: Vec<(usize, usize, usize)> = per
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(c, n)| {
                let name = &self.connectors[c];
                let distance = probe
                    .iter()
                    .map(|w| crate::contract::names::edit_distance(w, name))
                    .min()
                    .unwrap_or(0);
                (distance, c, *n)
            })
            .collect();
        connectors.sort_unstable();
        connectors
            .into_iter()
            .map(|(_, c, n)| (self.connectors[c].as_str(), n))
            .collect()
    }

    /// The indexed term nearest to a query word (a typo away), preferring common terms.
    fn closest_term(&self, word: &str) -> Option<u32> {
        let len = word.chars().count();
        if len < 3 {
            return None;
        }
        let max = if len <= 5 { 1 } else { 2 };
        self.terms
            .iter()
            .enumerate()
            .filter(|(_, t)| t.len().abs_diff(word.len()) <= max && !t.starts_with(SURFACE))
            .map(|(i, t)| (crate::contract::names::edit_distance(word, t), i))
            .filter(|(d, _)| *d <= max)
            .min_by_key(|(d, i)| (*d, usize::MAX - self.postings[*i].len()))
            .map(|(_, i)| i as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::fixtures::{all, req, small};
    use serde_json::json;

    #[test]
    fn no_match_says_so_and_names_the_closest_tools_and_connectors() {
        let index = small();
        let answer = index.search(&req("xylophon"), &all);
        assert_eq!(answer.matched, 0);
        assert!(
            answer.text.starts_with("No tool matched \"xylophon\".\n"),
            "{}",
            answer.text
        );
        assert!(
            answer.text.contains("Connectors: papierkram (5 tools)."),
            "{}",
            answer.text
        );
        assert!(
            answer.text.ends_with(
                "Refine: other words (German or English) or a tool name, query=\"\" with \
                 connector=\"papierkram\" to browse one connector."
            ),
            "{}",
            answer.text
        );
        assert_eq!(
            answer.structured["refine"],
            json!([{"query": "", "connector": "papierkram"}])
        );
        assert!(
            answer
                .text
                .contains("\n0 of 5 tools matched — detail: names (closest")
        );
        let typo = index.search(&req("zeiterfasung"), &all);
        assert!(
            typo.text
                .contains("Closest tools: papierkram_time_entries_list."),
            "{}",
            typo.text
        );
        let unknown = SearchRequest {
            connector: Some("papierkarm".into()),
            ..req("rechnung")
        };
        let answer = index.search(&unknown, &all);
        assert!(
            answer
                .text
                .starts_with("No connector is named \"papierkarm\".\n"),
            "{}",
            answer.text
        );
        assert!(answer.text.contains("Connectors: papierkram (5 tools)."));
    }
}
