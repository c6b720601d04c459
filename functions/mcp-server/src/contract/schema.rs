//! The JSON Schema of a tool's arguments: declared params plus the platform's list shape and
//! write arguments (`dry_run`, `idempotency_key`, `confirmation_token`); every list takes
//! `cursor` (a page cut to fit the output limit continues with one), and a list paged by cursor
//! takes it instead of `page`. The same rules `args` enforces, written for clients to read.

use catalog::{ParamType, Tool};
use serde_json::{Map, Value, json};

use super::args::{DEFAULT_PAGE_SIZE, MAX_IDEMPOTENCY_KEY, MAX_TOKEN};
use super::cursor::ListShape;
use super::risk;

/// A JSON object (the shape MCP's `inputSchema` takes).
pub(crate) type JsonObject = Map<String, Value>;

/// A JSON object literal as a [`JsonObject`] (anything else: empty).
pub(crate) fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The JSON Schema of a tool's arguments; `list` is the shape its catalog's paging gives.
pub(crate) fn input_schema(tool: &Tool, list: ListShape) -> JsonObject {
    let (mut props, required) = declared(tool);
    if tool.list {
        list_props(tool, list, &mut props);
    }
    write_props(tool, &mut props);
    let mut schema = object(json!({
        "type": "object",
        "properties": props,
        "additionalProperties": false,
    }));
    // Every byte here is read on every turn: no empty `required`.
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema
}

/// The declared params (a raw tool's `path` among them), and which are required.
fn declared(tool: &Tool) -> (JsonObject, Vec<catalog::Text>) {
    let mut props = Map::new();
    let mut required = Vec::new();
    for (name, p) in &tool.params {
        props.insert(name.to_string(), Value::Object(param_schema(p)));
        if p.required || p.location == catalog::ParamIn::Path {
            required.push(name.clone());
        }
    }
    if tool.raw {
        props.insert(
            "path".into(),
            json!({"type": "string", "pattern": "^/[A-Za-z0-9/_.-]*$",
                   "description": "Path under the connector's base URL, e.g. /income/invoices."}),
        );
        required.push("path".into());
    }
    (props, required)
}

/// A list's arguments: `cursor`, then what its paging takes (`page`, `page_size`), `fields`
/// and, when its upstream reports a total, `count_only`.
fn list_props(tool: &Tool, list: ListShape, props: &mut JsonObject) {
    // Every list takes `cursor`: a page cut to fit the output limit continues with one, in
    // every paging style (`call::resume`). Read on every turn, so said in few words (its
    // length is checked as the argument comes in, and the results' hints say the rest).
    props.insert(
        "cursor".into(),
        json!({"type": "string", "description": "next_cursor, unchanged"}),
    );
    if !list.by_cursor {
        props.insert(
            "page".into(),
            json!({"type": "integer", "minimum": 1, "default": 1}),
        );
    }
    if list.sized {
        props.insert(
            "page_size".into(),
            json!({"type": "integer", "minimum": 1, "maximum": list.max_page_size,
                   "default": DEFAULT_PAGE_SIZE.min(list.max_page_size)}),
        );
    }
    let mut items = json!({"type": "string"});
    if !tool.fields.is_empty() {
        items["enum"] = json!(tool.fields);
    }
    props.insert(
        "fields".into(),
        json!({"type": "array", "items": items,
               "description": "Only these item fields."}),
    );
    if list.counts {
        props.insert(
            "count_only".into(),
            json!({"type": "boolean", "description": "Only the number of matches."}),
        );
    }
}

