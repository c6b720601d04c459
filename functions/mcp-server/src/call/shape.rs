//! Shaping results: the shared list shape, untrusted-data marking and the output budget. Pure
//! functions over JSON and [`Outcome`].

use catalog::{Catalog, Pager, Status, Tool};
use serde_json::{Map, Value, json};

use super::outcome::{self, Outcome};
use crate::contract::args::ListOptions;
use crate::upstream::NextPage;

/// A 2xx answer that does not have the shape the catalog declares.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    #[error(
        "{title} answered without its list (no `{items}` array): no data was read, so do not \
         report this as an empty result. Retry in a few minutes."
    )]
    NoList { title: String, items: String },
}

impl From<ShapeError> for Outcome {
    fn from(e: ShapeError) -> Self {
        Outcome::failed(
            Status::Unavailable,
            "upstream_unexpected_shape",
            e.to_string(),
        )
    }
}

/// The ok result's fields: the list shape for list tools, `data` otherwise. A list tool whose
/// answer has no list is not "no items": it is `unavailable`. `next` is the next page the
/// upstream named, for lists paged by cursor.
pub(super) fn ok(
    catalog: &Catalog,
    tool: &Tool,
    list: Option<&ListOptions>,
    body: Value,
    next: Option<&NextPage>,
) -> Result<Map<String, Value>, ShapeError> {
    let mut fields = match (list, catalog.pager_for(tool)) {
        (Some(opts), Some(pager)) => list_result(catalog, tool, &pager, opts, &body, next)?,
        _ => outcome::data(body),
    };
    if !tool.untrusted.is_empty() && (fields.contains_key("data") || fields.contains_key("items")) {
        fields.insert("_untrusted".into(), json!(tool.untrusted));
    }
    Ok(fields)
}

fn list_result(
    catalog: &Catalog,
    tool: &Tool,
    pager: &Pager,
    opts: &ListOptions,
    body: &Value,
    next: Option<&NextPage>,
) -> Result<Map<String, Value>, ShapeError> {
    let Some(read) = pager.page(body, opts.page, opts.page_size) else {
        return Err(ShapeError::NoList {
            title: catalog
                .title
                .as_deref()
                .unwrap_or(&catalog.connector)
                .to_string(),
            items: match catalog.list_envelope.as_ref() {
                Some(env) => env.items.to_string(),
                None => pager.items.clone(),
            },
        });
    };
    let (items, total) = (read.items, read.total);
    let mut out = Map::new();
    if opts.count_only {
        out.insert("count".into(), total.unwrap_or(items.len() as u64).into());
        return Ok(out);
    }
    // The rest of a page an earlier result showed only in part (its cursor says how much).
    let items = &items[opts.skip().min(items.len())..];
    let items: Vec<Value> = match &opts.fields {
        Some(f) => items.iter().map(|i| project(i, f)).collect(),
        None if !tool.default_fields.is_empty() => items
            .iter()
            .map(|i| project(i, &tool.default_fields))
            .collect(),
        None => items.to_vec(),
    };
    out.insert("items".into(), items.into());
    if pager.by_cursor() {
        if pager.sized() {
            out.insert("page_size".into(), opts.page_size.into());
        }
        if let Some(t) = total {
            out.insert("total".into(), t.into());
        }
        let has_more = next.is_some() && read.more != Some(false);
        out.insert("has_more".into(), has_more.into());
        if let (true, Some(NextPage::Follow(cursor))) = (has_more, next) {
            out.insert("next_cursor".into(), cursor.encode().into());
        }
        return Ok(out);
    }
    out.insert("page".into(), opts.page.into());
    out.insert("page_size".into(), opts.page_size.into());
    if let Some(t) = total {
        out.insert("total".into(), t.into());
    }
    let has_more = pager.numbered_more(&read, opts.page, opts.page_size);
    out.insert("has_more".into(), has_more.into());
    Ok(out)
}

