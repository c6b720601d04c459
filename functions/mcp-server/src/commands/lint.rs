//! `mcp-server lint [DIR]`: checks catalogs against the audit checklist, one row per rule and
//! tool (or connector) with ok / gap / n/a. Any gap fails the run.

use std::fmt::Write as _;

use catalog::{Catalog, ParamType, Risk, Status, Tool};

use crate::config::Config;
use crate::contract::args;
use crate::contract::cursor::ListShape;
use crate::inventory::{DeployedCatalog, Inventory, Registry, Scope};
use crate::mcp::lists::{self, MAX_BYTES, MAX_READ_BYTES};

use super::lint_remote;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Ok,
    Gap,
    NotApplicable,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Gap => "gap",
            Verdict::NotApplicable => "n/a",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    pub rule: &'static str,
    /// The tool (its name carries the connector), or the connector for connector-wide rules.
    pub subject: String,
    pub verdict: Verdict,
    pub detail: String,
}

/// Most tools a client should see at once; beyond it, selection degrades (search instead).
pub(crate) const MAX_LISTED: usize = 30;

/// Verbs a tool name may end with.
const VERBS: &[&str] = &[
    "list",
    "get",
    "search",
    "create",
    "update",
    "delete",
    "archive",
    "unarchive",
    "cancel",
    "send",
    "pay",
    "book",
    "upload",
    "download",
    "reschedule",
    "mark_absent",
];

/// A param the model could fill without limit: a number without bounds, a free string without a
/// length, an array without `max_items` or with an unbounded item field or `item`.
pub(super) fn unbounded(p: &catalog::Param) -> bool {
    match p.kind {
        ParamType::Integer | ParamType::Number => p.min.is_none() && p.max.is_none(),
        ParamType::String => p.choices.is_none() && p.max_length.is_none(),
        ParamType::Boolean | ParamType::Date | ParamType::Datetime | ParamType::TimeZone => false,
        ParamType::Array => {
            p.max_items.is_none()
                || match (&p.items, &p.item) {
                    (Some(f), None) => f.is_empty() || f.values().any(|p| unbounded(p)),
                    (None, Some(item)) => unbounded(item),
                    _ => true,
                }
        }
    }
}

pub(super) fn row(
    rule: &'static str,
    subject: impl Into<String>,
    ok: bool,
    detail: impl Into<String>,
) -> Row {
    let verdict = if ok { Verdict::Ok } else { Verdict::Gap };
    Row {
        rule,
        subject: subject.into(),
        verdict,
        detail: detail.into(),
    }
}

pub(super) fn na(rule: &'static str, subject: impl Into<String>, detail: &str) -> Row {
    Row {
        rule,
        subject: subject.into(),
        verdict: Verdict::NotApplicable,
        detail: detail.into(),
    }
}

/// The largest JSON answer a Lambda behind API Gateway may send (6 MB), less room for the
/// result's JSON around a document.
const LAMBDA_ANSWER_BYTES: usize = 6 * 1024 * 1024 - 64 * 1024;

/// `document_size`: a document at its cap, base64 in a result or a read (4 bytes per 3),
/// still fits one Lambda answer.
fn document_row(binary: &catalog::BinaryAnswer, subject: String) -> Row {
    let encoded = binary.max_bytes.div_ceil(3) * 4;
    let fits = encoded <= LAMBDA_ANSWER_BYTES;
    let mut detail = format!(
        "max_bytes {} is {} B as base64 (a Lambda answer holds {LAMBDA_ANSWER_BYTES} B)",
        binary.max_bytes, encoded
    );
    if !fits {
        detail.push_str("; lower max_bytes to 4.4 MiB or less: a link's read carries it too");
    }
    row("document_size", subject, fits, detail)
}

