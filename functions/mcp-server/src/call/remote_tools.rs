//! Which tools of a remote MCP server a caller sees. A remote with the deployment's credentials
//! has one list for everyone. A remote with `auth: oauth_user` lists its tools to each person
//! with their own token (the credentials stage's lookup and refresh), and keeps the list for
//! them alone: a cached list answers without a vault read, so a call of a listed tool reads
//! the vault once (in its credentials stage). A caller who cannot be spoken for (an API key, or
//! a person not connected yet, or whose grant the remote refused) gets the answer a call of
//! that connector's tools gets: `connection_required` with their link.

use std::ops::ControlFlow;
use std::sync::Arc;

use super::{Caller, Outcome, Pipeline, credentials};
use crate::inventory::DeployedCatalog;
use crate::upstream::remote::RemoteSet;
use crate::upstream::{Credentials, UpstreamError};

/// A remote's tools for one caller.
pub enum RemoteTools {
    Tools(Arc<RemoteSet>),
    /// The remote acts as each person and this caller has no usable connection: what a call of
    /// one of its tools answers.
    Connect(Box<Outcome>),
    /// The remote could not be listed.
    Unavailable(UpstreamError),
}

impl Pipeline {
    /// The remote's tools as `caller` may see them; `refresh` fetches them again (a name the
    /// cached list did not know).
    pub async fn remote_tools(
        &self,
        conn: &DeployedCatalog,
        caller: &Caller,
        refresh: bool,
    ) -> RemoteTools {
        let upstream = &self.upstream;
        if conn.catalog.auth.oauth_user.is_none() {
            return match upstream
                .remote_tools(conn, Credentials::Deployment, refresh)
                .await
            {
                Ok(set) => RemoteTools::Tools(set),
                Err(e) => RemoteTools::Unavailable(e),
            };
        }
        if let Some(person) = &caller.person
            && !refresh
            && let Some(set) = upstream.cached_remote_tools(conn, &person.id()).await
        {
            return RemoteTools::Tools(set);
        }
        let keys = self.confirmation_keys().await;
        let connect = credentials::ConnectLinks {
            base: self.connect_base.as_deref(),
            keys: &keys,
        };
        let now = crate::clock::now_s();
        let (key, token) = match self.credentials(conn, &[], caller, &connect, now).await {
            ControlFlow::Break(answer) => return RemoteTools::Connect(Box::new(answer)),
            ControlFlow::Continue(Some(found)) => found,
            ControlFlow::Continue(None) => return RemoteTools::Tools(Arc::default()),
        };
        let owner = key.person().id();
        let as_person = Credentials::Person {
            owner: &owner,
            token: &token,
        };
        match upstream.remote_tools(conn, as_person, refresh).await {
            Ok(set) => RemoteTools::Tools(set),
            Err(e) if e.http_status() == Some(401) => {
                // The remote no longer takes the person's grant: cleared, and asked again.
                if let Err(e) = self.vault.remove(&key).await {
                    tracing::warn!(error = %e, "a refused grant could not be cleared from the vault");
                }
                RemoteTools::Connect(Box::new(credentials::ask_to_connect(
                    conn,
                    key.person(),
                    &connect,
                    now,
                    "grant_refused",
                    &[],
                )))
            }
            Err(e) => RemoteTools::Unavailable(e),
        }
    }
}
