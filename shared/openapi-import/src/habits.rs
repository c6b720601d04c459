//! The upstream's habits, read from the document: paging from parameter names and list
//! response shapes, where error messages sit, and which rate-limit headers answers carry.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::ImportError;
use crate::naming::snake;
use crate::schema::{Flat, Resolver};
use crate::spec::{Deref, escape};

/// How a list operation pages, as far as names and shapes tell.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Style {
    /// `page` + a page size: what `list_envelope` expresses today.
    PageSize { page: String, size: String },
    /// An offset (or skip) and a limit (or take).
    Offset { offset: String, limit: String },
    /// An opaque cursor parameter (and maybe a page size).
    Cursor { param: String, size: Option<String> },
    /// The answer names the next page's URL (and the first page may be sized).
    NextUrl { field: String, size: Option<String> },
}

impl Style {
    pub(crate) fn words(&self) -> String {
        match self {
            Style::PageSize { page, size } => format!("page/page size (`{page}`, `{size}`)"),
            Style::Offset { offset, limit } => format!("offset/limit (`{offset}`, `{limit}`)"),
            Style::Cursor { param, .. } => format!("cursor (`{param}`)"),
            Style::NextUrl { field, .. } => format!("next URL in `{field}`"),
        }
    }
}

/// What a 2xx answer looks like.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Answer {
    /// The answer is a collection (a bare array, or an object with an items array).
    pub(crate) lists: bool,
    pub(crate) items: Option<String>,
    pub(crate) total: Option<String>,
    pub(crate) more: Option<String>,
    /// The next page's cursor or URL, dotted when it sits in an object (`paging.next`).
    pub(crate) next: Option<String>,
    pub(crate) next_kind: Next,
    /// Scalar fields of one item, for a `fields` proposal.
    pub(crate) fields: Vec<String>,
}

/// What the answer's next field holds, by its name, format and place.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// A URL: `next_url`, `nextLink`, `format: uri`, anything under `links`.
    Url,
    /// An opaque token: `next_cursor`, `nextPageToken`.
    Token,
    /// Either (`next`, `next_page`): a token when the operation takes a cursor parameter.
    #[default]
    Either,
}

fn next_kind(container: Option<&str>, key: &str, format: Option<&str>) -> Next {
    if key.contains("cursor") || key.contains("token") {
        Next::Token
    } else if ["url", "link", "href"].iter().any(|w| key.contains(w))
        || matches!(format, Some("uri" | "url" | "uri-reference"))
        || container == Some("links")
    {
        Next::Url
    } else {
        Next::Either
    }
}

/// Objects in a list answer that hold its paging fields (`paging: {next}`, `links: {next}`,
/// `meta: {next_cursor, total}`, `page_info: {end_cursor, has_next_page}`): looked into one
/// level deep.
const PAGING_OBJECTS: &[&str] = &[
    "paging",
    "pagination",
    "page_info",
    "links",
    "meta",
    "response_metadata",
    "cursors",
];

const ITEM_FIELDS: &[&str] = &[
    "data", "items", "results", "objects", "entries", "records", "values", "list",
];
const TOTAL_FIELDS: &[&str] = &[
    "total",
    "total_count",
    "count",
    "total_entries",
    "total_items",
    "total_results",
];
const MORE_FIELDS: &[&str] = &["has_more", "more", "has_next", "has_next_page"];
const NEXT_FIELDS: &[&str] = &[
    "next",
    "next_url",
    "next_page_url",
    "next_page",
    "next_link",
    "next_cursor",
    "next_page_cursor",
    "next_page_token",
    "next_token",
    "end_cursor",
    "continuation_token",
];

