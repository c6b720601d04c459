//! Scoring query words against the index: the terms each word matches (its stems, longer
//! compounds containing it, the known parts of an unknown compound), summed per tool, and the
//! order of hits. Relevance first counts points per query word: a word that names the tool (in its
//! name or subject) earns more than one it merely mentions, so "details of invoice 42" finds
//! papierkram_invoice_get before tools that mention invoices and details somewhere; the BM25F score breaks
//! ties.

use super::index::{Index, MENTIONED};
use super::period::{MONTH_WORDS, is_month};
use super::stem::stem;
use super::text::{SURFACE, Word};

/// A query word found only as part of a longer indexed word (Rechnung in Ausgangsrechnungen)
/// is weaker evidence than the word itself.
const COMPOUND_WEIGHT: f32 = 0.5;
/// Bonus for the exact (unstemmed) word on top of its stem's score: a tie-breaker between the
/// singular and the plural (papierkram_invoice_get, papierkram_invoices_list), not a second match. Top-1 on the
/// shipped query set is the same from 0.25 to 0.75; the smallest keeps it from outweighing a name.
const SURFACE_WEIGHT: f32 = 0.25;
/// A month name matching the month itself ("März": Monat) is a mention, weaker than the word.
const MONTH_WEIGHT: f32 = 0.75;
/// Shortest query word matched as part of a compound, and shortest part of a split query word.
const MIN_PART: usize = 4;
/// Points for a query word by where the tool has it (`index::MENTIONED`, `IN_SUBJECT`,
/// `IN_NAME`); a compound part only ever counts as a mention. A name beats two mentions, often a
/// filler word ("details") and a cross-reference; the score breaks ties.
const POINTS: [u16; 3] = [1, 2, 3];

#[derive(Debug, Clone, Copy)]
pub(super) struct Hit {
    pub(super) doc: u32,
    pub(super) score: f32,
    /// Query words matched.
    pub(super) cover: u16,
    /// `POINTS` per query word matched: what ranks first.
    pub(super) points: u16,
}

/// What one query word matches: candidate terms with weights, and its exact surface term.
pub(super) struct Group {
    pub(super) terms: Vec<(u32, f32)>,
    pub(super) surface: Option<u32>,
}

