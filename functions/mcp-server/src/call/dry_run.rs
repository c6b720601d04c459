//! The dry-run stage: every write can be previewed. After all validation, instead of the write
//! the call answers with the exact upstream request (method, path, body), the contract's side
//! effects and failure modes, whether a retry is safe, what confirmation it needs, and warnings;
//! for an update with a `current` get tool, the current record and the fields that would
//! change (one read, and the preview says what it cost), marked like the get tool marks it and
//! only for a caller whose profile may call that get tool; and the published price of what the
//! call uses, when the catalog has one (`price`). Nothing is written upstream. The same
//! preview is what a confirmation shows and is bound to; a person's form reads it in their words
//! (`form`), made here from what the preview found.

use catalog::{Effect, Risk, Tool};
use serde_json::{Map, Value, json};

use super::outcome::Outcome;
use super::preview::{Preview, RequestLine};
use super::preview::{notified, totals};
use crate::contract::args::ValidArgs;
use crate::contract::risk;
use crate::inventory::{DeployedCatalog, View};
use crate::upstream::{Credentials, Deadline, Meter, Upstream};

/// What reading the current record for a preview may use: the call's deadline, budget,
/// profile and credentials.
pub(super) struct Reading<'a> {
    pub(super) deadline: &'a Deadline,
    pub(super) meter: &'a Meter,
    pub(super) view: &'a View,
    pub(super) credentials: Credentials<'a>,
}

/// The preview of one write.
pub(super) async fn preview(
    upstream: &Upstream,
    conn: &DeployedCatalog,
    tool: &Tool,
    valid: &ValidArgs,
    reading: Reading<'_>,
) -> Result<Preview, Outcome> {
    let (method, path, body) = upstream
        .request_line(conn, tool, valid)
        .await
        .map_err(|e| Outcome::from_upstream(conn, tool, &e))?;
    let request = RequestLine {
        method: method.as_str(),
        path,
        body,
    };
    let mut preview = from_contract(tool, valid, request);
    let readable = match current_tool(conn, tool) {
        Some(current) if !reading.view.allows(&current.name) => {
            preview.current_withheld = Some(format!(
                "The current record is not shown: this connection may not call {}.",
                current.name
            ));
            None
        }
        current => current,
    };
    if let Some(current) = readable {
        let record = read_current(upstream, conn, current, valid, &reading).await?;
        preview.changes = Some(changes(&record, preview.request.body.as_ref()));
        preview.current = Some(record);
        preview.current_untrusted = current.untrusted.clone();
        preview.cost = Some(format!(
            "This preview read the current record with {}: one upstream request of the quota.",
            current.name
        ));
    }
    let sources = [preview.request.body.as_ref(), preview.current.as_ref()];
    preview.notifies = notified(&tool.notifies, sources.into_iter().flatten());
    if let (Some(prices), Some(price)) = (conn.catalog.prices.as_deref(), tool.price.as_deref()) {
        let current = preview.current.as_ref();
        preview.price = Some(super::price::quote(prices, price, &valid.values, current));
    }
    preview.form = super::form::form(&super::form::Facts {
        title: crate::inventory::Registry::title(&conn.catalog),
        connector: &conn.catalog.connector,
        tool,
        valid,
        current: preview.current.as_ref(),
        changes: preview.changes.as_ref(),
        totals: &preview.totals,
        price: preview.price.as_ref(),
    });
    Ok(preview)
}

/// The preview as the request and the tool's contract make it, before the current record is
/// read and the form written.
fn from_contract(tool: &Tool, valid: &ValidArgs, request: RequestLine) -> Preview {
    Preview {
        request,
        risk: risk::word(tool.risk),
        side_effects: tool.side_effects.clone(),
        effect: tool.effect.map(effect_word),
        retry_safe: risk::retry_safe(tool),
        failure_modes: tool.failure_modes.clone(),
        confirmation: needs(tool),
        warnings: warnings(tool),
        current: None,
        notifies: Vec::new(),
        current_untrusted: Vec::new(),
        current_withheld: None,
        changes: None,
        cost: None,
        totals: totals(&tool.params, &valid.values),
        price: None,
        reply_window: None,
        form: Default::default(),
    }
}

