//! Strict argument validation at the boundary, with hints a model can act on.
//!
//! Unknown keys get "did you mean", numeric strings are accepted for numbers (stale clients send
//! `"5"`), booleans are booleans, dates are real calendar dates, bounds and enums are enforced;
//! an array's items are objects whose fields are checked the same way, named `line_items[1].price`,
//! or plain values each checked as the array's `item`, named `entertainment_persons[2]`.
//! `value` checks one value against its param; `list` a list tool's own arguments.

use std::collections::BTreeMap;

use catalog::{Param, Tool};

use super::cursor::{Cursor, ListShape, Resume};
use super::names::{closest, shown};
use super::risk;
use serde_json::{Map, Value};

mod list;
mod value;

use list::list_options;
pub(crate) use value::{boolean, integer, number};
use value::{check, describe};

/// The list shape every list tool shares.
pub(crate) const DEFAULT_PAGE_SIZE: u32 = 50;
pub(crate) const MAX_PAGE_SIZE: u32 = 100;

#[derive(Debug, Clone, PartialEq)]
pub struct ListOptions {
    pub page: u32,
    pub page_size: u32,
    pub fields: Option<Vec<String>>,
    pub count_only: bool,
    /// Where the next page is, for lists paged by cursor (none: the first page).
    pub cursor: Option<Cursor>,
    /// The rest of a page the output cap cut, when the call passed its cursor: `page`,
    /// `page_size` and `cursor` are then that page's, and its first `skip` items are left out.
    pub resumed: Option<Resume>,
}

impl ListOptions {
    /// Items of the upstream page already shown by an earlier, cut result.
    pub fn skip(&self) -> usize {
        self.resumed.as_ref().map_or(0, |r| r.skip as usize)
    }
}

/// The longest idempotency key and confirmation token accepted.
pub(crate) const MAX_IDEMPOTENCY_KEY: usize = 64;
pub(crate) const MAX_TOKEN: usize = 1024;

/// What the platform adds to a write: a preview instead of the write, the key that makes a
/// retry run once, and the confirmation of a previewed call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WriteArgs {
    pub dry_run: bool,
    pub idempotency_key: Option<String>,
    pub confirmation_token: Option<String>,
    /// The fields a tool's `from_current` keeps of the record, as read just before the write:
    /// the body's base, the body params set on top (not part of the digest).
    pub kept: Option<Value>,
}

/// A remote MCP tool's multi-round call: what our client can answer of the remote's input
/// requests (its declared `elicitation`, `sampling`, `roots`), and on a retry the remote's own
/// state with the client's answers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RemoteRound {
    pub capabilities: Map<String, Value>,
    pub state: Option<String>,
    pub responses: Option<Value>,
}

/// Arguments that passed validation, normalised to their declared types.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ValidArgs {
    pub values: BTreeMap<String, Value>,
    pub list: Option<ListOptions>,
    pub write: WriteArgs,
    /// Remote MCP tools only: the round of a multi-round call (not part of the digest).
    pub remote: RemoteRound,
    /// The names completed values carried (`customer_id: "101 · Acme GmbH"` → `customer_id:
    /// Acme GmbH`), for a confirmation form; not part of the digest, not sent upstream.
    pub named: BTreeMap<String, String>,
}

impl ValidArgs {
    /// The declared arguments as canonical JSON (sorted keys, normalised values): what a cut
    /// page's cursor is bound to besides its tool.
    pub fn arguments_text(&self) -> String {
        serde_json::to_string(&self.values).unwrap_or_default()
    }

