//! The upstream stage of a tool that declares `inbound`: instead of a request, one read of the
//! conversation's events the upstream pushed to `/inbound/<connector>` (`crate::inbound`), in
//! the tool's shape: `data` with the events (customer text, marked untrusted) and, where the
//! catalog declares a reply window, whether it is open.

use catalog::{InboundRead, Status, Tool};
use serde_json::{Value, json};

use super::Outcome;
use crate::contract::args::ValidArgs;
use crate::inbound::{self, InboundStore};
use crate::inventory::DeployedCatalog;
use crate::secrets::SecretStore;

/// The conversation the call names, read at `now`.
pub(super) async fn read(
    store: &dyn InboundStore,
    secrets: &SecretStore,
    conn: &DeployedCatalog,
    (tool, read): (&Tool, &InboundRead),
    valid: &ValidArgs,
    now: u64,
) -> Outcome {
    let catalog = &conn.catalog;
    let Some(declared) = catalog.inbound.as_deref() else {
        return unavailable("the catalog declares no inbound events");
    };
    let Some(who) = valid
        .values
        .get(read.conversation.as_str())
        .and_then(Value::as_str)
    else {
        return Outcome::failed(
            Status::InvalidInput,
            "invalid_argument",
            format!("Name the conversation in `{}`.", read.conversation),
        );
    };
    let Some(secret) = signing_secret(secrets, catalog, declared).await else {
        return unavailable("the deployment secret has no signing secret for this connector");
    };
    let connector = (catalog.connector.as_str(), secret.as_str());
    match inbound::read(store, connector, declared, read, who, now).await {
        Ok(conversation) => answer(tool, conversation.to_json()),
        Err(e) => {
            tracing::warn!(connector = %catalog.connector, error = %e, "inbound read failed");
            unavailable("the inbound store did not answer")
        }
    }
}

/// The connector's signing secret, which keys its conversations' digests.
pub(super) async fn signing_secret(
    secrets: &SecretStore,
    catalog: &catalog::Catalog,
    declared: &catalog::Inbound,
) -> Option<String> {
    match secrets.get().await {
        Ok(values) => values
            .field(&catalog.connector, &declared.signing_secret)
            .map(str::to_string),
        Err(_) => None,
    }
}

fn answer(tool: &Tool, data: Value) -> Outcome {
    let mut untrusted: Vec<&str> = vec!["events"];
    untrusted.extend(tool.untrusted.iter().map(|u| u.as_str()));
    let mut fields = super::outcome::data(data);
    fields.insert("_untrusted".into(), json!(untrusted));
    Outcome::ok(fields)
}

fn unavailable(why: &str) -> Outcome {
    tracing::warn!(why, "inbound read unavailable");
    Outcome::failed(
        Status::Unavailable,
        "inbound_unavailable",
        "The messages could not be read just now; try again in a minute.",
    )
}
