//! JSON Schema, as OpenAPI uses it, to the catalog's typed params: `$ref`s followed with a
//! cycle cut-off, `allOf` merged, types, bounds, enums and formats carried over. What a param
//! cannot express (`oneOf`, free-form objects, untyped values) comes back as a reason for a
//! person; a body's nested objects with declared fields become dotted params (`params.rs`).

use catalog::{Param, ParamIn, ParamType};
use serde_json::Value;

use crate::spec::{Deref, deref};
use crate::{ImportError, Limits};

/// An array without `maxItems` gets this bound as a proposal (the loader needs one).
pub(crate) const PROPOSED_MAX_ITEMS: usize = 50;

/// A schema with its `$ref`s followed and its `allOf` merged; properties stay unresolved
/// (borrowed) until a caller needs them.
#[derive(Default)]
pub(crate) struct Flat<'a> {
    pub(crate) kind: Option<&'a str>,
    pub(crate) format: Option<&'a str>,
    pub(crate) description: Option<&'a str>,
    pub(crate) choices: Option<&'a Vec<Value>>,
    pub(crate) minimum: Option<f64>,
    pub(crate) maximum: Option<f64>,
    pub(crate) max_length: Option<usize>,
    pub(crate) max_items: Option<usize>,
    pub(crate) default: Option<&'a Value>,
    pub(crate) properties: Vec<(&'a str, &'a Value)>,
    pub(crate) required: Vec<&'a str>,
    pub(crate) items: Option<&'a Value>,
    /// `oneOf`/`anyOf` with real alternatives: a person picks.
    pub(crate) alternatives: bool,
    /// The reference that closed a cycle, cut here.
    pub(crate) cycle: Option<&'a str>,
    /// A reference outside the document.
    pub(crate) external: Option<&'a str>,
}

