//! The BM25F index over every tool a deployment serves, built once (by the inventory, on the
//! first search: `Inventory::search`): per term, the docs that have it with the term's score
//! already worked out, so a search only adds up postings.
//! Fields are weighted, the name most (see `BOOST`); each posting also says whether the term
//! names the tool (in its name or its description's subject), which ranking weighs above a mention.

use rustc_hash::FxBuildHasher;
use std::collections::HashMap;

use serde_json::Value;

use super::summary::{subject_end, summary};
use super::text::{Normaliser, SURFACE, prose_words, split_words};

const K1: f32 = 1.2;
const B: f32 = 0.75;
const FIELDS: usize = 5;
const NAME: usize = 0;
const SUBJECT: usize = 1;
const DESCRIPTION: usize = 2;
const PARAMS: usize = 3;
/// Field boosts for name, the description's subject (see `subject_end`), the rest of the
/// description, parameter names, connector. BM25F: boosted term frequencies share one
/// saturation, so a word in three fields does not score three times. The name states what the
/// tool is (×3); the subject says it again with its aliases in other languages (×2); parameter
/// names say what it filters by or needs, stronger than a mention in prose but often generic like
/// `id` or `order_by` (×1.5); the rest of the description carries examples and cross-references
/// (×1); the connector name lets "hubspot contacts" prefer that connector (×1).
const BOOST: [f32; FIELDS] = [3.0, 2.0, 1.0, 1.5, 1.0];

/// One searchable tool, as the caller built it from the catalog. Forbidden tools must not be
/// passed in at all; hidden ones are filtered per request by `visible`.
#[derive(Debug, Clone)]
pub struct Doc {
    pub name: String,
    pub connector: String,
    pub description: String,
    pub params: Vec<String>,
    /// The full input schema, shown at the `full` detail level.
    pub schema: Value,
    /// The tool changes something upstream (risk above `low`): one shared word is not enough
    /// evidence to offer it (`query`).
    pub writes: bool,
}

impl Doc {
    /// A catalog tool as a search document: declared parameter names, the served input schema.
    pub fn from_tool(catalog: &catalog::Catalog, tool: &catalog::Tool) -> Doc {
        let shape = crate::contract::cursor::ListShape::of(catalog, tool);
        Doc {
            name: tool.name.to_string(),
            connector: catalog.connector.to_string(),
            description: tool.description.to_string(),
            params: tool.params.keys().map(|k| k.to_string()).collect(),
            schema: Value::Object(crate::contract::schema::input_schema(tool, shape)),
            writes: tool.risk > catalog::Risk::Low,
        }
    }
}

/// The search index over every tool a deployment serves; built once, on the first search.
pub struct Index {
    pub(super) docs: Vec<Doc>,
    pub(super) summaries: Vec<String>,
    pub(super) connectors: Vec<String>,
    pub(super) doc_connector: Vec<u32>,
    pub(super) term_ids: Terms,
    pub(super) terms: Vec<String>,
    /// Term ids ordered by term, for prefix look-ups.
    pub(super) by_prefix: Vec<u32>,
    /// Reversed terms with their ids, ordered, for suffix look-ups.
    pub(super) by_suffix: Vec<(String, u32)>,
    /// Per term, the docs that have it.
    pub(super) postings: Vec<Vec<Posting>>,
}

pub(super) const MENTIONED: u8 = 0;
pub(super) const IN_SUBJECT: u8 = 1;
pub(super) const IN_NAME: u8 = 2;

/// One doc that has a term.
#[derive(Debug, Clone, Copy)]
pub(super) struct Posting {
    pub(super) doc: u32,
    /// The BM25F score of the term in the doc.
    pub(super) score: f32,
    /// Where the term is: `IN_NAME`, `IN_SUBJECT` or `MENTIONED` (ranking counts points by it).
    pub(super) place: u8,
}

/// Term look-ups dominate the index build; catalog text is trusted, so FxHash (rustc's hash)
/// instead of SipHash, whose flooding resistance buys nothing here.
type Terms = HashMap<String, u32, FxBuildHasher>;

/// Absent term (no second stem, or no surface for this field).
const NO_TERM: u32 = u32::MAX;

/// The vocabulary while building: term ids, and each distinct raw word's terms, so a word seen
/// before costs one look-up instead of folding, stemming and three look-ups.
struct Vocabulary<'a> {
    ids: Terms,
    terms: Vec<String>,
    /// Raw word → [stem, plain-vowel stem, surface]; `None` for stop words.
    words: HashMap<&'a str, Option<[u32; 3]>, FxBuildHasher>,
    norm: Normaliser,
    buf: String,
}

