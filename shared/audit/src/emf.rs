//! CloudWatch Embedded Metric Format on the audit line itself.
//!
//! A tool call line carries an `_aws` metadata block telling CloudWatch Logs to extract `calls`,
//! `errors`, `duration_ms` (and `spend`, on a call that spent) per `connector` and per `connector`+`tool`, so metrics cost no API
//! call. Per the EMF specification every metric and dimension the directive names must be a
//! top-level member of the same object (numbers and strings respectively); when the event cannot
//! satisfy that, the line is written without the block rather than as an invalid EMF document.

use serde::Serialize;

use crate::event::{AuditEvent, EventKind};

/// Metric names published through EMF, for dashboards and alarms.
pub mod metrics {
    /// One per tool call.
    pub const CALLS: &str = "calls";
    /// 1 when the call's status is not `ok`, else 0; a confirmation asked for is no error
    /// (every high or critical write asks once before it runs).
    pub const ERRORS: &str = "errors";
    /// Duration in milliseconds (same member as the audit field).
    pub const DURATION_MS: &str = crate::fields::DURATION_MS;
    /// What a call of a tool that spends spent, in its connector's unit (same member as the
    /// audit field); only lines that carry it publish it, so the sum per connector is the spend.
    pub const SPEND: &str = crate::fields::SPEND;
    /// Dimension sets: per connector, and per connector and tool. Each combination is a billed
    /// metric, so nothing with higher cardinality (user, client) belongs here.
    pub const DIMENSIONS: &[&[&str]] = &[
        &[crate::fields::CONNECTOR],
        &[crate::fields::CONNECTOR, crate::fields::TOOL],
    ];
    /// `limiter` lines: 1 while the instance counts in memory (its store failed), else 0.
    pub const LIMITER_FALLBACK: &str = crate::fields::LIMITER_FALLBACK;
    /// `limiter` lines: percent of the deployment's daily tool-call cap used today.
    pub const DAILY_CALLS_USED_PCT: &str = crate::fields::DAILY_CALLS_USED_PCT;
    /// `limiter` lines are deployment-wide: one metric each, no dimension.
    pub const NO_DIMENSIONS: &[&[&str]] = &[&[]];
}

/// Turns EMF on for tool events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmfConfig {
    /// CloudWatch metric namespace, e.g. `HostedMcp`.
    pub namespace: String,
}

impl AuditEvent {
    /// The event as one JSON object on one line (no trailing newline).
    ///
    /// With `emf`, `tool_call` and `tool_error` events that name both a connector and a tool also
    /// carry the EMF `_aws` block and the top-level metric values `calls` and `errors`.
    pub fn to_json_line(&self, emf: Option<&EmfConfig>) -> String {
        let line = if let Some(limiter) = emf.and_then(|config| LimiterLine::new(self, config)) {
            serde_json::to_string(&limiter)
        } else {
            match emf.and_then(|config| EmfLine::new(self, config)) {
                Some(emf_line) => serde_json::to_string(&emf_line),
                None => serde_json::to_string(self),
            }
        };
        // Only string-keyed structs and plain values are serialized, which cannot fail.
        line.expect("audit event serializes to JSON")
    }
}

#[derive(Serialize)]
struct EmfLine<'a> {
    #[serde(flatten)]
    event: &'a AuditEvent,
    #[serde(rename = "_aws")]
    aws: Metadata<'a>,
    calls: u8,
    errors: u8,
}

#[derive(Serialize)]
struct Metadata<'a> {
    #[serde(rename = "Timestamp")]
    timestamp: i64,
    #[serde(rename = "CloudWatchMetrics")]
    cloudwatch_metrics: [MetricDirective<'a>; 1],
}

#[derive(Serialize)]
struct MetricDirective<'a> {
    #[serde(rename = "Namespace")]
    namespace: &'a str,
    #[serde(rename = "Dimensions")]
    dimensions: &'static [&'static [&'static str]],
    #[serde(rename = "Metrics")]
    metrics: Vec<MetricDefinition>,
}

#[derive(Serialize)]
struct MetricDefinition {
    #[serde(rename = "Name")]
    name: &'static str,
    #[serde(rename = "Unit")]
    unit: &'static str,
}

/// A `limiter` line: its two figures as deployment-wide metrics.
#[derive(Serialize)]
struct LimiterLine<'a> {
    #[serde(flatten)]
    event: &'a AuditEvent,
    #[serde(rename = "_aws")]
    aws: Metadata<'a>,
}

