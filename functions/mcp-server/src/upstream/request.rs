//! Building the upstream request: fixed path templates with encoded parameters, query and body
//! parameters under their upstream names, the paging the catalog declares (or the checked
//! next-page URL a cursor holds), the base URL with its secret fields, and the upstream's own
//! error message read from an answer. Pure.

use catalog::{Ask, Catalog, CredentialError, Pager, ParamIn, Status, Tool};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::Url;
use serde_json::Value;

use super::next_page;
use crate::contract::args::ValidArgs;
use crate::contract::cursor::{BadCursor, Cursor, NextUrl};
use crate::secrets::SecretValues;

/// Everything but RFC 3986 unreserved characters is encoded; `.` too, so a value can never be
/// a `.`/`..` path segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'~');

/// Why a request could not even be built; maps to a status with a hint.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{hint}")]
pub struct BuildError {
    pub status: Status,
    pub hint: String,
}

/// Where a tool call goes: its URL (the tool's own, or the sealed next page a cursor names).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Target {
    pub url: Url,
}

/// The full URL for a tool call. `base_url` is the catalog's (or its override).
pub(super) fn build_url(
    catalog: &Catalog,
    base_url: &str,
    tool: &Tool,
    args: &ValidArgs,
    secrets: &SecretValues,
) -> Result<Target, BuildError> {
    let base = fill_base(catalog, base_url, secrets)?;
    let path = tool_path(catalog, tool, args, secrets)?;
    let pager = catalog.pager_for(tool);
    let mut url = joined(&base, &path)?;
    append_query(&mut url, tool, args, pager.as_ref());
    check_resumed(tool, args, secrets)?;
    let target = |url: Url| Target { url };
    match (args.list.as_ref().and_then(|l| l.cursor.as_ref()), &pager) {
        (None, _) => Ok(target(url)),
        (Some(Cursor::Token(_)), Some(p)) if matches!(p.ask, Ask::Cursor { .. }) => Ok(target(url)),
        (Some(Cursor::Url(next)), Some(p)) if matches!(p.ask, Ask::NextUrl | Ask::LinkHeader) => {
            follow_next(catalog, &base, tool, secrets, next).map(target)
        }
        (Some(_), _) => Err(BuildError {
            status: Status::InvalidInput,
            hint: BadCursor.to_string(),
        }),
    }
}

/// The path the tool asks for: a raw tool's own `path` argument, else its template filled.
fn tool_path(
    catalog: &Catalog,
    tool: &Tool,
    args: &ValidArgs,
    secrets: &SecretValues,
) -> Result<String, BuildError> {
    let (_, template) = tool.http().ok_or_else(|| BuildError {
        status: Status::Error,
        hint: "This tool has no HTTP mapping.".into(),
    })?;
    Ok(if tool.raw {
        args.values["path"].as_str().unwrap_or("/").to_string()
    } else {
        // A hole no param names is a secret field (an account id the deployment fixes),
        // filled first and host-safe like the base URL's; params are encoded after.
        let holes = catalog::placeholders(template);
        let fixed: Vec<&str> = holes
            .into_iter()
            .filter(|h| !tool.params.contains_key(*h))
            .collect();
        let mut template = template.to_string();
        for hole in fixed {
            let value = fill_base(catalog, &format!("{{{hole}}}"), secrets)?;
            template = template.replace(&format!("{{{hole}}}"), &value);
        }
        fill_path(&template, args)
    })
}

/// The base URL could not be parsed (with or without the tool's path on it).
fn unbuildable() -> BuildError {
    BuildError {
        status: Status::Error,
        hint: "The request URL could not be built; check the connector's base URL.".into(),
    }
}

/// `base` and `path` as one URL, refused when parsing moved the path.
fn joined(base: &str, path: &str) -> Result<Url, BuildError> {
    let full = format!("{}{}", base.trim_end_matches('/'), path);
    let url = Url::parse(&full).map_err(|_| unbuildable())?;
    // The URL parser resolves dot segments; a changed path means a value tried to move the
    // request elsewhere.
    if !url.path().ends_with(path.trim_end_matches('/')) {
        return Err(BuildError {
            status: Status::InvalidInput,
            hint: "A path argument contains a relative segment; pass plain ids.".into(),
        });
    }
    Ok(url)
}

