//! Keeps `catalog.schema.json` in step with the serde model without a JSON-Schema validator: the
//! schema is read as plain JSON and compared with the fields serde declares, the keys and types
//! of fully populated model values, the enum variants and the serde defaults.
//!
//! When a test here fails after a model change, fix the schema (each property with a
//! `description` and an example), then the fixtures below. `tests/tools/validate_catalogs.py`
//! checks catalog files against the schema.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::model::{Paging, PagingStyle};

use crate::model::{
    Aggregate, Auth, BasicAuth, BooleanValues, Catalog, Days, Effect, Errors, Health, Items,
    ListEnvelope, Measure, Method, OAuthUser, Param, ParamIn, ParamType, Params, Provenance, Quota,
    QuotaBody, QuotaProbe, QuotaWindow, RateLimitHeaders, ResetFormat, Risk, Source, Status, Tool,
    Top,
};
use crate::model::{
    Answer, BinaryAnswer, BinaryForm, EncodedParts, InlineDocument, ItemLinks, Job, JobInput,
    JobStates, Price, Prices, Rate, SpendLimit, Spends, TaskSupport,
};
use crate::model::{Complete, Prompt, PromptImage, PromptMessage, PromptResource, PromptRole};
use crate::model::{Inbound, InboundEvents, InboundKind, InboundNames, InboundRead, Requires};
use crate::model::{McpRemote, RemoteOverlay};

const SCHEMA_TEXT: &str = include_str!("../catalog.schema.json");
const SCHEMA_FILE: &str = "shared/catalog/catalog.schema.json";

fn schema() -> Value {
    serde_json::from_str(SCHEMA_TEXT)
        .unwrap_or_else(|e| panic!("{SCHEMA_FILE} is not valid JSON: {e}"))
}

/// The schema node at a JSON pointer (`""` is the root).
fn at<'a>(schema: &'a Value, pointer: &str) -> &'a Value {
    schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("{SCHEMA_FILE} has nothing at #{pointer}"))
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect()
}

fn fail_on(problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "{SCHEMA_FILE} and src/model/ disagree:\n  {}",
        problems.join("\n  ")
    );
}

/// Every field serde accepts for `T`, read from its `deny_unknown_fields` error ("unknown field
/// `x`, expected one of `a`, `b`"), so a new field counts even when a fixture leaves it out.
fn declared_fields<T: DeserializeOwned>(model: &str) -> BTreeSet<String> {
    let message = match serde_json::from_value::<T>(json!({ "unknown probe": 0 })) {
        Ok(_) => panic!("{model} accepted an unknown field: is `deny_unknown_fields` gone?"),
        Err(e) => e.to_string(),
    };
    let Some((_, expected)) = message.split_once(", expected ") else {
        panic!("{model}: cannot read the field list from serde's error `{message}`");
    };
    let fields: BTreeSet<String> = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect();
    assert!(
        !fields.is_empty(),
        "{model}: no fields in serde's error `{message}`"
    );
    fields
}

/// All variants of an enum; the match stops compiling when the enum gains a variant, so the list
/// cannot fall behind.
macro_rules! variants {
    ($ty:ident: $($v:ident),+ $(,)?) => {{
        let _exhaustive = |x: $ty| match x {
            $($ty::$v)|+ => (),
        };
        vec![$($ty::$v),+]
    }};
}

fn serde_names<T: Serialize>(all: &[T]) -> BTreeSet<String> {
    all.iter()
        .map(|v| match serde_json::to_value(v) {
            Ok(Value::String(s)) => s,
            other => panic!("enum variant serializes as {other:?}, not a string"),
        })
        .collect()
}

// Fully populated model values: every Option is Some, every Vec and map non-empty. They are
// shapes, not valid catalogs (the tool has all five HTTP mappings and an aggregate, the measure
// all five kinds). Struct literals without `..` so a new model field stops this file compiling
// until it is set here.

fn full_boolean_values() -> BooleanValues {
    BooleanValues {
        when_true: "desc".into(),
        when_false: "asc".into(),
    }
}

fn full_param() -> Param {
    Param {
        kind: ParamType::Boolean,
        description: Some("Newest first.".into()),
        label: Some("Newest first".into()),
        currency: Some("EUR".into()),
        required: true,
        location: ParamIn::Body,
        upstream: Some("order_direction".into()),
        min: Some(0.5),
        max: Some(1.5),
        max_length: Some(10),
        choices: Some(vec!["desc".into()]),
        values: Some(Box::new(full_boolean_values())),
        default: Some(json!(true)),
        items: Some(Params::from([("quantity".into(), Box::new(item_field()))])),
        item: Some(Box::new(item_field())),
        item_body: Some(json!({"qty": "{quantity}", "objectName": "InvoicePos"})),
        totals: Some(BTreeMap::from([("net".into(), vec!["quantity".into()])])),
        max_items: Some(50),
        complete: Some(Box::new(full_complete())),
        unix_time: Some("Europe/Berlin".into()),
        date_time: Some("Europe/Berlin".into()),
        ask: Some("Newest first?".into()),
    }
}

fn full_complete() -> Complete {
    Complete {
        from: "demo_companies_list".into(),
        match_field: "name".into(),
        value: "id".into(),
        query: Some("search".into()),
    }
}

fn full_prompt_message() -> PromptMessage {
    PromptMessage {
        role: PromptRole::User,
        text: "Call demo_month_close_get for {month}.".into(),
        resource: Some(full_prompt_resource()),
        image: Some(full_prompt_image()),
    }
}

fn full_prompt_resource() -> PromptResource {
    PromptResource {
        uri: "demo://checklists/month-close".into(),
        mime_type: "text/markdown".into(),
        text: "- every voucher booked".into(),
    }
}

fn full_prompt_image() -> PromptImage {
    PromptImage {
        mime_type: "image/png".into(),
        data: "iVBORw0KGgo=".into(),
    }
}

