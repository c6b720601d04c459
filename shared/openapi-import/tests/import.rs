//! The importer on hand-made documents written from the sevdesk, Cal.com and Replicate public
//! documentation (`tests/specs/`), one with cycles, `allOf` and prose-only parameters, and a
//! generated one with 2,000 operations.

use std::collections::BTreeSet;

use catalog::{Catalog, PagingStyle, ParamIn, ParamType, Risk, Tool};
use openapi_import::{
    Draft, FileError, ImportError, Options, Selection, Slice, import, read_document, reimport,
    write_whole,
};

fn spec(name: &str) -> String {
    let path = format!("{}/tests/specs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn draft(name: &str, connector: &str) -> Draft {
    let d = import(&spec(name), &Options::new(connector)).unwrap_or_else(|e| panic!("{name}: {e}"));
    // The promise: the draft always loads as a catalog.
    catalog::parse("draft.yaml", &d.to_yaml().unwrap()).unwrap();
    d
}

/// A drafted tool by its name after the connector's prefix (`invoices_list` in `sevdesk`).
fn tool<'a>(c: &'a Catalog, name: &str) -> &'a Tool {
    let full = format!("{}_{name}", c.connector);
    c.tools.iter().find(|t| t.name == full).unwrap_or_else(|| {
        let names: Vec<&str> = c.tools.iter().map(|t| t.name.as_str()).collect();
        panic!("no tool {name} in {names:?}")
    })
}

fn pending(t: &Tool, word: &str) -> bool {
    t.curate.iter().any(|c| c.contains(word))
}

#[test]
fn sevdesk_like_names_risks_auth_and_errors() {
    let d = draft("sevdesk-like.yaml", "sevdesk");
    let c = &d.catalog;
    let names: BTreeSet<&str> = c.tools.iter().map(|t| t.name.as_str()).collect();
    for n in [
        "invoices_list",
        "invoice_get",
        "invoice_update",
        "invoice_delete",
        "invoice_send",
        "invoice_book",
        "invoice_cancel",
        "invoice_enshrine",
        "contacts_list",
        "contact_create",
    ] {
        let n = format!("sevdesk_{n}");
        assert!(names.contains(n.as_str()), "{n} missing from {names:?}");
    }
    assert_eq!(c.base_url, "https://my.sevdesk.de/api/v1");
    assert_eq!(
        (c.auth.header.as_deref(), c.auth.secret.as_deref()),
        (Some("Authorization"), Some("api_key"))
    );
    assert_eq!(c.errors.as_ref().unwrap().message, ["/error/message"]);
    let delete = tool(c, "invoice_delete");
    assert_eq!(delete.risk, Risk::High);
    assert!(
        pending(delete, "risk: proposed high because DELETE"),
        "{:?}",
        delete.curate
    );
    for critical in [
        "invoice_send",
        "invoice_book",
        "invoice_cancel",
        "invoice_enshrine",
    ] {
        assert_eq!(tool(c, critical).risk, Risk::Critical, "{critical}");
        assert!(
            !tool(c, critical).core,
            "{critical} is not proposed for core"
        );
    }
    let send = tool(c, "invoice_send");
    assert_eq!(
        send.post.as_deref(),
        Some("/Invoice/{invoice_id}/sendViaEmail")
    );
    let to = &send.params["to_email"];
    assert_eq!(
        (to.location, to.required, to.upstream.as_deref()),
        (ParamIn::Body, true, Some("toEmail"))
    );
    assert!(to.description.as_deref().unwrap().contains("Format: email"));
    // The path-level parameter, its bounds and description.
    let id = &tool(c, "invoice_get").params["invoice_id"];
    assert_eq!(
        (id.kind, id.min, id.location),
        (ParamType::Integer, Some(1.0), ParamIn::Path)
    );
    // Bounds through a $ref; a numeric enum becomes bounds and words.
    // offset/limit over `{"objects": […]}`: a `paging` the runtime speaks, the limit's bound
    // (1000 in the document) capped at the platform's 100.
    let list = tool(c, "invoices_list");
    let paging = c.paging.as_ref().unwrap();
    assert_eq!(
        (
            paging.style,
            paging.items.as_str(),
            paging.offset_param.as_deref(),
            paging.size_param.as_deref(),
            paging.max_page_size
        ),
        (
            PagingStyle::Offset,
            "/objects",
            Some("offset"),
            Some("limit"),
            100
        )
    );
    assert!(list.list && !list.params.contains_key("limit"));
    let status = &list.params["status"];
    assert_eq!(
        (status.kind, status.min, status.max),
        (ParamType::Number, Some(100.0), Some(1000.0))
    );
    // readOnly fields are not inputs; a nested object's fields are dotted params.
    assert!(!tool(c, "invoice_update").params.contains_key("id"));
    let book = tool(c, "invoice_book");
    let account = &book.params["check_account_id"];
    assert_eq!(
        (account.kind, account.required, account.upstream.as_deref()),
        (ParamType::Integer, true, Some("checkAccount.id"))
    );
    assert_eq!(
        book.params["check_account_object_name"].upstream.as_deref(),
        Some("checkAccount.objectName")
    );
    assert!(!pending(book, "checkAccount"), "{:?}", book.curate);
    assert!(tool(c, "invoice_book").params["type"].choices.is_some());
    // Provenance.
    assert_eq!(
        tool(c, "invoice_get").operation_id.as_deref(),
        Some("getInvoiceById")
    );
    let from = c.imported_from.as_ref().unwrap();
    assert_eq!(
        (
            from.title.as_deref(),
            from.version.as_deref(),
            from.sha256.len()
        ),
        (Some("sevdesk-like API"), Some("2.0.0"), 64)
    );
    // Every tool carries its scaffold and decisions.
    for t in &c.tools {
        assert!(
            t.description.contains(catalog::SCAFFOLD_MARKER),
            "{}",
            t.name
        );
        assert!(
            pending(t, "risk: proposed") && pending(t, "selection: proposed"),
            "{}",
            t.name
        );
    }
    assert!(!c.curate.is_empty());
}

