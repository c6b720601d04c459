//! `from_current`: some upstreams replace the whole record on an update and refuse it unless it
//! carries the version they hold (optimistic locking: Lexware Office answers 409). Such a tool
//! names the fields of its `current` record to send back; they are read with the `current` get
//! tool just before the write (and for its dry run), and the body params are set on top of them
//! when the request is built (`upstream::request`), so a `version` the caller gives wins and a
//! dotted param changes one field inside a kept object. A record changed between that read and
//! the write is the upstream's conflict to refuse, and the `conflict` status says to read again.

use serde_json::{Map, Value};

use super::dry_run::{self, Reading};
use super::outcome::Outcome;
use crate::contract::args::ValidArgs;
use crate::inventory::DeployedCatalog;
use crate::upstream::Upstream;

/// The arguments with the kept fields of the record as it is now; unchanged for a tool without
/// `from_current`.
pub(super) async fn keep(
    upstream: &Upstream,
    conn: &DeployedCatalog,
    tool: &catalog::Tool,
    valid: &ValidArgs,
    reading: Reading<'_>,
) -> Result<Option<ValidArgs>, Outcome> {
    if tool.from_current.is_empty() {
        return Ok(None);
    }
    let Some(current) = tool
        .current
        .as_deref()
        .and_then(|name| conn.catalog.tools.iter().find(|t| t.name == name))
    else {
        return Ok(None);
    };
    let record = dry_run::read_current(upstream, conn, current, valid, &reading).await?;
    let mut kept = valid.clone();
    kept.write.kept = Some(pick(&record, &tool.from_current));
    Ok(Some(kept))
}

/// The record's values at each dotted path, placed at the same paths; a path the record lacks
/// (or holds `null` at) is left out.
fn pick<S: AsRef<str>>(record: &Value, paths: &[S]) -> Value {
    let mut out = Map::new();
    for path in paths {
        let path = path.as_ref();
        let found = path.split('.').try_fold(record, |at, key| at.get(key));
        let Some(value) = found.filter(|v| !v.is_null()) else {
            continue;
        };
        let mut keys: Vec<&str> = path.split('.').collect();
        let last = keys.pop().unwrap_or(path);
        let mut at = &mut out;
        for key in keys {
            let slot = at
                .entry(key.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            let Value::Object(next) = slot else {
                unreachable!("an object was just put here")
            };
            at = next;
        }
        at.insert(last.to_string(), value.clone());
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::pick;

    #[test]
    fn kept_fields_are_the_records_own_at_their_paths_and_missing_ones_are_left_out() {
        let record = json!({"id": "c1", "version": 3, "roles": {"customer": {"number": 10307}},
            "company": {"name": "Testfirma", "taxNumber": "12345/12345"}, "person": null,
            "note": "n"});
        let kept = pick(
            &record,
            &[
                "version",
                "roles",
                "company.name",
                "person",
                "addresses",
                "note",
            ],
        );
        assert_eq!(
            kept,
            json!({"version": 3, "roles": {"customer": {"number": 10307}},
                "company": {"name": "Testfirma"}, "note": "n"})
        );
        assert_eq!(pick(&record, &[] as &[&str]), json!({}));
    }
}