pub(crate) fn lint(catalogs: &[Catalog], config: &Config) -> Vec<Row> {
    let mut rows = Vec::new();
    for c in catalogs {
        connector_rows(c, config, &mut rows);
        for t in &c.tools {
            tool_rows(t, ListShape::of(c, t), &mut rows);
        }
    }
    let listed: usize = catalogs
        .iter()
        .map(|c| {
            c.tools
                .iter()
                .filter(|t| t.core && t.risk != Risk::Forbidden && !t.raw)
                .count()
        })
        .sum();
    // Remote MCP servers' tools: the ones named in `allow` count; what a glob matches is
    // known only at run time, so it widens the range without failing the rule.
    let remotes: Vec<_> = catalogs.iter().filter_map(lint_remote::listed).collect();
    let at_least = listed + remotes.iter().map(|r| r.at_least).sum::<usize>();
    let at_most = listed + remotes.iter().map(|r| r.at_most).sum::<usize>();
    let count = if remotes.is_empty() {
        format!("{listed} listed tools")
    } else if at_least == at_most {
        format!("{at_least} listed tools ({listed} from catalogs, the rest named in `mcp.allow`)")
    } else {
        format!(
            "{at_least} to {at_most} listed tools ({listed} from catalogs; what remote globs match \
             is unknown offline)"
        )
    };
    rows.push(row(
        "listed_tools",
        "(deployment)",
        at_least <= MAX_LISTED,
        format!("{count} (max {MAX_LISTED}; beyond it, serve the rest through search)"),
    ));
    rows.extend(lint_remote::rows(catalogs));
    rows.extend(lint_remote::name_rows(catalogs));
    rows.extend(lint_remote::pin_rows(catalogs));
    let inventory = deployed(catalogs, config);
    budget_rows(&inventory, remotes.is_empty(), &mut rows);
    rows.extend(super::lint_prompts::rows(&inventory));
    rows
}

/// The catalogs as this configuration deploys them: the views the budgets and prompt rules
/// are judged on.
fn deployed(catalogs: &[Catalog], config: &Config) -> Inventory {
    let connectors = catalogs
        .iter()
        .map(|c| DeployedCatalog {
            base_url: c.base_url.to_string(),
            expose_raw: config.expose_raw(&c.connector),
            catalog: c.clone(),
        })
        .collect();
    Inventory::new(Registry::new(connectors), config.profiles.clone())
}

/// `list_budget`: every scope's `tools/list` (the deployment's, each profile's) within what a
/// model can afford on every turn.
/// Remote MCP servers' tools are not in it: their descriptions and schemas arrive at run time.
fn budget_rows(inventory: &Inventory, no_remotes: bool, rows: &mut Vec<Row>) {
    let mut scopes: Vec<(Scope, Vec<rmcp::model::Tool>)> =
        lists::build(inventory).into_iter().collect();
    scopes.sort_by_key(|(scope, _)| scope.profile().map(str::to_string));
    for (scope, tools) in scopes {
        let size = lists::Size::of(&tools);
        let subject = match scope.profile() {
            Some(p) => format!("(profile {p})"),
            None => "(deployment)".into(),
        };
        let mut detail = format!(
            "tools/list: {} B read (names, descriptions, input schemas; max {MAX_READ_BYTES}), \
             {} B in all (max {MAX_BYTES}); {} tools",
            size.read,
            size.total,
            tools.len()
        );
        if !no_remotes {
            detail.push_str(
                "; remote MCP tools not counted (their descriptions and schemas come from the \
                 remote at run time)",
            );
        }
        if !size.within_budget() {
            detail.push_str(
                ". List fewer core tools (`core: false`: found with search_tools) or shorten \
                 parameter descriptions",
            );
        }
        rows.push(row("list_budget", subject, size.within_budget(), detail));
    }
}

