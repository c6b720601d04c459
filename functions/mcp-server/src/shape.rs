//! Shaping results: the status result with actionable hints, the shared list shape, the quota
//! pass-through, untrusted-data marking and the output budget. Pure functions over JSON.

use catalog::{Catalog, ListEnvelope, Status, Tool};
use serde_json::{Map, Value, json};

use crate::args::ListOptions;
use crate::upstream::QuotaInfo;

/// A finished tool result, before it becomes MCP content.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    pub body: Value,
    pub http_status: Option<u16>,
    /// Short code for the audit log (`upstream_404`, `invalid_argument`, …).
    pub reason: Option<String>,
    pub quota: Option<QuotaInfo>,
    pub truncated: bool,
}

impl Outcome {
    /// A non-ok status with a hint the caller can act on.
    pub fn failed(status: Status, reason: &str, hint: impl Into<String>) -> Self {
        Outcome {
            status,
            body: json!({ "status": status.as_str(), "hint": hint.into() }),
            http_status: None,
            reason: Some(reason.to_string()),
            quota: None,
            truncated: false,
        }
    }

    pub fn with_http(mut self, status: u16) -> Self {
        self.http_status = Some(status);
        self
    }

    /// Adds `_quota` to the body when the upstream sent figures.
    pub fn with_quota(mut self, quota: Option<QuotaInfo>) -> Self {
        if let Some(q) = quota.filter(|q| q.remaining.is_some() || q.consumed.is_some()) {
            if let Some(body) = self.body.as_object_mut() {
                body.insert("_quota".into(), quota_json(&q));
            }
            self.quota = Some(q);
        }
        self
    }
}

fn quota_json(q: &QuotaInfo) -> Value {
    let mut m = Map::new();
    for (k, v) in [
        ("remaining", q.remaining),
        ("consumed", q.consumed),
        ("limit", q.limit),
    ] {
        if let Some(v) = v {
            m.insert(k.into(), v.into());
        }
    }
    Value::Object(m)
}

/// The ok result: the list shape for list tools, `data` otherwise.
pub fn ok(catalog: &Catalog, tool: &Tool, list: Option<&ListOptions>, body: Value) -> Value {
    let mut out = match (list, &catalog.list_envelope) {
        (Some(opts), Some(env)) => list_result(tool, env, opts, body),
        _ => json!({ "status": "ok", "data": body }),
    };
    let has_content = out.get("data").is_some() || out.get("items").is_some();
    if !tool.untrusted.is_empty()
        && has_content
        && let Some(m) = out.as_object_mut()
    {
        m.insert("_untrusted".into(), json!(tool.untrusted));
    }
    out
}

fn list_result(tool: &Tool, env: &ListEnvelope, opts: &ListOptions, body: Value) -> Value {
    let total = env
        .total
        .as_deref()
        .and_then(|f| at(&body, f))
        .and_then(Value::as_u64);
    let more = env
        .more
        .as_deref()
        .and_then(|f| at(&body, f))
        .and_then(Value::as_bool);
    let items = match at(&body, &env.items) {
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    };
    if opts.count_only {
        return json!({ "status": "ok", "count": total.unwrap_or(items.len() as u64) });
    }
    let fields: Option<&[String]> = match &opts.fields {
        Some(f) => Some(f),
        None if !tool.default_fields.is_empty() => Some(&tool.default_fields),
        None => None,
    };
    let items: Vec<Value> = match fields {
        Some(f) => items.iter().map(|i| project(i, f)).collect(),
        None => items,
    };
    let mut out = json!({
        "status": "ok",
        "items": items,
        "page": opts.page,
        "page_size": opts.page_size,
    });
    let m = out.as_object_mut().expect("object literal");
    if let Some(t) = total {
        m.insert("total".into(), t.into());
    }
    let has_more = more.unwrap_or_else(|| {
        total.is_some_and(|t| u64::from(opts.page) * u64::from(opts.page_size) < t)
    });
    m.insert("has_more".into(), has_more.into());
    if has_more {
        m.insert(
            "hint".into(),
            format!("More results: call again with page={}.", opts.page + 1).into(),
        );
    }
    out
}

/// The value at a dotted path (`meta.total`).
pub fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, p| v.get(p))
}