/// The resolution state of one operation: the work budget and the references being expanded.
pub(crate) struct Resolver<'a> {
    pub(crate) root: &'a Value,
    limits: &'a Limits,
    steps: usize,
    stack: Vec<&'a str>,
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(root: &'a Value, limits: &'a Limits) -> Self {
        Resolver {
            root,
            limits,
            steps: 0,
            stack: Vec::new(),
        }
    }

    /// Follows `$ref`s (outside the schema too: parameters, responses, headers).
    pub(crate) fn deref(&self, v: &'a Value, at: &str) -> Result<Deref<'a>, ImportError> {
        deref(self.root, v, at, self.limits.max_ref_hops)
    }

    /// Flattens `schema` (found at `at`).
    pub(crate) fn flatten(&mut self, schema: &'a Value, at: &str) -> Result<Flat<'a>, ImportError> {
        let mut flat = Flat::default();
        self.merge(schema, at, &mut flat, 0)?;
        Ok(flat)
    }

    fn merge(
        &mut self,
        schema: &'a Value,
        at: &str,
        flat: &mut Flat<'a>,
        depth: usize,
    ) -> Result<(), ImportError> {
        self.steps += 1;
        if self.steps > self.limits.max_schema_steps {
            return Err(ImportError::Budget {
                at: at.to_string(),
                limit: self.limits.max_schema_steps,
            });
        }
        if depth > self.limits.max_ref_hops {
            flat.cycle.get_or_insert("(too deep)");
            return Ok(());
        }
        let reference = schema.get("$ref").and_then(Value::as_str);
        if let Some(r) = reference
            && self.stack.contains(&r)
        {
            flat.cycle.get_or_insert(r);
            return Ok(());
        }
        let s = match self.deref(schema, at)? {
            Deref::External(r) => {
                flat.external.get_or_insert(r);
                return Ok(());
            }
            Deref::Found(s) => s,
        };
        if let Some(r) = reference {
            self.stack.push(r);
        }
        let result = self.merge_resolved(s, at, flat, depth);
        if reference.is_some() {
            self.stack.pop();
        }
        result
    }

    fn merge_resolved(
        &mut self,
        s: &'a Value,
        at: &str,
        flat: &mut Flat<'a>,
        depth: usize,
    ) -> Result<(), ImportError> {
        let Some(obj) = s.as_object() else {
            // `true`/`false` schemas and junk: nothing to learn.
            return Ok(());
        };
        if flat.description.is_none() {
            flat.description = obj.get("description").and_then(Value::as_str);
        }
        if flat.kind.is_none() {
            flat.kind = match obj.get("type") {
                Some(Value::String(t)) => Some(t.as_str()),
                // 3.1: `type: [string, "null"]`.
                Some(Value::Array(ts)) => {
                    ts.iter().filter_map(Value::as_str).find(|t| *t != "null")
                }
                _ => None,
            };
        }
        let num = |k: &str| obj.get(k).and_then(Value::as_f64);
        let size = |k: &str| {
            obj.get(k)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
        };
        flat.format = flat.format.or(obj.get("format").and_then(Value::as_str));
        flat.choices = flat.choices.or(obj.get("enum").and_then(Value::as_array));
        flat.minimum = flat.minimum.or(num("minimum")).or(num("exclusiveMinimum"));
        flat.maximum = flat.maximum.or(num("maximum")).or(num("exclusiveMaximum"));
        flat.max_length = flat.max_length.or(size("maxLength"));
        flat.max_items = flat.max_items.or(size("maxItems"));
        flat.default = flat.default.or(obj.get("default"));
        flat.items = flat.items.or(obj.get("items"));
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (name, p) in props {
                if !flat.properties.iter().any(|(n, _)| n == name) {
                    flat.properties.push((name.as_str(), p));
                }
            }
        }
        if let Some(Value::Array(req)) = obj.get("required") {
            flat.required.extend(req.iter().filter_map(Value::as_str));
        }
        if let Some(Value::Array(all)) = obj.get("allOf") {
            for (i, member) in all.iter().enumerate() {
                self.merge(member, &format!("{at}/allOf/{i}"), flat, depth + 1)?;
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(alts)) = obj.get(key) {
                // `[X, {type: null}]` is only a nullable X.
                let real: Vec<(usize, &Value)> = alts
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| a.get("type").and_then(Value::as_str) != Some("null"))
                    .collect();
                match real.as_slice() {
                    [(i, only)] => self.merge(only, &format!("{at}/{key}/{i}"), flat, depth + 1)?,
                    [] => {}
                    _ => flat.alternatives = true,
                }
            }
        }
        if flat.kind.is_none() && !flat.properties.is_empty() {
            flat.kind = Some("object");
        }
        Ok(())
    }

    /// A typed, bounded param from a schema, or why a person has to write it. `own` is the
    /// description next to the schema (a parameter's), which wins over the schema's.
    pub(crate) fn param(
        &mut self,
        schema: &'a Value,
        at: &str,
        location: ParamIn,
        own: Option<&str>,
    ) -> Result<Result<Param, String>, ImportError> {
        let flat = self.flatten(schema, at)?;
        self.param_of(&flat, at, location, own, true)
    }

    fn param_of(
        &mut self,
        flat: &Flat<'a>,
        at: &str,
        location: ParamIn,
        own: Option<&str>,
        arrays: bool,
    ) -> Result<Result<Param, String>, ImportError> {
        if let Some(r) = flat.external {
            return Ok(Err(format!("external `$ref: {r}`: inline it")));
        }
        if flat.alternatives {
            return Ok(Err("`oneOf`/`anyOf`: pick one shape".into()));
        }
        let mut notes: Vec<String> = Vec::new();
        let mut p = blank(location);
        let strings = || {
            flat.choices
                .map(|c| c.iter().all(Value::is_string))
                .unwrap_or(false)
        };
        let kind = match flat.kind {
            Some(k) => k,
            None if flat.choices.is_some() && strings() => "string",
            None => {
                return Ok(Err(match flat.cycle {
                    Some(r) => format!("recursive schema cut at `{r}`"),
                    None => "untyped value".into(),
                }));
            }
        };
        match kind {
            "string" if flat.format == Some("date") => p.kind = ParamType::Date,
            "string" => {
                p.max_length = flat.max_length;
                if strings() {
                    p.choices = flat.choices.map(|c| {
                        c.iter()
                            .filter_map(Value::as_str)
                            .map(catalog::Text::from)
                            .collect()
                    });
                }
                if let Some(f) = flat.format {
                    notes.push(format!("Format: {f}."));
                }
            }
            "integer" | "number" => {
                p.kind = if kind == "integer" {
                    ParamType::Integer
                } else {
                    ParamType::Number
                };
                p.min = flat.minimum;
                p.max = flat.maximum;
                if let Some(c) = flat.choices {
                    let values: Vec<String> = c.iter().map(crate::spec::scalar).collect();
                    notes.push(format!("One of {}.", values.join(", ")));
                    if p.min.is_none() {
                        p.min = c.iter().filter_map(Value::as_f64).reduce(f64::min);
                        p.max = c.iter().filter_map(Value::as_f64).reduce(f64::max);
                    }
                }
            }
            "boolean" => p.kind = ParamType::Boolean,
            "array" if !arrays => return Ok(Err("array inside an array".into())),
            "array" if location != ParamIn::Body => {
                return Ok(Err(
                    "an array outside the body (the catalog sends arrays in the body only)".into(),
                ));
            }
            "array" => {
                p.kind = ParamType::Array;
                p.max_items = Some(flat.max_items.unwrap_or_else(|| {
                    notes.push(format!(
                        "max_items {PROPOSED_MAX_ITEMS} proposed (the spec gives none)."
                    ));
                    PROPOSED_MAX_ITEMS
                }));
                let Some(items) = flat.items else {
                    return Ok(Err("array without `items`".into()));
                };
                let item_at = format!("{at}/items");
                let inner = self.flatten(items, &item_at)?;
                if inner.kind == Some("object") {
                    let mut fields = std::collections::BTreeMap::new();
                    for (name, schema) in &inner.properties {
                        let field_at =
                            format!("{item_at}/properties/{}", crate::spec::escape(name));
                        let f = self.flatten(schema, &field_at)?;
                        match self.param_of(&f, &field_at, ParamIn::Query, None, false)? {
                            Ok(mut field) if field.kind != ParamType::Array => {
                                field.required = inner.required.contains(name);
                                fields.insert(crate::naming::snake(name).into(), Box::new(field));
                            }
                            _ => {
                                return Ok(Err(format!(
                                    "array item field `{name}` is not a plain value"
                                )));
                            }
                        }
                    }
                    if fields.is_empty() {
                        return Ok(Err("array of objects without properties".into()));
                    }
                    p.items = Some(fields);
                } else {
                    match self.param_of(&inner, &item_at, ParamIn::Query, None, false)? {
                        Ok(mut item) => {
                            item.default = None;
                            item.description = None;
                            p.item = Some(Box::new(item));
                        }
                        Err(why) => return Ok(Err(format!("array item: {why}"))),
                    }
                }
            }
            "object" => {
                return Ok(Err(
                    "a nested object without declared fields (a free-form value)".into(),
                ));
            }
            other => return Ok(Err(format!("type `{other}`"))),
        }
        p.default = flat.default.filter(|d| fits(&p, d)).cloned();
        let text = own
            .or(flat.description)
            .map(clean)
            .filter(|t| !t.is_empty());
        let mut description: Vec<String> = text.into_iter().collect();
        description.extend(notes);
        if !description.is_empty() {
            p.description = Some(description.join(" ").into());
        }
        Ok(Ok(p))
    }
}