/// The hint of an ok list page with more behind it: the next page number, or the cursor to
/// pass back; or why a next page the upstream named is not followed.
pub(super) fn more_hint(fields: &Map<String, Value>) -> Option<String> {
    let more = fields.get("has_more").and_then(Value::as_bool)?;
    if !more {
        return None;
    }
    if fields.contains_key("next_cursor") {
        return Some(
            "More results: call again with the same arguments and cursor set to next_cursor."
                .into(),
        );
    }
    match fields.get("page").and_then(Value::as_u64) {
        Some(page) => Some(format!("More results: call again with page={}.", page + 1)),
        None => Some(
            "More results exist, but the upstream named a next page this connector does not \
             reach (another host, outside its base URL, or not a URL), so it is not followed. \
             Narrow the request with filters instead."
                .into(),
        ),
    }
}

/// The value at a dotted path (`meta.total`).
pub(super) fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, p| v.get(p))
}

/// Keeps only the named (dotted) fields of an item, nesting preserved.
pub(super) fn project(item: &Value, fields: &[impl AsRef<str>]) -> Value {
    let mut out = Map::new();
    for field in fields {
        let field = field.as_ref();
        let parts: Vec<&str> = field.split('.').collect();
        let Some(src) = at(item, field) else {
            continue;
        };
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

/// Room kept for the hint and the other fields when cutting.
const SLACK: usize = 400;

/// Cuts a result to `max_bytes`: list items from the end, else the largest `data` fields, and
/// says so with a hint on how to narrow. Each part's size is measured once, so cutting costs
/// linear work in the result's size. An item's record link counts with the item (a model reads
/// both). Returns whether it cut.
pub(super) fn cap(outcome: &mut Outcome, max_bytes: usize) -> bool {
    let links: usize = outcome.links.iter().map(link_size).sum();
    if size(&outcome.to_json()) + links <= max_bytes {
        return false;
    }
    outcome.truncated = true;
    let budget = max_bytes.saturating_sub(SLACK);
    if let Some(Value::Array(mut items)) = outcome.fields.remove("items") {
        // Everything but the items, measured once.
        let rest = size(&outcome.to_json());
        let total = items.len();
        let room = max_bytes.saturating_sub(rest + SLACK);
        let mut link_of = vec![0; items.len()];
        for l in &outcome.links {
            if let Some(slot) = link_of.get_mut(l.index) {
                *slot = link_size(l);
            }
        }
        let mut used = 2;
        let kept = items
            .iter()
            .zip(&link_of)
            .take_while(|(i, link)| {
                used += size(i) + 1 + **link;
                used <= room
            })
            .count();
        items.truncate(kept);
        outcome.links.retain(|l| l.index < kept);
        outcome.fields.insert("items".into(), Value::Array(items));
        outcome.hint = Some(format!(
            "Result cut to {kept} of {total} items (limit {max_bytes} bytes). Narrow it: fields=[…] \
             with fewer fields, a smaller page_size, count_only=true, or a filter."
        ));
        return true;
    }
    if let Some(Value::Object(data)) = outcome.fields.get_mut("data") {
        let mut sizes: Vec<(usize, String)> = data
            .iter()
            .map(|(k, v)| (size(v) + k.len() + 4, k.clone()))
            .collect();
        let mut used: usize = 2 + sizes.iter().map(|(s, _)| s).sum::<usize>();
        sizes.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let mut dropped = Vec::new();
        for (s, key) in sizes {
            if used <= budget {
                break;
            }
            data.remove(&key);
            used -= s;
            dropped.push(key);
        }
        let named = dropped
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        let more = match dropped.len().saturating_sub(10) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        outcome.hint = Some(format!(
            "Result over {max_bytes} bytes: left out the largest fields ({named}{more}). Ask for \
             them with a more specific tool or a narrower request."
        ));
        return true;
    }
    outcome.fields.insert("data".into(), Value::Null);
    outcome.hint = Some(format!(
        "Result over {max_bytes} bytes; narrow the request."
    ));
    true
}

/// A record link's bytes as sent: `{"type":"resource_link","uri":…,"name":…,"title":…,
/// "mimeType":"application/json"}` and a comma.
pub(super) fn link_size(link: &super::ItemLink) -> usize {
    let name = link
        .uri
        .split_once("://")
        .map_or(link.uri.len(), |(_, r)| r.len());
    80 + link.uri.len() + name + link.title.as_ref().map_or(0, |t| t.len() + 11)
}

pub(super) fn size(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_keeps_nested_fields() {
        let item = json!({"id": 1, "name": "x", "billing": {"company": "A", "city": "B"}});
        let p = project(&item, &["id", "billing.company", "missing"]);
        assert_eq!(p, json!({"id": 1, "billing": {"company": "A"}}));
    }

    fn ok_with(fields: Value) -> Outcome {
        Outcome::ok(fields.as_object().unwrap().clone())
    }

    #[test]
    fn oversized_list_is_cut_with_a_hint() {
        let items: Vec<Value> = (0..200)
            .map(|i| json!({"id": i, "text": "y".repeat(100)}))
            .collect();
        let mut o = ok_with(json!({"items": items, "page": 1}));
        assert!(cap(&mut o, 4096));
        let body = o.to_json();
        assert!(size(&body) <= 4096, "{}", size(&body));
        assert_eq!(body["truncated"], json!(true));
        let hint = body["hint"].as_str().unwrap();
        assert!(
            hint.contains("of 200 items") && hint.contains("count_only"),
            "{hint}"
        );
    }

    #[test]
    fn record_links_count_with_their_items_against_the_cap() {
        let items: Vec<Value> = (0..40).map(|i| json!({"id": i})).collect();
        let unlinked = ok_with(json!({"items": items.clone(), "page": 1}));
        assert!(size(&unlinked.to_json()) < 1024, "the items alone fit");
        let mut o = ok_with(json!({"items": items, "page": 1}));
        o.links = (0..40)
            .map(|i| crate::call::ItemLink {
                index: i,
                uri: format!("t://invoices/{i}"),
                title: Some(format!("R-{i:05}")),
            })
            .collect();
        assert!(cap(&mut o, 2048), "with their links they do not");
        let kept = o.fields["items"].as_array().unwrap().len();
        assert!(kept > 0 && kept < 40, "{kept}");
        assert_eq!(o.links.len(), kept, "a cut item takes its link along");
        let links: usize = o.links.iter().map(link_size).sum();
        assert!(size(&o.to_json()) + links <= 2048);
    }

    #[test]
    fn oversized_object_drops_largest_fields_and_names_them() {
        let mut o = ok_with(json!({"data": {"id": 1, "pdf": "z".repeat(10_000)}}));
        assert!(cap(&mut o, 2048));
        let body = o.to_json();
        assert_eq!(body["data"], json!({"id": 1}));
        assert!(body["hint"].as_str().unwrap().contains("pdf"));
    }

    #[test]
    fn an_object_of_many_fields_is_cut_in_linear_work() {
        let data: Map<String, Value> = (0..100_000)
            .map(|i| (format!("f{i:06}"), json!("v".repeat(20))))
            .collect();
        let mut o = Outcome::ok(outcome::data(Value::Object(data)));
        assert!(cap(&mut o, 32 * 1024));
        assert!(size(&o.to_json()) <= 32 * 1024, "{}", size(&o.to_json()));
        assert!(o.hint.unwrap().contains("more)"));
    }

    #[test]
    fn small_results_are_untouched() {
        let mut o = ok_with(json!({"data": {"id": 1}}));
        assert!(!cap(&mut o, 2048));
        assert!(o.to_json().get("truncated").is_none());
    }
}