fn full_prompt() -> Prompt {
    Prompt {
        name: "demo_month_close".into(),
        title: Some("Month close".into()),
        description: "Reviews a month.".into(),
        tools: vec!["demo_month_close_get".into()],
        arguments: vec![("month".into(), full_param())].into(),
        template: vec![full_prompt_message()],
    }
}

/// A field of an array's items, or an array's `item`: a param without items of its own (no
/// nested arrays).
fn item_field() -> Param {
    Param {
        kind: ParamType::Number,
        description: Some("Quantity.".into()),
        label: Some("Quantity".into()),
        currency: Some("EUR".into()),
        required: true,
        location: ParamIn::Query,
        upstream: Some("qty".into()),
        min: Some(0.0),
        max: Some(1e6),
        max_length: Some(10),
        choices: Some(vec!["1".into()]),
        values: Some(Box::new(full_boolean_values())),
        default: Some(json!(1)),
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

fn full_tool() -> Tool {
    Tool {
        name: "invoices_list".into(),
        description: "Lists invoices. Example: {}".into(),
        core: false,
        risk: Risk::Low,
        category: Some("income".into()),
        idempotent: Some(true),
        side_effects: Some("None.".into()),
        effect: Some(Effect::Change),
        audit_event: Some("invoice.updated".into()),
        failure_modes: vec!["422: a required field is empty.".into()],
        current: Some("invoices_get".into()),
        base_url: Some("https://people.example.com".into()),
        notifies: vec!["attendees.email".into()],
        from_current: vec!["version".into()],
        get: Some("/invoices".into()),
        post: Some("/invoices".into()),
        put: Some("/invoices/{id}".into()),
        patch: Some("/invoices/{id}".into()),
        delete: Some("/invoices/{id}".into()),
        raw: true,
        read_only: true,
        list: true,
        paging: Some(Box::new(full_paging())),
        params: Params::from([("descending".into(), Box::new(full_param()))]),
        body: Some(json!({"invoice": {"objectName": "Invoice"}, "invoicePosSave": "{positions}"})),
        headers: BTreeMap::from([("cal-api-version".into(), "2024-06-14".into())]),
        fields: vec!["id".into()],
        default_fields: vec!["id".into()],
        untrusted: vec!["name".into()],
        hints: BTreeMap::from([(Status::NotFound, "Look the id up first.".into())]),
        max_result_bytes: Some(16_384),
        resource: Some("t://invoices/{id}".into()),
        answer: Some(Box::new(full_answer())),
        links: Some(Box::new(full_item_links())),
        aggregate: Some(Box::new(full_aggregate())),
        inbound: Some(Box::new(full_inbound_read())),
        requires: Some(Box::new(full_requires())),
        job: Some(Box::new(full_job())),
        spends: Some(Box::new(full_spends())),
        price: Some(Box::new(full_price())),
        operation_id: Some("getInvoices".into()),
        scopes: vec!["mail.send".into()],
        curate: vec!["risk: proposed low because GET".into()],
    }
}

fn full_spends() -> Spends {
    Spends {
        amount: Some(1),
        by: Some("model".into()),
        amounts: BTreeMap::from([("gen4_turbo".into(), 5)]),
        times: Some("duration".into()),
    }
}

fn full_prices() -> Prices {
    Prices {
        of: "hardware".into(),
        per: "second".into(),
        currency: "USD".into(),
        source: "https://example.com/pricing".into(),
        as_of: "2026-12-06".into(),
        unknown: Some("The model's page says which hardware it runs on.".into()),
        items: BTreeMap::from([("gpu-t4".into(), 0.000225)]),
    }
}

fn full_price() -> Price {
    Price {
        by: Some("hardware".into()),
        from: Some("current_release.configuration.hardware".into()),
    }
}

fn full_spend_limit() -> SpendLimit {
    SpendLimit {
        unit: "credits".into(),
        limit: 500,
    }
}

fn full_job() -> Job {
    Job {
        id: "/id".into(),
        state: "/status".into(),
        read: "predictions_get".into(),
        cancel: Some("predictions_cancel".into()),
        states: full_job_states(),
        result: Some("/output".into()),
        error: Some("/error".into()),
        media: vec!["/output".into()],
        poll_every: 5,
        prefer_wait: Some(10),
        output_lives: Some(3600),
        task: TaskSupport::Required,
        input: Some(JobInput {
            questions: "/questions".into(),
            message: Some("/message".into()),
            answer: "predictions_answer".into(),
        }),
    }
}

fn full_job_states() -> JobStates {
    JobStates {
        working: vec!["starting".into(), "processing".into()],
        completed: vec!["succeeded".into()],
        failed: vec!["failed".into()],
        cancelled: vec!["canceled".into()],
        input_required: vec!["waiting".into()],
    }
}

fn full_answer() -> Answer {
    Answer {
        binary: Some(full_binary_answer()),
        inline: vec![full_inline_document()],
        text: Some("/greeting".into()),
        parts: Some(full_encoded_parts()),
    }
}

fn full_encoded_parts() -> EncodedParts {
    EncodedParts {
        at: vec!["/payload".into(), "/payload/parts/*".into()],
        data: "/body/data".into(),
        kind: "/mimeType".into(),
        show: vec!["text/plain".into()],
        max_bytes: 65_536,
    }
}

fn full_inline_document() -> InlineDocument {
    InlineDocument {
        pointer: "/thumbnail".into(),
        mime: "image/png".into(),
        name: Some("{filename}".into()),
        max_bytes: 65_536,
    }
}

fn full_binary_answer() -> BinaryAnswer {
    BinaryAnswer {
        mime: vec!["application/pdf".into()],
        max_bytes: 1_048_576,
        form: BinaryForm::Link,
        redirect: true,
    }
}

fn full_item_links() -> ItemLinks {
    ItemLinks {
        uri: "t://invoices/{id}".into(),
        title: Some("name".into()),
    }
}

fn full_source() -> Source {
    Source {
        tool: "invoices_list".into(),
        args: BTreeMap::from([
            ("document_date_from".into(), json!("{month_start}")),
            ("company_id".into(), json!(7)),
        ]),
        filter: BTreeMap::from([("state".into(), vec!["paid".into(), "unpaid".into()])]),
        items: Some("/calendars/*/busy/*".into()),
    }
}

fn full_top() -> Top {
    Top {
        of: "income".into(),
        by: "billing.company".into(),
        sum: Some("total_gross".into()),
        n: 3,
    }
}

fn full_items() -> Items {
    Items {
        of: "income".into(),
        fields: vec!["id".into(), "due_date".into()],
        sort: "due_date".into(),
        descending: true,
        n: 3,
    }
}

fn full_days() -> Days {
    Days {
        of: "bookings".into(),
        start: "start".into(),
        end: "end".into(),
        from: "{week_start}".into(),
        days: 5,
        zone: "{time_zone}".into(),
        hours: "09:00-17:00".into(),
        weekdays: Some("Mon-Fri".into()),
        also: vec!["theirs".into()],
        slots: Some("{minutes}".into()),
    }
}

fn full_measure() -> Measure {
    Measure {
        name: "income_gross".into(),
        count: Some("income".into()),
        sum: Some("income.total_gross".into()),
        difference: Some(vec!["income_gross".into(), "overdue_gross".into()]),
        top: Some(full_top()),
        items: Some(full_items()),
        days: Some(full_days()),
        filter: BTreeMap::from([("state".into(), vec!["overdue".into()])]),
    }
}

fn full_aggregate() -> Aggregate {
    Aggregate {
        sources: BTreeMap::from([("income".into(), full_source())]),
        result: vec![full_measure()],
    }
}

fn full_auth() -> Auth {
    Auth {
        bearer: Some("token".into()),
        header: Some("X-Api-Key".into()),
        secret: Some("token".into()),
        value: Some("Token {token}".into()),
        query: Some("api_key".into()),
        basic: Some(full_basic_auth()),
        oauth_user: Some(full_oauth_user()),
    }
}

fn full_oauth_user() -> OAuthUser {
    OAuthUser {
        authorization_endpoint: "https://id.example/authorize".into(),
        token_endpoint: "https://id.example/token".into(),
        client_id: "client_id".into(),
        client_secret: Some("client_secret".into()),
        scopes: vec!["mail.read".into()],
        resource: Some("https://api.example".into()),
        revocation_endpoint: Some("https://id.example/revoke".into()),
    }
}

fn full_errors() -> Errors {
    Errors {
        message: vec!["/error/message".into()],
        problem_details: true,
        status: Some("/status".into()),
        code: Some("/error/code".into()),
        codes: [("130429".into(), Status::RateLimited)].into(),
    }
}

fn full_basic_auth() -> BasicAuth {
    BasicAuth {
        username: "user".into(),
        password: Some("password".into()),
    }
}

fn full_list_envelope() -> ListEnvelope {
    ListEnvelope {
        items: "entries".into(),
        page_param: "page".into(),
        page_size_param: "per_page".into(),
        total: Some("total_entries".into()),
        more: Some("has_more".into()),
        max_page_size: 100,
    }
}

fn full_paging() -> Paging {
    Paging {
        style: PagingStyle::Cursor,
        items: "/data".into(),
        page_param: Some("page".into()),
        first_page: Some(0),
        size_param: Some("pageSize".into()),
        offset_param: Some("skip".into()),
        cursor_param: Some("pageToken".into()),
        total: Some("/pagination/totalItems".into()),
        more: Some("/pagination/hasNextPage".into()),
        next: Some("/nextPageToken".into()),
        select_param: Some("$select".into()),
        max_page_size: 100,
        omits_empty: true,
    }
}

fn full_quota_window() -> QuotaWindow {
    QuotaWindow {
        calendar_month: Some("Europe/Berlin".into()),
        day: Some("Europe/Berlin".into()),
        rolling_hours: Some(24),
    }
}

fn full_quota() -> Quota {
    Quota {
        headers: Some(RateLimitHeaders::XRatelimit),
        bucket: Some("long".into()),
        reset: ResetFormat::Epoch,
        remaining: Some("x-remaining-quota".into()),
        consumed: Some("x-consumed-quota".into()),
        body: Some(full_quota_body()),
        limit: Some(10_000),
        window: Some(full_quota_window()),
        balance: true,
        thresholds: vec![80, 95],
        probe: Some(full_quota_probe()),
        caller_daily_budget: Some(1000),
        caller_daily_spend: Some(full_spend_limit()),
        rate: Some(Rate {
            requests: 2,
            seconds: 1,
        }),
    }
}

fn full_quota_body() -> QuotaBody {
    QuotaBody {
        remaining: Some("/creditBalance".into()),
        consumed: Some("/cost".into()),
        limit: Some("/tier/maxMonthlyCreditSpend".into()),
        tools: vec!["demo_organization_get".into()],
    }
}

fn full_quota_probe() -> QuotaProbe {
    QuotaProbe {
        get: "/info".into(),
        quiet_hours: 6,
    }
}

fn full_inbound() -> Inbound {
    Inbound {
        verify_token: "verify_token".into(),
        signing_secret: "app_secret".into(),
        signature_header: "X-Hub-Signature-256".into(),
        signature_prefix: "sha256=".into(),
        events: vec![full_inbound_events()],
        ttl_days: 30,
        max_body_bytes: 65_536,
        reply_window_h: Some(24),
        names: vec![full_inbound_names()],
    }
}

fn full_inbound_names() -> InboundNames {
    InboundNames {
        at: "/entry/*/changes/*/value/contacts".into(),
        conversation: "/wa_id".into(),
        name: "/profile/name".into(),
    }
}

fn full_inbound_events() -> InboundEvents {
    InboundEvents {
        at: "/entry/*/changes/*/value/statuses".into(),
        kind: InboundKind::Status,
        id: vec!["/id".into(), "/status".into()],
        conversation: "/recipient_id".into(),
        timestamp: "/timestamp".into(),
    }
}

fn full_inbound_read() -> InboundRead {
    InboundRead {
        conversation: Some("number".into()),
        conversations: true,
        name: Some("name".into()),
        limit: 20,
    }
}

fn full_requires() -> Requires {
    Requires {
        reply_window: "to".into(),
        otherwise: Some("chat_template_send".into()),
    }
}

fn full_health() -> Health {
    Health {
        get: "/info".into(),
    }
}

fn full_overlay() -> RemoteOverlay {
    RemoteOverlay {
        risk: Some(Risk::Medium),
        name: Some("notes_note_add".into()),
        description: Some("Adds a note.".into()),
        core: Some(false),
        untrusted: vec!["body".into()],
    }
}

fn full_mcp_remote() -> McpRemote {
    McpRemote {
        url: "https://{host}/mcp".into(),
        timeout_ms: Some(5_000),
        tools_ttl_s: 60,
        allow: vec!["note_*".into()],
        overlays: BTreeMap::from([("note_create".into(), full_overlay())]),
        url_elicitation_hosts: vec!["auth.example.com".into()],
        pins: BTreeMap::from([(
            "note_create".into(),
            "sha256:0123456789abcdef0123456789abcdef".into(),
        )]),
    }
}

fn full_catalog() -> Catalog {
    Catalog {
        connector: "demo".into(),
        title: Some("Demo".into()),
        purpose: Some("A demo.".into()),
        names_fixed_by: Some("a conformance suite".into()),
        base_url: "https://{host}/api".into(),
        mcp: Some(full_mcp_remote()),
        secrets: vec!["host".into(), "token".into()],
        auth: full_auth(),
        headers: BTreeMap::from([("cal-api-version".into(), "2024-08-13".into())]),
        trace_context: true,
        timeout_ms: 5_000,
        max_response_bytes: Some(8 * 1024 * 1024),
        list_envelope: Some(full_list_envelope()),
        paging: Some(full_paging()),
        error_message: Some("error.message".into()),
        errors: Some(full_errors()),
        quota: Some(full_quota()),
        prices: Some(Box::new(full_prices())),
        inbound: Some(Box::new(full_inbound())),
        health: Some(full_health()),
        hints: BTreeMap::from([(Status::Unauthorized, "Check the token.".into())]),
        tools: vec![full_tool()],
        prompts: vec![full_prompt()],
        curate: vec!["errors: proposed".into()],
        imported_from: Some(full_provenance()),
    }
}

fn full_provenance() -> Provenance {
    Provenance {
        title: Some("Demo API".into()),
        version: Some("1.0".into()),
        sha256: "0".repeat(64).into(),
    }
}

/// One model struct, the schema object describing it, the fields serde declares for it and a
/// fully populated value.
struct Shape {
    model: &'static str,
    pointer: &'static str,
    declared: BTreeSet<String>,
    full: Value,
}

fn shape<T: Serialize + DeserializeOwned>(
    model: &'static str,
    pointer: &'static str,
    full: T,
) -> Shape {
    Shape {
        model,
        pointer,
        declared: declared_fields::<T>(model),
        full: serde_json::to_value(full).expect("model values serialize"),
    }
}

fn shapes() -> Vec<Shape> {
    vec![
        shape("Catalog", "", full_catalog()),
        shape("Tool", "/$defs/tool", full_tool()),
        shape("Param", "/$defs/param", full_param()),
        shape("ListEnvelope", "/$defs/list_envelope", full_list_envelope()),
        shape("Paging", "/$defs/paging", full_paging()),
        shape("Quota", "/$defs/quota", full_quota()),
        shape("QuotaWindow", "/$defs/quota_window", full_quota_window()),
        shape("QuotaProbe", "/$defs/quota_probe", full_quota_probe()),
        shape("QuotaBody", "/$defs/quota_body", full_quota_body()),
        shape("Health", "/$defs/health", full_health()),
        shape("Inbound", "/$defs/inbound", full_inbound()),
        shape(
            "InboundEvents",
            "/$defs/inbound_events",
            full_inbound_events(),
        ),
        shape("InboundNames", "/$defs/inbound_names", full_inbound_names()),
        shape("InboundRead", "/$defs/inbound_read", full_inbound_read()),
        shape("Requires", "/$defs/requires", full_requires()),
        shape("Provenance", "/$defs/provenance", full_provenance()),
        shape("Auth", "/$defs/auth", full_auth()),
        shape("BasicAuth", "/$defs/basic_auth", full_basic_auth()),
        shape("OAuthUser", "/$defs/oauth_user", full_oauth_user()),
        shape("Errors", "/$defs/errors", full_errors()),
        shape(
            "BooleanValues",
            "/$defs/boolean_values",
            full_boolean_values(),
        ),
        shape("Aggregate", "/$defs/aggregate", full_aggregate()),
        shape("Source", "/$defs/aggregate_source", full_source()),
        shape("Measure", "/$defs/measure", full_measure()),
        shape("Top", "/$defs/top", full_top()),
        shape("Items", "/$defs/items", full_items()),
        shape("Job", "/$defs/job", full_job()),
        shape("Spends", "/$defs/spends", full_spends()),
        shape("SpendLimit", "/$defs/spend_limit", full_spend_limit()),
        shape("Prices", "/$defs/prices", full_prices()),
        shape("Price", "/$defs/price", full_price()),
        shape("JobStates", "/$defs/job_states", full_job_states()),
        shape("Answer", "/$defs/answer", full_answer()),
        shape("BinaryAnswer", "/$defs/binary_answer", full_binary_answer()),
        shape("ItemLinks", "/$defs/item_links", full_item_links()),
        shape(
            "InlineDocument",
            "/$defs/inline_document",
            full_inline_document(),
        ),
        shape("EncodedParts", "/$defs/encoded_parts", full_encoded_parts()),
        shape("Days", "/$defs/days", full_days()),
        shape("Prompt", "/$defs/prompt", full_prompt()),
        shape(
            "PromptMessage",
            "/$defs/prompt_message",
            full_prompt_message(),
        ),
        shape("Complete", "/$defs/complete", full_complete()),
        shape(
            "PromptResource",
            "/$defs/prompt_resource",
            full_prompt_resource(),
        ),
        shape("PromptImage", "/$defs/prompt_image", full_prompt_image()),
        shape("McpRemote", "/$defs/mcp_remote", full_mcp_remote()),
        shape("RemoteOverlay", "/$defs/mcp_overlay", full_overlay()),
    ]
}

/// Paths of nulls and empty arrays or maps in a value: fields a fixture left unset.
fn unset(value: &Value, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Null => out.push(path.to_string()),
        Value::Array(a) if a.is_empty() => out.push(path.to_string()),
        Value::Object(m) if m.is_empty() => out.push(path.to_string()),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, v)| unset(v, &format!("{path}[{i}]"), out)),
        Value::Object(m) => m
            .iter()
            .for_each(|(k, v)| unset(v, &format!("{path}.{k}"), out)),
        _ => {}
    }
}

