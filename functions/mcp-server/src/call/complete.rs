//! `completion/complete` as a path of the pipeline: the values a param declares with
//! `complete: {from, match, value, query}` come from one page of its `from` list tool, called
//! through [`Pipeline::call`] like any tool call (validation, the caller's budget, the deadline,
//! the credentials, the upstream, shaping, the settled reservation), then matched against what
//! the user typed.
//!
//! Each value is offered with its name beside it, `101 · Acme GmbH` (MCP completion values are
//! plain strings); the param's validation takes the value before ` · ` back out
//! (`contract::args`), so what a person picks stays a valid argument.
//!
//! Bounded: one upstream request of at most [`MAX_VALUES`] items, the typed text cut to
//! [`MAX_TYPED`] characters, at most [`MAX_VALUES`] values back. The page is kept in a short
//! cache (`short_cache`: 30 s, keyed by the caller's scope, the tool and what is sent upstream)
//! that answers the next keystrokes without asking again, for connectors that act as the
//! deployment only: a connector with each person's own account is asked every time, through
//! the credentials stage (`short_cache::shareable`).

use std::sync::Arc;

use catalog::{Complete, Status, Tool};
use serde_json::{Map, Value, json};

use super::short_cache::{ShortCache, shareable};
use super::{Outcome, Pipeline, Request};
use crate::contract::args::COMPLETED;
use crate::inventory::{DeployedCatalog, Scope};

/// The most values a completion offers (the MCP limit) and the page it reads.
pub(super) const MAX_VALUES: usize = 100;
/// The most characters of typed text that count.
pub(super) const MAX_TYPED: usize = 100;
/// The values for one typed text.
#[derive(Debug, Clone, PartialEq)]
pub struct Completed {
    pub values: Vec<String>,
    /// How many items matched (before the cut to 100).
    pub total: usize,
    /// More matched than were offered, or the upstream had more pages than the one read.
    pub has_more: bool,
    /// The list call that answered, when the upstream was asked (for its audit line); none
    /// when the cache did.
    pub asked: Option<(Map<String, Value>, Outcome)>,
}

type CompletionKey = (Scope, String, String);
/// A page's (match text, value) pairs, shared by the cache and the answers it serves.
type Pairs = Arc<Vec<(String, String)>>;

/// Recent upstream pages, as (match text, value) pairs and whether the upstream had more.
pub(super) type Completions = ShortCache<CompletionKey, (Pairs, bool)>;

impl Pipeline {
    /// The completion of `typed` for a param declaring `complete`, whose `from` tool is
    /// `source` (already found in the caller's view). A failed list call is the `Err`: the
    /// arguments it was called with and its outcome, with status and hint.
    pub async fn complete(
        &self,
        conn: &DeployedCatalog,
        source: &Tool,
        complete: &Complete,
        typed: &str,
        request: Request<'_>,
    ) -> Result<Completed, Box<(Map<String, Value>, Outcome)>> {
        let typed: String = typed.chars().take(MAX_TYPED).collect();
        let query = complete.query.as_ref().map(|_| typed.trim().to_string());
        let key = shareable(conn).then(|| {
            (
                request.caller.scope.clone(),
                source.name.to_string(),
                query.clone().unwrap_or_default(),
            )
        });
        let kept = key.as_ref().and_then(|k| self.completions.get(k));
        let (items, more, asked) = match kept {
            Some((items, more)) => (items, more, None),
            None => {
                let args = list_arguments(complete, query.as_deref());
                let outcome = self.call(conn, source, &args, request).await;
                if outcome.status != Status::Ok {
                    return Err(Box::new((args, outcome)));
                }
                let items = Arc::new(pairs(&outcome, complete));
                let more = outcome.fields.get("has_more") == Some(&Value::Bool(true));
                if let Some(key) = key {
                    self.completions.put(key, (items.clone(), more));
                }
                (items, more, Some((args, outcome)))
            }
        };
        let (values, total) = matching(&items, &typed);
        Ok(Completed {
            has_more: total > values.len() || more,
            values,
            total,
            asked,
        })
    }
}

/// One full page with just the two fields, and the typed text when the upstream searches.
fn list_arguments(complete: &Complete, query: Option<&str>) -> Map<String, Value> {
    let mut args = Map::new();
    args.insert("page_size".into(), json!(MAX_VALUES));
    let mut fields = vec![complete.match_field.clone()];
    if complete.value != complete.match_field {
        fields.push(complete.value.clone());
    }
    args.insert("fields".into(), json!(fields));
    if let (Some(param), Some(q)) = (&complete.query, query)
        && !q.is_empty()
    {
        args.insert(param.to_string(), json!(q));
    }
    args
}

/// The page's items as (match text, value); items without a value are skipped.
fn pairs(outcome: &Outcome, complete: &Complete) -> Vec<(String, String)> {
    let items = outcome.fields.get("items").and_then(Value::as_array);
    items
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let value = text(field(item, &complete.value)?)?;
            let label = field(item, &complete.match_field)
                .and_then(text)
                .unwrap_or_default();
            Some((label, value))
        })
        .collect()
}

