//! The sections per connector: for each connector with failed calls in the week, its calls and
//! failed calls against the week before, its failing tools (most failed first), and the latest
//! failed calls of its worst tool, which the renderings link to their traces. From the
//! `tool-totals` rows of both weeks (grouped by connector and tool) and the `failing-samples` of
//! the worst tool.

use std::collections::BTreeMap;

use crate::rows::{Sample, TotalRow};

/// Failing tools named per connector; the rest are counted in one line.
pub const CONNECTOR_TOOLS_SHOWN: usize = 3;

/// One connector's failed calls in the week.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorFailures {
    pub connector: String,
    pub calls: u64,
    pub errors: u64,
    pub previous_calls: u64,
    pub previous_errors: u64,
    /// Its failing tools and their failed calls, most first (then by name): all of them, the
    /// renderings show [`CONNECTOR_TOOLS_SHOWN`].
    pub tools: Vec<(String, u64)>,
    /// The latest failed calls of its worst tool (the first of `tools`), newest first.
    pub worst: Vec<Sample>,
    /// Why `worst` is empty, when its samples could not be fetched.
    pub samples_note: Option<String>,
}

impl ConnectorFailures {
    /// The tool whose failed calls the section shows.
    pub fn worst_tool(&self) -> &str {
        self.tools.first().map_or("", |(tool, _)| tool)
    }

    pub fn error_rate(&self) -> Option<f64> {
        super::rate(self.errors, self.calls)
    }
}

/// `(calls, errors)` per tool, per connector; rows without a connector belong to none.
type ByConnector<'a> = BTreeMap<&'a str, BTreeMap<&'a str, (u64, u64)>>;

fn by_connector(rows: &[TotalRow]) -> ByConnector<'_> {
    let mut map: ByConnector<'_> = BTreeMap::new();
    for r in rows {
        let Some(connector) = r.connector.as_deref() else {
            continue;
        };
        // Rows of one tool from several log group batches add up.
        let tool = map
            .entry(connector)
            .or_default()
            .entry(&r.tool)
            .or_default();
        tool.0 += r.calls;
        tool.1 += r.errors;
    }
    map
}

/// One section per connector with failed calls this week, most failed calls first (then by
/// name); samples are attached afterwards ([`super::Digest::set_samples`]).
pub fn connector_failures(now: &[TotalRow], before: &[TotalRow]) -> Vec<ConnectorFailures> {
    let before = by_connector(before);
    let sum = |tools: Option<&BTreeMap<&str, (u64, u64)>>| {
        tools.map_or((0, 0), |t| {
            t.values().fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1))
        })
    };
    let mut sections: Vec<ConnectorFailures> = by_connector(now)
        .into_iter()
        .filter_map(|(connector, tools)| {
            let (calls, errors) = sum(Some(&tools));
            let (previous_calls, previous_errors) = sum(before.get(connector));
            let mut failing: Vec<(String, u64)> = tools
                .into_iter()
                .filter(|(_, (_, e))| *e > 0)
                .map(|(tool, (_, e))| (tool.to_string(), e))
                .collect();
            // Stable: ties stay in name order.
            failing.sort_by_key(|(_, e)| std::cmp::Reverse(*e));
            (errors > 0).then(|| ConnectorFailures {
                connector: connector.to_string(),
                calls: calls.max(errors),
                errors,
                previous_calls,
                previous_errors,
                tools: failing,
                worst: Vec::new(),
                samples_note: None,
            })
        })
        .collect();
    sections.sort_by_key(|c| std::cmp::Reverse(c.errors));
    sections
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(connector: Option<&str>, tool: &str, calls: u64, errors: u64) -> TotalRow {
        TotalRow {
            connector: connector.map(str::to_string),
            tool: tool.into(),
            calls,
            errors,
        }
    }

    #[test]
    fn one_section_per_connector_with_failures_most_failed_first() {
        let now = [
            total(Some("sevdesk"), "sevdesk_invoice_list", 40, 2),
            total(Some("papierkram"), "papierkram_invoice_get", 100, 6),
            total(Some("papierkram"), "papierkram_contact_search", 50, 9),
            total(Some("papierkram"), "papierkram_user_me", 10, 0),
            total(Some("calcom"), "calcom_booking_list", 30, 0),
            total(None, "search_tools", 12, 3),
            // A second log group batch of the same tool.
            total(Some("sevdesk"), "sevdesk_invoice_list", 10, 1),
        ];
        let before = [
            total(Some("papierkram"), "papierkram_invoice_get", 90, 4),
            total(Some("calcom"), "calcom_booking_list", 20, 5),
        ];
        let s = connector_failures(&now, &before);
        let names: Vec<&str> = s.iter().map(|c| c.connector.as_str()).collect();
        assert_eq!(
            names,
            ["papierkram", "sevdesk"],
            "calcom did not fail, search_tools is no connector's"
        );
        let p = &s[0];
        assert_eq!(
            (p.calls, p.errors, p.previous_calls, p.previous_errors),
            (160, 15, 90, 4)
        );
        assert_eq!(
            p.tools,
            [
                ("papierkram_contact_search".to_string(), 9),
                ("papierkram_invoice_get".to_string(), 6)
            ]
        );
        assert_eq!(p.worst_tool(), "papierkram_contact_search");
        assert_eq!((s[1].calls, s[1].errors, s[1].previous_errors), (50, 3, 0));
        assert!(
            s.iter()
                .all(|c| c.worst.is_empty() && c.samples_note.is_none())
        );
    }

    #[test]
    fn a_week_without_failures_has_no_sections() {
        let now = [total(Some("papierkram"), "papierkram_invoice_get", 100, 0)];
        let before = [total(Some("papierkram"), "papierkram_invoice_get", 100, 7)];
        assert_eq!(connector_failures(&now, &before), []);
        assert_eq!(connector_failures(&[], &[]), []);
    }
}
