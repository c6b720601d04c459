//! A capability page as Markdown: frontmatter, then what the connector is for, what it connects
//! to, its tools, limits, prompts and open gaps.

use std::fmt::Write as _;

use super::Capability;

/// The page of `cap`, with the `reviewed:` date a person gave it (none: never reviewed) and
/// the lint's open gaps for this connector.
pub(crate) fn markdown(cap: &Capability, reviewed: Option<&str>, gaps: &[String]) -> String {
    let mut out = String::new();
    let purpose = cap
        .purpose
        .as_deref()
        .unwrap_or("(none declared: set `purpose` in the catalog)");
    let _ = writeln!(out, "---");
    let _ = writeln!(out, "id: {}", cap.id);
    let _ = writeln!(out, "type: {}", cap.kind);
    let _ = writeln!(out, "status: {}", cap.status);
    let _ = writeln!(out, "purpose: {}", yaml_text(purpose));
    let _ = writeln!(
        out,
        "auth: {}",
        if cap.per_person {
            "per-person"
        } else {
            "deployment"
        }
    );
    let _ = writeln!(out, "endpoint: {}", yaml_text(&cap.endpoint));
    let _ = writeln!(out, "source: {}", cap.source);
    if let Some(date) = reviewed {
        let _ = writeln!(out, "reviewed: {date}");
    }
    let _ = writeln!(out, "---\n");
    let _ = writeln!(out, "# {}\n", cap.title);
    let _ = writeln!(out, "{purpose}\n");
    let _ = writeln!(
        out,
        "Generated from `{}` by `mcp-server pages`: change the catalog and generate the page \
         again; only `reviewed:` is written by hand, after checking the page against the system.\n",
        cap.source
    );
    let _ = writeln!(out, "## What it connects to\n");
    let placeholders = match cap.endpoint.contains('{') {
        true => " (its `{placeholders}` are fields of the deployment secret)",
        false => "",
    };
    let kind = match cap.kind {
        "mcp" => "Remote MCP server",
        _ => "REST API",
    };
    let _ = writeln!(out, "- {kind}: `{}`{placeholders}.", cap.endpoint);
    let _ = writeln!(out, "- Authentication: {}.", cap.auth);
    let _ = writeln!(out, "- A request may take {} s.", cap.timeout_s);
    if let Some(inbound) = &cap.inbound {
        let _ = writeln!(out, "- {inbound}.");
    }
    let _ = writeln!(out);
    let writes = cap.tools.iter().filter(|t| t.writes).count();
    let listed = cap.tools.iter().filter(|t| t.listed).count();
    let _ = writeln!(
        out,
        "## Tools\n\n{} tools: {} reads, {writes} writes; {listed} listed in `tools/list`, the \
         others found with `search_tools`.\n",
        cap.tools.len(),
        cap.tools.len() - writes
    );
    let _ = writeln!(
        out,
        "| Tool | Risk | Listed | What it does |\n|---|---|---|---|"
    );
    for t in &cap.tools {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            t.name,
            super::risk_word(t.risk),
            if t.listed { "yes" } else { "no" },
            cell(&t.does)
        );
    }
    let _ = writeln!(out, "\n## Quotas and limits\n");
    if cap.limits.is_empty() {
        let _ = writeln!(out, "None declared beyond the deployment's own limits.");
    }
    for l in &cap.limits {
        let _ = writeln!(out, "- {l}");
    }
    if !cap.prompts.is_empty() {
        let _ = writeln!(out, "\n## Prompts\n\n| Prompt | What it asks |\n|---|---|");
        for (name, does) in &cap.prompts {
            let _ = writeln!(out, "| `{name}` | {} |", cell(does));
        }
    }
    let _ = writeln!(out, "\n## Open gaps\n");
    if gaps.is_empty() {
        let _ = writeln!(out, "None: `mcp-server lint` finds no gap.");
    }
    for g in gaps {
        let _ = writeln!(out, "- {g}");
    }
    out
}

/// The `reviewed:` date of a page's frontmatter, if it has one.
pub(crate) fn reviewed(page: &str) -> Option<&str> {
    let front = page.strip_prefix("---\n")?.split("\n---").next()?;
    front
        .lines()
        .find_map(|l| l.strip_prefix("reviewed:"))
        .map(str::trim)
        .filter(|d| !d.is_empty())
}

/// A table cell: no line breaks, pipes escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// A YAML scalar: quoted, with `"` and `\` escaped.
fn yaml_text(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}
