//! The capability pages next to the catalogs (`<connector>.md` beside `<connector>.yaml`): each
//! present, the page its catalog gives now (a stale page is a gap: generate it again with
//! `mcp-server pages DIR`), and reviewed by a person within 90 days (a warning after that, a gap
//! after 180 or when it never was).

use std::path::{Path, PathBuf};

use catalog::Catalog;

use super::{Row, Verdict, row};
use crate::pages;

/// Days after which a review is due (a warning), and overdue (a gap).
const REVIEW_DUE_DAYS: i64 = 90;
const REVIEW_OVERDUE_DAYS: i64 = 180;

/// Where the page of the catalog in `file` is.
pub(crate) fn page_path(file: &Path) -> PathBuf {
    file.with_extension("md")
}

/// The page the catalog in `file` gives now, with `reviewed` kept and the lint's gaps on it
/// (`rows`: the checklist's rows, before this rule's).
pub(crate) fn expected(file: &Path, c: &Catalog, rows: &[Row], reviewed: Option<&str>) -> String {
    let source = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cap = pages::capability(c, &source);
    pages::markdown(&cap, reviewed, &gaps_of(c, rows))
}

/// The connector's gaps among `rows`, as a page lists them.
fn gaps_of(c: &Catalog, rows: &[Row]) -> Vec<String> {
    let ours = |subject: &str| {
        subject == c.connector.as_str() || c.tools.iter().any(|t| t.name == subject)
    };
    rows.iter()
        .filter(|r| r.verdict == Verdict::Gap && ours(&r.subject))
        .map(|r| format!("{} `{}`: {}", r.rule, r.subject, r.detail))
        .collect()
}

/// One row per catalog: its page present, current and reviewed; `today` as `YYYY-MM-DD`.
pub(crate) fn rows(
    files: &[(PathBuf, Catalog)],
    rows: &[Row],
    today: jiff::civil::Date,
) -> Vec<Row> {
    files
        .iter()
        .map(|(file, c)| {
            let path = page_path(file);
            let subject = c.connector.to_string();
            let Ok(page) = std::fs::read_to_string(&path) else {
                return row(
                    "capability_page",
                    subject,
                    false,
                    format!(
                        "no {}: write it with `mcp-server pages DIR`",
                        path.display()
                    ),
                );
            };
            let reviewed = pages::reviewed(&page);
            if c.purpose.is_none() {
                return row(
                    "capability_page",
                    subject,
                    false,
                    "the catalog declares no `purpose`: say in a sentence what the connector is for",
                );
            }
            if page != expected(file, c, rows, reviewed) {
                return row(
                    "capability_page",
                    subject,
                    false,
                    "stale: the catalog says more or other than the page; generate it again \
                     with `mcp-server pages DIR` and review it",
                );
            }
            review_row(subject, reviewed, today)
        })
        .collect()
}

/// How long ago the page was reviewed: ok, a warning after [`REVIEW_DUE_DAYS`], a gap after
/// [`REVIEW_OVERDUE_DAYS`] or without a valid date.
fn review_row(subject: String, reviewed: Option<&str>, today: jiff::civil::Date) -> Row {
    let Some(date) = reviewed.and_then(|d| d.parse::<jiff::civil::Date>().ok()) else {
        return row(
            "capability_page",
            subject,
            false,
            "never reviewed: check the page against the system, then set `reviewed: YYYY-MM-DD`",
        );
    };
    let age = date
        .until(today)
        .map_or(0, |span| i64::from(span.get_days()));
    let detail = format!("reviewed {date} ({age} days ago)");
    if age > REVIEW_OVERDUE_DAYS {
        return row(
            "capability_page",
            subject,
            false,
            format!("{detail}: overdue after {REVIEW_OVERDUE_DAYS} days; review it again"),
        );
    }
    Row {
        rule: "capability_page",
        subject,
        verdict: if age > REVIEW_DUE_DAYS {
            Verdict::Warn
        } else {
            Verdict::Ok
        },
        detail: if age > REVIEW_DUE_DAYS {
            format!("{detail}: due for a review (after {REVIEW_DUE_DAYS} days)")
        } else {
            detail
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALOG: &str = r#"
connector: demo
title: Demo
purpose: A demo.
base_url: "https://example.com"
tools:
  - name: demo_thing_get
    risk: low
    description: 'One thing. Use it when you have an id. Example {"id": 1}'
    get: /things/{id}
    params:
      id: { type: integer, in: path, min: 1 }
"#;

    fn verdict(dir: &Path, page: Option<&str>, today: &str) -> (Verdict, String) {
        let file = dir.join("demo.yaml");
        std::fs::write(&file, CATALOG).unwrap();
        let c = catalog::parse("demo.yaml", CATALOG).unwrap();
        match page {
            Some(p) => std::fs::write(page_path(&file), p).unwrap(),
            None => {
                let _ = std::fs::remove_file(page_path(&file));
            }
        }
        let r = &rows(&[(file, c)], &[], today.parse().unwrap())[0];
        (r.verdict, r.detail.clone())
    }

    #[test]
    fn a_page_is_present_current_and_reviewed_within_ninety_days() {
        let dir = std::env::temp_dir().join(format!("pages-lint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let c = catalog::parse("demo.yaml", CATALOG).unwrap();
        let page = |reviewed| expected(&dir.join("demo.yaml"), &c, &[], reviewed);
        let today = "2026-12-06";
        let cases = [
            (None, Verdict::Gap, "no "),
            (Some(page(None)), Verdict::Gap, "never reviewed"),
            (
                Some(page(Some("2026-11-01"))),
                Verdict::Ok,
                "reviewed 2026-11-01 (35 days ago)",
            ),
            (
                Some(page(Some("2026-08-01"))),
                Verdict::Warn,
                "due for a review",
            ),
            (
                Some(page(Some("2026-05-01"))),
                Verdict::Gap,
                "overdue after 180 days",
            ),
            (Some(page(Some("someday"))), Verdict::Gap, "never reviewed"),
            (
                Some(page(Some("2026-11-01")).replace("A demo.", "Another demo.")),
                Verdict::Gap,
                "stale",
            ),
        ];
        for (p, want, says) in cases {
            let (got, detail) = verdict(&dir, p.as_deref(), today);
            assert_eq!(got, want, "{detail}");
            assert!(detail.contains(says), "{detail}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
