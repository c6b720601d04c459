//! Rules on the catalog's own keys: its name, its upstream and what every tool shares.

use crate::model::{Catalog, Status};
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

/// The catalog's `base_url` and each tool's own: http(s), `{field}` placeholders secrets.
pub(super) fn base_url_fields_are_secrets(c: &Catalog) -> Vec<String> {
    let tools = c.tools.iter().filter_map(|t| t.base_url.as_deref());
    let mut out: Vec<String> = tools
        .clone()
        .filter(|u| !(u.starts_with("https://") || u.starts_with("http://")))
        .map(|u| format!("a tool's base_url `{u}` must be an http(s) URL"))
        .collect();
    let urls = std::iter::once(c.base_url.as_ref()).chain(tools);
    out.extend(
        urls.flat_map(placeholders)
            .filter(|field| !c.secrets.iter().any(|s| s == field))
            .map(|field| {
                format!("base_url uses {{{field}}} but `secrets` does not list `{field}`")
            }),
    );
    out
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

/// `errors.codes` are matched against the value at `errors.code`: without the pointer they
/// would never apply, and an `ok` for an error answer would hide the refusal.
pub(super) fn error_codes_are_read_somewhere(c: &Catalog) -> Vec<String> {
    let Some(errors) = &c.errors else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if !errors.codes.is_empty() && errors.code.is_none() {
        out.push("errors.codes needs errors.code: the pointer to the error code".into());
    }
    for (code, status) in &errors.codes {
        if matches!(
            status,
            Status::Ok | Status::ConfirmationRequired | Status::Pending
        ) {
            out.push(format!(
                "errors.codes `{code}` maps to `{}`, which is not an error status",
                status.as_str()
            ));
        }
    }
    out
}

pub(super) fn a_rest_catalog_has_tools(c: &Catalog) -> Vec<String> {
    if c.tools.is_empty() && c.mcp.is_none() {
        return vec!["a catalog needs at least one tool".into()];
    }
    Vec::new()
}
