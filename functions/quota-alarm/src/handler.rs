//! The scheduled invocation: query the audit log groups for every window, decide per connector,
//! and hand back the EMF and decision lines to print.
//!
//! The Logs Insights calls sit behind the shared [`LogsQuery`] (CloudWatch on Lambda, polled as
//! [`polling`] says; the local engine in the local run; a fake in tests). A query that fails, is
//! cancelled or times out fails the invocation, so the scheduler's retries and alarms on
//! function errors see it; no metric is published from a partial view.
//!
//! A connector whose catalog declares `quota.probe` and whose window has had no figure for the
//! probe's quiet hours is probed (`probe.rs`) after the queries: a figure it returns counts like
//! a call's, and its audit line is printed with the other lines. Without a figure the connector
//! is `unknown` and gets no datapoint, never 0 %.

use std::collections::BTreeMap;
use std::time::Duration;

use insights::cloudwatch::{LogsQuery, Polling, log_groups};
use insights::{FieldRow, TimeRange};
use jiff::Timestamp;
use lambda_runtime::Diagnostic;
use serde_json::{Value, json};

use crate::assess::Assessment;
use crate::emf::{Decision, emf_line};
use crate::policy::Policy;
use crate::probe::{self, ProbeSpec, Prober};
use crate::report::{evaluate, ranges};
use crate::usage::UsageRow;

/// A Logs Insights query failure: the shared client's (the local engine reports a query it
/// refuses as a failed `StartQuery`, as CloudWatch would).
pub use insights::cloudwatch::CloudWatchError as QueryError;

/// How the Lambda polls a query that may run for `query_timeout`: every quarter second at first,
/// then at most every 2 s, since the run repeats every 15 minutes and should finish quickly.
pub fn polling(query_timeout: Duration) -> Polling {
    Polling {
        first_poll: Duration::from_millis(250),
        max_poll: Duration::from_secs(2),
        timeout: query_timeout,
    }
}

