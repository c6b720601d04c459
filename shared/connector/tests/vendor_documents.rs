//! Every shipped catalog's requests checked against its vendor's own published API document, not
//! only against ours (`openapi/*.yaml`, written from the catalogs): the methods and paths, the
//! query parameters' names and types (as they go on the wire) and the body fields a tool can
//! send, including fields the vendor requires and fields it has retired.
//!
//! The vendor documents are here as fact tables (`vendor/<connector>.yaml`), each naming its
//! source, version and why it is a table and not the document itself. A connector whose vendor
//! publishes no document has no table and is listed in `WITHOUT_DOCUMENT` instead.
//!
//! Try it: `cargo test -p connector --test vendor_documents`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use catalog::{Catalog, Param, ParamIn, ParamType, Params, Risk, Tool};
use serde::Deserialize;
use serde_json::Value;

/// Shipped connectors whose vendor publishes no API document to check against: none was found
/// for Papierkram (its openapi/papierkram.yaml is written from recordings of the real API).
/// Google's documents are Discovery documents and Microsoft's the slices of Graph's OpenAPI
/// document its PowerShell SDK publishes; their tables say which tools they cannot check
/// (`unchecked`) and which requests are known to depart (`departures`).
const WITHOUT_DOCUMENT: &[&str] = &["papierkram"];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Facts {
    vendor: String,
    source: String,
    version: String,
    /// What the document's paths start with that the catalog's base URL already holds (`/v2`).
    #[serde(default)]
    base_path: String,
    /// Query parameters the document gives every list, beyond each operation's own.
    #[serde(default)]
    paging_query: BTreeMap<String, QueryFact>,
    /// A catalog path prefix the document spells another way (Graph's `/me` is its
    /// `/users/{user-id}`); the longest matching prefix is replaced before the path is looked up.
    #[serde(default)]
    aliases: BTreeMap<String, String>,
    /// Tools whose request this table cannot check, each with the reason (said, never skipped
    /// silently); each must name a tool of the catalog.
    #[serde(default)]
    unchecked: BTreeMap<String, String>,
    /// Tools whose request departs from the document, each with how: reported, not yet fixed in
    /// the catalog. Each must still depart, so a fix unlists it.
    #[serde(default)]
    departures: BTreeMap<String, String>,
    operations: Vec<Operation>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Operation {
    operation: String,
    method: String,
    path: String,
    /// Headers the operation says must be set to a value (`cal-api-version: 2024-08-13`).
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    query: BTreeMap<String, QueryFact>,
    /// Why the document's query parameters cannot be held against the catalog (it declares none
    /// for an endpoint that takes some); the query goes unchecked, said in the fact table.
    #[serde(default)]
    query_undeclared: Option<String>,
    /// Body fields by dotted path (`voucherPosSave[].accountDatev.id`) with their type.
    #[serde(default)]
    body: BTreeMap<String, String>,
    /// Fields a request must send.
    #[serde(default)]
    required: Vec<String>,
    /// Fields the vendor has retired (a former system version's); a request must not send them.
    #[serde(default)]
    legacy: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum QueryFact {
    Kind(String),
    Enum {
        #[serde(rename = "type")]
        kind: String,
        #[serde(rename = "enum")]
        values: Vec<String>,
    },
}

impl QueryFact {
    fn kind(&self) -> &str {
        match self {
            QueryFact::Kind(k) | QueryFact::Enum { kind: k, .. } => k,
        }
    }
    fn values(&self) -> Option<&[String]> {
        match self {
            QueryFact::Kind(_) => None,
            QueryFact::Enum { values, .. } => Some(values),
        }
    }
}

/// What a query parameter's value looks like on the wire.
#[derive(Debug, PartialEq)]
enum Wire {
    Integer,
    Number,
    Boolean,
    String,
    /// One of these words (a string enum, or a boolean the upstream spells as words).
    Words(Vec<String>),
    Date,
    DateTime,
    Array,
}

fn wire(p: &Param) -> Wire {
    match p.kind {
        ParamType::Integer => Wire::Integer,
        ParamType::Number => Wire::Number,
        ParamType::Boolean => match &p.values {
            Some(v) => Wire::Words(vec![v.when_true.to_string(), v.when_false.to_string()]),
            None => Wire::Boolean,
        },
        ParamType::String => match &p.choices {
            Some(c) => Wire::Words(c.iter().map(|c| c.to_string()).collect()),
            None => Wire::String,
        },
        ParamType::TimeZone => Wire::String,
        ParamType::Date if p.unix_time.is_some() => Wire::Integer,
        ParamType::Date if p.date_time.is_some() => Wire::DateTime,
        ParamType::Date => Wire::Date,
        ParamType::Datetime => Wire::DateTime,
        ParamType::Array => Wire::Array,
    }
}

/// Why `sent` does not fit what the document declares, if it does not.
fn misfit(sent: &Wire, fact: &QueryFact) -> Option<String> {
    if let (Some(allowed), Wire::Words(words)) = (fact.values(), sent) {
        let outside: Vec<&String> = words.iter().filter(|w| !allowed.contains(w)).collect();
        return (!outside.is_empty())
            .then(|| format!("sends {outside:?}, the document allows only {allowed:?}"));
    }
    let all = |ok: fn(&str) -> bool| match sent {
        Wire::Words(words) => words.iter().all(|w| ok(w)),
        _ => false,
    };
    let fits = match fact.kind() {
        "integer" => *sent == Wire::Integer || all(|w| w.parse::<i64>().is_ok()),
        "number" => {
            matches!(sent, Wire::Integer | Wire::Number) || all(|w| w.parse::<f64>().is_ok())
        }
        "boolean" => *sent == Wire::Boolean,
        // On the wire every scalar is text; a plain string in the document takes any.
        "string" => *sent != Wire::Array,
        "date" => *sent == Wire::Date,
        "date-time" => *sent == Wire::DateTime,
        "array" => matches!(sent, Wire::Array | Wire::String | Wire::Words(_)),
        _ => false,
    };
    (!fits).then(|| format!("sends {sent:?} where the document wants {}", fact.kind()))
}

/// `path` as the document spells it: its longest prefix in `aliases` (a whole segment) replaced.
fn unalias(path: &str, aliases: &BTreeMap<String, String>) -> String {
    let fits = |prefix: &str| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '(']))
    };
    match aliases
        .iter()
        .filter(|(from, _)| fits(from))
        .max_by_key(|(from, _)| from.len())
    {
        Some((from, to)) => format!("{to}{}", &path[from.len()..]),
        None => path.to_string(),
    }
}

