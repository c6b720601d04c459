//! Output lines: one CloudWatch Embedded Metric Format document and one decision line per
//! connector, each a single JSON object on one line.
//!
//! EMF, as `shared/audit` writes it: `_aws` holds `Timestamp` (epoch milliseconds) and
//! `CloudWatchMetrics`, one directive with `Namespace`, `Dimensions` (sets of member names) and
//! `Metrics` (`Name`, `Unit`); every named metric is a top-level number and every dimension a
//! top-level string. A metric whose value is unknown is left out of both the directive and the
//! object — an absent datapoint, never a 0 an alarm would read as "fine".

use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::assess::{Assessment, State};
use crate::usage::ToolUsage;

/// Namespace when the configuration names none; the one `shared/audit` publishes to.
pub const DEFAULT_NAMESPACE: &str = "HostedMcp";

/// Metric and dimension names, for infra's alarms.
pub mod metrics {
    /// Used share of the window's limit, percent.
    pub const UTILIZATION_PERCENT: &str = "QuotaUtilizationPercent";
    /// Days until the quota runs out at the window's average burn rate (capped at 366).
    pub const FORECAST_DAYS_LEFT: &str = "QuotaForecastDaysLeft";
    /// 1 when the forecast runs out before the window resets, else 0.
    pub const EXHAUSTED_BEFORE_WINDOW_END: &str = "QuotaExhaustedBeforeWindowEnd";
    /// The one dimension: the connector name. One metric per connector keeps the bill flat.
    pub const CONNECTOR: &str = "Connector";
}

/// The EMF document for one connector, or `None` when no metric value is known.
pub fn emf_line(a: &Assessment, namespace: &str, at: Timestamp) -> Option<String> {
    let values = [
        (
            metrics::UTILIZATION_PERCENT,
            "Percent",
            a.utilization_percent,
        ),
        (metrics::FORECAST_DAYS_LEFT, "None", a.days_left),
        (
            metrics::EXHAUSTED_BEFORE_WINDOW_END,
            "None",
            a.exhausted_before_window_end
                .map(|b| f64::from(u8::from(b))),
        ),
    ];
    let known: Vec<(&str, &str, f64)> = values
        .into_iter()
        .filter_map(|(name, unit, v)| v.filter(|v| v.is_finite()).map(|v| (name, unit, v)))
        .collect();
    let dimension_ok = !a.connector.is_empty() && a.connector.chars().count() <= 1024;
    if known.is_empty() || !dimension_ok || namespace.trim().is_empty() {
        return None;
    }
    let definitions: Vec<Value> = known
        .iter()
        .map(|(name, unit, _)| json!({ "Name": name, "Unit": unit }))
        .collect();
    let mut doc = Map::new();
    doc.insert(
        "_aws".into(),
        json!({
            "Timestamp": at.as_millisecond(),
            "CloudWatchMetrics": [{
                "Namespace": namespace.trim(),
                "Dimensions": [[metrics::CONNECTOR]],
                "Metrics": definitions,
            }],
        }),
    );
    doc.insert(metrics::CONNECTOR.into(), json!(a.connector));
    for (name, _, value) in known {
        doc.insert(name.into(), json!(round2(value)));
    }
    Some(Value::Object(doc).to_string())
}

/// The structured decision for one connector (ok / warn / critical / unknown / n/a, and why).
/// Unknown figures are left out, never written as 0.
#[derive(Debug, Serialize)]
pub struct Decision<'a> {
    pub ts: String,
    pub level: &'static str,
    pub msg: &'static str,
    pub connector: &'a str,
    pub state: State,
    pub reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_end: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utilization_percent: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burn_per_day: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forecast_days_left: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exhausts_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<String>,
    pub calls: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reported_cost: Option<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub top_tools: Vec<TopTool<'a>>,
}

#[derive(Debug, Serialize)]
pub struct TopTool<'a> {
    pub tool: &'a str,
    pub calls: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed: Option<i64>,
}

