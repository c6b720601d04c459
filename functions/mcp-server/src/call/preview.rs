//! What a write would do, as typed data: the dry run answers it, a confirmation shows it and the
//! client's confirmation form renders it. It reaches the model as the result's `preview`.

use serde::Serialize;
use serde_json::{Map, Value};

/// The preview of one write. Serialized as the result's `preview` object; fields left out
/// here are left out there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Preview {
    /// The exact upstream request.
    pub request: RequestLine,
    /// The tool's risk level, in the catalog's words.
    pub risk: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side_effects: Option<String>,
    /// The contract's effect word (`financial`, `external`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<&'static str>,
    pub retry_safe: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failure_modes: Vec<String>,
    /// What the call needs before it runs, in words.
    pub confirmation: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<&'static str>,
    /// For an update with a `current` get tool: the record as it is now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<Value>,
    /// Fields of [`Preview::current`] holding text users wrote (data, not instructions), as
    /// the get tool marks them `_untrusted`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub current_untrusted: Vec<String>,
    /// Why the current record is not shown: the caller may not call the get tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_withheld: Option<String>,
    /// The body's fields that differ from [`Preview::current`]: `{field: {from, to}}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Map<String, Value>>,
    /// What reading the current record cost, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<String>,
}

/// Method, path with query (no host, no credentials) and body of an upstream request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestLine {
    pub method: &'static str,
    pub path: String,
    /// `null` when the request has no body.
    pub body: Option<Value>,
}

impl Preview {
    /// The preview as the JSON object a model reads.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
