//! `search_tools`: progressive disclosure for large catalogs. A BM25F index over tool names,
//! descriptions, parameter names and connector names, built once (on a deployment's first
//! search: the inventory owns it), and answers whose detail degrades with the number of
//! matches (full schemas up to 25, one-line summaries up to 250, names up to 2,000, else counts
//! per connector), never above 50 KB, each ending with a footer that says how many tools
//! matched and how to refine.
//!
//! Pure data in and out, no MCP or HTTP types: the handler turns the arguments into a
//! [`SearchRequest`] and the [`SearchAnswer`] into a tool result. Quality on the shipped catalog:
//! `cargo test -p mcp-server --lib search -- --nocapture`; scale: `cargo bench -p mcp-server
//! --bench search`.
//!
//! One concern per module: `text` and `stem` turn words into terms, `index` builds the BM25F
//! index, `rank` scores query words against it, `evidence` holds back the writes a query gives
//! no evidence for, `query` answers one request, `render` writes the answer per detail level
//! under the cap, `advice` says how to refine (as words and as the calls to send), `no_match`
//! answers when nothing matched, `period` lets month names find month tools, `summary` cuts
//! descriptions to one sentence, `arguments` holds the arguments as plain data.

mod advice;
mod arguments;
mod evidence;
mod index;
mod no_match;
mod period;
mod query;
mod rank;
mod render;
mod stem;
mod summary;
mod text;

pub(crate) use arguments::parse_limit;
pub use arguments::{Detail, SearchRequest};
pub use index::{Doc, Index};
pub(crate) use query::Visibility;
pub use render::{MAX_ANSWER_BYTES, SearchAnswer};

