//! The import pipeline: read the document once, draft each operation of the slice, name and
//! select the tools, propose the connector's habits, and check the draft loads.

use std::collections::{BTreeMap, BTreeSet};

use catalog::{Catalog, Errors, ListEnvelope, Provenance, Quota};
use serde_json::Value;

use crate::draft::{self, Drafted, risk_entry};
use crate::habits::{self, ErrorShapes, Style};
use crate::report::{OperationReport, Report};
use crate::schema::Resolver;
use crate::select::{self, Candidate, Selection};
use crate::spec::{self, Spec};
use crate::{Draft, ImportError, MAX_CORE, Options, Slice, naming};

/// Every operation of the slice drafted, named and selected, plus what the connector needs.
pub(crate) struct Drafts<'t> {
    pub(crate) spec: Spec<'t>,
    pub(crate) ops: Vec<(Drafted, Selection, String)>,
    pub(crate) total: usize,
    pub(crate) unmapped: Vec<String>,
    pub(crate) errors: ErrorShapes,
    pub(crate) rate_headers: BTreeSet<String>,
}

/// Two passes over the path items: the first sketches every operation (what naming and
/// selection need), the second drafts in full only what the draft keeps (or every operation
/// with `full_all`, for a re-import). Memory stays bounded by the kept tools, not the document.
pub(crate) fn drafts<'t>(
    text: &'t str,
    options: &Options,
    full_all: bool,
) -> Result<Drafts<'t>, ImportError> {
    if !valid_connector(&options.connector) {
        return Err(ImportError::Connector(options.connector.clone()));
    }
    let spec = spec::read(text, &options.limits)?;
    let (auth, _, _) = habits::auth(&spec.root);
    let auth_header = auth.header.clone().or(auth.query.clone());
    let mut ops: Vec<Drafted> = Vec::new();
    let mut total = 0;
    let mut unmapped = Vec::new();
    let mut errors = ErrorShapes::default();
    let mut rate_headers = BTreeSet::new();
    // Where each path item's operations start in `ops`, and where the last ends.
    let mut first_op: Vec<usize> = Vec::new();
    spec.for_each_path(
        |_| true,
        |_, path, item| {
            first_op.push(ops.len());
            for op in draft::operations(path, item, &options.slice, &mut total, &mut unmapped)? {
                // A fresh budget per operation: one huge schema cannot starve the rest, and the
                // whole import stays within operations × budget.
                let mut r = Resolver::new(&spec.root, &options.limits);
                ops.push(draft::sketch(&mut r, &op)?);
                habits::errors(&mut r, op.op, &op.at, &mut errors)?;
                habits::rate_headers(op.op, &mut rate_headers);
            }
            Ok(())
        },
    )?;
    if ops.is_empty() {
        return Err(ImportError::EmptySlice {
            slice: slice_words(&options.slice),
            total,
        });
    }
    let parts: Vec<naming::Parts> = ops.iter().map(|d| d.parts.clone()).collect();
    let names = naming::assign(&options.connector, &parts);
    let keep: Vec<bool> = select_all(&ops, &names, options.max_tools)
        .into_iter()
        .map(|(sel, why)| {
            full_all || sel != Selection::LeftOut || !why.starts_with(select::OVER_CAP)
        })
        .collect();
    first_op.push(ops.len());
    let (mut again, mut skipped) = (0, Vec::new());
    let wanted = |k: usize| keep[first_op[k]..first_op[k + 1]].iter().any(|k| *k);
    spec.for_each_path(wanted, |k, path, item| {
        let here = draft::operations(path, item, &options.slice, &mut again, &mut skipped)?;
        for (i, op) in (first_op[k]..).zip(here) {
            if keep[i] {
                let mut r = Resolver::new(&spec.root, &options.limits);
                ops[i] = draft::draft(&mut r, &op, auth_header.as_deref())?;
            }
        }
        Ok(())
    })?;
    let selection = select_all(&ops, &names, options.max_tools);
    let ops = ops
        .into_iter()
        .zip(names)
        .zip(selection)
        .map(|((mut d, name), (sel, why))| {
            d.tool.name = name;
            (d, sel, why)
        })
        .collect();
    Ok(Drafts {
        spec,
        ops,
        total,
        unmapped,
        errors,
        rate_headers,
    })
}

/// The selection over all operations; a sketch counts as needing no person (the left-out
/// decision does not depend on it).
fn select_all(ops: &[Drafted], names: &[String], max_tools: usize) -> Vec<(Selection, String)> {
    let candidates: Vec<Candidate<'_>> = ops
        .iter()
        .zip(names)
        .map(|(d, name)| Candidate {
            method: d.method,
            path: &d.path,
            verb: name.rsplit('_').next().unwrap_or(""),
            risk: d.tool.risk,
            deprecated: d.deprecated,
            needs_person: !d.needs_person.is_empty(),
        })
        .collect();
    select::propose(&candidates, MAX_CORE, max_tools)
}

