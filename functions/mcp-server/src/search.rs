//! `search_tools`: progressive disclosure for large catalogs. A BM25F index over tool names,
//! descriptions, parameter names and connector names, built once at start, and answers whose
//! detail degrades with the number of matches (full schemas up to 25, one-line summaries up to
//! 250, names up to 2,000, else counts per connector), never above 50 KB, each ending with a
//! footer that says how many tools matched and how to refine.
//!
//! Pure data in and out, no MCP or HTTP types: the handler turns the arguments into a
//! [`SearchRequest`] and the [`SearchAnswer`] into a tool result. Quality on the shipped catalog:
//! `cargo test -p mcp-server --lib search -- --nocapture`; scale: `cargo bench -p mcp-server
//! --bench search`.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::hash::{BuildHasherDefault, Hasher};
use std::str::FromStr;
use std::sync::OnceLock;

use serde_json::{Value, json};

/// Hard cap on an answer: its text plus its structured content, serialised.
pub const MAX_ANSWER_BYTES: usize = 50 * 1024;
/// Largest `limit` a caller may ask for (the names level shows at most this many tools).
pub const MAX_LIMIT: usize = 2_000;
/// Tools shown with full schemas when the caller gives no `limit`.
pub const FULL_PAGE: usize = 10;

const FULL_UP_TO: usize = 25;
const SUMMARY_UP_TO: usize = 250;
const NAMES_UP_TO: usize = 2_000;

const K1: f32 = 1.2;
const B: f32 = 0.75;
const FIELDS: usize = 4;
const NAME: usize = 0;
const DESCRIPTION: usize = 1;
const PARAMS: usize = 2;
/// Field boosts for name, description, parameter names, connector. BM25F: boosted term
/// frequencies share one saturation, so a word in three fields does not score three times. The
/// name states what the tool is (×3); parameter names say what it filters by or needs, stronger
/// than a mention in prose but often generic like `id` or `order_by` (×1.5); descriptions carry
/// aliases and cross-references (×1); the connector name lets "hubspot contacts" prefer that
/// connector (×1).
const BOOST: [f32; FIELDS] = [3.0, 1.0, 1.5, 1.0];
/// A query word found only as part of a longer indexed word (Rechnung in Ausgangsrechnungen)
/// is weaker evidence than the word itself.
const COMPOUND_WEIGHT: f32 = 0.5;
/// Bonus for the exact (unstemmed) word on top of its stem's score: a tie-breaker between the
/// singular and the plural (invoice_get, invoices_list), not a second match. Top-1 on the
/// shipped query set is the same from 0.25 to 0.75; the smallest keeps it from outweighing a name.
const SURFACE_WEIGHT: f32 = 0.25;
/// Shortest query word matched as part of a compound, and shortest part of a split query word.
const MIN_PART: usize = 4;
/// Partial matches (not every query word) named when fewer tools than this matched fully.
const PARTIAL_UP_TO: usize = 5;
/// Further matches named after the schemas at the full level.
const MORE_NAMES: usize = 15;
const MAX_SUMMARY_CHARS: usize = 240;

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
}

impl Doc {
    /// A catalog tool as a search document: declared parameter names, the served input schema.
    pub fn from_tool(connector: &str, tool: &catalog::Tool) -> Doc {
        Doc {
            name: tool.name.clone(),
            connector: connector.to_string(),
            description: tool.description.clone(),
            params: tool.params.keys().cloned().collect(),
            schema: Value::Object(crate::tools::input_schema(tool)),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    pub query: String,
    pub connector: Option<String>,
    /// `None`: chosen from the number of tools shown.
    pub detail: Option<Detail>,
    /// Tools to show; `None`: 10 at full detail, every match at the coarser levels.
    pub limit: Option<usize>,
}

/// How much an answer says per tool, most first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    Full,
    Summary,
    Names,
    Counts,
}

impl Detail {
    pub fn as_str(self) -> &'static str {
        match self {
            Detail::Full => "full",
            Detail::Summary => "summary",
            Detail::Names => "names",
            Detail::Counts => "counts",
        }
    }

    /// The level for `n` tools when the caller names none.
    pub fn for_count(n: usize) -> Detail {
        if n <= FULL_UP_TO {
            Detail::Full
        } else if n <= SUMMARY_UP_TO {
            Detail::Summary
        } else if n <= NAMES_UP_TO {
            Detail::Names
        } else {
            Detail::Counts
        }
    }

    fn coarser(self) -> Detail {
        match self {
            Detail::Full => Detail::Summary,
            Detail::Summary => Detail::Names,
            Detail::Names | Detail::Counts => Detail::Counts,
        }
    }

    fn page(self) -> usize {
        match self {
            Detail::Full => FULL_PAGE,
            Detail::Summary => SUMMARY_UP_TO,
            Detail::Names | Detail::Counts => NAMES_UP_TO,
        }
    }
}

impl FromStr for Detail {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "full" => Ok(Detail::Full),
            "summary" => Ok(Detail::Summary),
            "names" => Ok(Detail::Names),
            "counts" => Ok(Detail::Counts),
            _ => Err(format!(
                "`detail` must be \"full\", \"summary\", \"names\" or \"counts\", not \"{s}\"."
            )),
        }
    }
}

/// `limit` as clients send it: a number or a numeric string (stale clients send `"5"`).
pub fn parse_limit(v: &Value) -> Result<usize, String> {
    let n = match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    match n {
        Some(n) if (1..=MAX_LIMIT as u64).contains(&n) => Ok(n as usize),
        _ => Err(format!(
            "`limit` must be a whole number from 1 to {MAX_LIMIT} (a number or a numeric string \
             such as \"10\")."
        )),
    }
}

