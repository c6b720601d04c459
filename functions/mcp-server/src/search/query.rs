//! One search from request to answer: the tools a profile may see and the connector in scope,
//! hits split into those matching the most query words and partial matches, the detail level and
//! page size chosen from the count, and a note on words no tool has. Scoring is `rank`'s, the
//! text `render`'s.

use super::arguments::{Detail, SearchRequest};
use super::evidence::Query;
use super::index::Index;
use super::rank::{Group, Hit, partition, top};
use super::render::{MORE_NAMES, Page, SearchAnswer};
use super::text::query_words;

/// Partial matches (not every query word) named when fewer tools than this matched fully.
pub(super) const PARTIAL_UP_TO: usize = 5;

/// The tools one profile may see, from [`Index::visibility`].
#[derive(Debug, Clone)]
pub struct Visibility(Vec<bool>);

impl Index {
    /// Searches the tools `visible` admits (a profile's view) within `q.connector`.
    pub fn search(&self, q: &SearchRequest, visible: &dyn Fn(&str) -> bool) -> SearchAnswer {
        self.search_in(q, &self.visibility(visible))
    }

    /// Which tools a profile may see, worked out once: profiles are fixed at start, and a
    /// per-tool check on every search costs more than the search (5,000 hash-set look-ups).
    pub fn visibility(&self, visible: &dyn Fn(&str) -> bool) -> Visibility {
        Visibility(self.docs.iter().map(|d| visible(&d.name)).collect())
    }

    /// [`Index::search`] with a precomputed `Visibility` of this index.
    pub fn search_in(&self, q: &SearchRequest, visibility: &Visibility) -> SearchAnswer {
        let vis: Vec<bool> = (0..self.docs.len())
            .map(|d| visibility.0.get(d).copied().unwrap_or(false))
            .collect();
        let connector = q
            .connector
            .as_ref()
            .map(|c| self.connectors.binary_search(c).ok().map(|i| i as u32));
        let in_scope: Vec<bool> = vis
            .iter()
            .zip(&self.doc_connector)
            .map(|(v, dc)| *v && connector.is_none_or(|c| c == Some(*dc)))
            .collect();
        let total = in_scope.iter().filter(|s| **s).count();
        let words = query_words(&q.query);
        let groups: Vec<Group> = words.iter().map(|w| self.candidates(w)).collect();
        let mut hits = if words.is_empty() {
            (0..self.docs.len() as u32)
                .filter(|d| in_scope[*d as usize])
                .map(|doc| Hit {
                    doc,
                    score: 0.0,
                    cover: 0,
                    points: 0,
                })
                .collect()
        } else {
            self.score(&groups, &in_scope)
        };
        self.drop_unevidenced_writes(&mut hits, &Query::new(words.iter().zip(&groups)));
        if hits.is_empty() {
            return self.no_match(q, &words, &vis, &in_scope, total);
        }
        let max_cover = hits.iter().map(|h| h.cover).max().unwrap_or(0);
        let max_points = hits.iter().map(|h| h.points).max().unwrap_or(0);
        let split = partition(&mut hits, |h| h.points == max_points);
        let (matched, rest) = hits.split_at_mut(split);
        let n = matched.len();
        let requested = q
            .detail
            .unwrap_or_else(|| Detail::for_count(q.limit.unwrap_or(n).min(n)));
        let shown = q.limit.unwrap_or(requested.page()).min(n);
        if requested != Detail::Counts {
            top(matched, (shown + MORE_NAMES).min(n));
        }
        let partial: Vec<Hit> = if n < PARTIAL_UP_TO && requested <= Detail::Summary {
            top(rest, PARTIAL_UP_TO - n);
            rest.iter().take(PARTIAL_UP_TO - n).copied().collect()
        } else {
            Vec::new()
        };
        let unknown: Vec<&str> = words
            .iter()
            .zip(&groups)
            .filter(|(_, g)| {
                g.terms
                    .iter()
                    .all(|(t, _)| self.postings[*t as usize].is_empty())
            })
            .map(|(w, _)| w.raw.as_str())
            .collect();
        let note = if !unknown.is_empty() {
            Some(format!("No tool mentions: {}.", unknown.join(", ")))
        } else if usize::from(max_cover) < words.len() {
            Some("No tool matches every word; these match the most.".to_string())
        } else {
            None
        };
        let page = Page {
            q,
            requested,
            counts: self.counts(matched),
            matched,
            shown,
            partial,
            total,
            note,
        };
        self.answer(&page)
    }

