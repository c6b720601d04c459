//! The lint's connector-wide rules: tool names, aggregations, error hints and messages, paging,
//! credentials, quota headers, pending curation and hidden raw tools.

use catalog::{Catalog, Status, Tool};

use super::{Row, na, row};
use crate::config::Config;
use crate::contract::cursor::ListShape;

/// The connector's rules, in the table's order.
pub(super) fn rows(c: &Catalog, config: &Config) -> Vec<Row> {
    let subject = || c.connector.to_string();
    vec![
        names_row(c, subject()),
        aggregation_row(c, subject()),
        error_hints_row(c, subject()),
        paging_row(c, subject()),
        credentials_row(c, subject()),
        error_message_row(c, subject()),
        quota_row(c, subject()),
        curation_row(c, subject()),
        raw_row(c, config, subject()),
    ]
}

/// `tool_names`: a connector's tool names begin with it, so a model can tell the system a tool
/// acts on; a catalog whose names someone else fixes (`names_fixed_by`) gives that up.
fn names_row(c: &Catalog, subject: String) -> Row {
    match &c.names_fixed_by {
        None => row(
            "tool_names",
            subject,
            true,
            format!("every tool name begins with `{}_`", c.connector),
        ),
        Some(by) => row(
            "tool_names",
            subject,
            false,
            format!(
                "names fixed by {by}: they need not begin with `{}_`, so a model cannot tell \
                 the system from them",
                c.connector
            ),
        ),
    }
}

/// `aggregation_tools`: a connector with list tools offers sums, counts and top N, so a model
/// need not page through everything to answer "how much".
fn aggregation_row(c: &Catalog, subject: String) -> Row {
    if !c.tools.iter().any(|t| t.list) {
        return na("aggregation_tools", subject, "no list tools");
    }
    let has_agg = c.tools.iter().any(|t| t.aggregate.is_some());
    row(
        "aggregation_tools",
        subject,
        has_agg,
        if has_agg {
            "aggregations declared"
        } else {
            "list tools but no aggregation tool (sums, counts, top N)"
        },
    )
}

/// `error_hints`: not found, unauthorized and rate limited each have a hint, on the connector
/// or on every tool (aggregations and reads of inbound events excepted: they call no upstream).
fn error_hints_row(c: &Catalog, subject: String) -> Row {
    let declared = |s: Status| c.hints.contains_key(&s);
    let missing: Vec<&str> = [
        (Status::NotFound, "not_found"),
        (Status::Unauthorized, "unauthorized"),
        (Status::RateLimited, "rate_limited"),
    ]
    .into_iter()
    .filter(|(s, _)| {
        !declared(*s)
            && !c
                .tools
                .iter()
                .all(|t| t.hints.contains_key(s) || t.aggregate.is_some() || t.inbound.is_some())
    })
    .map(|(_, n)| n)
    .collect();
    row(
        "error_hints",
        subject,
        missing.is_empty(),
        if missing.is_empty() {
            "hints declared".to_string()
        } else {
            format!("no hints for {}", missing.join(", "))
        },
    )
}

/// `error_message`: the upstream's reason for a refusal reaches the model.
fn error_message_row(c: &Catalog, subject: String) -> Row {
    if c.mcp.is_some() {
        // A remote MCP server's failures carry their own words (isError content, JSON-RPC
        // error messages), which reach the model as upstream_message.
        return na(
            "error_message",
            subject,
            "a remote MCP server's own error words are passed on",
        );
    }
    let errors = c.errors.as_ref();
    let reads_message = c.error_message.is_some()
        || errors.is_some_and(|e| !e.message.is_empty() || e.problem_details);
    row(
        "error_message",
        subject,
        reads_message,
        if reads_message {
            "the upstream's reason reaches the model as upstream_message"
        } else {
            "no `error_message` or `errors`: a refusal reaches the model without the upstream's reason"
        },
    )
}