#[test]
fn cal_like_headers_paging_and_what_needs_a_person() {
    let d = draft("cal-like.json", "cal");
    let c = &d.catalog;
    assert_eq!(c.auth.bearer.as_deref(), Some("token"));
    let list = tool(c, "bookings_list");
    assert_eq!(list.get.as_deref(), Some("/v2/bookings"));
    assert_eq!(
        list.headers
            .get("cal-api-version")
            .map(catalog::Text::as_str),
        Some("2024-08-13")
    );
    assert_eq!(
        tool(c, "slots_get")
            .headers
            .get("cal-api-version")
            .map(catalog::Text::as_str),
        Some("2024-09-04")
    );
    let paging = c.paging.as_ref().unwrap();
    assert_eq!(
        (
            paging.style,
            paging.items.as_str(),
            paging.offset_param.as_deref(),
            paging.size_param.as_deref()
        ),
        (PagingStyle::Offset, "/data", Some("skip"), Some("take"))
    );
    assert!(list.list && !list.params.contains_key("take"));
    assert_eq!(tool(c, "booking_cancel").risk, Risk::Critical);
    let create = tool(c, "booking_create");
    assert!(pending(create, "oneOf"), "{:?}", create.curate);
    assert!(!create.core);
    // An action without a verb of the lint's list keeps its word: the lint flags the name.
    assert!(c.tools.iter().any(|t| t.name == "cal_booking_reschedule"));
    assert_eq!(c.errors.as_ref().unwrap().message, ["/error/message"]);
    let ops = &d.report.operations;
    let left: Vec<&str> = ops
        .iter()
        .filter(|o| o.selection == Selection::LeftOut)
        .map(|o| o.path.as_str())
        .collect();
    assert_eq!(left, ["/v2/oauth-clients/{clientId}/users", "/v2/webhooks"]);
    let managed = ops
        .iter()
        .find(|o| o.path.contains("oauth-clients"))
        .unwrap();
    assert!(
        managed.needs_person[0].contains("x-cal-secret-key"),
        "{:?}",
        managed.needs_person
    );
    let report = d.report.to_string();
    assert!(report.contains("needs a person"), "{report}");
}

