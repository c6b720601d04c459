//! Reading the document once: size limit, JSON or YAML, the version check, and `$ref` lookups.
//! A JSON document's `paths` stay unparsed text (borrowed from the input) and are parsed one
//! path item at a time, so memory holds the components and one path item, not the whole tree
//! (a `serde_json::Value` costs 10–15 times its text). YAML is parsed whole.

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use crate::{ImportError, Limits};

/// An operation of the document, borrowed from it.
pub(crate) struct Op<'a> {
    pub(crate) method: catalog::Method,
    pub(crate) path: &'a str,
    pub(crate) at: String,
    pub(crate) op: &'a Value,
    pub(crate) item: &'a Value,
}

/// The parsed document and what identifies it.
pub(crate) struct Spec<'t> {
    /// Everything but the streamed `paths` (components, info, servers, security).
    pub(crate) root: Value,
    /// The path items, still text (JSON, or block-style YAML), when not in `root`.
    raw_paths: Raw<'t>,
    pub(crate) sha256: String,
    max_flow_depth: usize,
    pub(crate) title: Option<String>,
    pub(crate) version: Option<String>,
}

/// Path items not parsed yet.
enum Raw<'t> {
    /// All in `root`.
    None,
    Json(BTreeMap<String, &'t RawValue>),
    /// Each with its 0-based first line in the document.
    Yaml(Vec<(String, usize, &'t str)>),
}

/// Parses YAML once its flow nesting is known to be within the limit (see `flow_depth`).
fn yaml<T: serde::de::DeserializeOwned>(
    text: &str,
    max_flow_depth: usize,
) -> Result<T, ImportError> {
    crate::flow_depth::check(text, max_flow_depth).map_err(|at| ImportError::TooDeep {
        line: at.line,
        column: at.column,
        limit: max_flow_depth,
    })?;
    yaml_serde::from_str(text).map_err(yaml_error)
}

/// A `TooDeep` found in a piece of the document, placed in the whole.
fn placed(e: ImportError, line_in_document: impl Fn(usize) -> usize) -> ImportError {
    match e {
        ImportError::TooDeep {
            line,
            column,
            limit,
        } => ImportError::TooDeep {
            line: line_in_document(line),
            column,
            limit,
        },
        other => other,
    }
}

fn yaml_error(e: yaml_serde::Error) -> ImportError {
    let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
    ImportError::Syntax {
        line,
        column,
        message: e.to_string(),
    }
}

/// Parses `text`, refusing what is too large, not OpenAPI 3.x, or Swagger 2.0.
pub(crate) fn read<'t>(text: &'t str, limits: &Limits) -> Result<Spec<'t>, ImportError> {
    if text.len() > limits.max_bytes {
        return Err(ImportError::TooLarge {
            size: text.len(),
            limit: limits.max_bytes,
        });
    }
    let sha256 = hex(&Sha256::digest(text.as_bytes()));
    let mut raw_paths = Raw::None;
    let root: Value = if text.trim_start().starts_with('{') {
        // One pass checks the syntax of everything; `paths` stay text.
        let top: BTreeMap<String, &RawValue> =
            serde_json::from_str(text).map_err(|e| ImportError::Syntax {
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })?;
        let mut root = serde_json::Map::new();
        for (key, raw) in top {
            if key == "paths" {
                raw_paths = Raw::Json(
                    serde_json::from_str(raw.get())
                        .map_err(|_| ImportError::invalid("#/paths", "must be an object"))?,
                );
            } else {
                let value = serde_json::from_str(raw.get()).map_err(|e| {
                    ImportError::invalid(&format!("#/{}", escape(&key)), e.to_string())
                })?;
                root.insert(key, value);
            }
        }
        Value::Object(root)
    } else if let Some(cut) = crate::chunks::cut(text, limits.max_flow_depth) {
        // Each piece is checked just before it is parsed: alone, a path item may read
        // differently than in the whole (a line of a quoted scalar starting a chunk).
        let root = yaml(&cut.rest, limits.max_flow_depth)
            .map_err(|e| placed(e, |line| cut.line_of_rest(line)))?;
        raw_paths = Raw::Yaml(cut.items);
        root
    } else {
        yaml(text, limits.max_flow_depth)?
    };
    let Some(top) = root.as_object() else {
        return Err(ImportError::NotOpenApi {
            at: "#".into(),
            problem: "the document is not an object".into(),
        });
    };
    if let Some(v) = top.get("swagger") {
        return Err(ImportError::Swagger { version: scalar(v) });
    }
    match top.get("openapi") {
        Some(Value::String(v)) if v.starts_with("3.0") || v.starts_with("3.1") => {}
        Some(v) => {
            return Err(ImportError::NotOpenApi {
                at: "#/openapi".into(),
                problem: format!("version `{}` is not OpenAPI 3.0 or 3.1", scalar(v)),
            });
        }
        None => {
            return Err(ImportError::NotOpenApi {
                at: "#/openapi".into(),
                problem: "missing: not an OpenAPI 3.x document".into(),
            });
        }
    }
    match top.get("paths") {
        Some(Value::Object(_)) | None => {}
        Some(_) => return Err(ImportError::invalid("#/paths", "must be an object")),
    }
    let info = top.get("info");
    let field = |name: &str| info.and_then(|i| i.get(name)).map(scalar);
    Ok(Spec {
        title: field("title"),
        version: field("version"),
        sha256,
        max_flow_depth: limits.max_flow_depth,
        raw_paths,
        root,
    })
}