/// `quota_headers`: a declared quota is read from the upstream's headers (or from the bodies of
/// the answers that carry it).
fn quota_row(c: &Catalog, subject: String) -> Row {
    match &c.quota {
        None => na("quota_headers", subject, "no quota declared"),
        // Only a caller budget: the upstream reports no quota, so there is nothing to read.
        Some(q) if q.is_budget_only() => na(
            "quota_headers",
            subject,
            "only a caller budget: the upstream reports no quota",
        ),
        Some(q) => row(
            "quota_headers",
            subject,
            q.remaining.is_some()
                || q.consumed.is_some()
                || q.headers.is_some()
                || q.body.is_some(),
            "remaining/consumed headers (or a header family, or body figures) are passed through as _quota",
        ),
    }
}

/// `curation`: no import decision left pending at the connector's level.
fn curation_row(c: &Catalog, subject: String) -> Row {
    row(
        "curation",
        subject,
        c.curate.is_empty(),
        if c.curate.is_empty() {
            "no pending import decisions".to_string()
        } else {
            format!("decide and remove `curate`: {}", c.curate.join("; "))
        },
    )
}

/// `no_raw_hosted`: this configuration does not expose the connector's raw tools.
fn raw_row(c: &Catalog, config: &Config, subject: String) -> Row {
    let exposed = config.expose_raw(&c.connector) && c.tools.iter().any(|t| t.raw);
    row(
        "no_raw_hosted",
        subject,
        !exposed,
        if exposed {
            "raw tools exposed: unset <CONNECTOR>_EXPOSE_RAW"
        } else {
            "raw tools hidden"
        },
    )
}

/// `paging`: what the list tools' paging gives the model, in words. Informative: what an
/// upstream cannot report (a total, a "more" flag) is no gap the catalog can close; the loader
/// already refuses a style without the fields it needs.
fn paging_row(c: &Catalog, subject: String) -> Row {
    let lists: Vec<&Tool> = c.tools.iter().filter(|t| t.list).collect();
    if lists.is_empty() {
        return na("paging", subject, "no list tools");
    }
    // List tools that declare their own paging (another style, or unpaged), named.
    let own: Vec<String> = lists
        .iter()
        .filter_map(|t| Some(format!("{} {}", t.name, t.paging.as_ref()?.style.as_str())))
        .collect();
    let own_note = if own.is_empty() {
        String::new()
    } else {
        format!("; their own paging: {}", own.join(", "))
    };
    let Some((pager, first)) = lists
        .iter()
        .find(|t| t.paging.is_none())
        .and_then(|t| Some((c.pager()?, *t)))
    else {
        return row(
            "paging",
            subject,
            true,
            format!("every list tool pages its own way: {}", own.join(", ")),
        );
    };
    let style = match (&c.paging, &pager.ask) {
        (None, _) => "list_envelope (numbered pages from 1)".to_string(),
        (Some(p), catalog::Ask::Page { first, .. }) => {
            format!("{} (numbered from {first})", p.style.as_str())
        }
        (Some(p), _) => p.style.as_str().to_string(),
    };
    let shape = ListShape::of(c, first);
    let mut given = vec![if shape.by_cursor {
        "cursor/next_cursor"
    } else {
        // Every list also takes the cursor to the rest of a page cut to fit the output limit.
        "page (cursor for a cut page's rest)"
    }];
    if shape.sized {
        given.push("page_size");
    }
    given.push("fields");
    if shape.counts {
        given.push("count_only");
    }
    let mut detail = format!("{style}: {}", given.join(", "));
    if !shape.counts {
        detail.push_str("; no count_only (no `total`)");
    }
    if !pager.by_cursor() && pager.more.is_none() && pager.total.is_none() && pager.infer_more {
        detail.push_str("; has_more guessed from a full page (no `more` or `total`)");
    }
    detail.push_str(&own_note);
    row("paging", subject, true, detail)
}