/// `/Invoice/{id}/getPositions` and `/Invoice/{invoiceId}/getPositions` name the same path.
fn shape(path: &str) -> String {
    let mut out = String::new();
    let mut in_hole = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_hole = true;
                out.push_str("{}");
            }
            '}' => in_hole = false,
            _ if in_hole => {}
            _ => out.push(c),
        }
    }
    out
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The body fields a tool can send (`possible`) and those it sends on every call (`always`: the
/// constants, and placeholders of required params or params with a default).
#[derive(Default)]
struct Sent {
    possible: BTreeSet<String>,
    always: BTreeSet<String>,
}

impl Sent {
    fn leaf(&mut self, path: String, always: bool) {
        if always {
            self.always.insert(path.clone());
        }
        self.possible.insert(path);
    }

    /// A value of `p` placed at `path`: an array's items through their `item_body`, its item
    /// fields as given, or its plain values; anything else a leaf.
    fn param(&mut self, p: &Param, path: &str, always: bool) {
        let items = format!("{path}[]");
        match (&p.item_body, &p.items, &p.item) {
            (Some(template), Some(fields), _) => self.template(template, &items, fields, always),
            (None, Some(fields), _) => {
                for (name, f) in fields {
                    self.leaf(join(&items, name), always && sent_always(f));
                }
            }
            (None, None, Some(_)) => self.leaf(items, always),
            _ => self.leaf(path.to_string(), always),
        }
    }

    /// A body template at `path`, its placeholders naming `params`.
    fn template(&mut self, v: &Value, path: &str, params: &Params, always: bool) {
        match v {
            // An empty object is a value of its own (Lexware's role `customer: {}`), and so is a
            // message composed from its parts (`{"$rfc5322": …}` goes up as one string).
            Value::Object(fields)
                if fields.is_empty() || fields.contains_key(catalog::MESSAGE_KEY) =>
            {
                self.leaf(path.to_string(), always)
            }
            Value::Object(fields) => {
                // An object whose placeholders all go without a value is left out, constants and all.
                let always = always && (!holds_placeholder(v) || holds_always(v, params));
                for (k, x) in fields {
                    self.template(x, &join(path, k), params, always);
                }
            }
            Value::Array(items) => {
                for x in items {
                    self.template(x, &format!("{path}[]"), params, always);
                }
            }
            Value::String(s) => match catalog::body_placeholder(s) {
                Some(name) => {
                    let p = params
                        .get(name)
                        .unwrap_or_else(|| panic!("`{{{name}}}` names no param"));
                    self.param(p, path, always && sent_always(p));
                }
                None => self.leaf(path.to_string(), always),
            },
            _ => self.leaf(path.to_string(), always),
        }
    }
}

fn sent_always(p: &Param) -> bool {
    p.required || p.default.is_some()
}

fn holds_placeholder(v: &Value) -> bool {
    match v {
        Value::String(s) => catalog::body_placeholder(s).is_some(),
        Value::Object(m) => m.values().any(holds_placeholder),
        Value::Array(a) => a.iter().any(holds_placeholder),
        _ => false,
    }
}

fn holds_always(v: &Value, params: &Params) -> bool {
    match v {
        Value::String(s) => catalog::body_placeholder(s)
            .and_then(|name| params.get(name))
            .is_some_and(|p| sent_always(p)),
        Value::Object(m) => m.values().any(|x| holds_always(x, params)),
        Value::Array(a) => a.iter().any(|x| holds_always(x, params)),
        _ => false,
    }
}

/// The body fields `tool` sends: through its `body` template, or its body params under their
/// upstream names (a dotted name nests), as the server builds a request; and the fields of the
/// current record it sends back on every call (`from_current`).
fn body_fields(tool: &Tool) -> Sent {
    let mut sent = Sent::default();
    for field in &tool.from_current {
        sent.leaf(field.to_string(), true);
    }
    match &tool.body {
        Some(template) => sent.template(template, "", &tool.params, true),
        None => {
            for (name, p) in &tool.params {
                if p.location == ParamIn::Body {
                    sent.param(p, p.upstream_name(name), sent_always(p));
                }
            }
        }
    }
    sent
}

/// A sent field the document declares: by its path, or under a field the document leaves open
/// (an object without properties).
fn declared(field: &str, body: &BTreeMap<String, String>) -> bool {
    body.contains_key(field)
        || body.iter().any(|(k, kind)| {
            matches!(kind.as_str(), "object" | "any") && field.starts_with(&format!("{k}."))
        })
}

/// Every way `tool` departs from its vendor's document; empty when it sends only what the
/// document accepts.
fn problems(c: &Catalog, tool: &Tool, facts: &Facts) -> Vec<String> {
    let Some((method, path)) = tool.http() else {
        return vec![]; // an aggregation: its sources are checked as tools
    };
    let wanted = shape(&unalias(
        &format!("{}{path}", facts.base_path),
        &facts.aliases,
    ));
    let Some(op) = facts
        .operations
        .iter()
        .find(|op| op.method == method.as_str() && shape(&op.path) == wanted)
    else {
        return vec![format!(
            "{} {path}: not an operation of {} {}",
            method.as_str(),
            facts.source,
            facts.version
        )];
    };
    let mut out = Vec::new();
    for (name, value) in &op.headers {
        let sent = tool
            .headers
            .get(name.as_str())
            .or_else(|| c.headers.get(name.as_str()));
        if sent.map(|v| v.as_str()) != Some(value.as_str()) {
            out.push(format!(
                "header `{name}`: sends {sent:?}, {} must have {value:?}",
                op.operation
            ));
        }
    }
    let mut query = |name: &str, sent: Wire| {
        if op.query_undeclared.is_some() {
            return;
        }
        let fact = op.query.get(name).or_else(|| facts.paging_query.get(name));
        match fact {
            None => out.push(format!(
                "query `{name}`: {} ({}) declares no such parameter",
                op.operation, op.path
            )),
            Some(fact) => {
                if let Some(why) = misfit(&sent, fact) {
                    out.push(format!("query `{name}`: {why}"));
                }
            }
        }
    };
    for (name, p) in &tool.params {
        if p.location == ParamIn::Query {
            query(p.upstream_name(name), wire(p));
        }
    }
    // A list tool's own paging (an unpaged one sends nothing), else the catalog's.
    if tool.list
        && let Some(paging) = tool.paging.as_deref().or(c.paging.as_ref())
    {
        for name in [&paging.offset_param, &paging.size_param, &paging.page_param]
            .into_iter()
            .flatten()
        {
            query(name, Wire::Integer);
        }
    }
    let sent = body_fields(tool);
    for field in &sent.possible {
        if op.legacy.contains(field) {
            out.push(format!(
                "body `{field}`: retired in {} {}",
                facts.source, facts.version
            ));
        } else if !declared(field, &op.body) {
            out.push(format!(
                "body `{field}`: {} ({}) has no such field",
                op.operation, op.path
            ));
        }
    }
    for field in &op.required {
        let under = |f: &String| {
            f == field
                || f.starts_with(&format!("{field}."))
                || f.starts_with(&format!("{field}[]"))
        };
        if !sent.always.iter().any(under) {
            out.push(format!(
                "body `{field}`: required by {}, not always sent",
                op.operation
            ));
        }
    }
    out
}

fn vendor_folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vendor")
}

