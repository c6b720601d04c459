//! Names a client sends (tool names, argument names, enum values): checked to be short and
//! plain before any lookup, so a request costs at most linear work in its size, and the
//! "did you mean" suggestion for names that are.

/// The longest tool name a client may send; longer ones are refused before any lookup.
pub(crate) const MAX_NAME_LEN: usize = 128;

/// Why a client-supplied tool name is refused before it is looked up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NameError {
    #[error("a tool name is at most {MAX_NAME_LEN} characters (got {0} bytes)")]
    TooLong(usize),
    #[error("a tool name uses only letters, digits, `_`, `-` and `.`")]
    NotPlain,
    #[error("the tool name is empty")]
    Empty,
}

/// A client-supplied word as it may be quoted back in a hint: at most 40 characters.
pub(crate) fn shown(word: &str) -> String {
    let mut out: String = word.chars().take(40).collect();
    if out.len() < word.len() {
        out.push('…');
    }
    out
}

/// A tool name as it may be looked up, suggested for or logged: at most [`MAX_NAME_LEN`]
/// characters of `[A-Za-z0-9_.-]`. Reads at most `MAX_NAME_LEN + 1` bytes of `name`.
pub(crate) fn plain_name(name: &str) -> Result<&str, NameError> {
    if name.len() > MAX_NAME_LEN {
        return Err(NameError::TooLong(name.len()));
    }
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        return Err(NameError::NotPlain);
    }
    Ok(name)
}

/// The candidate closest to `word` when it is plausibly what was meant: a small edit distance,
/// or one name being the other with a resource prefix (`invoice_id` for `id`).
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    // Longer words are no plausible typo of a name and would cost quadratic work.
    if word.len() > MAX_NAME_LEN {
        return None;
    }
    let word = word.to_ascii_lowercase();
    candidates
        .filter_map(|c| {
            let lower = c.to_ascii_lowercase();
            let prefixed =
                word.ends_with(&format!("_{lower}")) || lower.ends_with(&format!("_{word}"));
            let d = if prefixed {
                1
            } else {
                edit_distance(&word, &lower)
            };
            (d <= (c.len() / 3).max(2)).then_some((d, c))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_ignores_far_words() {
        assert_eq!(
            closest("invoce_id", ["invoice_id", "page"].into_iter()),
            Some("invoice_id")
        );
        assert_eq!(closest("zzz", ["invoice_id"].into_iter()), None);
        assert_eq!(
            closest("invoice_id", ["id", "fields"].into_iter()),
            Some("id")
        );
    }

    #[test]
    fn long_or_unusual_names_are_refused_before_any_lookup() {
        assert_eq!(
            plain_name("papierkram_invoices_list"),
            Ok("papierkram_invoices_list")
        );
        assert_eq!(plain_name("a.b-c_1"), Ok("a.b-c_1"));
        assert_eq!(plain_name(&"x".repeat(129)), Err(NameError::TooLong(129)));
        assert_eq!(plain_name("rm -rf"), Err(NameError::NotPlain));
        assert_eq!(plain_name("ünvoice"), Err(NameError::NotPlain));
        assert_eq!(plain_name(""), Err(NameError::Empty));
    }

    #[test]
    fn a_huge_word_gets_no_suggestion_and_costs_nothing() {
        let huge = "papierkram_invoices_list".repeat(100_000);
        assert_eq!(
            closest(&huge, ["papierkram_invoices_list"].into_iter()),
            None
        );
    }
}