    /// SHA-256 over the tool and its canonical arguments (sorted keys, normalised values), hex:
    /// what a confirmation and an idempotency key are bound to.
    pub fn digest(&self, connector: &str, tool: &str) -> String {
        use sha2::{Digest, Sha256};
        let canonical = serde_json::to_string(&self.values).unwrap_or_default();
        let list = self
            .list
            .as_ref()
            .map(|l| {
                let mut s = format!("{}:{}:{:?}:{}", l.page, l.page_size, l.fields, l.count_only);
                // Only where there is one, so digests without a cursor stay what they were.
                if let Some(c) = &l.cursor {
                    s.push(':');
                    s.push_str(&c.encode());
                }
                if let Some(r) = &l.resumed {
                    s.push_str(&format!(":skip={}", r.skip));
                }
                s
            })
            .unwrap_or_default();
        let hash = Sha256::digest(format!("{connector}/{tool}\n{canonical}\n{list}").as_bytes());
        hash.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// What separates a value from its name in a completion value (`101 · Acme GmbH`): a param that
/// declares `complete` takes the part before it as its value.
pub(crate) const COMPLETED: &str = " · ";

/// The most characters of a completed value's name kept for a confirmation form.
const MAX_NAME: usize = 200;

/// A value as a param declaring `complete` takes it: a completion value as offered (`101 ·
/// Acme GmbH`) is its value (`101`) and the name beside it; anything else is the value as is
/// (and checked as today).
fn completed<'v>(p: &Param, v: &'v Value) -> (std::borrow::Cow<'v, Value>, Option<String>) {
    use std::borrow::Cow;
    let split = match v {
        Value::String(s) if p.complete.is_some() => s.split_once(COMPLETED),
        _ => None,
    };
    match split {
        Some((value, name)) => {
            let name: String = name.split_whitespace().collect::<Vec<_>>().join(" ");
            let name: String = name.chars().take(MAX_NAME).collect();
            let value = Cow::Owned(Value::String(value.trim().to_string()));
            (value, (!name.is_empty()).then_some(name))
        }
        None => (Cow::Borrowed(v), None),
    }
}

/// Why the arguments were refused; `hint` tells the caller how to fix the call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Invalid {
    pub hint: String,
}

pub(crate) fn invalid(hint: impl Into<String>) -> Invalid {
    Invalid { hint: hint.into() }
}

/// Every argument name the tool accepts, declared and platform-added; `list` is the shape its
/// catalog's paging gives list tools.
pub(crate) fn accepted_names(tool: &Tool, list: ListShape) -> Vec<&str> {
    let mut names: Vec<&str> = tool.params.keys().map(catalog::Text::as_str).collect();
    if tool.raw {
        names.push("path");
    }
    if tool.list {
        // Every list takes `cursor`: a cut page continues with one.
        names.push("cursor");
        if !list.by_cursor {
            names.push("page");
        }
        if list.sized {
            names.push("page_size");
        }
        names.push("fields");
        if list.counts {
            names.push("count_only");
        }
    }
    if risk::is_write(tool) {
        names.extend(["dry_run", "idempotency_key"]);
    }
    if risk::needs_confirmation(tool) {
        names.push("confirmation_token");
    }
    names
}

pub(crate) fn validate(
    tool: &Tool,
    list: ListShape,
    args: &Map<String, Value>,
) -> Result<ValidArgs, Invalid> {
    let accepted = accepted_names(tool, list);
    // A list argument this upstream's paging cannot honour gets its own hint first.
    if let Some(hint) = args
        .keys()
        .filter(|key| !accepted.contains(&key.as_str()))
        .find_map(|key| list_hint(tool, list, key))
    {
        return Err(invalid(hint));
    }
    let (values, named) = declared(tool.params.iter().map(|(n, p)| (n, &**p)), &accepted, args)?;
    let mut valid = ValidArgs {
        values,
        named,
        ..ValidArgs::default()
    };
    if tool.raw {
        let path = args.get("path").and_then(Value::as_str).ok_or_else(|| {
            invalid("Missing required argument `path` (string starting with `/`).")
        })?;
        valid
            .values
            .insert("path".into(), Value::String(check_raw_path(path)?));
    }
    if tool.list {
        valid.list = Some(list_options(tool, list, args)?);
    }
    valid.write = write_args(args)?;
    Ok(valid)
}

