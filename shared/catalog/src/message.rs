//! A mail message composed from a write's arguments (`{"$rfc5322": {to, subject, text, …}}` in a
//! `body` template), for upstreams that take a whole RFC 5322 message base64url-encoded (Gmail's
//! `raw`). Until the request is sent the message stays that readable object, so a dry run, a
//! confirmation and `notifies` show recipients, subject and text; [`encode_messages`] turns each
//! into the encoded message just before it goes up. Header values cannot break out of their line
//! (line breaks become spaces); the text goes base64 in UTF-8. Pure.

use std::collections::BTreeSet;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Map, Value};

/// The key that marks a message in a body template.
pub const MESSAGE: &str = "$rfc5322";

/// The fields a message takes, in the order its headers are written.
const FIELDS: [(&str, &str); 6] = [
    ("to", "To"),
    ("cc", "Cc"),
    ("bcc", "Bcc"),
    ("subject", "Subject"),
    ("in_reply_to", "In-Reply-To"),
    ("references", "References"),
];

/// `body` as it is sent: every message encoded ([`encode_messages`]); borrowed, not copied,
/// when it holds none (most writes).
pub fn encoded(body: &Value) -> std::borrow::Cow<'_, Value> {
    if !holds_message(body) {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut body = body.clone();
    encode_messages(&mut body);
    std::borrow::Cow::Owned(body)
}

fn holds_message(v: &Value) -> bool {
    match v {
        Value::Object(fields) => fields.contains_key(MESSAGE) || fields.values().any(holds_message),
        Value::Array(items) => items.iter().any(holds_message),
        _ => false,
    }
}

/// Replaces every `{"$rfc5322": {…}}` in `body` by its message, base64url without padding.
pub fn encode_messages(body: &mut Value) {
    match body {
        Value::Object(fields) => {
            if let Some(Value::Object(message)) = fields.get(MESSAGE)
                && fields.len() == 1
            {
                *body = Value::String(URL_SAFE_NO_PAD.encode(compose(message)));
                return;
            }
            fields.values_mut().for_each(encode_messages);
        }
        Value::Array(items) => items.iter_mut().for_each(encode_messages),
        _ => {}
    }
}

/// The message's text: its headers, a blank line, the UTF-8 text in base64 lines of 76.
pub fn compose(message: &Map<String, Value>) -> String {
    let mut out = String::from("MIME-Version: 1.0\r\n");
    for (field, header) in FIELDS {
        let value = match message.get(field) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            Some(Value::String(s)) => s.clone(),
            _ => continue,
        };
        let value = one_line(&value);
        if value.is_empty() {
            continue;
        }
        let value = if field == "subject" && !value.is_ascii() {
            format!("=?UTF-8?B?{}?=", STANDARD.encode(&value))
        } else {
            value
        };
        out.push_str(&format!("{header}: {value}\r\n"));
    }
    out.push_str("Content-Type: text/plain; charset=UTF-8\r\n");
    out.push_str("Content-Transfer-Encoding: base64\r\n\r\n");
    let text = message.get("text").and_then(Value::as_str).unwrap_or("");
    let encoded = STANDARD.encode(text);
    for line in encoded.as_bytes().chunks(76) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push_str("\r\n");
    }
    out
}

/// A header value on one line: CR, LF and other control characters become spaces.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// What is wrong with the messages in a body template: a message shares its object with other
/// keys, is no object, or names a field it does not take.
pub(crate) fn template_problems(what: &str, template: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(template, what, &mut out);
    out
}

fn walk(v: &Value, what: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(fields) => {
            if let Some(message) = fields.get(MESSAGE) {
                let known: BTreeSet<&str> =
                    FIELDS.iter().map(|(f, _)| *f).chain(["text"]).collect();
                match message.as_object() {
                    Some(m) if fields.len() == 1 => {
                        for key in m.keys().filter(|k| !known.contains(k.as_str())) {
                            out.push(format!(
                                "{what}: a message takes {}, not `{key}`",
                                known.iter().copied().collect::<Vec<_>>().join(", ")
                            ));
                        }
                    }
                    _ => out.push(format!(
                        "{what}: `{MESSAGE}` is an object of its own: {{\"{MESSAGE}\": {{to, subject, text}}}}"
                    )),
                }
                return;
            }
            fields.values().for_each(|v| walk(v, what, out));
        }
        Value::Array(items) => items.iter().for_each(|v| walk(v, what, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_message_becomes_headers_and_base64_text_and_stays_on_its_lines() {
        let message = json!({"to": ["anna@muster.example", "ben@muster.example"],
            "subject": "Angebot\r\nBcc: evil@x.example", "text": "Grüße"});
        let text = compose(message.as_object().unwrap());
        assert!(
            text.contains("To: anna@muster.example, ben@muster.example\r\n"),
            "{text}"
        );
        assert!(
            text.contains("Subject: Angebot  Bcc: evil@x.example\r\n"),
            "{text}"
        );
        assert!(!text.contains("\nBcc:"), "{text}");
        assert!(text.ends_with("\r\n\r\nR3LDvMOfZQ==\r\n"), "{text}");
        let umlaut = compose(json!({"subject": "Grüße"}).as_object().unwrap());
        assert!(
            umlaut.contains("Subject: =?UTF-8?B?R3LDvMOfZQ==?=\r\n"),
            "{umlaut}"
        );
    }

    #[test]
    fn only_marked_objects_are_encoded() {
        let mut body = json!({"message": {"raw": {"$rfc5322": {"to": "a@x.example", "text": "hi"}},
                                          "threadId": "t1"}});
        encode_messages(&mut body);
        let raw = body["message"]["raw"].as_str().unwrap();
        let decoded = String::from_utf8(URL_SAFE_NO_PAD.decode(raw).unwrap()).unwrap();
        assert!(
            decoded.starts_with("MIME-Version: 1.0\r\nTo: a@x.example\r\n"),
            "{decoded}"
        );
        assert_eq!(body["message"]["threadId"], "t1");
    }

    #[test]
    fn a_body_without_a_message_is_sent_as_it_is_without_a_copy() {
        let plain = json!({"summary": "x", "attendees": [{"email": "a@x.example"}]});
        assert!(matches!(encoded(&plain), std::borrow::Cow::Borrowed(_)));
        let mail = json!({"raw": {"$rfc5322": {"to": "a@x.example", "text": "hi"}}});
        assert!(encoded(&mail)["raw"].is_string());
    }

    #[test]
    fn a_template_names_only_message_fields() {
        assert!(
            template_problems("`body`", &json!({"raw": {"$rfc5322": {"to": "{to}"}}})).is_empty()
        );
        let p = template_problems("`body`", &json!({"raw": {"$rfc5322": {"from": "{f}"}}}));
        assert!(p[0].contains("not `from`"), "{p:?}");
        let p = template_problems("`body`", &json!({"raw": {"$rfc5322": {}, "x": 1}}));
        assert!(p[0].contains("an object of its own"), "{p:?}");
    }
}
