//! Injected faults: what the sandbox does to the next matching requests instead of (or besides)
//! answering normally.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The longest delay a fault may ask for, so a forgotten fault cannot hang a test run.
pub const MAX_FAULT_DELAY: Duration = Duration::from_secs(60);

/// What an injected fault does to a matching request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultAction {
    /// Answer with this status and the error envelope (429 also gets `retry-after`); nothing runs.
    Status(u16),
    /// Sleep this long, then answer normally.
    Delay(Duration),
    /// Only writes match: run the write (it is applied and logged), then hold the answer back this
    /// long. A client that times out meanwhile never learns that the upstream accepted it.
    DelayAnswer(Duration),
}

impl FaultAction {
    /// Whether a request with this method can trigger the action.
    pub(crate) fn matches(&self, write: bool) -> bool {
        write || !matches!(self, FaultAction::DelayAnswer(_))
    }
}

/// A fault for the next `times` requests whose path starts with `path_prefix`.
/// Over HTTP: `{"path_prefix": "/api/v1/income", "status": 503, "times": 2}`,
/// `{"path_prefix": "/api/v1/info", "delay_ms": 5000}` or
/// `{"path_prefix": "/api/v1/income/invoices/1001/deliver", "answer_delay_ms": 3000}`
/// (`times` defaults to 1; delays are at most [`MAX_FAULT_DELAY`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "FaultSpec", into = "FaultSpec")]
pub struct Fault {
    pub path_prefix: String,
    pub action: FaultAction,
    pub times: u32,
}

impl Fault {
    pub fn status(path_prefix: impl Into<String>, status: u16) -> Self {
        Self::new(path_prefix, FaultAction::Status(status))
    }

    /// Delays are capped at [`MAX_FAULT_DELAY`].
    pub fn delay(path_prefix: impl Into<String>, delay: Duration) -> Self {
        Self::new(path_prefix, FaultAction::Delay(delay.min(MAX_FAULT_DELAY)))
    }

    /// The next write under `path_prefix` is applied, but its answer leaves `delay` later
    /// (capped at [`MAX_FAULT_DELAY`]). Reads are not affected.
    pub fn delay_answer(path_prefix: impl Into<String>, delay: Duration) -> Self {
        Self::new(
            path_prefix,
            FaultAction::DelayAnswer(delay.min(MAX_FAULT_DELAY)),
        )
    }

    pub fn times(self, times: u32) -> Self {
        Fault { times, ..self }
    }

    fn new(path_prefix: impl Into<String>, action: FaultAction) -> Self {
        Fault {
            path_prefix: path_prefix.into(),
            action,
            times: 1,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FaultSpec {
    path_prefix: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    delay_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    answer_delay_ms: Option<u64>,
    #[serde(default = "one")]
    times: u32,
}

fn one() -> u32 {
    1
}

fn bounded(ms: u64) -> Result<Duration, String> {
    let d = Duration::from_millis(ms);
    if d > MAX_FAULT_DELAY {
        return Err(format!(
            "a delay of {ms} ms is longer than the maximum of {} ms",
            MAX_FAULT_DELAY.as_millis()
        ));
    }
    Ok(d)
}

impl TryFrom<FaultSpec> for Fault {
    type Error = String;
    fn try_from(s: FaultSpec) -> Result<Self, String> {
        let action = match (s.status, s.delay_ms, s.answer_delay_ms) {
            (Some(code), None, None) if (100..=599).contains(&code) => FaultAction::Status(code),
            (Some(code), None, None) => return Err(format!("status {code} is not an HTTP status")),
            (None, Some(ms), None) => FaultAction::Delay(bounded(ms)?),
            (None, None, Some(ms)) => FaultAction::DelayAnswer(bounded(ms)?),
            _ => {
                return Err(
                    "give exactly one of `status`, `delay_ms` and `answer_delay_ms`".into(),
                );
            }
        };
        if s.times == 0 {
            return Err("`times` must be at least 1".into());
        }
        Ok(Fault {
            path_prefix: s.path_prefix,
            action,
            times: s.times,
        })
    }
}

impl From<Fault> for FaultSpec {
    fn from(f: Fault) -> Self {
        let ms = |d: Duration| Some(d.as_millis() as u64);
        let (status, delay_ms, answer_delay_ms) = match f.action {
            FaultAction::Status(code) => (Some(code), None, None),
            FaultAction::Delay(d) => (None, ms(d), None),
            FaultAction::DelayAnswer(d) => (None, None, ms(d)),
        };
        FaultSpec {
            path_prefix: f.path_prefix,
            status,
            delay_ms,
            answer_delay_ms,
            times: f.times,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_json_needs_exactly_one_action() {
        let ok: Fault = serde_json::from_str(r#"{"path_prefix":"/api","delay_ms":250}"#).unwrap();
        assert_eq!(ok, Fault::delay("/api", Duration::from_millis(250)));
        let late: Fault =
            serde_json::from_str(r#"{"path_prefix":"/api","answer_delay_ms":250,"times":2}"#)
                .unwrap();
        assert_eq!(
            late,
            Fault::delay_answer("/api", Duration::from_millis(250)).times(2)
        );
        for bad in [
            r#"{"path_prefix":"/api"}"#,
            r#"{"path_prefix":"/api","status":503,"delay_ms":1}"#,
            r#"{"path_prefix":"/api","delay_ms":1,"answer_delay_ms":1}"#,
            r#"{"path_prefix":"/api","status":42}"#,
            r#"{"path_prefix":"/api","status":500,"times":0}"#,
        ] {
            assert!(serde_json::from_str::<Fault>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn delays_are_bounded() {
        let too_long = r#"{"path_prefix":"/api","answer_delay_ms":600000}"#;
        let err = serde_json::from_str::<Fault>(too_long).unwrap_err();
        assert!(err.to_string().contains("maximum"), "{err}");
        let capped = Fault::delay("/api", Duration::from_secs(3_600));
        assert_eq!(capped.action, FaultAction::Delay(MAX_FAULT_DELAY));
    }

    #[test]
    fn answer_delays_only_match_writes() {
        let late = FaultAction::DelayAnswer(Duration::from_millis(1));
        assert!(late.matches(true) && !late.matches(false));
        assert!(FaultAction::Status(503).matches(false));
    }
}
