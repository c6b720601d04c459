//! One operation to one candidate tool: its params (path, query, header, JSON body), the
//! proposed risk, the description scaffold, and what a person has to decide about it.

use std::collections::BTreeMap;

use catalog::{Method, Risk, Text, Tool};
use serde_json::Value;

use crate::habits::{self, Answer, Style};
use crate::naming::{self, Parts, snake};
use crate::params::{self, Inputs};
use crate::schema::Resolver;
use crate::spec::{Op, escape};
use crate::{ImportError, Slice, describe, risk};

const METHODS: [(&str, Method); 5] = [
    ("get", Method::Get),
    ("post", Method::Post),
    ("put", Method::Put),
    ("patch", Method::Patch),
    ("delete", Method::Delete),
];

/// The operations of one path item in the slice, counting into `total` every operation and
/// into `unmapped` the ones the catalog cannot map (HEAD, OPTIONS, TRACE).
pub(crate) fn operations<'a>(
    path: &'a str,
    item: &'a Value,
    slice: &Slice,
    total: &mut usize,
    unmapped: &mut Vec<String>,
) -> Result<Vec<Op<'a>>, ImportError> {
    let mut out = Vec::new();
    let at = format!("#/paths/{}", escape(path));
    let Some(obj) = item.as_object() else {
        return Err(ImportError::invalid(&at, "a path item must be an object"));
    };
    if !path.starts_with('/') || path.contains('?') || path.contains("..") {
        return Err(ImportError::invalid(
            &at,
            "a path must start with `/` and hold no `?` or `..`",
        ));
    }
    for key in ["head", "options", "trace"] {
        if obj.contains_key(key) {
            *total += 1;
            unmapped.push(format!("{} {path}", key.to_ascii_uppercase()));
        }
    }
    for (key, method) in METHODS {
        let Some(op) = obj.get(key) else { continue };
        if !op.is_object() {
            return Err(ImportError::invalid(
                &format!("{at}/{key}"),
                "an operation must be an object",
            ));
        }
        *total += 1;
        let keep = match slice {
            Slice::All | Slice::PathPrefixes(_) => slice.may_hold(path),
            Slice::Tags(tags) => op.get("tags").and_then(Value::as_array).is_some_and(|ts| {
                ts.iter()
                    .filter_map(Value::as_str)
                    .any(|t| tags.iter().any(|tag| t.eq_ignore_ascii_case(tag)))
            }),
        };
        if keep {
            out.push(Op {
                method,
                path,
                at: format!("{at}/{key}"),
                op,
                item,
            });
        }
    }
    Ok(out)
}

/// A drafted operation before names and selection.
pub(crate) struct Drafted {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) operation_id: Option<String>,
    pub(crate) deprecated: bool,
    pub(crate) tool: Tool,
    pub(crate) parts: Parts,
    pub(crate) answer: Answer,
    pub(crate) style: Option<Style>,
    pub(crate) risk_reason: String,
    pub(crate) needs_person: Vec<String>,
    pub(crate) notes: Vec<String>,
    pub(crate) prose: Vec<String>,
}

