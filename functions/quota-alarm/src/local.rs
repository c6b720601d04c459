//! The local run's parts: the shared local engine ([`insights::LocalInsights`]) answers the
//! query the Lambda sends, over audit JSONL files (one log group per file), so the local run goes
//! through [`crate::handle`] like the Lambda and differs only in where the `(field, value)` rows
//! come from; [`NoProbes`] stands in for the upstream.

use crate::probe::{Answer, Credentials, ProbeError, ProbeSpec, Prober};

/// The local run's prober. Its `Deps` declare no probes, so it is never asked; if it were, it
/// would answer like a deployment without a secret rather than call an upstream.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProbes;

impl Prober for NoProbes {
    async fn credentials(&self) -> Result<Credentials, ProbeError> {
        Err(ProbeError::NoSecret)
    }

    async fn probe(&self, _: &ProbeSpec, _: &Credentials) -> Result<Answer, ProbeError> {
        Err(ProbeError::NoSecret)
    }
}

#[cfg(test)]
mod tests {
    use insights::cloudwatch::LogsQuery;
    use insights::{LocalInsights, TimeRange};

    use crate::query::{columns, quota_usage};
    use crate::usage::UsageRow;
    use crate::usage::tests::ts;

    const LOG: &str = r#"
2026-05-02T08:00:00.000Z	req-0	INFO server started
{"v":1,"ts":"2026-04-30T21:59:00.000Z","level":"info","event":"tool_call","tool":"papierkram_invoices_list","connector":"papierkram","status":"ok","quota_remaining":12,"quota_consumed":1,"quota_limit":10000}
{"v":1,"ts":"2026-05-01T07:00:00.000Z","level":"info","event":"tool_call","tool":"papierkram_invoices_list","connector":"papierkram","status":"ok","quota_remaining":9999,"quota_consumed":1,"quota_limit":10000}
{"v":1,"ts":"2026-05-01T07:05:00.000Z","level":"error","event":"tool_error","tool":"papierkram_invoices_list","connector":"papierkram","status":"unavailable"}
{"v":1,"ts":"2026-05-01T08:00:00.000Z","level":"info","event":"tool_call","tool":"papierkram_info_get","connector":"papierkram","status":"ok","quota_remaining":9997,"quota_consumed":1,"quota_limit":10000}
2026-05-01T08:00:01.000Z	abc	{"v":1,"ts":"2026-05-01T07:30:00.000Z","level":"info","event":"tool_call","tool":"papierkram_invoices_list","connector":"papierkram","status":"ok","quota_remaining":9998,"quota_consumed":1,"quota_limit":10000}
{"v":1,"ts":"2026-05-01T08:00:00.000Z","level":"info","event":"client_init","client":"claude-ai"}
not json at all
"#;

    fn range() -> TimeRange {
        TimeRange {
            start: ts("2026-04-30T22:00:00Z"),
            end: ts("2026-05-01T09:00:00Z"),
        }
    }

    fn local() -> LocalInsights {
        LocalInsights::from_jsonl("a.jsonl", LOG)
    }

    async fn usage(logs: &LocalInsights, groups: &[String]) -> Vec<UsageRow> {
        let rows = logs.rows(groups, range(), &quota_usage()).await.unwrap();
        rows.iter()
            .map(|r| UsageRow::from_fields(r.iter().map(|(f, v)| (f.as_str(), v.as_str()))))
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[tokio::test]
    async fn the_usage_query_counts_sums_and_takes_the_latest_per_connector_and_tool() {
        let logs = local();
        let rows = usage(&logs, logs.groups()).await;
        assert_eq!(rows.len(), 2);
        let info = &rows[0];
        assert_eq!(info.tool.as_deref(), Some("papierkram_info_get"));
        assert_eq!((info.calls, info.remaining), (1, Some(9_997)));
        let invoices = &rows[1];
        // April's call is outside the range, the error carried no figures, and the line out of
        // order in the file is still the latest.
        assert_eq!(invoices.calls, 2);
        assert_eq!(invoices.consumed, Some(2));
        assert_eq!(invoices.remaining, Some(9_998));
        assert_eq!(invoices.limit, Some(10_000));
        assert_eq!(invoices.last_seen, Some(ts("2026-05-01T07:30:00Z")));
    }

    #[tokio::test]
    async fn rows_look_like_get_query_results() {
        let logs = local();
        let rows = logs
            .rows(logs.groups(), range(), &quota_usage())
            .await
            .unwrap();
        let fields: Vec<&str> = rows[0].iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, columns::ALL);
    }

    #[tokio::test]
    async fn only_the_asked_log_groups_are_queried() {
        let mut logs = local();
        let other = LOG.replace("\"papierkram\"", "\"other\"");
        logs.add_jsonl("b.jsonl", &other);
        let both = usage(&logs, logs.groups()).await;
        assert_eq!(both.len(), 4);
        let b = usage(&logs, &["b.jsonl".to_string()]).await;
        assert!(b.iter().all(|r| r.connector == "other"), "{b:?}");
        assert_eq!(b.len(), 2);
    }
}