#[derive(Debug, Clone)]
pub struct SearchAnswer {
    /// The answer for the model, ending with the footer line.
    pub text: String,
    /// The answer as data: `query`, `connector`, `matched`, `total`, `detail` (and
    /// `reduced_from` when the cap forced a coarser level), `shown`; `tools`, the names shown
    /// (every level but counts, up to 250 names; longer lists are in the text only); `more` and
    /// `partial` names; `counts` per connector (names and counts levels); `note`.
    pub structured: Value,
    pub matched: usize,
    pub total: usize,
    /// The level actually rendered (coarser than asked when the cap forced it).
    pub detail: Detail,
}

impl SearchAnswer {
    /// Text plus serialised structured content: what the cap limits.
    pub fn bytes(&self) -> usize {
        self.text.len() + self.structured.to_string().len()
    }
}

/// The search index over every tool a deployment serves; built once at start.
pub struct Index {
    docs: Vec<Doc>,
    summaries: Vec<String>,
    connectors: Vec<String>,
    doc_connector: Vec<u32>,
    term_ids: Terms,
    terms: Vec<String>,
    /// Term ids ordered by term, for prefix look-ups.
    by_prefix: Vec<u32>,
    /// Reversed terms with their ids, ordered, for suffix look-ups.
    by_suffix: Vec<(String, u32)>,
    /// Per term: (doc, BM25F score of the term in that doc).
    postings: Vec<Vec<(u32, f32)>>,
}

/// Term look-ups dominate the index build; catalog text is trusted, so FxHash (rustc's hash)
/// instead of SipHash, whose flooding resistance buys nothing here.
type Terms = HashMap<String, u32, BuildHasherDefault<FxHasher>>;

#[derive(Default)]
struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ rest.len() as u64);
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The tools one profile may see, from [`Index::visibility`].
#[derive(Debug, Clone)]
pub struct Visibility(Vec<bool>);

/// Absent term (no second stem, or no surface for this field).
const NO_TERM: u32 = u32::MAX;

/// The vocabulary while building: term ids, and each distinct raw word's terms, so a word seen
/// before costs one look-up instead of folding, stemming and three look-ups.
struct Vocabulary<'a> {
    ids: Terms,
    terms: Vec<String>,
    /// Raw word → [stem, plain-vowel stem, surface]; `None` for stop words.
    words: HashMap<&'a str, Option<[u32; 3]>, BuildHasherDefault<FxHasher>>,
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

/// Everything one answer shows, whichever detail level renders it.
struct Page<'a> {
    q: &'a SearchRequest,
    requested: Detail,
    /// Tools matching the most query words, the best `shown` (and a few more) first.
    matched: &'a [Hit],
    shown: usize,
    /// Tools matching fewer words, named when few matched fully.
    partial: Vec<Hit>,
    /// Matches per connector (index into `connectors`), most first.
    counts: Vec<(usize, usize)>,
    total: usize,
    /// Words no tool mentions, or that no tool has them all.
    note: Option<String>,
}

#[derive(Debug, Clone, Copy)]
struct Hit {
    doc: u32,
    score: f32,
    cover: u16,
}

/// What one query word matches: candidate terms with weights, and its exact surface term.
struct Group {
    terms: Vec<(u32, f32)>,
    surface: Option<u32>,
}

impl Index {
    pub fn build(docs: Vec<Doc>) -> Index {
        let mut vocab = Vocabulary::with_capacity(docs.len());
        let mut lens = vec![[0f32; FIELDS]; docs.len()];
        // Per doc, its terms with their frequency per field: `entries[starts[d]..starts[d + 1]]`;
        // `slot[term]` is 1 + the term's place in the current doc's run (0: not seen yet).
        let mut entries: Vec<(u32, [u16; FIELDS])> = Vec::with_capacity(docs.len() * 64);
        let mut starts: Vec<usize> = Vec::with_capacity(docs.len() + 1);
        let mut slot: Vec<u32> = Vec::new();
        for (d, doc) in docs.iter().enumerate() {
            let start = entries.len();
            starts.push(start);
            for (f, len) in lens[d].iter_mut().enumerate() {
                let words: Box<dyn Iterator<Item = &str>> = match f {
                    NAME => Box::new(split_words(&doc.name)),
                    DESCRIPTION => Box::new(prose_words(&doc.description)),
                    PARAMS => Box::new(doc.params.iter().flat_map(|p| split_words(p))),
                    _ => Box::new(split_words(&doc.connector)),
                };
                // Only names and prose say "one" or "many"; `company_id` is singular anyway.
                let with_surface = f == NAME || f == DESCRIPTION;
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
        let Vocabulary {
            ids: term_ids,
            terms,
            ..
        } = vocab;
        let n = docs.len().max(1) as f32;
        let mut avg = [0f32; FIELDS];
        for l in &lens {
            for f in 0..FIELDS {
                avg[f] += l[f] / n;
            }
        }
        let mut df = vec![0usize; terms.len()];
        for (term, _) in &entries {
            df[*term as usize] += 1;
        }
        let mut postings: Vec<Vec<(u32, f32)>> = df.into_iter().map(Vec::with_capacity).collect();
        for (d, run) in starts.windows(2).enumerate() {
            for (term, tf) in &entries[run[0]..run[1]] {
                let weighted: f32 = (0..FIELDS)
                    .filter(|&f| tf[f] > 0)
                    .map(|f| {
                        let norm = 1.0 - B + B * lens[d][f] / avg[f].max(f32::EPSILON);
                        BOOST[f] * f32::from(tf[f]) / norm
                    })
                    .sum();
                postings[*term as usize].push((d as u32, weighted));
            }
        }
        for list in &mut postings {
            let df = list.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for (_, w) in list.iter_mut() {
                *w = idf * *w / (K1 + *w);
            }
        }
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

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Searches the tools `visible` admits (a profile's view) within `q.connector`.
    pub fn search(&self, q: &SearchRequest, visible: &dyn Fn(&str) -> bool) -> SearchAnswer {
        self.search_in(q, &self.visibility(visible))
    }

    /// Which tools a profile may see, worked out once: profiles are fixed at start, and a
    /// per-tool check on every search costs more than the search (5,000 hash-set look-ups).
    pub fn visibility(&self, visible: &dyn Fn(&str) -> bool) -> Visibility {
        Visibility(self.docs.iter().map(|d| visible(&d.name)).collect())
    }

    /// [`Index::search`] with a precomputed [`Visibility`] of this index.
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
                })
                .collect()
        } else {
            self.score(&groups, &in_scope)
        };
        if hits.is_empty() {
            return self.no_match(q, &words, &vis, &in_scope, total);
        }
        let max_cover = hits.iter().map(|h| h.cover).max().unwrap_or(0);
        let split = partition(&mut hits, |h| h.cover == max_cover);
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
        let mut level = requested;
        loop {
            let answer = self.render(&page, level);
            if answer.bytes() <= MAX_ANSWER_BYTES || level == Detail::Counts {
                return answer;
            }
            level = level.coarser();
        }
    }

