//! One operation to one candidate tool: its params (path, query, header, JSON body), the
//! proposed risk, the description scaffold, and what a person has to decide about it.

use std::collections::BTreeMap;

use catalog::{Method, Param, ParamIn, ParamType, Risk, Tool};
use serde_json::Value;

use crate::habits::{self, Answer, Style};
use crate::naming::{self, Parts, snake};
use crate::schema::{Resolver, clean};
use crate::spec::{Deref, escape};
use crate::{ImportError, Slice, describe, risk};

/// An operation of the document, borrowed from it.
pub(crate) struct Op<'a> {
    pub(crate) method: Method,
    pub(crate) path: &'a str,
    pub(crate) at: String,
    pub(crate) op: &'a Value,
    pub(crate) item: &'a Value,
}

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
            Slice::All => true,
            Slice::PathPrefix(prefix) => path.starts_with(prefix.as_str()),
            Slice::Tag(tag) => op.get("tags").and_then(Value::as_array).is_some_and(|ts| {
                ts.iter()
                    .filter_map(Value::as_str)
                    .any(|t| t.eq_ignore_ascii_case(tag))
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

/// One declared parameter, resolved.
struct Declared<'a> {
    name: &'a str,
    place: &'a str,
    body: &'a Value,
    at: String,
}

fn declared<'a>(
    r: &Resolver<'a>,
    op: &Op<'a>,
    needs: &mut Vec<String>,
) -> Result<Vec<Declared<'a>>, ImportError> {
    let mut out: Vec<Declared<'a>> = Vec::new();
    let item_at = op
        .at
        .rsplit_once('/')
        .map_or(op.at.as_str(), |(a, _)| a)
        .to_string();
    let lists = [
        (op.item.get("parameters"), item_at),
        (op.op.get("parameters"), op.at.clone()),
    ];
    for (list, base) in lists {
        let Some(list) = list else { continue };
        let Some(list) = list.as_array() else {
            return Err(ImportError::invalid(
                &format!("{base}/parameters"),
                "must be a list",
            ));
        };
        for (i, p) in list.iter().enumerate() {
            let at = format!("{base}/parameters/{i}");
            let p = match r.deref(p, &at)? {
                Deref::Found(p) => p,
                Deref::External(reference) => {
                    needs.push(format!(
                        "parameter `$ref: {reference}` is in another document: inline it"
                    ));
                    continue;
                }
            };
            let name = p
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| ImportError::invalid(&at, "a parameter needs a `name`"))?;
            let place = p
                .get("in")
                .and_then(Value::as_str)
                .ok_or_else(|| ImportError::invalid(&at, "a parameter needs `in`"))?;
            // An operation's parameter replaces the path item's of the same name and place.
            out.retain(|d| !(d.name == name && d.place == place));
            out.push(Declared {
                name,
                place,
                body: p,
                at,
            });
        }
    }
    Ok(out)
}