#[test]
fn fixtures_populate_every_model_field() {
    let mut problems = Vec::new();
    for s in shapes() {
        let serialized = keys(&s.full);
        for field in s.declared.difference(&serialized) {
            problems.push(format!(
                "{}.{field}: the fixture leaves it out; set it (Some, non-empty) in schema_sync.rs",
                s.model
            ));
        }
        for key in serialized.difference(&s.declared) {
            problems.push(format!(
                "{}.{key}: serialized but not a field serde reads",
                s.model
            ));
        }
        let mut empty = Vec::new();
        unset(&s.full, s.model, &mut empty);
        problems.extend(
            empty.into_iter().map(|p| {
                format!("{p}: null or empty in the fixture; populate it in schema_sync.rs")
            }),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_model_field_is_a_schema_property_and_back() {
    let schema = schema();
    let mut problems = BTreeSet::new();
    for s in shapes() {
        let node = at(&schema, s.pointer);
        let props = keys(&node["properties"]);
        let model_keys: BTreeSet<String> = s.declared.union(&keys(&s.full)).cloned().collect();
        for field in model_keys.difference(&props) {
            problems.insert(format!(
                "{}.{field}: model field without a schema property; add `{field}` (with a \
                 description) under #{}/properties",
                s.model, s.pointer
            ));
        }
        for prop in props.difference(&model_keys) {
            problems.insert(format!(
                "#{}/properties/{prop}: schema property that is not a field of {} (serde \
                 rejects it); remove it or add the field",
                s.pointer, s.model
            ));
        }
    }
    fail_on(problems.into_iter().collect());
}

/// Checks a serialized model value against the schema's `$ref`, `type`, `enum`, `properties`,
/// `additionalProperties` and `items` (combinators such as `oneOf` are left to validators).
fn check_shape(root: &Value, schema: &Value, value: &Value, path: &str, out: &mut Vec<String>) {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => at(
            root,
            r.strip_prefix('#')
                .unwrap_or_else(|| panic!("{path}: only local $refs are supported, found {r}")),
        ),
        None => schema,
    };
    if schema.as_object().is_some_and(|s| s.is_empty()) {
        return; // `{}` accepts any JSON (a body template's values)
    }
    if let Some(kind) = schema.get("type").and_then(Value::as_str) {
        let fits = match kind {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            _ => false,
        };
        if !fits {
            out.push(format!(
                "{path}: the model serializes {value}, the schema says `{kind}`"
            ));
            return;
        }
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array)
        && !choices.contains(value)
    {
        out.push(format!(
            "{path}: the model serializes {value}, not in the schema's enum"
        ));
    }
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let sub = schema
                    .get("properties")
                    .and_then(|p| p.get(k))
                    .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()));
                match sub {
                    Some(sub) => check_shape(root, sub, v, &format!("{path}.{k}"), out),
                    None => out.push(format!("{path}.{k}: the schema has no place for this key")),
                }
            }
        }
        Value::Array(items) => match schema.get("items") {
            Some(sub) => items
                .iter()
                .enumerate()
                .for_each(|(i, v)| check_shape(root, sub, v, &format!("{path}[{i}]"), out)),
            None => out.push(format!("{path}: the schema has no `items` for this list")),
        },
        _ => {}
    }
}