impl<'a> Decision<'a> {
    pub fn new(a: &'a Assessment, at: Timestamp) -> Self {
        let level = match a.state {
            State::Ok | State::NotApplicable => "info",
            State::Warn | State::Unknown => "warn",
            State::Critical => "error",
        };
        let ts = |t: Timestamp| format!("{t:.3}");
        Decision {
            ts: ts(at),
            level,
            msg: "quota decision",
            connector: &a.connector,
            state: a.state,
            reason: &a.reason,
            window: a.window.as_ref().map(|w| w.describe()),
            window_start: a.bounds.map(|b| ts(b.start)),
            window_end: a.bounds.map(|b| ts(b.end)),
            limit: a.limit,
            used: a.used,
            remaining: a.remaining,
            utilization_percent: a.utilization_percent.map(round2),
            burn_per_day: a.burn_per_day.map(round2),
            forecast_days_left: a.days_left.map(round2),
            exhausts_at: a.exhausts_at.map(ts),
            last_seen: a.last_seen.map(ts),
            calls: a.calls,
            reported_cost: a.reported_cost,
            top_tools: a.top_tools.iter().map(TopTool::from).collect(),
        }
    }

    pub fn to_line(&self) -> String {
        // Plain strings, numbers and options only: serializing cannot fail.
        serde_json::to_string(self).expect("decision serializes to JSON")
    }
}