pub(crate) fn import(text: &str, options: &Options) -> Result<Draft, ImportError> {
    let Drafts {
        spec,
        mut ops,
        total,
        unmapped,
        errors,
        rate_headers,
    } = drafts(text, options, false)?;
    let mut connector_notes: Vec<String> = Vec::new();
    let (auth, secrets, auth_notes) = habits::auth(&spec.root);
    connector_notes.extend(auth_notes);
    let base_url = base_url(&spec.root, &mut connector_notes);
    let list_envelope = envelope(&mut ops, &mut connector_notes);
    let errors = error_proposal(&errors, &mut connector_notes);
    let quota = quota_proposal(&rate_headers, &mut connector_notes);
    for (d, sel, why) in &mut ops {
        let t = &mut d.tool;
        t.core = *sel == Selection::Core;
        let mut curate = vec![
            risk_entry(t.risk, &d.risk_reason),
            "description: a scaffold; write what it returns, when to use it, aliases and check the example".to_string(),
            format!("selection: proposed {} because {why}", sel.as_str()),
        ];
        curate.extend(
            d.needs_person
                .iter()
                .map(|n| format!("needs a person: {n}")),
        );
        if !d.prose.is_empty() {
            curate.push(format!(
                "params mentioned only in prose: {}; declare them or drop the mention",
                d.prose.join(", ")
            ));
        }
        if let Some(style) = &d.style
            && !t.list
        {
            let items = d
                .answer
                .items
                .as_deref()
                .map(|i| format!(", items in `{i}`"))
                .unwrap_or_default();
            curate.push(format!(
                "paging: proposed {}{items}; the catalog's `list_envelope` cannot express it yet",
                style.words()
            ));
        }
        if t.list {
            curate.push("fields: proposed from the item schema; keep the few a person needs in default_fields".into());
        }
        t.curate = curate;
    }
    let headers = hoist_headers(&mut ops);
    let mut catalog_curate: Vec<String> = connector_notes.clone();
    catalog_curate.push("hints: declare not_found, unauthorized and rate_limited hints".into());
    let report = Report {
        connector: options.connector.clone(),
        title: spec.title.clone(),
        version: spec.version.clone(),
        sha256: spec.sha256.clone(),
        slice: slice_words(&options.slice),
        total_operations: total,
        unmapped,
        connector_notes,
        rate_limit_headers: rate_headers.into_iter().collect(),
        operations: ops
            .iter()
            .map(|(d, sel, why)| operation_report(d, *sel, why))
            .collect(),
    };
    let tools: Vec<catalog::Tool> = ops
        .into_iter()
        .filter(|(_, sel, _)| *sel != Selection::LeftOut)
        .map(|(d, _, _)| d.tool)
        .collect();
    if tools.is_empty() {
        return Err(ImportError::EmptySlice {
            slice: format!(
                "{} once plumbing and deprecated operations are left out",
                slice_words(&options.slice)
            ),
            total,
        });
    }
    let catalog = Catalog {
        connector: options.connector.clone(),
        title: spec.title.clone(),
        base_url,
        secrets,
        auth,
        headers,
        timeout_ms: 10_000,
        max_response_bytes: None,
        list_envelope,
        error_message: None,
        errors,
        quota,
        health: None,
        hints: BTreeMap::new(),
        tools,
        curate: catalog_curate,
        imported_from: Some(Provenance {
            title: spec.title.clone(),
            version: spec.version.clone(),
            sha256: spec.sha256.clone(),
        }),
    };
    let draft = Draft { catalog, report };
    // The promise: a draft always loads. A failure here is the importer's bug, named.
    let yaml = to_yaml(&draft.catalog)?;
    catalog::parse(&format!("{}.yaml", options.connector), &yaml).map_err(|e| {
        ImportError::invalid(
            "#",
            format!("the draft would not load ({e}); please report this document"),
        )
    })?;
    Ok(draft)
}

fn operation_report(d: &Drafted, sel: Selection, why: &str) -> OperationReport {
    OperationReport {
        method: d.method.as_str().to_string(),
        path: d.path.clone(),
        operation_id: d.operation_id.clone(),
        tool: d.tool.name.clone(),
        selection: sel,
        reason: why.to_string(),
        risk: format!(
            "{} ({})",
            format!("{:?}", d.tool.risk).to_lowercase(),
            d.risk_reason
        ),
        needs_person: d.needs_person.clone(),
        prose_params: d.prose.clone(),
        notes: d.notes.clone(),
    }
}

pub(crate) fn to_yaml(c: &Catalog) -> Result<String, ImportError> {
    let fail = |e: String| ImportError::invalid("#", format!("cannot write the draft: {e}"));
    // A YAML value keeps the model's field order (`name` first), which a person reads.
    let mut value = yaml_serde::to_value(c).map_err(|e| fail(e.to_string()))?;
    prune(&mut value);
    let body = yaml_serde::to_string(&value).map_err(|e| fail(e.to_string()))?;
    Ok(format!(
        "# A DRAFT from `mcp-server import openapi`: every `curate` entry and `CURATE:` marker is a\n\
         # decision for a person; `mcp-server lint` refuses this catalog until they are all gone.\n{body}"
    ))
}

