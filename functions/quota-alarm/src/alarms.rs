//! The CloudWatch alarms infra creates, derived from the same catalogs as the metrics
//! (`quota-alarm alarms --json`).
//!
//! Per connector with a measurable quota and a window: a warning and a critical alarm on
//! `QuotaUtilizationPercent`, and a forecast alarm on `QuotaExhaustedBeforeWindowEnd` ≥ 1.
//! The forecast is a 0/1 metric because "runs out before the reset" compares two moving
//! figures (days left, days to the reset); a static threshold on `QuotaForecastDaysLeft` (say
//! < 1) would only fire the day before, and metric math would put window logic into infra.
//!
//! Missing data stays missing (`INSUFFICIENT_DATA`): the function omits a metric it cannot
//! know (no traffic since the reset), which is neither breaching nor fine, and an alarm must
//! not stay in ALARM across a reset just because the new window has no figures yet.

use serde::Serialize;

use crate::emf::metrics;
use crate::policy::Policy;

/// The function runs every 15 minutes; one datapoint per period.
pub const PERIOD_SECONDS: u32 = 900;
/// The forecast must hold for an hour before it pages: one burst should not.
pub const FORECAST_EVALUATION_PERIODS: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warn,
    Critical,
}

/// One alarm, in CloudFormation's words (`AWS::CloudWatch::Alarm`), keys in camelCase for CDK.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmSpec {
    /// Stable id for the construct: `quota-<connector>-<warn|critical|forecast>`.
    pub id: String,
    pub connector: String,
    pub severity: Severity,
    pub description: String,
    pub namespace: String,
    pub metric_name: &'static str,
    pub dimensions: Vec<Dimension>,
    pub statistic: &'static str,
    pub period_seconds: u32,
    pub evaluation_periods: u32,
    pub datapoints_to_alarm: u32,
    pub threshold: f64,
    pub comparison_operator: &'static str,
    pub treat_missing_data: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dimension {
    pub name: &'static str,
    pub value: String,
}

/// A connector infra creates no alarm for, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub connector: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlarmPlan {
    pub namespace: String,
    pub alarms: Vec<AlarmSpec>,
    pub skipped: Vec<Skipped>,
}

/// The alarms for every connector: `(connector, its policy if it declares a quota)`.
pub fn plan(connectors: &[(String, Option<Policy>)], namespace: &str) -> AlarmPlan {
    let mut out = AlarmPlan {
        namespace: namespace.to_string(),
        alarms: Vec::new(),
        skipped: Vec::new(),
    };
    for (connector, policy) in connectors {
        let skip = |reason: &str| Skipped {
            connector: connector.clone(),
            reason: reason.to_string(),
        };
        match policy {
            None => out.skipped.push(skip("no quota declared")),
            Some(p) if !p.measurable => out.skipped.push(skip(
                "the quota names no remaining or consumed header, header family or body figure",
            )),
            Some(p) if p.window.is_none() => out.skipped.push(skip("the quota declares no window")),
            Some(p) => out.alarms.extend(for_policy(p, namespace)),
        }
    }
    out
}

