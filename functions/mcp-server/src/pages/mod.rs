//! A capability page per connector, generated from its catalog: what it is for and connects
//! to, how it authenticates (the deployment's key or each person's own account), its tools with
//! their risk and what each write does, its quotas and rates, its prompts, and the gaps the
//! lint finds. The same facts become the Markdown page committed next to the catalog
//! (`mcp-server pages`, with frontmatter `id, type, status, purpose, auth, endpoint, source,
//! reviewed`) and the read-only HTML of `/connectors` (`html`). Pure: a catalog in, text out;
//! no secret value is ever in a catalog, so none is on a page.
//!
//! A page is generated except for its `reviewed:` date, which a person sets after reading it
//! against the system; regenerating keeps it. The lint compares a committed page with the one
//! the catalog gives now (a stale page is a gap) and its `reviewed:` date with today.

pub(crate) mod html;
mod markdown;

pub(crate) use markdown::{markdown, reviewed};

use catalog::{Catalog, Risk, Tool};

/// What a page says of one connector.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Capability {
    pub id: String,
    pub title: String,
    /// `rest`, or `mcp` for a federated remote MCP server.
    pub kind: &'static str,
    /// `live`, or `draft` while an import's curation is pending.
    pub status: &'static str,
    pub purpose: Option<String>,
    /// How it authenticates, in words.
    pub auth: String,
    /// Whether each person connects their own account (`auth: oauth_user`).
    pub per_person: bool,
    /// The base URL as declared (its `{placeholders}` are names of secret fields, not values).
    pub endpoint: String,
    /// The catalog file the page is generated from.
    pub source: String,
    pub timeout_s: f64,
    /// The webhooks the upstream pushes (`inbound`), in words.
    pub inbound: Option<String>,
    pub tools: Vec<ToolLine>,
    /// Quotas, rates and budgets, one sentence each.
    pub limits: Vec<String>,
    /// Prompts: name and what they ask.
    pub prompts: Vec<(String, String)>,
    /// The deployment's profiles that reach any of its tools (`/connectors` fills them in: the
    /// profiles are the deployment's, not the catalog's).
    pub profiles: Vec<String>,
}

/// One tool on a page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolLine {
    pub name: String,
    pub risk: Risk,
    /// Listed in `tools/list` (`core`), else found through `search_tools`.
    pub listed: bool,
    pub writes: bool,
    /// What it does: a write's `side_effects`, else the description's first sentence.
    pub does: String,
}

/// What the upstream pushes, in a sentence: where, how it is proved, how long it is kept.
fn inbound(connector: &str, i: &catalog::Inbound) -> String {
    let window = match i.reply_window_h {
        Some(h) => format!("; reads say whether the {h}-hour reply window is open"),
        None => String::new(),
    };
    let names = if i.names.is_empty() {
        ""
    } else {
        ", with the customers' names beside their conversations (sealed)"
    };
    format!(
        "Webhooks: the upstream posts to `/inbound/{connector}`, each body signed in `{}` \
         (HMAC-SHA256 under the secret field `{}`); the events are kept {} days{names}{window}",
        i.signature_header, i.signing_secret, i.ttl_days
    )
}

/// The page's facts from `catalog`, read from the file named `source`.
pub(crate) fn capability(catalog: &Catalog, source: &str) -> Capability {
    let draft = !catalog.curate.is_empty() || catalog.tools.iter().any(|t| !t.curate.is_empty());
    Capability {
        id: catalog.connector.to_string(),
        title: crate::inventory::Registry::title(catalog).to_string(),
        kind: if catalog.mcp.is_some() { "mcp" } else { "rest" },
        status: if draft { "draft" } else { "live" },
        purpose: catalog.purpose.as_deref().map(one_line),
        auth: auth(catalog),
        per_person: catalog.auth.oauth_user.is_some(),
        endpoint: match &catalog.mcp {
            Some(m) => m.url.to_string(),
            None => catalog.base_url.to_string(),
        },
        source: source.to_string(),
        timeout_s: catalog.timeout_ms as f64 / 1000.0,
        inbound: catalog
            .inbound
            .as_deref()
            .map(|i| inbound(&catalog.connector, i)),
        // Every tool, a `forbidden` one too: it documents what the platform refuses to do.
        tools: catalog.tools.iter().map(tool_line).collect(),
        limits: limits(catalog),
        prompts: catalog
            .prompts
            .iter()
            .map(|p| (p.name.to_string(), one_line(&p.description)))
            .collect(),
        profiles: Vec::new(),
    }
}