#[test]
fn schema_nesting_and_types_follow_the_model() {
    let schema = schema();
    let full = serde_json::to_value(full_catalog()).expect("model values serialize");
    let mut problems = Vec::new();
    check_shape(&schema, &schema, &full, "$", &mut problems);
    fail_on(problems);
}

/// The keys of the `oneOf: [{required: [k]}, …]` alternatives in a definition's `allOf`.
fn exactly_one_of(def: &Value, pointer: &str) -> BTreeSet<String> {
    let one_of = def["allOf"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|rule| rule.get("oneOf"))
        .unwrap_or_else(|| panic!("#{pointer} has no `allOf: [{{oneOf: …}}]` rule"));
    one_of
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|alt| strings(&alt["required"]))
        .collect()
}

#[test]
fn enum_values_match_the_model() {
    let schema = schema();
    let mut problems = Vec::new();
    let mut compare = |what: &str, model: BTreeSet<String>, schema: BTreeSet<String>| {
        if model != schema {
            problems.push(format!("{what}: model {model:?}, schema {schema:?}"));
        }
    };

    let risks = variants!(Risk: Low, Medium, High, Critical, Forbidden);
    compare(
        "risk",
        serde_names(&risks),
        strings(&schema["$defs"]["risk"]["enum"]),
    );

    let kinds = variants!(
        ParamType: String,
        Integer,
        Number,
        Boolean,
        Date,
        Datetime,
        TimeZone,
        Array
    );
    compare(
        "param type",
        serde_names(&kinds),
        strings(&schema["$defs"]["param_type"]["enum"]),
    );

    let styles = variants!(PagingStyle: Page, Offset, Cursor, NextUrl, LinkHeader, Unpaged);
    compare(
        "paging style",
        serde_names(&styles),
        strings(&schema["$defs"]["paging_style"]["enum"]),
    );
    let as_str: BTreeSet<String> = styles.iter().map(|s| s.as_str().to_string()).collect();
    compare(
        "PagingStyle::as_str against serde",
        serde_names(&styles),
        as_str,
    );
    let roles = variants!(PromptRole: User, Assistant);
    compare(
        "prompt role",
        serde_names(&roles),
        strings(&schema["$defs"]["prompt_message"]["properties"]["role"]["enum"]),
    );

    let supports = variants!(TaskSupport: Optional, Required);
    compare(
        "job task support",
        serde_names(&supports),
        strings(&schema["$defs"]["job"]["properties"]["task"]["enum"]),
    );

    let forms = variants!(BinaryForm: Resource, Link);
    compare(
        "binary answer form",
        serde_names(&forms),
        strings(&schema["$defs"]["binary_answer"]["properties"]["as"]["enum"]),
    );

    let places = variants!(ParamIn: Query, Path, Body, Header, Answer);
    compare(
        "param in",
        serde_names(&places),
        strings(&schema["$defs"]["param_in"]["enum"]),
    );

    let statuses = variants!(
        Status: Ok,
        NotFound,
        InvalidInput,
        Conflict,
        Unauthorized,
        RateLimited,
        Unavailable,
        Error,
        ConfirmationRequired,
        OutcomeUnknown,
        ConnectionRequired,
        Pending,
    );
    let names = serde_names(&statuses);
    let as_str: BTreeSet<String> = statuses.iter().map(|s| s.as_str().to_string()).collect();
    compare("Status::as_str against serde", names.clone(), as_str);
    compare(
        "status",
        names.clone(),
        strings(&schema["$defs"]["status"]["enum"]),
    );
    compare(
        "hint keys",
        names,
        keys(&schema["$defs"]["hints"]["properties"]),
    );

    // A tool has exactly one HTTP mapping (one per method), or an aggregate or an inbound read
    // instead.
    let methods = variants!(Method: Get, Post, Put, Patch, Delete);
    let mut mappings: BTreeSet<String> =
        methods.iter().map(|m| m.as_str().to_lowercase()).collect();
    mappings.insert("aggregate".into());
    mappings.insert("inbound".into());
    compare(
        "tool one-of keys that are Tool fields",
        mappings.clone(),
        mappings
            .intersection(&declared_fields::<Tool>("Tool"))
            .cloned()
            .collect(),
    );
    let tool = at(&schema, "/$defs/tool");
    compare(
        "tool HTTP mapping, aggregate or inbound (oneOf)",
        mappings,
        exactly_one_of(tool, "/$defs/tool"),
    );
    let aggregate_rule = tool["allOf"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|rule| rule["if"] == json!({ "required": ["aggregate"] }));
    compare(
        "flags an aggregate tool may not set (list, raw)",
        BTreeSet::from(["list".to_string(), "raw".to_string()]),
        aggregate_rule.map_or_else(BTreeSet::new, |rule| keys(&rule["then"]["properties"])),
    );

    // Every Measure field but its name and filter is a kind, and a measure has exactly one. A new
    // field that is not a kind belongs in `not_kinds`.
    let not_kinds = BTreeSet::from(["name".to_string(), "where".to_string()]);
    let kinds: BTreeSet<String> = declared_fields::<Measure>("Measure")
        .difference(&not_kinds)
        .cloned()
        .collect();
    let measure = at(&schema, "/$defs/measure");
    compare(
        "measure kinds (oneOf)",
        kinds,
        exactly_one_of(measure, "/$defs/measure"),
    );

    let window = at(&schema, "/$defs/quota_window");
    compare(
        "quota window (oneOf)",
        declared_fields::<QuotaWindow>("QuotaWindow"),
        exactly_one_of(window, "/$defs/quota_window"),
    );

    let reserved = at(
        &schema,
        "/$defs/tool/properties/params/propertyNames/allOf/1/not/enum",
    );
    compare(
        "reserved param names",
        crate::RESERVED_PARAMS
            .iter()
            .map(|s| s.to_string())
            .collect(),
        strings(reserved),
    );
    fail_on(problems);
}

