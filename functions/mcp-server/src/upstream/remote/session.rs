//! The conversation with a remote before its tools are known: which protocol generation it
//! speaks (`server/discover`, else the `initialize` handshake with its session) and whether it
//! declares the `completions` capability, and its whole tool and prompt lists, page by page.

use serde_json::{Map, Value};

use super::MAX_LIST_PAGES;
use super::transport::{Auth, Exchanged, refusal, remote_timeout};
use super::wire::{self, Generation, RpcAnswer};
use crate::inventory::DeployedCatalog;
use crate::upstream::Upstream;
use crate::upstream::deadline::Deadline;
use crate::upstream::error::UpstreamError;

/// What a first contact learnt: the generation the remote speaks, and whether it completes
/// prompt arguments (the `completions` capability of its discover or initialize result).
pub(super) struct Contact {
    pub(super) generation: Generation,
    pub(super) completions: bool,
}

/// Whether a discover or initialize result declares the `completions` capability.
fn declares_completions(result: &Map<String, Value>) -> bool {
    result
        .get("capabilities")
        .and_then(|c| c.get("completions"))
        .is_some_and(Value::is_object)
}

impl Upstream {
    /// The generation the remote speaks: `server/discover` first, the handshake when refused.
    pub(super) async fn first_contact(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
    ) -> Result<Generation, UpstreamError> {
        self.contact(conn, auth).await.map(|c| c.generation)
    }

    /// [`Self::first_contact`], with what the remote declared.
    pub(super) async fn contact(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
    ) -> Result<Contact, UpstreamError> {
        if let Some(modern) = self.discover(conn, auth).await? {
            return Ok(modern);
        }
        self.handshake(conn, auth).await
    }

    /// `server/discover`: the modern generation when the remote lists it, `None` when the
    /// remote does not speak it (the handshake is tried next); a remote out of reach or refusing
    /// our credentials ends the contact here.
    async fn discover(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
    ) -> Result<Option<Contact>, UpstreamError> {
        let deadline = Deadline::after(remote_timeout(&conn.catalog));
        let modern = self
            .exchange(
                conn,
                auth,
                &Generation::Modern,
                "server/discover",
                None,
                &[],
                Map::new(),
                &deadline,
                &crate::progress::NONE,
            )
            .await;
        match modern {
            Ok(Exchanged {
                answer: RpcAnswer::Result(r),
                ..
            }) if r
                .get("supportedVersions")
                .and_then(Value::as_array)
                .is_some_and(|v| v.iter().any(|x| x == wire::MODERN)) =>
            {
                Ok(Some(Contact {
                    generation: Generation::Modern,
                    completions: declares_completions(&r),
                }))
            }
            Err(
                e @ (UpstreamError::Unreachable
                | UpstreamError::Timeout { .. }
                | UpstreamError::SecretUnavailable
                | UpstreamError::NotConfigured(_)),
            ) => Err(e),
            Err(UpstreamError::Refused(r)) if matches!(r.http_status, 401 | 403) => {
                Err(UpstreamError::Refused(r))
            }
            _ => Ok(None),
        }
    }

    /// The `initialize` handshake: its session, then `notifications/initialized`.
    async fn handshake(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
    ) -> Result<Contact, UpstreamError> {
        let fresh = Generation::Handshake { session: None };
        let deadline = Deadline::after(remote_timeout(&conn.catalog));
        let init = self
            .exchange(
                conn,
                auth,
                &fresh,
                "initialize",
                None,
                &[],
                wire::initialize_params(),
                &deadline,
                &crate::progress::NONE,
            )
            .await?;
        let completions = match &init.answer {
            RpcAnswer::Result(r) => declares_completions(r),
            RpcAnswer::Error { code, message, .. } => {
                return Err(UpstreamError::RemoteError {
                    code: *code,
                    message: super::result::one_line(&self.redactor, message),
                });
            }
        };
        let generation = Generation::Handshake {
            session: init.session,
        };
        self.notify(
            conn,
            auth,
            &generation,
            "notifications/initialized",
            &deadline,
        )
        .await?;
        Ok(Contact {
            generation,
            completions,
        })
    }

    /// Every page of a list (`tools/list` with `key` `tools`, `prompts/list` with `prompts`;
    /// at most [`MAX_LIST_PAGES`], until more than `max` are in), renewing a forgotten session
    /// once.
    pub(super) async fn list_all(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
        mut generation: Generation,
        (method, key, max): (&str, &str, usize),
    ) -> Result<(Generation, Vec<Value>), UpstreamError> {
        let mut listed = Vec::new();
        let mut cursor: Option<String> = None;
        let mut renewed = false;
        for _ in 0..MAX_LIST_PAGES {
            let mut params = Map::new();
            if let Some(c) = &cursor {
                params.insert("cursor".into(), c.clone().into());
            }
            let deadline = Deadline::after(remote_timeout(&conn.catalog));
            let exchanged = match self
                .exchange(
                    conn,
                    auth,
                    &generation,
                    method,
                    None,
                    &[],
                    params,
                    &deadline,
                    &crate::progress::NONE,
                )
                .await
            {
                Err(UpstreamError::Refused(r))
                    if r.http_status == 404
                        && !renewed
                        && matches!(generation, Generation::Handshake { .. }) =>
                {
                    renewed = true;
                    generation = self.first_contact(conn, auth).await?;
                    listed.clear();
                    cursor = None;
                    continue;
                }
                other => other?,
            };
            let mut result = match exchanged.answer {
                RpcAnswer::Result(r) => r,
                RpcAnswer::Error { code, message, .. } => {
                    return Err(UpstreamError::RemoteError {
                        code,
                        message: super::result::one_line(&self.redactor, &message),
                    });
                }
            };
            if let Some(Value::Array(items)) = result.remove(key) {
                listed.extend(items);
            }
            cursor = result
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if cursor.is_none() || listed.len() > max {
                break;
            }
        }
        Ok((generation, listed))
    }

    async fn notify(
        &self,
        conn: &DeployedCatalog,
        auth: &Auth<'_>,
        generation: &Generation,
        method: &str,
        deadline: &Deadline,
    ) -> Result<(), UpstreamError> {
        let body = wire::body(generation, None, method, Map::new());
        let sent = super::transport::Sent {
            method,
            name: None,
            param_headers: &[],
            body: &body,
        };
        let (status, _, _) = self
            .post(
                conn,
                auth,
                generation,
                sent,
                deadline,
                &crate::progress::NONE,
            )
            .await?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(refusal(status))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn completions_are_declared_only_by_an_object_under_capabilities() {
        let declared = |v: Value| declares_completions(v.as_object().unwrap());
        assert!(declared(
            json!({"capabilities": {"prompts": {}, "completions": {}}})
        ));
        assert!(!declared(json!({"capabilities": {"prompts": {}}})));
        assert!(!declared(json!({"capabilities": {"completions": true}})));
        assert!(!declared(json!({"completions": {}})));
    }
}