fn facts(connector: &str) -> Option<Facts> {
    let file = vendor_folder().join(format!("{connector}.yaml"));
    let text = std::fs::read_to_string(&file).ok()?;
    let facts: Facts = yaml_serde::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: not a fact table: {e}", file.display()));
    assert_eq!(facts.vendor, connector, "{}", file.display());
    Some(facts)
}

/// Problems of every tool of `c` a request can come from (a forbidden tool never sends one),
/// but those the table says it cannot check or knows to depart (reported, not yet fixed): of
/// these, a tool the catalog does not have, or a departure that no longer departs.
fn catalog_problems(c: &Catalog, facts: &Facts) -> Vec<String> {
    let tool = |name: &str| c.tools.iter().find(|t| t.name.as_str() == name);
    let listed = facts.unchecked.keys().chain(facts.departures.keys());
    let stale = listed.filter_map(|name| match tool(name) {
        None => Some(format!(
            "{name}: listed in the table, but the catalog has no such tool"
        )),
        Some(t) if facts.departures.contains_key(name) && problems(c, t, facts).is_empty() => Some(
            format!("{name}: listed as departing, but its request now fits; unlist it"),
        ),
        Some(_) => None,
    });
    let excepted = |t: &Tool| {
        facts.unchecked.contains_key(t.name.as_str())
            || facts.departures.contains_key(t.name.as_str())
    };
    c.tools
        .iter()
        .filter(|t| t.risk != Risk::Forbidden && !t.raw && !excepted(t))
        .flat_map(|t| {
            problems(c, t, facts)
                .into_iter()
                .map(move |p| format!("{}: {p}", t.name))
        })
        .chain(stale)
        .collect()
}

