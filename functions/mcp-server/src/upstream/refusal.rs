//! What an answer says about an error, as the catalog declares it (`error_message`,
//! `errors`): the upstream's own message, and a refusal hidden in a 2xx body. Pure.

use catalog::Catalog;
use serde_json::Value;

use super::request::{one_line, upstream_message};

/// The upstream's message in an error answer: the dotted `error_message`, else the first
/// `errors.message` pointer with text, else (with `errors.problem_details`, for an
/// `application/problem+json` answer) `title: detail`. One line, at most 300 characters.
pub(super) fn message(
    catalog: &Catalog,
    content_type: Option<&str>,
    body: Option<&Value>,
) -> Option<String> {
    if let Some(m) = upstream_message(catalog, body) {
        return Some(m);
    }
    let errors = catalog.errors.as_ref()?;
    let body = body?;
    errors
        .message
        .iter()
        .find_map(|p| one_line(body.pointer(p)?))
        .or_else(|| {
            (errors.problem_details && is_problem(content_type))
                .then(|| problem_message(body))
                .flatten()
        })
}

/// The status a 2xx body declares at `errors.status`, when it is an error status (400–599).
pub(super) fn status_in_body(catalog: &Catalog, body: &Value) -> Option<u16> {
    let pointer = catalog.errors.as_ref()?.status.as_deref()?;
    let status = match body.pointer(pointer)? {
        Value::Number(n) => n.as_u64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    (400..=599)
        .contains(&status)
        .then(|| u16::try_from(status).ok())
        .flatten()
}

/// The upstream's own error code at `errors.code`: a number or a non-empty string (at most 64
/// characters), as text.
pub(super) fn code(catalog: &Catalog, body: &Value) -> Option<String> {
    let pointer = catalog.errors.as_ref()?.code.as_deref()?;
    match body.pointer(pointer)? {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => {
            let s = s.trim();
            (!s.is_empty() && s.len() <= 64).then(|| s.to_string())
        }
        _ => None,
    }
}

/// The message with the code beside it, so a reader of `upstream_message` sees which refusal
/// it was: `Message undeliverable (code 131047)`, or the code alone.
pub(super) fn with_code(message: Option<String>, code: Option<&str>) -> Option<String> {
    match (message, code) {
        (Some(m), Some(c)) if !m.contains(c) => Some(format!("{m} (code {c})")),
        (None, Some(c)) => Some(format!("code {c}")),
        (m, _) => m,
    }
}

fn is_problem(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/problem+json"))
    })
}

/// RFC 9457: `title` (the kind of problem) and `detail` (this occurrence), either or both.
fn problem_message(body: &Value) -> Option<String> {
    let part = |k: &str| body.get(k).and_then(Value::as_str).map(str::trim);
    let text = match (part("title"), part("detail")) {
        (Some(t), Some(d)) if !t.is_empty() && !d.is_empty() => format!("{t}: {d}"),
        (Some(t), _) if !t.is_empty() => t.to_string(),
        (_, Some(d)) => d.to_string(),
        _ => return None,
    };
    one_line(&Value::String(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalog(declarations: &str) -> Catalog {
        catalog::parse(
            "t.yaml",
            &format!(
                "connector: t\nbase_url: \"http://x\"\n{declarations}\ntools:\n  - name: t_thing_get\n    risk: low\n    description: d\n    get: /t\n"
            ),
        )
        .unwrap()
    }

    #[test]
    fn messages_come_by_pointer_in_order() {
        let c = catalog("errors: { message: [/error/message, /errors/0/detail] }");
        let sevdesk = json!({"error": {"message": "Object not\n found", "exceptionUUID": "u-1"}});
        assert_eq!(
            message(&c, None, Some(&sevdesk)).as_deref(),
            Some("Object not found")
        );
        let listed = json!({"errors": [{"detail": "name is blank"}]});
        assert_eq!(
            message(&c, None, Some(&listed)).as_deref(),
            Some("name is blank")
        );
        assert_eq!(message(&c, None, Some(&json!({"trace": "x"}))), None);
    }

    #[test]
    fn problem_details_are_read_only_when_declared_and_sent_as_such() {
        let body = json!({"type": "about:blank", "title": "Invalid input", "detail": "version is required", "status": 422});
        let c = catalog("errors: { problem_details: true }");
        let problem = Some("application/problem+json; charset=utf-8");
        assert_eq!(
            message(&c, problem, Some(&body)).as_deref(),
            Some("Invalid input: version is required")
        );
        assert_eq!(message(&c, Some("application/json"), Some(&body)), None);
        let title_only = json!({"title": "Not found"});
        assert_eq!(
            message(&c, problem, Some(&title_only)).as_deref(),
            Some("Not found")
        );
        let undeclared = catalog("");
        assert_eq!(message(&undeclared, problem, Some(&body)), None);
    }

    #[test]
    fn the_dotted_error_message_keeps_its_meaning() {
        let c = catalog("error_message: message\nerrors: { problem_details: true }");
        let body = json!({"message": "Name muss ausgefüllt werden", "title": "t"});
        assert_eq!(
            message(&c, Some("application/problem+json"), Some(&body)).as_deref(),
            Some("Name muss ausgefüllt werden")
        );
    }

    #[test]
    fn a_status_in_a_2xx_body_is_an_error_status_or_nothing() {
        let c = catalog("errors: { status: /status }");
        for (body, want) in [
            (json!({"status": 404}), Some(404)),
            (json!({"status": "429"}), Some(429)),
            (json!({"status": 200}), None),
            (json!({"status": "success"}), None),
            (json!({"status": 700}), None),
            (json!({"data": []}), None),
        ] {
            assert_eq!(status_in_body(&c, &body), want, "{body}");
        }
        assert_eq!(status_in_body(&catalog(""), &json!({"status": 404})), None);
    }

    #[test]
    fn an_error_code_is_read_as_text_and_kept_beside_the_message() {
        let c = catalog("errors: { message: [/error/message], code: /error/code }");
        let meta = json!({"error": {"code": 131047, "message": "Re-engagement message"}});
        assert_eq!(code(&c, &meta).as_deref(), Some("131047"));
        let google = catalog("errors: { code: /error/status }");
        let exhausted = json!({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}});
        assert_eq!(
            code(&google, &exhausted).as_deref(),
            Some("RESOURCE_EXHAUSTED")
        );
        for odd in [
            json!({"error": {"code": ""}}),
            json!({"error": {"code": [4]}}),
            json!({}),
        ] {
            assert_eq!(code(&c, &odd), None, "{odd}");
        }
        assert_eq!(code(&catalog(""), &meta), None);
        let m = message(&c, None, Some(&meta));
        assert_eq!(
            with_code(m, Some("131047")).as_deref(),
            Some("Re-engagement message (code 131047)")
        );
        assert_eq!(with_code(None, Some("4")).as_deref(), Some("code 4"));
        let said = Some("ErrorItemNotFound: no such item".to_string());
        assert_eq!(with_code(said.clone(), Some("ErrorItemNotFound")), said);
        assert_eq!(with_code(None, None), None);
    }
}
