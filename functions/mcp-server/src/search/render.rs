//! Writing one page of matches at a detail level (full schemas, one-line summaries, names per
//! connector, counts per connector) as text for the model plus structured content, falling back
//! to coarser levels while the answer exceeds the 50 KB cap, and the footer that says how many
//! tools matched and how to refine. Ranking is done by then; this is formatting only.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::advice::{self, Shown};
use super::arguments::{Detail, SUMMARY_UP_TO, SearchRequest};
use super::index::Index;
use super::rank::Hit;
use super::summary::one_line;

/// Hard cap on an answer: its text plus its structured content, serialised.
pub const MAX_ANSWER_BYTES: usize = 50 * 1024;
/// Further matches named after the schemas at the full level.
pub(super) const MORE_NAMES: usize = 15;

#[derive(Debug, Clone)]
pub struct SearchAnswer {
    /// The answer for the model, ending with the footer line.
    pub text: String,
    /// The answer as data: `query`, `connector`, `matched`, `total`, `detail` (and
    /// `reduced_from` when the cap forced a coarser level), `shown`; `tools`, the names shown
    /// (every level but counts, up to 250 names; longer lists are in the text only); `more` and
    /// `partial` names; `counts` per connector (names and counts levels); `note`; `refine`, the
    /// arguments of each call the footer advises (`closest` and `connectors` when nothing
    /// matched).
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

/// Everything one answer shows, whichever detail level renders it.
pub(super) struct Page<'a> {
    pub(super) q: &'a SearchRequest,
    pub(super) requested: Detail,
    /// Tools matching the most query words, the best `shown` (and a few more) first.
    pub(super) matched: &'a [Hit],
    pub(super) shown: usize,
    /// Tools matching fewer words, named when few matched fully.
    pub(super) partial: Vec<Hit>,
    /// Matches per connector (index into `connectors`), most first.
    pub(super) counts: Vec<(usize, usize)>,
    pub(super) total: usize,
    /// Words no tool mentions, or that no tool has them all.
    pub(super) note: Option<String>,
}

impl Index {
    /// Renders at the level asked for, then at coarser ones until the answer fits the cap; the
    /// counts level is the last resort and goes out as it is.
    pub(super) fn answer(&self, page: &Page<'_>) -> SearchAnswer {
        let mut level = page.requested;
        loop {
            let answer = self.render(page, level);
            if answer.bytes() <= MAX_ANSWER_BYTES || level == Detail::Counts {
                return answer;
            }
            level = level.coarser();
        }
    }

    fn render(&self, page: &Page<'_>, level: Detail) -> SearchAnswer {
        let (q, requested, matched, shown, total) =
            (page.q, page.requested, page.matched, page.shown, page.total);
        let counts = &page.counts[..];
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
        match level {
            Detail::Full | Detail::Summary => {
                self.write_tools(&mut text, &mut structured, page, level)
            }
            Detail::Names => self.write_names(&mut text, &mut structured, page),
            Detail::Counts => self.write_counts(&mut text, counts),
        }
        if level >= Detail::Names {
            let mut per = serde_json::Map::new();
            for (c, n) in counts.iter().take(200) {
                per.insert(self.connectors[*c].clone(), (*n).into());
            }
            structured["counts"] = Value::Object(per);
        }
        let top_connector = (counts.len() > 1).then(|| self.connectors[counts[0].0].as_str());
        let advice = advice::after_matches(
            q,
            &Shown {
                matched: matched.len(),
                shown,
                level,
                top_connector,
            },
        );
        structured["refine"] = advice.calls();
        text.push('\n');
        text.push_str(&footer(matched.len(), total, q, level, requested, shown));
        text.push_str(&advice.text());
        SearchAnswer {
            text,
            structured,
            matched: matched.len(),
            total,
            detail: level,
        }
    }
}

impl Index {
    fn name(&self, h: &Hit) -> &str {
        self.docs[h.doc as usize].name.as_str()
    }