/// The first JSON 2xx answer's shape.
pub(crate) fn answer<'a>(
    r: &mut Resolver<'a>,
    op: &'a Value,
    at: &str,
) -> Result<Answer, ImportError> {
    let Some(Value::Object(responses)) = op.get("responses") else {
        return Ok(Answer::default());
    };
    let Some((code, response)) = responses.iter().find(|(c, _)| c.starts_with('2')) else {
        return Ok(Answer::default());
    };
    let at = format!("{at}/responses/{code}");
    let Some(schema) = json_schema(r, response, &at)? else {
        return Ok(Answer::default());
    };
    let flat = r.flatten(schema, &at)?;
    let mut out = Answer::default();
    let item_schema = if flat.kind == Some("array") {
        out.lists = true;
        flat.items
    } else {
        let mut arrays = Vec::new();
        for (name, prop) in &flat.properties {
            let p = r.flatten(prop, &at)?;
            let key = snake(name);
            if p.kind == Some("array") {
                arrays.push((*name, p.items));
            } else if p.kind == Some("object") && PAGING_OBJECTS.contains(&key.as_str()) {
                for (inner, field) in &p.properties {
                    let f = r.flatten(field, &at)?;
                    paging_field(&mut out, Some(&key), &format!("{name}.{inner}"), inner, &f);
                }
            } else {
                paging_field(&mut out, None, name, name, &p);
            }
        }
        let chosen = arrays
            .iter()
            .find(|(n, _)| ITEM_FIELDS.contains(&snake(n).as_str()))
            .or(if arrays.len() == 1 {
                arrays.first()
            } else {
                None
            });
        chosen.and_then(|(name, items)| {
            out.lists = true;
            out.items = Some(name.to_string());
            *items
        })
    };
    if let Some(item) = item_schema {
        let item = r.flatten(item, &at)?;
        for (name, prop) in item.properties.iter().take(60) {
            let p = r.flatten(prop, &at)?;
            if matches!(p.kind, Some("string" | "integer" | "number" | "boolean")) {
                out.fields.push(name.to_string());
            }
        }
    }
    Ok(out)
}

/// Takes a total, "more" or next field of a list answer (at `dotted`, named `name`, inside
/// the paging object `container`), the first of each found.
fn paging_field(out: &mut Answer, container: Option<&str>, dotted: &str, name: &str, p: &Flat<'_>) {
    let key = snake(name);
    if TOTAL_FIELDS.contains(&key.as_str()) && matches!(p.kind, Some("integer" | "number")) {
        out.total.get_or_insert(dotted.to_string());
    } else if MORE_FIELDS.contains(&key.as_str()) && p.kind == Some("boolean") {
        out.more.get_or_insert(dotted.to_string());
    } else if NEXT_FIELDS.contains(&key.as_str()) && p.kind == Some("string") && out.next.is_none()
    {
        out.next = Some(dotted.to_string());
        out.next_kind = next_kind(container, &key, p.format);
    }
}

/// The JSON schema of a response or request body, if it has JSON content.
pub(crate) fn json_schema<'a>(
    r: &Resolver<'a>,
    holder: &'a Value,
    at: &str,
) -> Result<Option<&'a Value>, ImportError> {
    let Deref::Found(holder) = r.deref(holder, at)? else {
        return Ok(None);
    };
    let Some(Value::Object(content)) = holder.get("content") else {
        return Ok(None);
    };
    Ok(content
        .iter()
        .find(|(t, _)| is_json(t))
        .and_then(|(_, m)| m.get("schema")))
}

pub(crate) fn is_json(media: &str) -> bool {
    let m = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    m == "application/json" || m.ends_with("+json") || m == "*/*"
}

/// The paging style of a list operation from its query parameter names (upstream names).
pub(crate) fn style(query: &[&str], answer: &Answer) -> Option<Style> {
    let find = |names: &[&str]| {
        query
            .iter()
            .find(|q| names.contains(&snake(q).as_str()))
            .map(|q| q.to_string())
    };
    let page = find(&["page", "page_number", "page_no"]);
    let size = find(&[
        "page_size",
        "per_page",
        "size",
        "limit",
        "page_limit",
        "pagesize",
    ]);
    let offset = find(&["offset", "skip", "start"]);
    let limit = find(&["limit", "take", "max_results", "count"]);
    let cursor = find(&[
        "cursor",
        "after",
        "starting_after",
        "page_token",
        "next_token",
        "continuation_token",
    ]);
    if let (Some(page), Some(size)) = (page, size.clone()) {
        return Some(Style::PageSize { page, size });
    }
    if let (Some(offset), Some(limit)) = (offset, limit) {
        return Some(Style::Offset { offset, limit });
    }
    // A next field that is a URL carries the cursor itself; a token goes back in the cursor
    // parameter, and without one there is nowhere to send it.
    match (cursor, &answer.next, answer.next_kind) {
        (_, Some(field), Next::Url) | (None, Some(field), Next::Either) => Some(Style::NextUrl {
            field: field.clone(),
            size,
        }),
        (Some(param), _, _) => Some(Style::Cursor { param, size }),
        (None, _, _) => None,
    }
}