fn connector_rows(c: &Catalog, config: &Config, rows: &mut Vec<Row>) {
    let subject = c.connector.clone();
    let has_list = c.tools.iter().any(|t| t.list);
    let has_agg = c.tools.iter().any(|t| t.aggregate.is_some());
    rows.push(if has_list {
        row(
            "aggregation_tools",
            subject.to_string(),
            has_agg,
            if has_agg {
                "aggregations declared"
            } else {
                "list tools but no aggregation tool (sums, counts, top N)"
            },
        )
    } else {
        na("aggregation_tools", subject.to_string(), "no list tools")
    });
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
                .all(|t| t.hints.contains_key(s) || t.aggregate.is_some())
    })
    .map(|(_, n)| n)
    .collect();
    rows.push(row(
        "error_hints",
        subject.to_string(),
        missing.is_empty(),
        if missing.is_empty() {
            "hints declared".to_string()
        } else {
            format!("no hints for {}", missing.join(", "))
        },
    ));
    rows.push(paging_row(c, subject.to_string()));
    rows.push(credentials_row(c, subject.to_string()));
    let errors = c.errors.as_ref();
    let reads_message = c.error_message.is_some()
        || errors.is_some_and(|e| !e.message.is_empty() || e.problem_details);
    rows.push(if c.mcp.is_some() {
        // A remote MCP server's failures carry their own words (isError content, JSON-RPC
        // error messages), which reach the model as upstream_message.
        na(
            "error_message",
            subject.to_string(),
            "a remote MCP server's own error words are passed on",
        )
    } else {
        row(
        "error_message",
        subject.to_string(),
        reads_message,
        if reads_message {
            "the upstream's reason reaches the model as upstream_message"
        } else {
            "no `error_message` or `errors`: a refusal reaches the model without the upstream's reason"
        },
    )
    });
    rows.push(match &c.quota {
        None => na("quota_headers", subject.to_string(), "no quota declared"),
        // Only a caller budget: the upstream reports no quota, so there is nothing to read.
        Some(q) if q.is_budget_only() => na(
            "quota_headers",
            subject.to_string(),
            "only a caller budget: the upstream reports no quota",
        ),
        Some(q) => row(
            "quota_headers",
            subject.to_string(),
            q.remaining.is_some() || q.consumed.is_some() || q.headers.is_some(),
            "remaining/consumed headers (or a header family) are passed through as _quota",
        ),
    });
    rows.push(row(
        "curation",
        subject.to_string(),
        c.curate.is_empty(),
        if c.curate.is_empty() {
            "no pending import decisions".to_string()
        } else {
            format!("decide and remove `curate`: {}", c.curate.join("; "))
        },
    ));
    let exposed = config.expose_raw(&c.connector) && c.tools.iter().any(|t| t.raw);
    rows.push(row(
        "no_raw_hosted",
        subject,
        !exposed,
        if exposed {
            "raw tools exposed: unset <CONNECTOR>_EXPOSE_RAW"
        } else {
            "raw tools hidden"
        },
    ));
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

/// Every secret field is used: in `base_url` or by `auth`. A field used by neither is a
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
    let used = c.auth.secret_fields();
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

fn tool_rows(t: &Tool, shape: ListShape, rows: &mut Vec<Row>) {
    let subject = t.name.to_string();
    rows.push(tool_curation_row(t, subject.clone()));
    if t.risk == Risk::Forbidden {
        rows.push(row(
            "risk",
            subject,
            true,
            "forbidden: never listed nor callable",
        ));
        return;
    }
    rows.push(name_row(t, subject.clone()));
    rows.push(description_row(t, shape, subject.clone()));
    rows.push(risk_row(t, subject.clone()));
    rows.push(write_contract_row(t, subject.clone()));
    if let Some(binary) = t.answer.as_ref().and_then(|a| a.binary.as_ref()) {
        rows.push(document_row(binary, subject.clone()));
    }
    rows.push(params_row(
        t,
        subject.clone(),
        "booleans",
        |p| p.choices.as_ref().is_some_and(|c| looks_boolean(c)),
        "no magic strings",
        "use a boolean for",
    ));
    rows.push(params_row(
        t,
        subject.clone(),
        "typed_params",
        unbounded,
        "typed and bounded",
        "unbounded:",
    ));
    rows.push(if t.list {
        let ok = !t.fields.is_empty() && !t.default_fields.is_empty();
        row(
            "list_shape",
            subject.clone(),
            ok,
            "page, page_size ≤ 100, fields whitelist, compact default_fields, count_only",
        )
    } else {
        na("list_shape", subject.clone(), "not a list tool")
    });
    rows.push(if t.raw {
        row(
            "no_raw_hosted",
            subject,
            t.risk >= Risk::Medium,
            "raw: hidden unless <CONNECTOR>_EXPOSE_RAW=true",
        )
    } else {
        na("no_raw_hosted", subject, "dedicated tool")
    });
}