/// Drafts one operation. `auth_header` is the header the credentials go in (not a param).
pub(crate) fn draft<'a>(
    r: &mut Resolver<'a>,
    op: &Op<'a>,
    auth_header: Option<&str>,
) -> Result<Drafted, ImportError> {
    let Inputs {
        params,
        headers,
        path,
        query_names,
        all_names,
        needs,
        notes,
    } = params::inputs(r, op, auth_header)?;
    let answer = habits::answer(r, op.op, &op.at)?;
    let style = if op.method == Method::Get {
        habits::style(&query_names, &answer)
    } else {
        None
    };
    let lists = op.method == Method::Get && answer.lists;
    let operation_id = op
        .op
        .get("operationId")
        .and_then(Value::as_str)
        .map(String::from);
    let summary = op.op.get("summary").and_then(Value::as_str);
    let description = op.op.get("description").and_then(Value::as_str);
    let prose_text = [
        summary,
        description,
        op.item.get("description").and_then(Value::as_str),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    let prose = describe::prose_params(&prose_text, &all_names);
    let (risk, risk_reason) = risk::propose(op.method, op.path, operation_id.as_deref());
    let what = describe::what(summary, description, op.method.as_str(), op.path);
    let category = op
        .op
        .get("tags")
        .and_then(|t| t.get(0))
        .and_then(Value::as_str)
        .map(snake);
    let (parts, named) = naming::parts_for(op.method, op.path, lists, operation_id.as_deref());
    let mut notes = notes;
    notes.extend(named);
    let mut tool = new_tool(op.method, path, risk, operation_id.clone());
    tool.description = describe::scaffold(&what, &params).into();
    tool.category = category.map(Text::from);
    tool.params = params;
    tool.headers = headers;
    Ok(Drafted {
        method: op.method,
        path: op.path.to_string(),
        operation_id,
        deprecated: op
            .op
            .get("deprecated")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        tool,
        parts,
        answer,
        style,
        risk_reason,
        needs_person: needs,
        notes,
        prose,
    })
}

/// What selection needs about an operation, without its params: cheap enough to keep for
/// every operation of a document with thousands, while only the kept ones are drafted in full.
pub(crate) fn sketch<'a>(r: &mut Resolver<'a>, op: &Op<'a>) -> Result<Drafted, ImportError> {
    let answer = habits::answer(r, op.op, &op.at)?;
    let lists = op.method == Method::Get && answer.lists;
    let operation_id = op
        .op
        .get("operationId")
        .and_then(Value::as_str)
        .map(String::from);
    let (risk, risk_reason) = risk::propose(op.method, op.path, operation_id.as_deref());
    let (parts, _) = naming::parts_for(op.method, op.path, lists, operation_id.as_deref());
    Ok(Drafted {
        method: op.method,
        path: op.path.to_string(),
        deprecated: op
            .op
            .get("deprecated")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        tool: new_tool(op.method, op.path.to_string(), risk, operation_id.clone()),
        operation_id,
        parts,
        answer: Answer::default(),
        style: None,
        risk_reason,
        needs_person: Vec::new(),
        notes: Vec::new(),
        prose: Vec::new(),
    })
}

/// A tool with its mapping and nothing else yet.
fn new_tool(method: Method, path: String, risk: Risk, operation_id: Option<String>) -> Tool {
    let mut tool = Tool {
        name: Text::default(),
        description: Text::default(),
        core: false,
        risk,
        category: None,
        idempotent: None,
        side_effects: None,
        effect: None,
        audit_event: None,
        failure_modes: Vec::new(),
        current: None,
        notifies: Vec::new(),
        from_current: Vec::new(),
        base_url: None,
        get: None,
        post: None,
        put: None,
        patch: None,
        delete: None,
        raw: false,
        read_only: false,
        list: false,
        paging: None,
        params: BTreeMap::new(),
        body: None,
        headers: BTreeMap::new(),
        fields: Vec::new(),
        default_fields: Vec::new(),
        untrusted: Vec::new(),
        hints: BTreeMap::new(),
        max_result_bytes: None,
        resource: None,
        answer: None,
        links: None,
        aggregate: None,
        inbound: None,
        requires: None,
        job: None,
        spends: None,
        price: None,
        operation_id: operation_id.map(Text::from),
        scopes: Vec::new(),
        curate: Vec::new(),
    };
    *match method {
        Method::Get => &mut tool.get,
        Method::Post => &mut tool.post,
        Method::Put => &mut tool.put,
        Method::Patch => &mut tool.patch,
        Method::Delete => &mut tool.delete,
    } = Some(path.into());
    tool
}

/// Risk stays a proposal in the tool's `curate` list; this is the entry.
pub(crate) fn risk_entry(risk: Risk, reason: &str) -> String {
    let word = match risk {
        Risk::Low => "low",
        Risk::Medium => "medium",
        Risk::High => "high",
        Risk::Critical => "critical",
        Risk::Forbidden => "forbidden",
    };
    format!("risk: proposed {word} because {reason}; confirm it")
}