#[test]
fn replicate_like_next_urls_problem_details_and_multipart() {
    let d = draft("replicate-like.json", "replicate");
    let c = &d.catalog;
    assert!(c.errors.as_ref().unwrap().problem_details);
    let list = tool(c, "predictions_list");
    let paging = c.paging.as_ref().unwrap();
    assert_eq!(
        (paging.style, paging.items.as_str(), paging.next.as_deref()),
        (PagingStyle::NextUrl, "/results", Some("/next"))
    );
    assert!(list.list);
    assert!(
        pending(list, "params mentioned only in prose: cursor"),
        "{:?}",
        list.curate
    );
    assert!(pending(tool(c, "file_create"), "multipart/form-data"));
    assert!(pending(
        tool(c, "prediction_create"),
        "required body field `input`: a nested object"
    ));
    assert_eq!(tool(c, "prediction_cancel").risk, Risk::Critical);
    assert_eq!(tool(c, "file_delete").risk, Risk::High);
    assert!(
        c.tools
            .iter()
            .any(|t| t.name == "replicate_model_versions_list")
    );
    let counts = d.report.counts();
    assert_eq!((counts.prose_params, counts.left_out), (1, 1), "{counts}");
}

#[test]
fn cycles_all_of_prose_and_page_paging() {
    let d = draft("tricky.yaml", "tricky");
    let c = &d.catalog;
    assert_eq!(c.base_url, "https://eu.example.com/api/v1");
    assert_eq!(c.auth.query.as_deref(), Some("api_key"));
    // A cycle is cut, and what was found before the cut stays.
    let node = tool(c, "node_create");
    assert!(node.params.contains_key("label") && node.params.contains_key("parent_id"));
    let report = d.report.to_string();
    assert!(
        report.contains("recursive body schema cut at `#/components/schemas/"),
        "{report}"
    );
    // allOf merged: fields of every member, required kept, arrays bounded.
    let product = tool(c, "product_create");
    assert!(product.params["name"].required);
    assert_eq!(
        product.params["currency"].choices.as_ref().unwrap().len(),
        2
    );
    assert_eq!(product.params["tags"].max_items, Some(5));
    assert_eq!(
        product.params["lines"].items.as_ref().unwrap()["quantity"].min,
        Some(1.0)
    );
    assert_eq!(product.params["lines"].max_items, Some(50), "proposed");
    // page/per_page with an items field: a `paging` and a list tool.
    let paging = c.paging.as_ref().unwrap();
    assert_eq!(
        (
            paging.style,
            paging.items.as_str(),
            paging.page_param.as_deref(),
            paging.size_param.as_deref()
        ),
        (
            PagingStyle::Page,
            "/entries",
            Some("page"),
            Some("per_page")
        )
    );
    assert_eq!(
        (
            paging.max_page_size,
            paging.total.as_deref(),
            paging.more.as_deref()
        ),
        (100, Some("/total_entries"), Some("/has_more"))
    );
    let orders = tool(c, "orders_list");
    assert!(orders.list && !orders.params.contains_key("page"));
    assert_eq!(orders.fields, ["id", "state", "total"]);
    assert_eq!(
        orders.params["fields_value"].upstream.as_deref(),
        Some("fields"),
        "reserved names are renamed"
    );
    assert!(
        pending(orders, "params mentioned only in prose: include, since"),
        "{:?}",
        orders.curate
    );
    // Rate-limit headers and a quota proposal: the x-ratelimit family.
    let quota = c.quota.as_ref().unwrap();
    assert_eq!(
        (quota.headers, quota.remaining.as_deref()),
        (Some(catalog::RateLimitHeaders::XRatelimit), None)
    );
    assert_eq!(
        d.report.rate_limit_headers,
        ["x-ratelimit-limit", "x-ratelimit-remaining"]
    );
    // The undeclared path parameter, the HEAD operation, the deprecated and external ones.
    let line = tool(c, "line_get");
    assert_eq!(
        line.get.as_deref(),
        Some("/orders/{order_id}/lines/{line_no}")
    );
    assert!(line.params.contains_key("line_no"));
    assert_eq!(d.report.unmapped, ["HEAD /orders"]);
    assert!(
        !c.tools
            .iter()
            .any(|t| t.operation_id.as_deref() == Some("oldThings"))
    );
    assert!(
        pending(tool(c, "remote_create"), "another document"),
        "{:?}",
        tool(c, "remote_create").curate
    );
}