/// Drafts one operation. `auth_header` is the header the credentials go in (not a param).
pub(crate) fn draft<'a>(
    r: &mut Resolver<'a>,
    op: &Op<'a>,
    auth_header: Option<&str>,
) -> Result<Drafted, ImportError> {
    let mut needs: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut params: BTreeMap<String, Param> = BTreeMap::new();
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    let mut renames: Vec<(String, String)> = Vec::new();
    let mut query_names: Vec<&str> = Vec::new();
    let mut all_names: Vec<String> = Vec::new();
    for d in declared(r, op, &mut needs)? {
        all_names.push(d.name.to_string());
        let own = d.body.get("description").and_then(Value::as_str);
        let required = d
            .body
            .get("required")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let schema_at = format!("{}/schema", d.at);
        let Some(schema) = d.body.get("schema") else {
            let why = format!(
                "{} parameter `{}` has no `schema` (a `content` parameter)",
                d.place, d.name
            );
            if required || d.place == "path" {
                needs.push(why)
            } else {
                notes.push(format!("{why}: left out"))
            }
            continue;
        };
        match d.place {
            "path" | "query" => {
                let location = if d.place == "path" {
                    ParamIn::Path
                } else {
                    ParamIn::Query
                };
                let mut key = snake(d.name);
                if location == ParamIn::Query && catalog::RESERVED_PARAMS.contains(&key.as_str()) {
                    key.push_str("_value");
                }
                if params.contains_key(&key) {
                    key = format!("{key}_{}", d.place);
                }
                let p = match r.param(schema, &schema_at, location, own)? {
                    Ok(mut p) => {
                        p.required = required || location == ParamIn::Path;
                        p
                    }
                    Err(why) if location == ParamIn::Path => {
                        needs.push(format!(
                            "path parameter `{}`: {why}; drafted as a string",
                            d.name
                        ));
                        let mut p = fallback_string(own);
                        p.location = ParamIn::Path;
                        p
                    }
                    Err(why) if required => {
                        needs.push(format!("required query parameter `{}`: {why}", d.name));
                        continue;
                    }
                    Err(why) => {
                        notes.push(format!(
                            "optional query parameter `{}` left out: {why}",
                            d.name
                        ));
                        continue;
                    }
                };
                let mut p = p;
                if location == ParamIn::Path {
                    renames.push((d.name.to_string(), key.clone()));
                } else {
                    query_names.push(d.name);
                    if key != d.name {
                        p.upstream = Some(d.name.to_string());
                    }
                }
                params.insert(key, p);
            }
            "header" => {
                if auth_header.is_some_and(|h| h.eq_ignore_ascii_case(d.name))
                    || d.name.eq_ignore_ascii_case("authorization")
                {
                    continue;
                }
                let flat = r.flatten(schema, &schema_at)?;
                let fixed = flat
                    .default
                    .or(flat
                        .choices
                        .filter(|c| c.len() == 1)
                        .and_then(|c| c.first()))
                    .and_then(Value::as_str);
                match fixed {
                    Some(value) => {
                        headers.insert(d.name.to_string(), value.to_string());
                    }
                    None if required => needs.push(format!(
                        "required header `{}`: a secret (then `auth`) or a fixed value (then `headers`)?",
                        d.name
                    )),
                    None => notes.push(format!("optional header `{}` left out", d.name)),
                }
            }
            other => {
                let why = format!("{other} parameter `{}`: the catalog sends none", d.name);
                if required {
                    needs.push(why)
                } else {
                    notes.push(format!("{why}; left out"))
                }
            }
        }
    }
    // The tool's path uses the snake_case names; holes the document forgot become strings.
    let mut path = op.path.to_string();
    for (from, to) in &renames {
        path = path.replace(&format!("{{{from}}}"), &format!("{{{to}}}"));
    }
    for hole in catalog::placeholders(&path.clone()) {
        if !params.contains_key(hole) {
            let key = snake(hole);
            path = path.replace(&format!("{{{hole}}}"), &format!("{{{key}}}"));
            notes.push(format!(
                "path parameter `{hole}` is not declared: drafted as a string"
            ));
            let mut p = fallback_string(None);
            p.location = ParamIn::Path;
            params.insert(key, p);
        }
    }
    if path.contains("..") || path.contains('?') {
        needs.push(format!("the path `{path}` is no fixed template"));
    }
    if op.method != Method::Get {
        body(r, op, &mut params, &mut needs, &mut notes, &mut all_names)?;
    }
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
    let parts = naming::parts(op.method, op.path, lists);
    let mut tool = new_tool(op.method, path, risk, operation_id.clone());
    tool.description = describe::scaffold(&what, &params);
    tool.category = category;
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
        parts: naming::parts(op.method, op.path, lists),
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
        name: String::new(),
        description: String::new(),
        core: false,
        risk,
        category: None,
        idempotent: None,
        side_effects: None,
        effect: None,
        audit_event: None,
        failure_modes: Vec::new(),
        current: None,
        get: None,
        post: None,
        put: None,
        patch: None,
        delete: None,
        raw: false,
        list: false,
        params: BTreeMap::new(),
        headers: BTreeMap::new(),
        fields: Vec::new(),
        default_fields: Vec::new(),
        untrusted: Vec::new(),
        hints: BTreeMap::new(),
        max_result_bytes: None,
        resource: None,
        aggregate: None,
        operation_id,
        curate: Vec::new(),
    };
    *match method {
        Method::Get => &mut tool.get,
        Method::Post => &mut tool.post,
        Method::Put => &mut tool.put,
        Method::Patch => &mut tool.patch,
        Method::Delete => &mut tool.delete,
    } = Some(path);
    tool
}