#[test]
fn every_shipped_catalog_sends_only_what_its_vendors_own_document_accepts() {
    let catalogs = connector::catalogs::load(None).unwrap();
    let mut checked = Vec::new();
    for c in &catalogs {
        let Some(facts) = facts(&c.connector) else {
            assert!(
                WITHOUT_DOCUMENT.contains(&c.connector.as_str()),
                "{}: no vendor/{}.yaml; write one from the vendor's document, or list the \
                 connector in WITHOUT_DOCUMENT if its vendor publishes none",
                c.connector,
                c.connector
            );
            continue;
        };
        let found = catalog_problems(c, &facts);
        assert!(
            found.is_empty(),
            "{} departs from {} {}:\n  {}",
            c.connector,
            facts.source,
            facts.version,
            found.join("\n  ")
        );
        checked.push(c.connector.to_string());
    }
    checked.sort();
    assert_eq!(
        checked,
        [
            "calcom",
            "gsuite",
            "lexware",
            "m365",
            "replicate",
            "runway",
            "sevdesk",
            "whatsapp"
        ]
    );
}

/// The check itself: the three requests sevdesk 2.0 does not accept, as the catalog sent them
/// before, each named.
#[test]
fn sevdesk_1_0_requests_are_named_as_departures_from_the_2_0_document() {
    let facts = facts("sevdesk").unwrap();
    let c = catalog::parse(
        "sevdesk.yaml",
        r#"
connector: sevdesk
base_url: "https://my.sevdesk.de/api/v1"
paging: { style: offset, items: /objects, offset_param: offset, size_param: limit, max_page_size: 100 }
tools:
  - name: sevdesk_accounting_types_list
    risk: low
    list: true
    description: 'Lists accounting types. Use it for a voucher. Example: {}'
    get: /AccountingType
  - name: sevdesk_transactions_list
    risk: low
    list: true
    description: 'Lists transactions. Use it for payments. Example: {}'
    get: /CheckAccountTransaction
    params:
      date_from: { type: date, as: startDate }
  - name: sevdesk_voucher_create
    risk: high
    effect: financial
    idempotent: false
    audit_event: voucher.created
    side_effects: A voucher draft.
    failure_modes: ["400: refused."]
    description: 'Records a voucher. Use it for a receipt. Example: {}'
    post: /Voucher/Factory/saveVoucher
    body:
      voucher: { objectName: Voucher, mapAll: true, status: 50, voucherType: VOU, creditDebit: C,
                 taxRule: { id: "{tax_rule_id}", objectName: TaxRule } }
      voucherPosSave: "{positions}"
    params:
      tax_rule_id: { type: integer, in: body, default: 9 }
      positions:
        type: array
        in: body
        required: true
        max_items: 5
        items:
          amount: { type: number, required: true }
          tax_rate: { type: number, required: true }
          accounting_type_id: { type: integer, required: true }
        item_body:
          objectName: VoucherPos
          mapAll: true
          net: false
          sumGross: "{amount}"
          taxRate: "{tax_rate}"
          accountingType: { id: "{accounting_type_id}", objectName: AccountingType }
"#,
    )
    .unwrap();
    let found = catalog_problems(&c, &facts);
    let has = |tool: &str, what: &str| {
        found
            .iter()
            .any(|p| p.starts_with(tool) && p.contains(what))
    };
    assert!(
        has(
            "sevdesk_accounting_types_list",
            "GET /AccountingType: not an operation"
        ),
        "{found:#?}"
    );
    assert!(
        has(
            "sevdesk_transactions_list",
            "query `startDate`: sends Date where the document wants date-time"
        ),
        "{found:#?}"
    );
    assert!(
        has(
            "sevdesk_voucher_create",
            "body `voucherPosSave[].accountingType.id`: retired"
        ),
        "{found:#?}"
    );
    assert!(
        has(
            "sevdesk_voucher_create",
            "body `voucherPosSave[].accountDatev.id`: required"
        ),
        "{found:#?}"
    );
    assert_eq!(found.len(), 6, "exactly these: {found:#?}");
}