/// `name`: `<resource>_<verb>`; the verb is the name's last word, or two for a verb of two
/// words (`mark_absent`).
fn name_row(t: &Tool, subject: String) -> Row {
    let known = VERBS.iter().find(|v| {
        t.name
            .strip_suffix(**v)
            .is_some_and(|rest| rest.ends_with('_'))
    });
    let verb = known
        .copied()
        .unwrap_or_else(|| t.name.rsplit('_').next().unwrap_or(""));
    row(
        "name",
        subject,
        known.is_some(),
        format!("`<resource>_<verb>`, verb `{verb}`"),
    )
}

/// `risk`: at least what the tool's method and effects call for.
fn risk_row(t: &Tool, subject: String) -> Row {
    let (least, why) = least_risk(t);
    let word = crate::contract::risk::word(t.risk);
    row(
        "risk",
        subject,
        t.risk >= least,
        match why {
            Some(why) if t.risk < least => format!("{word} below {why}"),
            Some(why) => format!("{word} ({why})"),
            None => word.to_string(),
        },
    )
}

/// `write_contract`: a write declares what it changes, its audit event, whether it is
/// idempotent and how it fails.
fn write_contract_row(t: &Tool, subject: String) -> Row {
    if t.http().is_none_or(|(m, _)| m.is_read_only()) {
        return na("write_contract", subject, "a read");
    }
    let missing: Vec<&str> = [
        ("side_effects", t.side_effects.is_none()),
        ("effect", t.effect.is_none()),
        ("audit_event", t.audit_event.is_none()),
        ("idempotent", t.idempotent.is_none()),
        ("failure_modes", t.failure_modes.is_empty()),
    ]
    .into_iter()
    .filter_map(|(field, absent)| absent.then_some(field))
    .collect();
    row(
        "write_contract",
        subject,
        missing.is_empty(),
        if missing.is_empty() {
            "side effects, effect, audit event, idempotency, failure modes".to_string()
        } else {
            format!("declare {}", missing.join(", "))
        },
    )
}

/// A rule over the tool's params: those `bad` picks are named after `refusal`.
fn params_row(
    t: &Tool,
    subject: String,
    rule: &'static str,
    bad: impl Fn(&catalog::Param) -> bool,
    fine: &str,
    refusal: &str,
) -> Row {
    if t.params.is_empty() {
        return na(rule, subject, "no params");
    }
    let named: Vec<&catalog::Text> = t
        .params
        .iter()
        .filter(|(_, p)| bad(p))
        .map(|(n, _)| n)
        .collect();
    row(
        rule,
        subject,
        named.is_empty(),
        if named.is_empty() {
            fine.to_string()
        } else {
            format!("{refusal} {named:?}")
        },
    )
}

/// `curation`: an imported draft is a proposal. A tool with pending `curate` entries, or whose
/// description still holds the importer's scaffold marker, is not a contract yet (the same
/// reading the server refuses to serve a draft by).
fn tool_curation_row(t: &Tool, subject: String) -> Row {
    let pending = catalog::tool_pending_curation(t);
    row(
        "curation",
        subject,
        pending.is_empty(),
        if pending.is_empty() {
            "no pending import decisions".to_string()
        } else {
            format!("decide and remove `curate`: {}", pending.join("; "))
        },
    )
}

/// The least risk a tool may declare, and why: a write at least `medium`, a delete at least
/// `high`, and what its declared effect needs.
fn least_risk(t: &Tool) -> (Risk, Option<String>) {
    let Some((method, _)) = t.http().filter(|(m, _)| !m.is_read_only()) else {
        return (Risk::Low, None);
    };
    let mut least = (Risk::Medium, "a write needs medium".to_string());
    if method == catalog::Method::Delete {
        least = (Risk::High, "a delete needs high".into());
    }
    if let Some(effect) = t.effect
        && effect.least_risk() > least.0
    {
        let name = format!("{effect:?}").to_lowercase();
        least = (
            effect.least_risk(),
            format!(
                "effect {name} needs {}",
                crate::contract::risk::word(effect.least_risk())
            ),
        );
    }
    (least.0, Some(least.1))
}

fn looks_boolean(choices: &[catalog::Text]) -> bool {
    let mut c: Vec<String> = choices.iter().map(|s| s.to_ascii_lowercase()).collect();
    c.sort();
    let pairs = [
        ["false", "true"],
        ["no", "yes"],
        ["ja", "nein"],
        ["off", "on"],
        ["0", "1"],
        ["asc", "desc"],
    ];
    c.len() == 2 && pairs.iter().any(|p| c == p)
}

