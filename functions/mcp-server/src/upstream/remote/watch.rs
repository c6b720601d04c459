//! Refresh on `notifications/tools/list_changed` while an instance is warm: after a remote's
//! tools were first fetched, one background stream per remote listens for the remote saying its
//! list changed, and marks the cached list stale (the next request that needs it fetches it
//! again). A 2026-07-28 remote is asked with `subscriptions/listen` (whose answer is the
//! stream); a 2025-11-25 remote's session stream is a GET. A remote that offers neither (405,
//! 404, no event stream) is not asked again: its list is refreshed by `tools_ttl_s` and when a
//! call names a tool the list does not know.
//!
//! Bounded: one stream per remote at a time; an event over [`MAX_EVENT_BYTES`] or a stream over
//! [`MAX_STREAM_BYTES`] or [`MAX_STREAM_LIFETIME`] is closed and opened again; after
//! [`MAX_FAILURES`] failed opens in a row (backing off from one second to a minute) the watch
//! stops. On Lambda the instance is frozen between invocations: the stream reads nothing while
//! frozen and a change announced then is lost (streams are not resumable), so there the TTL and
//! the refresh on an unknown name are what keep the list current.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Map, json};

use super::Slot;
use super::transport::{to_remote, with_generation};
use super::wire::{self, Generation};
use crate::inventory::DeployedCatalog;
use crate::secrets::SecretStore;
use crate::upstream::error::UpstreamError;

/// The largest event read from a watch stream.
pub(super) const MAX_EVENT_BYTES: usize = 64 * 1024;
/// The most bytes one watch stream delivers before it is opened again.
pub(super) const MAX_STREAM_BYTES: usize = 1024 * 1024;
/// The longest one watch stream stays open before it is opened again.
pub(super) const MAX_STREAM_LIFETIME: Duration = Duration::from_secs(15 * 60);
/// Failed opens in a row after which a remote is no longer watched.
pub(super) const MAX_FAILURES: u32 = 5;
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// How one stream ended.
#[derive(Debug)]
enum Ended {
    /// The remote said its tool list changed.
    Changed,
    /// The remote (or a bound) closed it.
    Closed,
}

/// Why a stream could not be read.
#[derive(Debug, thiserror::Error)]
enum WatchError {
    #[error("the remote offers no notification stream (HTTP {0})")]
    Unsupported(u16),
    #[error("the remote could not be reached: {0}")]
    Failed(String),
    #[error("{0}")]
    Upstream(#[from] UpstreamError),
}

/// What a watch needs, owned: it outlives the request that started it.
pub(super) struct Watch {
    pub(super) http: reqwest::Client,
    pub(super) secrets: Arc<SecretStore>,
    pub(super) conn: DeployedCatalog,
    pub(super) slot: Arc<Slot>,
}

impl Watch {
    /// Starts watching the remote unless a watch runs already.
    pub(super) fn start(self) {
        if self.slot.watching.swap(true, Ordering::SeqCst) {
            return;
        }
        tokio::spawn(async move {
            self.run().await;
            self.slot.watching.store(false, Ordering::SeqCst);
        });
    }

