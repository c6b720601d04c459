//! What a call can fail with, and how an AWS error answer reads: the code from the
//! `x-amzn-ErrorType` header or the body's `__type` / `code` (a namespace before `#` and a
//! suffix after `:` dropped), the message from the body's `message` / `Message`. Pure.

use serde_json::Value;

/// Why a call failed. Messages are AWS's own (they name resources, never credentials).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AwsError {
    /// The service answered with an error (after the retries for throttling and server errors).
    #[error("{operation}: {code} (HTTP {status}): {message}")]
    Api {
        operation: String,
        status: u16,
        code: String,
        message: String,
    },
    /// No answer: connection, timeout, or a body that is not the JSON the operation returns.
    #[error("{operation}: {message}")]
    Transport { operation: String, message: String },
    /// No credentials or no region to sign with.
    #[error("AWS configuration: {0}")]
    Config(String),
}

impl AwsError {
    /// The error code, for an error the service answered.
    pub fn code(&self) -> Option<&str> {
        match self {
            AwsError::Api { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// The codes the SDKs retry as throttling, whatever the HTTP status.
const THROTTLING: &[&str] = &[
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "RequestLimitExceeded",
    "LimitExceededException",
    "RequestThrottled",
    "SlowDown",
];

/// Whether an error answer is worth another attempt: throttling, or the service's own fault.
pub(crate) fn retryable(status: u16, code: &str) -> bool {
    status == 429 || (500..600).contains(&status) || THROTTLING.contains(&code)
}

/// The code and message of an error answer.
pub(crate) fn refusal(status: u16, header: Option<&str>, body: &[u8]) -> (String, String) {
    let json: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let text = |key: &str| json.get(key).and_then(Value::as_str).map(str::to_string);
    let code = header
        .map(str::to_string)
        .or_else(|| text("__type"))
        .or_else(|| text("code"))
        .map(|c| short(&c).to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| format!("Http{status}"));
    let message = text("message")
        .or_else(|| text("Message"))
        .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned());
    (code, message)
}

/// `aws.protocoltests#ThrottlingException:http://internal` → `ThrottlingException`.
fn short(code: &str) -> &str {
    let code = code.split(':').next().unwrap_or(code);
    code.rsplit('#').next().unwrap_or(code).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_come_from_the_header_or_the_body_without_namespace_or_suffix() {
        let body = br#"{"__type": "com.amazonaws.logs#ResourceNotFoundException", "message": "The specified log group does not exist."}"#;
        assert_eq!(
            refusal(400, None, body),
            (
                "ResourceNotFoundException".to_string(),
                "The specified log group does not exist.".to_string()
            )
        );
        let (code, message) = refusal(
            400,
            Some("MessageRejected:http://internal.amazon.com/coral/com.amazonaws.sesv2/"),
            br#"{"Message": "Email address is not verified."}"#,
        );
        assert_eq!(code, "MessageRejected");
        assert_eq!(message, "Email address is not verified.");
        let (code, message) = refusal(502, None, b"<html>bad gateway</html>");
        assert_eq!(
            (code.as_str(), message.as_str()),
            ("Http502", "<html>bad gateway</html>")
        );
    }

    #[test]
    fn throttling_and_server_faults_are_retried_refusals_are_not() {
        assert!(retryable(400, "ThrottlingException"));
        assert!(retryable(400, "LimitExceededException"));
        assert!(retryable(429, "Http429"));
        assert!(retryable(503, "ServiceUnavailableException"));
        assert!(!retryable(400, "MalformedQueryException"));
        assert!(!retryable(403, "AccessDeniedException"));
    }
}