/// A plain string param at `location` (required in the path), nothing else declared.
pub(crate) fn blank(location: ParamIn) -> Param {
    Param {
        kind: ParamType::String,
        description: None,
        label: None,
        currency: None,
        required: location == ParamIn::Path,
        location,
        upstream: None,
        min: None,
        max: None,
        max_length: None,
        choices: None,
        values: None,
        default: None,
        items: None,
        item: None,
        item_body: None,
        totals: None,
        max_items: None,
        complete: None,
        unix_time: None,
        date_time: None,
        ask: None,
    }
}

/// A default the runtime would accept for this param.
fn fits(p: &Param, v: &Value) -> bool {
    match p.kind {
        ParamType::String | ParamType::Date | ParamType::Datetime | ParamType::TimeZone => {
            v.is_string()
        }
        ParamType::Integer => v.is_i64() || v.is_u64(),
        ParamType::Number => v.is_number(),
        ParamType::Boolean => v.is_boolean(),
        ParamType::Array => false,
    }
}

/// Prose from a spec as one plain line: HTML tags dropped, whitespace collapsed, at most 300
/// characters (descriptions are paid for in every `tools/list`).
pub(crate) fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(320));
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if in_tag => {}
            c if c.is_whitespace() => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            c => out.push(c),
        }
        if out.len() > 600 {
            break;
        }
    }
    let out = out.trim();
    match out.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", out[..i].trim_end()),
        None => out.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn param(root: &Value, schema: &Value, location: ParamIn) -> Result<Param, String> {
        let limits = Limits::default();
        Resolver::new(root, &limits)
            .param(schema, "#/x", location, None)
            .unwrap()
    }

    #[test]
    fn types_bounds_enums_and_formats_carry_over() {
        let root = json!({});
        let p = param(
            &root,
            &json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 10}),
            ParamIn::Query,
        )
        .unwrap();
        assert_eq!(
            (p.kind, p.min, p.max, p.default),
            (ParamType::Integer, Some(1.0), Some(100.0), Some(json!(10)))
        );
        let p = param(
            &root,
            &json!({"type": "string", "enum": ["draft", "open"]}),
            ParamIn::Query,
        )
        .unwrap();
        assert_eq!(p.choices, Some(vec!["draft".into(), "open".into()]));
        let p = param(
            &root,
            &json!({"type": "string", "format": "date"}),
            ParamIn::Query,
        )
        .unwrap();
        assert_eq!(p.kind, ParamType::Date);
        let p = param(
            &root,
            &json!({"type": ["string", "null"], "format": "email", "maxLength": 90}),
            ParamIn::Body,
        )
        .unwrap();
        assert_eq!(p.max_length, Some(90));
        assert_eq!(p.description.as_deref(), Some("Format: email."));
    }

    #[test]
    fn refs_keep_the_referenced_description_and_cycles_are_cut() {
        let root = json!({"components": {"schemas": {
            "Status": {"type": "string", "description": "Where the invoice stands.", "enum": ["a", "b"]},
            "A": {"allOf": [{"$ref": "#/components/schemas/B"}], "properties": {"a": {"type": "string"}}},
            "B": {"allOf": [{"$ref": "#/components/schemas/A"}], "properties": {"b": {"type": "string"}}}
        }}});
        let p = param(
            &root,
            &json!({"$ref": "#/components/schemas/Status"}),
            ParamIn::Query,
        )
        .unwrap();
        assert_eq!(p.description.as_deref(), Some("Where the invoice stands."));
        let limits = Limits::default();
        let mut r = Resolver::new(&root, &limits);
        let reference = json!({"$ref": "#/components/schemas/A"});
        let a = r.flatten(&reference, "#/a").unwrap();
        let names: Vec<&str> = a.properties.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(a.cycle, Some("#/components/schemas/A"));
    }

    #[test]
    fn all_of_merges_and_one_of_needs_a_person() {
        let root = json!({"components": {"schemas": {"Base": {"properties": {"id": {"type": "integer"}}, "required": ["id"]}}}});
        let limits = Limits::default();
        let mut r = Resolver::new(&root, &limits);
        let merged = json!({"allOf": [{"$ref": "#/components/schemas/Base"}, {"properties": {"name": {"type": "string"}}}]});
        let flat = r.flatten(&merged, "#/s").unwrap();
        let names: Vec<&str> = flat.properties.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["id", "name"]);
        assert_eq!(flat.required, ["id"]);
        assert_eq!(flat.kind, Some("object"));
        let why = param(
            &root,
            &json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
            ParamIn::Body,
        )
        .unwrap_err();
        assert!(why.contains("oneOf"), "{why}");
        let nullable = param(
            &root,
            &json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            ParamIn::Body,
        );
        assert!(nullable.is_ok());
    }

    #[test]
    fn arrays_are_body_lists_with_a_proposed_bound() {
        let root = json!({});
        let p = param(
            &root,
            &json!({"type": "array", "items": {"type": "string", "maxLength": 20}}),
            ParamIn::Body,
        )
        .unwrap();
        assert_eq!(p.max_items, Some(PROPOSED_MAX_ITEMS));
        assert!(p.description.unwrap().contains("proposed"));
        let why = param(
            &root,
            &json!({"type": "array", "items": {"type": "string"}}),
            ParamIn::Query,
        )
        .unwrap_err();
        assert!(why.contains("outside the body"), "{why}");
        let p = param(&root, &json!({"type": "array", "maxItems": 5, "items": {"type": "object", "properties": {"unitPrice": {"type": "number"}}}}), ParamIn::Body).unwrap();
        assert!(p.items.unwrap().contains_key("unit_price"));
    }

    #[test]
    fn a_runaway_schema_hits_the_budget() {
        let mut deep = json!({"type": "string"});
        for _ in 0..50 {
            deep = json!({"allOf": [deep]});
        }
        let limits = Limits {
            max_schema_steps: 20,
            ..Limits::default()
        };
        let err = Resolver::new(&json!({}), &limits)
            .flatten(&deep, "#/deep")
            .err()
            .unwrap();
        assert!(matches!(err, ImportError::Budget { .. }), "{err}");
    }

    #[test]
    fn prose_is_one_plain_bounded_line() {
        assert_eq!(clean("<b>Bold</b>\n\n text"), "Bold text");
        assert!(clean(&"word ".repeat(200)).chars().count() <= 301);
    }
}
