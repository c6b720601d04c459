//! Rules on a tool's one HTTP mapping: its path, and what a raw or a list tool may be.

use super::Http;
use crate::model::{Method, ParamIn, Risk};

pub(super) fn path_is_a_fixed_template(h: &Http<'_>) -> Vec<String> {
    let path = h.path;
    if !path.starts_with('/') || path.contains("..") || path.contains('?') {
        return vec![format!(
            "path `{path}` must be a fixed template starting with `/`, without `..` or a query"
        )];
    }
    Vec::new()
}

/// Every `{hole}` of the path is an `in: path` param (the other way round is a param rule), or
/// a secret field no param shadows: an account id the deployment fixes (WhatsApp's phone
/// number id), filled from the secret and host-safe like the base URL's.
pub(super) fn path_holes_have_params(h: &Http<'_>) -> Vec<String> {
    let missing = h.holes.iter().filter(|hole| match h.t.params.get(**hole) {
        Some(p) => p.location != ParamIn::Path,
        None => !h.c.secrets.iter().any(|s| s == **hole),
    });
    missing
        .map(|hole| {
            format!("path uses {{{hole}}} but no `in: path` param nor secret field `{hole}`")
        })
        .collect()
}

/// A raw tool GETs the platform's `path` argument.
pub(super) fn raw_reads_only(h: &Http<'_>) -> Vec<String> {
    let mut out = Vec::new();
    if h.t.raw && h.t.params.contains_key("path") {
        out.push("raw tools take the platform's `path` argument; remove the `path` param".into());
    }
    if h.t.raw && h.method != Method::Get {
        out.push("raw tools may only GET".into());
    }
    out
}

/// A list tool knows how it pages, and is callable.
pub(super) fn list_pages(h: &Http<'_>) -> Vec<String> {
    let mut out = Vec::new();
    if h.t.list && h.c.pager_for(h.t).is_none() {
        out.push(
            "list tool, but neither it nor the catalog declares `paging` (or the catalog a \
             `list_envelope`)"
                .into(),
        );
    }
    if h.t.list && h.t.risk == Risk::Forbidden {
        out.push("a list tool cannot be forbidden".into());
    }
    out
}

/// `fields` and `default_fields` belong to list tools, the defaults within the fields.
pub(super) fn list_shape(h: &Http<'_>) -> Vec<String> {
    let t = h.t;
    let mut out = Vec::new();
    let has_fields = !t.fields.is_empty() || !t.default_fields.is_empty();
    if has_fields && !t.list {
        out.push("`fields`/`default_fields` only apply to list tools".into());
    }
    if let Some(f) = t
        .default_fields
        .iter()
        .find(|f| !t.fields.is_empty() && !t.fields.contains(f))
    {
        out.push(format!("default field `{f}` is not in `fields`"));
    }
    out
}