impl<'a> Vocabulary<'a> {
    fn with_capacity(docs: usize) -> Self {
        Vocabulary {
            ids: Terms::with_capacity_and_hasher(docs * 4, Default::default()),
            terms: Vec::new(),
            words: HashMap::with_capacity_and_hasher(docs * 4, Default::default()),
            norm: Normaliser::default(),
            buf: String::new(),
        }
    }

    fn intern(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = self.terms.len() as u32;
        self.terms.push(term.to_string());
        self.ids.insert(term.to_string(), id);
        id
    }

    fn word(&mut self, raw: &'a str) -> Option<[u32; 3]> {
        if let Some(ids) = self.words.get(raw) {
            return *ids;
        }
        let ids = if self.norm.load(raw) {
            let stem = std::mem::take(&mut self.norm.stem);
            let first = self.intern(&stem);
            self.norm.stem = stem;
            let second = match self.norm.second().map(str::to_string) {
                Some(plain) => self.intern(&plain),
                None => NO_TERM,
            };
            let mut buf = std::mem::take(&mut self.buf);
            buf.clear();
            buf.push(SURFACE);
            buf.push_str(&self.norm.folded);
            let surface = self.intern(&buf);
            self.buf = buf;
            Some([first, second, surface])
        } else {
            None
        };
        self.words.insert(raw, ids);
        ids
    }
}

/// Per doc, its terms with their frequency per field: `entries[starts[d]..starts[d + 1]]`.
struct Counted<'a> {
    vocab: Vocabulary<'a>,
    /// Each doc's length per field, in words.
    lens: Vec<[f32; FIELDS]>,
    entries: Vec<(u32, [u16; FIELDS])>,
    starts: Vec<usize>,
}

/// Every doc's words counted per field, under the terms the vocabulary gives them (a word's
/// stem, its plain form and, in names and prose, its surface form).
fn count_terms(docs: &[Doc]) -> Counted<'_> {
    let mut vocab = Vocabulary::with_capacity(docs.len());
    let mut lens = vec![[0f32; FIELDS]; docs.len()];
    let mut entries: Vec<(u32, [u16; FIELDS])> = Vec::with_capacity(docs.len() * 64);
    let mut starts: Vec<usize> = Vec::with_capacity(docs.len() + 1);
    // `slot[term]` is 1 + the term's place in the current doc's run (0: not seen yet).
    let mut slot: Vec<u32> = Vec::new();
    for (d, doc) in docs.iter().enumerate() {
        let start = entries.len();
        starts.push(start);
        let (subject, rest) = doc.description.split_at(subject_end(&doc.description));
        for (f, len) in lens[d].iter_mut().enumerate() {
            let words: Box<dyn Iterator<Item = &str>> = match f {
                NAME => Box::new(split_words(&doc.name)),
                SUBJECT => Box::new(prose_words(subject)),
                DESCRIPTION => Box::new(prose_words(rest)),
                PARAMS => Box::new(doc.params.iter().flat_map(|p| split_words(p))),
                _ => Box::new(split_words(&doc.connector)),
            };
            // Only names and prose say "one" or "many"; `company_id` is singular anyway.
            let with_surface = f == NAME || f == SUBJECT || f == DESCRIPTION;
            for raw in words {
                let Some([stem, plain, surface]) = vocab.word(raw) else {
                    continue;
                };
                *len += 1.0;
                slot.resize(vocab.terms.len(), 0);
                let surface = if with_surface { surface } else { NO_TERM };
                for id in [stem, plain, surface] {
                    if id == NO_TERM {
                        continue;
                    }
                    let place = &mut slot[id as usize];
                    if *place == 0 {
                        entries.push((id, [0; FIELDS]));
                        *place = (entries.len() - start) as u32;
                    }
                    let tf = &mut entries[start + *place as usize - 1].1[f];
                    *tf = tf.saturating_add(1);
                }
            }
        }
        for (term, _) in &entries[start..] {
            slot[*term as usize] = 0;
        }
    }
    starts.push(entries.len());
    Counted {
        vocab,
        lens,
        entries,
        starts,
    }
}