    /// Every in-scope doc that matches at least one query word, with its score and how many
    /// query words it matched.
    fn score(&self, groups: &[Group], in_scope: &[bool]) -> Vec<Hit> {
        let n = self.docs.len();
        let mut total = vec![0f32; n];
        let mut cover = vec![0u16; n];
        let mut best = vec![0f32; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut any: Vec<u32> = Vec::new();
        for group in groups {
            for &(term, weight) in &group.terms {
                for &(d, s) in &self.postings[term as usize] {
                    let slot = &mut best[d as usize];
                    if *slot == 0.0 {
                        touched.push(d);
                    }
                    *slot = slot.max(s * weight);
                }
            }
            for d in touched.drain(..) {
                let d = d as usize;
                if cover[d] == 0 {
                    any.push(d as u32);
                }
                total[d] += best[d];
                cover[d] += 1;
                best[d] = 0.0;
            }
            // Only docs with the stem have the surface word: coverage is already counted.
            for &(d, s) in group
                .surface
                .map_or(&[][..], |t| &self.postings[t as usize])
            {
                total[d as usize] += SURFACE_WEIGHT * s;
            }
        }
        any.into_iter()
            .filter(|d| in_scope[*d as usize])
            .map(|doc| Hit {
                doc,
                score: total[doc as usize],
                cover: cover[doc as usize],
            })
            .collect()
    }

    /// The indexed terms a query word matches: its own forms, longer words starting or ending
    /// with it (compounds), and, when the word itself is unknown, known words it starts or ends
    /// with (Kundenrechnungen: Kunde, Rechnung).
    fn candidates(&self, word: &Word) -> Group {
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
        out.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        out.dedup_by_key(|c| c.0);
        let surface = format!("{SURFACE}{}", word.surface);
        Group {
            terms: out,
            surface: self.term_ids.get(&surface).copied(),
        }
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

    fn render(&self, page: &Page<'_>, level: Detail) -> SearchAnswer {
        let (q, requested, matched, shown, total) =
            (page.q, page.requested, page.matched, page.shown, page.total);
        let (partial, counts) = (&page.partial[..], &page.counts[..]);
        let name = |h: &Hit| self.docs[h.doc as usize].name.as_str();
        let mut text = String::with_capacity(4096);
        let mut structured = json!({
            "query": q.query, "connector": q.connector, "matched": matched.len(), "total": total,
            "detail": level.as_str(),
        });
        if let Some(note) = &page.note {
            let _ = writeln!(text, "{note}\n");
            structured["note"] = note.as_str().into();
        }
        if level != requested {
            structured["reduced_from"] = requested.as_str().into();
        }
        let page = &matched[..shown];
        match level {
            Detail::Full | Detail::Summary => {
                for h in page {
                    let doc = &self.docs[h.doc as usize];
                    if level == Detail::Full {
                        let _ = writeln!(text, "## {} ({})", doc.name, doc.connector);
                        let _ = writeln!(text, "{}", one_line(&doc.description));
                        let _ = writeln!(text, "Input schema: {}\n", doc.schema);
                    } else {
                        let summary = &self.summaries[h.doc as usize];
                        let _ = writeln!(text, "- {} ({}): {summary}", doc.name, doc.connector);
                    }
                }
                structured["shown"] = shown.into();
                structured["tools"] = page.iter().map(name).collect::<Vec<_>>().into();
                let more: Vec<&str> = matched[shown..].iter().take(MORE_NAMES).map(name).collect();
                if !more.is_empty() {
                    let rest = matched.len() - shown - more.len();
                    let tail = if rest > 0 {
                        format!(" and {rest} more")
                    } else {
                        String::new()
                    };
                    let _ = writeln!(text, "\nAlso matched: {}{tail}.", more.join(", "));
                    structured["more"] = more.into();
                }
                if !partial.is_empty() {
                    let names: Vec<&str> = partial.iter().map(name).collect();
                    let _ = writeln!(
                        text,
                        "\nPartial matches (not every word): {}.",
                        names.join(", ")
                    );
                    structured["partial"] = names.into();
                }
            }
            Detail::Names => {
                let mut groups: Vec<(u32, Vec<&str>)> = Vec::new();
                for h in page {
                    let c = self.doc_connector[h.doc as usize];
                    match groups.iter_mut().find(|(gc, _)| *gc == c) {
                        Some((_, names)) => names.push(name(h)),
                        None => groups.push((c, vec![name(h)])),
                    }
                }
                for (c, names) in &groups {
                    let _ = writeln!(
                        text,
                        "{}: {}",
                        self.connectors[*c as usize],
                        names.join(", ")
                    );
                }
                structured["shown"] = shown.into();
                // Long name lists live in the text only: both copies of 2,000 names would not
                // fit the cap.
                if shown <= SUMMARY_UP_TO {
                    structured["tools"] = page.iter().map(name).collect::<Vec<_>>().into();
                }
            }
            Detail::Counts => {
                text.push_str("Matches per connector: ");
                for (i, (c, n)) in counts.iter().enumerate() {
                    if text.len() > MAX_ANSWER_BYTES / 3 {
                        let _ = write!(text, "… and {} more connectors", counts.len() - i);
                        break;
                    }
                    let sep = if i > 0 { ", " } else { "" };
                    let _ = write!(text, "{sep}{} {n}", self.connectors[*c]);
                }
                text.push('\n');
            }
        }
        if level >= Detail::Names {
            let mut per = serde_json::Map::new();
            for (c, n) in counts.iter().take(200) {
                per.insert(self.connectors[*c].clone(), (*n).into());
            }
            structured["counts"] = Value::Object(per);
        }
        let top_connector = (counts.len() > 1).then(|| self.connectors[counts[0].0].as_str());
        let footer = footer(
            q,
            matched.len(),
            total,
            level,
            requested,
            shown,
            top_connector,
        );
        text.push('\n');
        text.push_str(&footer);
        SearchAnswer {
            text,
            structured,
            matched: matched.len(),
            total,
            detail: level,
        }
    }

    /// Nothing matched: say so, and name the closest tools (query words corrected against the
    /// vocabulary) and connectors.
    fn no_match(
        &self,
        q: &SearchRequest,
        words: &[Word],
        vis: &[bool],
        in_scope: &[bool],
        total: usize,
    ) -> SearchAnswer {
        let mut text = String::new();
        let unknown_connector = q
            .connector
            .as_deref()
            .filter(|c| !self.connectors.iter().any(|k| k == c));
        if let Some(c) = unknown_connector {
            let _ = writeln!(text, "No connector is named \"{c}\".");
        } else {
            let _ = writeln!(text, "No tool matched \"{}\".", q.query.trim());
        }
        let fixed: Vec<Group> = words
            .iter()
            .filter_map(|w| self.closest_term(&w.first))
            .map(|t| Group {
                terms: vec![(t, 1.0)],
                surface: None,
            })
            .collect();
        let mut hits = self.score(&fixed, in_scope);
        top(&mut hits, PARTIAL_UP_TO);
        let names: Vec<&str> = hits
            .iter()
            .take(PARTIAL_UP_TO)
            .map(|h| self.docs[h.doc as usize].name.as_str())
            .collect();
        if !names.is_empty() {
            let _ = writeln!(text, "Closest tools: {}.", names.join(", "));
        }
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
                    .map(|w| crate::args::edit_distance(w, name))
                    .min()
                    .unwrap_or(0);
                (distance, c, *n)
            })
            .collect();
        connectors.sort_unstable();
        let listed: Vec<String> = connectors
            .iter()
            .take(10)
            .map(|(_, c, n)| format!("{} ({n} tools)", self.connectors[*c]))
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
        let example = connectors
            .first()
            .map_or("…", |(_, c, _)| self.connectors[*c].as_str());
        let scope = q
            .connector
            .as_deref()
            .map_or(String::new(), |c| format!("{c} "));
        let _ = write!(
            text,
            "\n0 of {} {scope}tools matched — detail: names (closest to the query). Refine: other \
             words (German or English) or a tool name, connector=\"{example}\" with an empty query \
             to browse one connector, limit=N.",
            thousands(total)
        );
        let structured = json!({
            "query": q.query, "connector": q.connector, "matched": 0, "total": total,
            "detail": "names", "closest": names,
            "connectors": listed,
        });
        SearchAnswer {
            text,
            structured,
            matched: 0,
            total,
            detail: Detail::Names,
        }
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
            .map(|(i, t)| (crate::args::edit_distance(word, t), i))
            .filter(|(d, _)| *d <= max)
            .min_by_key(|(d, i)| (*d, usize::MAX - self.postings[*i].len()))
            .map(|(_, i)| i as u32)
    }
}