/// Why a list argument this upstream's paging cannot honour is not offered, in words the
/// model can act on.
fn list_hint(tool: &Tool, list: ListShape, key: &str) -> Option<String> {
    if !tool.list {
        return None;
    }
    match key {
        "page" if list.by_cursor => Some(
            "This list pages by cursor, not by page number: leave `page` out for the first \
             page, then pass the result's next_cursor as `cursor`."
                .into(),
        ),
        "page_size" if !list.sized => {
            Some("The upstream chooses the page size of this list; leave `page_size` out.".into())
        }
        "count_only" if !list.counts => Some(
            "The upstream reports no total for this list, so `count_only` is not offered: \
             count with an aggregation tool, or page through the list."
                .into(),
        ),
        _ => None,
    }
}

/// The values of a prompt's typed arguments: the same checks as a tool's params, so a prompt
/// argument is refused with the same hint a tool argument would get.
pub(crate) fn validate_params<'a>(
    params: impl Iterator<Item = (&'a catalog::Text, &'a Param)> + Clone,
    args: &Map<String, Value>,
) -> Result<BTreeMap<String, Value>, Invalid> {
    let accepted: Vec<&str> = params.clone().map(|(n, _)| n.as_str()).collect();
    declared(params, &accepted, args).map(|(values, _)| values)
}

/// Unknown names refused with the closest accepted one, then every declared param checked,
/// required ones present and defaults filled in. A declared param given as `null` is refused
/// with its name: clients send `null` for a value they could not parse, and taking it as
/// "absent" would turn a filter the user asked for into no filter (every record, answered as
/// ok). The platform's own options (`page`, `page_size`, `fields`, `count_only`, `cursor`,
/// `dry_run`, …) do take `null` as absent: each has a default and none narrows what is read.
fn declared<'a>(
    params: impl IntoIterator<Item = (&'a catalog::Text, &'a Param)>,
    accepted: &[&str],
    args: &Map<String, Value>,
) -> Result<Declared, Invalid> {
    for key in args.keys() {
        if !accepted.contains(&key.as_str()) {
            let hint = match closest(key, accepted.iter().copied()) {
                Some(best) => format!("Unknown argument `{key}`. Did you mean `{best}`?"),
                None => format!("Unknown argument `{}`.", shown(key)),
            };
            return Err(invalid(format!(
                "{hint} Valid arguments: {}.",
                accepted.join(", ")
            )));
        }
    }
    let (mut values, mut named) = (BTreeMap::new(), BTreeMap::new());
    for (name, param) in params {
        match args.get(name.as_str()) {
            Some(Value::Null) => {
                return Err(invalid(format!(
                    "`{name}` is null, which is not a value ({}). Give a value, or leave \
                     `{name}` out{}.",
                    describe(param),
                    if param.required || param.location == catalog::ParamIn::Path {
                        " only if you do not need this tool: it is required"
                    } else {
                        " entirely when it should not count"
                    }
                )));
            }
            Some(v) => {
                let (v, carried) = completed(param, v);
                values.insert(name.to_string(), check(name, param, &v)?);
                if let Some(carried) = carried {
                    named.insert(name.to_string(), carried);
                }
            }
            None if param.required || param.location == catalog::ParamIn::Path => {
                return Err(invalid(format!(
                    "Missing required argument `{name}` ({}).",
                    describe(param)
                )));
            }
            None => {
                if let Some(d) = &param.default {
                    values.insert(name.to_string(), d.clone());
                }
            }
        }
    }
    Ok((values, named))
}

/// Checked values by name, and the names completed values carried.
type Declared = (BTreeMap<String, Value>, BTreeMap<String, String>);

