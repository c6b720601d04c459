//! Rules on the catalog's own keys: its name, its upstream and what every tool shares.

use crate::model::Catalog;
use crate::template::placeholders;

pub(super) fn connector_is_snake_case(c: &Catalog) -> Vec<String> {
    if super::is_snake(&c.connector) {
        return Vec::new();
    }
    vec![format!("connector `{}` must be snake_case", c.connector)]
}

/// A REST API (`base_url`, an http(s) URL) or a remote MCP server (`mcp`, whose checks are
/// `remote::problems`), never both or neither.
pub(super) fn one_kind_of_upstream(c: &Catalog) -> Vec<String> {
    if c.base_url.is_empty() == c.mcp.is_none() {
        vec![
            "declare exactly one of `base_url` (a REST API) and `mcp` (a remote MCP server)".into(),
        ]
    } else if c.mcp.is_none()
        && !(c.base_url.starts_with("https://") || c.base_url.starts_with("http://"))
    {
        vec![format!("base_url `{}` must be an http(s) URL", c.base_url)]
    } else {
        Vec::new()
    }
}

pub(super) fn base_url_fields_are_secrets(c: &Catalog) -> Vec<String> {
    placeholders(&c.base_url)
        .into_iter()
        .filter(|field| !c.secrets.iter().any(|s| s == field))
        .map(|field| format!("base_url uses {{{field}}} but `secrets` does not list `{field}`"))
        .collect()
}

/// Upstream text travels apart from our hints, so a hint never carries an upstream's words
/// (said once, however many hints do it).
pub(super) fn hints_never_quote_the_upstream(c: &Catalog) -> Vec<String> {
    let mut hints = c
        .hints
        .values()
        .chain(c.tools.iter().flat_map(|t| t.hints.values()));
    if !hints.any(|hint| hint.contains("{message}")) {
        return Vec::new();
    }
    vec![
        "hints may not quote the upstream's message (`{message}`): upstream text \
         travels as `upstream_message`, never in a hint"
            .into(),
    ]
}

pub(super) fn a_rest_catalog_has_tools(c: &Catalog) -> Vec<String> {
    if c.tools.is_empty() && c.mcp.is_none() {
        return vec!["a catalog needs at least one tool".into()];
    }
    Vec::new()
}