/// Where error answers put their message: JSON pointers with how many responses show each, and
/// whether any answer is `application/problem+json`.
#[derive(Debug, Default)]
pub(crate) struct ErrorShapes {
    pub(crate) pointers: BTreeMap<String, usize>,
    pub(crate) problem_details: usize,
}

const MESSAGE_FIELDS: &[&str] = &[
    "message",
    "error_message",
    "detail",
    "error_description",
    "title",
];

pub(crate) fn errors<'a>(
    r: &mut Resolver<'a>,
    op: &'a Value,
    at: &str,
    out: &mut ErrorShapes,
) -> Result<(), ImportError> {
    let Some(Value::Object(responses)) = op.get("responses") else {
        return Ok(());
    };
    for (code, response) in responses {
        if !(code.starts_with('4') || code.starts_with('5') || code == "default") {
            continue;
        }
        let at = format!("{at}/responses/{code}");
        let Deref::Found(resolved) = r.deref(response, &at)? else {
            continue;
        };
        if let Some(Value::Object(content)) = resolved.get("content")
            && content
                .keys()
                .any(|k| k.starts_with("application/problem+json"))
        {
            out.problem_details += 1;
            continue;
        }
        let Some(schema) = json_schema(r, resolved, &at)? else {
            continue;
        };
        if let Some(pointer) = message_pointer(r, schema, &at, 0)? {
            *out.pointers.entry(pointer).or_default() += 1;
        }
    }
    Ok(())
}

fn message_pointer<'a>(
    r: &mut Resolver<'a>,
    schema: &'a Value,
    at: &str,
    depth: usize,
) -> Result<Option<String>, ImportError> {
    let flat = r.flatten(schema, at)?;
    for (name, prop) in &flat.properties {
        let p = r.flatten(prop, at)?;
        let key = snake(name);
        if MESSAGE_FIELDS.contains(&key.as_str()) && p.kind == Some("string") {
            return Ok(Some(format!("/{}", escape(name))));
        }
        if key == "error" && p.kind == Some("string") {
            return Ok(Some("/error".into()));
        }
        if (key == "error" || key == "errors")
            && p.kind == Some("object")
            && depth == 0
            && let Some(inner) = message_pointer(r, prop, at, 1)?
        {
            return Ok(Some(format!("/{}{inner}", escape(name))));
        }
    }
    Ok(None)
}

