//! The structural rules every runtime relies on: each a small function with one concern, grouped
//! by topic, and [`validate`] running them in order. The order is the order problems are
//! reported in, and a load names only the first, so a rule's place in these lists matters.

mod aggregate;
mod http;
mod inbound;
mod job;
mod params;
mod price;
mod quota;
mod spend;
mod tool;
mod top;
mod write;

#[cfg(test)]
pub(crate) mod tests;

use crate::model::{Catalog, Method, Tool};
use crate::template::placeholders;

pub use job::{MAX_POLL_EVERY, MAX_PREFER_WAIT};
pub use spend::{MAX_SPEND_AMOUNT, MAX_SPEND_LIMIT};
pub use tool::MAX_TOOL_NAME;

/// Where a problem is: a tool (by name) or a top-level key.
pub(crate) enum Place {
    Tool(String),
    Key(&'static str),
}

/// One problem: where, if known, and what.
pub(crate) type Problem = (Option<Place>, String);

/// Rules that place their problems themselves (at a top-level key or a tool), kept in the
/// modules of their topic.
const PLACED: &[fn(&Catalog) -> Vec<Problem>] = &[
    |c| keyed(crate::wire::problems(c)),
    |c| at_key("paging", crate::paging::problems(c)),
    |c| {
        let prompts = crate::prompt::problems(c).into_iter();
        prompts
            .map(|(name, p)| (Some(Place::Tool(name)), p))
            .collect()
    },
    |c| keyed(crate::remote::problems(c)),
    |c| at_key("inbound", inbound::problems(c)),
];

/// Rules on the catalog as a whole whose problems have no better place than line 1.
const CATALOG: &[fn(&Catalog) -> Vec<String>] = &[
    top::connector_is_snake_case,
    top::one_kind_of_upstream,
    top::base_url_fields_are_secrets,
    top::hints_never_quote_the_upstream,
    top::error_codes_are_read_somewhere,
    quota::window_has_one_kind,
    quota::headers_are_read_one_way,
    quota::body_is_read_by_pointer,
    quota::balance_has_a_remaining_figure,
    quota::probe_can_learn_the_quota,
    quota::rate_is_bounded,
    spend::limit_is_bounded,
    price::table_is_published,
    top::a_rest_catalog_has_tools,
];

/// Rules on every tool, whatever it does.
const TOOL: &[fn(&Catalog, &Tool) -> Vec<String>] = &[
    tool::name_is_unique,
    |c, t| crate::wire::tool_problems(c, t),
    |c, t| crate::answer::tool_problems(c, t),
    |_, t| crate::paging::tool_problems(t),
    tool::name_begins_with_the_connector,
    tool::name_fits_clients,
    tool::description_is_not_empty,
    spend::spends,
];

/// Rules on a tool with exactly one HTTP mapping (after its `resource`, checked by
/// [`tool::resource`]).
const HTTP: &[fn(&Http<'_>) -> Vec<String>] = &[
    http::path_is_a_fixed_template,
    params::body_template,
    write::write_contract,
    price::price,
    job::job,
    http::path_holes_have_params,
    http::raw_reads_only,
    http::list_pages,
    http::list_shape,
    params::params,
];

/// Every structural problem, as (where, if known; problem).
pub(crate) fn validate(c: &Catalog) -> Vec<Problem> {
    let mut out: Vec<Problem> = PLACED.iter().flat_map(|rule| rule(c)).collect();
    out.extend(CATALOG.iter().flat_map(|rule| rule(c)).map(|p| (None, p)));
    for t in &c.tools {
        let place = || Some(Place::Tool(t.name.to_string()));
        out.extend(
            tool_problems(c, t)
                .into_iter()
                .map(|p| (place(), format!("tool `{}`: {p}", t.name))),
        );
    }
    out
}

/// One tool's problems: the rules for every tool, then those of its kind (a read of inbound
/// events, an aggregation, or a tool with one HTTP mapping); a tool of neither kind stops at saying so.
fn tool_problems(c: &Catalog, t: &Tool) -> Vec<String> {
    let mut out: Vec<String> = TOOL.iter().flat_map(|rule| rule(c, t)).collect();
    let mappings = tool::mappings(t);
    if let Some(requires) = &t.requires {
        out.extend(inbound::requires(c, t, requires));
    }
    if let Some(read) = &t.inbound {
        out.extend(inbound::tool(c, t, read, mappings));
        return out;
    }
    if let Some(agg) = &t.aggregate {
        out.extend(aggregate::is_aggregate_only(t, mappings));
        out.extend(aggregate::problems(c, agg));
        return out;
    }
    if mappings != 1 {
        out.push(format!(
            "needs exactly one HTTP mapping (get/post/put/patch/delete), found {mappings}"
        ));
        return out;
    }
    out.extend(tool::resource(c, t));
    if let Some((method, path)) = t.http() {
        let http = Http {
            c,
            t,
            method,
            path,
            holes: placeholders(path),
        };
        out.extend(HTTP.iter().flat_map(|rule| rule(&http)));
    }
    out
}

/// A tool with exactly one HTTP mapping, as its rules see it.
struct Http<'a> {
    c: &'a Catalog,
    t: &'a Tool,
    method: Method,
    path: &'a str,
    /// The path's `{placeholders}`.
    holes: Vec<&'a str>,
}

fn keyed(problems: Vec<(&'static str, String)>) -> Vec<Problem> {
    problems
        .into_iter()
        .map(|(key, p)| (Some(Place::Key(key)), p))
        .collect()
}

fn at_key(key: &'static str, problems: Vec<String>) -> Vec<Problem> {
    problems
        .into_iter()
        .map(|p| (Some(Place::Key(key)), p))
        .collect()
}

/// Lower-case letters, digits and `_`, starting with a letter.
fn is_snake(name: &str) -> bool {
    !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}