/// The warning and critical alarms, and the forecast's unless the remaining is a balance (no
/// window refills it, so nothing is forecast).
fn for_policy(p: &Policy, namespace: &str) -> Vec<AlarmSpec> {
    let window = p.window.as_ref().map(|w| w.describe()).unwrap_or_default();
    let spec = |kind: &str,
                severity: Severity,
                metric_name: &'static str,
                threshold: f64,
                periods: u32,
                description: String| AlarmSpec {
        id: format!("quota-{}-{kind}", p.connector),
        connector: p.connector.clone(),
        severity,
        description,
        namespace: namespace.to_string(),
        metric_name,
        dimensions: vec![Dimension {
            name: metrics::CONNECTOR,
            value: p.connector.clone(),
        }],
        statistic: "Maximum",
        period_seconds: PERIOD_SECONDS,
        evaluation_periods: periods,
        datapoints_to_alarm: periods,
        threshold,
        comparison_operator: "GreaterThanOrEqualToThreshold",
        treat_missing_data: "missing",
    };
    let used = |percent: u8| match p.balance {
        false => format!(
            "{}: {percent} % of the API quota ({window}) used",
            p.connector
        ),
        true => format!(
            "{}: the balance is down to {} % of the limit ({window})",
            p.connector,
            100 - percent
        ),
    };
    let mut out = vec![
        spec(
            "warn",
            Severity::Warn,
            metrics::UTILIZATION_PERCENT,
            f64::from(p.warn_percent),
            1,
            used(p.warn_percent),
        ),
        spec(
            "critical",
            Severity::Critical,
            metrics::UTILIZATION_PERCENT,
            f64::from(p.critical_percent),
            1,
            format!("{}; calls fail when it runs out", used(p.critical_percent)),
        ),
    ];
    if !p.balance {
        out.push(spec(
            "forecast",
            Severity::Warn,
            metrics::EXHAUSTED_BEFORE_WINDOW_END,
            1.0,
            FORECAST_EVALUATION_PERIODS,
            format!(
                "{}: at the current burn rate the API quota runs out before the window ({window}) resets",
                p.connector
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn embedded() -> Vec<(String, Option<Policy>)> {
        crate::policy::policies(&connector::load(None).unwrap()).unwrap()
    }

    #[test]
    fn papierkram_gets_warn_critical_and_forecast_alarms() {
        let plan = plan(&embedded(), "HostedMcp");
        let json = serde_json::to_value(&plan).unwrap();
        assert_eq!(json["namespace"], "HostedMcp");
        let alarms: Vec<&serde_json::Value> = json["alarms"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["connector"] == "papierkram")
            .collect();
        let ids: Vec<&str> = alarms.iter().map(|a| a["id"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            [
                "quota-papierkram-warn",
                "quota-papierkram-critical",
                "quota-papierkram-forecast"
            ]
        );
        let warn = alarms[0];
        assert_eq!(warn["metricName"], "QuotaUtilizationPercent");
        assert_eq!(warn["threshold"], 80.0);
        assert_eq!(warn["comparisonOperator"], "GreaterThanOrEqualToThreshold");
        assert_eq!(warn["periodSeconds"], 900);
        assert_eq!(warn["evaluationPeriods"], 1);
        assert_eq!(warn["treatMissingData"], "missing");
        assert_eq!(
            warn["dimensions"],
            serde_json::json!([{"name": "Connector", "value": "papierkram"}])
        );
        assert_eq!(warn["severity"], "warn");
        assert_eq!(alarms[1]["threshold"], 95.0);
        assert_eq!(alarms[1]["severity"], "critical");
        let forecast = alarms[2];
        assert_eq!(forecast["metricName"], "QuotaExhaustedBeforeWindowEnd");
        assert_eq!(forecast["threshold"], 1.0);
        assert_eq!(forecast["evaluationPeriods"], 4);
        assert_eq!(forecast["datapointsToAlarm"], 4);
        assert!(
            forecast["description"]
                .as_str()
                .unwrap()
                .contains("month Europe/Berlin")
        );
        let skipped = json["skipped"].as_array().unwrap();
        assert!(
            !skipped.iter().any(|s| s["connector"] == "papierkram"),
            "{skipped:?}"
        );
    }

    #[test]
    fn runways_balance_gets_warn_and_critical_alarms_but_no_forecast() {
        let plan = plan(&embedded(), "HostedMcp");
        let runway: Vec<(&str, f64, &str)> = plan
            .alarms
            .iter()
            .filter(|a| a.connector == "runway")
            .map(|a| (a.id.as_str(), a.threshold, a.description.as_str()))
            .collect();
        assert_eq!(
            runway,
            [
                (
                    "quota-runway-warn",
                    80.0,
                    "runway: the balance is down to 20 % of the limit (month Europe/Berlin)"
                ),
                (
                    "quota-runway-critical",
                    95.0,
                    "runway: the balance is down to 5 % of the limit (month Europe/Berlin); \
                     calls fail when it runs out"
                ),
            ]
        );
        assert!(!plan.skipped.iter().any(|s| s.connector == "runway"));
    }

    #[test]
    fn alarm_metric_names_and_namespace_match_what_the_function_emits() {
        let plan = plan(&embedded(), "Custom");
        let emitted = [
            metrics::UTILIZATION_PERCENT,
            metrics::EXHAUSTED_BEFORE_WINDOW_END,
        ];
        for a in &plan.alarms {
            assert!(emitted.contains(&a.metric_name), "{}", a.metric_name);
            assert_eq!(a.namespace, "Custom");
            assert_eq!(a.dimensions[0].name, metrics::CONNECTOR);
        }
    }

    #[test]
    fn connectors_without_a_usable_quota_are_listed_as_skipped() {
        let mut connectors = embedded();
        let base = connectors[0].1.clone().unwrap();
        connectors.push(("plain".into(), None));
        connectors.push((
            "silent".into(),
            Some(Policy {
                connector: "silent".into(),
                measurable: false,
                ..base.clone()
            }),
        ));
        connectors.push((
            "endless".into(),
            Some(Policy {
                connector: "endless".into(),
                window: None,
                ..base
            }),
        ));
        let shipped = plan(&embedded(), "HostedMcp");
        let shipped_skipped = shipped.skipped.len();
        let plan = plan(&connectors, "HostedMcp");
        assert_eq!(plan.alarms, shipped.alarms, "none for the three added");
        let skipped: Vec<&str> = plan.skipped.iter().map(|s| s.connector.as_str()).collect();
        // After the shipped catalogs without a measurable quota (sevdesk reports none).
        assert!(skipped.contains(&"sevdesk"), "{skipped:?}");
        assert_eq!(skipped[shipped_skipped..], ["plain", "silent", "endless"]);
    }
}