fn tool_line(t: &Tool) -> ToolLine {
    let writes = crate::contract::risk::is_write(t);
    let does = match (&t.side_effects, writes) {
        (Some(s), _) => one_line(s),
        _ => first_sentence(&t.description),
    };
    ToolLine {
        name: t.name.to_string(),
        risk: t.risk,
        listed: t.core && t.risk != Risk::Forbidden,
        writes,
        does,
    }
}

/// How the connector authenticates, in words; secret fields by name, never a value.
fn auth(c: &Catalog) -> String {
    let a = &c.auth;
    if let Some(o) = &a.oauth_user {
        let scopes = match o.scopes.is_empty() {
            true => "none named".to_string(),
            false => o.scopes.join(" "),
        };
        let more = c.tool_scopes();
        let later = match more.is_empty() {
            true => String::new(),
            false => format!(
                "; asked on first use by the tools that need them: {}",
                more.join(" ")
            ),
        };
        return format!(
            "each person's own account (OAuth at {}, scopes {scopes}{later})",
            o.authorization_endpoint
        );
    }
    if let Some(field) = &a.bearer {
        return format!("the deployment's key (bearer token from the secret field `{field}`)");
    }
    if let Some(b) = &a.basic {
        return format!(
            "the deployment's key (HTTP basic from the secret field `{}`{})",
            b.username,
            b.password
                .as_ref()
                .map(|p| format!(" and `{p}`"))
                .unwrap_or_default()
        );
    }
    if let Some(header) = &a.header {
        return format!("the deployment's key (the header `{header}`)");
    }
    if let Some(query) = &a.query {
        return format!("the deployment's key (the query parameter `{query}`)");
    }
    "none".to_string()
}

/// Quotas, rates and budgets as sentences.
fn limits(c: &Catalog) -> Vec<String> {
    let Some(q) = &c.quota else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(rate) = q.rate {
        out.push(format!(
            "The upstream allows {}; the whole deployment keeps it together.",
            rate.words()
        ));
    }
    if let Some(limit) = q.limit {
        let window = match &q.window {
            Some(w) if w.calendar_month.is_some() => " a calendar month",
            Some(w) if w.day.is_some() => " a day",
            Some(w) if w.rolling_hours.is_some() => " in a rolling window",
            _ => "",
        };
        let alarms = match q.thresholds[..] {
            [warn, page, ..] => format!("quota-alarm warns at {warn} % used and pages at {page} %"),
            [warn] => format!("quota-alarm warns at {warn} % used"),
            [] => "no quota alarm".to_string(),
        };
        out.push(format!("Upstream quota: {limit}{window}; {alarms}."));
    } else if q.headers.is_some() || q.remaining.is_some() || q.body.is_some() {
        out.push("Upstream quota figures are passed on in each result's `_quota`.".into());
    }
    if let Some(budget) = q.caller_daily_budget {
        out.push(format!(
            "Each caller may send {budget} upstream requests a day (UTC)."
        ));
    }
    if let Some(spend) = &q.caller_daily_spend {
        out.push(format!(
            "Each caller may spend {} {} a day (UTC).",
            spend.limit, spend.unit
        ));
    }
    out
}

/// A risk level's word.
pub(crate) fn risk_word(r: Risk) -> &'static str {
    match r {
        Risk::Low => "low",
        Risk::Medium => "medium",
        Risk::High => "high",
        Risk::Critical => "critical",
        Risk::Forbidden => "forbidden",
    }
}

/// Text on one line, spaces collapsed.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first sentence of a description (up to its first `. `), on one line.
fn first_sentence(text: &str) -> String {
    let line = one_line(text);
    match line.find(". ") {
        Some(end) => line[..=end].to_string(),
        None => line,
    }
}

#[cfg(test)]
mod tests;