impl Spec<'_> {
    /// Calls `f` with each path item in turn (its index, path and value): a path item still in
    /// text is parsed just before and dropped just after, and one `want` (given its index and
    /// path) refuses is not parsed at all. The order is the same on every call.
    pub(crate) fn for_each_path(
        &self,
        want: impl Fn(usize, &str) -> bool,
        mut f: impl FnMut(usize, &str, &Value) -> Result<(), ImportError>,
    ) -> Result<(), ImportError> {
        match &self.raw_paths {
            Raw::Json(raw) => {
                let wanted = raw.iter().enumerate().filter(|(k, (p, _))| want(*k, p));
                for (k, (path, text)) in wanted {
                    let item: Value = serde_json::from_str(text.get()).map_err(|e| {
                        ImportError::invalid(&format!("#/paths/{}", escape(path)), e.to_string())
                    })?;
                    f(k, path, &item)?;
                }
            }
            Raw::Yaml(chunks) => {
                let wanted = chunks.iter().enumerate();
                for (k, (path, first, text)) in wanted.filter(|(k, (p, _, _))| want(*k, p)) {
                    let one: BTreeMap<String, Value> = yaml(text, self.max_flow_depth)
                        .map_err(|e| match placed(e, |line| line + first) {
                            ImportError::Syntax { message, .. } => ImportError::invalid(
                                &format!("#/paths/{}", escape(path)),
                                format!("{message} (an alias to an anchor elsewhere? convert the document to JSON)"),
                            ),
                            other => other,
                        })?;
                    for (_, item) in one {
                        f(k, path, &item)?;
                    }
                }
            }
            Raw::None => {
                if let Some(Value::Object(paths)) = self.root.get("paths") {
                    let wanted = paths.iter().enumerate().filter(|(k, (p, _))| want(*k, p));
                    for (k, (path, item)) in wanted {
                        f(k, path, item)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A scalar as text (`2.0` and `"2.0"` alike).
pub(crate) fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One JSON pointer token (`/` and `~` escaped).
pub(crate) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// What a `$ref` led to.
pub(crate) enum Deref<'a> {
    /// The target.
    Found(&'a Value),
    /// A reference outside this document (`other.yaml#/…`): a person has to inline it.
    External(&'a str),
}

/// Follows `$ref` chains from `v` (at `at`) within the document, at most `max_hops` deep.
/// A dangling or looping chain is an error naming the place.
pub(crate) fn deref<'a>(
    root: &'a Value,
    mut v: &'a Value,
    at: &str,
    max_hops: usize,
) -> Result<Deref<'a>, ImportError> {
    for _ in 0..=max_hops {
        let Some(reference) = v.get("$ref").and_then(Value::as_str) else {
            return Ok(Deref::Found(v));
        };
        let Some(pointer) = reference.strip_prefix('#') else {
            return Ok(Deref::External(reference));
        };
        v = root.pointer(pointer).ok_or_else(|| {
            ImportError::invalid(at, format!("`$ref: {reference}` points at nothing"))
        })?;
    }
    Err(ImportError::invalid(
        at,
        format!("`$ref` chain longer than {max_hops} hops (a reference loop?)"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits::default()
    }

    #[test]
    fn swagger_two_is_refused_with_the_way_out() {
        let err = read("swagger: '2.0'\npaths: {}\n", &limits())
            .err()
            .unwrap();
        let text = err.to_string();
        assert!(text.contains("Swagger 2.0"), "{text}");
        assert!(text.contains("swagger2openapi"), "{text}");
    }

    #[test]
    fn yaml_and_json_read_alike_with_numeric_keys() {
        let yaml = "openapi: 3.0.3\ninfo: {title: T, version: 1}\npaths:\n  /a:\n    get:\n      responses:\n        200: {description: ok}\n";
        let s = read(yaml, &limits()).unwrap();
        let mut seen = Vec::new();
        s.for_each_path(
            |_, _| true,
            |_, path, item| {
                seen.push((
                    path.to_string(),
                    item.pointer("/get/responses/200").is_some(),
                ));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, [("/a".to_string(), true)]);
        assert_eq!(s.version.as_deref(), Some("1"));
        let json = r#"{"openapi": "3.1.0", "paths": {}}"#;
        assert!(read(json, &limits()).is_ok());
    }

    #[test]
    fn a_large_document_is_refused_before_parsing() {
        let small = Limits {
            max_bytes: 10,
            ..Limits::default()
        };
        let err = read("openapi: 3.0.0\npaths: {}\n", &small).err().unwrap();
        assert!(matches!(err, ImportError::TooLarge { .. }), "{err}");
    }

    #[test]
    fn bad_syntax_and_versions_name_the_place() {
        let err = read("{\"openapi\": ", &limits()).err().unwrap();
        assert!(matches!(err, ImportError::Syntax { line: 1, .. }), "{err}");
        let err = read("openapi: 2.5\n", &limits()).err().unwrap();
        assert!(err.to_string().starts_with("#/openapi"), "{err}");
    }

    #[test]
    fn a_dangling_ref_is_an_error_at_its_place() {
        let root: Value = serde_json::json!({"a": {"$ref": "#/nowhere"}});
        let at = "#/a";
        let Err(err) = deref(&root, &root["a"], at, 8) else {
            panic!("resolved");
        };
        assert!(
            err.to_string().starts_with("#/a: `$ref: #/nowhere`"),
            "{err}"
        );
        let looped: Value = serde_json::json!({"a": {"$ref": "#/a"}});
        assert!(deref(&looped, &looped["a"], at, 8).is_err());
    }
}