impl Index {
    /// Every in-scope doc that matches at least one query word, with its score and how many
    /// query words it matched.
    pub(super) fn score(&self, groups: &[Group], in_scope: &[bool]) -> Vec<Hit> {
        let n = self.docs.len();
        let mut total = vec![0f32; n];
        let mut cover = vec![0u16; n];
        let mut points = vec![0u16; n];
        let mut best = vec![0f32; n];
        let mut place = vec![MENTIONED; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut any: Vec<u32> = Vec::new();
        for group in groups {
            for &(term, weight) in &group.terms {
                for p in &self.postings[term as usize] {
                    let slot = &mut best[p.doc as usize];
                    if *slot == 0.0 {
                        touched.push(p.doc);
                    }
                    *slot = slot.max(p.score * weight);
                    if weight == 1.0 {
                        let slot = &mut place[p.doc as usize];
                        *slot = (*slot).max(p.place);
                    }
                }
            }
            for d in touched.drain(..) {
                let d = d as usize;
                if cover[d] == 0 {
                    any.push(d as u32);
                }
                total[d] += best[d];
                cover[d] += 1;
                points[d] += POINTS[place[d] as usize];
                best[d] = 0.0;
                place[d] = MENTIONED;
            }
            // Only docs with the stem have the surface word: coverage is already counted.
            for p in group
                .surface
                .map_or(&[][..], |t| &self.postings[t as usize])
            {
                total[p.doc as usize] += SURFACE_WEIGHT * p.score;
            }
        }
        any.into_iter()
            .filter(|d| in_scope[*d as usize])
            .map(|doc| Hit {
                doc,
                score: total[doc as usize],
                cover: cover[doc as usize],
                points: points[doc as usize],
            })
            .collect()
    }

    /// The indexed terms a query word matches: its own forms, longer words starting or ending
    /// with it (compounds), and, when the word itself is unknown, known words it starts or ends
    /// with (Kundenrechnungen: Kunde, Rechnung).
    pub(super) fn candidates(&self, word: &Word) -> Group {
        let forms: Vec<&String> = std::iter::once(&word.first).chain(&word.second).collect();
        let mut out: Vec<(u32, f32)> = Vec::new();
        for f in forms.iter().copied() {
            if let Some(&t) = self.term_ids.get(f) {
                out.push((t, 1.0));
            }
        }
        let known = !out.is_empty();
        for f in forms {
            let chars = f.chars().count();
            if chars < MIN_PART {
                continue;
            }
            let start = self
                .by_prefix
                .partition_point(|t| self.terms[*t as usize].as_str() < f.as_str());
            for &t in &self.by_prefix[start..] {
                let term = &self.terms[t as usize];
                if !term.starts_with(f.as_str()) {
                    break;
                }
                if term.len() > f.len() {
                    out.push((t, COMPOUND_WEIGHT));
                }
            }
            let reversed: String = f.chars().rev().collect();
            let start = self
                .by_suffix
                .partition_point(|(r, _)| r.as_str() < reversed.as_str());
            for (r, t) in &self.by_suffix[start..] {
                if !r.starts_with(reversed.as_str()) {
                    break;
                }
                if r.len() > reversed.len() {
                    out.push((*t, COMPOUND_WEIGHT));
                }
            }
            if known {
                continue;
            }
            let cuts: Vec<usize> = f.char_indices().map(|(i, _)| i).collect();
            for (k, &cut) in cuts.iter().enumerate() {
                if k < MIN_PART || cuts.len() - k < MIN_PART {
                    continue;
                }
                for part in [stem(&f[..cut]), f[cut..].to_string()] {
                    if let Some(&t) = self.term_ids.get(&part) {
                        out.push((t, COMPOUND_WEIGHT));
                    }
                }
            }
        }
        if is_month(&word.surface) {
            for m in MONTH_WORDS {
                if let Some(&t) = self.term_ids.get(&stem(m)) {
                    out.push((t, MONTH_WEIGHT));
                }
            }
        }
        out.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        out.dedup_by_key(|c| c.0);
        let surface = format!("{SURFACE}{}", word.surface);
        Group {
            terms: out,
            surface: self.term_ids.get(&surface).copied(),
        }
    }
}

/// Moves the elements satisfying `keep` to the front; returns how many there are.
pub(super) fn partition(hits: &mut [Hit], keep: impl Fn(&Hit) -> bool) -> usize {
    let mut split = 0;
    for i in 0..hits.len() {
        if keep(&hits[i]) {
            hits.swap(split, i);
            split += 1;
        }
    }
    split
}

/// Orders the best `k` hits first (more points, then score, then catalog order).
pub(super) fn top(hits: &mut [Hit], k: usize) {
    let order = |a: &Hit, b: &Hit| {
        b.points
            .cmp(&a.points)
            .then(b.score.total_cmp(&a.score))
            .then(a.doc.cmp(&b.doc))
    };
    if k == 0 || hits.is_empty() {
        return;
    }
    if k < hits.len() {
        hits.select_nth_unstable_by(k - 1, order);
    }
    let k = k.min(hits.len());
    hits[..k].sort_unstable_by(order);
}

#[cfg(test)]
mod tests {
    use crate::search::fixtures::{all, ranked, req, small};

    #[test]
    fn query_words_find_compounds_and_compound_queries_find_their_parts() {
        let index = small();
        // The word itself first, then the compound.
        assert_eq!(
            ranked(&index, "Rechnung", &all),
            ["papierkram_invoices_list", "papierkram_vouchers_list"]
        );
        assert_eq!(
            ranked(&index, "Eingangsrechnung", &all),
            ["papierkram_vouchers_list"]
        );
        let parts = ranked(&index, "kundenrechnungen", &all);
        assert!(
            parts.contains(&"papierkram_companies_list")
                && parts.contains(&"papierkram_invoices_list"),
            "{parts:?}"
        );
        assert!(ranked(&index, "zeit", &all).contains(&"papierkram_time_entries_list"));
    }

    #[test]
    fn tools_matching_every_word_rank_before_partial_matches() {
        let index = small();
        let hits = ranked(&index, "invoices company", &all);
        // papierkram_invoices_list: both words; papierkram_invoice_get only one, despite its short, focused text.
        assert_eq!(hits[0], "papierkram_invoices_list", "{hits:?}");
        let answer = index.search(&req("invoices company"), &all);
        assert!(answer.matched >= 1 && answer.matched < 4, "{}", answer.text);
        assert!(
            answer.text.contains("Partial matches (not every word): "),
            "{}",
            answer.text
        );
    }
}