/// Every secret field is used: in `base_url` or a tool's path, by `auth` or by `inbound` (the
/// webhooks' verify token and signing secret). A field used by none is a
/// credential the connector declares but never sends (a forgotten `auth`). A query-parameter
/// credential is named: it travels in the URL, which some upstreams log.
fn credentials_row(c: &Catalog, subject: String) -> Row {
    if c.secrets.is_empty() {
        return na("credentials", subject, "no secret fields");
    }
    let mut in_url = catalog::placeholders(&c.base_url);
    if let Some(m) = &c.mcp {
        in_url.extend(catalog::placeholders(&m.url));
    }
    // A path hole that names no param of its tool is a secret field (an account id).
    for t in &c.tools {
        if let Some((_, path)) = t.http() {
            let fixed = catalog::placeholders(path).into_iter();
            in_url.extend(fixed.filter(|h| !t.params.contains_key(*h)));
        }
    }
    let mut used = c.auth.secret_fields();
    if let Some(inbound) = &c.inbound {
        used.extend([
            inbound.verify_token.as_str(),
            inbound.signing_secret.as_str(),
        ]);
    }
    let unused: Vec<&str> = c
        .secrets
        .iter()
        .map(catalog::Text::as_str)
        .filter(|s| !in_url.contains(s) && !used.contains(s))
        .collect();
    let detail = if !unused.is_empty() {
        format!(
            "secret field(s) {} used neither in the URL nor by auth",
            unused.join(", ")
        )
    } else if let Some(name) = &c.auth.query {
        format!("sent as the query parameter `{name}` (never previewed or logged by the server)")
    } else {
        "every secret field is sent".to_string()
    };
    row("credentials", subject, unused.is_empty(), detail)
}

#[cfg(test)]
mod tests {
    use crate::commands::lint::tests::config;
    use crate::commands::lint::{Row, Verdict, lint};

    #[test]
    fn names_someone_else_fixes_are_a_gap_that_says_who() {
        let row = |extra: &str| {
            let yaml = format!(
                "connector: q\n{extra}base_url: \"http://x\"\ntools:\n  - name: q_things_get\n    risk: low\n    description: d\n    get: /things\n"
            );
            let rows = lint(&[catalog::parse("q.yaml", &yaml).unwrap()], &config());
            rows.into_iter().find(|r| r.rule == "tool_names").unwrap()
        };
        assert_eq!(row("").verdict, Verdict::Ok);
        let fixed = row("names_fixed_by: a suite\n");
        assert_eq!(fixed.verdict, Verdict::Gap);
        assert!(
            fixed.detail.starts_with("names fixed by a suite"),
            "{}",
            fixed.detail
        );
    }

    #[test]
    fn a_caller_budget_alone_needs_no_quota_headers_but_a_limit_does() {
        let verdict = |quota: &str| {
            let yaml = format!(
                "connector: q\nbase_url: \"http://x\"\nquota: {quota}\ntools:\n  - name: q_things_get\n    risk: low\n    description: d\n    get: /things\n"
            );
            let rows = lint(&[catalog::parse("q.yaml", &yaml).unwrap()], &config());
            rows.into_iter()
                .find(|r| r.rule == "quota_headers")
                .unwrap()
                .verdict
        };
        assert_eq!(
            verdict("{ caller_daily_budget: 100 }"),
            Verdict::NotApplicable
        );
        assert_eq!(
            verdict("{ limit: 1000, window: { day: UTC } }"),
            Verdict::Gap
        );
        assert_eq!(
            verdict("{ body: { remaining: /credits, tools: [q_things_get] } }"),
            Verdict::Ok,
            "body figures reach _quota too"
        );
    }

