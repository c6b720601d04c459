//! The connector's habits as proposals: base URL, paging, errors, quota and the
//! headers every tool sends. Each adds a note for the person deciding.

use std::collections::{BTreeMap, BTreeSet};

use catalog::{Errors, Paging, PagingStyle, Quota, RateLimitHeaders, Text, pointer_of_dotted};
use serde_json::Value;

use crate::draft::Drafted;
use crate::habits::{ErrorShapes, Style};
use crate::select::Selection;
use crate::spec;

/// `servers[0].url` with its variables at their defaults; a relative or missing URL gets a
/// placeholder host and a note.
pub(crate) fn base_url(root: &Value, notes: &mut Vec<String>) -> String {
    let server = root.pointer("/servers/0");
    let mut url = server
        .and_then(|s| s.get("url"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if let Some(Value::Object(vars)) = server.and_then(|s| s.get("variables")) {
        for (name, v) in vars {
            let value = v.get("default").map(spec::scalar).unwrap_or_default();
            url = url.replace(&format!("{{{name}}}"), &value);
        }
    }
    url = url.replace(['{', '}'], "");
    let url = url.trim_end_matches('/').to_string();
    if url.starts_with("https://") || url.starts_with("http://") {
        if root.pointer("/servers/1").is_some() {
            notes.push(format!(
                "base_url: proposed the first of several servers, `{url}`"
            ));
        }
        return url;
    }
    notes.push(format!("base_url: the document gives no absolute server URL (`{url}`); replace the placeholder host"));
    format!(
        "https://upstream.invalid{}",
        if url.starts_with('/') {
            url
        } else {
            String::new()
        }
    )
}

/// A `paging` declaration from the list operations' paging style (page and size, offset and
/// limit or skip and take, a cursor, a next URL in the answer) and where their items are: the
/// most common such shape wins, and its operations become list tools without the paging
/// parameters (the platform sends those).
pub(crate) fn paging(
    ops: &mut [(Drafted, Selection, String)],
    notes: &mut Vec<String>,
) -> Option<Paging> {
    let declared = |d: &Drafted| -> Option<Paging> {
        let style = d.style.as_ref()?;
        let items = match (&d.answer.items, d.answer.lists) {
            (Some(items), _) => pointer_of_dotted(items),
            (None, true) => String::new(),
            (None, false) => return None,
        };
        let pointer = |field: &Option<String>| field.as_deref().map(pointer_of_dotted);
        let mut paging = Paging {
            style: PagingStyle::Page,
            items: items.into(),
            page_param: None,
            first_page: None,
            size_param: None,
            offset_param: None,
            cursor_param: None,
            total: pointer(&d.answer.total).map(Text::from),
            more: pointer(&d.answer.more).map(Text::from),
            next: None,
            select_param: None,
            max_page_size: 100,
            omits_empty: false,
        };
        match style {
            Style::PageSize { page, size } => {
                paging.page_param = Some(page.as_str().into());
                paging.size_param = Some(size.as_str().into());
            }
            Style::Offset { offset, limit } => {
                paging.style = PagingStyle::Offset;
                paging.offset_param = Some(offset.as_str().into());
                paging.size_param = Some(limit.as_str().into());
            }
            Style::Cursor { param, size } => {
                paging.style = PagingStyle::Cursor;
                paging.cursor_param = Some(param.as_str().into());
                paging.size_param = size.as_deref().map(Text::from);
                paging.next = Some(pointer(&d.answer.next)?.into());
            }
            Style::NextUrl { field, size } => {
                paging.style = PagingStyle::NextUrl;
                paging.size_param = size.as_deref().map(Text::from);
                paging.next = Some(pointer_of_dotted(field).into());
            }
        }
        Some(paging)
    };
    let mut shapes: BTreeMap<String, (Paging, usize)> = BTreeMap::new();
    for (d, sel, _) in ops.iter() {
        if *sel == Selection::LeftOut {
            continue;
        }
        if let Some(p) = declared(d) {
            let key = format!("{p:?}");
            shapes.entry(key).or_insert((p, 0)).1 += 1;
        }
    }
    let (mut proposed, count) = shapes.into_values().max_by(|(a, n), (b, m)| {
        n.cmp(m)
            .then_with(|| format!("{b:?}").cmp(&format!("{a:?}")))
    })?;
    let paging_params: Vec<String> = [
        &proposed.page_param,
        &proposed.size_param,
        &proposed.offset_param,
        &proposed.cursor_param,
    ]
    .into_iter()
    .flatten()
    .map(Text::to_string)
    .collect();
    let mut max_page_size = None;
    for (d, _, _) in ops.iter_mut() {
        if declared(d).as_ref() != Some(&proposed) {
            continue;
        }
        let t = &mut d.tool;
        t.list = true;
        t.params.retain(|name, p| {
            let upstream = p.upstream_name(name);
            if Some(upstream) == proposed.size_param.as_deref() {
                max_page_size = max_page_size.or(p.max);
            }
            !paging_params.iter().any(|q| q == upstream)
        });
        t.fields = d
            .answer
            .fields
            .iter()
            .map(|f| Text::from(f.as_str()))
            .collect();
        t.default_fields = default_fields(&d.answer.fields)
            .into_iter()
            .map(Text::from)
            .collect();
    }
    proposed.max_page_size = max_page_size.map_or(100, |m| m.clamp(1.0, 100.0) as u32);
    notes.push(format!(
        "paging: proposed `style: {}` (items `{}`) from {count} list operation(s); check the \
         parameter names{}",
        proposed.style.as_str(),
        proposed.items,
        if proposed.style == PagingStyle::Page {
            " and whether pages count from 1 (`first_page: 0` if from 0)"
        } else {
            ""
        }
    ));
    Some(proposed)
}

/// The five fields a list shows by default: the id, a name, a state, a date and an amount
/// before the rest (a person reads those first), each group in the schema's order.
fn default_fields(fields: &[String]) -> Vec<String> {
    let rank = |field: &str| {
        let f = field.to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| f.contains(w));
        if f == "id" || f == "uid" || f == "uuid" {
            0
        } else if has(&["name", "title", "number", "subject", "label"]) {
            1
        } else if has(&["status", "state"]) {
            2
        } else if has(&[
            "date", "time", "_at", "created", "updated", "due", "start", "end",
        ]) {
            3
        } else if has(&["amount", "total", "sum", "price", "gross", "net"]) {
            4
        } else {
            5
        }
    };
    let mut ranked: Vec<&String> = fields.iter().collect();
    ranked.sort_by_key(|f| rank(f));
    ranked.into_iter().take(5).cloned().collect()
}

pub(crate) fn error_proposal(shapes: &ErrorShapes, notes: &mut Vec<String>) -> Option<Errors> {
    let mut pointers: Vec<(&String, &usize)> = shapes.pointers.iter().collect();
    pointers.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let message: Vec<String> = pointers.iter().take(2).map(|(p, _)| (*p).clone()).collect();
    if message.is_empty() && shapes.problem_details == 0 {
        notes.push(
            "errors: the document describes no error body; decide `errors` from a real refusal"
                .into(),
        );
        return None;
    }
    let seen: usize = shapes.pointers.values().sum::<usize>() + shapes.problem_details;
    notes.push(format!(
        "errors: proposed message at {} from {seen} error answer(s){}; check against a real refusal",
        if message.is_empty() { "(none)".to_string() } else { message.join(", ") },
        if shapes.problem_details > 0 { ", problem details" } else { "" }
    ));
    Some(Errors {
        message: message.into_iter().map(Text::from).collect(),
        problem_details: shapes.problem_details > 0,
        ..Errors::default()
    })
}

pub(crate) fn quota_proposal(headers: &BTreeSet<String>, notes: &mut Vec<String>) -> Option<Quota> {
    if headers.is_empty() {
        notes.push("rate limits: the document names no rate-limit headers; ask the vendor".into());
        return None;
    }
    notes.push(format!(
        "rate limits: documented headers {}",
        headers.iter().cloned().collect::<Vec<_>>().join(", ")
    ));
    let quota = |family, bucket, remaining, consumed| Quota {
        headers: family,
        bucket,
        reset: Default::default(),
        remaining,
        consumed,
        body: None,
        limit: None,
        window: None,
        balance: false,
        thresholds: vec![80, 95],
        probe: None,
        caller_daily_budget: None,
        caller_daily_spend: None,
        rate: None,
    };
    let lower: BTreeSet<String> = headers.iter().map(|h| h.to_ascii_lowercase()).collect();
    // A header family: the runtime reads limit, remaining and reset from it.
    if lower.iter().any(|h| h.starts_with("x-ratelimit-remaining")) {
        let named = lower
            .iter()
            .any(|h| h.starts_with("x-ratelimit-remaining-"));
        notes.push(
            "quota: proposed `headers: x_ratelimit`; check whether X-RateLimit-Reset counts \
             seconds (`reset: seconds`) or is a Unix time (`reset: epoch`), set `limit` and `window`"
                .into(),
        );
        let bucket = named.then(|| "*".to_string());
        return Some(quota(
            Some(RateLimitHeaders::XRatelimit),
            bucket.map(Text::from),
            None,
            None,
        ));
    }
    if lower.contains("ratelimit") || lower.contains("ratelimit-remaining") {
        notes.push("quota: proposed `headers: ietf`; set `limit` and `window`".into());
        return Some(quota(Some(RateLimitHeaders::Ietf), None, None, None));
    }
    let remaining = headers.iter().find(|h| h.contains("remaining")).cloned();
    let consumed = headers
        .iter()
        .find(|h| h.contains("used") || h.contains("consumed"))
        .cloned();
    if remaining.is_none() && consumed.is_none() {
        return None;
    }
    notes.push("quota: proposed from the remaining/used headers; set `limit` and `window`".into());
    Some(quota(
        None,
        None,
        remaining.map(Text::from),
        consumed.map(Text::from),
    ))
}

/// Headers every drafted tool sends alike move to the catalog.
pub(crate) fn hoist_headers(ops: &mut [(Drafted, Selection, String)]) -> BTreeMap<Text, Text> {
    let mut kept = ops
        .iter()
        .filter(|(_, s, _)| *s != Selection::LeftOut)
        .map(|(d, _, _)| &d.tool.headers);
    let Some(first) = kept.next().cloned() else {
        return BTreeMap::new();
    };
    if first.is_empty() || !kept.all(|h| *h == first) {
        return BTreeMap::new();
    }
    for (d, _, _) in ops.iter_mut() {
        if d.tool.headers == first {
            d.tool.headers.clear();
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::default_fields;

    #[test]
    fn defaults_are_id_name_state_date_and_amount_before_the_rest() {
        let fields: Vec<String> = [
            "allowDynamicBooking",
            "appTheme",
            "avatarUrl",
            "bio",
            "createdAt",
            "email",
            "id",
            "name",
            "status",
            "sumGross",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            default_fields(&fields),
            ["id", "name", "status", "createdAt", "sumGross"]
        );
        assert_eq!(
            default_fields(&fields[..2]),
            ["allowDynamicBooking", "appTheme"]
        );
    }
}
