//! Loading catalog files: parse, then check every rule a runtime relies on, and name file, line
//! and problem when something is wrong.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::model::{
    Catalog, Method, ParamIn, ParamType, RateLimitHeaders, ResetFormat, Risk, Tool,
};
use crate::template::placeholders;

/// A catalog that failed to load: where and why.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{file}: cannot read")]
    Io {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}:{line}: {problem}")]
    Invalid {
        file: String,
        line: usize,
        problem: String,
    },
    #[error("{0}: no catalog files (*.yaml) found")]
    Empty(PathBuf),
}

/// Loads every `*.yaml` file in `dir`, sorted by name.
pub fn load_dir(dir: &Path) -> Result<Vec<Catalog>, LoadError> {
    Ok(load_dir_files(dir)?.into_iter().map(|(_, c)| c).collect())
}

/// [`load_dir`], each catalog with the file it came from (what a refusal to serve one names).
pub fn load_dir_files(dir: &Path) -> Result<Vec<(PathBuf, Catalog)>, LoadError> {
    let files = catalog_files(dir)?;
    let mut catalogs = Vec::with_capacity(files.len());
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|source| LoadError::Io {
            file: file.clone(),
            source,
        })?;
        catalogs.push(parse(&file.display().to_string(), &text)?);
    }
    check_unique(&catalogs)?;
    Ok(files.into_iter().zip(catalogs).collect())
}

/// The catalog files of `dir` (`*.yaml`, `*.yml`), sorted by name; none is an error.
pub fn catalog_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let io = |source| LoadError::Io {
        file: dir.to_path_buf(),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(LoadError::Empty(dir.to_path_buf()));
    }
    Ok(files)
}

/// Parses catalogs given as `(file name, text)` pairs (the embedded default set).
pub fn load_sources(sources: &[(&str, &str)]) -> Result<Vec<Catalog>, LoadError> {
    let catalogs = sources
        .iter()
        .map(|(file, text)| parse(file, text))
        .collect::<Result<Vec<_>, _>>()?;
    check_unique(&catalogs)?;
    Ok(catalogs)
}