impl<'a> LimiterLine<'a> {
    fn new(event: &'a AuditEvent, config: &'a EmfConfig) -> Option<Self> {
        let namespace = config.namespace.trim();
        if event.event != EventKind::Limiter || namespace.is_empty() {
            return None;
        }
        let mut definitions = Vec::new();
        if event.limiter_fallback.is_some() {
            definitions.push(MetricDefinition {
                name: metrics::LIMITER_FALLBACK,
                unit: "Count",
            });
        }
        if event.daily_calls_used_pct.is_some_and(f64::is_finite) {
            definitions.push(MetricDefinition {
                name: metrics::DAILY_CALLS_USED_PCT,
                unit: "Percent",
            });
        }
        if definitions.is_empty() {
            return None;
        }
        Some(Self {
            event,
            aws: Metadata {
                timestamp: timestamp(event),
                cloudwatch_metrics: [MetricDirective {
                    namespace,
                    dimensions: metrics::NO_DIMENSIONS,
                    metrics: definitions,
                }],
            },
        })
    }
}

fn timestamp(event: &AuditEvent) -> i64 {
    event
        .ts
        .parse::<jiff::Timestamp>()
        .unwrap_or_else(|_| jiff::Timestamp::now())
        .as_millisecond()
}

impl<'a> EmfLine<'a> {
    fn new(event: &'a AuditEvent, config: &'a EmfConfig) -> Option<Self> {
        let is_tool_event = matches!(event.event, EventKind::ToolCall | EventKind::ToolError);
        let namespace = config.namespace.trim();
        if !is_tool_event
            || namespace.is_empty()
            || !is_dimension_value(event.connector.as_deref())
            || !is_dimension_value(event.tool.as_deref())
        {
            return None;
        }

        let mut definitions = vec![
            MetricDefinition {
                name: metrics::CALLS,
                unit: "Count",
            },
            MetricDefinition {
                name: metrics::ERRORS,
                unit: "Count",
            },
        ];
        // A directive may only name members the line has; a duration-less call still counts.
        if event.duration_ms.is_some_and(f64::is_finite) {
            definitions.push(MetricDefinition {
                name: metrics::DURATION_MS,
                unit: "Milliseconds",
            });
        }
        if event.spend.is_some() {
            definitions.push(MetricDefinition {
                name: metrics::SPEND,
                unit: "Count",
            });
        }

        Some(Self {
            event,
            aws: Metadata {
                timestamp: timestamp(event),
                cloudwatch_metrics: [MetricDirective {
                    namespace,
                    dimensions: metrics::DIMENSIONS,
                    metrics: definitions,
                }],
            },
            calls: 1,
            errors: u8::from(!matches!(
                event.status.as_deref(),
                Some("ok" | "confirmation_required" | "pending")
            )),
        })
    }
}