/// A write's arguments (`dry_run`, `idempotency_key`) and, where a person confirms it,
/// `confirmation_token`.
fn write_props(tool: &Tool, props: &mut JsonObject) {
    if risk::is_write(tool) {
        props.insert(
            "dry_run".into(),
            json!({"type": "boolean", "description": "true: check everything and show the exact request and its effects; nothing is written."}),
        );
        props.insert(
            "idempotency_key".into(),
            json!({"type": "string", "maxLength": MAX_IDEMPOTENCY_KEY, "pattern": "^[A-Za-z0-9_.-]+$",
                   "description": "Any unique value; send the same one when retrying this write, and it runs once."}),
        );
    }
    if risk::needs_confirmation(tool) {
        props.insert(
            "confirmation_token".into(),
            json!({"type": "string", "maxLength": MAX_TOKEN,
                   "description": "From the confirmation_required answer, after the user agreed to its preview; same arguments."}),
        );
    }
}

/// The restricted JSON Schema of a form a person fills in (an elicitation's `requestedSchema`):
/// flat, one field per param (strings, dates, numbers and booleans, as the loader allows a
/// form's fields), each with its label as the title, under the name given.
pub(crate) fn form<'a>(fields: impl Iterator<Item = (&'a str, &'a catalog::Param)>) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, p) in fields {
        let mut field = param_schema(p);
        if let Some(label) = &p.label {
            field.insert("title".into(), label.as_str().into());
        }
        if p.required {
            required.push(name);
        }
        properties.insert(name.to_string(), Value::Object(field));
    }
    json!({"type": "object", "properties": properties, "required": required})
}

/// One param's schema; an array's items are closed objects with their own typed fields, or
/// the schema of its one `item`.
fn param_schema(p: &catalog::Param) -> JsonObject {
    let mut s = Map::new();
    let kind = match p.kind {
        ParamType::String | ParamType::Date | ParamType::Datetime | ParamType::TimeZone => "string",
        ParamType::Integer => "integer",
        ParamType::Number => "number",
        ParamType::Boolean => "boolean",
        ParamType::Array => "array",
    };
    s.insert("type".into(), kind.into());
    if p.kind == ParamType::Date {
        s.insert("format".into(), "date".into());
    }
    if p.kind == ParamType::Datetime {
        s.insert("format".into(), "date-time".into());
    }
    if let Some(d) = &p.description {
        s.insert("description".into(), d.as_str().into());
    }
    if let Some(min) = p.min {
        s.insert("minimum".into(), number(min));
    }
    if let Some(max) = p.max {
        s.insert("maximum".into(), number(max));
    }
    if let Some(n) = p.max_length {
        s.insert("maxLength".into(), n.into());
    }
    if let Some(c) = &p.choices {
        s.insert("enum".into(), json!(c));
    }
    if let Some(d) = &p.default {
        s.insert("default".into(), d.clone());
    }
    if let Some(fields) = &p.items {
        let props: Map<String, Value> = fields
            .iter()
            .map(|(n, f)| (n.to_string(), Value::Object(param_schema(f))))
            .collect();
        let required: Vec<&str> = fields
            .iter()
            .filter(|(_, f)| f.required)
            .map(|(n, _)| n.as_str())
            .collect();
        s.insert(
            "items".into(),
            json!({"type": "object", "properties": props, "required": required,
                   "additionalProperties": false}),
        );
        s.insert("minItems".into(), 1.into());
    }
    if let Some(item) = &p.item {
        s.insert("items".into(), Value::Object(param_schema(item)));
        s.insert("minItems".into(), 1.into());
    }
    if let Some(n) = p.max_items {
        s.insert("maxItems".into(), n.into());
    }
    s
}

