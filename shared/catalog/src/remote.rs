//! A remote MCP server as a connector (`mcp:` instead of `base_url`, declared in
//! `model/connection.rs`): which of its tools the deployment lets through (`allow`), the naming
//! rule that turns a remote tool's name into ours (whose name space it is: `names.rs`), which
//! link hosts it may send a person to (`url_elicitation_hosts`), and the loader's checks (of
//! those, and of `pins`, each tool's reviewed listing). The local contract laid over each remote
//! tool (`overlays`) exists because a remote's own annotations and descriptions are data, never
//! policy.

use crate::model::{Catalog, McpRemote, RemoteOverlay, Text};
use crate::placeholders;

impl McpRemote {
    /// Whether `allow` lets the remote tool through.
    pub fn allows(&self, remote_name: &str) -> bool {
        self.allow.iter().any(|p| glob_match(p, remote_name))
    }

    /// Whether the remote may ask a person to open a link on `host` (`url_elicitation_hosts`).
    pub fn allows_link_host(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.url_elicitation_hosts
            .iter()
            .any(|p| match p.strip_prefix("*.") {
                Some(parent) => host
                    .strip_suffix(parent)
                    .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
                None => host == p.as_str(),
            })
    }
}

/// `*` matches any run of characters (none too); everything else matches itself. Iterative, so
/// a hostile name costs at most pattern × name steps.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
        } else if pi < p.len() && p[pi] == n[ni] {
            pi += 1;
            ni += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// A host name in lower case, or `*.` and one; the pattern of `url_elicitation_hosts`.
fn is_host_pattern(pattern: &str) -> bool {
    let host = pattern.strip_prefix("*.").unwrap_or(pattern);
    !host.is_empty()
        && host.len() <= 253
        && host.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
}

/// The local name of a remote tool: `<connector>_<remote name>` with every run of characters
/// other than lower-case letters and digits as one `_`, cut to `max` characters. `None` when
/// nothing of the remote name is left.
pub fn local_name(connector: &str, remote_name: &str, max: usize) -> Option<String> {
    let mut rest = String::with_capacity(remote_name.len().min(max));
    for c in remote_name.chars().take(4 * max) {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            rest.push(c);
        } else if !rest.is_empty() && !rest.ends_with('_') {
            rest.push('_');
        }
    }
    let mut name = format!("{connector}_{}", rest.trim_end_matches('_'));
    if name.len() <= connector.len() + 1 {
        return None;
    }
    name.truncate(max);
    Some(name.trim_end_matches('_').to_string())
}

/// The rules on an `mcp:` connector, in the order their problems are reported.
const RULES: &[fn(&Catalog, &McpRemote) -> Vec<String>] = &[
    url_is_http_with_secret_fields,
    limits_are_sane,
    allow_names_tools,
    elicitation_hosts_are_hosts,
    pins_are_pins_of_allowed_tools,
    |c, m| {
        let overlays = m.overlays.iter();
        overlays
            .flat_map(|(remote, o)| overlay(c, m, remote, o))
            .collect()
    },
    overlay_names_are_unique,
    rest_keys_are_absent,
];

/// The problems of an `mcp:` connector, each a sentence with the top-level key it concerns.
pub(crate) fn problems(c: &Catalog) -> Vec<(&'static str, String)> {
    let Some(m) = &c.mcp else {
        return Vec::new();
    };
    let problems = RULES.iter().flat_map(|rule| rule(c, m));
    problems.map(|p| ("mcp", p)).collect()
}

fn url_is_http_with_secret_fields(c: &Catalog, m: &McpRemote) -> Vec<String> {
    let mut out = Vec::new();
    if !(m.url.starts_with("https://") || m.url.starts_with("http://")) {
        out.push(format!("mcp.url `{}` must be an http(s) URL", m.url));
    }
    for field in placeholders(&m.url) {
        if !c.secrets.iter().any(|s| s == field) {
            out.push(format!(
                "mcp.url uses {{{field}}} but `secrets` does not list `{field}`"
            ));
        }
    }
    out
}

fn limits_are_sane(_: &Catalog, m: &McpRemote) -> Vec<String> {
    let mut out = Vec::new();
    if m.timeout_ms == Some(0) {
        out.push("mcp.timeout_ms must be above 0".into());
    }
    if !(1..=86_400).contains(&m.tools_ttl_s) {
        out.push("mcp.tools_ttl_s must be between 1 and 86400 seconds".into());
    }
    out
}

/// Something is allowed, and each pattern is a tool name or a `*` glob of one.
fn allow_names_tools(_: &Catalog, m: &McpRemote) -> Vec<String> {
    let mut out = Vec::new();
    if m.allow.is_empty() {
        out.push(
            "mcp.allow is empty: name the remote tools (or `*` globs) this deployment serves"
                .into(),
        );
    }
    for pattern in &m.allow {
        let plain = pattern
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || "_-./*".contains(ch));
        if pattern.is_empty() || pattern.len() > 128 || !plain {
            out.push(format!(
                "mcp.allow `{pattern}` is not a tool name or a `*` glob of one"
            ));
        }
    }
    out
}