/// 2,000 operations, generated: the work stays bounded, the selection within its budgets,
/// names unique and short, and slices import only their part.
#[test]
fn two_thousand_operations_are_selected_and_sliced() {
    let mut text = String::from(
        r#"{"openapi": "3.0.3", "info": {"title": "Big", "version": "1"}, "servers": [{"url": "https://big.example"}], "paths": {"#,
    );
    for i in 0..400 {
        if i > 0 {
            text.push(',');
        }
        let tag = format!("Area{}", i % 20);
        let op = |id: &str, extra: &str| {
            format!(
                r#"{{"operationId": "{id}{i}", "tags": ["{tag}"], "summary": "Does {id} {i}"{extra}, "responses": {{"200": {{"description": "ok"}}}}}}"#
            )
        };
        let id_param = r#", "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}]"#;
        text.push_str(&format!(
            r#""/resources{i}": {{"get": {}, "post": {}}}, "/resources{i}/{{id}}": {{"get": {}, "patch": {}, "delete": {}}}"#,
            op("list", ""),
            op("create", r#", "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}"#),
            op("get", id_param),
            op("update", id_param),
            op("delete", id_param),
        ));
    }
    text.push_str("}}");
    let d = import(&text, &Options::new("big")).unwrap();
    let counts = d.report.counts();
    assert_eq!(counts.operations, 2000);
    assert_eq!(counts.core, 30);
    assert_eq!(counts.tools, 250, "{counts}");
    assert!(
        d.report
            .operations
            .iter()
            .any(|o| o.reason.contains("--tag"))
    );
    let names: BTreeSet<&str> = d
        .report
        .operations
        .iter()
        .map(|o| o.tool.as_str())
        .collect();
    assert_eq!(names.len(), 2000, "unique");
    assert!(
        names
            .iter()
            .all(|n| "big_".len() + n.len() <= openapi_import::MAX_EXPOSED_NAME)
    );
    catalog::parse("big.yaml", &d.to_yaml().unwrap()).unwrap();
    let mut tagged = Options::new("big");
    tagged.slice = Slice::Tags(vec!["area7".into()]);
    assert_eq!(
        import(&text, &tagged).unwrap().report.counts().operations,
        100
    );
    tagged.slice = Slice::PathPrefixes(vec!["/resources12/".into()]);
    assert_eq!(
        import(&text, &tagged).unwrap().report.counts().operations,
        3
    );
    // Several prefixes: Graph's mail, calendar and drive paths in one draft.
    tagged.slice = Slice::PathPrefixes(vec!["/resources12/".into(), "/resources13/".into()]);
    assert_eq!(
        import(&text, &tagged).unwrap().report.counts().operations,
        6
    );
    tagged.slice = Slice::PathPrefixes(vec!["/nowhere/".into()]);
    assert!(matches!(
        import(&text, &tagged),
        Err(ImportError::EmptySlice { total: 0, .. })
    ));
    tagged.slice = Slice::Tags(vec!["nowhere".into()]);
    assert!(matches!(
        import(&text, &tagged),
        Err(ImportError::EmptySlice { total: 2000, .. })
    ));
    let again = import(&text, &Options::new("big")).unwrap();
    assert_eq!(again.catalog, d.catalog, "deterministic");
}

#[test]
fn reimport_reports_changes_and_keeps_the_curation() {
    let before = spec("sevdesk-like.yaml");
    let mut curated = draft("sevdesk-like.yaml", "sevdesk").catalog;
    // A person curated: renamed a tool, decided everything.
    for t in &mut curated.tools {
        t.curate.clear();
    }
    curated
        .tools
        .iter_mut()
        .find(|t| t.name == "sevdesk_invoices_list")
        .unwrap()
        .name = "sevdesk_invoices_search".into();
    let unchanged = reimport(&before, &curated, &Options::new("sevdesk")).unwrap();
    assert!(
        !unchanged.document_changed && unchanged.is_empty(),
        "{unchanged}"
    );
    let after = before
        .replace("  /Invoice/{invoiceId}/enshrine:\n", "  /Invoice/{invoiceId}/lock:\n")
        .replace("operationId: invoiceEnshrine", "operationId: invoiceLock")
        .replace(
            "        - name: invoiceNumber\n          in: query\n          schema: { type: string }\n",
            "        - name: invoiceNumber\n          in: query\n          required: true\n          schema: { type: string }\n        - name: dueBefore\n          in: query\n          schema: { type: string, format: date }\n",
        );
    let changes = reimport(&after, &curated, &Options::new("sevdesk")).unwrap();
    assert!(changes.document_changed);
    assert_eq!(changes.new, ["PUT /Invoice/{invoiceId}/lock (invoiceLock)"]);
    assert_eq!(
        changes.removed,
        ["sevdesk_invoice_enshrine (invoiceEnshrine)"]
    );
    let (tool, diffs) = &changes.changed[0];
    assert_eq!(
        tool, "sevdesk_invoices_search",
        "matched by operationId, whatever its name now"
    );
    assert!(
        diffs.iter().any(|d| d == "new query `dueBefore` param"),
        "{diffs:?}"
    );
    assert!(
        diffs
            .iter()
            .any(|d| d.contains("`invoiceNumber` param is now required")),
        "{diffs:?}"
    );
    assert!(changes.to_string().contains("nothing was overwritten"));
}

#[test]
fn bad_input_names_the_place() {
    let err = |text: &str| import(text, &Options::new("x")).err().unwrap().to_string();
    assert!(err("swagger: '2.0'\n").contains("swagger2openapi"));
    assert!(err("openapi: 3.0.0\npaths: []\n").starts_with("#/paths: must be an object"));
    let dangling = "openapi: 3.0.0\npaths:\n  /a/{id}:\n    get:\n      parameters:\n        - $ref: '#/components/parameters/nope'\n      responses: {}\n";
    let e = err(dangling);
    assert!(e.starts_with("#/paths/~1a~1{id}/get/parameters/0: `$ref: #/components/parameters/nope` points at nothing"), "{e}");
    let nameless =
        "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      parameters:\n        - { in: query }\n";
    assert!(err(nameless).starts_with("#/paths/~1a/get/parameters/0: a parameter needs a `name`"));
    assert!(err("not: [valid").contains("line"));
    assert!(
        err(r#"{"openapi": "3.0.0", "paths": {"/x": {"get": 5}}}"#)
            .starts_with("#/paths/~1x/get: an operation must be an object")
    );
    assert!(
        err(r#"{"openapi": "3.0.0", "paths": {"x": {"get": {}}}}"#)
            .starts_with("#/paths/x: a path must start with `/`")
    );
    assert!(err(r#"[1, 2]"#).starts_with("#: the document is not an object"));
    assert!(matches!(
        import("openapi: 3.0.0\npaths: {}\n", &Options::new("Bad-Name")),
        Err(ImportError::Connector(_))
    ));
    let mut small = Options::new("x");
    small.limits.max_bytes = 100;
    assert!(matches!(
        import(&spec("tricky.yaml"), &small),
        Err(ImportError::TooLarge { .. })
    ));
}

/// A messaging API, written for these tests: cursor paging under `paging.next`, a message
/// whose text sits in a nested `content` object, and operationIds that say more than paths.
const MESSAGING: &str = r#"
openapi: 3.0.3
info: {title: Messaging-like API, version: '1'}
servers: [{url: 'https://api.messaging.example/v1'}]
components:
  securitySchemes:
    token: {type: http, scheme: bearer}
  schemas:
    Message:
      type: object
      properties:
        id: {type: string}
        to: {type: string}
        status: {type: string}
        createdAt: {type: string, format: date-time}
security: [{token: []}]
paths:
  /messages:
    get:
      operationId: listMessages
      parameters:
        - {name: cursor, in: query, schema: {type: string}}
        - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 50}}
        - {name: status, in: query, schema: {type: string}}
      responses:
        '200':
          description: A page of messages
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: {type: array, items: {$ref: '#/components/schemas/Message'}}
                  paging:
                    type: object
                    properties:
                      next: {type: string, description: The cursor of the next page.}
    post:
      operationId: sendMessage
      summary: Send a message
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [to, content]
              properties:
                to: {type: string, maxLength: 20}
                content:
                  type: object
                  required: [text]
                  properties:
                    text: {type: string, maxLength: 4096}
                    media:
                      type: object
                      required: [url]
                      properties:
                        url: {type: string, format: uri}
                metadata: {type: object, description: Anything.}
      responses:
        '201': {description: Sent}
  /messages/{messageId}:
    get:
      operationId: getMessage
      parameters: [{name: messageId, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: The message}}
  /conversations/{conversationId}/messages:
    post:
      operationId: createConversationMessage
      parameters: [{name: conversationId, in: path, required: true, schema: {type: string}}]
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {text: {type: string}}}
      responses: {'201': {description: Created}}
  /bookings/{bookingId}:
    delete:
      operationId: cancelBooking
      parameters: [{name: bookingId, in: path, required: true, schema: {type: string}}]
      responses: {'204': {description: Cancelled}}
  /exports/{exportId}:
    get:
      operationId: downloadExport
      parameters: [{name: exportId, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: The file}}
"#;

fn messaging() -> Draft {
    let d = import(MESSAGING, &Options::new("chat")).unwrap();
    catalog::parse("draft.yaml", &d.to_yaml().unwrap()).unwrap();
    d
}

/// A drafted tool by the operationId it came from.
fn by_id<'a>(c: &'a Catalog, operation_id: &str) -> &'a Tool {
    c.tools
        .iter()
        .find(|t| t.operation_id.as_deref() == Some(operation_id))
        .unwrap_or_else(|| panic!("no tool from {operation_id}"))
}