/// CloudWatch dimension values are 1 to 1024 characters.
fn is_dimension_value(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v.chars().count() <= 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::tests::full_event;
    use crate::fields;
    use serde_json::{Map, Value};

    fn config() -> EmfConfig {
        EmfConfig {
            namespace: "HostedMcp".to_owned(),
        }
    }

    fn parse(line: &str) -> Map<String, Value> {
        match serde_json::from_str(line).unwrap() {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    fn emf_line(event: &AuditEvent) -> Map<String, Value> {
        parse(&event.to_json_line(Some(&config())))
    }

    #[test]
    fn a_limiter_line_carries_its_two_figures_as_metrics_without_dimensions() {
        let event = AuditEvent::new(EventKind::Limiter).limiter(true, Some(81.25));
        let map = emf_line(&event);
        assert_eq!(map[fields::EVENT], "limiter");
        assert_eq!(map[fields::LIMITER_FALLBACK], 1);
        assert_eq!(map[fields::DAILY_CALLS_USED_PCT], 81.3);
        let directive = &map["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(directive["Dimensions"], serde_json::json!([[]]));
        let names: Vec<&str> = directive["Metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["Name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["limiter_fallback", "daily_calls_used_pct"]);
        assert!(!map.contains_key("calls"), "not a tool call");
        // No cap configured: only the fallback figure.
        let event = AuditEvent::new(EventKind::Limiter).limiter(false, None);
        let map = emf_line(&event);
        assert_eq!(
            map["_aws"]["CloudWatchMetrics"][0]["Metrics"][0]["Name"],
            "limiter_fallback"
        );
        assert_eq!(map[fields::LIMITER_FALLBACK], 0);
    }

    #[test]
    fn without_emf_the_line_is_the_plain_event() {
        let event = full_event();
        let line = event.to_json_line(None);
        assert_eq!(line, serde_json::to_string(&event).unwrap());
        assert!(!line.contains("_aws"));
    }

    #[test]
    fn line_is_a_single_line_even_when_values_contain_newlines() {
        let event = full_event().reason("multi\nline\r\nreason");
        for emf in [None, Some(&config())] {
            let line = event.to_json_line(emf);
            assert!(!line.contains('\n') && !line.contains('\r'), "{line}");
        }
    }

    #[test]
    fn audit_fields_stay_at_top_level_and_read_back_as_the_event() {
        let event = full_event();
        let map = emf_line(&event);
        assert_eq!(map[fields::TOOL], "list_invoices");
        assert_eq!(map[fields::CONNECTOR], "papierkram");
        let back: AuditEvent = serde_json::from_value(Value::Object(map)).unwrap();
        assert_eq!(back, event);
    }

    #[test]
    fn emf_block_follows_the_specification_shape() {
        let event = full_event();
        let map = emf_line(&event);

        let aws = map["_aws"].as_object().expect("_aws is an object");
        let mut aws_keys: Vec<&str> = aws.keys().map(String::as_str).collect();
        aws_keys.sort_unstable();
        assert_eq!(aws_keys, ["CloudWatchMetrics", "Timestamp"]);

        let expected_ms = event
            .ts
            .parse::<jiff::Timestamp>()
            .unwrap()
            .as_millisecond();
        assert_eq!(aws["Timestamp"].as_i64(), Some(expected_ms));

        let directives = aws["CloudWatchMetrics"].as_array().unwrap();
        assert_eq!(directives.len(), 1);
        let directive = directives[0].as_object().unwrap();
        assert_eq!(directive["Namespace"], "HostedMcp");
        assert_eq!(
            directive["Dimensions"],
            serde_json::json!([["connector"], ["connector", "tool"]])
        );

        let definitions = directive["Metrics"].as_array().unwrap();
        let names: Vec<&str> = definitions
            .iter()
            .map(|m| m["Name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["calls", "errors", "duration_ms", "spend"]);
        for metric in definitions {
            assert!(metric["Unit"].is_string(), "{metric}");
            let name = metric["Name"].as_str().unwrap();
            assert!(
                map[name].is_number(),
                "metric {name} must be a top-level number"
            );
        }
        for set in directive["Dimensions"].as_array().unwrap() {
            let set = set.as_array().unwrap();
            assert!(!set.is_empty() && set.len() <= 30);
            for dimension in set {
                let name = dimension.as_str().unwrap();
                assert!(
                    map[name].is_string(),
                    "dimension {name} must be a top-level string"
                );
            }
        }
        assert_eq!(map[metrics::CALLS], 1);
        assert_eq!(map[metrics::ERRORS], 0);
        assert_eq!(map[metrics::DURATION_MS], 12.346);
        assert_eq!(map[metrics::SPEND], 2);
    }

    #[test]
    fn status_other_than_ok_counts_as_an_error() {
        let pending = full_event().status("pending");
        assert_eq!(
            emf_line(&pending)[metrics::ERRORS],
            0,
            "a job still running failed nothing"
        );
        let asked = full_event().status("confirmation_required");
        assert_eq!(
            emf_line(&asked)[metrics::ERRORS],
            0,
            "a confirmation asked for is no error"
        );
        let failed = full_event().status("not_found");
        assert_eq!(emf_line(&failed)[metrics::ERRORS], 1);

        let mut tool_error = full_event().status("unavailable");
        tool_error.event = EventKind::ToolError;
        assert_eq!(emf_line(&tool_error)[metrics::ERRORS], 1);
    }

    #[test]
    fn non_tool_events_carry_no_metrics() {
        for kind in [
            EventKind::ClientInit,
            EventKind::AuthDenied,
            EventKind::RateLimited,
            EventKind::ServerError,
            EventKind::QuotaProbe,
        ] {
            let mut event = full_event();
            event.event = kind;
            let map = emf_line(&event);
            assert!(!map.contains_key("_aws"), "{kind:?}");
            assert!(!map.contains_key(metrics::CALLS), "{kind:?}");
        }
    }

    #[test]
    fn tool_event_without_connector_or_tool_carries_no_metrics() {
        let mut no_connector = full_event();
        no_connector.connector = None;
        assert!(!emf_line(&no_connector).contains_key("_aws"));

        let mut empty_tool = full_event();
        empty_tool.tool = Some(String::new());
        assert!(!emf_line(&empty_tool).contains_key("_aws"));
    }

    #[test]
    fn blank_namespace_disables_emf() {
        let config = EmfConfig {
            namespace: "  ".to_owned(),
        };
        let line = full_event().to_json_line(Some(&config));
        assert!(!line.contains("_aws"));
    }

    #[test]
    fn call_without_duration_or_spend_omits_only_those_metrics() {
        let mut event = full_event();
        event.duration_ms = None;
        event.spend = None;
        let map = emf_line(&event);
        let names: Vec<&str> = map["_aws"]["CloudWatchMetrics"][0]["Metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["Name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["calls", "errors"]);
        assert!(!map.contains_key(metrics::DURATION_MS));
        assert!(!map.contains_key(metrics::SPEND));
    }
}
