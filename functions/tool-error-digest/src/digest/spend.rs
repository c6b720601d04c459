//! The "Spend" section: what calls of tools that spend money spent in the week, per connector
//! (in its own unit) and per tool, from the `spend` rows.

use std::collections::BTreeMap;

use crate::rows::SpendRow;

/// Tools shown per connector; the rest are summed in one line.
pub const SPEND_TOOLS_SHOWN: usize = 5;

/// One connector's spend in its unit, and its tools', most spent first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorSpend {
    pub connector: String,
    pub unit: String,
    pub spent: u64,
    pub calls: u64,
    pub tools: Vec<ToolSpend>,
}

/// What one tool's calls spent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSpend {
    pub tool: String,
    pub spent: u64,
    pub calls: u64,
}

/// (spent, calls) per tool, per connector and unit.
type ByTool<'a> = BTreeMap<(&'a str, &'a str), BTreeMap<&'a str, (u64, u64)>>;

/// One [`ConnectorSpend`] per connector and unit, most spent first (then by name). Rows of one
/// tool from several log group batches are added up; units are never added to each other.
pub fn spend(rows: &[SpendRow]) -> Vec<ConnectorSpend> {
    let mut by_tool: ByTool<'_> = BTreeMap::new();
    for r in rows {
        let tool = by_tool
            .entry((&r.connector, &r.unit))
            .or_default()
            .entry(&r.tool)
            .or_default();
        tool.0 += r.spent;
        tool.1 += r.calls;
    }
    let mut connectors: Vec<ConnectorSpend> = by_tool
        .into_iter()
        .map(|((connector, unit), tools)| {
            let mut tools: Vec<ToolSpend> = tools
                .into_iter()
                .map(|(tool, (spent, calls))| ToolSpend {
                    tool: tool.to_string(),
                    spent,
                    calls,
                })
                .collect();
            // Stable: ties stay in name order.
            tools.sort_by_key(|t| std::cmp::Reverse(t.spent));
            ConnectorSpend {
                connector: connector.to_string(),
                unit: unit.to_string(),
                spent: tools.iter().map(|t| t.spent).sum(),
                calls: tools.iter().map(|t| t.calls).sum(),
                tools,
            }
        })
        .collect();
    connectors.sort_by_key(|c| std::cmp::Reverse(c.spent));
    connectors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(connector: &str, unit: &str, tool: &str, spent: u64, calls: u64) -> SpendRow {
        SpendRow {
            connector: connector.into(),
            unit: unit.into(),
            tool: tool.into(),
            spent,
            calls,
        }
    }

    #[test]
    fn spend_is_summed_per_connector_in_its_unit_and_per_tool_most_first() {
        let s = spend(&[
            row(
                "replicate",
                "predictions",
                "replicate_prediction_create",
                30,
                30,
            ),
            row("runway", "credits", "runway_image_to_video", 400, 8),
            row(
                "replicate",
                "predictions",
                "replicate_deployment_prediction_create",
                12,
                12,
            ),
            row("runway", "credits", "runway_text_to_image", 40, 10),
            // The same tool again from another log group batch.
            row(
                "replicate",
                "predictions",
                "replicate_prediction_create",
                5,
                5,
            ),
        ]);
        type Shape<'a> = (&'a str, &'a str, u64, u64, Vec<(&'a str, u64)>);
        let shape: Vec<Shape<'_>> = s
            .iter()
            .map(|c| {
                let tools = c.tools.iter().map(|t| (t.tool.as_str(), t.spent)).collect();
                (
                    c.connector.as_str(),
                    c.unit.as_str(),
                    c.spent,
                    c.calls,
                    tools,
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                (
                    "runway",
                    "credits",
                    440,
                    18,
                    vec![("runway_image_to_video", 400), ("runway_text_to_image", 40)]
                ),
                (
                    "replicate",
                    "predictions",
                    47,
                    47,
                    vec![
                        ("replicate_prediction_create", 35),
                        ("replicate_deployment_prediction_create", 12)
                    ]
                ),
            ]
        );
    }

    #[test]
    fn no_rows_no_spend() {
        assert!(spend(&[]).is_empty());
    }
}