#[test]
fn a_query_value_outside_the_documents_enum_or_type_is_named() {
    let status = QueryFact::Enum {
        kind: "number".into(),
        values: vec!["100".into(), "200".into()],
    };
    assert_eq!(
        misfit(&Wire::Words(vec!["100".into()]), &status),
        None,
        "a string enum of numbers fits a number enum"
    );
    assert!(
        misfit(&Wire::Words(vec!["750".into()]), &status)
            .unwrap()
            .contains("\"750\"")
    );
    let date_time = QueryFact::Kind("date-time".into());
    assert!(misfit(&Wire::Date, &date_time).is_some());
    assert_eq!(misfit(&Wire::DateTime, &date_time), None);
    assert!(misfit(&Wire::Boolean, &QueryFact::Kind("integer".into())).is_some());
}

#[test]
fn a_calcom_request_with_another_api_version_or_an_undeclared_filter_is_named() {
    let facts = facts("calcom").unwrap();
    let c = catalog::parse(
        "calcom.yaml",
        r#"
connector: calcom
base_url: "https://api.cal.com/v2"
paging: { style: offset, items: /data, offset_param: skip, size_param: take, max_page_size: 100 }
tools:
  - name: calcom_bookings_list
    risk: low
    list: true
    description: 'Lists bookings. Use it for meetings. Example: {}'
    get: /bookings
    headers: { cal-api-version: "2024-04-15" }
    params:
      after_start: { type: datetime, as: afterStart }
      location: { type: string, max_length: 50 }
  - name: calcom_booking_cancel
    risk: high
    effect: change
    idempotent: false
    audit_event: booking.cancelled
    side_effects: Cancels.
    failure_modes: ["400: refused."]
    description: 'Cancels a booking. Use it to call off a meeting. Example: {}'
    post: /bookings/{uid}/cancel
    headers: { cal-api-version: "2024-08-13" }
    params:
      uid: { type: string, in: path, max_length: 100 }
      reason: { type: string, in: body, as: cancellationReason, max_length: 500 }
"#,
    )
    .unwrap();
    let found = catalog_problems(&c, &facts);
    let expected = [
        "calcom_bookings_list: header `cal-api-version`: sends Some(\"2024-04-15\"), \
         BookingsController_2024_08_13_getBookings must have \"2024-08-13\"",
        "calcom_bookings_list: query `location`: BookingsController_2024_08_13_getBookings \
         (/v2/bookings) declares no such parameter",
        "calcom_booking_cancel: body `cancellationReason`: required by \
         BookingsController_2024_08_13_cancelBooking, not always sent",
    ];
    assert_eq!(found, expected);
}

