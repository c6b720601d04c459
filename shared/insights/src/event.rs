//! Log events, the queried time range, and the fields Insights discovers in an event.
//!
//! Discovery follows "Supported logs and discovered fields"
//! (<https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CWL_AnalyzeLogData-discoverable-fields.html>):
//! system fields `@message`, `@timestamp`, `@logStream`, `@log`; nested JSON objects in dot
//! notation (`userIdentity.type`); arrays flattened with the position as a name part
//! (`requestParameters.instancesSet.items.0.instanceId`); at most 200 fields extracted from a
//! JSON log; a discovered name that starts with `@` gets another `@` (`@example.com` is
//! `@@example.com`); and, as for Lambda logs, only the first embedded JSON fragment of a line
//! that is not JSON as a whole.

use std::collections::HashMap;

use jiff::Timestamp;
use serde_json::Value as Json;

use crate::value::Value;

/// One log event, as CloudWatch Logs stores it (`InputLogEvent` plus where it was written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// `@timestamp`.
    pub timestamp: Timestamp,
    /// `@message`: the raw line.
    pub message: String,
    /// `@log`. AWS shows `account-id:log-group-name`; the value is used as given.
    pub log_group: String,
    /// `@logStream`.
    pub log_stream: String,
}

/// The range passed to `StartQuery`. Both ends are inclusive: the StartQuery reference says of
/// `startTime` "the range is inclusive, so the specified start time is included in the query"
/// and the same of `endTime`
/// (<https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_StartQuery.html>).
/// To tile windows without counting an event twice, end each window just before the next
/// window's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    pub start: Timestamp,
    pub end: Timestamp,
}

impl TimeRange {
    pub fn contains(&self, t: Timestamp) -> bool {
        self.start <= t && t <= self.end
    }
}

/// Reads one audit line: `@timestamp` comes from the `ts` field (RFC 3339) of the line's JSON
/// object — the whole line, or else the first JSON object embedded in it, the one Insights
/// discovers fields in, so lines with a prefix (exported CloudWatch logs: time and request id
/// before the object) read too. `@message` is the whole line, `@logStream` is left empty.
/// `None` when the line holds no JSON object or its object has no parseable `ts`.
pub fn event_from_json_line(line: &str, log_group: &str) -> Option<Event> {
    let line = line.trim_end_matches(['\r', '\n']);
    let json = first_json_object(line)?;
    let timestamp = json.get("ts")?.as_str()?.parse::<Timestamp>().ok()?;
    Some(Event {
        timestamp,
        message: line.to_string(),
        log_group: log_group.to_string(),
        log_stream: String::new(),
    })
}

/// Most fields Insights extracts from one JSON log.
pub(crate) const MAX_DISCOVERED_FIELDS: usize = 200;

/// A row flowing through the command pipeline.
#[derive(Debug, Clone, Default)]
pub(crate) struct Record {
    /// The event time, kept for `bin()`, `latest()` and `earliest()` even if `@timestamp` is
    /// shadowed; `None` for rows made by `stats`.
    pub ts: Option<Timestamp>,
    pub fields: HashMap<String, Value>,
}

impl Record {
    pub(crate) fn from_event(event: &Event) -> Record {
        let mut fields = HashMap::new();
        if let Some(json) = first_json_object(&event.message) {
            let mut count = 0;
            flatten(&json, String::new(), &mut fields, &mut count);
        }
        fields.insert("@timestamp".into(), Value::Time(event.timestamp));
        fields.insert("@message".into(), Value::Str(event.message.clone()));
        fields.insert("@logStream".into(), Value::Str(event.log_stream.clone()));
        fields.insert("@log".into(), Value::Str(event.log_group.clone()));
        Record {
            ts: Some(event.timestamp),
            fields,
        }
    }

    pub(crate) fn get(&self, name: &str) -> &Value {
        self.fields.get(name).unwrap_or(&Value::Null)
    }

