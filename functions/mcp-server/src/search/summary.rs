//! One-line summaries for the summary detail level: a description's first real sentence (not cut
//! at "e.g." or "z. B."), on one line, cut at a word when very long. Worked out once per tool at
//! index build, not per answer.

const MAX_SUMMARY_CHARS: usize = 240;

/// Words after which a full stop does not end a sentence (lowercase, without the final dot).
const ABBREVIATIONS: &[&str] = &[
    "approx", "bspw", "bzgl", "bzw", "ca", "d.h", "dr", "e.g", "evtl", "ggf", "i.e", "inkl", "max",
    "min", "mio", "mrd", "nr", "o.ä", "s.o", "u.a", "vgl", "vs", "z.b", "z.t", "zzgl",
];

/// The first real sentence of a description: up to a `.`, `!` or `?` followed by white space
/// and not lowercase text, and not after an abbreviation ("e.g.", "z.B.", "bzw.", "Nr."), an
/// initial ("z. B.") or an ordinal ("am 1. Mai"). Decimals never end a sentence (no space after
/// the dot). Without a sentence end: the whole text.
pub(crate) fn summary_line(description: &str) -> &str {
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

/// Where a description's subject ends: its first sentence, what the tool is with its other
/// names ("Lists outgoing invoices (Ausgangsrechnungen, Rechnungen) with totals."), before what it
/// is for and its examples.
pub(super) fn subject_end(description: &str) -> usize {
    let first = summary_line(description);
    description.len() - description.trim_start().len() + first.len()
}

/// White space collapsed to single spaces (descriptions are folded YAML).
pub(super) fn one_line(text: &str) -> String {
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
pub(super) fn summary(description: &str) -> String {
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

    #[test]
    fn subject_is_the_first_sentence() {
        let text = "  Lists invoices (Rechnungen) with totals. Use it.";
        assert_eq!(
            &text[..subject_end(text)],
            "  Lists invoices (Rechnungen) with totals."
        );
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
}
