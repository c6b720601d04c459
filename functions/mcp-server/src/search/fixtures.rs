//! Fixtures shared by the search modules' tests: small catalogs, and a ranking helper that
//! returns every hit in order where an answer shows only one page.

use serde_json::json;

use super::evidence::Query;
use super::rank::{Group, top};
use super::text::query_words;
use super::{Doc, Index, SearchRequest};

pub(super) fn doc(name: &str, connector: &str, description: &str, params: &[&str]) -> Doc {
    Doc {
        name: name.into(),
        connector: connector.into(),
        description: description.into(),
        params: params.iter().map(|p| p.to_string()).collect(),
        schema: json!({"type": "object", "properties": {}}),
        writes: false,
    }
}

pub(super) fn all(_: &str) -> bool {
    true
}

pub(super) fn req(query: &str) -> SearchRequest {
    SearchRequest {
        query: query.into(),
        ..SearchRequest::default()
    }
}

/// Every tool matching at least one word, best first (full matches before partial ones), as
/// `search_tools` ranks them (writes the query gives no evidence for left out).
pub(super) fn ranked<'a>(
    index: &'a Index,
    query: &str,
    visible: &dyn Fn(&str) -> bool,
) -> Vec<&'a str> {
    let in_scope: Vec<bool> = index.docs.iter().map(|d| visible(&d.name)).collect();
    let words = query_words(query);
    let groups: Vec<Group> = words.iter().map(|w| index.candidates(w)).collect();
    let mut hits = index.score(&groups, &in_scope);
    index.drop_unevidenced_writes(&mut hits, &Query::new(words.iter().zip(&groups)));
    let k = hits.len();
    top(&mut hits, k);
    hits.iter()
        .map(|h| index.docs[h.doc as usize].name.as_str())
        .collect()
}

pub(super) fn small() -> Index {
    Index::build(vec![
        doc(
            "papierkram_invoices_list",
            "papierkram",
            "Lists outgoing invoices (Ausgangsrechnungen, Rechnungen) with state and totals.",
            &["document_date_from", "company_id"],
        ),
        doc(
            "papierkram_invoice_get",
            "papierkram",
            "Returns one outgoing invoice in full: line items.",
            &["id"],
        ),
        doc(
            "papierkram_vouchers_list",
            "papierkram",
            "Lists expense vouchers (Belege, Eingangsrechnungen) with amount.",
            &["company_id"],
        ),
        doc(
            "papierkram_companies_list",
            "papierkram",
            "Lists customers and suppliers (Kunden, Lieferanten). Use it to find the \
             company_id for papierkram_invoices_list.",
            &["order_by"],
        ),
        doc(
            "papierkram_time_entries_list",
            "papierkram",
            "Lists tracked time (Zeiterfassung, Umsätze der Stunden) per project.",
            &["project_id"],
        ),
    ])
}

/// 2,001 tools that all contain "widget"; `visible` admits the first `n`.
pub(super) fn widgets() -> Index {
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

pub(super) fn first(n: usize) -> impl Fn(&str) -> bool {
    move |name: &str| name[7..11].parse::<usize>().unwrap() < n
}
