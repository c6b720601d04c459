//! A light suffix stemmer for English and German plurals and inflections. Documents and queries
//! are stemmed alike, so it only has to give a word's forms one key, not find a real root; no
//! dictionary to ship or load at start.

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
pub(crate) fn stem(word: &str) -> String {
    let mut out = String::new();
    stem_into(&word.to_lowercase(), &mut out);
    out
}

pub(super) fn stem_into(word: &str, out: &mut String) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