#[test]
fn a_replicate_prediction_without_input_or_with_the_retired_stream_flag_is_named() {
    let facts = facts("replicate").unwrap();
    let c = catalog::parse(
        "replicate.yaml",
        r#"
connector: replicate
base_url: "https://api.replicate.com/v1"
paging: { style: next_url, items: /results, next: /next }
tools:
  - name: replicate_predictions_list
    risk: low
    list: true
    description: 'Lists predictions. Use it for recent runs. Example: {}'
    get: /predictions
    params:
      status: { type: string, enum: [succeeded, failed] }
      created_after: { type: date }
  - name: replicate_prediction_create
    risk: high
    effect: financial
    idempotent: false
    audit_event: prediction.created
    side_effects: Runs a model.
    failure_modes: ["422: refused."]
    description: 'Runs a model. Use it for an image. Example: {}'
    post: /predictions
    body:
      version: "{model}"
      stream: true
      input: { prompt: "{prompt}" }
    params:
      model: { type: string, in: body, required: true, max_length: 200 }
      prompt: { type: string, in: body, max_length: 1000 }
"#,
    )
    .unwrap();
    let found = catalog_problems(&c, &facts);
    let expected = [
        "replicate_predictions_list: query `created_after`: sends Date where the document \
         wants date-time",
        "replicate_predictions_list: query `status`: predictions.list (/v1/predictions) \
         declares no such parameter",
        "replicate_prediction_create: body `stream`: retired in https://api.replicate.com/openapi.json \
         1.0.0-a1 (as of tryAGI/Replicate commit 1625ee75404d20793ab2e419eeefb554d9a1652c, 2026-03-16)",
        "replicate_prediction_create: body `input`: required by predictions.create, not always sent",
    ];
    assert_eq!(found, expected);
}