/// Catalogs that [`load_sources`] has already accepted, given as `(file name, model, string
/// table)` as [`pack`] wrote them: the shipped set, which the `connector` crate's build loads
/// and packs. Unpacking skips the YAML parser and the validation, which that load ran, and a
/// text format's scan for quotes and escapes; parts that are not such a catalog are still an
/// error naming their file, never a panic. The string table lives as long as the program (it is
/// compiled in), so the model's texts are slices of it ([`crate::Text`]), neither copied nor
/// checked again.
pub fn load_packed(sources: &[(&str, &[u8], &'static str)]) -> Result<Vec<Catalog>, LoadError> {
    sources
        .iter()
        .map(|(file, model, strings)| {
            crate::model::unpacking(strings, || rmp_serde::from_slice(model)).map_err(|e| {
                LoadError::Invalid {
                    file: file.to_string(),
                    line: 1,
                    problem: format!("not a packed catalog: {e}"),
                }
            })
        })
        .collect()
}

/// A loaded catalog in the form [`load_packed`] reads: the model in MessagePack (structs as maps
/// by field name, so optional fields may be left out, as in the YAML), each text in it a span of
/// the string table returned beside it, which holds each distinct text once. (Structs as arrays
/// by position, tried, unpack slower: every absent field then costs a read, and most are absent.)
pub fn pack(catalog: &Catalog) -> Result<(Vec<u8>, String), PackError> {
    let (model, strings) = crate::model::packing(|| rmp_serde::to_vec_named(catalog));
    Ok((model.map_err(PackError)?, strings))
}

/// A catalog the packed form cannot hold (a string table over 4 GiB).
#[derive(Debug, thiserror::Error)]
#[error("cannot pack the catalog: {0}")]
pub struct PackError(rmp_serde::encode::Error);

/// Parses and validates one catalog file.
pub fn parse(file: &str, text: &str) -> Result<Catalog, LoadError> {
    let catalog: Catalog = yaml_serde::from_str(text).map_err(|e| LoadError::Invalid {
        file: file.to_string(),
        line: e.location().map_or(1, |l| l.line()),
        problem: strip_location(&e.to_string()),
    })?;
    let problems = validate(&catalog);
    if let Some((place, problem)) = problems.into_iter().next() {
        let line = match place {
            Some(Place::Tool(t)) => line_of_tool(text, &t),
            Some(Place::Key(key)) => line_of_key(text, key),
            None => 1,
        };
        return Err(LoadError::Invalid {
            file: file.to_string(),
            line,
            problem,
        });
    }
    Ok(catalog)
}

fn strip_location(message: &str) -> String {
    // yaml_serde appends "at line X column Y"; the line is already in our prefix.
    match message.find(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Where a problem is: a tool (by name) or a top-level key.
enum Place {
    Tool(String),
    Key(&'static str),
}

/// The 1-based line of the top-level `key:` in the source (1 when not found).
fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')))
        .map_or(1, |i| i + 1)
}

/// The 1-based line of `- name: <tool>` in the source, for error messages.
fn line_of_tool(text: &str, tool: &str) -> usize {
    text.lines()
        .position(|l| {
            let l = l.trim_start().trim_start_matches("- ").trim();
            l.strip_prefix("name:")
                .is_some_and(|v| v.trim().trim_matches(['"', '\'']) == tool)
        })
        .map_or(1, |i| i + 1)
}

fn is_snake(name: &str) -> bool {
    !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The longest tool name clients accept (Claude's and OpenAI's tool-name limit).
pub const MAX_TOOL_NAME: usize = 64;

/// `<resource>_<verb>` (after the connector's prefix): lower-case words joined by single underscores, at least two.
fn is_tool_name(name: &str) -> bool {
    let words: Vec<&str> = name.split('_').collect();
    words.len() >= 2
        && words[0].starts_with(|c: char| c.is_ascii_lowercase())
        && words.iter().all(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// Every structural problem, as (where, if known; problem).
fn validate(c: &Catalog) -> Vec<(Option<Place>, String)> {
    let mut out = Vec::new();
    for (key, problem) in crate::wire::problems(c) {
        out.push((Some(Place::Key(key)), problem));
    }
    for problem in crate::paging::problems(c) {
        out.push((Some(Place::Key("paging")), problem));
    }
    for (name, problem) in crate::prompt::problems(c) {
        out.push((Some(Place::Tool(name)), problem));
    }
    for (key, problem) in crate::remote::problems(c) {
        out.push((Some(Place::Key(key)), problem));
    }
    let mut top = |p: String| out.push((None, p));
    if !is_snake(&c.connector) {
        top(format!("connector `{}` must be snake_case", c.connector));
    }
    if c.base_url.is_empty() == c.mcp.is_none() {
        top(
            "declare exactly one of `base_url` (a REST API) and `mcp` (a remote MCP server)".into(),
        );
    } else if c.mcp.is_some() {
        // A remote's checks are `remote::problems`; the REST ones below do not apply.
    } else if !(c.base_url.starts_with("https://") || c.base_url.starts_with("http://")) {
        top(format!("base_url `{}` must be an http(s) URL", c.base_url));
    }
    for field in placeholders(&c.base_url) {
        if !c.secrets.iter().any(|s| s == field) {
            top(format!(
                "base_url uses {{{field}}} but `secrets` does not list `{field}`"
            ));
        }
    }
    for hint in c
        .hints
        .values()
        .chain(c.tools.iter().flat_map(|t| t.hints.values()))
    {
        if hint.contains("{message}") {
            top(
                "hints may not quote the upstream's message (`{message}`): upstream text \
                 travels as `upstream_message`, never in a hint"
                    .into(),
            );
            break;
        }
    }
    if let Some(w) = c.quota.as_ref().and_then(|q| q.window.as_ref()) {
        let set = [
            w.calendar_month.is_some(),
            w.day.is_some(),
            w.rolling_hours.is_some(),
        ];
        if set.iter().filter(|s| **s).count() != 1 {
            top("quota.window needs exactly one of calendar_month, day, rolling_hours".into());
        }
    }
    if let Some(q) = &c.quota {
        if q.headers.is_some() && q.remaining.is_some() {
            top(
                "quota.remaining names a header, but quota.headers already reads the remaining \
                 requests from its family: declare one"
                    .into(),
            );
        }
        if let Some(bucket) = &q.bucket
            && !(bucket == "*"
                || (!bucket.is_empty()
                    && bucket
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')))
        {
            top(format!(
                "quota.bucket `{bucket}` must be `*` or a name of letters, digits, `_` and `-`: \
                 it becomes part of a header name"
            ));
        }
        if q.headers.is_none() && q.bucket.is_some() {
            top("quota.bucket names a bucket of a header family: declare quota.headers".into());
        }
        if q.headers != Some(RateLimitHeaders::XRatelimit) && q.reset != ResetFormat::Seconds {
            top(
                "quota.reset says how X-RateLimit-Reset counts: it needs `headers: x_ratelimit`"
                    .into(),
            );
        }
    }
    if let Some(q) = &c.quota
        && let Some(p) = &q.probe
    {
        if !p.get.starts_with('/') || !placeholders(&p.get).is_empty() {
            top("quota.probe.get must be a fixed path starting with `/`".into());
        }
        if q.remaining.is_none() && q.headers.is_none() {
            top(
                "quota.probe needs quota.remaining or quota.headers: a probe learns the quota \
                 only from those headers"
                    .into(),
            );
        }
        if q.window.is_none() {
            top("quota.probe needs quota.window: it is sent when the window had no figures for a while".into());
        }
        if p.quiet_hours == 0 {
            top("quota.probe.quiet_hours must be at least 1: each probe costs quota".into());
        }
    }
    if c.tools.is_empty() && c.mcp.is_none() {
        top("a catalog needs at least one tool".into());
    }
    let mut seen = BTreeSet::new();
    for t in &c.tools {
        let mut bad = |p: String| {
            out.push((
                Some(Place::Tool(t.name.to_string())),
                format!("tool `{}`: {p}", t.name),
            ))
        };
        if !seen.insert(t.name.as_str()) {
            bad("duplicate tool name".into());
        }
        for problem in crate::wire::tool_problems(c, t) {
            bad(problem);
        }
        for problem in crate::answer::tool_problems(c, t) {
            bad(problem);
        }
        for problem in crate::paging::tool_problems(t) {
            bad(problem);
        }
        match t
            .name
            .strip_prefix(c.connector.as_str())
            .and_then(|r| r.strip_prefix('_'))
        {
            Some(rest) if is_tool_name(rest) => {}
            _ => bad(format!(
                "name must be `{}_<resource>_<verb>` in snake_case: the connector first, so a \
                 model can tell which system a tool acts on",
                c.connector
            )),
        }
        if t.name.len() > MAX_TOOL_NAME {
            bad(format!(
                "name is {} characters; clients accept at most {MAX_TOOL_NAME}",
                t.name.len()
            ));
        }
        if t.description.trim().is_empty() {
            bad("description is empty".into());
        }
        let mappings = [&t.get, &t.post, &t.put, &t.patch, &t.delete]
            .iter()
            .filter(|m| m.is_some())
            .count();
        if let Some(agg) = &t.aggregate {
            if mappings != 0 || t.list || t.raw || t.body.is_some() {
                bad("an aggregate tool has no HTTP mapping and is neither list nor raw".into());
            }
            for problem in check_aggregate(c, agg) {
                bad(problem);
            }
            continue;
        }
        if mappings != 1 {
            bad(format!(
                "needs exactly one HTTP mapping (get/post/put/patch/delete), found {mappings}"
            ));
            continue;
        }
        if let Some(template) = &t.resource {
            for problem in check_resource(c, t, template) {
                bad(problem);
            }
        }
        let Some((method, path)) = t.http() else {
            continue;
        };
        if !path.starts_with('/') || path.contains("..") || path.contains('?') {
            bad(format!(
                "path `{path}` must be a fixed template starting with `/`, without `..` or a query"
            ));
        }
        let holes = placeholders(path);
        for problem in check_body(t, method) {
            bad(problem);
        }
        for problem in check_write_contract(c, t, method, &holes) {
            bad(problem);
        }
        for hole in &holes {
            match t.params.get(*hole) {
                Some(p) if p.location == ParamIn::Path => {}
                _ => bad(format!(
                    "path uses {{{hole}}} but no `in: path` param `{hole}`"
                )),
            }
        }
        if t.raw && t.params.contains_key("path") {
            bad("raw tools take the platform's `path` argument; remove the `path` param".into());
        }
        if t.raw && method != Method::Get {
            bad("raw tools may only GET".into());
        }
        if t.list && c.pager_for(t).is_none() {
            bad(
                "list tool, but neither it nor the catalog declares `paging` (or the catalog a \
                 `list_envelope`)"
                    .into(),
            );
        }
        if t.list && t.risk == Risk::Forbidden {
            bad("a list tool cannot be forbidden".into());
        }
        let has_fields = !t.fields.is_empty() || !t.default_fields.is_empty();
        if has_fields && !t.list {
            bad("`fields`/`default_fields` only apply to list tools".into());
        }
        if let Some(f) = t
            .default_fields
            .iter()
            .find(|f| !t.fields.is_empty() && !t.fields.contains(f))
        {
            bad(format!("default field `{f}` is not in `fields`"));
        }
        for (name, p) in &t.params {
            if !is_snake(name) {
                bad(format!("param `{name}` must be snake_case"));
            }
            if crate::RESERVED_PARAMS.contains(&name.as_str()) {
                bad(format!("param `{name}` is reserved by the platform"));
            }
            if p.location == ParamIn::Path && !holes.contains(&name.as_str()) {
                bad(format!("path param `{name}` does not appear in `{path}`"));
            }
            if p.values.is_some() && p.kind != ParamType::Boolean {
                bad(format!("param `{name}`: `values` only applies to booleans"));
            }
            if p.choices.is_some() && p.kind != ParamType::String {
                bad(format!("param `{name}`: `enum` only applies to strings"));
            }
            if p.unix_time.is_some() && p.kind != ParamType::Date {
                bad(format!("param `{name}`: `unix_time` only applies to dates"));
            }
            if p.date_time.is_some() && p.kind != ParamType::Date {
                bad(format!("param `{name}`: `date_time` only applies to dates"));
            }
            if p.date_time.is_some() && p.unix_time.is_some() {
                bad(format!(
                    "param `{name}`: a date goes up either as `unix_time` or as `date_time`, not both"
                ));
            }
            for problem in array_problems(p) {
                bad(format!("param `{name}`: {problem}"));
            }
            for (field, f) in std::iter::once((name.as_str(), &**p))
                .chain(p.items.iter().flatten().map(|(n, f)| (n.as_str(), &**f)))
                .chain(p.item.as_deref().map(|f| ("item", f)))
            {
                if let Some(problem) = currency_problem(f) {
                    bad(format!("param `{name}`: `{field}`: {problem}"));
                }
            }
            if let (Some(lo), Some(hi)) = (p.min, p.max)
                && lo > hi
            {
                bad(format!("param `{name}`: min {lo} is above max {hi}"));
            }
            if p.location == ParamIn::Body && method == Method::Get {
                bad(format!("param `{name}`: a GET has no body"));
            }
        }
    }
    out
}

/// A `body` template: on a write, placing every body param exactly where it goes (so no
/// body param also has `as`).
fn check_body(t: &Tool, method: Method) -> Vec<String> {
    let Some(template) = &t.body else {
        return Vec::new();
    };
    if method == Method::Get {
        return vec!["`body` is for writes; a GET has no body".to_string()];
    }
    let mut out = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for (name, p) in t.params.iter().filter(|(_, p)| p.location == ParamIn::Body) {
        if p.upstream.is_some() {
            out.push(format!(
                "param `{name}`: `as` does not apply with `body`; the template places it"
            ));
        }
        names.insert(name.as_str());
    }
    out.extend(crate::body::template_problems("`body`", template, &names));
    out
}

/// A `currency` is an ISO 4217 code on a number.
fn currency_problem(p: &crate::model::Param) -> Option<&'static str> {
    let code = p.currency.as_deref()?;
    if !matches!(p.kind, ParamType::Number | ParamType::Integer) {
        return Some("`currency` only applies to numbers");
    }
    (code.len() != 3 || !code.bytes().all(|b| b.is_ascii_uppercase()))
        .then_some("`currency` is an ISO 4217 code like EUR")
}

/// An array param: body only, with `max_items` and exactly one of `items` (objects of plain
/// typed fields) or `item` (one plain typed value per element). No arrays nest, `in` and `as`
/// belong to the array, `enum` is for strings and `values` for booleans.
fn array_problems(p: &crate::model::Param) -> Vec<String> {
    let mut out = Vec::new();
    if p.kind != ParamType::Array {
        if p.items.is_some()
            || p.item.is_some()
            || p.max_items.is_some()
            || p.item_body.is_some()
            || p.totals.is_some()
        {
            out.push(
                "`items`, `item`, `item_body`, `totals` and `max_items` only apply to arrays"
                    .to_string(),
            );
        }
        return out;
    }
    if p.location != ParamIn::Body {
        out.push("an array goes in the body (`in: body`)".to_string());
    }
    if p.max_items.is_none_or(|n| n == 0) {
        out.push("an array needs `max_items` of at least 1".to_string());
    }
    match (&p.items, &p.item) {
        (Some(_), Some(_)) => out.push(
            "an array takes `items` (fields of objects) or `item` (one plain value), not both"
                .to_string(),
        ),
        (Some(fields), None) if !fields.is_empty() => {}
        (None, Some(_)) => {}
        _ => out.push(
            "an array needs `items` with at least one field, or `item` for plain values"
                .to_string(),
        ),
    }
    match (&p.item_body, &p.items) {
        (Some(template), Some(fields)) => {
            let names = fields.keys().map(crate::Text::as_str).collect();
            out.extend(crate::body::template_problems(
                "`item_body`",
                template,
                &names,
            ));
        }
        (Some(_), None) => out.push("`item_body` needs `items` (fields of objects)".to_string()),
        _ => {}
    }
    for (total, factors) in p.totals.iter().flatten() {
        if !is_snake(total) || factors.is_empty() {
            out.push(format!(
                "total `{total}` needs a snake_case name and at least one field"
            ));
        }
        for f in factors {
            let number = p
                .items
                .as_ref()
                .and_then(|i| i.get(f))
                .is_some_and(|f| matches!(f.kind, ParamType::Integer | ParamType::Number));
            if !number {
                out.push(format!(
                    "total `{total}`: `{f}` is not a number field of `items`"
                ));
            }
        }
    }
    for (field, f) in p.items.iter().flatten() {
        if !is_snake(field) {
            out.push(format!("item field `{field}` must be snake_case"));
        }
        out.extend(element_problems(&format!("item field `{field}`"), f));
    }
    if let Some(item) = &p.item {
        out.extend(element_problems("`item`", item));
        if item.required || item.default.is_some() {
            out.push(
                "`item`: `required` and `default` do not apply (every element is checked)"
                    .to_string(),
            );
        }
    }
    out
}

/// What an array's element (an item field, or the `item`) may not be.
fn element_problems(what: &str, f: &crate::model::Param) -> Vec<String> {
    let mut out = Vec::new();
    if f.kind == ParamType::Array
        || f.items.is_some()
        || f.item.is_some()
        || f.max_items.is_some()
        || f.item_body.is_some()
        || f.totals.is_some()
    {
        out.push(format!("{what}: arrays do not nest"));
    }
    if f.location != ParamIn::Query || f.upstream.is_some() {
        out.push(format!(
            "{what}: `in` and `as` do not apply inside an array"
        ));
    }
    if f.values.is_some() && f.kind != ParamType::Boolean {
        out.push(format!("{what}: `values` only applies to booleans"));
    }
    if f.choices.is_some() && f.kind != ParamType::String {
        out.push(format!("{what}: `enum` only applies to strings"));
    }
    if f.unix_time.is_some() || f.date_time.is_some() {
        out.push(format!(
            "{what}: `unix_time` and `date_time` do not apply inside an array"
        ));
    }
    out
}

/// The write-side fields: only on writes, an event named `<record>.<past tense>`, and a
/// `current` get tool taking the same path parameters.
fn check_write_contract(c: &Catalog, t: &Tool, method: Method, holes: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    let declared = t.effect.is_some()
        || t.audit_event.is_some()
        || !t.failure_modes.is_empty()
        || t.current.is_some()
        || !t.notifies.is_empty();
    if method.is_read_only() && declared {
        problems.push(
            "`effect`, `audit_event`, `failure_modes`, `current` and `notifies` are for writes"
                .into(),
        );
    }
    if let Some(bad) = t.notifies.iter().find(|p| {
        p.is_empty()
            || p.split('.')
                .any(|w| w.is_empty() || !w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    }) {
        problems.push(format!(
            "notifies `{bad}` must be a dotted field path (`attendee.email`, `guests`)"
        ));
    }
    if let Some(event) = &t.audit_event {
        let ok = event.split_once('.').is_some_and(|(record, what)| {
            [record, what].iter().all(|w| {
                w.starts_with(|ch: char| ch.is_ascii_lowercase())
                    && w.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_')
            })
        });
        if !ok {
            problems.push(format!(
                "audit_event `{event}` must be `<record>.<past tense>` (`invoice.delivered`)"
            ));
        }
    }
    if let Some(name) = &t.current {
        let get = c.tools.iter().find(|g| &g.name == name);
        match get.and_then(|g| g.http()) {
            Some((Method::Get, path)) => {
                let mut theirs = placeholders(path);
                let mut ours = holes.to_vec();
                theirs.sort_unstable();
                ours.sort_unstable();
                if theirs != ours {
                    problems.push(format!(
                        "current `{name}` takes the path parameters {theirs:?}, this tool {ours:?}"
                    ));
                }
            }
            _ => problems.push(format!("current `{name}` is no get tool of this catalog")),
        }
    }
    problems
}

/// An aggregation references list tools of its own catalog and earlier measures only.
/// A resource template names this connector's scheme and exactly the tool's path parameters,
/// on a get tool that reads one record.
fn check_resource(c: &Catalog, t: &crate::model::Tool, template: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let prefix = format!("{}://", c.connector);
    if !template.starts_with(&prefix) {
        problems.push(format!("resource `{template}` must start with `{prefix}`"));
    }
    if t.get.is_none() || t.list || t.raw {
        problems
            .push("a resource is a get tool's one record (not a list, raw or write tool)".into());
    }
    let wanted: BTreeSet<&str> = t
        .params
        .iter()
        .filter(|(_, p)| p.location == crate::model::ParamIn::Path)
        .map(|(n, _)| n.as_str())
        .collect();
    let named: BTreeSet<&str> = placeholders(template).into_iter().collect();
    // A tool without path parameters has one record: a fixed URI (`test://static-text`).
    if named != wanted {
        problems.push(format!(
            "resource `{template}` must name exactly the path parameters ({})",
            wanted.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    problems
}

fn check_aggregate(c: &Catalog, agg: &crate::model::Aggregate) -> Vec<String> {
    let mut out = Vec::new();
    if agg.sources.is_empty() || agg.result.is_empty() {
        out.push("aggregate needs `sources` and `result`".into());
    }
    for (name, source) in &agg.sources {
        match c.tools.iter().find(|t| t.name == source.tool) {
            Some(t) if t.list && t.risk != Risk::Forbidden => {
                for arg in source.args.keys() {
                    if !t.params.contains_key(arg) {
                        out.push(format!(
                            "source `{name}`: `{}` has no param `{arg}`",
                            t.name
                        ));
                    }
                }
            }
            _ => out.push(format!(
                "source `{name}`: `{}` is not a list tool of this catalog",
                source.tool
            )),
        }
    }
    let source_of = |reference: &str| reference.split('.').next().unwrap_or("").to_string();
    let mut earlier: Vec<&str> = Vec::new();
    for m in &agg.result {
        let kinds = [
            m.count.is_some(),
            m.sum.is_some(),
            m.difference.is_some(),
            m.top.is_some(),
            m.items.is_some(),
            m.days.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            out.push(format!(
                "measure `{}` needs exactly one of count, sum, difference, top, items, days",
                m.name
            ));
        }
        let mut sources = Vec::new();
        if let Some(s) = &m.count {
            sources.push(s.to_string());
        }
        if let Some(s) = &m.sum {
            sources.push(source_of(s));
            if !s.contains('.') {
                out.push(format!("measure `{}`: sum needs `source.field`", m.name));
            }
        }
        if let Some(t) = &m.top {
            sources.push(t.of.to_string());
        }
        if let Some(i) = &m.items {
            sources.push(i.of.to_string());
        }
        if let Some(d) = &m.days {
            sources.push(d.of.to_string());
            out.extend(check_days(&m.name, d));
        }
        for s in sources {
            if !agg.sources.contains_key(s.as_str()) {
                out.push(format!("measure `{}`: unknown source `{s}`", m.name));
            }
        }
        if let Some(d) = &m.difference
            && (d.len() != 2 || d.iter().any(|x| !earlier.contains(&x.as_str())))
        {
            out.push(format!(
                "measure `{}`: difference takes two earlier measures",
                m.name
            ));
        }
        earlier.push(&m.name);
    }
    out
}

/// A `days` measure: 1 to 31 days; `from`, `zone` and `hours` literal and well-formed, or one
/// `{param}` placeholder filled at call time (and checked then).
fn check_days(name: &str, d: &crate::Days) -> Vec<String> {
    let mut out = Vec::new();
    let literal = |s: &str| !s.contains('{');
    if !(1..=31).contains(&d.days) {
        out.push(format!("measure `{name}`: days takes 1 to 31 days"));
    }
    let date_shaped = |s: &str| {
        s.len() == 10
            && s.char_indices().all(|(i, c)| {
                if i == 4 || i == 7 {
                    c == '-'
                } else {
                    c.is_ascii_digit()
                }
            })
    };
    if literal(&d.from) && !date_shaped(&d.from) {
        out.push(format!(
            "measure `{name}`: `from` is a date YYYY-MM-DD or a {{param}}"
        ));
    }
    let zone_shaped = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'))
    };
    if literal(&d.zone) && !zone_shaped(&d.zone) {
        out.push(format!(
            "measure `{name}`: `zone` `{}` is no IANA time zone",
            d.zone
        ));
    }
    if let Some(w) = d.weekdays.as_deref().filter(|w| literal(w))
        && crate::weekdays(w).is_none()
    {
        out.push(format!(
            "measure `{name}`: `weekdays` is Mon-Fri or Mon,Tue,Thu, or a {{param}}"
        ));
    }
    if literal(&d.hours) && crate::working_hours(&d.hours).is_none() {
        out.push(format!(
            "measure `{name}`: `hours` is HH:MM-HH:MM (09:00-17:00) or a {{param}}"
        ));
    }
    out
}

fn check_unique(catalogs: &[Catalog]) -> Result<(), LoadError> {
    let mut connectors = BTreeSet::new();
    let mut tools = BTreeSet::new();
    let mut prompts = BTreeSet::new();
    for c in catalogs {
        if !connectors.insert(&c.connector) {
            return Err(LoadError::Invalid {
                file: c.connector.to_string(),
                line: 1,
                problem: format!("connector `{}` is declared twice", c.connector),
            });
        }
        for p in &c.prompts {
            if !prompts.insert(&p.name) {
                return Err(LoadError::Invalid {
                    file: c.connector.to_string(),
                    line: 1,
                    problem: format!("prompt `{}` is declared by two connectors", p.name),
                });
            }
        }
        for t in &c.tools {
            if !tools.insert(&t.name) {
                return Err(LoadError::Invalid {
                    file: c.connector.to_string(),
                    line: 1,
                    problem: format!("tool `{}` is declared by two connectors", t.name),
                });
            }
        }
    }
    if let Some((connector, problem)) = crate::names::problems(catalogs) {
        return Err(LoadError::Invalid {
            file: connector,
            line: 1,
            problem,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
connector: demo
base_url: "https://{host}/api"
secrets: [host, token]
auth: { bearer: token }
list_envelope: { items: entries, total: total_entries, more: has_more }
tools:
  - name: demo_invoices_list
    risk: low
    list: true
    description: 'Lists invoices. Use it for "which invoices". Example {"page": 1}'
    get: /invoices
  - name: demo_invoice_get
    risk: low
    description: 'One invoice. Use it when you have an id. Example {"id": 1}'
    get: /invoices/{id}
    params:
      id: { type: integer, in: path, required: true, min: 1 }
"#;

    #[test]
    fn good_catalog_loads() {
        let c = parse("demo.yaml", GOOD).unwrap();
        assert_eq!(c.tools.len(), 2);
        assert_eq!(c.timeout_ms, 10_000);
        assert!(c.tools[0].core);
    }

    #[test]
    fn a_packed_catalog_loads_as_it_was_and_anything_else_names_its_file() {
        let loaded = parse("demo.yaml", GOOD).unwrap();
        let (model, strings) = pack(&loaded).unwrap();
        // The embedded table lives as long as the program; so does this one.
        let strings: &'static str = strings.leak();
        assert!(strings.contains("Lists invoices.") && strings.matches("demo_").count() == 2);
        assert_eq!(
            load_packed(&[("demo.yaml", &model, strings)]).unwrap(),
            vec![loaded]
        );

        let not_a_model = rmp_serde::to_vec_named(&serde_json::json!({"connector": true})).unwrap();
        let cut = &model[..model.len() / 2];
        let bad_models = [&not_a_model[..], cut, &b"\xc1 not MessagePack"[..], &[]];
        let bad = bad_models.iter().map(|m| (*m, strings));
        // The right model with a table that is not its own: spans past the table's end.
        let other = bad.chain([(&model[..], ""), (&model[..], &strings[1..])]);
        for (model, strings) in other {
            let err = load_packed(&[("demo.yaml", model, strings)]).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("demo.yaml:1: not a packed catalog"),
                "{err}"
            );
        }
    }

    #[test]
    fn unknown_key_names_file_and_line() {
        let text = GOOD.replace("    list: true\n", "    list: true\n    lsit: true\n");
        let err = parse("demo.yaml", &text).unwrap_err().to_string();
        assert!(err.starts_with("demo.yaml:11: "), "{err}");
        assert!(err.contains("lsit"), "{err}");
    }

    #[test]
    fn path_hole_without_param_names_the_tool_line() {
        let text = GOOD.replace("/invoices/{id}", "/invoices/{invoice_id}");
        let err = parse("demo.yaml", &text).unwrap_err().to_string();
        assert!(
            err.starts_with("demo.yaml:13: tool `demo_invoice_get`"),
            "{err}"
        );
        assert!(err.contains("{invoice_id}"), "{err}");
    }

    #[test]
    fn a_date_goes_up_one_way_and_only_a_date_takes_a_zone_for_it() {
        let with = |param: &str| {
            GOOD.replace(
                "    get: /invoices\n",
                &format!("    get: /invoices\n    params:\n      since: {param}\n"),
            )
        };
        assert!(
            parse(
                "demo.yaml",
                &with("{ type: date, date_time: Europe/Berlin }")
            )
            .is_ok()
        );
        let both = with("{ type: date, date_time: Europe/Berlin, unix_time: Europe/Berlin }");
        let err = parse("demo.yaml", &both).unwrap_err().to_string();
        assert!(
            err.contains("either as `unix_time` or as `date_time`"),
            "{err}"
        );
        let text = with("{ type: string, date_time: Europe/Berlin }");
        let err = parse("demo.yaml", &text).unwrap_err().to_string();
        assert!(err.contains("`date_time` only applies to dates"), "{err}");
    }

    #[test]
    fn a_currency_is_an_iso_code_on_a_number() {
        let with = |param: &str| {
            GOOD.replace(
                "    get: /invoices\n",
                &format!("    get: /invoices\n    params:\n      amount: {param}\n"),
            )
        };
        assert!(
            parse(
                "demo.yaml",
                &with("{ type: number, max: 9, currency: EUR }")
            )
            .is_ok()
        );
        for (param, problem) in [
            (
                "{ type: string, max_length: 9, currency: EUR }",
                "only applies to numbers",
            ),
            ("{ type: number, max: 9, currency: euro }", "ISO 4217"),
        ] {
            let err = parse("demo.yaml", &with(param)).unwrap_err().to_string();
            assert!(err.contains(problem), "{param}: {err}");
        }
    }

    #[test]
    fn path_traversal_in_template_is_rejected() {
        let text = GOOD.replace("get: /invoices\n", "get: /invoices/../admin\n");
        let err = parse("demo.yaml", &text).unwrap_err().to_string();
        assert!(err.contains("without `..`"), "{err}");
    }

    #[test]
    fn hints_may_not_quote_the_upstream_message() {
        let text = GOOD.replace(
            "tools:",
            "hints: { invalid_input: \"Refused: {message}\" }\ntools:",
        );
        let err = parse("demo.yaml", &text).unwrap_err().to_string();
        assert!(err.contains("upstream_message"), "{err}");
    }

    #[test]
    fn a_resource_template_names_the_connector_and_exactly_the_path_parameters() {
        let with = |r: &str| {
            GOOD.replace(
                "    get: /invoices/{id}\n",
                &format!("    get: /invoices/{{id}}\n    resource: \"{r}\"\n"),
            )
        };
        assert!(parse("demo.yaml", &with("demo://invoices/{id}")).is_ok());
        for (bad, says) in [
            ("other://invoices/{id}", "must start with `demo://`"),
            ("demo://invoices", "exactly the path parameters (id)"),
            (
                "demo://invoices/{number}",
                "exactly the path parameters (id)",
            ),
        ] {
            let err = parse("demo.yaml", &with(bad)).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        let on_list = GOOD.replace(
            "    get: /invoices\n",
            "    get: /invoices\n    resource: \"demo://invoices/{id}\"\n",
        );
        let err = parse("demo.yaml", &on_list).unwrap_err().to_string();
        assert!(err.contains("one record"), "{err}");
    }

    #[test]
    fn a_binary_answer_is_a_get_tools_document_and_a_link_needs_its_resource() {
        let pdf = "  - name: demo_invoice_pdf_get
    risk: low
    description: 'The invoice PDF. Use it to hand the document on. Example {\"id\": 1}'
    get: /invoices/{id}/pdf
    params:
      id: { type: integer, in: path, required: true, min: 1 }
";
        let with = |extra: &str| format!("{GOOD}{pdf}{extra}");
        let ok = with(
            "    resource: \"demo://invoices/{id}/pdf\"\n    answer: { binary: { mime: [application/pdf], max_bytes: 1000, as: link } }\n",
        );
        assert!(
            parse("demo.yaml", &ok).is_ok(),
            "{:?}",
            parse("demo.yaml", &ok).err()
        );
        for (extra, says) in [
            (
                "    answer: { binary: { mime: [application/pdf], max_bytes: 1000, as: link } }\n",
                "needs the tool's `resource` template",
            ),
            (
                "    answer: { binary: { mime: [PDF], max_bytes: 1000 } }\n",
                "no lower-case `type/subtype`",
            ),
            (
                "    answer: { binary: { mime: [application/pdf], max_bytes: 0 } }\n",
                "max_bytes must be 1 to",
            ),
            (
                "    answer: { binary: { mime: [application/pdf], max_bytes: 10, as: inline } }\n",
                "unknown variant `inline`",
            ),
            ("    answer: {}\n", "one of `binary` and `inline`"),
            (
                "    answer: { inline: [{ pointer: image, mime: image/png, max_bytes: 10 }] }\n",
                "must start with `/`",
            ),
        ] {
            let err = parse("demo.yaml", &with(extra)).unwrap_err().to_string();
            assert!(err.contains(says), "{extra}: {err}");
        }
        let on_list = GOOD.replace(
            "    get: /invoices\n",
            "    get: /invoices\n    answer: { binary: { mime: [application/pdf], max_bytes: 10 } }\n",
        );
        let err = parse("demo.yaml", &on_list).unwrap_err().to_string();
        assert!(err.contains("get tool's one document"), "{err}");
    }

    #[test]
    fn item_links_fill_a_record_template_of_the_catalog_from_listed_fields() {
        let with = |links: &str| {
            GOOD.replace(
                "    get: /invoices\n",
                &format!("    get: /invoices\n    fields: [id, name]\n    links: {links}\n"),
            )
            .replace(
                "    get: /invoices/{id}\n",
                "    get: /invoices/{id}\n    resource: \"demo://invoices/{id}\"\n",
            )
        };
        assert!(
            parse(
                "demo.yaml",
                &with("{ uri: \"demo://invoices/{id}\", title: name }")
            )
            .is_ok()
        );
        for (links, says) in [
            ("{ uri: \"demo://bills/{id}\" }", "no `resource` template"),
            (
                "{ uri: \"demo://invoices/{id}\", title: subject }",
                "`subject`, which is not in",
            ),
        ] {
            let err = parse("demo.yaml", &with(links)).unwrap_err().to_string();
            assert!(err.contains(says), "{links}: {err}");
        }
    }

    #[test]
    fn write_fields_belong_to_writes_and_current_names_a_matching_get() {
        let write = |extra: &str| {
            format!(
                "{GOOD}  - name: demo_invoice_update
    risk: high
    description: 'Changes an invoice. Use it to fix its title. Example {{\"id\": 1}}'
    put: /invoices/{{id}}
    params:
      id: {{ type: integer, in: path, required: true, min: 1 }}
{extra}"
            )
        };
        let ok = write(
            "    effect: financial\n    audit_event: invoice.updated\n    current: demo_invoice_get\n    failure_modes: [\"422: bad title\"]\n",
        );
        let c = parse("demo.yaml", &ok).unwrap();
        assert_eq!(c.tools[2].effect, Some(crate::model::Effect::Financial));
        for (extra, says) in [
            (
                "    audit_event: Invoice.Updated\n",
                "<record>.<past tense>",
            ),
            (
                "    current: demo_invoices_list\n",
                "takes the path parameters",
            ),
            ("    current: demo_invoice_nope\n", "no get tool"),
        ] {
            let err = parse("demo.yaml", &write(extra)).unwrap_err().to_string();
            assert!(err.contains(says), "{extra}: {err}");
        }
        let read = GOOD.replace(
            "    get: /invoices/{id}\n",
            "    get: /invoices/{id}\n    effect: change\n",
        );
        let err = parse("demo.yaml", &read).unwrap_err().to_string();
        assert!(err.contains("are for writes"), "{err}");
    }

    #[test]
    fn base_url_placeholder_must_be_a_secret() {
        let text = GOOD.replace("secrets: [host, token]", "secrets: [token]");
        let err = parse("demo.yaml", &text).unwrap_err().to_string();
        assert!(err.contains("{host}"), "{err}");
    }

    #[test]
    fn reserved_param_names_are_rejected() {
        let text = GOOD.replace("      id: {", "      page: { type: integer }\n      id: {");
        let err = parse("demo.yaml", &text).unwrap_err().to_string();
        assert!(err.contains("`page` is reserved"), "{err}");
    }

    #[test]
    fn quota_probe_needs_a_fixed_path_the_remaining_header_and_a_window() {
        let with = |quota: &str| {
            let text = GOOD.replace("tools:\n", &format!("quota: {quota}\ntools:\n"));
            parse("demo.yaml", &text).map_err(|e| e.to_string())
        };
        let good = "{ remaining: x-left, window: { day: UTC }, probe: { get: /info } }";
        let probe = with(good).unwrap().quota.unwrap().probe.unwrap();
        assert_eq!((probe.get.as_str(), probe.quiet_hours), ("/info", 6));
        let family = "{ headers: x_ratelimit, bucket: long, reset: epoch, window: { day: UTC }, \
                      probe: { get: /info } }";
        assert!(
            with(family).is_ok(),
            "a family reports the remaining requests to a probe"
        );
        for (quota, problem) in [
            ("{ headers: ietf, remaining: x-left }", "declare one"),
            (
                "{ remaining: x-left, bucket: long }",
                "declare quota.headers",
            ),
            (
                "{ headers: ietf, reset: epoch }",
                "needs `headers: x_ratelimit`",
            ),
            ("{ headers: x_ratelimit, bucket: 'a b' }", "bucket"),
            ("{ headers: retry_after }", "unknown variant"),
            (
                "{ remaining: x-left, window: { day: UTC }, probe: { get: info } }",
                "fixed path",
            ),
            (
                "{ remaining: x, window: { day: UTC }, probe: { get: '/i/{id}' } }",
                "fixed path",
            ),
            (
                "{ consumed: x-used, window: { day: UTC }, probe: { get: /info } }",
                "quota.remaining",
            ),
            (
                "{ remaining: x-left, probe: { get: /info } }",
                "quota.window",
            ),
            (
                "{ remaining: x, window: { day: UTC }, probe: { get: /i, quiet_hours: 0 } }",
                "at least 1",
            ),
        ] {
            let err = with(quota).unwrap_err();
            assert!(err.contains(problem), "{quota}: {err}");
        }
    }

    #[test]
    fn body_templates_place_every_body_param_once_or_more() {
        let with = |body: &str, params: &str| {
            let text = GOOD
                .replace(
                    "get: /invoices/{id}",
                    &format!("post: /invoices/{{id}}\n    body: {body}"),
                )
                .replace("      id: {", &format!("{params}      id: {{"));
            parse("demo.yaml", &text).map_err(|e| e.to_string())
        };
        let positions = "      positions: { type: array, in: body, max_items: 9, items: { qty: { type: integer, min: 1, max: 99 }, unit_id: { type: integer, min: 1, max: 99 } }, item_body: { quantity: \"{qty}\", unity: { id: \"{unit_id}\", objectName: Unity } } }\n";
        let contact = "      contact_id: { type: integer, in: body, min: 1, max: 99 }\n";
        let body = "{ invoice: { objectName: Invoice, contact: { id: \"{contact_id}\", objectName: Contact } }, invoicePosSave: \"{positions}\" }";
        let c = with(body, &format!("{contact}{positions}")).unwrap();
        assert_eq!(
            c.tools[1].body.as_ref().unwrap()["invoice"]["objectName"],
            "Invoice"
        );
        for (body, params, problem) in [
            (
                body,
                contact.to_string(),
                "`body` uses {positions}, which is none of contact_id",
            ),
            (
                "{ invoice: { n: \"RE-{contact_id}\" } }",
                contact.to_string(),
                "not one whole placeholder",
            ),
            (
                "{ a: 1 }",
                contact.to_string(),
                "`body` does not place `contact_id`",
            ),
            ("[1]", contact.to_string(), "`body` must be a JSON object"),
            (
                "{ c: \"{contact_id}\" }",
                contact.replace("in: body,", "in: body, as: x,"),
                "`as` does not apply with `body`",
            ),
            (
                body,
                format!(
                    "{contact}{}",
                    positions.replace("\"{unit_id}\"", "\"{unit}\"")
                ),
                "`item_body` uses {unit}, which is none of qty, unit_id",
            ),
            (
                "{ c: \"{contact_id}\" }",
                contact.replace("min: 1,", "min: 1, item_body: { a: 1 },"),
                "only apply to arrays",
            ),
        ] {
            let err = with(body, &params).unwrap_err();
            assert!(err.contains(problem), "{body} / {params}: {err}");
        }
        let totals = |t: &str| positions.replace("item_body:", &format!("totals: {t}, item_body:"));
        assert!(
            with(
                body,
                &format!("{contact}{}", totals("{ n: [qty, unit_id] }"))
            )
            .is_ok()
        );
        let err = with(body, &format!("{contact}{}", totals("{ n: [qty, price] }"))).unwrap_err();
        assert!(
            err.contains("`price` is not a number field of `items`"),
            "{err}"
        );
        let get = GOOD.replace(
            "get: /invoices/{id}",
            "get: /invoices/{id}\n    body: { a: 1 }",
        );
        let err = parse("demo.yaml", &get).unwrap_err().to_string();
        assert!(err.contains("a GET has no body"), "{err}");
    }

    #[test]
    fn array_params_are_bounded_body_lists_of_flat_typed_fields() {
        let with = |param: &str| {
            let text = GOOD
                .replace("get: /invoices/{id}", "post: /invoices/{id}")
                .replace(
                    "      id: {",
                    &format!("      line_items: {param}\n      id: {{"),
                );
            parse("demo.yaml", &text).map_err(|e| e.to_string())
        };
        let good = "{ type: array, in: body, max_items: 50, items: { name: { type: string, required: true, max_length: 9 } } }";
        let c = with(good).unwrap();
        let p = &c.tools[1].params["line_items"];
        assert_eq!((p.kind, p.max_items), (ParamType::Array, Some(50)));
        assert!(p.items.as_ref().unwrap()["name"].required);
        for (param, problem) in [
            (
                "{ type: array, max_items: 5, items: { n: { type: string, max_length: 9 } } }",
                "goes in the body",
            ),
            (
                "{ type: array, in: body, items: { n: { type: string, max_length: 9 } } }",
                "needs `max_items`",
            ),
            ("{ type: array, in: body, max_items: 5 }", "needs `items`"),
            (
                "{ type: array, in: body, max_items: 5, items: { n: { type: array, in: body, max_items: 1, items: { m: { type: date } } } } }",
                "arrays do not nest",
            ),
            (
                "{ type: array, in: body, max_items: 5, items: { n: { type: date, as: x } } }",
                "do not apply inside an array",
            ),
            (
                "{ type: string, in: body, max_length: 5, max_items: 5 }",
                "only apply to arrays",
            ),
        ] {
            let err = with(param).unwrap_err();
            assert!(err.contains(problem), "{param}: {err}");
        }
    }

    #[test]
    fn arrays_of_plain_values_take_one_scalar_item() {
        let with = |param: &str| {
            let text = GOOD
                .replace("get: /invoices/{id}", "post: /invoices/{id}")
                .replace(
                    "      id: {",
                    &format!("      persons: {param}\n      id: {{"),
                );
            parse("demo.yaml", &text).map_err(|e| e.to_string())
        };
        let c = with(
            "{ type: array, in: body, max_items: 20, item: { type: string, max_length: 200 } }",
        )
        .unwrap();
        let p = &c.tools[1].params["persons"];
        let item = p.item.as_deref().unwrap();
        assert_eq!((item.kind, item.max_length), (ParamType::String, Some(200)));
        assert!(p.items.is_none());
        for good in [
            "{ type: array, in: body, max_items: 3, item: { type: integer, min: 1, max: 9 } }",
            "{ type: array, in: body, max_items: 3, item: { type: string, enum: [a, b] } }",
            "{ type: array, in: body, max_items: 3, item: { type: date } }",
        ] {
            assert!(with(good).is_ok(), "{good}: {:?}", with(good));
        }
        for (param, problem) in [
            (
                "{ type: array, in: body, max_items: 5, item: { type: string, max_length: 9 }, items: { n: { type: date } } }",
                "`items` (fields of objects) or `item` (one plain value), not both",
            ),
            (
                "{ type: array, in: body, max_items: 5, item: { type: array, max_items: 2, item: { type: date } } }",
                "param `persons`: `item`: arrays do not nest",
            ),
            (
                "{ type: array, in: body, max_items: 5, item: { type: string, max_length: 9, in: body } }",
                "`item`: `in` and `as` do not apply inside an array",
            ),
            (
                "{ type: array, in: body, max_items: 5, item: { type: string, max_length: 9, as: name } }",
                "`item`: `in` and `as` do not apply inside an array",
            ),
            (
                "{ type: array, in: body, max_items: 5, item: { type: integer, enum: [a] } }",
                "`item`: `enum` only applies to strings",
            ),
            (
                "{ type: array, in: body, max_items: 5, item: { type: string, required: true } }",
                "`item`: `required` and `default` do not apply",
            ),
            (
                "{ type: array, in: body, item: { type: string, max_length: 9 } }",
                "needs `max_items`",
            ),
            (
                "{ type: array, max_items: 5, item: { type: string, max_length: 9 } }",
                "goes in the body",
            ),
            (
                "{ type: string, in: body, max_length: 5, item: { type: string } }",
                "only apply to arrays",
            ),
            (
                "{ type: array, in: body, max_items: 5, item: { type: string, lenght: 9 } }",
                "unknown field `lenght`",
            ),
        ] {
            let err = with(param).unwrap_err();
            assert!(err.contains(problem), "{param}: {err}");
        }
    }

    #[test]
    fn duplicate_tools_across_catalogs_are_rejected() {
        // `demo_eu_invoices_list` is a name both `demo` and `demo_eu` may declare.
        let one = GOOD.replace("demo_invoices_list", "demo_eu_invoices_list");
        let other = one
            .replace("connector: demo", "connector: demo_eu")
            .replace("demo_invoice_get", "demo_eu_invoice_get");
        let err = load_sources(&[("a.yaml", &one), ("b.yaml", &other)]).unwrap_err();
        assert!(err.to_string().contains("declared by two connectors"));
    }

    #[test]
    fn a_name_inside_another_connectors_space_refuses_the_set() {
        // `demo_eu_invoices_list` is `demo_eu`'s by the longest prefix, which a remote `demo_eu`
        // could list as `invoices_list` at run time: declared by `demo`, the set is refused.
        let one = GOOD.replace("demo_invoices_list", "demo_eu_invoices_list");
        let remote = "connector: demo_eu\nmcp:\n  url: https://x.test/mcp\n  allow: [\"*\"]\n";
        let err = load_sources(&[("a.yaml", &one), ("b.yaml", remote)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "tool of connector `demo`: `demo_eu_invoices_list` begins with `demo_eu_`"
            ),
            "{err}"
        );
        let overlay = format!("{remote}  overlays:\n    x: {{ name: demo_eu_b_x }}\n");
        let nested = "connector: demo_eu_b\nmcp:\n  url: https://x.test/mcp\n  allow: [\"*\"]\n";
        let err = load_sources(&[("b.yaml", &overlay), ("c.yaml", nested)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("belongs to connector `demo_eu_b`"), "{err}");
        assert!(load_sources(&[("a.yaml", GOOD), ("b.yaml", remote), ("c.yaml", nested)]).is_ok());
    }

    #[test]
    fn a_tool_name_begins_with_its_connector_and_fits_clients() {
        let unprefixed = GOOD.replace("demo_invoice_get", "invoice_get");
        let err = parse("demo.yaml", &unprefixed).unwrap_err().to_string();
        assert!(
            err.contains("tool `invoice_get`: name must be `demo_<resource>_<verb>`"),
            "{err}"
        );
        let long = format!("demo_{}_get", "x".repeat(60));
        let err = parse("demo.yaml", &GOOD.replace("demo_invoice_get", &long))
            .unwrap_err()
            .to_string();
        assert!(err.contains("clients accept at most 64"), "{err}");
    }

    #[test]
    fn tool_names_are_resource_and_verb() {
        assert!(is_tool_name("invoices_list") && is_tool_name("month_close_get"));
        for bad in [
            "invoices",
            "invoices_",
            "a__b",
            "_list",
            "Invoices_list",
            "1a_list",
        ] {
            assert!(!is_tool_name(bad), "{bad}");
        }
    }
}
