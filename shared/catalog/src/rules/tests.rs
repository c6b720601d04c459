//! The rules as a load reports them: each test parses a catalog that breaks one rule and reads
//! the `FILE:LINE: problem` it gets.

use crate::load::parse;
use crate::model::ParamType;

/// A catalog that breaks no rule; each test changes one thing in it.
pub(crate) const GOOD: &str = r#"
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
fn a_param_asked_of_a_person_is_a_required_plain_value_of_a_tool_without_confirmation() {
    let with = |param: &str| {
        GOOD.replace(
            "    get: /invoices\n",
            &format!("    get: /invoices\n    params:\n      customer: {param}\n"),
        )
    };
    let asked = with("{ type: string, required: true, ask: Which customer? }");
    let c = parse("demo.yaml", &asked).unwrap();
    assert_eq!(
        c.tools[0].params["customer"].ask.as_deref(),
        Some("Which customer?")
    );
    for (param, expected) in [
        (
            "{ type: string, ask: Which customer? }",
            "`ask` is for a required param",
        ),
        (
            "{ type: string, required: true, ask: ' ' }",
            "`ask` is empty",
        ),
    ] {
        let err = parse("demo.yaml", &with(param)).unwrap_err().to_string();
        assert!(err.contains(expected), "{param}: {err}");
    }
    let high = asked.replacen(
        "    risk: low\n    list: true\n",
        "    risk: high\n    list: true\n",
        1,
    );
    let err = parse("demo.yaml", &high).unwrap_err().to_string();
    assert!(
        err.contains("`ask` is for tools of risk `low` or `medium`"),
        "{err}"
    );
}