/// Rate-limit and quota header names documented on an operation's answers.
pub(crate) fn rate_headers(op: &Value, out: &mut std::collections::BTreeSet<String>) {
    let Some(Value::Object(responses)) = op.get("responses") else {
        return;
    };
    for response in responses.values() {
        if let Some(Value::Object(headers)) = response.get("headers") {
            for name in headers.keys() {
                let lower = name.to_ascii_lowercase();
                if lower.contains("ratelimit")
                    || lower.contains("rate-limit")
                    || lower.contains("quota")
                    || lower == "retry-after"
                {
                    out.insert(lower);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;
    use serde_json::json;

    #[test]
    fn paging_styles_come_from_parameter_names() {
        let none = Answer::default();
        assert_eq!(
            style(&["page", "per_page"], &none),
            Some(Style::PageSize {
                page: "page".into(),
                size: "per_page".into()
            })
        );
        assert_eq!(
            style(&["offset", "limit"], &none),
            Some(Style::Offset {
                offset: "offset".into(),
                limit: "limit".into()
            })
        );
        assert_eq!(
            style(&["skip", "take"], &none),
            Some(Style::Offset {
                offset: "skip".into(),
                limit: "take".into()
            })
        );
        assert_eq!(
            style(&["cursor"], &none),
            Some(Style::Cursor {
                param: "cursor".into(),
                size: None
            })
        );
        let next = Answer {
            next: Some("next".into()),
            ..Answer::default()
        };
        assert_eq!(
            style(&[], &next),
            Some(Style::NextUrl {
                field: "next".into(),
                size: None
            })
        );
    }

    fn answer_of(schema: serde_json::Value) -> Answer {
        let op =
            json!({"responses": {"200": {"content": {"application/json": {"schema": schema}}}}});
        let limits = Limits::default();
        let mut r = Resolver::new(&op, &limits);
        answer(&mut r, &op, "#/op").unwrap()
    }

    #[test]
    fn a_cursor_in_a_paging_object_is_cursor_paging() {
        let items = json!({"type": "array", "items": {"type": "object"}});
        let paged = answer_of(json!({"properties": {
            "data": items,
            "paging": {"type": "object", "properties": {"next": {"type": "string"}}}
        }}));
        assert_eq!(paged.next.as_deref(), Some("paging.next"));
        assert_eq!(
            style(&["cursor", "limit"], &paged),
            Some(Style::Cursor {
                param: "cursor".into(),
                size: Some("limit".into())
            })
        );
        // A token needs a parameter to go back in.
        let token = answer_of(json!({"properties": {
            "data": items,
            "meta": {"type": "object", "properties": {
                "next_cursor": {"type": "string"}, "total": {"type": "integer"}}}
        }}));
        assert_eq!(
            (
                token.next.as_deref(),
                token.next_kind,
                token.total.as_deref()
            ),
            (Some("meta.next_cursor"), Next::Token, Some("meta.total"))
        );
        assert_eq!(style(&[], &token), None);
        assert_eq!(
            style(&["starting_after"], &token),
            Some(Style::Cursor {
                param: "starting_after".into(),
                size: None
            })
        );
        // A URL carries the cursor itself, even where a cursor parameter exists.
        let linked = answer_of(json!({"properties": {
            "data": items,
            "links": {"type": "object", "properties": {"next": {"type": "string"}}}
        }}));
        assert_eq!(
            style(&["cursor"], &linked),
            Some(Style::NextUrl {
                field: "links.next".into(),
                size: None
            })
        );
        let uri = answer_of(json!({"properties": {
            "results": items,
            "next": {"type": "string", "format": "uri"}
        }}));
        assert_eq!(uri.next_kind, Next::Url);
    }

    #[test]
    fn a_list_answer_names_its_items_total_and_fields() {
        let op = json!({"responses": {"200": {"content": {"application/json": {"schema": {
            "type": "object",
            "properties": {
                "objects": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "lines": {"type": "array"}}}},
                "total": {"type": "integer"}
            }
        }}}}}});
        let limits = Limits::default();
        let mut r = Resolver::new(&op, &limits);
        let a = answer(&mut r, &op, "#/op").unwrap();
        assert!(a.lists);
        assert_eq!(a.items.as_deref(), Some("objects"));
        assert_eq!(a.total.as_deref(), Some("total"));
        assert_eq!(a.fields, ["id", "name"]);
    }

    #[test]
    fn error_messages_are_found_by_pointer() {
        let op = json!({"responses": {
            "400": {"content": {"application/json": {"schema": {"properties": {"error": {"type": "object", "properties": {"message": {"type": "string"}}}}}}}},
            "404": {"content": {"application/problem+json": {"schema": {}}}}
        }});
        let limits = Limits::default();
        let mut r = Resolver::new(&op, &limits);
        let mut shapes = ErrorShapes::default();
        errors(&mut r, &op, "#/op", &mut shapes).unwrap();
        assert_eq!(shapes.pointers.get("/error/message"), Some(&1));
        assert_eq!(shapes.problem_details, 1);
    }
}