/// Each term's postings with their BM25F scores: field frequencies weighted by `BOOST` and
/// normalised by field length, then `idf` over the `n` docs.
fn postings(counted: &Counted<'_>, terms: usize, n: f32) -> Vec<Vec<Posting>> {
    let Counted {
        lens,
        entries,
        starts,
        ..
    } = counted;
    let mut avg = [0f32; FIELDS];
    for l in lens {
        for f in 0..FIELDS {
            avg[f] += l[f] / n;
        }
    }
    let mut df = vec![0usize; terms];
    for (term, _) in entries {
        df[*term as usize] += 1;
    }
    let mut postings: Vec<Vec<Posting>> = df.into_iter().map(Vec::with_capacity).collect();
    for (d, run) in starts.windows(2).enumerate() {
        for (term, tf) in &entries[run[0]..run[1]] {
            let weighted: f32 = (0..FIELDS)
                .filter(|&f| tf[f] > 0)
                .map(|f| {
                    let norm = 1.0 - B + B * lens[d][f] / avg[f].max(f32::EPSILON);
                    BOOST[f] * f32::from(tf[f]) / norm
                })
                .sum();
            postings[*term as usize].push(Posting {
                doc: d as u32,
                score: weighted,
                place: if tf[NAME] > 0 {
                    IN_NAME
                } else if tf[SUBJECT] > 0 {
                    IN_SUBJECT
                } else {
                    MENTIONED
                },
            });
        }
    }
    for list in &mut postings {
        let df = list.len() as f32;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for p in list.iter_mut() {
            p.score = idf * p.score / (K1 + p.score);
        }
    }
    postings
}

/// The terms (surface forms aside) in prefix order, and reversed in suffix order, for the
/// lookups of word beginnings and endings.
fn affix_orders(terms: &[String]) -> (Vec<u32>, Vec<(String, u32)>) {
    let mut by_prefix: Vec<u32> = (0..terms.len() as u32)
        .filter(|t| !terms[*t as usize].starts_with(SURFACE))
        .collect();
    by_prefix.sort_unstable_by(|a, b| terms[*a as usize].cmp(&terms[*b as usize]));
    let mut by_suffix: Vec<(String, u32)> = terms
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.starts_with(SURFACE))
        .map(|(i, t)| (t.chars().rev().collect(), i as u32))
        .collect();
    by_suffix.sort_unstable();
    (by_prefix, by_suffix)
}

impl Index {
    pub fn build(docs: Vec<Doc>) -> Index {
        let counted = count_terms(&docs);
        let n = docs.len().max(1) as f32;
        let postings = postings(&counted, counted.vocab.terms.len(), n);
        let Vocabulary {
            ids: term_ids,
            terms,
            ..
        } = counted.vocab;
        let (by_prefix, by_suffix) = affix_orders(&terms);
        let mut connectors: Vec<String> = docs.iter().map(|d| d.connector.clone()).collect();
        connectors.sort_unstable();
        connectors.dedup();
        let doc_connector = docs
            .iter()
            .map(|d| connectors.binary_search(&d.connector).unwrap_or(0) as u32)
            .collect();
        let summaries = docs.iter().map(|d| summary(&d.description)).collect();
        Index {
            docs,
            summaries,
            connectors,
            doc_connector,
            term_ids,
            terms,
            by_prefix,
            by_suffix,
            postings,
        }
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// A query as an audit line may keep it: its words that are in the index's vocabulary (as
    /// stems: catalog words, not what a person typed about someone), and how many other words
    /// it had, which may be personal data and are only counted. Stop words and numbers are
    /// neither.
    pub fn known_words(&self, query: &str) -> (Vec<String>, usize) {
        let mut known = Vec::new();
        let mut other = 0;
        for word in super::text::query_words(query) {
            let in_vocabulary = std::iter::once(&word.first)
                .chain(word.second.as_ref())
                .any(|t| self.term_ids.contains_key(t));
            if in_vocabulary {
                known.push(word.first);
            } else {
                other += 1;
            }
        }
        (known, other)
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use crate::search::fixtures::{all, ranked, small};

    #[test]
    fn known_words_are_the_vocabulary_and_the_rest_is_only_counted() {
        let index = small();
        let (known, other) = index.known_words("Rechnungen von Erika Mustermann 2026");
        assert_eq!(other, 2, "erika, mustermann ({known:?})");
        assert_eq!(known.len(), 1, "{known:?}");
        assert!(!known.iter().any(|w| w.contains("erika")));
    }

    #[test]
    fn bm25_prefers_names_then_parameters_then_prose() {
        let index = small();
        // The plural in the name and in the text, exactly; the singular get tool after it; not
        // papierkram_companies_list, whose text only names `papierkram_invoices_list`.
        assert_eq!(
            ranked(&index, "invoices", &all),
            ["papierkram_invoices_list", "papierkram_invoice_get"]
        );
        let company = ranked(&index, "company", &all);
        assert_eq!(company[0], "papierkram_companies_list", "{company:?}");
        assert!(
            company[1..3].contains(&"papierkram_invoices_list")
                && company[1..3].contains(&"papierkram_vouchers_list")
        );
    }
}