    /// Matches per connector, most first.
    fn counts(&self, hits: &[Hit]) -> Vec<(usize, usize)> {
        let mut per = vec![0usize; self.connectors.len()];
        for h in hits {
            per[self.doc_connector[h.doc as usize] as usize] += 1;
        }
        let mut counts: Vec<(usize, usize)> = per
            .into_iter()
            .enumerate()
            .filter(|(_, n)| *n > 0)
            .collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counts
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::arguments::FULL_PAGE;
    use super::*;
    use crate::search::fixtures::{all, first, ranked, req, small, widgets};

    #[test]
    fn answers_say_which_words_no_tool_has() {
        let index = small();
        let unknown = index.search(&req("Zeiterfassung Woche"), &all);
        assert!(
            unknown
                .text
                .starts_with("No tool mentions: Woche.\n\n## papierkram_time_entries_list"),
            "{}",
            unknown.text
        );
        let apart = index.search(&req("Zeiterfassung Belege"), &all);
        assert!(
            apart
                .text
                .starts_with("No tool matches every word; these match the most.\n\n"),
            "{}",
            apart.text
        );
        assert_eq!(apart.matched, 2);
    }

    #[test]
    fn explicit_detail_and_limit_are_honoured() {
        let index = widgets();
        let five = SearchRequest {
            limit: Some(5),
            ..req("widget")
        };
        let answer = index.search(&five, &first(100));
        assert_eq!(answer.detail, Detail::Full);
        assert_eq!(answer.text.matches("Input schema: ").count(), 5);
        let names = SearchRequest {
            detail: Some(Detail::Names),
            ..req("widget")
        };
        let answer = index.search(&names, &first(3));
        assert_eq!(answer.detail, Detail::Names);
        assert_eq!(
            answer.structured["tools"],
            json!(["widget_0000_get", "widget_0001_get", "widget_0002_get"])
        );
        let full = SearchRequest {
            detail: Some(Detail::Full),
            ..req("widget")
        };
        let answer = index.search(&full, &first(300));
        assert_eq!(answer.text.matches("Input schema: ").count(), FULL_PAGE);
        assert!(answer.text.contains("top 10 shown"));
    }

    #[test]
    fn hidden_tools_are_never_found_nor_counted() {
        let index = small();
        let hide = |name: &str| name != "papierkram_invoice_get";
        assert!(
            !ranked(&index, "papierkram_invoice_get", &hide).contains(&"papierkram_invoice_get")
        );
        let answer = index.search(&req("invoice get"), &hide);
        assert!(
            !answer.text.contains("papierkram_invoice_get"),
            "{}",
            answer.text
        );
        assert_eq!(answer.total, 4);
        let everything = index.search(&req(""), &hide);
        assert_eq!((everything.matched, everything.total), (4, 4));
    }

    #[test]
    fn empty_query_with_a_connector_browses_it() {
        let index = small();
        let browse = SearchRequest {
            connector: Some("papierkram".into()),
            ..req("")
        };
        let answer = index.search(&browse, &all);
        assert_eq!((answer.matched, answer.detail), (5, Detail::Full));
        assert!(
            answer
                .text
                .starts_with("## papierkram_invoices_list (papierkram)\n"),
            "{}",
            answer.text
        );
    }
}