/// A message's `content: {text, media: {url}}` was a "nested object" a person had to write by
/// hand: its fields are now body params sent under their dotted paths.
#[test]
fn nested_request_bodies_become_dotted_params() {
    let d = messaging();
    let send = by_id(&d.catalog, "sendMessage");
    let param = |name: &str| {
        let p = send
            .params
            .get(name)
            .unwrap_or_else(|| panic!("no {name} in {:?}", send.params.keys()));
        (p.location, p.required, p.upstream.as_deref())
    };
    assert_eq!(param("to"), (ParamIn::Body, true, None));
    assert_eq!(
        param("content_text"),
        (ParamIn::Body, true, Some("content.text"))
    );
    assert_eq!(send.params["content_text"].max_length, Some(4096));
    assert_eq!(
        param("content_media_url"),
        (ParamIn::Body, false, Some("content.media.url")),
        "required within `media`, which is optional"
    );
    assert!(!pending(send, "content"), "{:?}", send.curate);
    let report = d.report.to_string();
    assert!(
        report.contains(
            "optional body field `metadata` left out: a nested object without declared fields"
        ),
        "{report}"
    );
}

/// `paging: {next}` beside a `cursor` parameter was not seen as paging at all: it is the
/// catalog's cursor paging, and the list tool leaves the cursor and size to the platform.
#[test]
fn a_paging_next_body_is_cursor_paging() {
    let d = messaging();
    let c = &d.catalog;
    let paging = c.paging.as_ref().expect("a paging proposal");
    assert_eq!(
        (
            paging.style,
            paging.items.as_str(),
            paging.cursor_param.as_deref(),
            paging.size_param.as_deref(),
            paging.next.as_deref(),
            paging.max_page_size
        ),
        (
            PagingStyle::Cursor,
            "/data",
            Some("cursor"),
            Some("limit"),
            Some("/paging/next"),
            50
        )
    );
    let list = by_id(c, "listMessages");
    assert!(list.list);
    let params: Vec<&str> = list.params.keys().map(|k| k.as_str()).collect();
    assert_eq!(params, ["status"], "cursor and limit are the platform's");
    assert_eq!(list.default_fields, ["id", "status", "createdAt", "to"]);
}