impl<'a> From<&'a ToolUsage> for TopTool<'a> {
    fn from(t: &'a ToolUsage) -> Self {
        TopTool {
            tool: &t.tool,
            calls: t.calls,
            consumed: t.consumed,
        }
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assess::assess;
    use crate::policy::Policy;
    use crate::usage::tests::ts;
    use crate::usage::{ToolUsage, Usage};
    use crate::window::{Window, Zone};

    /// CloudWatch's unit names (MetricDatum.Unit).
    const UNITS: &[&str] = &[
        "Seconds",
        "Microseconds",
        "Milliseconds",
        "Bytes",
        "Kilobytes",
        "Megabytes",
        "Gigabytes",
        "Terabytes",
        "Bits",
        "Kilobits",
        "Megabits",
        "Gigabits",
        "Terabits",
        "Percent",
        "Count",
        "Bytes/Second",
        "Kilobytes/Second",
        "Megabytes/Second",
        "Gigabytes/Second",
        "Terabytes/Second",
        "Bits/Second",
        "Kilobits/Second",
        "Megabits/Second",
        "Gigabits/Second",
        "Terabits/Second",
        "Count/Second",
        "None",
    ];

    /// The required shape from the EMF specification: root is an object with `_aws`; `_aws`
    /// has a numeric `Timestamp` and a `CloudWatchMetrics` array of directives; a directive has
    /// a 1–255 character `Namespace`, `Dimensions` (arrays of at most 30 member names) and
    /// `Metrics` (at most 100 definitions, each a `Name` and optionally a known `Unit` or a
    /// `StorageResolution` of 1 or 60) and nothing else; every dimension names a top-level
    /// string of 1–1024 characters, every metric a top-level number (or array of up to 100).
    fn assert_valid_emf(line: &str) -> Map<String, Value> {
        assert!(!line.contains('\n'), "one line: {line}");
        let root: Map<String, Value> = serde_json::from_str(line).expect("a JSON object");
        let aws = root["_aws"].as_object().expect("_aws object");
        assert!(
            aws["Timestamp"].is_i64() || aws["Timestamp"].is_u64(),
            "{aws:?}"
        );
        let directives = aws["CloudWatchMetrics"].as_array().expect("directives");
        assert!(!directives.is_empty());
        for d in directives {
            let d = d.as_object().expect("directive object");
            let mut keys: Vec<&str> = d.keys().map(String::as_str).collect();
            keys.sort_unstable();
            assert_eq!(keys, ["Dimensions", "Metrics", "Namespace"]);
            let ns = d["Namespace"].as_str().expect("namespace string");
            assert!((1..=255).contains(&ns.chars().count()));
            for set in d["Dimensions"].as_array().expect("dimension sets") {
                let set = set.as_array().expect("a dimension set");
                assert!(set.len() <= 30);
                for name in set {
                    let value = root[name.as_str().expect("member name")].as_str();
                    let value = value.expect("dimension is a top-level string");
                    assert!((1..=1024).contains(&value.chars().count()));
                }
            }
            let metrics = d["Metrics"].as_array().expect("metric definitions");
            assert!(!metrics.is_empty() && metrics.len() <= 100);
            for m in metrics {
                let m = m.as_object().expect("definition object");
                assert!(
                    m.keys()
                        .all(|k| ["Name", "Unit", "StorageResolution"].contains(&k.as_str()))
                );
                let name = m["Name"].as_str().expect("metric name");
                assert!((1..=255).contains(&name.chars().count()));
                if let Some(unit) = m.get("Unit") {
                    assert!(UNITS.contains(&unit.as_str().unwrap()), "{unit}");
                }
                let value = &root[name];
                let numbers = value.as_array().map_or(vec![value], |v| v.iter().collect());
                assert!(numbers.len() <= 100 && numbers.iter().all(|v| v.is_number()));
            }
        }
        root
    }

    fn papierkram() -> Policy {
        Policy {
            connector: "papierkram".into(),
            window: Some(Window::CalendarMonth(Zone::new("Europe/Berlin").unwrap())),
            limit: Some(10_000),
            warn_percent: 80,
            critical_percent: 95,
            measurable: true,
            balance: false,
        }
    }

    fn assessed(remaining: Option<i64>, now: &str) -> Assessment {
        let seen = ts("2026-05-10T21:00:00Z");
        let usage = Usage {
            remaining: remaining.map(|r| (r, seen)),
            limit: Some(10_000),
            consumed: None,
            calls: 3,
            last_seen: remaining.map(|_| seen),
            tools: vec![ToolUsage {
                tool: "papierkram_invoices_list".into(),
                calls: 3,
                consumed: Some(3),
            }],
        };
        assess(&papierkram(), ts(now), &usage)
    }

    #[test]
    fn emf_line_follows_the_specification_shape() {
        let a = assessed(Some(5_000), "2026-05-10T22:00:00Z");
        let line = emf_line(&a, "HostedMcp", ts("2026-05-10T22:00:00Z")).unwrap();
        let root = assert_valid_emf(&line);
        assert_eq!(root["_aws"]["Timestamp"], 1_778_450_400_000_i64);
        assert_eq!(
            root["_aws"]["CloudWatchMetrics"][0]["Namespace"],
            "HostedMcp"
        );
        assert_eq!(
            root["_aws"]["CloudWatchMetrics"][0]["Dimensions"],
            json!([["Connector"]])
        );
        assert_eq!(root["Connector"], "papierkram");
        assert_eq!(root[metrics::UTILIZATION_PERCENT], 50.0);
        assert_eq!(root[metrics::FORECAST_DAYS_LEFT], 10.0);
        assert_eq!(root[metrics::EXHAUSTED_BEFORE_WINDOW_END], 1.0);
    }

    #[test]
    fn unknown_forecast_is_omitted_not_zero() {
        // Five hours into May: a figure, but too early to extrapolate.
        let a = assessed(Some(9_990), "2026-05-01T03:00:00Z");
        let line = emf_line(&a, "HostedMcp", ts("2026-05-01T03:00:00Z")).unwrap();
        let root = assert_valid_emf(&line);
        let names: Vec<&str> = root["_aws"]["CloudWatchMetrics"][0]["Metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["Name"].as_str().unwrap())
            .collect();
        assert_eq!(names, [metrics::UTILIZATION_PERCENT]);
        assert!(!root.contains_key(metrics::FORECAST_DAYS_LEFT));
        assert!(!root.contains_key(metrics::EXHAUSTED_BEFORE_WINDOW_END));
    }

    #[test]
    fn nothing_known_means_no_emf_line_at_all() {
        let a = assessed(None, "2026-05-10T22:00:00Z");
        assert_eq!(a.state, State::Unknown);
        assert_eq!(emf_line(&a, "HostedMcp", ts("2026-05-10T22:00:00Z")), None);
        let known = assessed(Some(5_000), "2026-05-10T22:00:00Z");
        assert_eq!(emf_line(&known, " ", ts("2026-05-10T22:00:00Z")), None);
    }

    #[test]
    fn decision_line_says_state_and_why_and_omits_unknowns() {
        let a = assessed(Some(5_000), "2026-05-10T22:00:00Z");
        let line = Decision::new(&a, ts("2026-05-10T22:00:00Z")).to_line();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["state"], "warn");
        assert_eq!(v["level"], "warn");
        assert_eq!(v["connector"], "papierkram");
        assert!(v["reason"].as_str().unwrap().contains("runs out"));
        assert_eq!(v["window"], "month Europe/Berlin");
        assert_eq!(v["window_start"], "2026-04-30T22:00:00.000Z");
        assert_eq!(v["utilization_percent"], 50.0);
        assert_eq!(v["top_tools"][0]["tool"], "papierkram_invoices_list");

        let unknown = assessed(None, "2026-05-10T22:00:00Z");
        let line = Decision::new(&unknown, ts("2026-05-10T22:00:00Z")).to_line();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["state"], "unknown");
        for absent in [
            "utilization_percent",
            "used",
            "forecast_days_left",
            "exhausts_at",
        ] {
            assert!(v.get(absent).is_none(), "{absent} in {line}");
        }
    }
}