#[cfg(test)]
mod fixtures;

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::fixtures::{ranked, req};
    use super::*;

    #[derive(serde::Deserialize)]
    struct QuerySet {
        queries: Vec<Case>,
    }

    #[derive(serde::Deserialize)]
    struct Case {
        lang: String,
        q: String,
        expect: String,
        /// The question names the system ("in sevdesk", "im kalender").
        #[serde(default)]
        named: bool,
    }

    #[derive(serde::Deserialize)]
    struct OutsideSet {
        queries: Vec<Outside>,
    }

    #[derive(serde::Deserialize)]
    struct Outside {
        lang: String,
        q: String,
    }

    /// The names an answer offers: the tools shown, further and partial matches, and the
    /// closest tools when nothing matched.
    fn offered(answer: &SearchAnswer) -> Vec<String> {
        ["tools", "more", "partial", "closest"]
            .iter()
            .flat_map(|key| answer.structured[key].as_array().into_iter().flatten())
            .filter_map(|t| t.as_str().or_else(|| t["name"].as_str()))
            .map(str::to_string)
            .collect()
    }

    /// Questions no shipped tool answers (tests/search/outside.yaml): no write is offered, as a
    /// match or as a closest tool. Prints how many led with a write and how many were offered one.
    #[test]
    fn questions_outside_every_catalog_are_offered_no_write() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/search/outside.yaml"
        );
        let text = std::fs::read_to_string(path).expect("tests/search/outside.yaml");
        let set: OutsideSet = yaml_serde::from_str(&text).expect("outside set parses");
        let catalogs = catalog::load_sources(crate::EMBEDDED_CATALOGS).expect("shipped catalogs");
        let docs: Vec<Doc> = catalogs
            .iter()
            .flat_map(|c| {
                c.tools
                    .iter()
                    .filter(|t| t.risk != catalog::Risk::Forbidden)
                    .map(|t| Doc::from_tool(c, t))
            })
            .collect();
        let index = Index::build(docs);
        let writes = |name: &str| index.docs.iter().any(|d| d.name == name && d.writes);
        let all = |_: &str| true;
        let (mut led, mut offered_any) = (0, Vec::new());
        let mut per_lang: HashMap<&str, (usize, usize)> = HashMap::new();
        for case in &set.queries {
            let answer = index.search(&req(&case.q), &all);
            let names = offered(&answer);
            led += usize::from(names.first().is_some_and(|n| writes(n)));
            let entry = per_lang.entry(&case.lang).or_default();
            entry.0 += 1;
            let written: Vec<&String> = names.iter().filter(|n| writes(n)).collect();
            if !written.is_empty() {
                entry.1 += 1;
                offered_any.push(format!("{}: {written:?}", case.q));
            }
        }
        let n = set.queries.len();
        println!(
            "outside every catalog: {n} questions; a write led {led}, a write was offered in {}",
            offered_any.len()
        );
        let mut langs: Vec<_> = per_lang.into_iter().collect();
        langs.sort();
        for (lang, (n, w)) in langs {
            println!("  {lang}: {n} questions, offered a write: {w}");
        }
        assert!(n >= 20, "at least 20 questions");
        assert!(
            offered_any.is_empty(),
            "a write is offered: {offered_any:#?}"
        );
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
            .flat_map(|c| {
                c.tools
                    .iter()
                    .filter(|t| t.raw || t.risk == catalog::Risk::Forbidden)
                    .map(|t| t.name.to_string())
            })
            .collect();
        let docs: Vec<Doc> = catalogs
            .iter()
            .flat_map(|c| c.tools.iter().map(|t| Doc::from_tool(c, t)))
            .collect();
        let names: HashSet<String> = docs.iter().map(|d| d.name.clone()).collect();
        let connector_of: HashMap<String, String> = catalogs
            .iter()
            .flat_map(|c| {
                c.tools
                    .iter()
                    .map(|t| (t.name.to_string(), c.connector.to_string()))
            })
            .collect();
        let index = Index::build(docs);
        let writes = |name: &str| index.docs.iter().any(|d| d.name == name && d.writes);
        let reads = set.queries.iter().filter(|c| !writes(&c.expect)).count();
        let mut reads_offered_a_write = 0;
        // The hosted deployment hides raw tools; forbidden ones are never served.
        let hosted = |name: &str| !raw.contains(name);
        let (mut top1, mut top5) = (0, 0);
        let (mut across1, mut across5) = (0, 0);
        let mut per_lang: HashMap<&str, (usize, usize, usize)> = HashMap::new();
        // Per connector and per naming, within the connector and across all: (n, top-1, top-5,
        // across top-1, across top-5).
        let mut groups: HashMap<String, [usize; 5]> = HashMap::new();
        for case in &set.queries {
            assert!(names.contains(&case.expect), "unknown tool {}", case.expect);
            // Across every connector: with two accounting systems, "offene Posten" is both.
            let across = ranked(&index, &case.q, &hosted);
            let across_rank = across.iter().position(|n| *n == case.expect);
            across1 += usize::from(across_rank == Some(0));
            across5 += usize::from(across_rank.is_some_and(|r| r < 5));
            // Within the expected tool's connector, as search_tools ranks with `connector` set
            // (or in a deployment of that connector alone).
            let connector = &connector_of[&case.expect];
            let own = |name: &str| hosted(name) && connector_of.get(name) == Some(connector);
            let ranking = ranked(&index, &case.q, &own);
            let rank = ranking.iter().position(|n| *n == case.expect);
            let named = if case.named {
                "names its system"
            } else {
                "names no system"
            };
            for group in [connector.clone(), named.to_string()] {
                let g = groups.entry(group).or_default();
                g[0] += 1;
                g[1] += usize::from(rank == Some(0));
                g[2] += usize::from(rank.is_some_and(|r| r < 5));
                g[3] += usize::from(across_rank == Some(0));
                g[4] += usize::from(across_rank.is_some_and(|r| r < 5));
            }
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
            if !writes(&case.expect) && offered(&answer).iter().any(|n| writes(n)) {
                reads_offered_a_write += 1;
            }
        }
        let n = set.queries.len();
        let rate = |k: usize, n: usize| 100.0 * k as f64 / n as f64;
        println!(
            "search quality: {n} queries, top-1 {top1}/{n} = {:.1} %, top-5 {top5}/{n} = {:.1} % within the expected tool's connector; across all connectors top-1 {across1}/{n} = {:.1} %, top-5 {across5}/{n} = {:.1} %",
            rate(top1, n),
            rate(top5, n),
            rate(across1, n),
            rate(across5, n)
        );
        println!(
            "  questions for a read offered a write too (across all connectors): \
             {reads_offered_a_write} of {reads}"
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
        let mut groups: Vec<_> = groups.into_iter().collect();
        groups.sort();
        for (group, [n, t1, t5, a1, a5]) in groups {
            println!(
                "  {group}: {n} queries, top-1 {:.1} %, top-5 {:.1} % within; across all connectors top-1 {:.1} %, top-5 {:.1} %",
                rate(t1, n),
                rate(t5, n),
                rate(a1, n),
                rate(a5, n)
            );
        }
        assert!(n >= 40, "at least 40 queries");
        assert!(rate(top5, n) >= 90.0, "top-5 hit rate below 90 %");
        assert!(
            rate(across5, n) >= 90.0,
            "top-5 hit rate across connectors below 90 %"
        );
        assert!(rate(top1, n) >= 70.0, "top-1 hit rate below 70 %");
    }
}
