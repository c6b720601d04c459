//! The Logs Insights queries in `queries/`, compiled in so the binary needs no checkout, and the
//! names of their result columns.

/// Failed calls per tool, status and reason; see `queries/top-failing-tools.insights`.
pub const TOP_FAILING_TOOLS: &str = include_str!("../../../queries/top-failing-tools.insights");
/// Calls and failed calls per connector and tool; see `queries/tool-totals.insights`.
pub const TOOL_TOTALS: &str = include_str!("../../../queries/tool-totals.insights");
/// The latest failed calls of one tool; see `queries/failing-samples.insights`. Needs
/// [`failing_samples`] to fill in the tool.
pub const FAILING_SAMPLES: &str = include_str!("../../../queries/failing-samples.insights");
/// Failed calls per UTC day and tool; see `queries/errors-per-day.insights`.
pub const ERRORS_PER_DAY: &str = include_str!("../../../queries/errors-per-day.insights");

/// Requests and tool calls refused by a limit, per reason, user and key id; see
/// `queries/limits-hit.insights`.
pub const LIMITS_HIT: &str = include_str!("../../../queries/limits-hit.insights");

/// Each tool's call durations, p50/p95/p99; see `queries/tool-latency.insights`.
pub const TOOL_LATENCY: &str = include_str!("../../../queries/tool-latency.insights");

/// Searches that found nothing and calls of names that are no tool; see
/// `queries/missing-capabilities.insights`.
pub const MISSING_CAPABILITIES: &str =
    include_str!("../../../queries/missing-capabilities.insights");

/// Calls of write tools per connector and tool, one column per way a write call ended; see
/// `queries/writes.insights`.
pub const WRITES: &str = include_str!("../../../queries/writes.insights");

/// What calls of tools that spend spent, per connector, unit and tool; see
/// `queries/spend.insights`.
pub const SPEND: &str = include_str!("../../../queries/spend.insights");

/// The placeholder in [`FAILING_SAMPLES`] that [`failing_samples`] replaces.
pub const TOOL_PLACEHOLDER: &str = "{tool}";

/// Most argument names a sample shows (`arg_keys.0` … `arg_keys.9`).
pub const SAMPLE_ARG_KEYS: usize = 10;

/// Result columns: the `by` fields, the `fields` names and the `as` aliases.
pub mod columns {
    pub const TOOL: &str = audit::fields::TOOL;
    pub const STATUS: &str = audit::fields::STATUS;
    pub const REASON: &str = audit::fields::REASON;
    pub const REQUEST_ID: &str = audit::fields::REQUEST_ID;
    pub const TRACE_ID: &str = audit::fields::TRACE_ID;
    pub const TS: &str = audit::fields::TS;
    pub const USER: &str = audit::fields::USER;
    pub const KEY_ID: &str = audit::fields::KEY_ID;
    pub const CALLS: &str = "calls";
    pub const ERRORS: &str = "errors";
    pub const LAST_SEEN: &str = "last_seen";
    pub const DAY: &str = "day";
    pub const MORE_ARG_KEYS: &str = "more_arg_keys";
    /// `limits-hit`: refusals by a limit; `writes`: confirmation tokens refused.
    pub const REFUSED: &str = "refused";
    pub const EVENT: &str = audit::fields::EVENT;
    pub const MISSES: &str = "misses";
    pub const P50: &str = "p50";
    pub const P95: &str = "p95";
    pub const P99: &str = "p99";
    pub const CONNECTOR: &str = audit::fields::CONNECTOR;
    /// `spend`: the unit of the spend, and the sum spent.
    pub const SPEND_UNIT: &str = audit::fields::SPEND_UNIT;
    pub const SPENT: &str = "spent";
    /// The `writes` columns besides `calls`: each write call counts in exactly one.
    pub const EXECUTED: &str = "executed";
    pub const DRY_RUNS: &str = "dry_runs";
    pub const ASKED: &str = "asked";
    pub const DECLINED: &str = "declined";
    // REFUSED above: confirmation tokens refused here.
    pub const NEEDS_PERSON: &str = "needs_person";
    pub const REPLAYED: &str = "replayed";
    pub const CONFLICTS: &str = "conflicts";
    pub const OUTCOME_UNKNOWN: &str = "outcome_unknown";
    pub const FAILED: &str = "failed";
    pub const WRITE_COUNTS: &[&str] = &[
        EXECUTED,
        DRY_RUNS,
        ASKED,
        DECLINED,
        REFUSED,
        NEEDS_PERSON,
        REPLAYED,
        CONFLICTS,
        OUTCOME_UNKNOWN,
        FAILED,
    ];

    /// `arg_keys.N`: Insights flattens the JSON array into one field per position.
    pub fn arg_key(position: usize) -> String {
        format!("{}.{position}", audit::fields::ARG_KEYS)
    }
}

/// Why a tool name cannot go into the samples query.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool name `{0}` is not queryable: 1 to 128 of A-Z a-z 0-9 _ - . : expected")]
pub struct UnqueryableTool(pub String);