/// A value without its null map entries (at any depth, lists included); `None` when nothing is
/// left of a null.
fn without_nulls(v: &Value) -> Option<Value> {
    match v {
        Value::Null => None,
        Value::Object(m) => Some(Value::Object(
            m.iter()
                .filter_map(|(k, v)| without_nulls(v).map(|v| (k.clone(), v)))
                .collect(),
        )),
        Value::Array(a) => Some(Value::Array(
            a.iter()
                .map(|v| without_nulls(v).unwrap_or(Value::Null))
                .collect(),
        )),
        other => Some(other.clone()),
    }
}

fn roundtrip<T: Serialize + DeserializeOwned>(v: Value) -> Result<Value, String> {
    let parsed: T = serde_json::from_value(v).map_err(|e| e.to_string())?;
    Ok(serde_json::to_value(parsed).expect("model values serialize"))
}

#[test]
fn required_fields_and_defaults_match_serde() {
    type Parse = fn(Value) -> Result<Value, String>;
    // The smallest document serde accepts for each struct: exactly its required fields.
    let minimal: [(&str, &str, Value, Parse); 27] = [
        (
            "Catalog",
            "",
            json!({"connector": "demo"}),
            roundtrip::<Catalog>,
        ),
        (
            "Tool",
            "/$defs/tool",
            json!({"name": "invoice_get", "description": "d", "risk": "low"}),
            roundtrip::<Tool>,
        ),
        (
            "Param",
            "/$defs/param",
            json!({"type": "string"}),
            roundtrip::<Param>,
        ),
        (
            "ListEnvelope",
            "/$defs/list_envelope",
            json!({"items": "entries"}),
            roundtrip::<ListEnvelope>,
        ),
        (
            "Paging",
            "/$defs/paging",
            json!({"style": "link_header", "items": ""}),
            roundtrip::<Paging>,
        ),
        ("Quota", "/$defs/quota", json!({}), roundtrip::<Quota>),
        (
            "QuotaWindow",
            "/$defs/quota_window",
            json!({}),
            roundtrip::<QuotaWindow>,
        ),
        (
            "Health",
            "/$defs/health",
            json!({"get": "/info"}),
            roundtrip::<Health>,
        ),
        (
            "Inbound",
            "/$defs/inbound",
            json!({"verify_token": "v", "signing_secret": "s", "events": []}),
            roundtrip::<Inbound>,
        ),
        (
            "InboundEvents",
            "/$defs/inbound_events",
            json!({"at": "/m", "kind": "message", "id": [], "conversation": "/from", "timestamp": "/t"}),
            roundtrip::<InboundEvents>,
        ),
        (
            "InboundRead",
            "/$defs/inbound_read",
            json!({}),
            roundtrip::<InboundRead>,
        ),
        (
            "InboundNames",
            "/$defs/inbound_names",
            json!({"at": "/c", "conversation": "/wa_id", "name": "/profile/name"}),
            roundtrip::<InboundNames>,
        ),
        (
            "Requires",
            "/$defs/requires",
            json!({"reply_window": "to"}),
            roundtrip::<Requires>,
        ),
        (
            "QuotaProbe",
            "/$defs/quota_probe",
            json!({"get": "/info"}),
            roundtrip::<QuotaProbe>,
        ),
        (
            "QuotaBody",
            "/$defs/quota_body",
            json!({}),
            roundtrip::<QuotaBody>,
        ),
        ("Auth", "/$defs/auth", json!({}), roundtrip::<Auth>),
        ("Errors", "/$defs/errors", json!({}), roundtrip::<Errors>),
        (
            "BasicAuth",
            "/$defs/basic_auth",
            json!({"username": "user"}),
            roundtrip::<BasicAuth>,
        ),
        (
            "BooleanValues",
            "/$defs/boolean_values",
            json!({"true": "yes", "false": "no"}),
            roundtrip::<BooleanValues>,
        ),
        (
            "Aggregate",
            "/$defs/aggregate",
            json!({"sources": {}, "result": []}),
            roundtrip::<Aggregate>,
        ),
        (
            "Source",
            "/$defs/aggregate_source",
            json!({"tool": "invoices_list"}),
            roundtrip::<Source>,
        ),
        (
            "Measure",
            "/$defs/measure",
            json!({"name": "invoices"}),
            roundtrip::<Measure>,
        ),
        (
            "Top",
            "/$defs/top",
            json!({"of": "income", "by": "billing.company"}),
            roundtrip::<Top>,
        ),
        (
            "Items",
            "/$defs/items",
            json!({"of": "income", "fields": ["id"], "sort": "due_date"}),
            roundtrip::<Items>,
        ),
        (
            "Days",
            "/$defs/days",
            json!({"of": "b", "start": "start", "end": "end", "from": "2026-05-04", "zone": "UTC", "hours": "09:00-17:00"}),
            roundtrip::<Days>,
        ),
        (
            "McpRemote",
            "/$defs/mcp_remote",
            json!({"url": "https://x.test/mcp", "allow": ["*"]}),
            roundtrip::<McpRemote>,
        ),
        (
            "RemoteOverlay",
            "/$defs/mcp_overlay",
            json!({}),
            roundtrip::<RemoteOverlay>,
        ),
    ];
    let schema = schema();
    let mut problems = Vec::new();
    for (model, pointer, doc, parse) in minimal {
        let node = at(&schema, pointer);
        let serialized = match parse(doc.clone()) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!(
                    "{model}: {doc} no longer parses ({e}); a new required field belongs in \
                     #{pointer}/required and in this test's minimal document"
                ));
                continue;
            }
        };
        let required = strings(&node["required"]);
        let needed = keys(&doc);
        if required != needed {
            problems.push(format!(
                "{model}: serde requires {needed:?}, #{pointer}/required lists {required:?}"
            ));
        }
        for field in &needed {
            let mut less = doc.clone();
            less.as_object_mut()
                .expect("documents are maps")
                .remove(field);
            if parse(less).is_ok() {
                problems.push(format!(
                    "{model}.{field}: optional in serde, required in this test"
                ));
            }
        }
        let props = node["properties"]
            .as_object()
            .expect("struct schemas have properties");
        for (field, prop) in props.iter().filter(|(f, _)| !required.contains(*f)) {
            let serde_default = serialized.get(field).and_then(without_nulls);
            let schema_default = prop.get("default").cloned();
            let agrees = match (&serde_default, &schema_default) {
                // A field the model leaves out at its default: the schema's default, written
                // in, must read back as that same default (left out again).
                (None, Some(default)) => {
                    let mut with_default = doc.clone();
                    with_default
                        .as_object_mut()
                        .expect("documents are maps")
                        .insert(field.clone(), default.clone());
                    parse(with_default).is_ok_and(|v| v == serialized)
                }
                _ => serde_default == schema_default,
            };
            if !agrees {
                let serde_side = serde_default.map_or_else(
                    || "none (or left out at another value)".to_string(),
                    |v| v.to_string(),
                );
                problems.push(format!(
                    "{model}.{field}: serde default {serde_side}, #{pointer}/properties/{field}/default {}",
                    schema_default.map_or("none".into(), |v| v.to_string()),
                ));
            }
        }
    }
    fail_on(problems);
}