/// Drops what a person would not write: nulls, empty lists and maps, and `false` where it is
/// the default. `core: false` stays (its default is `true`).
fn prune(v: &mut yaml_serde::Value) {
    use yaml_serde::Value as Y;
    match v {
        Y::Mapping(map) => {
            map.retain(|key, value| {
                prune(value);
                let key = key.as_str().unwrap_or("");
                let default_false = matches!(key, "raw" | "list" | "required" | "problem_details");
                !(value.is_null()
                    || value.as_sequence().is_some_and(Vec::is_empty)
                    || value
                        .as_mapping()
                        .is_some_and(|m| m.is_empty() && key != "auth")
                    || (default_false && value.as_bool() == Some(false)))
            });
        }
        Y::Sequence(items) => items.iter_mut().for_each(prune),
        _ => {}
    }
}

fn valid_connector(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name.len() < naming::MAX_EXPOSED_NAME / 2
}

fn slice_words(slice: &Slice) -> String {
    match slice {
        Slice::All => "all operations".into(),
        Slice::Tag(t) => format!("operations tagged `{t}`"),
        Slice::PathPrefix(p) => format!("paths under `{p}`"),
    }
}

/// `servers[0].url` with its variables at their defaults; a relative or missing URL gets a
/// placeholder host and a note.
fn base_url(root: &Value, notes: &mut Vec<String>) -> String {
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

/// A `list_envelope` when list operations page by page number and size with the items in one
/// field: the most common such shape wins, and its operations become list tools.
fn envelope(
    ops: &mut [(Drafted, Selection, String)],
    notes: &mut Vec<String>,
) -> Option<ListEnvelope> {
    let mut shapes: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for (d, sel, _) in ops.iter() {
        if let (Some(Style::PageSize { page, size }), Some(items), true) =
            (&d.style, &d.answer.items, *sel != Selection::LeftOut)
        {
            *shapes
                .entry((items.clone(), page.clone(), size.clone()))
                .or_default() += 1;
        }
    }
    let ((items, page, size), count) = shapes
        .into_iter()
        .max_by_key(|(k, n)| (*n, std::cmp::Reverse(k.clone())))?;
    let mut max_page_size = None;
    let mut total = None;
    let mut more = None;
    for (d, _, _) in ops.iter_mut() {
        let fits = matches!(&d.style, Some(Style::PageSize { page: p, size: s }) if *p == page && *s == size)
            && d.answer.items.as_deref() == Some(items.as_str());
        if !fits {
            continue;
        }
        let t = &mut d.tool;
        t.list = true;
        t.params.retain(|name, p| {
            let upstream = p.upstream_name(name);
            if upstream == size {
                max_page_size = max_page_size.or(p.max);
            }
            upstream != page && upstream != size
        });
        t.fields = d.answer.fields.clone();
        t.default_fields = d.answer.fields.iter().take(5).cloned().collect();
        total = total.or(d.answer.total.clone());
        more = more.or(d.answer.more.clone());
    }
    notes.push(format!(
        "paging: proposed `list_envelope` (items `{items}`, `{page}`/`{size}`) from {count} list operation(s)"
    ));
    Some(ListEnvelope {
        items,
        page_param: page,
        page_size_param: size,
        total,
        more,
        max_page_size: max_page_size.map_or(100, |m| m.clamp(1.0, 1000.0) as u32),
    })
}

fn error_proposal(shapes: &ErrorShapes, notes: &mut Vec<String>) -> Option<Errors> {
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
        message,
        problem_details: shapes.problem_details > 0,
        status: None,
    })
}

fn quota_proposal(headers: &BTreeSet<String>, notes: &mut Vec<String>) -> Option<Quota> {
    if headers.is_empty() {
        notes.push("rate limits: the document names no rate-limit headers; ask the vendor".into());
        return None;
    }
    let remaining = headers.iter().find(|h| h.contains("remaining")).cloned();
    let consumed = headers
        .iter()
        .find(|h| h.contains("used") || h.contains("consumed"))
        .cloned();
    notes.push(format!(
        "rate limits: documented headers {}",
        headers.iter().cloned().collect::<Vec<_>>().join(", ")
    ));
    if remaining.is_none() && consumed.is_none() {
        return None;
    }
    notes.push("quota: proposed from the remaining/used headers; set `limit` and `window`".into());
    Some(Quota {
        remaining,
        consumed,
        limit: None,
        window: None,
        thresholds: vec![80, 95],
        probe: None,
        caller_daily_budget: None,
    })
}

/// Headers every drafted tool sends alike move to the catalog.
fn hoist_headers(ops: &mut [(Drafted, Selection, String)]) -> BTreeMap<String, String> {
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