/// What one invocation needs, built once at start.
pub struct Deps<Q, P> {
    pub logs: Q,
    pub prober: P,
    pub connectors: Vec<(String, Option<Policy>)>,
    /// The declared probes, by connector.
    pub probes: BTreeMap<String, ProbeSpec>,
    pub namespace: String,
    pub log_groups: Vec<String>,
    pub log_group_prefix: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum HandlerError {
    #[error("no audit log groups to query (configured names: none; prefix `{0}` matched none)")]
    NoLogGroups(String),
    #[error("listing log groups failed: {0}")]
    ListGroups(#[source] QueryError),
    #[error("Logs Insights query from {start} failed: {source}")]
    Query {
        start: Timestamp,
        #[source]
        source: QueryError,
    },
}

impl From<HandlerError> for Diagnostic {
    fn from(e: HandlerError) -> Self {
        let error_type = match &e {
            HandlerError::NoLogGroups(_) => "QuotaAlarm.NoLogGroups",
            HandlerError::ListGroups(_) => "QuotaAlarm.ListLogGroupsFailed",
            HandlerError::Query { .. } => "QuotaAlarm.QueryFailed",
        };
        Diagnostic {
            error_type: error_type.into(),
            error_message: e.to_string(),
        }
    }
}

/// The result of one run: the decisions and the lines to print.
#[derive(Debug)]
pub struct Outcome {
    pub assessments: Vec<Assessment>,
    /// Probe audit lines, EMF documents, then decision lines: one JSON object each.
    pub lines: Vec<String>,
}

impl Outcome {
    /// The invocation's response: one state per connector.
    pub fn summary(&self) -> Value {
        let states: serde_json::Map<String, Value> = self
            .assessments
            .iter()
            .map(|a| (a.connector.clone(), json!(a.state)))
            .collect();
        json!({ "connectors": states })
    }
}

/// One scheduled run at `now`. The scheduler's event carries nothing we need.
pub async fn handle<Q: LogsQuery, P: Prober>(
    deps: &Deps<Q, P>,
    now: Timestamp,
) -> Result<Outcome, HandlerError> {
    let groups = log_groups(
        &deps.logs,
        &deps.log_groups,
        deps.log_group_prefix.as_deref(),
    )
    .await
    .map_err(HandlerError::ListGroups)?;
    let query_ranges = ranges(&deps.connectors, now);
    if groups.is_empty() && !query_ranges.is_empty() {
        let prefix = deps.log_group_prefix.clone().unwrap_or_default();
        return Err(HandlerError::NoLogGroups(prefix));
    }
    let query = crate::query::quota_usage();
    let mut results: Vec<(TimeRange, Vec<UsageRow>)> = Vec::new();
    for range in query_ranges {
        let rows = deps
            .logs
            .rows(&groups, range, &query)
            .await
            .map_err(|source| HandlerError::Query {
                start: range.start,
                source,
            })?;
        results.push((range, read_rows(&rows)));
    }
    let mut assessments = evaluate(&deps.connectors, now, &results);
    let probed = probe_quiet_connectors(deps, &assessments, now).await;
    if probed.iter().any(|p| p.row.is_some()) {
        for p in &probed {
            let Some(row) = &p.row else { continue };
            let start = assessments
                .iter()
                .find(|a| a.connector == p.connector)
                .and_then(|a| a.bounds)
                .map(|b| b.start);
            if let Some((_, rows)) = results.iter_mut().find(|(r, _)| Some(r.start) == start) {
                rows.push(row.clone());
            }
        }
        assessments = evaluate(&deps.connectors, now, &results);
    }
    for p in &probed {
        if let (Err(e), Some(a)) = (
            &p.result,
            assessments.iter_mut().find(|a| a.connector == p.connector),
        ) {
            a.reason = format!("{}; the quiet-period probe failed: {e}", a.reason);
        }
    }
    let mut lines: Vec<String> = probed
        .iter()
        .filter_map(|p| serde_json::to_string(&p.audit).ok())
        .collect();
    lines.extend(
        assessments
            .iter()
            .filter_map(|a| emf_line(a, &deps.namespace, now)),
    );
    lines.extend(assessments.iter().map(|a| Decision::new(a, now).to_line()));
    Ok(Outcome { assessments, lines })
}

/// Probes every connector that declares a probe and has had no figure for its quiet hours;
/// the secret is read once, and only when some probe is due.
async fn probe_quiet_connectors<Q, P: Prober>(
    deps: &Deps<Q, P>,
    assessments: &[Assessment],
    now: Timestamp,
) -> Vec<probe::Probed> {
    let due: Vec<&ProbeSpec> = assessments
        .iter()
        .filter(|a| a.bounds.is_some() && a.state != crate::assess::State::NotApplicable)
        .filter_map(|a| {
            // `last_seen` only counts figures inside the window (see `usage::summarize`).
            let spec = deps.probes.get(&a.connector)?;
            spec.due(a.last_seen, now).then_some(spec)
        })
        .collect();
    if due.is_empty() {
        return Vec::new();
    }
    let credentials = deps.prober.credentials().await;
    let mut out = Vec::new();
    for spec in due {
        let probed = probe::run(&deps.prober, spec, &credentials, now).await;
        match &probed.result {
            Ok(a) => {
                tracing::info!(connector = %spec.connector, remaining = ?a.figures.remaining, "probed a quiet connector")
            }
            Err(e) => {
                tracing::warn!(connector = %spec.connector, error = %e, "quiet-period probe failed")
            }
        }
        out.push(probed);
    }
    out
}

/// Rows that cannot be read are logged and skipped: one odd line must not silence every alarm.
fn read_rows(rows: &[FieldRow]) -> Vec<UsageRow> {
    rows.iter()
        .filter_map(|r| {
            UsageRow::from_fields(r.iter().map(|(f, v)| (f.as_str(), v.as_str())))
                .inspect_err(|e| tracing::warn!(error = %e, "skipping a query result row"))
                .ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assess::State;
    use crate::probe::{Answer, Credentials, ProbeError};
    use crate::usage::tests::ts;
    use catalog::QuotaFigures;
    use std::sync::Mutex;

    /// Answers every query with fixed rows, or fails; records what it was asked.
    struct FakeLogs {
        rows: Result<Vec<FieldRow>, QueryError>,
        prefixed: Vec<String>,
        asked: Mutex<Vec<(Vec<String>, TimeRange)>>,
    }

    impl LogsQuery for FakeLogs {
        async fn rows(
            &self,
            groups: &[String],
            range: TimeRange,
            query: &str,
        ) -> Result<Vec<FieldRow>, QueryError> {
            assert!(query.starts_with("filter "));
            self.asked.lock().unwrap().push((groups.to_vec(), range));
            self.rows.clone()
        }
        async fn groups_with_prefix(&self, _prefix: &str) -> Result<Vec<String>, QueryError> {
            Ok(self.prefixed.clone())
        }
    }

    fn field_row(pairs: &[(&str, &str)]) -> FieldRow {
        pairs
            .iter()
            .map(|(f, v)| (f.to_string(), v.to_string()))
            .collect()
    }

    /// Answers every probe the same way; records whose they were.
    struct FakeProber {
        answer: Result<Answer, ProbeError>,
        probed: Mutex<Vec<String>>,
    }

    impl FakeProber {
        fn probes_of(&self, connector: &str) -> usize {
            let probed = self.probed.lock().unwrap();
            probed.iter().filter(|c| *c == connector).count()
        }
    }

    impl Prober for FakeProber {
        async fn credentials(&self) -> Result<Credentials, ProbeError> {
            Ok(Credentials::default())
        }
        async fn probe(&self, spec: &ProbeSpec, _: &Credentials) -> Result<Answer, ProbeError> {
            self.probed.lock().unwrap().push(spec.connector.clone());
            self.answer.clone()
        }
    }

    fn deps(rows: Result<Vec<FieldRow>, QueryError>) -> Deps<FakeLogs, FakeProber> {
        deps_probing(rows, Err(ProbeError::NoSecret))
    }

    fn deps_probing(
        rows: Result<Vec<FieldRow>, QueryError>,
        answer: Result<Answer, ProbeError>,
    ) -> Deps<FakeLogs, FakeProber> {
        let catalogs = connector::load(None).unwrap();
        Deps {
            logs: FakeLogs {
                rows,
                prefixed: vec!["/aws/lambda/mcp-b".into(), "/aws/lambda/mcp-a".into()],
                asked: Mutex::new(Vec::new()),
            },
            prober: FakeProber {
                answer,
                probed: Mutex::new(Vec::new()),
            },
            probes: crate::probe::specs(&catalogs),
            connectors: crate::policy::policies(&catalogs).unwrap(),
            namespace: "HostedMcp".into(),
            log_groups: vec!["/aws/lambda/mcp-a".into()],
            log_group_prefix: Some("/aws/lambda/mcp-".into()),
        }
    }

    #[test]
    fn polls_start_at_a_quarter_second_and_stay_under_two() {
        let polling = polling(Duration::from_secs(60));
        let waits: Vec<u128> = (0..6).map(|a| polling.backoff(a).as_millis()).collect();
        assert_eq!(waits, [250, 500, 1000, 2000, 2000, 2000]);
        assert_eq!(polling.timeout, Duration::from_secs(60));
    }

    #[tokio::test]
    async fn rows_become_emf_and_decision_lines() {
        let rows = vec![
            field_row(&[
                ("connector", "papierkram"),
                ("tool", "papierkram_invoices_list"),
                ("calls", "4000"),
                ("consumed", "4000"),
                ("remaining", "1500"),
                ("window_limit", "10000"),
                ("last_seen", "2026-05-20T09:00:00.000Z"),
            ]),
            field_row(&[("tool", "orphan_get"), ("calls", "1")]),
        ];
        let deps = deps(Ok(rows));
        let now = ts("2026-05-20T10:00:00Z");
        let out = handle(&deps, now).await.unwrap();
        assert_eq!(papierkram(&out).state, State::Warn);
        // The other shipped catalogs (sevdesk: no quota headers) get their own decision line.
        let lines = lines_of(&out.lines, "papierkram");
        assert_eq!(lines.len(), 2);
        let emf: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(emf["QuotaUtilizationPercent"], 85.0);
        assert_eq!(emf["Connector"], "papierkram");
        let decision: Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(decision["state"], "warn");
        // One query for the Berlin month, which Papierkram's and Runway's windows share.
        let asked = deps.logs.asked.lock().unwrap();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].0, ["/aws/lambda/mcp-a", "/aws/lambda/mcp-b"]);
        assert_eq!(asked[0].1.start, ts("2026-04-30T22:00:00Z"));
        assert_eq!(asked[0].1.end, now);
        assert_eq!(out.summary()["connectors"]["papierkram"], "warn");
        assert_eq!(out.summary()["connectors"]["sevdesk"], "n/a");
    }

    /// The output lines about `connector`.
    fn lines_of<'a>(lines: &'a [String], connector: &str) -> Vec<&'a str> {
        lines
            .iter()
            .map(String::as_str)
            .filter(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                v["connector"] == connector || v["Connector"] == connector
            })
            .collect()
    }

    /// Papierkram's assessment among every shipped catalog's.
    fn papierkram(out: &Outcome) -> &crate::assess::Assessment {
        out.assessments
            .iter()
            .find(|a| a.connector == "papierkram")
            .expect("papierkram is assessed")
    }

    #[tokio::test]
    async fn no_traffic_and_a_failed_probe_is_unknown_with_no_datapoint() {
        let deps = deps(Ok(Vec::new()));
        let out = handle(&deps, ts("2026-05-20T10:00:00Z")).await.unwrap();
        let a = &papierkram(&out);
        assert_eq!(a.state, State::Unknown);
        assert_eq!(a.utilization_percent, None);
        assert!(
            a.reason.contains("probe failed: no deployment secret"),
            "{}",
            a.reason
        );
        let lines = lines_of(&out.lines, "papierkram");
        assert_eq!(lines.len(), 2, "probe audit and decision: {:?}", out.lines);
        let audit: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(
            (audit["event"].as_str(), audit["reason"].as_str()),
            (Some("quota_probe"), Some("no_secret"))
        );
        let decision: Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(decision["state"], "unknown");
    }

    #[tokio::test]
    async fn a_quiet_connector_is_probed_and_its_figure_decides() {
        let answer = Answer {
            http_status: 200,
            figures: QuotaFigures {
                remaining: Some(1_200),
                consumed: Some(1),
                limit: None,
                reset_s: None,
            },
        };
        // The last call was seven hours ago: past the catalog's six quiet hours.
        let rows = vec![field_row(&[
            ("connector", "papierkram"),
            ("tool", "papierkram_invoices_list"),
            ("calls", "10"),
            ("consumed", "10"),
            ("remaining", "1300"),
            ("last_seen", "2026-05-20T03:00:00.000Z"),
        ])];
        let deps = deps_probing(Ok(rows), Ok(answer));
        let now = ts("2026-05-20T10:00:00Z");
        let out = handle(&deps, now).await.unwrap();
        assert_eq!(deps.prober.probes_of("papierkram"), 1);
        let a = &papierkram(&out);
        assert_eq!((a.remaining, a.used), (Some(1_200), Some(8_800)));
        assert_eq!(a.state, State::Warn);
        assert_eq!(a.last_seen, Some(now));
        assert_eq!(a.calls, 11);
        let audit: Value = serde_json::from_str(lines_of(&out.lines, "papierkram")[0]).unwrap();
        assert_eq!(audit["event"], "quota_probe");
        assert_eq!(audit["quota_remaining"], 1_200);
        let emf: Value = serde_json::from_str(lines_of(&out.lines, "papierkram")[1]).unwrap();
        assert_eq!(emf["QuotaUtilizationPercent"], 88.0);
    }

    #[tokio::test]
    async fn a_recent_figure_means_no_probe() {
        let rows = vec![field_row(&[
            ("connector", "papierkram"),
            ("tool", "papierkram_invoices_list"),
            ("calls", "1"),
            ("remaining", "9000"),
            ("last_seen", "2026-05-20T04:00:01.000Z"),
        ])];
        let deps = deps_probing(Ok(rows), Err(ProbeError::Unreachable));
        let out = handle(&deps, ts("2026-05-20T10:00:00Z")).await.unwrap();
        assert_eq!(deps.prober.probes_of("papierkram"), 0);
        assert_eq!(papierkram(&out).state, State::Ok);
        assert!(
            !lines_of(&out.lines, "papierkram")
                .iter()
                .any(|l| l.contains("quota_probe"))
        );
    }

    #[tokio::test]
    async fn a_failed_query_fails_the_invocation() {
        let failed = QueryError::Ended {
            query_id: "q-1".into(),
            status: "Failed".into(),
        };
        let err = handle(&deps(Err(failed)), ts("2026-05-20T10:00:00Z"))
            .await
            .unwrap_err();
        let diagnostic = Diagnostic::from(err);
        assert_eq!(diagnostic.error_type, "QuotaAlarm.QueryFailed");
        assert!(diagnostic.error_message.contains("ended as Failed"));
    }

    #[tokio::test]
    async fn no_log_groups_at_all_is_an_error() {
        let mut d = deps(Ok(Vec::new()));
        d.log_groups.clear();
        d.logs.prefixed.clear();
        let err = handle(&d, ts("2026-05-20T10:00:00Z")).await.unwrap_err();
        assert!(matches!(err, HandlerError::NoLogGroups(_)), "{err}");
    }
}