/// [`FAILING_SAMPLES`] for `tool`, quoted. Names come from query results, so they are checked
/// against the characters tool names use rather than escaped: nothing that could end the string
/// literal reaches the query.
pub fn failing_samples(tool: &str) -> Result<String, UnqueryableTool> {
    let valid = (1..=128).contains(&tool.len())
        && tool
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'));
    if !valid {
        return Err(UnqueryableTool(tool.to_string()));
    }
    Ok(FAILING_SAMPLES.replace(TOOL_PLACEHOLDER, &format!("\"{tool}\"")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_queries() -> Vec<(&'static str, String)> {
        vec![
            ("top-failing-tools", TOP_FAILING_TOOLS.to_string()),
            ("tool-totals", TOOL_TOTALS.to_string()),
            (
                "failing-samples",
                failing_samples("papierkram_invoice_get").unwrap(),
            ),
            ("errors-per-day", ERRORS_PER_DAY.to_string()),
            ("limits-hit", LIMITS_HIT.to_string()),
            ("tool-latency", TOOL_LATENCY.to_string()),
            ("missing-capabilities", MISSING_CAPABILITIES.to_string()),
            ("writes", WRITES.to_string()),
            ("spend", SPEND.to_string()),
        ]
    }

    /// Words of the query language the queries use; everything else must be a field.
    const KEYWORDS: &[&str] = &[
        "filter",
        "fields",
        "stats",
        "sort",
        "limit",
        "display",
        "by",
        "as",
        "and",
        "or",
        "not",
        "in",
        "like",
        "asc",
        "desc",
        "count",
        "sum",
        "latest",
        "earliest",
        "min",
        "max",
        "bin",
        "ispresent",
        "pct",
    ];

    /// Identifiers of `query` outside comments and string literals, except numbers and periods
    /// such as `1d`, and the aliases the query defines (the word after `as`).
    fn identifiers(query: &str) -> (Vec<String>, Vec<String>) {
        let mut words = Vec::new();
        let mut aliases = Vec::new();
        for line in query.lines() {
            let mut code = String::new();
            let mut in_string = false;
            for c in line.chars() {
                match c {
                    '"' => in_string = !in_string,
                    '#' if !in_string => break,
                    _ if in_string => {}
                    c => code.push(c),
                }
            }
            let mut after_as = false;
            for word in code.split(|c: char| !(c.is_ascii_alphanumeric() || "_.@".contains(c))) {
                if word.is_empty() {
                    continue;
                }
                if after_as {
                    after_as = false;
                    aliases.push(word.to_string());
                    continue;
                }
                after_as = word == "as";
                if !word.starts_with(|c: char| c.is_ascii_digit()) {
                    words.push(word.to_string());
                }
            }
        }
        (words, aliases)
    }

    fn is_audit_field(word: &str) -> bool {
        let flattened_arg_key = word
            .strip_prefix(audit::fields::ARG_KEYS)
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        audit::fields::ALL.contains(&word)
            || flattened_arg_key
            || ["@timestamp", "@message", "@logStream", "@log"].contains(&word)
    }

    #[test]
    fn every_query_parses_with_the_local_engine() {
        for (name, text) in all_queries() {
            if let Err(e) = insights::parse(&text) {
                panic!("queries/{name}.insights: {e}");
            }
        }
    }

    #[test]
    fn queries_use_only_audit_field_names() {
        for (name, text) in all_queries() {
            let (words, aliases) = identifiers(&text);
            assert!(words.contains(&"event".to_string()), "{name}: {words:?}");
            for word in words {
                assert!(
                    KEYWORDS.contains(&word.as_str())
                        || aliases.contains(&word)
                        || is_audit_field(&word),
                    "queries/{name}.insights uses `{word}`, which is not in audit::fields::ALL"
                );
            }
        }
    }

    #[test]
    fn field_check_catches_an_unknown_field() {
        let (words, aliases) = identifiers(
            "filter tool = \"x # y\" and toolname = 1 # comment field\n| stats count(*) as n by bin(1d)",
        );
        assert_eq!(
            words,
            [
                "filter", "tool", "and", "toolname", "stats", "count", "as", "by", "bin"
            ]
        );
        assert_eq!(aliases, ["n"]);
        assert!(!is_audit_field("toolname"));
        assert!(is_audit_field("arg_keys.12") && !is_audit_field("arg_keys.x"));
    }

    #[test]
    fn writes_query_names_every_column_the_digest_reads() {
        let (_, aliases) = identifiers(WRITES);
        let mut expected = vec![columns::CALLS];
        expected.extend(columns::WRITE_COUNTS);
        assert_eq!(aliases, expected);
        let by = format!("by {}, {}", columns::CONNECTOR, columns::TOOL);
        assert!(WRITES.contains(&by), "{WRITES}");
    }

    #[test]
    fn samples_query_quotes_a_valid_tool_and_refuses_others() {
        let q = failing_samples("papierkram_invoice_get").unwrap();
        assert!(q.contains("tool = \"papierkram_invoice_get\""));
        assert!(!q.contains(TOOL_PLACEHOLDER));
        for bad in [
            "",
            "a\"b",
            "x\") or (tool = \"y",
            "a b",
            "a\\b",
            &"x".repeat(129),
        ] {
            assert_eq!(failing_samples(bad), Err(UnqueryableTool(bad.to_string())));
        }
    }

    #[test]
    fn samples_query_lists_every_shown_arg_key_column() {
        let q = failing_samples("t").unwrap();
        for i in 0..SAMPLE_ARG_KEYS {
            assert!(q.contains(&columns::arg_key(i)), "{i}");
        }
        assert!(q.contains(&format!("ispresent({})", columns::arg_key(SAMPLE_ARG_KEYS))));
    }
}
