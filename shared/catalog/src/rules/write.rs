//! Rules on the write-side fields: only on writes, an event named `<record>.<past tense>`, and a
//! `current` get tool taking the same path parameters.

use super::Http;
use crate::model::Method;
use crate::template::placeholders;

/// The write-side fields' problems, field by field.
pub(super) fn write_contract(h: &Http<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    problems.extend(only_on_writes(h));
    problems.extend(notifies_names_fields(h));
    problems.extend(audit_event_is_record_dot_past_tense(h));
    problems.extend(current_is_a_matching_get(h));
    problems.extend(from_current_names_fields_of_current(h));
    problems
}

fn only_on_writes(h: &Http<'_>) -> Vec<String> {
    let t = h.t;
    let declared = t.effect.is_some()
        || t.audit_event.is_some()
        || !t.failure_modes.is_empty()
        || t.current.is_some()
        || !t.notifies.is_empty()
        || !t.from_current.is_empty();
    if h.t.read_only && h.method != crate::Method::Post {
        return vec!["`read_only` is for a POST that only reads (its question in a body)".into()];
    }
    if h.t.is_read_only() && declared {
        return vec![
            "`effect`, `audit_event`, `failure_modes`, `current`, `notifies` and `from_current` are \
             for writes"
                .into(),
        ];
    }
    Vec::new()
}

/// Said of the first path that is not one (a composed message's key, `raw.$rfc5322.to`, is a
/// field of the body as the preview shows it).
fn notifies_names_fields(h: &Http<'_>) -> Vec<String> {
    let field = |w: &str| {
        w == crate::message::MESSAGE
            || (!w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    };
    let bad =
        h.t.notifies
            .iter()
            .find(|p| p.is_empty() || !p.split('.').all(field));
    bad.map(|bad| {
        format!("notifies `{bad}` must be a dotted field path (`attendee.email`, `guests`)")
    })
    .into_iter()
    .collect()
}

fn audit_event_is_record_dot_past_tense(h: &Http<'_>) -> Vec<String> {
    let Some(event) = &h.t.audit_event else {
        return Vec::new();
    };
    let ok = event.split_once('.').is_some_and(|(record, what)| {
        [record, what].iter().all(|w| {
            w.starts_with(|ch: char| ch.is_ascii_lowercase())
                && w.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_')
        })
    });
    if ok {
        return Vec::new();
    }
    vec![format!(
        "audit_event `{event}` must be `<record>.<past tense>` (`invoice.delivered`)"
    )]
}

/// The dry run reads the record through `current`, so it takes the same path parameters.
fn current_is_a_matching_get(h: &Http<'_>) -> Vec<String> {
    let Some(name) = &h.t.current else {
        return Vec::new();
    };
    let get = h.c.tools.iter().find(|g| &g.name == name);
    match get.and_then(|g| g.http()) {
        Some((Method::Get, path)) => {
            let mut theirs = placeholders(path);
            let mut ours = h.holes.clone();
            theirs.sort_unstable();
            ours.sort_unstable();
            if theirs != ours {
                return vec![format!(
                    "current `{name}` takes the path parameters {theirs:?}, this tool {ours:?}"
                )];
            }
            Vec::new()
        }
        _ => vec![format!("current `{name}` is no get tool of this catalog")],
    }
}

/// `from_current` sends fields of the record `current` reads: it needs `current`, and dotted
/// field paths, none inside another (the inner one would be sent twice).
fn from_current_names_fields_of_current(h: &Http<'_>) -> Vec<String> {
    let fields = &h.t.from_current;
    if fields.is_empty() {
        return Vec::new();
    }
    if h.t.current.is_none() {
        return vec!["`from_current` needs `current`, the get tool that reads the record".into()];
    }
    if let Some(bad) = fields.iter().find(|p| !dotted(p)) {
        return vec![format!(
            "from_current `{bad}` must be a dotted field path (`version`, `company.name`)"
        )];
    }
    let nested = fields.iter().find_map(|inner| {
        fields
            .iter()
            .find(|outer| inner.starts_with(&format!("{outer}.")))
            .map(|outer| (inner, outer))
    });
    nested
        .map(|(inner, outer)| {
            format!("from_current `{inner}` lies inside `{outer}`, which is sent whole")
        })
        .into_iter()
        .collect()
}

fn dotted(p: &str) -> bool {
    !p.is_empty()
        && p.split('.')
            .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}