/// `1` rather than `1.0` for a whole bound.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A list tool and a high-risk delete, for the schema and the MCP definitions.
    pub(crate) fn tools() -> Vec<Tool> {
        catalog::parse(
            "t.yaml",
            r#"
connector: papierkram
base_url: "http://x"
list_envelope: { items: entries }
tools:
  - name: papierkram_invoices_list
    risk: low
    list: true
    description: d
    get: /invoices
    params:
      from: { type: date }
  - name: papierkram_invoice_delete
    risk: high
    description: d
    delete: /invoices/{id}
    params:
      id: { type: integer, in: path, min: 1 }
"#,
        )
        .unwrap()
        .tools
    }

    #[test]
    fn arrays_are_bounded_lists_of_closed_objects() {
        let tool = catalog::parse(
            "t.yaml",
            r#"
connector: papierkram
base_url: "http://x"
tools:
  - name: papierkram_invoice_create
    risk: high
    description: d
    post: /invoices
    params:
      line_items:
        type: array
        in: body
        max_items: 50
        items:
          name: { type: string, required: true, max_length: 200 }
          quantity: { type: number, min: 0 }
"#,
        )
        .unwrap()
        .tools
        .remove(0);
        let s = Value::Object(input_schema(&tool, ListShape::PAGES));
        let p = &s["properties"]["line_items"];
        assert_eq!(
            (&p["type"], &p["minItems"], &p["maxItems"]),
            (&json!("array"), &json!(1), &json!(50))
        );
        assert_eq!(p["items"]["additionalProperties"], json!(false));
        assert_eq!(p["items"]["required"], json!(["name"]));
        assert_eq!(p["items"]["properties"]["name"]["maxLength"], json!(200));
        assert_eq!(p["items"]["properties"]["quantity"]["minimum"], json!(0));
    }

    #[test]
    fn arrays_of_values_are_bounded_lists_of_the_item_schema() {
        let tool = catalog::parse(
            "t.yaml",
            r#"
connector: papierkram
base_url: "http://x"
tools:
  - name: papierkram_voucher_create
    risk: high
    description: d
    post: /vouchers
    params:
      entertainment_persons:
        type: array
        in: body
        max_items: 20
        description: Who attended.
        item: { type: string, max_length: 200 }
"#,
        )
        .unwrap()
        .tools
        .remove(0);
        let s = Value::Object(input_schema(&tool, ListShape::PAGES));
        assert_eq!(
            s["properties"]["entertainment_persons"],
            json!({"type": "array", "description": "Who attended.",
                   "items": {"type": "string", "maxLength": 200},
                   "minItems": 1, "maxItems": 20})
        );
    }

    #[test]
    fn list_tools_get_the_shared_list_shape_with_a_cursor_for_a_cut_page() {
        let s = Value::Object(input_schema(&tools()[0], ListShape::PAGES));
        for p in [
            "page",
            "page_size",
            "fields",
            "count_only",
            "cursor",
            "from",
        ] {
            assert!(s["properties"].get(p).is_some(), "{p}");
        }
        let cursor = s["properties"]["cursor"]["description"].as_str().unwrap();
        assert_eq!(cursor, "next_cursor, unchanged");
        assert_eq!(s["properties"]["page_size"]["maximum"], json!(100));
        assert_eq!(s["properties"]["from"]["format"], json!("date"));
        assert_eq!(s["additionalProperties"], json!(false));
    }

    #[test]
    fn a_list_paged_by_cursor_takes_a_cursor_and_only_what_the_upstream_honours() {
        let shape = ListShape {
            by_cursor: true,
            sized: false,
            counts: false,
            max_page_size: 100,
        };
        let s = Value::Object(input_schema(&tools()[0], shape));
        assert_eq!(s["properties"]["cursor"]["type"], json!("string"));
        for absent in ["page", "page_size", "count_only"] {
            assert!(s["properties"].get(absent).is_none(), "{absent}");
        }
        assert!(s["properties"].get("fields").is_some());
    }

    #[test]
    fn path_params_are_required_and_risky_writes_take_the_write_arguments() {
        let s = Value::Object(input_schema(&tools()[1], ListShape::PAGES));
        assert_eq!(s["required"], json!(["id"]));
        for p in ["dry_run", "idempotency_key", "confirmation_token"] {
            assert!(s["properties"].get(p).is_some(), "{p}");
        }
        assert!(s["properties"].get("confirm").is_none());
    }
}
