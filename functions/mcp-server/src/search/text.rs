//! Text analysis shared by the index build and queries, so their terms meet: words split from
//! names, parameter names and prose, lowercased with German umlauts folded (ä → ae, plus the
//! plain vowel form), stop words, numbers and single letters dropped, then stemmed.

use std::collections::HashSet;
use std::sync::OnceLock;

use super::stem::stem_into;
use rustc_hash::FxBuildHasher;

/// Words dropped from queries and documents (folded, lowercase, sorted): question words, articles
/// and the like in English and German, plus time words that belong in arguments ("last week").
const STOP_WORDS: &[&str] = &[
    "aber", "about", "all", "alle", "allen", "aller", "alles", "als", "also", "am", "an", "and",
    "any", "are", "as", "at", "auch", "auf", "aus", "be", "been", "bei", "bin", "bis", "bitte",
    "but", "by", "can", "could", "da", "das", "dass", "dem", "den", "der", "des", "did", "die",
    "dies", "diese", "diesem", "diesen", "dieser", "dieses", "do", "does", "du", "ein", "eine",
    "einem", "einen", "einer", "eines", "er", "es", "for", "from", "fuer", "gib", "gibt", "give",
    "hab", "habe", "haben", "has", "hat", "hatte", "hatten", "have", "how", "ich", "if", "ihr",
    "im", "in", "into", "is", "ist", "it", "its", "ja", "just", "kann", "kein", "keine", "last",
    "let", "letzte", "letzten", "letzter", "letztes", "mal", "man", "many", "me", "mein", "meine",
    "meinen", "meiner", "mir", "mit", "much", "my", "nach", "nicht", "noch", "not", "now", "nur",
    "oder", "of", "on", "or", "our", "ours", "please", "schon", "sein", "seit", "show", "sich",
    "sie", "sind", "so", "some", "still", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "to", "und", "uns", "unser", "unsere", "unserem", "unseren",
    "unserer", "us", "use", "via", "viel", "viele", "vielen", "vom", "von", "vor", "war", "waren",
    "was", "we", "welche", "welchem", "welchen", "welcher", "welches", "wer", "werden", "were",
    "what", "when", "where", "which", "who", "whom", "whose", "why", "wie", "wieviel", "will",
    "wir", "wird", "with", "wo", "would", "yet", "you", "your", "zeig", "zeige", "zeigen", "zu",
    "zum", "zur",
];

/// Reusable buffers that turn raw words into terms without allocating per word.
#[derive(Default)]
pub(super) struct Normaliser {
    pub(super) folded: String,
    plain: String,
    pub(super) stem: String,
    plain_stem: String,
}

impl Normaliser {
    /// Lowercases `raw` and folds umlauts (ä → ae) into `folded`; when it had any, also writes
    /// the plain vowel form (ä → a) to `plain`, which matches plurals with umlaut (Umsätze,
    /// Umsatz) and words typed without umlauts. Queries are folded the same way, so the literal
    /// ä form would add nothing. Then stems both. False for stop words, numbers, single letters.
    pub(super) fn load(&mut self, raw: &str) -> bool {
        if raw.chars().nth(1).is_none() || raw.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        self.folded.clear();
        self.plain.clear();
        let mut umlauts = false;
        if raw.is_ascii() {
            self.folded.push_str(raw);
            self.folded.make_ascii_lowercase();
        } else {
            self.fold(raw, &mut umlauts);
        }
        if is_stop_word(&self.folded) {
            return false;
        }
        stem_into(&self.folded, &mut self.stem);
        self.plain_stem.clear();
        if umlauts {
            stem_into(&self.plain, &mut self.plain_stem);
        }
        true
    }

    fn fold(&mut self, raw: &str, umlauts: &mut bool) {
        for c in raw.chars().flat_map(char::to_lowercase) {
            let (f, p) = match c {
                'ä' => ("ae", "a"),
                'ö' => ("oe", "o"),
                'ü' => ("ue", "u"),
                'ß' => ("ss", "ss"),
                _ => {
                    self.folded.push(c);
                    self.plain.push(c);
                    continue;
                }
            };
            *umlauts |= c != 'ß';
            self.folded.push_str(f);
            self.plain.push_str(p);
        }
    }

    /// The second stem, when the plain vowel form gave a different one.
    pub(super) fn second(&self) -> Option<&str> {
        (!self.plain_stem.is_empty() && self.plain_stem != self.stem)
            .then_some(self.plain_stem.as_str())
    }
}

/// One query word: its stemmed forms and its unstemmed (folded) surface.
fn forms(raw: &str) -> Option<Word> {
    let mut n = Normaliser::default();
    n.load(raw).then(|| Word {
        raw: raw.to_string(),
        first: n.stem.clone(),
        second: n.second().map(str::to_string),
        surface: n.folded.clone(),
    })
}

/// One word as indexed: its stemmed forms, and the unstemmed (folded) word, which scores a
/// bonus when a query has it exactly: "Belege" prefers the list of vouchers over one "Beleg".
pub(super) struct Word {
    /// As typed, for messages.
    pub(super) raw: String,
    pub(super) first: String,
    pub(super) second: Option<String>,
    pub(super) surface: String,
}