fn elicitation_hosts_are_hosts(_: &Catalog, m: &McpRemote) -> Vec<String> {
    let bad = m
        .url_elicitation_hosts
        .iter()
        .filter(|h| !is_host_pattern(h));
    bad.map(|host| {
        format!(
            "mcp.url_elicitation_hosts `{host}` is not a lower-case host name (or `*.` and \
             one): no scheme, port or path"
        )
    })
    .collect()
}

/// A pin is `sha256:` and 32 lower-case hex digits, of a tool `allow` lets through.
fn pins_are_pins_of_allowed_tools(_: &Catalog, m: &McpRemote) -> Vec<String> {
    let mut out = Vec::new();
    for (remote, pin) in &m.pins {
        if !m.allows(remote) {
            out.push(format!(
                "mcp.pins `{remote}`: `allow` does not let this tool through, so the pin would \
                 never apply"
            ));
        }
        let hex = pin.strip_prefix("sha256:").unwrap_or("");
        if hex.len() != 32
            || !hex
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        {
            out.push(format!(
                "mcp.pins `{remote}`: `{pin}` is no pin (`sha256:` and 32 lower-case hex digits, \
                 as the server's log names it)"
            ));
        }
    }
    out
}

/// One overlay: of an allowed tool, named in the connector's space, with words where it has any.
fn overlay(c: &Catalog, m: &McpRemote, remote: &str, overlay: &RemoteOverlay) -> Vec<String> {
    let mut out = Vec::new();
    if !m.allows(remote) {
        out.push(format!(
            "mcp.overlays `{remote}`: `allow` does not let this tool through, so the \
             overlay would never apply"
        ));
    }
    if let Some(name) = &overlay.name {
        let ok = name
            .strip_prefix(&format!("{}_", c.connector))
            .is_some_and(|rest| {
                !rest.is_empty()
                    && rest
                        .chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
            });
        if !ok || name.len() > crate::MAX_TOOL_NAME {
            out.push(format!(
                "mcp.overlays `{remote}`: name `{name}` must be `{}_<snake_case>` of at most \
                 {} characters",
                c.connector,
                crate::MAX_TOOL_NAME
            ));
        }
    }
    if overlay
        .description
        .as_ref()
        .is_some_and(|d| d.trim().is_empty())
    {
        out.push(format!("mcp.overlays `{remote}`: description is empty"));
    }
    if overlay.untrusted.iter().any(|f| f.is_empty()) {
        out.push(format!(
            "mcp.overlays `{remote}`: an untrusted field is empty"
        ));
    }
    out
}

/// Said once, of the first name (in order) two overlays share.
fn overlay_names_are_unique(_: &Catalog, m: &McpRemote) -> Vec<String> {
    let mut names: Vec<&Text> = m
        .overlays
        .values()
        .filter_map(|o| o.name.as_ref())
        .collect();
    names.sort();
    let twice = names.windows(2).find(|w| w[0] == w[1]);
    twice
        .map(|w| format!("mcp.overlays: two tools are named `{}`", w[0]))
        .into_iter()
        .collect()
}