/// At least two sentences, aliases in parentheses, and an `Example: {…}` the tool accepts.
fn description_row(t: &Tool, shape: ListShape, subject: String) -> Row {
    let d = t.description.trim();
    let mut problems = Vec::new();
    let sentences = d
        .split_terminator(['.', '!', '?'])
        .filter(|s| s.split_whitespace().count() >= 3)
        .count();
    if sentences < 2 {
        problems.push("fewer than two sentences".to_string());
    }
    let aliases = d
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .is_some_and(|(inside, _)| inside.contains(',') || inside.split_whitespace().count() >= 2);
    if !aliases {
        problems.push("no aliases in parentheses (the words users say)".into());
    }
    match d
        .find("Example")
        .map(|i| &d[i..])
        .and_then(|s| s.find('{').map(|j| &s[j..]))
    {
        None => problems.push("no `Example: {…}`".into()),
        Some(json) => match serde_json::Deserializer::from_str(json)
            .into_iter::<serde_json::Value>()
            .next()
        {
            Some(Ok(serde_json::Value::Object(example))) => {
                if let Err(e) = args::validate(t, shape, &example) {
                    problems.push(format!("the example is refused: {}", e.hint));
                }
            }
            _ => problems.push("the example is not a JSON object".into()),
        },
    }
    let detail = if problems.is_empty() {
        "what, when, aliases, example".to_string()
    } else {
        problems.join("; ")
    };
    row("description", subject, problems.is_empty(), detail)
}