/// Keeps only the named (dotted) fields of an item, nesting preserved.
pub fn project(item: &Value, fields: &[String]) -> Value {
    let mut out = Map::new();
    for field in fields {
        let mut src = item;
        let parts: Vec<&str> = field.split('.').collect();
        let mut found = true;
        for p in &parts {
            match src.get(p) {
                Some(v) => src = v,
                None => {
                    found = false;
                    break;
                }
            }
        }
        if !found {
            continue;
        }
        let mut dst = &mut out;
        for p in &parts[..parts.len() - 1] {
            dst = dst
                .entry(p.to_string())
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .expect("built as object");
        }
        dst.insert(parts[parts.len() - 1].to_string(), src.clone());
    }
    Value::Object(out)
}

/// Cuts a result to `max_bytes`: list items from the end, else the largest `data` fields, and
/// says so with a hint on how to narrow. Returns whether it cut.
pub fn cap(body: &mut Value, max_bytes: usize) -> bool {
    if size(body) <= max_bytes {
        return false;
    }
    let Some(m) = body.as_object_mut() else {
        return false;
    };
    if let Some(Value::Array(items)) = m.get_mut("items") {
        let total = items.len();
        // Binary search would be faster; results are small and this runs only when over budget.
        while !items.is_empty() && size(&Value::Array(items.clone())) + 400 > max_bytes {
            items.pop();
        }
        let kept = items.len();
        m.insert("truncated".into(), true.into());
        m.insert(
            "hint".into(),
            format!(
                "Result cut to {kept} of {total} items (limit {max_bytes} bytes). Narrow it: \
                 fields=[…] with fewer fields, a smaller page_size, count_only=true, or a filter."
            )
            .into(),
        );
        return true;
    }
    if let Some(Value::Object(data)) = m.get_mut("data") {
        let mut dropped = Vec::new();
        while size(&Value::Object(data.clone())) + 400 > max_bytes {
            let Some(largest) = data
                .iter()
                .max_by_key(|(_, v)| size(v))
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            data.remove(&largest);
            dropped.push(largest);
        }
        m.insert("truncated".into(), true.into());
        m.insert(
            "hint".into(),
            format!(
                "Result over {max_bytes} bytes: left out the largest fields ({}). Ask for \
                 them with a more specific tool or a narrower request.",
                dropped.join(", ")
            )
            .into(),
        );
        return true;
    }
    m.insert("data".into(), Value::Null);
    m.insert("truncated".into(), true.into());
    m.insert(
        "hint".into(),
        format!("Result over {max_bytes} bytes; narrow the request.").into(),
    );
    true
}

pub fn size(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_keeps_nested_fields() {
        let item = json!({"id": 1, "name": "x", "billing": {"company": "A", "city": "B"}});
        let p = project(
            &item,
            &["id".into(), "billing.company".into(), "missing".into()],
        );
        assert_eq!(p, json!({"id": 1, "billing": {"company": "A"}}));
    }

    #[test]
    fn oversized_list_is_cut_with_a_hint() {
        let items: Vec<Value> = (0..200)
            .map(|i| json!({"id": i, "text": "y".repeat(100)}))
            .collect();
        let mut body = json!({"status": "ok", "items": items, "page": 1});
        assert!(cap(&mut body, 4096));
        assert!(size(&body) <= 4096, "{}", size(&body));
        assert_eq!(body["truncated"], json!(true));
        let hint = body["hint"].as_str().unwrap();
        assert!(
            hint.contains("of 200 items") && hint.contains("count_only"),
            "{hint}"
        );
    }

    #[test]
    fn oversized_object_drops_largest_fields_and_names_them() {
        let mut body = json!({"status": "ok", "data": {"id": 1, "pdf": "z".repeat(10_000)}});
        assert!(cap(&mut body, 2048));
        assert_eq!(body["data"], json!({"id": 1}));
        assert!(body["hint"].as_str().unwrap().contains("pdf"));
    }

    #[test]
    fn small_results_are_untouched() {
        let mut body = json!({"status": "ok", "data": {"id": 1}});
        assert!(!cap(&mut body, 2048));
        assert!(body.get("truncated").is_none());
    }

    #[test]
    fn quota_is_passed_through() {
        let q = QuotaInfo {
            remaining: Some(9910),
            consumed: Some(1),
            limit: Some(10_000),
        };
        let o = Outcome::failed(Status::RateLimited, "upstream_429", "wait").with_quota(Some(q));
        assert_eq!(
            o.body["_quota"],
            json!({"remaining": 9910, "consumed": 1, "limit": 10000})
        );
    }
}
