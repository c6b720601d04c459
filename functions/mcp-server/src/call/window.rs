//! The precondition stage of a write that `requires` an open reply window (`catalog::Requires`):
//! before any preview, confirmation or upstream request, the conversation the call names is
//! read from the events the upstream pushed to `/inbound/<connector>`. A closed window answers
//! `conflict` with the hint to use the catalog's alternative (an approved template), and
//! nothing is sent; an open one goes on and is shown in the write's preview.

use std::ops::ControlFlow;

use catalog::{InboundRead, Requires, Status, Tool};
use serde::Serialize;
use serde_json::Value;

use super::Outcome;
use super::stages::Flow;
use crate::contract::args::ValidArgs;
use crate::inbound::{self, InboundStore};
use crate::inventory::DeployedCatalog;
use crate::secrets::SecretStore;

/// The reply window a write was judged by, as its preview shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplyWindow {
    pub open: bool,
    /// When a free-form message stops being allowed (RFC 3339).
    pub closes_at: String,
}

/// Go on with the open window (none for a tool without `requires`), or refuse the call.
pub(super) async fn check(
    store: &dyn InboundStore,
    secrets: &SecretStore,
    conn: &DeployedCatalog,
    tool: &Tool,
    valid: &ValidArgs,
    now: u64,
) -> Flow<Option<ReplyWindow>> {
    let Some(requires) = tool.requires.as_deref() else {
        return ControlFlow::Continue(None);
    };
    let catalog = &conn.catalog;
    let (Some(declared), Some(who)) = (
        catalog.inbound.as_deref(),
        valid
            .values
            .get(requires.reply_window.as_str())
            .and_then(Value::as_str),
    ) else {
        return ControlFlow::Break(unknown());
    };
    let Some(secret) = super::conversation::signing_secret(secrets, catalog, declared).await else {
        return ControlFlow::Break(unknown());
    };
    let read = InboundRead {
        conversation: Some(requires.reply_window.clone()),
        conversations: false,
        name: None,
        limit: 1,
    };
    let connector = (catalog.connector.as_str(), secret.as_str());
    match inbound::read(store, connector, declared, &read, who, now).await {
        Ok(conversation) => match conversation.window {
            Some((true, until)) => ControlFlow::Continue(Some(ReplyWindow {
                open: true,
                closes_at: inbound::rfc3339(until),
            })),
            _ => ControlFlow::Break(closed(requires, declared.reply_window_h)),
        },
        Err(e) => {
            tracing::warn!(connector = %catalog.connector, error = %e, "reply window read failed");
            ControlFlow::Break(unknown())
        }
    }
}

/// Shows the window in the preview a dry run or a confirmation answers.
pub(super) fn shown(mut outcome: Outcome, window: Option<&ReplyWindow>) -> Outcome {
    if let (Some(preview), Some(window)) = (outcome.preview.as_mut(), window) {
        preview.reply_window = Some(window.clone());
    }
    outcome
}

fn closed(requires: &Requires, hours: Option<u32>) -> Outcome {
    let hours = hours.unwrap_or_default();
    let instead = match &requires.otherwise {
        Some(tool) => format!("use {tool} instead, which needs no open window"),
        None => "wait until they write again".to_string(),
    };
    Outcome::failed(
        Status::Conflict,
        "reply_window_closed",
        format!(
            "The {hours}-hour reply window is closed: the recipient has not written in the last \
             {hours} hours, so a free-form message is not allowed and nothing was sent. To reach \
             them, {instead}."
        ),
    )
}

fn unknown() -> Outcome {
    Outcome::failed(
        Status::Unavailable,
        "reply_window_unknown",
        "Whether the reply window is open could not be read just now, so nothing was sent; try \
         again in a minute.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_window_names_the_tool_to_use_instead_and_sends_nothing() {
        let requires = Requires {
            reply_window: "to".into(),
            otherwise: Some("whatsapp_template_send".into()),
        };
        let refused = closed(&requires, Some(24));
        assert_eq!(refused.status, Status::Conflict);
        assert_eq!(refused.reason.as_deref(), Some("reply_window_closed"));
        let hint = refused.hint.unwrap();
        assert!(hint.contains("24-hour reply window is closed"), "{hint}");
        assert!(
            hint.contains("use whatsapp_template_send instead"),
            "{hint}"
        );
        assert!(hint.contains("nothing was sent"), "{hint}");
    }

    #[test]
    fn the_open_window_is_shown_in_a_preview_and_nowhere_else() {
        let window = ReplyWindow {
            open: true,
            closes_at: "2026-12-07T10:00:00Z".into(),
        };
        let plain = shown(Outcome::ok(Default::default()), Some(&window));
        assert!(plain.preview.is_none());
        let unknown = unknown();
        assert_eq!(unknown.status, Status::Unavailable);
        assert!(unknown.hint.unwrap().contains("nothing was sent"));
    }
}