    /// Full and summary detail: each shown tool (its description and schema, or a summary),
    /// then the names matched beyond the page and the partial matches.
    fn write_tools(
        &self,
        text: &mut String,
        structured: &mut Value,
        page: &Page<'_>,
        level: Detail,
    ) {
        let (matched, shown) = (page.matched, page.shown);
        let hits = &matched[..shown];
        for h in hits {
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
        structured["tools"] = hits.iter().map(|h| self.name(h)).collect::<Vec<_>>().into();
        let more: Vec<&str> = matched[shown..]
            .iter()
            .take(MORE_NAMES)
            .map(|h| self.name(h))
            .collect();
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
        if !page.partial.is_empty() {
            let names: Vec<&str> = page.partial.iter().map(|h| self.name(h)).collect();
            let _ = writeln!(
                text,
                "\nPartial matches (not every word): {}.",
                names.join(", ")
            );
            structured["partial"] = names.into();
        }
    }

    /// Names detail: the shown tools' names grouped by connector.
    fn write_names(&self, text: &mut String, structured: &mut Value, page: &Page<'_>) {
        let (matched, shown) = (page.matched, page.shown);
        let hits = &matched[..shown];
        let mut groups: Vec<(u32, Vec<&str>)> = Vec::new();
        for h in hits {
            let c = self.doc_connector[h.doc as usize];
            match groups.iter_mut().find(|(gc, _)| *gc == c) {
                Some((_, names)) => names.push(self.name(h)),
                None => groups.push((c, vec![self.name(h)])),
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
        // Long name lists live in the text only: both copies of 2,000 names would not fit the
        // cap.
        if shown <= SUMMARY_UP_TO {
            structured["tools"] = hits.iter().map(|h| self.name(h)).collect::<Vec<_>>().into();
        }
    }

    /// Counts detail: matches per connector, cut to a third of the cap.
    fn write_counts(&self, text: &mut String, counts: &[(usize, usize)]) {
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

/// The footer's first part: how many tools matched and at what detail; the advice follows.
fn footer(
    matched: usize,
    total: usize,
    q: &SearchRequest,
    level: Detail,
    requested: Detail,
    shown: usize,
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
    s.push_str(". ");
    s
}

/// 5000 → "5,000".
pub(super) fn thousands(n: usize) -> String {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::search::Doc;
    use crate::search::fixtures::{all, doc, first, req, widgets};

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
             connector=\"papierkram\", detail=\"full\" for schemas."
        );
        assert_eq!(
            answer.structured["refine"],
            json!([
                {"query": "ledger", "connector": "papierkram", "detail": "summary"},
                {"query": "ledger", "detail": "full"},
            ])
        );
        let answer = index.search(&req("ledger"), &all);
        assert_eq!(
            answer.text.lines().last().unwrap(),
            "12 of 5,000 tools matched — detail: full, top 10 shown. Refine: a narrower query, \
             connector=\"papierkram\", detail=\"summary\" for one line per tool, limit=12 to show \
             more."
        );
        assert_eq!(
            answer.structured["refine"][2],
            json!({"query": "ledger", "limit": 12})
        );
        let scoped = SearchRequest {
            connector: Some("lexoffice".into()),
            ..req("ledger")
        };
        assert_eq!(
            index.search(&scoped, &all).text.lines().last().unwrap(),
            "4 of 4 lexoffice tools matched — detail: full. Refine: other words for other tools, \
             no connector to search all connectors, detail=\"summary\" for one line per tool."
        );
        let browse = SearchRequest {
            connector: Some("lexoffice".into()),
            ..req("")
        };
        let answer = index.search(&browse, &all);
        assert!(
            answer.text.ends_with(
                "Refine: other words for other tools, a query to search all connectors, \
                            detail=\"summary\" for one line per tool."
            ),
            "{}",
            answer.text
        );
        // Without a connector an empty query is refused: no advised call drops it.
        assert_eq!(
            answer.structured["refine"],
            json!([{"query": "", "connector": "lexoffice", "detail": "summary"}])
        );
    }
}