    async fn run(&self) {
        let connector = &self.conn.catalog.connector;
        let (mut failures, mut backoff) = (0, FIRST_BACKOFF);
        loop {
            let generation = match self.slot.state.lock().await.as_ref() {
                Some(f) => f.generation.clone(),
                // Nothing fetched (the list was dropped): the next fetch starts a new watch.
                None => return,
            };
            match self.listen(&generation).await {
                Ok(Ended::Changed) => {
                    tracing::info!(connector = %connector, "remote tool list changed: refreshed on next need");
                    if let Some(f) = self.slot.state.lock().await.as_mut() {
                        f.stale = true;
                    }
                    (failures, backoff) = (0, FIRST_BACKOFF);
                }
                Ok(Ended::Closed) => {
                    (failures, backoff) = (0, FIRST_BACKOFF);
                    tokio::time::sleep(FIRST_BACKOFF).await;
                }
                Err(WatchError::Unsupported(status)) => {
                    tracing::info!(connector = %connector, status, "remote offers no list_changed stream: its tool list is refreshed by tools_ttl_s");
                    return;
                }
                Err(e) => {
                    failures += 1;
                    if failures >= MAX_FAILURES {
                        tracing::warn!(connector = %connector, error = %e, "remote list_changed stream failed {MAX_FAILURES} times: no longer watched");
                        return;
                    }
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }

    /// One stream, read until the remote says its list changed or the stream ends.
    async fn listen(&self, generation: &Generation) -> Result<Ended, WatchError> {
        let secrets = self.secrets.get().await.map_err(|e| {
            tracing::error!(error = %e, "secret unavailable for a remote MCP server");
            UpstreamError::SecretUnavailable
        })?;
        let auth = super::transport::Auth {
            secrets: &secrets,
            person: None,
        };
        let request = match generation {
            Generation::Modern => {
                let method = "subscriptions/listen";
                let mut params = Map::new();
                params.insert("notifications".into(), json!({"toolsListChanged": true}));
                let body = wire::body(generation, Some(1), method, params);
                let request = to_remote(&self.http, reqwest::Method::POST, &self.conn, &auth)?
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body.to_string());
                with_generation(request, generation, method, None)
            }
            Generation::Handshake { .. } => {
                let request = to_remote(&self.http, reqwest::Method::GET, &self.conn, &auth)?
                    .header(reqwest::header::ACCEPT, "text/event-stream");
                with_generation(request, generation, "GET", None)
            }
        };
        let mut response = request
            .timeout(MAX_STREAM_LIFETIME)
            .send()
            .await
            .map_err(|e| WatchError::Failed(e.without_url().to_string()))?;
        let status = response.status().as_u16();
        let is_stream = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("text/event-stream"));
        if matches!(status, 400 | 404 | 405 | 406) || (status == 200 && !is_stream) {
            return Err(WatchError::Unsupported(status));
        }
        if !(200..300).contains(&status) {
            return Err(WatchError::Failed(format!("HTTP {status}")));
        }
        let mut events = Events::default();
        loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                // The end, or the lifetime bound: opened again.
                Ok(None) | Err(_) => return Ok(Ended::Closed),
            };
            match events.push(&chunk) {
                Some(Read::Changed) => return Ok(Ended::Changed),
                Some(Read::TooMuch) => return Ok(Ended::Closed),
                None => {}
            }
        }
    }
}

/// What a stream's bytes said.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    Changed,
    /// An event or the stream beyond its bound.
    TooMuch,
}

/// A watch stream's bytes: the unfinished event kept, complete events looked at once.
#[derive(Debug, Default)]
struct Events {
    pending: Vec<u8>,
    total: usize,
}

impl Events {
    fn push(&mut self, chunk: &[u8]) -> Option<Read> {
        self.total += chunk.len();
        let searched = self.pending.len();
        self.pending.extend_from_slice(chunk);
        if let Some(end) = wire::last_event_end(&self.pending, searched) {
            let changed = wire::announces_tools_changed(&self.pending[..end]);
            self.pending.drain(..end);
            if changed {
                return Some(Read::Changed);
            }
        }
        (self.pending.len() > MAX_EVENT_BYTES || self.total > MAX_STREAM_BYTES)
            .then_some(Read::TooMuch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_seen_across_chunks_and_bounds_close_the_stream() {
        let mut events = Events::default();
        let ack = b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{}}\n\n";
        assert_eq!(events.push(ack), None);
        assert!(events.pending.is_empty());
        let change =
            b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n";
        let (a, b) = change.split_at(30);
        assert_eq!(events.push(a), None);
        assert_eq!(events.push(b), Some(Read::Changed));

        let mut huge = Events::default();
        assert_eq!(
            huge.push(&vec![b'x'; MAX_EVENT_BYTES + 1]),
            Some(Read::TooMuch)
        );
        let mut long = Events::default();
        let mut read = None;
        for _ in 0..=(MAX_STREAM_BYTES / ack.len()) {
            read = long.push(ack);
        }
        assert_eq!(read, Some(Read::TooMuch));
    }
}