fn field<'a>(item: &'a Value, dotted: &str) -> Option<&'a Value> {
    dotted.split('.').try_fold(item, |v, key| v.get(key))
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The values whose match text starts with the typed text (case-insensitive), or one of whose
/// words does, or whose value itself does; whole-text matches first, each value once, at most
/// [`MAX_VALUES`], each offered with its name (`101 · Acme GmbH`, see [`offered`]). Also
/// returns how many matched.
fn matching(items: &[(String, String)], typed: &str) -> (Vec<String>, usize) {
    let typed = typed.trim().to_lowercase();
    let mut ranked: Vec<(u8, &str, &str)> = items
        .iter()
        .filter_map(|(name, value)| {
            let label = name.to_lowercase();
            let rank = if label.starts_with(&typed) || value.to_lowercase().starts_with(&typed) {
                0
            } else if label
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w.starts_with(&typed))
            {
                1
            } else {
                return None;
            };
            Some((rank, value.as_str(), name.as_str()))
        })
        .collect();
    ranked.sort_by_key(|(rank, _, _)| *rank);
    let mut seen = std::collections::BTreeSet::new();
    let unique: Vec<String> = ranked
        .into_iter()
        .filter(|(_, v, _)| seen.insert(*v))
        .map(|(_, v, name)| offered(v, name))
        .collect();
    let total = unique.len();
    (unique.into_iter().take(MAX_VALUES).collect(), total)
}

/// The most characters of a name shown beside a value.
const MAX_NAME: usize = 80;

/// A value as a completion offers it: with its name after [`COMPLETED`] (`101 · Acme GmbH`),
/// which the param's validation takes back apart (`contract::args`); the bare value when there
/// is no other name, or when the value itself holds the separator.
fn offered(value: &str, name: &str) -> String {
    let name: String = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() || name == value || value.contains(COMPLETED) {
        return value.to_string();
    }
    let mut shown: String = name.chars().take(MAX_NAME).collect();
    if shown.len() < name.len() {
        shown.push('…');
    }
    format!("{value}{COMPLETED}{shown}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> Vec<(String, String)> {
        [
            ("Acme GmbH", "101"),
            ("Bäckerei Müller", "102"),
            ("Müller & Söhne", "103"),
            ("acme labs", "104"),
        ]
        .iter()
        .map(|(l, v)| (l.to_string(), v.to_string()))
        .collect()
    }

    #[test]
    fn typed_text_matches_the_start_of_the_name_or_a_word_case_insensitive() {
        assert_eq!(
            matching(&items(), "ac"),
            (vec!["101 · Acme GmbH".into(), "104 · acme labs".into()], 2)
        );
        assert_eq!(
            matching(&items(), "mül"),
            (
                vec![
                    "103 · Müller & Söhne".into(),
                    "102 · Bäckerei Müller".into()
                ],
                2
            ),
            "a name that starts with it ranks before one with a word that does"
        );
        assert_eq!(
            matching(&items(), "10").1,
            4,
            "ids complete by their digits"
        );
        assert_eq!(matching(&items(), "").1, 4);
        assert_eq!(matching(&items(), "zz"), (vec![], 0));
    }

    #[test]
    fn a_value_is_offered_with_its_name_unless_it_has_none_of_its_own() {
        assert_eq!(offered("101", "Acme  GmbH\n"), "101 · Acme GmbH");
        assert_eq!(offered("acme", "acme"), "acme");
        assert_eq!(offered("x", " "), "x");
        assert_eq!(offered("a · b", "Name"), "a · b");
        let long = offered("7", &"N".repeat(300));
        assert_eq!(long.chars().count(), "7 · ".chars().count() + MAX_NAME + 1);
    }

    #[test]
    fn at_most_a_hundred_values_and_each_once() {
        let many: Vec<(String, String)> = (0..250)
            .map(|i| (format!("Firma {i}"), (i % 150).to_string()))
            .collect();
        let (values, total) = matching(&many, "firma");
        assert_eq!(values.len(), MAX_VALUES);
        assert_eq!(total, 150);
    }

    #[test]
    fn the_list_call_asks_one_page_of_two_fields_and_passes_the_query() {
        let complete = Complete {
            from: "t_companies_list".into(),
            match_field: "name".into(),
            value: "id".into(),
            query: Some("search".into()),
        };
        let args = list_arguments(&complete, Some("Ac"));
        assert_eq!(
            Value::Object(args),
            json!({"page_size": 100, "fields": ["name", "id"], "search": "Ac"})
        );
        let outcome = Outcome::ok(
            json!({"items": [{"id": 1, "name": "A"}, {"name": "no id"}, {"id": "x", "name": null}]})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        assert_eq!(
            pairs(&outcome, &complete),
            vec![("A".into(), "1".into()), (String::new(), "x".into())]
        );
    }
}