/// `POST /messages` was `message_create` at `medium`: the operationId names it (`sendMessage`
/// → `message_send`) and, like any write to messages, it is `critical`; reads are not.
#[test]
fn operation_ids_name_what_paths_cannot_and_sending_to_people_is_critical() {
    let d = messaging();
    let c = &d.catalog;
    for (id, name, risk) in [
        ("sendMessage", "chat_message_send", Risk::Critical),
        (
            "createConversationMessage",
            "chat_conversation_message_create",
            Risk::Critical,
        ),
        ("cancelBooking", "chat_booking_cancel", Risk::Critical),
        ("downloadExport", "chat_export_download", Risk::Low),
        ("getMessage", "chat_message_get", Risk::Low),
        ("listMessages", "chat_messages_list", Risk::Low),
    ] {
        let t = by_id(c, id);
        assert_eq!((t.name.as_str(), t.risk), (name, risk), "{id}");
        assert!(
            risk != Risk::Critical || !t.core,
            "{id} is not proposed for core"
        );
    }
    let send = d
        .report
        .operations
        .iter()
        .find(|o| o.operation_id.as_deref() == Some("sendMessage"))
        .unwrap();
    assert!(
        send.notes
            .iter()
            .any(|n| n == "name: verb from the operationId `sendMessage`"),
        "{:?}",
        send.notes
    );
    let reply = d
        .report
        .operations
        .iter()
        .find(|o| o.operation_id.as_deref() == Some("createConversationMessage"))
        .unwrap();
    assert!(
        reply
            .risk
            .contains("a POST there sends something to people"),
        "{}",
        reply.risk
    );
}