/// The root and every `$defs` entry that describes an object with properties.
fn struct_schemas(schema: &Value) -> Vec<(String, &Value)> {
    let mut out = vec![("#".to_string(), schema)];
    if let Some(defs) = schema["$defs"].as_object() {
        out.extend(
            defs.iter()
                .filter(|(_, d)| d.get("properties").is_some())
                .map(|(name, d)| (format!("#/$defs/{name}"), d)),
        );
    }
    out
}

#[test]
fn every_schema_property_has_a_description_with_an_example() {
    let schema = schema();
    let mut problems = Vec::new();
    for (name, def) in schema["$defs"].as_object().expect("the schema has $defs") {
        if def["description"]
            .as_str()
            .is_none_or(|d| d.trim().is_empty())
        {
            problems.push(format!("#/$defs/{name}: no description"));
        }
    }
    for (pointer, node) in struct_schemas(&schema) {
        for (prop, sub) in node["properties"].as_object().into_iter().flatten() {
            match sub["description"].as_str() {
                Some(d) if d.contains("Example") => {}
                Some(_) => problems.push(format!(
                    "{pointer}/properties/{prop}: the description gives no `Example:`"
                )),
                None => problems.push(format!("{pointer}/properties/{prop}: no description")),
            }
        }
    }
    fail_on(problems);
}