/// The query parameters under their upstream names, then the page the list asks for (no `?`
/// left when there are none).
fn append_query(url: &mut Url, tool: &Tool, args: &ValidArgs, pager: Option<&Pager>) {
    {
        let mut query = url.query_pairs_mut();
        for (name, param) in &tool.params {
            if param.location != ParamIn::Query {
                continue;
            }
            if let Some(v) = args.values.get(name.as_str()) {
                query.append_pair(param.upstream_name(name), &query_value(param, v));
            }
        }
        if let (Some(list), Some(pager)) = (&args.list, pager) {
            let size = if list.count_only { 1 } else { list.page_size };
            let token = match &list.cursor {
                Some(Cursor::Token(t)) => Some(t.as_str()),
                _ => None,
            };
            for (name, value) in pager.query(list.page, size, token) {
                query.append_pair(&name, &value);
            }
            // Only the fields the result shows, where the upstream can be asked (`$select`).
            let shown = match &list.fields {
                Some(fields) => fields.iter().map(String::as_str).collect::<Vec<_>>(),
                None => tool.default_fields.iter().map(|f| f.as_str()).collect(),
            };
            if let Some((name, value)) = pager.select(shown).filter(|_| !list.count_only) {
                query.append_pair(&name, &value);
            }
        }
    }
    if url.query() == Some("") {
        url.set_query(None);
    }
}

/// A cursor resuming a cut page is followed only when sealed for this tool and these arguments.
fn check_resumed(tool: &Tool, args: &ValidArgs, secrets: &SecretValues) -> Result<(), BuildError> {
    if let Some(resume) = args.list.as_ref().and_then(|l| l.resumed.as_ref())
        && !next_page::resume_sealed(
            &secrets.confirmation_keys,
            &tool.name,
            &args.arguments_text(),
            resume,
        )
    {
        return Err(BuildError {
            status: Status::InvalidInput,
            hint: "The cursor is not the next_cursor of a result of this tool with these \
                   arguments, so it is not followed. Pass it unchanged with the same arguments, \
                   or leave cursor out for the first page."
                .into(),
        });
    }
    Ok(())
}

/// The next-page URL a cursor holds, followed only where [`next_page::follow`] allows it.
fn follow_next(
    catalog: &Catalog,
    base: &str,
    tool: &Tool,
    secrets: &SecretValues,
    next: &NextUrl,
) -> Result<Url, BuildError> {
    let base = Url::parse(base).map_err(|_| unbuildable())?;
    let reach = next_page::Reach {
        base: &base,
        tool: &tool.name,
        keys: &secrets.confirmation_keys,
        auth_query: catalog.auth.query.as_deref(),
    };
    next_page::follow(next, reach).map_err(|e| BuildError {
        status: Status::InvalidInput,
        hint: format!(
            "The cursor leads {e}, so it is not followed. Pass the next_cursor of this \
             tool's previous result unchanged, or leave cursor out for the first page."
        ),
    })
}

/// The JSON body for writes: the tool's `body` template filled with the body params, or else
/// body params under their upstream names, where a dotted name nests (`as: customer.id` sends
/// `{"customer": {"id": …}}`). An array with an `item_body` sends each item through it.
pub(super) fn build_body(tool: &Tool, args: &ValidArgs) -> Option<Value> {
    let body = params_body(tool, args);
    match (&args.write.kept, body) {
        (Some(kept), Some(body)) => Some(overlay(kept.clone(), body)),
        (Some(kept), None) => Some(kept.clone()),
        (None, body) => body,
    }
}

/// `top` set on `base`: objects field by field, anything else replaced.
fn overlay(base: Value, top: Value) -> Value {
    match (base, top) {
        (Value::Object(mut base), Value::Object(top)) => {
            for (k, v) in top {
                let merged = match base.remove(&k) {
                    Some(old) => overlay(old, v),
                    None => v,
                };
                base.insert(k, merged);
            }
            Value::Object(base)
        }
        (_, top) => top,
    }
}

