//! The Logs Insights query `queries/quota-usage.insights`, compiled in, and the names of its
//! result columns.

/// One row per connector and tool over the time range the query runs on.
pub const QUOTA_USAGE: &str = include_str!("../../../queries/quota-usage.insights");

/// Result columns of [`QUOTA_USAGE`] (the `by` fields and the `as` aliases).
pub mod columns {
    pub const CONNECTOR: &str = audit::fields::CONNECTOR;
    pub const TOOL: &str = audit::fields::TOOL;
    pub const CALLS: &str = "calls";
    pub const CONSUMED: &str = "consumed";
    pub const REMAINING: &str = "remaining";
    pub const LIMIT: &str = "window_limit";
    pub const LAST_SEEN: &str = "last_seen";
    pub const ALL: &[&str] = &[
        CONNECTOR, TOOL, CALLS, CONSUMED, REMAINING, LIMIT, LAST_SEEN,
    ];
}

/// The query text without `#` comment lines, as sent to StartQuery.
pub fn quota_usage() -> String {
    QUOTA_USAGE
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Query-language words that are not field names.
    const KEYWORDS: &[&str] = &[
        "filter", "stats", "by", "as", "and", "or", "not", "in", "sort", "asc", "desc", "limit",
        "fields", "display",
    ];

    /// `(identifier, followed by '(', preceded by 'as')` for every word outside string literals.
    fn words(query: &str) -> Vec<(String, bool, bool)> {
        let mut out = Vec::new();
        let mut previous = String::new();
        for line in query.lines().filter(|l| !l.trim_start().starts_with('#')) {
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '"' || c == '\'' {
                    for d in chars.by_ref() {
                        if d == c {
                            break;
                        }
                    }
                    continue;
                }
                if c.is_ascii_alphabetic() || c == '_' || c == '@' {
                    let mut word = c.to_string();
                    while let Some(&d) = chars.peek() {
                        if d.is_ascii_alphanumeric() || d == '_' || d == '.' {
                            word.push(d);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    while chars.peek().is_some_and(|d| *d == ' ') {
                        chars.next();
                    }
                    let call = chars.peek() == Some(&'(');
                    out.push((word.clone(), call, previous == "as"));
                    previous = word;
                }
            }
        }
        out
    }

    #[test]
    fn query_uses_only_audit_field_names() {
        let words = words(QUOTA_USAGE);
        assert!(!words.is_empty());
        for (word, call, alias) in words {
            if call || alias || KEYWORDS.contains(&word.as_str()) {
                continue;
            }
            assert!(
                audit::fields::ALL.contains(&word.as_str()) || word.starts_with('@'),
                "`{word}` is not an audit field name (audit::fields::ALL)"
            );
        }
    }

    #[test]
    fn query_output_columns_are_the_ones_the_rows_are_read_with() {
        let aliases: Vec<String> = words(QUOTA_USAGE)
            .into_iter()
            .filter(|(_, _, alias)| *alias)
            .map(|(w, _, _)| w)
            .collect();
        let query = quota_usage();
        let by = query.rsplit(" by ").next().unwrap();
        let mut columns: Vec<&str> = by.split(',').map(str::trim).collect();
        columns.extend(aliases.iter().map(String::as_str));
        let mut expected = columns::ALL.to_vec();
        columns.sort_unstable();
        expected.sort_unstable();
        assert_eq!(columns, expected);
    }

    #[test]
    fn sent_query_has_no_comments() {
        let q = quota_usage();
        assert!(q.starts_with("filter "), "{q}");
        assert!(!q.contains('#'));
    }
}