#[test]
fn every_struct_schema_rejects_unknown_keys_like_deny_unknown_fields() {
    let schema = schema();
    let mut problems = Vec::new();
    for (pointer, node) in struct_schemas(&schema) {
        let closed = node["additionalProperties"] == json!(false);
        // A map keyed by an enum (hints) is closed by `propertyNames` instead.
        if !closed && node.get("propertyNames").is_none() {
            problems.push(format!("{pointer}: needs `additionalProperties: false`"));
        }
        if node["type"] != json!("object") {
            problems.push(format!("{pointer}: needs `type: object`"));
        }
    }
    fail_on(problems);
}

#[test]
fn schema_declares_draft_2020_12_id_and_title() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        json!("https://json-schema.org/draft/2020-12/schema")
    );
    assert!(
        schema["$id"]
            .as_str()
            .is_some_and(|id| id.starts_with("https://"))
    );
    assert!(schema["title"].as_str().is_some_and(|t| !t.is_empty()));
}

fn shipped_catalogs() -> (PathBuf, Vec<PathBuf>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../connector/catalogs");
    let files = crate::catalog_files(&dir).unwrap_or_else(|e| panic!("{e}"));
    (dir, files)
}

#[test]
fn shipped_catalogs_load() {
    let (dir, files) = shipped_catalogs();
    let catalogs = crate::load_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        catalogs.len(),
        files.len(),
        "one catalog per file in {}",
        dir.display()
    );
}