/// 128 KB of nested flow collections took the YAML parser 21 s (its work grows with size
/// times nesting): such a document is refused before parsing, naming the place and the limit.
#[test]
fn nested_flow_yaml_is_refused_before_parsing() {
    let half = 64 * 1024;
    let brackets = format!(
        "openapi: 3.0.0\npaths:\n  /a: {}{}\n",
        "[".repeat(half),
        "]".repeat(half)
    );
    let braces = format!(
        "openapi: 3.0.0\nx: {}1{}\n",
        "{a: ".repeat(2 * half / 5 + 1),
        "}".repeat(2 * half / 5 + 1)
    );
    // The 65th collection opens at `  /a: ` + 64 brackets, and at `x: ` + 64 times `{a: `.
    for (text, at) in [(brackets, (3, 7 + 64)), (braces, (2, 4 + 4 * 64))] {
        assert!(text.len() >= 128 * 1024);
        let err = import(&text, &Options::new("x")).err().unwrap();
        let ImportError::TooDeep {
            line,
            column,
            limit: 64,
        } = err
        else {
            panic!("{err}")
        };
        assert_eq!((line, column), at);
        assert!(err.to_string().contains("deeper than 64"), "{err}");
    }
    // Inside a path item, parsed on its own, the place is still the document's (line 6,
    // `      x-deep: ` and 64 brackets before the 65th).
    let in_item = format!(
        "openapi: 3.0.0\ninfo: {{title: T, version: '1'}}\npaths:\n  /a:\n    get:\n      x-deep: {}1{}\n      responses: {{}}\n",
        "[".repeat(100),
        "]".repeat(100)
    );
    assert!(
        matches!(
            import(&in_item, &Options::new("x")),
            Err(ImportError::TooDeep {
                line: 6,
                column: 79,
                limit: 64
            })
        ),
        "{:?}",
        import(&in_item, &Options::new("x")).err()
    );
    // Nesting within the limit still reads.
    let ok = format!(
        "openapi: 3.0.0\ninfo: {{title: T, version: '1'}}\nx-deep: {}1{}\npaths:\n  /a:\n    get:\n      responses: {{'200': {{description: ok}}}}\n",
        "[".repeat(60),
        "]".repeat(60)
    );
    assert_eq!(
        import(&ok, &Options::new("x"))
            .unwrap()
            .report
            .counts()
            .operations,
        1
    );
}