fn fallback_string(own: Option<&str>) -> Param {
    Param {
        kind: ParamType::String,
        description: own.map(clean).filter(|d| !d.is_empty()),
        required: true,
        location: ParamIn::Query,
        upstream: None,
        min: None,
        max: None,
        max_length: None,
        choices: None,
        values: None,
        default: None,
        items: None,
        item: None,
        max_items: None,
    }
}

/// The request body's fields as body params: JSON objects only; multipart, other media types,
/// alternatives and bare arrays need a person.
fn body<'a>(
    r: &mut Resolver<'a>,
    op: &Op<'a>,
    params: &mut BTreeMap<String, Param>,
    needs: &mut Vec<String>,
    notes: &mut Vec<String>,
    names: &mut Vec<String>,
) -> Result<(), ImportError> {
    let Some(raw) = op.op.get("requestBody") else {
        return Ok(());
    };
    let at = format!("{}/requestBody", op.at);
    let rb = match r.deref(raw, &at)? {
        Deref::Found(rb) => rb,
        Deref::External(reference) => {
            needs.push(format!(
                "request body `$ref: {reference}` is in another document"
            ));
            return Ok(());
        }
    };
    let required = rb.get("required").and_then(Value::as_bool).unwrap_or(false);
    let Some(Value::Object(content)) = rb.get("content") else {
        return Ok(());
    };
    let Some((media, m)) = content.iter().find(|(t, _)| habits::is_json(t)) else {
        let types: Vec<&str> = content.keys().map(String::as_str).collect();
        needs.push(format!(
            "request body is {} only: the catalog sends JSON",
            types.join(", ")
        ));
        return Ok(());
    };
    let Some(schema) = m.get("schema") else {
        return Ok(());
    };
    let at = format!("{at}/content/{}/schema", escape(media));
    let flat = r.flatten(schema, &at)?;
    if let Some(reference) = flat.external {
        needs.push(format!(
            "request body `$ref: {reference}` is in another document: inline it"
        ));
        return Ok(());
    }
    if let Some(reference) = flat.cycle {
        notes.push(format!("recursive body schema cut at `{reference}`"));
    }
    if flat.alternatives {
        needs.push("request body is `oneOf`/`anyOf`: pick one shape and declare its fields".into());
        return Ok(());
    }
    if flat.kind != Some("object") {
        if required || flat.kind.is_some() {
            needs.push(format!(
                "request body is {}, not an object of fields",
                flat.kind.unwrap_or("untyped")
            ));
        }
        return Ok(());
    }
    for (name, prop) in flat.properties.iter() {
        names.push(name.to_string());
        let field_at = format!("{at}/properties/{}", escape(name));
        let is_required = flat.required.contains(name);
        // `readOnly` fields are answers, not inputs.
        if let Deref::Found(resolved) = r.deref(prop, &field_at)?
            && resolved.get("readOnly").and_then(Value::as_bool) == Some(true)
        {
            continue;
        }
        let mut key = snake(name);
        if catalog::RESERVED_PARAMS.contains(&key.as_str()) {
            key.push_str("_value");
        }
        if params.contains_key(&key) {
            key.push_str("_body");
        }
        match r.param(prop, &field_at, ParamIn::Body, None)? {
            Ok(mut p) => {
                p.required = is_required;
                if key != *name {
                    p.upstream = Some(name.to_string());
                }
                params.insert(key, p);
            }
            Err(why) if is_required => needs.push(format!("required body field `{name}`: {why}")),
            Err(why) => notes.push(format!("optional body field `{name}` left out: {why}")),
        }
    }
    Ok(())
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