#[test]
fn an_upstreams_own_rate_is_a_positive_number_of_requests_over_at_most_an_hour() {
    let with =
        |rate: &str| GOOD.replace("tools:\n", &format!("quota: {{ rate: {rate} }}\ntools:\n"));
    let c = parse("demo.yaml", &with("{ requests: 2 }")).unwrap();
    let rate = c.quota.unwrap().rate.unwrap();
    assert_eq!(
        (rate.requests, rate.seconds, rate.interval_ms()),
        (2, 1, 500)
    );
    assert_eq!(rate.words(), "2 requests a second");
    for (rate, expected) in [
        (
            "{ requests: 0 }",
            "quota.rate.requests must be 1 to 1000, is 0",
        ),
        (
            "{ requests: 5, seconds: 7200 }",
            "quota.rate.seconds must be 1 to 3600, is 7200",
        ),
    ] {
        let err = parse("demo.yaml", &with(rate)).unwrap_err().to_string();
        assert!(err.contains(expected), "{rate}: {err}");
    }
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
        (
            "    answer: {}\n",
            "one of `binary`, `inline`, `text` and `parts`",
        ),
        (
            "    answer: { text: greeting }\n",
            "answer.text `greeting` must be a JSON pointer",
        ),
        (
            "    answer: { inline: [{ pointer: image, mime: image/png, max_bytes: 10 }] }\n",
            "must start with `/`",
        ),
        (
            "    answer: { inline: [{ pointer: /d, mime: \"{nobody}\", max_bytes: 10 }] }\n",
            "nor `{param}` of the tool",
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
    let kept = parse(
        "demo.yaml",
        &write("    current: demo_invoice_get\n    from_current: [version, address.city]\n"),
    )
    .unwrap();
    assert_eq!(kept.tools[2].from_current, ["version", "address.city"]);
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
        (
            "    from_current: [version]\n",
            "`from_current` needs `current`",
        ),
        (
            "    current: demo_invoice_get\n    from_current: [version, \"lines[0]\"]\n",
            "must be a dotted field path",
        ),
        (
            "    current: demo_invoice_get\n    from_current: [company, company.name]\n",
            "lies inside `company`",
        ),
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
    // A POST that only reads is a read: no write contract, and only a POST may say so.
    let query = GOOD.replace(
        "    get: /invoices/{id}\n",
        "    post: /invoices/{id}/query\n    read_only: true\n",
    );
    let c = parse("demo.yaml", &query).unwrap();
    assert!(c.tools.iter().any(|t| t.read_only && t.is_read_only()));
    let get = GOOD.replace(
        "    get: /invoices/{id}\n",
        "    get: /invoices/{id}\n    read_only: true\n",
    );
    let err = parse("demo.yaml", &get).unwrap_err().to_string();
    assert!(err.contains("`read_only` is for a POST"), "{err}");
    let with_effect = query.replace(
        "    read_only: true\n",
        "    read_only: true\n    effect: change\n",
    );
    let err = parse("demo.yaml", &with_effect).unwrap_err().to_string();
    assert!(err.contains("are for writes"), "{err}");
}

#[test]
fn a_path_hole_is_a_path_param_or_a_secret_field() {
    let text = GOOD.replace(
        "    get: /invoices/{id}\n",
        "    get: /{host}/invoices/{id}\n",
    );
    assert!(parse("demo.yaml", &text).is_ok());
    let text = GOOD.replace(
        "    get: /invoices/{id}\n",
        "    get: /{account}/invoices/{id}\n",
    );
    let err = parse("demo.yaml", &text).unwrap_err().to_string();
    assert!(
        err.contains("no `in: path` param nor secret field `account`"),
        "{err}"
    );
}

#[test]
fn base_url_placeholder_must_be_a_secret() {
    let text = GOOD.replace("secrets: [host, token]", "secrets: [token]");
    let err = parse("demo.yaml", &text).unwrap_err().to_string();
    assert!(err.contains("{host}"), "{err}");
}

#[test]
fn a_tools_own_base_url_is_http_and_fills_only_secrets() {
    let on_tool = |url: &str| {
        GOOD.replace(
            "    get: /invoices\n",
            &format!("    base_url: \"{url}\"\n    get: /invoices\n"),
        )
    };
    assert!(parse("demo.yaml", &on_tool("https://people.example.com/{host}")).is_ok());
    let err = parse("demo.yaml", &on_tool("ftp://x"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("must be an http(s) URL"), "{err}");
    let err = parse("demo.yaml", &on_tool("https://{tenant}.example.com"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("{tenant}"), "{err}");
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
fn quota_body_figures_are_pointers_read_from_named_tools_or_the_probe() {
    let with = |quota: &str| {
        let text = GOOD.replace("tools:\n", &format!("quota: {quota}\ntools:\n"));
        parse("demo.yaml", &text).map_err(|e| e.to_string())
    };
    let good = "{ body: { remaining: /account/credits, limit: \"/tier/max~1month\", \
                tools: [demo_invoice_get] }, balance: true }";
    let quota = with(good).unwrap().quota.unwrap();
    let body = quota.body.as_ref().unwrap();
    assert_eq!(body.remaining.as_deref(), Some("/account/credits"));
    assert!(quota.balance && quota.body_in("demo_invoice_get"));
    assert!(
        with("{ body: { remaining: /left }, window: { day: UTC }, probe: { get: /info } }").is_ok(),
        "a probe reads the body figures of its own answer"
    );
    for (quota, problem) in [
        (
            "{ body: { remaining: creditBalance, tools: [demo_invoice_get] } }",
            "quota.body.remaining `creditBalance` is not a JSON pointer",
        ),
        (
            "{ body: { limit: /a~2b, tools: [demo_invoice_get] } }",
            "quota.body.limit `/a~2b` is not a JSON pointer",
        ),
        (
            "{ body: { consumed: '/cost~', tools: [demo_invoice_get] } }",
            "quota.body.consumed",
        ),
        (
            "{ body: { remaining: '', tools: [demo_invoice_get] } }",
            "is not a JSON pointer",
        ),
        (
            "{ body: { tools: [demo_invoice_get] } }",
            "declares no figure",
        ),
        (
            "{ body: { remaining: /left, tools: [demo_invoice_get] }, consumed: x-cost }",
            "declare one way",
        ),
        (
            "{ body: { remaining: /left, tools: [demo_invoices_lst] } }",
            "names `demo_invoices_lst`, no tool of this catalog",
        ),
        ("{ body: { remaining: /left } }", "read from no answer"),
        ("{ body: { remaining: /left, per: day } }", "unknown field"),
        ("{ limit: 100, balance: true }", "quota.balance"),
        (
            "{ body: { limit: /max }, window: { day: UTC }, probe: { get: /info } }",
            "quota.body.remaining",
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
    let c =
        with("{ type: array, in: body, max_items: 20, item: { type: string, max_length: 200 } }")
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

/// GOOD with a spend limit (or none) and a write tool `demo_video_create` that spends `spends`
/// over the params `model` (an enum) and `duration` (`duration`).
fn spending(limit: Option<&str>, spends: &str, duration: &str) -> String {
    let quota = limit.map_or(String::new(), |l| {
        format!("quota:\n  caller_daily_spend: {l}\n")
    });
    let tool = format!(
        r#"  - name: demo_video_create
    risk: high
    effect: financial
    idempotent: false
    side_effects: Starts a video generation that costs credits.
    audit_event: video.created
    failure_modes: ["402: the account has no credits left."]
    description: 'Starts a video. Use it to "make a video". Example {{"model": "fast", "duration": 5}}'
    post: /videos
    spends: {spends}
    params:
      model: {{ type: string, in: body, required: true, enum: [fast, fine] }}
      duration: {duration}
"#
    );
    GOOD.replace("tools:\n", &format!("{quota}tools:\n{tool}"))
}

const DURATION: &str = "{ type: integer, in: body, min: 2, max: 10, default: 5 }";

fn spend_problem(limit: Option<&str>, spends: &str, duration: &str) -> String {
    parse("demo.yaml", &spending(limit, spends, duration))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_spend_is_a_fixed_amount_or_a_priced_enum_times_a_bounded_number() {
    let limit = Some("{ unit: credits, limit: 500 }");
    for spends in [
        "{ amount: 1 }",
        "{ amount: 5, times: duration }",
        "{ by: model, amounts: { fast: 5, fine: 12 }, times: duration }",
    ] {
        let catalog = parse("demo.yaml", &spending(limit, spends, DURATION));
        assert!(catalog.is_ok(), "{spends}: {:?}", catalog.err());
    }
}

#[test]
fn a_tool_that_spends_needs_the_connectors_unit_and_limit() {
    let err = spend_problem(None, "{ amount: 1 }", DURATION);
    assert!(err.contains("needs `quota.caller_daily_spend`"), "{err}");
    let err = spend_problem(
        Some("{ unit: Credits!, limit: 0 }"),
        "{ amount: 1 }",
        DURATION,
    );
    assert!(
        err.contains("unit `Credits!` must be a lower-case word"),
        "{err}"
    );
    let err = spend_problem(
        Some("{ unit: credits, limit: 0 }"),
        "{ amount: 1 }",
        DURATION,
    );
    assert!(
        err.contains("limit must be 1 to 1000000000, found 0"),
        "{err}"
    );
}

#[test]
fn every_value_of_a_priced_enum_has_an_amount_and_only_those() {
    let limit = Some("{ unit: credits, limit: 500 }");
    let err = spend_problem(limit, "{ by: model, amounts: { fast: 5 } }", DURATION);
    assert!(err.contains("no amount for `fine`"), "{err}");
    let err = spend_problem(
        limit,
        "{ by: model, amounts: { fast: 5, fine: 6, turbo: 7 } }",
        DURATION,
    );
    assert!(err.contains("prices `turbo`, which is no value"), "{err}");
    let err = spend_problem(limit, "{ by: duration, amounts: { fast: 5 } }", DURATION);
    assert!(
        err.contains("must be a string param with an `enum`"),
        "{err}"
    );
    let err = spend_problem(
        limit,
        "{ amount: 1, by: model, amounts: { fast: 5, fine: 6 } }",
        DURATION,
    );
    assert!(err.contains("exactly one of `amount`"), "{err}");
    let err = spend_problem(limit, "{ amount: 2000000 }", DURATION);
    assert!(err.contains("spends.amount must be 1 to 1000000"), "{err}");
}

#[test]
fn the_argument_a_spend_is_multiplied_by_is_a_bounded_number() {
    let limit = Some("{ unit: credits, limit: 500 }");
    let times = "{ amount: 5, times: duration }";
    let err = spend_problem(limit, "{ amount: 5, times: seconds }", DURATION);
    assert!(err.contains("`seconds` is not a param"), "{err}");
    let err = spend_problem(
        limit,
        times,
        "{ type: integer, in: body, min: 2 , default: 5 }",
    );
    assert!(
        err.contains("needs `min` of at least 0 and a `max`"),
        "{err}"
    );
    // Optional without a default: the upstream chooses, and the call is priced at the max.
    let optional = spending(limit, times, "{ type: integer, in: body, min: 2, max: 10 }");
    assert!(parse("demo.yaml", &optional).is_ok());
    let err = spend_problem(limit, times, "{ type: string, in: body, default: five }");
    assert!(err.contains("must be an integer or number param"), "{err}");
}

#[test]
fn error_codes_need_their_pointer_and_an_error_status() {
    let with = |errors: &str| GOOD.replace("tools:\n", &format!("errors: {errors}\ntools:\n"));
    let meta =
        with(r#"{ code: /error/code, codes: { "130429": rate_limited, "4": rate_limited } }"#);
    let c = parse("demo.yaml", &meta).unwrap();
    let errors = c.errors.unwrap();
    assert_eq!(
        errors.status_of_code("130429"),
        Some(crate::model::Status::RateLimited)
    );
    assert_eq!(errors.status_of_code("131047"), None);
    let orphan = with(r#"{ message: [/error/message], codes: { "4": rate_limited } }"#);
    let err = parse("demo.yaml", &orphan).unwrap_err().to_string();
    assert!(err.contains("errors.codes needs errors.code"), "{err}");
    let ok = with(r#"{ code: /error/code, codes: { "4": ok } }"#);
    let err = parse("demo.yaml", &ok).unwrap_err().to_string();
    assert!(err.contains("not an error status"), "{err}");
    let bad = with("{ code: error.code }");
    let err = parse("demo.yaml", &bad).unwrap_err().to_string();
    assert!(err.contains("is not a JSON pointer"), "{err}");
}

#[test]
fn an_aggregation_reads_one_answer_of_a_read_only_tool_only_with_items() {
    let with = |source: &str| {
        format!(
            "{GOOD}  - name: demo_busy_get\n    risk: low\n    description: d\n    post: /busy\n    read_only: true\n  - name: demo_slots_get\n    risk: low\n    description: d\n    aggregate:\n      sources:\n        busy: {{ tool: demo_busy_get{source} }}\n      result:\n        - name: week\n          days: {{ of: busy, start: start, end: end, from: 2026-05-04, zone: UTC, hours: 09:00-17:00, slots: \"60\" }}\n"
        )
    };
    parse("demo.yaml", &with(", items: /calendars/*/busy/*")).unwrap();
    let err = parse("demo.yaml", &with("")).unwrap_err().to_string();
    assert!(
        err.contains("nor a read-only one with the source's `items`"),
        "{err}"
    );
    let err = parse("demo.yaml", &with(", items: calendars"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("must be a JSON pointer"), "{err}");
    let long = with(", items: /x").replace("slots: \"60\"", "slots: \"a day\"");
    let err = parse("demo.yaml", &long).unwrap_err().to_string();
    assert!(err.contains("`slots` is a number of minutes"), "{err}");
}