/// A fresh, empty directory for one test (removed by the caller).
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("openapi-import-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `/dev/zero` was read past the size limit (its size is 0) and a FIFO would block the
/// command: anything but a regular file is refused before it is opened.
#[test]
#[cfg(unix)]
fn special_files_are_refused_before_reading() {
    let refused = |path: &std::path::Path| match read_document(path, 1024) {
        Err(FileError::NotAFile { what, .. }) => what,
        other => panic!("{}: {other:?}", path.display()),
    };
    assert_eq!(refused("/dev/zero".as_ref()), "a device");
    let dir = scratch_dir("fifo");
    let fifo = dir.join("spec.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    assert_eq!(refused(&fifo), "a FIFO", "refused, not waited on");
    assert_eq!(refused(&dir), "a directory");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The limit holds whatever size a file reports: reading stops one byte past it.
#[test]
fn reading_stops_one_byte_past_the_limit() {
    let dir = scratch_dir("limit");
    let spec = dir.join("spec.yaml");
    std::fs::write(&spec, "openapi: 3.0.0\n").unwrap();
    assert_eq!(read_document(&spec, 15).unwrap(), "openapi: 3.0.0\n");
    assert!(matches!(
        read_document(&spec, 14),
        Err(FileError::TooLarge { limit: 14, .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
    // A regular file whose reported size is 0 but which has more to read.
    #[cfg(target_os = "linux")]
    {
        let proc = std::path::Path::new("/proc/self/status");
        assert_eq!(std::fs::metadata(proc).unwrap().len(), 0);
        assert!(matches!(
            read_document(proc, 16),
            Err(FileError::TooLarge { limit: 16, .. })
        ));
    }
}

/// The draft went through `.<name>.<pid>.tmp`, opened with create-or-truncate: a link planted
/// there had the draft written into whatever it pointed at. Now the temporary file is new,
/// exclusive and unguessably named; the planted link and its target stay untouched.
#[test]
#[cfg(unix)]
fn a_draft_is_never_written_through_a_planted_link() {
    let dir = scratch_dir("link");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let out = dir.join("draft.yaml");
    let planted = dir.join(format!(".draft.yaml.{}.tmp", std::process::id()));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    write_whole(&out, "connector: x\n").unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "connector: x\n");
    assert!(!std::fs::symlink_metadata(&out).unwrap().is_symlink());
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let planted_name = planted.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        left,
        [planted_name.as_str(), "draft.yaml", "victim.txt"],
        "no temporary file left behind"
    );
    // Writing again replaces the draft whole.
    write_whole(&out, "connector: y\n").unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "connector: y\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Vendors' own documents are not in the repository (their licences): point
/// `OPENAPI_IMPORT_REAL_SPECS` at a folder of them and run
/// `cargo test -p openapi-import -- --ignored` to import each and check the draft loads.
#[test]
#[ignore = "needs vendor documents in OPENAPI_IMPORT_REAL_SPECS"]
fn real_documents_import_into_loadable_drafts() {
    let Ok(dir) = std::env::var("OPENAPI_IMPORT_REAL_SPECS") else {
        panic!("set OPENAPI_IMPORT_REAL_SPECS to a folder of OpenAPI documents");
    };
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path
            .extension()
            .is_some_and(|e| e == "json" || e == "yaml" || e == "yml")
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let d = import(&text, &Options::new("vendor"))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        catalog::parse("vendor.yaml", &d.to_yaml().unwrap()).unwrap();
        assert!(d.report.counts().core <= openapi_import::MAX_CORE);
        println!("{}: {}", path.display(), d.report.counts());
        seen += 1;
    }
    assert!(seen > 0, "no *.json or *.yaml in {dir}");
}
