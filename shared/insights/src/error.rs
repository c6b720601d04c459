//! The one error type of the crate.

/// Why a query was rejected.
///
/// Every variant names the command it was found in (`query` when it is not inside a command),
/// the 1-based line and column, and says what would have been accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// The text is not a well-formed query.
    #[error("{command} (line {line}, column {column}): {message}")]
    Syntax {
        command: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// Valid Logs Insights, but outside the subset this engine executes.
    #[error(
        "{command} (line {line}, column {column}): {feature} is not supported by the local engine; {supported}"
    )]
    Unsupported {
        command: String,
        line: usize,
        column: usize,
        feature: String,
        supported: String,
    },
}

/// 1-based line and column of byte offset `at` in `text`.
pub(crate) fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        assert_eq!(line_col("abc", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }

    #[test]
    fn error_text_names_command_position_and_alternative() {
        let e = QueryError::Unsupported {
            command: "stats".into(),
            line: 1,
            column: 7,
            feature: "`stddev()`".into(),
            supported: "supported: count, sum".into(),
        };
        assert_eq!(
            e.to_string(),
            "stats (line 1, column 7): `stddev()` is not supported by the local engine; supported: count, sum"
        );
    }
}