#[test]
fn a_runway_request_without_the_version_header_or_with_a_field_no_model_takes_is_named() {
    let facts = facts("runway").unwrap();
    let c = catalog::parse(
        "runway.yaml",
        r#"
connector: runway
base_url: "https://api.dev.runwayml.com/v1"
tools:
  - name: runway_task_get
    risk: low
    description: 'Returns a task. Use it to follow a generation. Example: {}'
    get: /tasks/{id}
    params:
      id: { type: string, in: path, max_length: 64 }
  - name: runway_image_to_video_create
    risk: high
    effect: change
    idempotent: false
    audit_event: generation.started
    side_effects: Spends credits.
    failure_modes: ["400: refused."]
    description: 'Starts a video. Use it to animate an image. Example: {}'
    post: /image_to_video
    headers: { X-Runway-Version: "2024-11-06" }
    params:
      model: { type: string, in: body, required: true, enum: [gen4_turbo] }
      prompt_image: { type: string, in: body, as: promptImage, max_length: 2048 }
      watermark: { type: boolean, in: body }
"#,
    )
    .unwrap();
    let found = catalog_problems(&c, &facts);
    let expected = [
        "runway_task_get: header `X-Runway-Version`: sends None, tasks_retrieve must have \
         \"2024-11-06\"",
        "runway_image_to_video_create: body `watermark`: image_to_video_create \
         (/v1/image_to_video) has no such field",
        "runway_image_to_video_create: body `promptImage`: required by image_to_video_create, \
         not always sent",
    ];
    assert_eq!(found, expected);
}

#[test]
fn a_lexware_update_without_the_records_version_and_roles_is_named() {
    let facts = facts("lexware").unwrap();
    let c = catalog::parse(
        "lexware.yaml",
        r#"
connector: lexware
base_url: "https://api.lexware.io/v1"
tools:
  - name: lexware_contact_get
    risk: low
    description: 'Returns a contact. Use it to read one. Example: {}'
    get: /contacts/{id}
    params:
      id: { type: string, in: path, max_length: 36 }
  - name: lexware_contact_update
    risk: medium
    effect: change
    idempotent: true
    audit_event: contact.updated
    side_effects: Changes a contact.
    failure_modes: ["409: changed since."]
    description: 'Changes a contact. Use it to fix a note. Example: {}'
    put: /contacts/{id}
    current: lexware_contact_get
    params:
      id: { type: string, in: path, max_length: 36 }
      note: { type: string, in: body, max_length: 1000 }
"#,
    )
    .unwrap();
    let found = catalog_problems(&c, &facts);
    let expected = [
        "lexware_contact_update: body `version`: required by contacts_update, not always sent",
        "lexware_contact_update: body `roles`: required by contacts_update, not always sent",
    ];
    assert_eq!(found, expected);
}

#[test]
fn an_m365_request_through_me_is_held_against_the_users_path_and_stale_exceptions_are_named() {
    let facts = facts("m365").unwrap();
    let c = catalog::parse(
        "m365.yaml",
        r#"
connector: m365
base_url: "https://graph.microsoft.com/v1.0"
paging: { style: next_url, items: /value, next: /@odata.nextLink, size_param: $top, max_page_size: 100 }
tools:
  - name: m365_mail_inbox_list
    risk: low
    list: true
    description: 'Lists the inbox. Use it for new mail. Example: {}'
    get: /me/mailFolders/inbox/messages
    params:
      unread: { type: boolean, as: $unread }
  - name: m365_mail_message_update
    risk: medium
    effect: change
    idempotent: true
    audit_event: message.updated
    side_effects: Marks a mail.
    failure_modes: ["404: no mail."]
    description: 'Flags a mail. Use it for follow-up. Example: {}'
    patch: /me/messages/{id}
    body: { flag: { status: "{flag}" } }
    params:
      id: { type: string, in: path, max_length: 300 }
      flag: { type: string, in: body, enum: [flagged] }
  - name: m365_mail_profile_get
    risk: low
    description: 'Returns the account. Use it to learn whose. Example: {}'
    get: /me
"#,
    )
    .unwrap();
    let found = catalog_problems(&c, &facts);
    let (stale, checked): (Vec<&String>, Vec<&String>) = found
        .iter()
        .partition(|p| p.contains("the catalog has no such tool"));
    assert_eq!(
        checked,
        [
            "m365_mail_inbox_list: query `$unread`: user.mailFolder_ListMessage \
             (/users/{user-id}/mailFolders/{mailFolder-id}/messages) declares no such parameter",
            "m365_mail_message_update: body `flag.status`: user_UpdateMessage \
             (/users/{user-id}/messages/{message-id}) has no such field",
        ]
    );
    // `/me` itself is `/users/{user-id}`; every unchecked tool is missing here, and said so.
    assert_eq!(stale.len(), facts.unchecked.len(), "{stale:#?}");
}

