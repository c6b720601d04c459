//! Encoded parts of an answer (`answer.parts`): an upstream that sends content base64url-encoded
//! inside typed parts (Gmail's MIME parts: `{mimeType, body: {data}}`, nested) declares where the
//! parts are, and the content of each part of a shown type becomes readable text in place; any
//! other part's content is replaced by a note of its size and type, so a model never reads
//! base64. Pure over JSON: the loader checks the declaration, the call pipeline applies it.

use serde_json::Value;

use crate::model::{EncodedParts, Tool};

/// Decodes, in place, every part `parts` names in `body`; answers how many were shown as text.
pub fn decode_parts(parts: &EncodedParts, body: &mut Value) -> usize {
    let mut shown = 0;
    for at in &parts.at {
        each_mut(body, at, &mut |part| {
            shown += usize::from(decode_part(parts, part));
        });
    }
    shown
}

/// One part: its content as text when its type is shown and it decodes within the cap, else a
/// note. A part without content (an attachment named by id) is left as it is.
fn decode_part(parts: &EncodedParts, part: &mut Value) -> bool {
    let kind = part
        .pointer(&parts.kind)
        .and_then(Value::as_str)
        .map(crate::essence)
        .unwrap_or_default();
    let Some(slot) = part.pointer_mut(&parts.data) else {
        return false;
    };
    let Some(encoded) = slot.as_str() else {
        return false;
    };
    let bytes = encoded.len() / 4 * 3;
    let shown = parts.show.iter().any(|s| **s == kind);
    if !shown || bytes > parts.max_bytes + 2 {
        let why = if shown { "over the cap" } else { "not shown" };
        *slot = Value::String(format!("({bytes} bytes of {kind}, {why})"));
        return false;
    }
    match base64url(encoded) {
        Some(decoded) => {
            *slot = Value::String(String::from_utf8_lossy(&decoded).into_owned());
            true
        }
        None => {
            *slot = Value::String(format!("({bytes} bytes of {kind}, not base64)"));
            false
        }
    }
}

/// Calls `f` with each value `pointer` names, `*` standing for every element of an array.
fn each_mut(v: &mut Value, pointer: &str, f: &mut dyn FnMut(&mut Value)) {
    let Some(rest) = pointer.strip_prefix('/') else {
        f(v);
        return;
    };
    let (step, tail) = rest.split_once('/').map_or((rest, ""), |(s, t)| (s, t));
    let tail = if tail.is_empty() {
        String::new()
    } else {
        format!("/{tail}")
    };
    match (step, v) {
        ("*", Value::Array(items)) => items.iter_mut().for_each(|i| each_mut(i, &tail, f)),
        (key, Value::Object(fields)) => {
            let key = key.replace("~1", "/").replace("~0", "~");
            if let Some(next) = fields.get_mut(&key) {
                each_mut(next, &tail, f);
            }
        }
        _ => {}
    }
}

/// RFC 4648 §5 base64url, padded or not (Gmail sends either); standard base64 too.
pub fn base64url(s: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    let s = s.trim_end_matches('=');
    URL_SAFE_NO_PAD
        .decode(s)
        .or_else(|_| STANDARD_NO_PAD.decode(s))
        .ok()
}

/// `answer.parts`: JSON pointers (with `*`), content types, a bounded cap, on a JSON answer.
pub(crate) fn problems(t: &Tool) -> Vec<String> {
    let Some(parts) = t.answer.as_ref().and_then(|a| a.parts.as_ref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if parts.at.is_empty() {
        out.push("answer.parts.at names no part".to_string());
    }
    let pointers = parts.at.iter().chain([&parts.data, &parts.kind]);
    for p in pointers.filter(|p| !p.starts_with('/')) {
        out.push(format!("answer.parts pointer `{p}` must start with `/`"));
    }
    if parts.show.is_empty() {
        out.push("answer.parts.show names no content type to decode".to_string());
    }
    if parts.max_bytes == 0 || parts.max_bytes > crate::MAX_BINARY_BYTES {
        out.push(format!(
            "answer.parts.max_bytes must be 1 to {}",
            crate::MAX_BINARY_BYTES
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn gmail() -> EncodedParts {
        EncodedParts {
            at: vec!["/payload".into(), "/payload/parts/*".into()],
            data: "/body/data".into(),
            kind: "/mimeType".into(),
            show: vec!["text/plain".into()],
            max_bytes: 64,
        }
    }

    #[test]
    fn a_shown_part_becomes_text_and_others_a_note() {
        // "Grüße, Anna" in base64url without padding; an HTML part; an attachment by id.
        let mut body = json!({"payload": {"mimeType": "multipart/alternative", "parts": [
            {"mimeType": "text/plain; charset=UTF-8", "body": {"data": "R3LDvMOfZSwgQW5uYQ"}},
            {"mimeType": "text/html", "body": {"data": "PGI-aGk8L2I-"}},
            {"mimeType": "application/pdf", "body": {"attachmentId": "a1", "size": 9}}]}});
        assert_eq!(decode_parts(&gmail(), &mut body), 1);
        let parts = &body["payload"]["parts"];
        assert_eq!(parts[0]["body"]["data"], "Grüße, Anna");
        assert_eq!(
            parts[1]["body"]["data"],
            "(9 bytes of text/html, not shown)"
        );
        assert_eq!(parts[2]["body"], json!({"attachmentId": "a1", "size": 9}));
    }

    #[test]
    fn bad_and_oversized_content_is_noted_never_sent_raw() {
        let mut body = json!({"payload": {"mimeType": "text/plain", "body": {"data": "!!!!"}}});
        assert_eq!(decode_parts(&gmail(), &mut body), 0);
        assert_eq!(
            body["payload"]["body"]["data"],
            "(3 bytes of text/plain, not base64)"
        );
        let big = "QUFB".repeat(40);
        let mut body = json!({"payload": {"mimeType": "text/plain", "body": {"data": big}}});
        decode_parts(&gmail(), &mut body);
        assert_eq!(
            body["payload"]["body"]["data"],
            "(120 bytes of text/plain, over the cap)"
        );
        assert_eq!(base64url("aGk="), Some(b"hi".to_vec()));
    }
}