/// Marks surface terms in the vocabulary (never a letter, so never a compound part).
pub(super) const SURFACE: char = '=';

/// Words of names, parameter names and queries: `_` separates them.
pub(super) fn split_words(text: &str) -> impl Iterator<Item = &str> {
    Words {
        text,
        pos: 0,
        underscore: false,
    }
}

/// Words of descriptions, without identifiers: `papierkram_companies_list` or `company_id` in prose refer
/// to other tools or to parameters (indexed in their own field), and would make every tool that
/// mentions `papierkram_invoices_list` match "list invoices".
pub(super) fn prose_words(text: &str) -> impl Iterator<Item = &str> {
    Words {
        text,
        pos: 0,
        underscore: true,
    }
    .filter(|w| !w.contains('_'))
}

/// Runs of alphanumeric characters (and `_` when `underscore`), bytewise for ASCII: the index
/// build splits every description.
struct Words<'a> {
    text: &'a str,
    pos: usize,
    underscore: bool,
}

impl Words<'_> {
    /// Whether the character at byte `i` belongs to a word, and its length in bytes.
    fn at(&self, i: usize) -> (bool, usize) {
        let b = self.text.as_bytes()[i];
        if b.is_ascii() {
            return (
                b.is_ascii_alphanumeric() || (self.underscore && b == b'_'),
                1,
            );
        }
        let c = self.text[i..].chars().next().unwrap_or(' ');
        (c.is_alphanumeric(), c.len_utf8())
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let len = self.text.len();
        while self.pos < len {
            let (word, width) = self.at(self.pos);
            if word {
                break;
            }
            self.pos += width;
        }
        let start = self.pos;
        while self.pos < len {
            let (word, width) = self.at(self.pos);
            if !word {
                break;
            }
            self.pos += width;
        }
        (start < self.pos).then(|| &self.text[start..self.pos])
    }
}

/// The stemmed index terms of `text` in order, both forms of a word side by side (what the
/// tests read the normaliser by).
#[cfg(test)]
fn terms(text: &str) -> Vec<String> {
    let mut norm = Normaliser::default();
    let mut out = Vec::new();
    for raw in split_words(text) {
        if norm.load(raw) {
            out.push(norm.stem.clone());
            out.extend(norm.second().map(str::to_string));
        }
    }
    out
}

/// The query's words without repeats.
pub(super) fn query_words(query: &str) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    for word in split_words(query).filter_map(forms) {
        if !out.iter().any(|w| w.first == word.first) {
            out.push(word);
        }
    }
    out
}

/// Longest stop word: longer words skip the look-up.
const STOP_WORD_MAX_LEN: usize = 7;

/// A hash set rather than a binary search: the index build asks for every word.
fn is_stop_word(word: &str) -> bool {
    static SET: OnceLock<HashSet<&str, FxBuildHasher>> = OnceLock::new();
    word.len() <= STOP_WORD_MAX_LEN
        && SET
            .get_or_init(|| STOP_WORDS.iter().copied().collect())
            .contains(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::fixtures::{all, ranked, small};

    #[test]
    fn tokeniser_splits_on_underscores_and_drops_stop_words_numbers_and_letters() {
        assert_eq!(
            terms("invoices_list: Use it for 2026 customers, e.g. X!"),
            ["invoic", "list", "customer"]
        );
        assert_eq!(
            terms("Welche Rechnungen sind noch offen?"),
            ["rechnung", "off"]
        );
    }

    #[test]
    fn words_split_at_every_non_alphanumeric_character() {
        let text = "Außenstände (offene_posten), e.g. 5€ — “Rechnungen”… éclair";
        let words: Vec<&str> = split_words(text).collect();
        assert_eq!(
            words,
            [
                "Außenstände",
                "offene",
                "posten",
                "e",
                "g",
                "5",
                "Rechnungen",
                "éclair"
            ]
        );
        let prose: Vec<&str> = prose_words(text).collect();
        assert_eq!(
            prose,
            ["Außenstände", "e", "g", "5", "Rechnungen", "éclair"]
        );
    }

    #[test]
    fn umlauts_fold_and_the_plain_vowel_form_is_indexed_too() {
        assert_eq!(terms("Umsätze"), ["umsaetz", "umsatz"]);
        assert_eq!(terms("Straße"), ["strass"]);
        assert_eq!(terms("ÜBERSICHT"), ["uebersicht", "ubersicht"]);
        let index = small();
        for query in ["umsatz", "Umsätze", "umsaetze", "UMSATZE"] {
            assert_eq!(
                ranked(&index, query, &all),
                ["papierkram_time_entries_list"],
                "{query}"
            );
        }
    }

    #[test]
    fn stop_words_are_sorted_folded_and_found() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP_WORDS.iter().all(|w| w.is_ascii()));
        assert_eq!(
            STOP_WORDS.iter().map(|w| w.len()).max(),
            Some(STOP_WORD_MAX_LEN)
        );
        assert!(STOP_WORDS.iter().all(|w| is_stop_word(w)));
        assert!(!is_stop_word("rechnung"));
    }
}
