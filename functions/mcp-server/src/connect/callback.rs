//! Step 3 (`GET /connect/<c>/callback`): back from the upstream in the same browser; the code
//! exchanged at the upstream's token endpoint (client id and secret from the deployment secret)
//! and the grant stored in the vault.

use super::state::{Authorize, UPSTREAM};
use super::{Back, Connect, Declared, Step, page, upstream_client_id};
use crate::upstream::token_endpoint as exchange;
use crate::vault::{EntryKey, Grant, Person};

impl Connect {
    /// Step 3: back from the upstream in the same browser; the grant into the vault.
    pub async fn callback(
        &self,
        connector: &str,
        back: &Back,
        browser: Option<&str>,
        now: u64,
    ) -> Step {
        let steps = async {
            let declared = self.declared(connector)?;
            let title = &declared.title;
            if back.error.is_some() {
                return Err(page(
                    400,
                    format!("{title} was not connected"),
                    format!(
                        "{title} did not grant access (you may have declined). Nothing was \
                         stored; open the link from your chat again to retry."
                    ),
                ));
            }
            let keys = self.keys().await;
            let state: Authorize = self
                .state(&keys, UPSTREAM, back, connector, browser, now)
                .await?;
            let Some(code) = &back.code else {
                return Err(page(
                    400,
                    format!("{title} was not connected"),
                    "No code came back.",
                ));
            };
            let mut grant = self
                .upstream_grant(connector, declared, code, &state.v, now)
                .await?;
            // Without `scope` in the answer, what was asked for was granted (RFC 6749 §5.1).
            grant.scopes.get_or_insert_with(|| state.x.clone());
            self.store(connector, declared, &state, &grant, now).await
        };
        steps.await.unwrap_or_else(|stop| stop)
    }

    /// The upstream's grant for `code`, exchanged with the deployment's client id and secret.
    async fn upstream_grant(
        &self,
        connector: &str,
        declared: &Declared,
        code: &str,
        verifier: &str,
        now: u64,
    ) -> Result<Grant, Step> {
        let title = &declared.title;
        let secrets = self.secrets_or_retry().await?;
        let oauth = &declared.oauth;
        let client_id = upstream_client_id(&secrets, connector, declared)?;
        let token_endpoint =
            super::upstream_endpoint(&secrets, connector, declared, &oauth.token_endpoint)?;
        let client = exchange::Client {
            id: client_id,
            secret: oauth
                .client_secret
                .as_deref()
                .and_then(|f| secrets.field(connector, f)),
            resource: oauth.resource.as_deref(),
        };
        let redirect_uri = self.redirect(connector, "callback");
        let what = exchange::Exchange::Code {
            code,
            verifier,
            redirect_uri: &redirect_uri,
        };
        exchange::exchange(&self.http, &token_endpoint, &client, what, now)
            .await
            .map_err(|e| {
                tracing::warn!(connector, error = %e, "connect: the upstream code was not exchanged");
                page(
                    502,
                    format!("{title} was not connected"),
                    format!(
                        "{title} did not complete the connection. Open the link from your chat again."
                    ),
                )
            })
    }

    /// The grant into the vault under the person the state names and the connector's scopes;
    /// the page that says it is connected.
    async fn store(
        &self,
        connector: &str,
        declared: &Declared,
        state: &Authorize,
        grant: &Grant,
        now: u64,
    ) -> Result<Step, Step> {
        let title = &declared.title;
        let key = Person::new(&state.i, &state.s)
            .and_then(|p| EntryKey::new(p, connector, declared.oauth.scopes.iter()));
        let Ok(key) = key else {
            return Err(page(
                400,
                format!("{title} was not connected"),
                "Your sign-in names no person.",
            ));
        };
        if let Err(e) = self.vault.put(&key, grant, now).await {
            tracing::error!(connector, error = %e, "connect: the grant could not be stored");
            return Err(page(
                503,
                format!("{title} was not connected"),
                "Please try again in a minute.",
            ));
        }
        tracing::info!(connector, "connect: a person connected their account");
        Ok(page(
            200,
            format!("{title} is connected"),
            format!(
                "Your {title} account is connected. You can close this page and ask the \
                 assistant again."
            ),
        ))
    }
}