/// `dry_run`, `idempotency_key`, `confirmation_token` (only accepted names reach here).
pub(crate) fn write_args(args: &Map<String, Value>) -> Result<WriteArgs, Invalid> {
    let text = |name: &str, max: usize| -> Result<Option<String>, Invalid> {
        match args.get(name).filter(|v| !v.is_null()) {
            None => Ok(None),
            Some(Value::String(s))
                if !s.is_empty()
                    && s.len() <= max
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)) =>
            {
                Ok(Some(s.clone()))
            }
            Some(_) => Err(invalid(format!(
                "`{name}` must be 1 to {max} characters of letters, digits, `-`, `_` or `.`."
            ))),
        }
    };
    Ok(WriteArgs {
        dry_run: match args.get("dry_run") {
            None | Some(Value::Null) => false,
            Some(v) => boolean("dry_run", v)?,
        },
        idempotency_key: text("idempotency_key", MAX_IDEMPOTENCY_KEY)?,
        confirmation_token: text("confirmation_token", MAX_TOKEN)?,
        kept: None,
    })
}

/// A raw path: relative to the connector's base URL, no traversal, no scheme, no query.
fn check_raw_path(path: &str) -> Result<String, Invalid> {
    let ok = path.starts_with('/')
        && !path.contains("..")
        && !path.contains("//")
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/-_.".contains(c));
    if ok {
        Ok(path.to_string())
    } else {
        Err(invalid(
            "`path` must start with `/` and contain only letters, digits, `/`, `-`, `_`, `.` (no `..`, no query).",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests' tools page by number, as every list did before `paging`.
    fn validate(tool: &Tool, args: &Map<String, Value>) -> Result<ValidArgs, Invalid> {
        super::validate(tool, ListShape::PAGES, args)
    }
    use serde_json::json;

    #[test]
    fn a_completed_value_is_its_value_and_the_name_beside_it_only_where_completion_is_declared() {
        let c = catalog::parse(
            "t.yaml",
            r#"
connector: shop
base_url: "http://x"
list_envelope: { items: entries }
tools:
  - name: shop_companies_list
    risk: low
    list: true
    description: d
    get: /companies
    fields: [id, name]
  - name: shop_invoice_create
    risk: high
    description: d
    post: /invoices
    params:
      customer_id: { type: integer, in: body, required: true, min: 1, complete: { from: shop_companies_list, match: name, value: id } }
      project_id: { type: integer, in: body, min: 1 }
"#,
        )
        .unwrap();
        let t = &c.tools[1];
        let args = |v: Value| v.as_object().cloned().unwrap();
        let valid = validate(t, &args(json!({"customer_id": "101 · Acme  GmbH"}))).unwrap();
        assert_eq!(valid.values["customer_id"], json!(101));
        assert_eq!(valid.named["customer_id"], "Acme GmbH");
        let bare = validate(t, &args(json!({"customer_id": 101}))).unwrap();
        assert_eq!(bare.values, valid.values, "the same call, the same digest");
        assert!(bare.named.is_empty());
        for refused in [
            json!({"customer_id": "Acme GmbH"}),
            json!({"customer_id": "101 Acme GmbH"}),
            json!({"customer_id": "x · Acme GmbH"}),
            json!({"customer_id": 101, "project_id": "7 · Relaunch"}),
        ] {
            assert!(validate(t, &args(refused.clone())).is_err(), "{refused}");
        }
    }

    fn tool() -> Tool {
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
    fields: [id, name, billing.company]
    params:
      invoice_id: { type: integer, min: 1 }
      document_date_from: { type: date }
      descending: { type: boolean, values: { true: desc, false: asc } }
      state: { type: string, enum: [draft, sent, paid] }
      amount: { type: number, max: 1000 }
"#,
        )
        .unwrap()
        .tools
        .remove(0)
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn invoice_create() -> Tool {
        catalog::parse(
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
        required: true
        max_items: 2
        items:
          name: { type: string, required: true, max_length: 9 }
          quantity: { type: number, min: 0 }
          unit: { type: string, enum: [hour, day] }
"#,
        )
        .unwrap()
        .tools
        .remove(0)
    }

    #[test]
    fn a_declared_param_given_null_is_refused_by_name_and_an_option_is_absent() {
        let err = validate(&tool(), &args(json!({"invoice_id": null}))).unwrap_err();
        let hint = format!("{err:?}");
        assert!(hint.contains("`invoice_id` is null"), "{hint}");
        assert!(hint.contains("integer"), "{hint}");
        let err = validate(&tool(), &args(json!({"state": null}))).unwrap_err();
        assert!(format!("{err:?}").contains("`state` is null"), "{err:?}");
        // The platform's options: null is their default.
        let v = validate(
            &tool(),
            &args(json!({"page": null, "page_size": null, "fields": null})),
        )
        .unwrap();
        assert_eq!(v.list.unwrap().page, 1);
    }

    #[test]
    fn a_unix_time_date_goes_up_as_the_seconds_of_local_midnight() {
        let tool = catalog::parse(
            "t.yaml",
            r#"
connector: sevdesk
base_url: "http://x"
tools:
  - name: sevdesk_invoices_get
    risk: low
    description: d
    get: /Invoice
    params:
      start_date: { type: date, unix_time: Europe/Berlin }
"#,
        )
        .unwrap()
        .tools
        .remove(0);
        // 2026-05-01 00:00 in Berlin (CEST, UTC+2) is 2026-04-30 22:00 UTC.
        let v = validate(&tool, &args(json!({"start_date": "2026-05-01"}))).unwrap();
        assert_eq!(v.values["start_date"], json!(1_777_586_400));
        let err = validate(&tool, &args(json!({"start_date": "2026-02-30"}))).unwrap_err();
        assert!(format!("{err:?}").contains("real date"), "{err:?}");
    }

    #[test]
    fn a_date_time_date_goes_up_as_local_midnight_in_utc() {
        let tool = catalog::parse(
            "t.yaml",
            r#"
connector: sevdesk
base_url: "http://x"
tools:
  - name: sevdesk_transactions_list
    risk: low
    description: d
    get: /CheckAccountTransaction
    params:
      date_from: { type: date, date_time: Europe/Berlin }
"#,
        )
        .unwrap()
        .tools
        .remove(0);
        let up = |d: &str| {
            validate(&tool, &args(json!({ "date_from": d }))).map(|v| v.values["date_from"].clone())
        };
        // Midnight in Berlin is 22:00 UTC the day before in summer (CEST), 23:00 in winter (CET).
        assert_eq!(up("2026-05-01").unwrap(), json!("2026-04-30T22:00:00Z"));
        assert_eq!(up("2026-01-15").unwrap(), json!("2026-01-14T23:00:00Z"));
        let err = up("2026-02-30").unwrap_err();
        assert!(format!("{err:?}").contains("real date"), "{err:?}");
    }

    #[test]
    fn a_datetime_names_its_zone_and_goes_up_as_utc() {
        let tool = catalog::parse(
            "t.yaml",
            r#"
connector: calcom
base_url: "http://x"
tools:
  - name: calcom_booking_create
    risk: low
    description: d
    get: /b
    params:
      start: { type: datetime }
"#,
        )
        .unwrap()
        .tools
        .remove(0);
        let up = |s: &str| {
            validate(&tool, &args(json!({ "start": s }))).map(|v| v.values["start"].clone())
        };
        // 10:00 in Berlin in summer (CEST, UTC+2) is 08:00 UTC, in winter (CET) 09:00 UTC.
        assert_eq!(
            up("2026-05-04T10:00[Europe/Berlin]").unwrap(),
            json!("2026-05-04T08:00:00Z")
        );
        assert_eq!(
            up("2026-12-07T10:00:00[Europe/Berlin]").unwrap(),
            json!("2026-12-07T09:00:00Z")
        );
        assert_eq!(
            up("2026-05-04T10:00:00+02:00").unwrap(),
            json!("2026-05-04T08:00:00Z")
        );
        assert_eq!(
            up("2026-05-04T10:00:00Z").unwrap(),
            json!("2026-05-04T10:00:00Z")
        );
        // A time without a zone is never taken as UTC.
        for bad in [
            "2026-05-04T10:00:00",
            "2026-05-04",
            "10:00",
            "2026-05-04T10:00[Mars/Olympus]",
        ] {
            let err = up(bad).unwrap_err();
            assert!(err.hint.contains("time zone"), "{bad}: {err:?}");
        }
        let err = up(&"9".repeat(200)).unwrap_err();
        assert!(err.hint.contains("80 characters"), "{err:?}");
    }

    #[test]
    fn a_time_zone_is_a_known_iana_name() {
        let tool = catalog::parse(
            "t.yaml",
            "connector: calcom\nbase_url: \"http://x\"\ntools:\n  - name: calcom_week_get\n    risk: low\n    description: d\n    get: /w\n    params:\n      time_zone: { type: time_zone }\n",
        )
        .unwrap()
        .tools
        .remove(0);
        let zone = |z: &str| validate(&tool, &args(json!({ "time_zone": z })));
        assert_eq!(
            zone(" Europe/Berlin ").unwrap().values["time_zone"],
            json!("Europe/Berlin")
        );
        assert!(zone("UTC").is_ok());
        for bad in ["Berlin", "Mars/Olympus", "", "+02:00"] {
            let err = zone(bad).unwrap_err();
            assert!(err.hint.contains("IANA time zone"), "{bad}: {err:?}");
        }
    }

    #[test]
    fn array_items_are_checked_field_by_field_and_normalised() {
        let v = validate(
            &invoice_create(),
            &args(json!({"line_items": [{"name": "Konzept", "quantity": "1.5", "unit": "Hour"}]})),
        )
        .unwrap();
        assert_eq!(
            v.values["line_items"],
            json!([{"name": "Konzept", "quantity": 1.5, "unit": "hour"}])
        );
    }

    #[test]
    fn array_refusals_name_the_item_and_field_with_a_hint() {
        let hint = |line_items: Value| {
            validate(&invoice_create(), &args(json!({"line_items": line_items})))
                .unwrap_err()
                .hint
        };
        let typo = hint(json!([{"name": "A", "quantitiy": 1}]));
        assert!(
            typo.starts_with(
                "Unknown field `quantitiy` in `line_items[0]`. Did you mean `quantity`?"
            ),
            "{typo}"
        );
        assert!(hint(json!([{"quantity": 1}])).contains("`line_items[0].name`"));
        let low = hint(json!([{"name": "A"}, {"name": "B", "quantity": -1}]));
        assert!(
            low.contains("`line_items[1].quantity` must be ≥ 0"),
            "{low}"
        );
        let many = hint(json!([{"name": "A"}, {"name": "B"}, {"name": "C"}]));
        assert!(many.contains("1 to 2 items, got 3"), "{many}");
        assert!(hint(json!([])).contains("1 to 2 items"));
        assert!(hint(json!({"name": "A"})).contains("must be a list of objects"));
        assert!(hint(json!(["A"])).contains("`line_items[0]` must be an object"));
        let missing = validate(&invoice_create(), &args(json!({})))
            .unwrap_err()
            .hint;
        assert!(
            missing.contains("list of at most 2 objects with name, quantity, unit"),
            "{missing}"
        );
    }

    fn voucher_create() -> Tool {
        catalog::parse(
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
        required: true
        max_items: 3
        item: { type: string, max_length: 9 }
      line_ids: { type: array, in: body, max_items: 2, item: { type: integer, min: 1 } }
"#,
        )
        .unwrap()
        .tools
        .remove(0)
    }

    #[test]
    fn arrays_of_values_are_checked_element_by_element_and_normalised() {
        let v = validate(
            &voucher_create(),
            &args(json!({"entertainment_persons": ["Carl", "Inga"], "line_ids": ["5", 7]})),
        )
        .unwrap();
        assert_eq!(v.values["entertainment_persons"], json!(["Carl", "Inga"]));
        assert_eq!(v.values["line_ids"], json!([5, 7]));
    }

    #[test]
    fn array_of_values_refusals_name_the_element_with_a_hint() {
        let hint = |persons: Value| {
            validate(
                &voucher_create(),
                &args(json!({"entertainment_persons": persons})),
            )
            .unwrap_err()
            .hint
        };
        assert_eq!(
            hint(json!(["Carl", "Inga", "Maximilian"])),
            "`entertainment_persons[2]` is longer than 9 characters."
        );
        assert_eq!(
            hint(json!(["Carl", true])),
            "`entertainment_persons[1]` must be a string."
        );
        assert_eq!(
            hint(json!(["A", "B", "C", "D"])),
            "`entertainment_persons` must have 1 to 3 items, got 4."
        );
        assert!(hint(json!([])).contains("1 to 3 items, got 0"));
        assert_eq!(
            hint(json!("Carl")),
            "`entertainment_persons` must be a list of at most 3 values, each string."
        );
        let low = validate(
            &voucher_create(),
            &args(json!({"entertainment_persons": ["A"], "line_ids": [1, 0]})),
        )
        .unwrap_err()
        .hint;
        assert_eq!(low, "`line_ids[1]` must be ≥ 1, got 0.");
        let missing = validate(&voucher_create(), &args(json!({})))
            .unwrap_err()
            .hint;
        assert!(
            missing.contains("(list of at most 3 values, each string)"),
            "{missing}"
        );
    }

    #[test]
    fn unknown_argument_gets_did_you_mean_hint() {
        let err = validate(&tool(), &args(json!({"invoce_id": 3}))).unwrap_err();
        assert!(
            err.hint
                .starts_with("Unknown argument `invoce_id`. Did you mean `invoice_id`?"),
            "{}",
            err.hint
        );
        assert!(err.hint.contains("page_size"));
    }

    #[test]
    fn numeric_strings_are_accepted_for_numbers() {
        let v = validate(
            &tool(),
            &args(json!({"invoice_id": "5", "amount": " 12.5", "page_size": "20"})),
        )
        .unwrap();
        assert_eq!(v.values["invoice_id"], json!(5));
        assert_eq!(v.values["amount"], json!(12.5));
        assert_eq!(v.list.unwrap().page_size, 20);
    }

    #[test]
    fn fractional_integer_and_out_of_bounds_are_refused() {
        assert!(validate(&tool(), &args(json!({"invoice_id": 1.5}))).is_err());
        let err = validate(&tool(), &args(json!({"invoice_id": 0}))).unwrap_err();
        assert!(err.hint.contains("≥ 1"), "{}", err.hint);
        let err = validate(&tool(), &args(json!({"page_size": 500}))).unwrap_err();
        assert!(err.hint.contains("between 1 and 100"), "{}", err.hint);
    }

    #[test]
    fn dates_must_be_real_calendar_dates() {
        assert!(validate(&tool(), &args(json!({"document_date_from": "2026-02-29"}))).is_err());
        assert!(validate(&tool(), &args(json!({"document_date_from": "2026-05-01"}))).is_ok());
        assert!(validate(&tool(), &args(json!({"document_date_from": "01.05.2026"}))).is_err());
    }

    #[test]
    fn booleans_are_not_magic_strings() {
        assert!(validate(&tool(), &args(json!({"descending": "desc"}))).is_err());
        let v = validate(&tool(), &args(json!({"descending": "true"}))).unwrap();
        assert_eq!(v.values["descending"], json!(true));
    }

    #[test]
    fn enum_typo_gets_a_suggestion_and_case_is_forgiven() {
        let err = validate(&tool(), &args(json!({"state": "paied"}))).unwrap_err();
        assert!(err.hint.contains("Did you mean `paid`?"), "{}", err.hint);
        let v = validate(&tool(), &args(json!({"state": "PAID"}))).unwrap();
        assert_eq!(v.values["state"], json!("paid"));
    }

    #[test]
    fn list_defaults_and_field_whitelist() {
        let v = validate(&tool(), &args(json!({}))).unwrap();
        assert_eq!(
            v.list,
            Some(ListOptions {
                page: 1,
                page_size: 50,
                fields: None,
                count_only: false,
                cursor: None,
                resumed: None,
            })
        );
        let err = validate(&tool(), &args(json!({"fields": ["id", "nmae"]}))).unwrap_err();
        assert!(err.hint.contains("Did you mean `name`?"), "{}", err.hint);
        let v = validate(
            &tool(),
            &args(json!({"fields": "id, billing.company", "count_only": true})),
        )
        .unwrap();
        let list = v.list.unwrap();
        assert_eq!(list.fields.unwrap(), vec!["id", "billing.company"]);
        assert!(list.count_only);
    }

    #[test]
    fn a_list_paged_by_cursor_takes_a_cursor_and_explains_what_it_does_not_take() {
        let shape = ListShape {
            by_cursor: true,
            sized: false,
            counts: false,
            max_page_size: 100,
        };
        let next = Cursor::Token("t2".into());
        let v = super::validate(&tool(), shape, &args(json!({"cursor": next.encode()}))).unwrap();
        assert_eq!(v.list.unwrap().cursor.as_ref(), Some(&next));
        let hint = |a: Value| super::validate(&tool(), shape, &args(a)).unwrap_err().hint;
        assert!(hint(json!({"page": 2})).contains("pass the result's next_cursor"));
        assert!(hint(json!({"page_size": 5})).contains("upstream chooses the page size"));
        assert!(hint(json!({"count_only": true})).contains("reports no total"));
        assert!(hint(json!({"cursor": "page=2"})).contains("not a next_cursor"));
        assert!(hint(json!({"cursor": 2})).contains("must be a next_cursor"));
        let numbered = hint_of_pages(json!({"cursor": next.encode()}));
        assert!(numbered.contains("pages by number"), "{numbered}");
    }

    #[test]
    fn a_cut_pages_cursor_names_its_page_and_size_in_every_paging_style() {
        let cut = |page, page_size, at: Option<Cursor>| {
            Cursor::Resume(Resume {
                page,
                page_size,
                at: at.map(Box::new),
                skip: 73,
                seal: "c2VhbA".into(),
            })
            .encode()
        };
        // Numbered: the cursor's page and size win over the ones passed beside it.
        let v = validate(
            &tool(),
            &args(json!({"cursor": cut(3, 100, None), "page": 9, "page_size": 5})),
        )
        .unwrap();
        let list = v.list.unwrap();
        assert_eq!((list.page, list.page_size, list.skip()), (3, 100, 73));
        assert_eq!(list.cursor, None);
        // By cursor: the upstream's cursor that reached the page is the one sent.
        let shape = ListShape {
            by_cursor: true,
            sized: true,
            counts: false,
            max_page_size: 50,
        };
        let token = Cursor::Token("t2".into());
        let v = super::validate(
            &tool(),
            shape,
            &args(json!({"cursor": cut(1, 50, Some(token.clone()))})),
        )
        .unwrap();
        let list = v.list.unwrap();
        assert_eq!((list.cursor.as_ref(), list.skip()), (Some(&token), 73));
        // What this server never hands out for the list: over its page size, or a page number
        // on a list paged by cursor.
        for bad in [cut(1, 51, None), cut(2, 50, None)] {
            let e = super::validate(&tool(), shape, &args(json!({"cursor": bad}))).unwrap_err();
            assert!(e.hint.contains("not a next_cursor"), "{}", e.hint);
        }
    }

    fn hint_of_pages(a: Value) -> String {
        validate(&tool(), &args(a)).unwrap_err().hint
    }

    #[test]
    fn raw_paths_cannot_escape() {
        assert!(check_raw_path("/income/invoices").is_ok());
        for bad in ["income", "/../admin", "/a?b=1", "//evil.com/x", "/a%2e%2e/"] {
            assert!(check_raw_path(bad).is_err(), "{bad}");
        }
    }
}