#[test]
fn an_alias_replaces_the_longest_whole_segment_prefix() {
    let aliases = BTreeMap::from([
        ("/me".to_string(), "/users/{user-id}".to_string()),
        (
            "/me/mailFolders/inbox".to_string(),
            "/users/{user-id}/mailFolders/{mailFolder-id}".to_string(),
        ),
    ]);
    assert_eq!(unalias("/me", &aliases), "/users/{user-id}");
    assert_eq!(
        unalias("/me/mailFolders/inbox/messages", &aliases),
        "/users/{user-id}/mailFolders/{mailFolder-id}/messages"
    );
    assert_eq!(unalias("/messages", &aliases), "/messages");
    assert_eq!(
        unalias("/meetings", &aliases),
        "/meetings",
        "not a whole segment"
    );
}

#[test]
fn a_gsuite_mail_is_one_composed_field_and_a_fixed_departure_must_be_unlisted() {
    let mut facts = facts("gsuite").unwrap();
    // A departure listed for a request that fits the document (the attachment's name and type
    // once went up as query parameters; `in: answer` keeps them here now).
    facts.departures.insert(
        "gsuite_mail_attachment_get".into(),
        "sends `filename` and `mime_type` as query parameters".into(),
    );
    let c = catalog::parse(
        "gsuite.yaml",
        r#"
connector: gsuite
base_url: "https://www.googleapis.com"
tools:
  - name: gsuite_mail_send
    risk: critical
    effect: external
    idempotent: false
    audit_event: mail.sent
    side_effects: Sends a mail.
    failure_modes: ["400: refused."]
    description: 'Sends a mail. Use it to write. Example: {}'
    post: /gmail/v1/users/me/messages/send
    body:
      raw: { "$rfc5322": { to: "{to}", text: "{body}" } }
      labelIds: "{labels}"
    params:
      to: { type: array, in: body, required: true, max_items: 5, item: { type: string, max_length: 254 } }
      body: { type: string, in: body, required: true, max_length: 2000 }
      labels: { type: array, in: body, max_items: 5, item: { type: string, max_length: 100 } }
  - name: gsuite_mail_attachment_get
    risk: low
    description: 'Reads an attachment. Use it to open one. Example: {}'
    get: /gmail/v1/users/me/messages/{message_id}/attachments/{id}
    params:
      message_id: { type: string, in: path, max_length: 64 }
      id: { type: string, in: path, max_length: 1024 }
  - name: gsuite_calendar_event_create
    risk: medium
    effect: change
    idempotent: false
    audit_event: event.created
    side_effects: Adds an event.
    failure_modes: ["400: refused."]
    description: 'Adds an event. Use it to block time. Example: {}'
    post: /calendar/v3/calendars/{calendar_id}/events
    body: { summary: "{summary}" }
    params:
      calendar_id: { type: string, in: path, max_length: 200 }
      summary: { type: string, in: body, required: true, max_length: 300 }
"#,
    )
    .unwrap();
    let found = catalog_problems(&c, &facts);
    let expected = [
        "gsuite_mail_send: body `labelIds[]`: gmail.users.messages.send \
         (/gmail/v1/users/{userId}/messages/send) has no such field",
        "gsuite_calendar_event_create: body `start`: required by calendar.events.insert, not \
         always sent",
        "gsuite_calendar_event_create: body `end`: required by calendar.events.insert, not \
         always sent",
        "gsuite_mail_attachment_get: listed as departing, but its request now fits; unlist it",
    ];
    assert_eq!(found, expected);
}