/// Moves the elements satisfying `keep` to the front; returns how many there are.
fn partition(hits: &mut [Hit], keep: impl Fn(&Hit) -> bool) -> usize {
    let mut split = 0;
    for i in 0..hits.len() {
        if keep(&hits[i]) {
            hits.swap(split, i);
            split += 1;
        }
    }
    split
}

/// Orders the best `k` hits first (more query words, then score, then catalog order).
fn top(hits: &mut [Hit], k: usize) {
    let order = |a: &Hit, b: &Hit| {
        b.cover
            .cmp(&a.cover)
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

fn footer(
    q: &SearchRequest,
    matched: usize,
    total: usize,
    level: Detail,
    requested: Detail,
    shown: usize,
    top_connector: Option<&str>,
) -> String {
    let scope = q
        .connector
        .as_deref()
        .map_or(String::new(), |c| format!("{c} "));
    let label = if level == Detail::Counts {
        "counts per connector"
    } else {
        level.as_str()
    };
    let mut s = format!(
        "{} of {} {scope}tools matched — detail: {label}",
        thousands(matched),
        thousands(total)
    );
    if shown < matched && level != Detail::Counts {
        let _ = write!(s, ", top {} shown", thousands(shown));
    }
    if level != requested {
        let _ = write!(s, " ({} would exceed the 50 KB cap)", requested.as_str());
    }
    let mut tips: Vec<String> = Vec::new();
    tips.push(if shown < matched || level != Detail::Full {
        "a narrower query".into()
    } else {
        "other words for other tools".into()
    });
    match (&q.connector, top_connector) {
        (None, Some(c)) => tips.push(format!("connector=\"{c}\"")),
        (Some(_), _) => tips.push("no connector to search all connectors".into()),
        _ => {}
    }
    tips.push(if level == Detail::Full {
        "detail=\"summary\" for one line per tool".into()
    } else {
        "detail=\"full\" for schemas".into()
    });
    tips.push("limit=N".into());
    let _ = write!(s, ". Refine: {}.", tips.join(", "));
    s
}

/// 5000 → "5,000".
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

// --- text analysis -------------------------------------------------------------------------

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
struct Normaliser {
    folded: String,
    plain: String,
    stem: String,
    plain_stem: String,
}

impl Normaliser {
    /// Lowercases `raw` and folds umlauts (ä → ae) into `folded`; when it had any, also writes
    /// the plain vowel form (ä → a) to `plain`, which matches plurals with umlaut (Umsätze,
    /// Umsatz) and words typed without umlauts. Queries are folded the same way, so the literal
    /// ä form would add nothing. Then stems both. False for stop words, numbers, single letters.
    fn load(&mut self, raw: &str) -> bool {
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
    fn second(&self) -> Option<&str> {
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
struct Word {
    /// As typed, for messages.
    raw: String,
    first: String,
    second: Option<String>,
    surface: String,
}

/// Marks surface terms in the vocabulary (never a letter, so never a compound part).
const SURFACE: char = '=';

/// Words of names, parameter names and queries: `_` separates them.
fn split_words(text: &str) -> impl Iterator<Item = &str> {
    Words {
        text,
        pos: 0,
        underscore: false,
    }
}

/// Words of descriptions, without identifiers: `companies_list` or `company_id` in prose refer
/// to other tools or to parameters (indexed in their own field), and would make every tool that
/// mentions `invoices_list` match "list invoices".
fn prose_words(text: &str) -> impl Iterator<Item = &str> {
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

/// The stemmed index terms of `text` in order, both forms of a word side by side.
pub fn terms(text: &str) -> Vec<String> {
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
fn query_words(query: &str) -> Vec<Word> {
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
    static SET: OnceLock<HashSet<&str, BuildHasherDefault<FxHasher>>> = OnceLock::new();
    word.len() <= STOP_WORD_MAX_LEN
        && SET
            .get_or_init(|| STOP_WORDS.iter().copied().collect())
            .contains(word)
}

/// Suffix rules for English and German plurals and inflections; the first that fits wins.
const SUFFIXES: &[(&str, &str)] = &[
    ("ungen", "ung"),
    ("ies", "y"),
    ("ing", ""),
    ("en", ""),
    ("es", ""),
    ("ed", ""),
    ("e", ""),
    ("s", ""),
];
/// Shortest stem a rule may leave ("open" keeps its "en").
const MIN_STEM: usize = 3;

/// A light stemmer for English and German, applied to documents and queries alike, so it only
/// has to map a word's forms to one key, not to a real root: invoices/invoice → invoic,
/// Rechnungen/Rechnung → rechnung, offene/offen → off, companies → company. At most two rules
/// apply (offenen → offen → off).
pub fn stem(word: &str) -> String {
    let mut out = String::new();
    stem_into(&word.to_lowercase(), &mut out);
    out
}

fn stem_into(word: &str, out: &mut String) {
    out.clear();
    out.push_str(word);
    for _ in 0..2 {
        if !strip_suffix(out) {
            break;
        }
    }
}

fn strip_suffix(w: &mut String) -> bool {
    let chars = if w.is_ascii() {
        w.len()
    } else {
        w.chars().count()
    };
    if chars <= MIN_STEM {
        return false;
    }
    // The index build runs this for every word: test the fixed suffixes inline rather than
    // looping over the table (which the tests keep in step with this).
    let b = w.as_bytes();
    let fits = [
        b.ends_with(b"ungen"),
        b.ends_with(b"ies"),
        b.ends_with(b"ing"),
        b.ends_with(b"en"),
        b.ends_with(b"es"),
        b.ends_with(b"ed"),
        b.ends_with(b"e"),
        b.ends_with(b"s"),
    ];
    let Some((suffix, replacement)) = SUFFIXES
        .iter()
        .zip(fits)
        .find(|((suffix, _), fits)| *fits && chars - suffix.len() >= MIN_STEM)
        .map(|(rule, _)| *rule)
    else {
        return false;
    };
    let keep = w.len() - suffix.len();
    // address, status, analysis: no plural s to strip.
    if suffix == "s" && w[..keep].ends_with(['s', 'u', 'i']) {
        return false;
    }
    w.truncate(keep);
    w.push_str(replacement);
    true
}

/// Words after which a full stop does not end a sentence (lowercase, without the final dot).
const ABBREVIATIONS: &[&str] = &[
    "approx", "bspw", "bzgl", "bzw", "ca", "d.h", "dr", "e.g", "evtl", "ggf", "i.e", "inkl", "max",
    "min", "mio", "mrd", "nr", "o.ä", "s.o", "u.a", "vgl", "vs", "z.b", "z.t", "zzgl",
];

/// The first real sentence of a description: up to a `.`, `!` or `?` followed by white space
/// and not lowercase text, and not after an abbreviation ("e.g.", "z.B.", "bzw.", "Nr."), an
/// initial ("z. B.") or an ordinal ("am 1. Mai"). Decimals never end a sentence (no space after
/// the dot). Without a sentence end: the whole text.
pub fn summary_line(description: &str) -> &str {
    let text = description.trim();
    for (i, c) in text.char_indices() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let rest = &text[i + 1..];
        if rest.is_empty() {
            return text;
        }
        if !rest.starts_with(char::is_whitespace) {
            continue;
        }
        if c == '.' {
            let next = rest.trim_start().chars().next();
            if next.is_some_and(char::is_lowercase) {
                continue;
            }
            let word = text[..i]
                .rsplit(|c: char| c.is_whitespace() || "([{\"'".contains(c))
                .next()
                .unwrap_or("")
                .to_lowercase();
            let single_letter = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
            let ordinal = (1..=2).contains(&word.len()) && word.bytes().all(|b| b.is_ascii_digit());
            if single_letter || ordinal || ABBREVIATIONS.contains(&word.as_str()) {
                continue;
            }
        }
        return &text[..=i];
    }
    text
}

/// White space collapsed to single spaces (descriptions are folded YAML).
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The one-line summary shown for a tool, cut at a word with an ellipsis when very long.
fn summary(description: &str) -> String {
    let line = one_line(summary_line(description));
    if line.chars().count() <= MAX_SUMMARY_CHARS {
        return line;
    }
    let cut: String = line.chars().take(MAX_SUMMARY_CHARS).collect();
    let end = cut.rfind(' ').unwrap_or(cut.len());
    format!("{}…", cut[..end].trim_end_matches([',', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, connector: &str, description: &str, params: &[&str]) -> Doc {
        Doc {
            name: name.into(),
            connector: connector.into(),
            description: description.into(),
            params: params.iter().map(|p| p.to_string()).collect(),
            schema: json!({"type": "object", "properties": {}}),
        }
    }

    fn all(_: &str) -> bool {
        true
    }

    fn req(query: &str) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            ..SearchRequest::default()
        }
    }

    /// Every tool matching at least one word, best first (full matches before partial ones).
    fn ranked<'a>(index: &'a Index, query: &str, visible: &dyn Fn(&str) -> bool) -> Vec<&'a str> {
        let in_scope: Vec<bool> = index.docs.iter().map(|d| visible(&d.name)).collect();
        let groups: Vec<Group> = query_words(query)
            .iter()
            .map(|w| index.candidates(w))
            .collect();
        let mut hits = index.score(&groups, &in_scope);
        let k = hits.len();
        top(&mut hits, k);
        hits.iter()
            .map(|h| index.docs[h.doc as usize].name.as_str())
            .collect()
    }

    fn small() -> Index {
        Index::build(vec![
            doc(
                "invoices_list",
                "papierkram",
                "Lists outgoing invoices (Ausgangsrechnungen, Rechnungen) with state and totals.",
                &["document_date_from", "company_id"],
            ),
            doc(
                "invoice_get",
                "papierkram",
                "Returns one outgoing invoice in full: line items.",
                &["id"],
            ),
            doc(
                "vouchers_list",
                "papierkram",
                "Lists expense vouchers (Belege, Eingangsrechnungen) with amount.",
                &["company_id"],
            ),
            doc(
                "companies_list",
                "papierkram",
                "Lists customers and suppliers (Kunden, Lieferanten). Use it to find the \
                 company_id for invoices_list.",
                &["order_by"],
            ),
            doc(
                "time_entries_list",
                "papierkram",
                "Lists tracked time (Zeiterfassung, Umsätze der Stunden) per project.",
                &["project_id"],
            ),
        ])
    }

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
                ["time_entries_list"],
                "{query}"
            );
        }
    }

    #[test]
    fn stemmer_gives_singular_and_plural_one_key_in_both_languages() {
        for (a, b) in [
            ("invoice", "invoices"),
            ("company", "companies"),
            ("entry", "entries"),
            ("hour", "hours"),
            ("estimate", "estimates"),
            ("address", "addresses"),
            ("billing", "billed"),
            ("rechnung", "rechnungen"),
            ("kunde", "kunden"),
            ("beleg", "belege"),
            ("offen", "offenen"),
            ("offene", "offen"),
            ("projekt", "projekte"),
            ("aufgabe", "aufgaben"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        assert_eq!(stem("Rechnungen"), "rechnung");
        assert_eq!(stem("companies"), "company");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("open"), "open");
        assert_eq!(stem("id"), "id");
        assert_eq!(stem("address"), "address");
    }

    #[test]
    fn each_suffix_rule_applies_as_listed() {
        for (suffix, replacement) in SUFFIXES {
            let mut word = format!("abcd{suffix}");
            assert!(strip_suffix(&mut word), "{suffix}");
            assert_eq!(word, format!("abcd{replacement}"));
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

    #[test]
    fn summary_line_ends_at_a_real_sentence_end() {
        for (text, first) in [
            (
                "Lists invoices, e.g. drafts. Use it for X.",
                "Lists invoices, e.g. drafts.",
            ),
            (
                "Listet Belege, z.B. Quittungen. Mehr.",
                "Listet Belege, z.B. Quittungen.",
            ),
            (
                "Listet Belege, z. B. Quittungen. Mehr.",
                "Listet Belege, z. B. Quittungen.",
            ),
            (
                "Lists items (i.e. Products). Use it.",
                "Lists items (i.e. Products).",
            ),
            (
                "Kostet ca. 5 EUR bzw. mehr. Rest.",
                "Kostet ca. 5 EUR bzw. mehr.",
            ),
            (
                "Rechnung Nr. 5 ist offen. Rest.",
                "Rechnung Nr. 5 ist offen.",
            ),
            ("Rate 1.5 per hour. Rest.", "Rate 1.5 per hour."),
            ("Fällig am 1. Mai. Rest.", "Fällig am 1. Mai."),
            (
                "Covers approx. three months. Rest.",
                "Covers approx. three months.",
            ),
            ("Is it reachable? Yes.", "Is it reachable?"),
            (
                "Use it for \"how did we do in May?\" here. Rest.",
                "Use it for \"how did we do in May?\" here.",
            ),
            ("No sentence end here", "No sentence end here"),
            (
                "  Lists x\n  with yaml. Example: {}",
                "Lists x\n  with yaml.",
            ),
        ] {
            assert_eq!(summary_line(text), first, "{text}");
        }
        assert_eq!(
            summary("  Lists x\n  with yaml. Example: {}"),
            "Lists x with yaml."
        );
        let long = format!("Lists {}.", "many words ".repeat(40));
        let cut = summary(&long);
        assert!(
            cut.ends_with('…') && cut.chars().count() <= MAX_SUMMARY_CHARS + 1,
            "{cut}"
        );
    }

    #[test]
    fn bm25_prefers_names_then_parameters_then_prose() {
        let index = small();
        // The plural in the name and in the text, exactly; the singular get tool after it; not
        // companies_list, whose text only names `invoices_list`.
        assert_eq!(
            ranked(&index, "invoices", &all),
            ["invoices_list", "invoice_get"]
        );
        let company = ranked(&index, "company", &all);
        assert_eq!(company[0], "companies_list", "{company:?}");
        assert!(
            company[1..3].contains(&"invoices_list") && company[1..3].contains(&"vouchers_list")
        );
    }

    #[test]
    fn query_words_find_compounds_and_compound_queries_find_their_parts() {
        let index = small();
        // The word itself first, then the compound.
        assert_eq!(
            ranked(&index, "Rechnung", &all),
            ["invoices_list", "vouchers_list"]
        );
        assert_eq!(ranked(&index, "Eingangsrechnung", &all), ["vouchers_list"]);
        let parts = ranked(&index, "kundenrechnungen", &all);
        assert!(
            parts.contains(&"companies_list") && parts.contains(&"invoices_list"),
            "{parts:?}"
        );
        assert!(ranked(&index, "zeit", &all).contains(&"time_entries_list"));
    }

    #[test]
    fn tools_matching_every_word_rank_before_partial_matches() {
        let index = small();
        let hits = ranked(&index, "invoices company", &all);
        // invoices_list: both words; invoice_get only one, despite its short, focused text.
        assert_eq!(hits[0], "invoices_list", "{hits:?}");
        let answer = index.search(&req("invoices company"), &all);
        assert!(answer.matched >= 1 && answer.matched < 4, "{}", answer.text);
        assert!(
            answer.text.contains("Partial matches (not every word): "),
            "{}",
            answer.text
        );
    }
    #[test]
    fn answers_say_which_words_no_tool_has() {
        let index = small();
        let unknown = index.search(&req("Zeiterfassung Woche"), &all);
        assert!(
            unknown
                .text
                .starts_with("No tool mentions: Woche.\n\n## time_entries_list"),
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

    /// 2,001 tools that all contain "widget"; `visible` admits the first `n`.
    fn widgets() -> Index {
        Index::build(
            (0..2001)
                .map(|i| {
                    doc(
                        &format!("widget_{i:04}_get"),
                        &format!("c{}", i % 3),
                        "Returns one widget.",
                        &["id"],
                    )
                })
                .collect(),
        )
    }

    fn first(n: usize) -> impl Fn(&str) -> bool {
        move |name: &str| name[7..11].parse::<usize>().unwrap() < n
    }

    #[test]
    fn detail_degrades_with_the_number_of_matches() {
        let index = widgets();
        for (n, level, shown_names) in [
            (1, Detail::Full, 1),
            (25, Detail::Full, 10),
            (26, Detail::Summary, 26),
            (250, Detail::Summary, 250),
            (251, Detail::Names, 251),
            (2000, Detail::Names, 2000),
            (2001, Detail::Counts, 0),
        ] {
            let answer = index.search(&req("widgets"), &first(n));
            assert_eq!(
                (answer.matched, answer.total, answer.detail),
                (n, n, level),
                "{n}"
            );
            assert!(
                answer.bytes() <= MAX_ANSWER_BYTES,
                "{n}: {}",
                answer.bytes()
            );
            let listed = (0..n)
                .filter(|i| {
                    let name = format!("widget_{i:04}_get");
                    answer.text.contains(&format!("{name} ("))
                        || answer.text.contains(&format!("{name},"))
                        || answer.text.contains(&format!("{name}\n"))
                })
                .count();
            if level != Detail::Full {
                assert_eq!(listed, shown_names, "{n}");
            }
            let footer = answer.text.lines().last().unwrap();
            assert!(footer.starts_with(&format!(
                "{} of {} tools matched",
                thousands(n),
                thousands(n)
            )));
        }
        let full = index.search(&req("widget"), &first(25));
        assert_eq!(full.text.matches("Input schema: ").count(), 10);
        assert!(
            full.text.contains("Also matched: widget_0010_get, "),
            "{}",
            full.text
        );
        let counts = index.search(&req("widget"), &first(2001));
        assert!(
            counts
                .text
                .starts_with("Matches per connector: c0 667, c1 667, c2 667\n")
        );
        assert!(counts.text.len() < 2048, "{}", counts.text);
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
    fn answers_over_50_kb_degrade_and_say_so() {
        let schema =
            json!({"type": "object", "properties": {"x": {"description": "y".repeat(4000)}}});
        let index = Index::build(
            (0..30)
                .map(|i| Doc {
                    schema: schema.clone(),
                    ..doc(
                        &format!("big_{i}_get"),
                        "c",
                        &"Returns one big thing. ".repeat(50),
                        &[],
                    )
                })
                .collect(),
        );
        let request = SearchRequest {
            detail: Some(Detail::Full),
            limit: Some(30),
            ..req("big")
        };
        let answer = index.search(&request, &all);
        assert_eq!(answer.detail, Detail::Summary);
        assert!(answer.bytes() <= MAX_ANSWER_BYTES);
        assert!(
            answer
                .text
                .contains("— detail: summary (full would exceed the 50 KB cap)."),
            "{}",
            answer.text
        );
        assert_eq!(answer.structured["reduced_from"], "full");
    }

    #[test]
    fn hidden_tools_are_never_found_nor_counted() {
        let index = small();
        let hide = |name: &str| name != "invoice_get";
        assert!(!ranked(&index, "invoice_get", &hide).contains(&"invoice_get"));
        let answer = index.search(&req("invoice get"), &hide);
        assert!(!answer.text.contains("invoice_get"), "{}", answer.text);
        assert_eq!(answer.total, 4);
        let everything = index.search(&req(""), &hide);
        assert_eq!((everything.matched, everything.total), (4, 4));
    }

    #[test]
    fn footer_says_what_matched_and_how_to_refine() {
        let mut docs: Vec<Doc> = (0..12)
            .map(|i| {
                let connector = if i < 8 { "papierkram" } else { "lexoffice" };
                doc(
                    &format!("ledger_{i}_get"),
                    connector,
                    "Returns one ledger.",
                    &[],
                )
            })
            .collect();
        docs.extend((0..4988).map(|i| doc(&format!("other_{i}_get"), "misc", "Other.", &[])));
        let index = Index::build(docs);
        let summary = SearchRequest {
            detail: Some(Detail::Summary),
            ..req("ledger")
        };
        let answer = index.search(&summary, &all);
        assert_eq!(
            answer.text.lines().last().unwrap(),
            "12 of 5,000 tools matched — detail: summary. Refine: a narrower query, \
             connector=\"papierkram\", detail=\"full\" for schemas, limit=N."
        );
        let answer = index.search(&req("ledger"), &all);
        assert_eq!(
            answer.text.lines().last().unwrap(),
            "12 of 5,000 tools matched — detail: full, top 10 shown. Refine: a narrower query, \
             connector=\"papierkram\", detail=\"summary\" for one line per tool, limit=N."
        );
        let scoped = SearchRequest {
            connector: Some("lexoffice".into()),
            ..req("ledger")
        };
        assert_eq!(
            index.search(&scoped, &all).text.lines().last().unwrap(),
            "4 of 4 lexoffice tools matched — detail: full. Refine: other words for other tools, \
             no connector to search all connectors, detail=\"summary\" for one line per tool, limit=N."
        );
    }

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
        assert!(answer.text.ends_with("limit=N."));
        assert!(
            answer
                .text
                .contains("\n0 of 5 tools matched — detail: names (closest")
        );
        let typo = index.search(&req("zeiterfasung"), &all);
        assert!(
            typo.text.contains("Closest tools: time_entries_list."),
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
            answer.text.starts_with("## invoices_list (papierkram)\n"),
            "{}",
            answer.text
        );
    }

    #[test]
    fn limit_accepts_numbers_and_numeric_strings() {
        for (v, want) in [
            (json!(5), Ok(5)),
            (json!("5"), Ok(5)),
            (json!(" 12 "), Ok(12)),
            (json!(7.0), Ok(7)),
            (json!(2000), Ok(2000)),
        ] {
            assert_eq!(parse_limit(&v), want, "{v}");
        }
        for v in [
            json!(0),
            json!(-1),
            json!(2.5),
            json!("abc"),
            json!(true),
            json!(2001),
            json!(null),
        ] {
            let err = parse_limit(&v).unwrap_err();
            assert!(err.contains("whole number from 1 to 2000"), "{v}: {err}");
        }
        assert_eq!("Summary".parse::<Detail>(), Ok(Detail::Summary));
        assert!(
            "schemas"
                .parse::<Detail>()
                .unwrap_err()
                .contains("\"full\"")
        );
    }

    #[derive(serde::Deserialize)]
    struct QuerySet {
        queries: Vec<Case>,
    }

    #[derive(serde::Deserialize)]
    struct Case {
        lang: String,
        q: String,
        expect: String,
    }

    #[test]
    fn shipped_catalog_query_set_hits_the_expected_tool() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/search/queries.yaml"
        );
        let text = std::fs::read_to_string(path).expect("tests/search/queries.yaml");
        let set: QuerySet = yaml_serde::from_str(&text).expect("query set parses");
        let catalogs = catalog::load_sources(crate::EMBEDDED_CATALOGS).expect("shipped catalogs");
        let raw: HashSet<String> = catalogs
            .iter()
            .flat_map(|c| c.tools.iter().filter(|t| t.raw).map(|t| t.name.clone()))
            .collect();
        let docs: Vec<Doc> = catalogs
            .iter()
            .flat_map(|c| c.tools.iter().map(|t| Doc::from_tool(&c.connector, t)))
            .collect();
        let names: HashSet<String> = docs.iter().map(|d| d.name.clone()).collect();
        let index = Index::build(docs);
        // The hosted deployment hides raw tools.
        let hosted = |name: &str| !raw.contains(name);
        let (mut top1, mut top5) = (0, 0);
        let mut per_lang: HashMap<&str, (usize, usize, usize)> = HashMap::new();
        for case in &set.queries {
            assert!(names.contains(&case.expect), "unknown tool {}", case.expect);
            let ranking = ranked(&index, &case.q, &hosted);
            let rank = ranking.iter().position(|n| *n == case.expect);
            let entry = per_lang.entry(&case.lang).or_default();
            entry.0 += 1;
            if rank == Some(0) {
                top1 += 1;
                entry.1 += 1;
            }
            if rank.is_some_and(|r| r < 5) {
                top5 += 1;
                entry.2 += 1;
            }
            if rank != Some(0) {
                let head: Vec<&str> = ranking.iter().take(5).copied().collect();
                println!(
                    "miss: {:<55} expected {:<24} at {:?}; top: {head:?}",
                    case.q,
                    case.expect,
                    rank.map(|r| r + 1)
                );
            }
            // The answer a client gets names the top tools too.
            let answer = index.search(&req(&case.q), &hosted);
            assert!(answer.bytes() <= MAX_ANSWER_BYTES);
        }
        let n = set.queries.len();
        let rate = |k: usize, n: usize| 100.0 * k as f64 / n as f64;
        println!(
            "search quality: {n} queries, top-1 {top1}/{n} = {:.1} %, top-5 {top5}/{n} = {:.1} %",
            rate(top1, n),
            rate(top5, n)
        );
        let mut langs: Vec<_> = per_lang.into_iter().collect();
        langs.sort();
        for (lang, (n, t1, t5)) in langs {
            println!(
                "  {lang}: {n} queries, top-1 {:.1} %, top-5 {:.1} %",
                rate(t1, n),
                rate(t5, n)
            );
        }
        assert!(n >= 40, "at least 40 queries");
        assert!(rate(top5, n) >= 90.0, "top-5 hit rate below 90 %");
        assert!(rate(top1, n) >= 70.0, "top-1 hit rate below 70 %");
    }
}