/// The current record, read with the `current` get tool and the write's path arguments (its
/// `data` when the answer wraps it).
pub(super) async fn read_current(
    upstream: &Upstream,
    conn: &DeployedCatalog,
    current: &Tool,
    valid: &ValidArgs,
    reading: &Reading<'_>,
) -> Result<Value, Outcome> {
    let mut read = ValidArgs::default();
    for (name, p) in &current.params {
        if p.location == catalog::ParamIn::Path
            && let Some(v) = valid.values.get(name.as_str())
        {
            read.values.insert(name.to_string(), v.clone());
        }
    }
    let reply = upstream
        .fetch(
            conn,
            current,
            &read,
            reading.deadline,
            reading.meter,
            reading.credentials,
        )
        .await
        .map_err(|e| Outcome::from_upstream(conn, current, &e))?;
    Ok(reply.body.get("data").unwrap_or(&reply.body).clone())
}

/// The dry run's answer: the preview, nothing written.
pub(super) fn answer(tool: &Tool, preview: Preview) -> Outcome {
    let mut fields = Map::new();
    fields.insert("dry_run".into(), true.into());
    Outcome {
        hint: Some(format!(
            "Nothing was written. To do it, call {} again with the same arguments and without dry_run{}.",
            tool.name,
            if risk::needs_confirmation(tool) {
                "; it will ask for confirmation first"
            } else {
                ""
            }
        )),
        preview: Some(preview),
        ..Outcome::ok(fields)
    }
}

fn current_tool<'a>(conn: &'a DeployedCatalog, tool: &Tool) -> Option<&'a Tool> {
    let name = tool.current.as_deref()?;
    conn.catalog.tools.iter().find(|t| t.name == name)
}

/// The body's fields against the current record: `{field: {from, to}}` for those that differ.
fn changes(current: &Value, body: Option<&Value>) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(Value::Object(body)) = body else {
        return out;
    };
    for (k, to) in body {
        let from = current.get(k).cloned().unwrap_or(Value::Null);
        if &from != to {
            out.insert(k.clone(), json!({"from": from, "to": to}));
        }
    }
    out
}

/// What the call needs before it runs, in words.
fn needs(tool: &Tool) -> &'static str {
    match tool.risk {
        Risk::Critical => "a person's confirmation of this preview",
        Risk::High => "confirmation of this preview",
        _ => "none: it runs when called",
    }
}

fn warnings(tool: &Tool) -> Vec<&'static str> {
    let mut out = Vec::new();
    match tool.effect {
        Some(Effect::External) => {
            out.push("This communicates outside the company; it cannot be called back.")
        }
        Some(Effect::Money) => out.push("This moves or books money."),
        Some(Effect::Irreversible) => out.push("This cannot be undone."),
        Some(Effect::Delete) => out.push("This removes the record."),
        _ => {}
    }
    if !risk::retry_safe(tool) {
        out.push("Not safe to repeat: retry only with the same idempotency_key.");
    }
    out
}

fn effect_word(e: Effect) -> &'static str {
    match e {
        Effect::Change => "change",
        Effect::Financial => "financial",
        Effect::Delete => "delete",
        Effect::External => "external",
        Effect::Money => "money",
        Effect::Irreversible => "irreversible",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_list_only_fields_that_differ() {
        let current = json!({"name": "Acme", "city": "Kiel", "id": 3});
        let body = json!({"name": "Acme GmbH", "city": "Kiel"});
        assert_eq!(
            Value::Object(changes(&current, Some(&body))),
            json!({"name": {"from": "Acme", "to": "Acme GmbH"}})
        );
        assert!(changes(&current, None).is_empty());
    }
}
