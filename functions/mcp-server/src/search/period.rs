//! Month names in queries. Users ask about a month by its name ("Umsatz im Mai", "what did we
//! earn in March"), while the tools that take a month say "month" (or "Monat") and name a month
//! only in an example; so a month name also matches the month itself, as a mention.

/// Month names, folded like query words (ä → ae, plus the plain vowel form), English and German.
const MONTHS: &[&str] = &[
    "january",
    "februar",
    "february",
    "march",
    "maerz",
    "marz",
    "april",
    "may",
    "mai",
    "june",
    "juni",
    "july",
    "juli",
    "august",
    "september",
    "october",
    "oktober",
    "november",
    "december",
    "dezember",
    "januar",
];

/// What a month name also stands for, as index words (stemmed like the catalog's text).
pub(super) const MONTH_WORDS: &[&str] = &["month", "monat"];

/// Whether a folded query word names a calendar month.
pub(super) fn is_month(folded: &str) -> bool {
    MONTHS.contains(&folded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Index;
    use crate::search::fixtures::{all, doc, ranked};

    #[test]
    fn a_month_name_finds_the_tool_that_takes_a_month() {
        let index = Index::build(vec![
            doc(
                "papierkram_month_close_get",
                "c",
                "Month close (Monatsabschluss).",
                &["month"],
            ),
            doc(
                "papierkram_vouchers_list",
                "c",
                "Lists expense vouchers.",
                &["company_id"],
            ),
        ]);
        for query in ["earn in march", "Umsatz im März", "mai"] {
            assert_eq!(
                ranked(&index, query, &all),
                ["papierkram_month_close_get"],
                "{query}"
            );
        }
        assert!(is_month("maerz") && !is_month("monat"));
    }
}