/// The table, one row per line, and a summary.
pub(crate) fn render(rows: &[Row]) -> String {
    let width = rows.iter().map(|r| r.subject.len()).max().unwrap_or(10);
    let mut out = String::new();
    let _ = writeln!(out, "{:<18} {:<width$} {:<4} detail", "rule", "subject", "");
    for r in rows {
        let _ = writeln!(
            out,
            "{:<18} {:<width$} {:<4} {}",
            r.rule,
            r.subject,
            r.verdict.as_str(),
            r.detail
        );
    }
    let gaps = rows.iter().filter(|r| r.verdict == Verdict::Gap).count();
    let oks = rows.iter().filter(|r| r.verdict == Verdict::Ok).count();
    let _ = writeln!(
        out,
        "\n{oks} ok, {gaps} gap(s), {} n/a",
        rows.len() - oks - gaps
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::EnvSnapshot;

    fn config() -> Config {
        Config::from(EnvSnapshot::default()).unwrap()
    }

    #[test]
    fn shipped_catalogs_have_no_gaps() {
        let catalogs = catalog::load_sources(crate::EMBEDDED_CATALOGS).unwrap();
        let rows = lint(&catalogs, &config());
        let gaps: Vec<&Row> = rows.iter().filter(|r| r.verdict == Verdict::Gap).collect();
        assert!(gaps.is_empty(), "{}", render(&rows));
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
    }

    /// Three connectors on one deployment: the deployment's tools/list and each profile's
    /// (`accounting` calls both accounting systems, `calendar` lists Cal.com's tools with `+`)
    /// stay within what a model reads on every turn.
    #[test]
    fn three_connectors_and_their_profiles_stay_within_the_list_budget() {
        let catalogs = catalog::load_sources(crate::EMBEDDED_CATALOGS).unwrap();
        let names: Vec<&str> = catalogs.iter().map(|c| c.connector.as_str()).collect();
        assert_eq!(names, ["calcom", "papierkram", "sevdesk"]);
        let env = EnvSnapshot::from_pairs([(
            "MCP_PROFILES",
            "accounting=papierkram/*,sevdesk/*;calendar=+calcom/*",
        )]);
        let rows = lint(&catalogs, &Config::from(env).unwrap());
        let budgets: Vec<&Row> = rows.iter().filter(|r| r.rule == "list_budget").collect();
        let subjects: Vec<&str> = budgets.iter().map(|r| r.subject.as_str()).collect();
        assert_eq!(
            subjects,
            ["(deployment)", "(profile accounting)", "(profile calendar)"]
        );
        for row in &budgets {
            println!("{}: {}", row.subject, row.detail);
            assert_eq!(row.verdict, Verdict::Ok, "{}: {}", row.subject, row.detail);
        }
        // The calendar profile lists Cal.com's tools themselves (no meta tools needed).
        assert!(
            budgets[2].detail.ends_with("13 tools"),
            "{}",
            budgets[2].detail
        );
    }

    #[test]
    fn a_list_over_its_budget_is_a_gap() {
        let mut yaml = String::from(
            "connector: big\nbase_url: \"http://x\"\nlist_envelope: { items: entries }\ntools:\n",
        );
        for i in 0..25 {
            yaml.push_str(&format!(
                "  - name: big_things{i}_list\n    risk: low\n    list: true\n    description: >-\n      {}\n    get: /things{i}\n",
                "Lists things with every detail a person could want to know about them. ".repeat(12)
            ));
        }
        let big = catalog::parse("big.yaml", &yaml).unwrap();
        let rows = lint(&[big], &config());
        let budget = rows.iter().find(|r| r.rule == "list_budget").unwrap();
        assert_eq!(budget.verdict, Verdict::Gap, "{}", budget.detail);
        assert!(budget.detail.contains("core: false"), "{}", budget.detail);
    }

    #[test]
    fn a_bad_catalog_shows_its_gaps() {
        let bad = catalog::parse(
            "bad.yaml",
            r#"
connector: bad
base_url: "http://x"
list_envelope: { items: entries }
tools:
  - name: bad_things_list
    risk: low
    list: true
    description: Lists things.
    get: /things
    params:
      order: { type: string, enum: [asc, desc] }
      limit: { type: integer }
  - name: bad_thing_delete
    risk: low
    description: 'Deletes a thing (Ding, Sache). Use it to remove one. Example: {"id": 1}'
    delete: /things/{id}
    params:
      id: { type: integer, in: path, min: 1 }
"#,
        )
        .unwrap();
        let rows = lint(&[bad], &config());
        let gap = |rule: &str, subject: &str| {
            rows.iter()
                .any(|r| r.rule == rule && r.subject == subject && r.verdict == Verdict::Gap)
        };
        assert!(gap("aggregation_tools", "bad"));
        assert!(!gap("credentials", "bad"), "no secrets: n/a");
        assert!(gap("error_message", "bad"));
        assert!(gap("error_hints", "bad"));
        assert!(gap("description", "bad_things_list"));
        assert!(gap("booleans", "bad_things_list"));
        assert!(gap("typed_params", "bad_things_list"));
        assert!(gap("list_shape", "bad_things_list"));
        assert!(gap("risk", "bad_thing_delete"));
        assert!(gap("write_contract", "bad_thing_delete"));
        assert!(!gap("write_contract", "bad_things_list"));
        assert!(!gap("description", "bad_thing_delete"));
        assert!(render(&rows).contains(" gap(s)"));
    }

    #[test]
    fn a_document_whose_base64_outgrows_a_lambda_answer_is_a_gap() {
        let binary = |max_bytes| catalog::BinaryAnswer {
            mime: vec!["application/pdf".into()],
            max_bytes,
            form: catalog::BinaryForm::Link,
        };
        let fits = document_row(&binary(2 * 1024 * 1024), "t_pdf_download".into());
        assert_eq!(fits.verdict, Verdict::Ok, "{}", fits.detail);
        let over = document_row(&binary(5 * 1024 * 1024), "t_pdf_download".into());
        assert_eq!(over.verdict, Verdict::Gap);
        assert!(over.detail.contains("lower max_bytes"), "{}", over.detail);
    }

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

    #[test]
    fn risk_follows_method_and_effect() {
        let with = |risk: &str, method: &str, effect: &str| -> Row {
            let c = catalog::parse(
                "w.yaml",
                &format!(
                    r#"
connector: w
base_url: "http://x"
tools:
  - name: w_thing_send
    risk: {risk}
    description: 'Sends a thing (Ding). Use it to send one. Example: {{"id": 1}}'
    {method}: /things/{{id}}
    effect: {effect}
    params:
      id: {{ type: integer, in: path, min: 1 }}
"#
                ),
            )
            .unwrap();
            lint(&[c], &config())
                .into_iter()
                .find(|r| r.rule == "risk")
                .unwrap()
        };
        assert_eq!(with("medium", "post", "change").verdict, Verdict::Ok);
        let r = with("high", "post", "external");
        assert_eq!(r.verdict, Verdict::Gap);
        assert_eq!(r.detail, "high below effect external needs critical");
        assert_eq!(with("medium", "delete", "change").verdict, Verdict::Gap);
        assert_eq!(with("high", "delete", "delete").verdict, Verdict::Ok);
        assert_eq!(with("high", "put", "financial").verdict, Verdict::Ok);
        assert_eq!(with("high", "post", "money").verdict, Verdict::Gap);
    }

    #[test]
    fn an_array_is_bounded_only_with_max_items_and_bounded_item_fields() {
        let bounded = |item: &str| -> bool {
            let p: catalog::Param = yaml_serde::from_str(&format!(
                "{{ type: array, in: body, max_items: 5, items: {{ n: {item} }} }}"
            ))
            .unwrap();
            !unbounded(&p)
        };
        assert!(bounded("{ type: string, max_length: 9 }"));
        assert!(bounded("{ type: date }"));
        assert!(!bounded("{ type: string }"));
        assert!(!bounded("{ type: number }"));
        let p: catalog::Param =
            yaml_serde::from_str("{ type: array, in: body, items: { d: { type: date } } }")
                .unwrap();
        assert!(unbounded(&p), "no max_items");
    }

    #[test]
    fn an_array_of_values_is_bounded_only_with_a_bounded_item() {
        let bounded = |item: &str| -> bool {
            let p: catalog::Param = yaml_serde::from_str(&format!(
                "{{ type: array, in: body, max_items: 20, item: {item} }}"
            ))
            .unwrap();
            !unbounded(&p)
        };
        assert!(bounded("{ type: string, max_length: 200 }"));
        assert!(bounded("{ type: string, enum: [a, b] }"));
        assert!(bounded("{ type: integer, min: 1 }"));
        assert!(!bounded("{ type: string }"));
        assert!(!bounded("{ type: number }"));
        let p: catalog::Param =
            yaml_serde::from_str("{ type: array, in: body, item: { type: date } }").unwrap();
        assert!(unbounded(&p), "no max_items");
    }

    #[test]
    fn pending_curation_and_a_scaffold_description_are_gaps() {
        let c = catalog::parse(
            "d.yaml",
            r#"
connector: d
base_url: "http://x"
curate: ["errors: proposed /message"]
tools:
  - name: d_thing_delete
    risk: high
    description: 'Deletes a thing (Ding, Sache). Use it to remove one. Example: {"id": 1}'
    delete: /things/{id}
    curate: ["risk: proposed high because DELETE"]
    params:
      id: { type: integer, in: path, min: 1 }
  - name: d_thing_get
    risk: low
    description: 'Returns a thing. Use it when CURATE: when to use. Example: {"id": 1}'
    get: /things/{id}
    params:
      id: { type: integer, in: path, min: 1 }
"#,
        )
        .unwrap();
        let rows = lint(&[c], &config());
        let curation = |subject: &str| {
            rows.iter()
                .find(|r| r.rule == "curation" && r.subject == subject)
                .unwrap()
        };
        assert_eq!(curation("d").verdict, Verdict::Gap);
        assert!(curation("d_thing_delete").detail.contains("proposed high"));
        assert_eq!(curation("d_thing_get").verdict, Verdict::Gap);
        assert!(curation("d_thing_get").detail.contains("scaffold"));
    }

    #[test]
    fn an_example_the_tool_refuses_is_a_gap() {
        let t: Tool = catalog::parse(
            "t.yaml",
            r#"
connector: t
base_url: "http://x"
tools:
  - name: t_thing_get
    risk: low
    description: 'Returns a thing (Ding, Sache). Use it when you know the id. Example: {"thing_id": 1}'
    get: /things/{id}
    params:
      id: { type: integer, in: path, min: 1 }
"#,
        )
        .unwrap()
        .tools
        .remove(0);
        let r = description_row(&t, ListShape::PAGES, "t_thing_get".into());
        assert_eq!(r.verdict, Verdict::Gap);
        assert!(r.detail.contains("Did you mean `id`?"), "{}", r.detail);
    }
}
