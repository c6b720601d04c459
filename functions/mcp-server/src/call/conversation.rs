//! The upstream stage of a tool that declares `inbound`: instead of a request, one read of the
//! conversation's events the upstream pushed to `/inbound/<connector>` (`crate::inbound`), in
//! the tool's shape: `data` with the events (customer text, marked untrusted) and, where the
//! catalog declares a reply window, whether it is open. A tool declaring `conversations`
//! lists the conversations instead (who wrote, under which name, newest first).

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
    let text = |param: &str| valid.values.get(param).and_then(Value::as_str);
    if read.conversations {
        let name = read.name.as_deref().and_then(text);
        return match inbound::list(store, &catalog.connector, name, read.limit, now).await {
            Ok(listed) => answer(
                tool,
                "conversations",
                inbound::listed_json(&listed, declared, now),
            ),
            Err(e) => failed_read(&catalog.connector, &e),
        };
    }
    let param = read.conversation.as_deref().unwrap_or_default();
    let Some(who) = text(param) else {
        return Outcome::failed(
            Status::InvalidInput,
            "invalid_argument",
            format!("Name the conversation in `{param}`."),
        );
    };
    let Some(secret) = signing_secret(secrets, catalog, declared).await else {
        return unavailable("the deployment secret has no signing secret for this connector");
    };
    let connector = (catalog.connector.as_str(), secret.as_str());
    match inbound::read(store, connector, declared, read, who, now).await {
        Ok(conversation) => answer(tool, "events", conversation.to_json()),
        Err(e) => failed_read(&catalog.connector, &e),
    }
}

fn failed_read(connector: &str, e: &inbound::InboundError) -> Outcome {
    tracing::warn!(connector, error = %e, "inbound read failed");
    unavailable("the inbound store did not answer")
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

/// `untrusted`: the field with the customers' own words (their texts, their profile names).
fn answer(tool: &Tool, untrusted: &'static str, data: Value) -> Outcome {
    let mut untrusted: Vec<&str> = vec![untrusted];
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