    /// Three connectors on one deployment: the deployment's tools/list and each profile's
    /// (`accounting` calls both accounting systems, `calendar` lists Cal.com's tools with `+`)
    /// stay within what a model reads on every turn.
    #[test]
    fn the_paging_row_says_what_the_model_gets_and_examples_follow_the_shape() {
        let text = |example: &str| {
            format!(
                r#"
connector: gh
base_url: "https://api.github.test"
paging: {{ style: link_header, items: "", size_param: per_page }}
tools:
  - name: gh_issues_list
    risk: low
    list: true
    description: 'Lists issues (Tickets, bugs). Use it to find open work. Example: {example}'
    get: /issues
"#
            )
        };
        let rows = |example: &str| {
            lint(
                &[catalog::parse("gh.yaml", &text(example)).unwrap()],
                &config(),
            )
        };
        let ok = rows(r#"{"page_size": 20}"#);
        let paging = ok.iter().find(|r| r.rule == "paging").unwrap();
        assert_eq!(paging.verdict, Verdict::Ok);
        assert_eq!(
            paging.detail,
            "link_header: cursor/next_cursor, page_size, fields; no count_only (no `total`)"
        );
        let description = |rows: &[Row]| {
            rows.iter()
                .find(|r| r.rule == "description")
                .unwrap()
                .clone()
        };
        assert_eq!(
            description(&ok).verdict,
            Verdict::Ok,
            "{}",
            description(&ok).detail
        );
        let paged = rows(r#"{"page": 2}"#);
        assert_eq!(description(&paged).verdict, Verdict::Gap);
        assert!(description(&paged).detail.contains("pages by cursor"));
        let shipped = catalog::load_sources(crate::EMBEDDED_CATALOGS).unwrap();
        let rows = lint(&shipped, &config());
        let papierkram = rows
            .iter()
            .find(|r| r.rule == "paging" && r.subject == "papierkram")
            .unwrap();
        assert_eq!(
            papierkram.detail,
            "list_envelope (numbered pages from 1): page (cursor for a cut page's rest), page_size, \
             fields, count_only"
        );
    }

    #[test]
    fn the_paging_row_names_the_lists_that_page_their_own_way() {
        const KINDS: &str = r#"
connector: cal
base_url: "https://api.cal.test/v2"
tools:
  - name: cal_kinds_list
    risk: low
    list: true
    description: 'Lists kinds (Arten). Use it to find a kind. Example: {"page_size": 5}'
    get: /kinds
    paging: { style: unpaged, items: /data }
"#;
        const BOOKINGS: &str = r#"
  - name: cal_bookings_list
    risk: low
    list: true
    description: 'Lists bookings (Termine). Use it for meetings. Example: {}'
    get: /bookings
paging: { style: offset, items: /data, offset_param: skip, size_param: take }
"#;
        let rows_of = |text: &str| lint(&[catalog::parse("cal.yaml", text).unwrap()], &config());
        let find = |rows: &[Row], rule: &str| rows.iter().find(|r| r.rule == rule).unwrap().clone();
        let alone = rows_of(KINDS);
        let paging = find(&alone, "paging");
        assert_eq!(paging.verdict, Verdict::Ok);
        assert_eq!(
            paging.detail,
            "every list tool pages its own way: cal_kinds_list unpaged"
        );
        let shape = find(&alone, "list_shape");
        assert!(shape.detail.contains("count_only"), "{}", shape.detail);
        let beside = find(&rows_of(&format!("{KINDS}{BOOKINGS}")), "paging");
        assert!(
            beside
                .detail
                .starts_with("offset: page (cursor for a cut page's rest), page_size")
                && beside
                    .detail
                    .ends_with("; their own paging: cal_kinds_list unpaged"),
            "{}",
            beside.detail
        );
    }

    #[test]
    fn a_secret_field_no_declaration_sends_is_a_gap() {
        let text = |auth: &str| {
            format!(
                "connector: c\nbase_url: \"https://{{host}}/v1\"\nsecrets: [host, key]\n{auth}\n\
                 tools:\n  - name: c_thing_get\n    risk: low\n    description: d\n    get: /t\n"
            )
        };
        let verdict = |auth: &str| {
            let c = catalog::parse("c.yaml", &text(auth)).unwrap();
            lint(&[c], &config())
                .into_iter()
                .find(|r| r.rule == "credentials")
                .unwrap()
        };
        assert_eq!(verdict("").verdict, Verdict::Gap);
        assert!(verdict("").detail.contains("key"));
        assert_eq!(verdict("auth: { bearer: key }").verdict, Verdict::Ok);
        let query = verdict("auth: { query: api_key, secret: key }");
        assert_eq!(query.verdict, Verdict::Ok);
        assert!(query.detail.contains("`api_key`"), "{}", query.detail);
        let template = verdict("auth: { header: Authorization, value: \"Token {key}\" }");
        assert_eq!(template.verdict, Verdict::Ok);
    }
}