    /// Sets a field; `Null` removes it, since a missing field and a null one are the same here.
    pub(crate) fn set(&mut self, name: &str, value: Value) {
        if value.is_null() {
            self.fields.remove(name);
        } else {
            self.fields.insert(name.to_string(), value);
        }
    }
}

/// The whole message if it is a JSON object, else the first `{...}` fragment in it.
fn first_json_object(message: &str) -> Option<Json> {
    if let Ok(json @ Json::Object(_)) = serde_json::from_str::<Json>(message) {
        return Some(json);
    }
    let start = message.find('{')?;
    let mut stream = serde_json::Deserializer::from_str(&message[start..]).into_iter::<Json>();
    match stream.next() {
        Some(Ok(json @ Json::Object(_))) => Some(json),
        _ => None,
    }
}

fn flatten(json: &Json, prefix: String, out: &mut HashMap<String, Value>, count: &mut usize) {
    let join = |key: &str| {
        if prefix.is_empty() {
            if key.starts_with('@') {
                format!("@{key}")
            } else {
                key.to_string()
            }
        } else {
            format!("{prefix}.{key}")
        }
    };
    match json {
        Json::Object(map) => {
            for (key, value) in map {
                flatten(value, join(key), out, count);
            }
        }
        Json::Array(items) => {
            for (i, value) in items.iter().enumerate() {
                flatten(value, join(&i.to_string()), out, count);
            }
        }
        // A JSON null is treated as an absent field (`ispresent()` is false).
        Json::Null => {}
        leaf if *count < MAX_DISCOVERED_FIELDS && !prefix.is_empty() => {
            *count += 1;
            let value = match leaf {
                Json::String(s) => Value::Str(s.clone()),
                Json::Bool(b) => Value::Bool(*b),
                Json::Number(n) => Value::Num(n.as_f64().unwrap_or(f64::NAN)),
                _ => return,
            };
            out.insert(prefix, value);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLOUDTRAIL: &str = r#"{"eventVersion":"1.0","userIdentity":{"type":"IAMUser","accountId":"123456789012"},"eventName":"StartInstances","requestParameters":{"instancesSet":{"items":[{"instanceId":"i-abcde123"}]}},"responseElements":{"instancesSet":{"items":[{"instanceId":"i-abcde123","currentState":{"code":0,"name":"pending"}}]}}}"#;

    fn event(message: &str) -> Event {
        Event {
            timestamp: "2024-05-01T12:00:00Z".parse().unwrap(),
            message: message.into(),
            log_group: "123456789012:/aws/lambda/mcp".into(),
            log_stream: "2024/05/01/[$LATEST]abc".into(),
        }
    }

    #[test]
    fn nested_objects_and_arrays_use_dot_notation() {
        // Discovered-fields guide, "Fields in JSON logs": `userIdentity.type` and
        // `requestParameters.instancesSet.items.0.instanceId`.
        let r = Record::from_event(&event(CLOUDTRAIL));
        assert_eq!(r.get("userIdentity.type"), &Value::Str("IAMUser".into()));
        assert_eq!(
            r.get("requestParameters.instancesSet.items.0.instanceId"),
            &Value::Str("i-abcde123".into())
        );
        assert_eq!(
            r.get("responseElements.instancesSet.items.0.currentState.code"),
            &Value::Num(0.0)
        );
        // Only leaves are fields: the object and the array themselves are not.
        assert!(r.get("userIdentity").is_null());
        assert!(r.get("requestParameters.instancesSet.items").is_null());
    }

    #[test]
    fn system_fields_are_always_present() {
        let r = Record::from_event(&event("plain text"));
        assert_eq!(r.get("@message"), &Value::Str("plain text".into()));
        assert_eq!(
            r.get("@log"),
            &Value::Str("123456789012:/aws/lambda/mcp".into())
        );
        assert_eq!(
            r.get("@logStream"),
            &Value::Str("2024/05/01/[$LATEST]abc".into())
        );
        assert!(matches!(r.get("@timestamp"), Value::Time(_)));
    }

    #[test]
    fn discovered_names_starting_with_at_get_a_second_at() {
        // "if a log field name is `@example.com`, this field name is displayed as
        // `@@example.com`".
        let r = Record::from_event(&event(r#"{"@example.com":"x","@message":"inner"}"#));
        assert_eq!(r.get("@@example.com"), &Value::Str("x".into()));
        assert_eq!(r.get("@@message"), &Value::Str("inner".into()));
        assert_eq!(
            r.get("@message"),
            &Value::Str(r#"{"@example.com":"x","@message":"inner"}"#.into())
        );
    }

    #[test]
    fn at_most_200_fields_are_extracted() {
        // "CloudWatch Logs Insights can extract a maximum of 200 log event fields from a JSON log."
        let body: Vec<String> = (0..250).map(|i| format!("\"f{i:03}\":{i}")).collect();
        let r = Record::from_event(&event(&format!("{{{}}}", body.join(","))));
        let discovered = r.fields.keys().filter(|k| !k.starts_with('@')).count();
        assert_eq!(discovered, MAX_DISCOVERED_FIELDS);
    }

    #[test]
    fn first_json_fragment_of_a_prefixed_line_is_discovered() {
        // Lambda logs: fields are discovered "only for the first embedded JSON fragment".
        let r = Record::from_event(&event(r#"2024-05-01 INFO {"a":1} {"b":2}"#));
        assert_eq!(r.get("a"), &Value::Num(1.0));
        assert!(r.get("b").is_null());
    }

    #[test]
    fn json_null_is_absent_and_booleans_are_kept() {
        let r = Record::from_event(&event(r#"{"reason":null,"truncated":true}"#));
        assert!(r.get("reason").is_null());
        assert_eq!(r.get("truncated"), &Value::Bool(true));
    }

    #[test]
    fn event_from_json_line_reads_ts() {
        let e = event_from_json_line(
            "{\"ts\":\"2024-05-01T12:00:00.123Z\",\"event\":\"tool_call\"}\n",
            "g",
        )
        .unwrap();
        assert_eq!(
            e.timestamp,
            "2024-05-01T12:00:00.123Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(
            e.message,
            "{\"ts\":\"2024-05-01T12:00:00.123Z\",\"event\":\"tool_call\"}"
        );
        assert_eq!(e.log_group, "g");
        assert!(event_from_json_line("{\"event\":\"x\"}", "g").is_none());
        assert!(event_from_json_line("{\"ts\":\"yesterday\"}", "g").is_none());
        assert!(event_from_json_line("not json", "g").is_none());
    }

    #[test]
    fn event_from_json_line_reads_the_object_after_a_prefix() {
        let line = "2026-05-01T08:00:01.000Z\tabc\t{\"ts\":\"2026-05-01T07:30:00.000Z\",\"tool\":\"a\"} trailing";
        let e = event_from_json_line(line, "g").unwrap();
        assert_eq!(
            e.timestamp,
            "2026-05-01T07:30:00.000Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(e.message, line);
        assert_eq!(Record::from_event(&e).get("tool"), &Value::Str("a".into()));
        // Lambda platform lines: a JSON string holding escaped JSON is not an object.
        let quoted = r#""{\"ts\":\"2026-05-01T07:30:00.000Z\"}""#;
        assert!(event_from_json_line(quoted, "g").is_none());
        assert!(event_from_json_line("2026-05-01 START RequestId: 6b1c", "g").is_none());
        assert!(event_from_json_line("2026-05-01 INFO {\"event\":\"x\"}", "g").is_none());
    }

    #[test]
    fn time_range_includes_both_ends() {
        // StartQuery: start and end time are both "included in the query".
        let range = TimeRange {
            start: "2024-05-01T00:00:00Z".parse().unwrap(),
            end: "2024-05-02T00:00:00Z".parse().unwrap(),
        };
        assert!(range.contains(range.start));
        assert!(range.contains(range.end));
        assert!(!range.contains("2024-04-30T23:59:59.999Z".parse().unwrap()));
        assert!(!range.contains("2024-05-02T00:00:00.001Z".parse().unwrap()));
    }
}