/// The body the tool's params make: its `body` template, or each body param under its
/// (dotted) upstream name.
fn params_body(tool: &Tool, args: &ValidArgs) -> Option<Value> {
    let value = |name: &str| {
        let p = tool
            .params
            .get(name)
            .filter(|p| p.location == ParamIn::Body)?;
        let v = args.values.get(name)?;
        Some(shaped(p, v))
    };
    if let Some(template) = &tool.body {
        return catalog::fill_body(template, &value);
    }
    let mut body = serde_json::Map::new();
    for (name, p) in tool
        .params
        .iter()
        .filter(|(_, p)| p.location == ParamIn::Body)
    {
        let Some(v) = value(name) else {
            continue;
        };
        let mut path: Vec<&str> = p.upstream_name(name).split('.').collect();
        let last = path.pop().unwrap_or(name);
        let mut at = &mut body;
        for segment in path {
            let slot = at
                .entry(segment.to_string())
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(serde_json::Map::new());
            }
            at = slot.as_object_mut().expect("an object was just put here");
        }
        at.insert(last.to_string(), v);
    }
    (!body.is_empty()).then_some(Value::Object(body))
}

/// A body param's value as it goes up: each item of an array through its `item_body`.
fn shaped(p: &catalog::Param, v: &Value) -> Value {
    match (&p.item_body, v) {
        (Some(template), Value::Array(items)) => Value::Array(
            items
                .iter()
                .filter_map(|item| catalog::fill_body(template, &|field| item.get(field).cloned()))
                .collect(),
        ),
        _ => v.clone(),
    }
}

/// The value of `tool`'s `in: header` param `name` as it goes up, if the call gave one.
pub(super) fn header_value(tool: &Tool, args: &ValidArgs, name: &str) -> Option<String> {
    let param = tool.params.get(name)?;
    let value = args.values.get(name)?;
    (param.location == ParamIn::Header).then(|| query_value(param, value))
}

fn query_value(param: &catalog::Param, v: &Value) -> String {
    match (v, &param.values) {
        (Value::Bool(true), Some(words)) => words.when_true.to_string(),
        (Value::Bool(false), Some(words)) => words.when_false.to_string(),
        (Value::String(s), _) => s.clone(),
        (other, _) => other.to_string(),
    }
}

fn fill_path(template: &str, args: &ValidArgs) -> String {
    let mut out = template.to_string();
    for hole in catalog::placeholders(template) {
        let value = match args.values.get(hole) {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => String::new(),
        };
        let encoded = utf8_percent_encode(&value, SEGMENT).to_string();
        out = out.replace(&format!("{{{hole}}}"), &encoded);
    }
    out
}

/// The base URL with its `{secret}` placeholders filled, each checked to be host-safe.
pub(super) fn fill_base(
    catalog: &Catalog,
    base_url: &str,
    secrets: &SecretValues,
) -> Result<String, BuildError> {
    catalog::fill_base_url(base_url, |field| {
        secrets.field(&catalog.connector, field).map(str::to_string)
    })
    .map_err(|e| credential_error(catalog, &e))
}

pub(super) fn credential_error(catalog: &Catalog, e: &CredentialError) -> BuildError {
    match e {
        CredentialError::Missing(field) => missing(catalog, field),
        CredentialError::NotHostSafe(field) => BuildError {
            status: Status::Unauthorized,
            hint: format!(
                "The secret field connectors.{}.{field} is not a plain host name part; fix it in the deployment secret.",
                catalog.connector
            ),
        },
    }
}

fn missing(catalog: &Catalog, field: &str) -> BuildError {
    BuildError {
        status: Status::Unauthorized,
        hint: format!(
            "The connector `{c}` is not configured: set connectors.{c}.{field} in the deployment secret (locally {}_{}).",
            catalog.connector.to_ascii_uppercase(),
            field.to_ascii_uppercase(),
            c = catalog.connector
        ),
    }
}