#[test]
fn shipped_catalogs_point_editors_at_this_schema() {
    let (dir, files) = shipped_catalogs();
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog.schema.json");
    let want = schema_path.canonicalize().expect("the schema file exists");
    for file in files {
        let text = std::fs::read_to_string(&file).expect("catalog is readable");
        let first = text.lines().next().unwrap_or_default();
        let Some(target) = first.strip_prefix("# yaml-language-server: $schema=") else {
            panic!(
                "{}: the first line should be `# yaml-language-server: $schema=<relative path to \
                 {SCHEMA_FILE}>`",
                file.display()
            );
        };
        let resolved = dir.join(target.trim()).canonicalize();
        assert!(
            resolved.as_ref().is_ok_and(|p| *p == want),
            "{}: $schema={target} resolves to {resolved:?}, not {}",
            file.display(),
            want.display()
        );
    }
}

/// An aggregation tool over a list tool, as documented in the schema; the Python validator
/// (`tests/tools/validate_catalogs.py`) accepts the same text.
const AGGREGATE_CATALOG: &str = r#"
connector: demo
base_url: "http://{host}/api/v1"
secrets: [host, token]
auth: { bearer: token }
list_envelope: { items: entries, total: total_entries, more: has_more }
tools:
  - name: demo_invoices_list
    risk: low
    list: true
    description: 'Lists invoices. Use it to find invoices. Example: {"page": 1}'
    get: /income/invoices
    params:
      document_date_from: { type: date, as: document_date_range_start }
      document_date_to: { type: date, as: document_date_range_end }
  - name: demo_month_close_get
    risk: low
    description: 'Month close: income, counts and top customers. Use it for monthly reports. Example: {"year": 2026, "month": 5}'
    params:
      year: { type: integer, min: 2000, max: 2100, required: true }
      month: { type: integer, min: 1, max: 12, required: true }
    aggregate:
      sources:
        income: { tool: demo_invoices_list, args: { document_date_from: "{month_start}", document_date_to: "{month_end}" }, where: { state: [paid, unpaid, overdue] } }
      result:
        - { name: income_gross, sum: income.total_gross }
        - { name: invoices, count: income }
        - { name: overdue_gross, sum: income.total_gross, where: { state: [overdue] } }
        - { name: not_overdue_gross, difference: [income_gross, overdue_gross] }
        - { name: top_customers, top: { of: income, by: billing.company, sum: total_gross, n: 5 } }
        - { name: next_due, items: { of: income, fields: [id, due_date, total_gross], sort: due_date, n: 3 } }
"#;

#[test]
fn aggregate_catalog_loads_and_fits_the_schema() {
    let catalog = crate::parse("demo.yaml", AGGREGATE_CATALOG).unwrap_or_else(|e| panic!("{e}"));
    let tool = &catalog.tools[1];
    assert_eq!(tool.http(), None);
    let agg = tool
        .aggregate
        .as_ref()
        .expect("demo_month_close_get is an aggregation");
    assert_eq!(agg.sources["income"].tool, "demo_invoices_list");
    assert_eq!(agg.sources["income"].filter["state"].len(), 3);
    let names: Vec<&str> = agg.result.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "income_gross",
            "invoices",
            "overdue_gross",
            "not_overdue_gross",
            "top_customers",
            "next_due"
        ]
    );
    let top = agg.result[4].top.as_ref().expect("a top measure");
    assert_eq!((top.sum.as_deref(), top.n), (Some("total_gross"), 5));
    let items = agg.result[5].items.as_ref().expect("an items measure");
    assert_eq!((items.n, items.descending), (3, false));

    let schema = schema();
    // Unset options serialize as null; a catalog file leaves them out.
    let value = without_nulls(&serde_json::to_value(&catalog).expect("model values serialize"))
        .expect("a catalog is not null");
    let mut problems = Vec::new();
    check_shape(&schema, &schema, &value, "$", &mut problems);
    fail_on(problems);

    // The loader keeps an aggregation tool apart from HTTP mappings, list and raw.
    for (from, to) in [
        ("    aggregate:\n", "    get: /close\n    aggregate:\n"),
        ("    aggregate:\n", "    list: true\n    aggregate:\n"),
    ] {
        let text = AGGREGATE_CATALOG.replace(from, to);
        let err = crate::parse("demo.yaml", &text).unwrap_err().to_string();
        assert!(
            err.contains("an aggregate tool has no HTTP mapping"),
            "{err}"
        );
    }
}
