//! The "Writes" section: calls of write tools per connector and tool, from the `writes` rows:
//! what ran, what was only previewed, confirmations asked, declined and refused, replays,
//! idempotency conflicts and writes whose outcome is unknown.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use crate::rows::{WriteCounts, WriteRow};

/// Tools shown; the rest are summed in one line.
pub const WRITES_SHOWN: usize = 10;

/// One connector's tool's write calls in the week.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolWrites {
    pub connector: String,
    pub tool: String,
    pub counts: WriteCounts,
}

/// The week's write calls.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Writes {
    /// Outcome unknown first (someone must check those), then most executed, then most calls,
    /// then by connector and tool.
    pub tools: Vec<ToolWrites>,
    /// Over all tools.
    pub total: WriteCounts,
}

impl Writes {
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools with writes whose outcome is unknown, in section order.
    pub fn unknown(&self) -> impl Iterator<Item = &ToolWrites> {
        self.tools.iter().filter(|t| t.counts.outcome_unknown > 0)
    }

    /// Whether the writes came from more than one connector (then the section names them).
    pub fn several_connectors(&self) -> bool {
        self.tools
            .first()
            .is_some_and(|first| self.tools.iter().any(|t| t.connector != first.connector))
    }
}

/// One [`ToolWrites`] per connector and tool; rows of one tool from several log group batches
/// are added up.
pub fn writes(rows: &[WriteRow]) -> Writes {
    let mut by_tool: BTreeMap<(&str, &str), WriteCounts> = BTreeMap::new();
    for r in rows {
        *by_tool.entry((&r.connector, &r.tool)).or_default() += r.counts;
    }
    let mut tools: Vec<ToolWrites> = by_tool
        .into_iter()
        .filter(|(_, c)| c.calls > 0)
        .map(|((connector, tool), counts)| ToolWrites {
            connector: connector.to_string(),
            tool: tool.to_string(),
            counts,
        })
        .collect();
    // Stable: ties stay in connector, tool order from the map.
    tools.sort_by_key(|t| {
        let c = &t.counts;
        (
            Reverse(c.outcome_unknown),
            Reverse(c.executed),
            Reverse(c.calls),
        )
    });
    let mut total = WriteCounts::default();
    for t in &tools {
        total += t.counts;
    }
    Writes { tools, total }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(connector: &str, tool: &str, counts: WriteCounts) -> WriteRow {
        WriteRow {
            connector: connector.into(),
            tool: tool.into(),
            counts,
        }
    }

    fn executed(calls: u64, executed: u64) -> WriteCounts {
        WriteCounts {
            calls,
            executed,
            ..WriteCounts::default()
        }
    }

    fn order(w: &Writes) -> Vec<(&str, &str)> {
        w.tools
            .iter()
            .map(|t| (t.connector.as_str(), t.tool.as_str()))
            .collect()
    }

    #[test]
    fn unknown_outcomes_come_first_then_most_executed_then_most_calls() {
        let unknown = WriteCounts {
            calls: 2,
            outcome_unknown: 1,
            failed: 1,
            ..WriteCounts::default()
        };
        let w = writes(&[
            row("p", "a", executed(5, 5)),
            row("p", "b", executed(9, 5)),
            row("p", "c", unknown),
            row("p", "d", executed(20, 1)),
            row("o", "a", executed(5, 5)),
        ]);
        assert_eq!(
            order(&w),
            [("p", "c"), ("p", "b"), ("o", "a"), ("p", "a"), ("p", "d")]
        );
        assert_eq!(w.total.calls, 41);
        assert_eq!(w.total.executed, 16);
        assert_eq!(w.total.outcome_unknown, 1);
        assert!(w.several_connectors());
        let unknown: Vec<&str> = w.unknown().map(|t| t.tool.as_str()).collect();
        assert_eq!(unknown, ["c"]);
    }

    #[test]
    fn batches_of_one_tool_add_up_and_empty_rows_are_dropped() {
        let w = writes(&[
            row("p", "a", executed(2, 1)),
            row("p", "a", executed(3, 3)),
            row("p", "z", WriteCounts::default()),
        ]);
        assert_eq!(order(&w), [("p", "a")]);
        assert_eq!(w.tools[0].counts, executed(5, 4));
        assert!(!w.several_connectors());
    }

    #[test]
    fn no_rows_no_writes() {
        let w = writes(&[]);
        assert!(w.is_empty());
        assert!(!w.several_connectors());
        assert_eq!(w.total, WriteCounts::default());
    }
}