/// An `mcp` connector's tools come from the remote, so the REST keys have nothing to shape.
fn rest_keys_are_absent(c: &Catalog, _: &McpRemote) -> Vec<String> {
    let rest_only = [
        ("tools", !c.tools.is_empty()),
        ("list_envelope", c.list_envelope.is_some()),
        // A caller budget counts our calls, so it fits; quota figures are read from REST
        // answers only.
        (
            "quota` other than `caller_daily_budget",
            c.quota.as_ref().is_some_and(|q| !q.is_budget_only()),
        ),
        ("health", c.health.is_some()),
        ("errors", c.errors.is_some() || c.error_message.is_some()),
    ];
    let set = rest_only.into_iter().filter(|(_, set)| *set);
    set.map(|(key, _)| {
        format!(
            "`{key}` belongs to REST connectors; an `mcp` connector's tools come from \
             the remote (shape them with `mcp.overlays`)"
        )
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Risk;

    const REMOTE: &str = r#"connector: notes
title: Notes
secrets: [host, token]
auth: { bearer: token }
mcp:
  url: "https://{host}/mcp"
  allow: [search_notes, "note_*"]
  overlays:
    note_delete: { risk: critical, description: "Deletes a note for good." }
    note_create: { risk: medium, name: notes_note_add, core: false, untrusted: [body] }
"#;

    fn err(text: &str) -> String {
        crate::parse("notes.yaml", text).unwrap_err().to_string()
    }

    #[test]
    fn an_mcp_connector_loads_with_overlays_and_no_tools() {
        let c = crate::parse("notes.yaml", REMOTE).unwrap();
        let m = c.mcp.unwrap();
        assert_eq!(m.tools_ttl_s, 300);
        assert!(c.tools.is_empty() && c.base_url.is_empty());
        assert_eq!(m.overlays["note_delete"].risk, Some(Risk::Critical));
        assert!(m.allows("note_create") && m.allows("search_notes"));
        assert!(!m.allows("admin_drop") && !m.allows("search_notes_all"));
    }

    #[test]
    fn exactly_one_of_base_url_and_mcp() {
        let both = REMOTE.replace("mcp:\n", "base_url: https://x.test\nmcp:\n");
        assert!(err(&both).contains("exactly one"), "{}", err(&both));
        let neither = "connector: notes\ntools: []\n";
        assert!(err(neither).contains("exactly one"), "{}", err(neither));
    }

    #[test]
    fn bad_mcp_declarations_name_the_mcp_line() {
        for (from, to, problem) in [
            ("https://{host}/mcp", "ftp://{host}", "http(s) URL"),
            (
                "https://{host}/mcp",
                "https://{nope}/mcp",
                "`secrets` does not list",
            ),
            ("[search_notes, \"note_*\"]", "[]", "allow is empty"),
            ("[search_notes, \"note_*\"]", "[\"a b\"]", "not a tool name"),
            ("note_delete: {", "other: {", "never apply"),
            ("name: notes_note_add", "name: other_add", "must be `notes_"),
            ("allow:", "tools_ttl_s: 0\n  allow:", "tools_ttl_s"),
            (
                "allow:",
                "url_elicitation_hosts: [\"https://auth.test\"]\n  allow:",
                "not a lower-case host name",
            ),
            (
                "allow:",
                "pins: { search_notes: abc }\n  allow:",
                "is no pin",
            ),
            (
                "allow:",
                "pins: { other: \"sha256:0123456789abcdef0123456789abcdef\" }\n  allow:",
                "the pin would never apply",
            ),
        ] {
            let e = err(&REMOTE.replace(from, to));
            assert!(e.starts_with("notes.yaml:5: "), "{to}: {e}");
            assert!(e.contains(problem), "{to}: {e}");
        }
        let tools = format!(
            "{REMOTE}tools:\n  - {{ name: notes_x_get, risk: low, description: d, get: /x }}\n"
        );
        assert!(
            err(&tools).contains("`tools` belongs to REST"),
            "{}",
            err(&tools)
        );
        // A caller budget counts our calls to the remote; quota figures come from REST answers.
        let budget = format!("{REMOTE}quota: {{ caller_daily_budget: 50 }}\n");
        let loaded = crate::parse("notes.yaml", &budget).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loaded.quota.unwrap().caller_daily_budget, Some(50));
        let figures = format!("{REMOTE}quota: {{ caller_daily_budget: 50, limit: 100 }}\n");
        assert!(
            err(&figures).contains("`quota` other than `caller_daily_budget` belongs to REST"),
            "{}",
            err(&figures)
        );
    }

    #[test]
    fn a_link_host_is_allowed_exactly_or_as_a_subdomain_of_a_star_pattern() {
        let text = REMOTE.replace(
            "allow:",
            "url_elicitation_hosts: [auth.notes.test, \"*.pay.test\"]\n  allow:",
        );
        let m = crate::parse("notes.yaml", &text).unwrap().mcp.unwrap();
        assert!(m.allows_link_host("auth.notes.test") && m.allows_link_host("AUTH.notes.test"));
        assert!(m.allows_link_host("eu.pay.test"));
        for refused in [
            "pay.test",
            "evilpay.test",
            "notes.test",
            "auth.notes.test.evil",
        ] {
            assert!(!m.allows_link_host(refused), "{refused}");
        }
    }

    #[test]
    fn globs_match_runs_and_nothing_else() {
        assert!(glob_match("*", ""));
        assert!(glob_match("note_*", "note_"));
        assert!(glob_match("*_get*", "issue_get_all"));
        assert!(!glob_match("note_*", "notes"));
        assert!(!glob_match("a*b", "acbx"));
        let long = "a".repeat(2000);
        assert!(!glob_match("*a*a*a*b", &long));
    }

    #[test]
    fn remote_names_become_connector_prefixed_snake_case_within_the_limit() {
        assert_eq!(
            local_name("notes", "searchNotes", 64).as_deref(),
            Some("notes_searchnotes")
        );
        assert_eq!(
            local_name("notes", "get-note.v2", 64).as_deref(),
            Some("notes_get_note_v2")
        );
        assert_eq!(local_name("notes", "__--", 64), None);
        let long = local_name("notes", &"x_".repeat(100), 64).unwrap();
        assert!(long.len() <= 64 && !long.ends_with('_'), "{long}");
    }
}