/// The upstream's own error message at the catalog's dotted `error_message`, one line, at
/// most 300 characters; never a raw body.
pub(super) fn upstream_message(catalog: &Catalog, body: Option<&Value>) -> Option<String> {
    let path = catalog.error_message.as_deref()?;
    let mut v = body?;
    for part in path.split('.') {
        v = v.get(part)?;
    }
    one_line(v)
}

/// A string (or a list of strings, joined with `; `) as one line of at most 300 characters;
/// `None` for anything else or nothing.
pub(crate) fn one_line(v: &Value) -> Option<String> {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("; "),
        _ => return None,
    };
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut cut: String = one_line.chars().take(300).collect();
    if cut.len() < one_line.len() {
        cut.push('…');
    }
    (!cut.is_empty()).then_some(cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn catalog() -> Catalog {
        catalog::parse(
            "t.yaml",
            r#"
connector: shop
base_url: "https://{tenant}.example.com/api/v1"
secrets: [tenant, token]
auth: { bearer: token }
list_envelope: { items: entries, total: total_entries }
error_message: message
tools:
  - name: shop_items_list
    risk: low
    list: true
    description: d
    get: /items
    params:
      descending: { type: boolean, as: order_direction, values: { true: desc, false: asc } }
      from: { type: date, as: document_date_range_start }
  - name: shop_item_get
    risk: low
    description: d
    get: /items/{id}/notes
    params:
      id: { type: string, in: path }
"#,
        )
        .unwrap()
    }

    #[test]
    fn dotted_body_names_nest() {
        let c = catalog::parse(
            "t.yaml",
            r#"
connector: papierkram
base_url: "http://x"
tools:
  - name: papierkram_project_create
    risk: medium
    description: d
    post: /projects
    params:
      name: { type: string, in: body, max_length: 9 }
      customer_id: { type: integer, in: body, as: customer.id, min: 1 }
      customer_note: { type: string, in: body, as: customer.note, max_length: 9 }
"#,
        )
        .unwrap();
        let mut args = ValidArgs::default();
        args.values.insert("name".into(), "P".into());
        args.values.insert("customer_id".into(), 7.into());
        args.values.insert("customer_note".into(), "n".into());
        assert_eq!(
            build_body(&c.tools[0], &args),
            Some(serde_json::json!({"name": "P", "customer": {"id": 7, "note": "n"}}))
        );
    }

    #[test]
    fn arrays_of_values_go_up_as_json_lists() {
        let c = catalog::parse(
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
      name: { type: string, in: body, max_length: 9 }
      entertainment_persons: { type: array, in: body, max_items: 3, item: { type: string, max_length: 20 } }
"#,
        )
        .unwrap();
        let t = &c.tools[0];
        let a = args(
            t,
            serde_json::json!({"name": "Essen", "entertainment_persons": ["Carl Customer", "Inga"]}),
        );
        assert_eq!(
            build_body(t, &a),
            Some(
                serde_json::json!({"name": "Essen", "entertainment_persons": ["Carl Customer", "Inga"]})
            )
        );
    }

    #[test]
    fn body_templates_nest_references_and_shape_each_item() {
        let c = catalog::parse(
            "t.yaml",
            r#"
connector: sevdesk
base_url: "http://x"
tools:
  - name: sevdesk_invoice_create
    risk: high
    description: d
    post: /Invoice/Factory/saveInvoice
    body:
      invoice: { objectName: Invoice, mapAll: true, status: 100, header: "{header}",
                 contact: { id: "{contact_id}", objectName: Contact } }
      invoicePosSave: "{positions}"
    params:
      contact_id: { type: integer, in: body, required: true, min: 1 }
      header: { type: string, in: body, max_length: 9 }
      positions:
        type: array
        in: body
        max_items: 3
        items:
          name: { type: string, required: true, max_length: 20 }
          quantity: { type: number, required: true, min: 0.01, max: 99 }
          unit_id: { type: integer, min: 1, max: 99 }
        item_body: { objectName: InvoicePos, mapAll: true, name: "{name}", quantity: "{quantity}",
                     unity: { id: "{unit_id}", objectName: Unity } }
"#,
        )
        .unwrap();
        let t = &c.tools[0];
        let a = args(
            t,
            serde_json::json!({"contact_id": "7", "positions": [
                {"name": "Beratung", "quantity": 2, "unit_id": 9}, {"name": "Pauschale", "quantity": 1}]}),
        );
        assert_eq!(
            build_body(t, &a),
            Some(serde_json::json!({
                "invoice": {"objectName": "Invoice", "mapAll": true, "status": 100,
                            "contact": {"id": 7, "objectName": "Contact"}},
                "invoicePosSave": [
                    {"objectName": "InvoicePos", "mapAll": true, "name": "Beratung", "quantity": 2.0,
                     "unity": {"id": 9, "objectName": "Unity"}},
                    {"objectName": "InvoicePos", "mapAll": true, "name": "Pauschale", "quantity": 1.0}
                ]
            }))
        );
    }

    /// `from_current`: the kept record is the body's base; the params are set on top, a dotted
    /// one inside a kept object, a given version over the record's.
    #[test]
    fn kept_fields_of_the_record_are_the_body_with_the_params_on_top() {
        let c = catalog::parse(
            "t.yaml",
            r#"
connector: shop
base_url: "https://api.example.com/v1"
tools:
  - name: shop_contact_get
    risk: low
    description: 'Returns a contact. Use it to read one. Example: {"id": "c1"}'
    get: /contacts/{id}
    params:
      id: { type: string, in: path, max_length: 36 }
  - name: shop_contact_update
    risk: medium
    description: 'Changes a contact. Use it to fix a name. Example: {"id": "c1"}'
    put: /contacts/{id}
    current: shop_contact_get
    from_current: [version, roles, company]
    params:
      id: { type: string, in: path, max_length: 36 }
      version: { type: integer, in: body, min: 0 }
      company_name: { type: string, in: body, as: company.name, max_length: 100 }
"#,
        )
        .unwrap();
        let t = &c.tools[1];
        let mut a = args(
            t,
            serde_json::json!({"id": "c1", "company_name": "Neu GmbH"}),
        );
        a.write.kept = Some(
            serde_json::json!({"version": 4, "roles": {"customer": {"number": 7}},
            "company": {"name": "Alt GmbH", "taxNumber": "1/2"}}),
        );
        assert_eq!(
            build_body(t, &a),
            Some(
                serde_json::json!({"version": 4, "roles": {"customer": {"number": 7}},
                "company": {"name": "Neu GmbH", "taxNumber": "1/2"}})
            )
        );
        a.values.insert("version".into(), serde_json::json!(3));
        assert_eq!(build_body(t, &a).unwrap()["version"], 3);
        a.write.kept = None;
        assert_eq!(
            build_body(t, &a),
            Some(serde_json::json!({"version": 3, "company": {"name": "Neu GmbH"}}))
        );
    }

    fn secrets(tenant: &str) -> SecretValues {
        SecretValues {
            connectors: HashMap::from([(
                "shop".to_string(),
                HashMap::from([
                    ("tenant".to_string(), tenant.to_string()),
                    ("token".to_string(), "t".to_string()),
                ]),
            )]),
            ..SecretValues::default()
        }
    }

    fn args(tool: &Tool, v: Value) -> ValidArgs {
        let shape = crate::contract::cursor::ListShape::PAGES;
        crate::contract::args::validate(tool, shape, v.as_object().unwrap()).unwrap()
    }

    #[test]
    fn list_url_maps_names_booleans_and_paging() {
        let c = catalog();
        let t = &c.tools[0];
        let a = args(
            t,
            serde_json::json!({"descending": true, "from": "2026-05-01", "page": 2}),
        );
        let url = build_url(&c, &c.base_url, t, &a, &secrets("acme"))
            .unwrap()
            .url;
        assert_eq!(
            url.as_str(),
            "https://acme.example.com/api/v1/items?order_direction=desc&document_date_range_start=2026-05-01&page=2&page_size=50"
        );
    }

    #[test]
    fn an_answer_param_never_goes_upstream() {
        let c = catalog::parse(
            "shop.yaml",
            "connector: shop\nbase_url: https://shop.example.com\ntools:\n  - name: shop_file_get\n    \
             risk: low\n    description: d\n    get: /files/{id}\n    params:\n      \
             id: { type: string, in: path }\n      kind: { type: string, in: answer }\n    \
             answer: { inline: [{ pointer: /data, mime: \"{kind}\", max_bytes: 100 }] }\n",
        )
        .unwrap();
        let t = &c.tools[0];
        let a = args(t, serde_json::json!({"id": "7", "kind": "application/pdf"}));
        let built = build_url(&c, &c.base_url, t, &a, &secrets("acme")).unwrap();
        assert_eq!(built.url.as_str(), "https://shop.example.com/files/7");
        assert_eq!(build_body(t, &a), None);
    }

    #[test]
    fn path_parameters_are_encoded_and_cannot_traverse() {
        let c = catalog();
        let t = &c.tools[1];
        for (value, expected) in [
            ("42", "/api/v1/items/42/notes"),
            ("../../admin", "/api/v1/items/%2E%2E%2F%2E%2E%2Fadmin/notes"),
            ("a b?x=1#f", "/api/v1/items/a%20b%3Fx%3D1%23f/notes"),
        ] {
            let a = args(t, serde_json::json!({ "id": value }));
            let url = build_url(&c, &c.base_url, t, &a, &secrets("acme"))
                .unwrap()
                .url;
            assert_eq!(url.path(), expected, "{value}");
            assert_eq!(url.host_str(), Some("acme.example.com"));
        }
        let a = args(t, serde_json::json!({ "id": ".." }));
        let err = build_url(&c, &c.base_url, t, &a, &secrets("acme")).unwrap_err();
        assert_eq!(err.status, Status::InvalidInput);
    }

    #[test]
    fn a_path_hole_naming_no_param_is_the_secret_field_filled_host_safe() {
        let mut c = catalog();
        c.tools[1].get = Some("/{tenant}/items/{id}/notes".into());
        let t = &c.tools[1];
        let a = args(t, serde_json::json!({ "id": "7" }));
        let url = build_url(&c, &c.base_url, t, &a, &secrets("acme"))
            .unwrap()
            .url;
        assert_eq!(url.path(), "/api/v1/acme/items/7/notes");
        let err = build_url(&c, &c.base_url, t, &a, &secrets("a/b")).unwrap_err();
        assert_eq!(err.status, Status::Unauthorized);
        // A param's value that looks like a hole stays a value.
        let a = args(t, serde_json::json!({ "id": "{tenant}" }));
        let url = build_url(&c, &c.base_url, t, &a, &secrets("acme"))
            .unwrap()
            .url;
        assert_eq!(url.path(), "/api/v1/acme/items/%7Btenant%7D/notes");
    }

    #[test]
    fn base_url_secret_must_be_host_safe_and_present() {
        let c = catalog();
        let t = &c.tools[0];
        let a = args(t, serde_json::json!({}));
        let err = build_url(&c, &c.base_url, t, &a, &secrets("evil.com/x?")).unwrap_err();
        assert_eq!(err.status, Status::Unauthorized);
        let err = build_url(&c, &c.base_url, t, &a, &SecretValues::default()).unwrap_err();
        assert!(err.hint.contains("connectors.shop.tenant"), "{}", err.hint);
        assert!(err.hint.contains("SHOP_TENANT"), "{}", err.hint);
    }

    #[test]
    fn upstream_message_is_one_short_line() {
        let c = catalog();
        let body = serde_json::json!({"message": "Name\n  muss ausgefüllt werden"});
        assert_eq!(
            upstream_message(&c, Some(&body)).unwrap(),
            "Name muss ausgefüllt werden"
        );
        let long = serde_json::json!({"message": "x".repeat(1000)});
        assert_eq!(
            upstream_message(&c, Some(&long)).unwrap().chars().count(),
            301
        );
        assert_eq!(
            upstream_message(&c, Some(&serde_json::json!({"trace": "at foo"}))),
            None
        );
    }
}
