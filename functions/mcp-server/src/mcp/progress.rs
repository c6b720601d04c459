//! `notifications/progress` for a call whose client asked: a `progressToken` in the request's
//! `_meta` and an `Accept` that takes `text/event-stream`. The pipeline reports into a
//! [`Progress`] sink; this drains it into notifications on the request's own stream, sent
//! before the result. rmcp's stateless transport answers a request that sent anything before its
//! result as `text/event-stream` (each notification an event, the result the last one) instead
//! of one JSON body; a call nobody watches answers JSON as before.

use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RequestContext};

use crate::progress::{Progress, Update};

/// Where a watched call's progress goes: the client's token and the request's peer.
#[derive(Clone)]
pub(super) struct Watch {
    token: ProgressToken,
    peer: Peer<RoleServer>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch").field("token", &self.token).finish()
    }
}

impl Watch {
    /// The watch a request asked for: a progress token, and a stream it can read.
    pub(super) fn of(context: &RequestContext<RoleServer>) -> Option<Watch> {
        let token = context.meta.get_progress_token()?;
        let parts = context.extensions.get::<http::request::Parts>()?;
        accepts_event_stream(&parts.headers).then(|| Watch {
            token,
            peer: context.peer.clone(),
        })
    }

    /// Runs `call` with a sink whose steps become notifications, all sent before this returns
    /// (so before the result).
    pub(super) async fn around<T>(
        watch: Option<&Watch>,
        call: impl AsyncFnOnce(&Progress) -> T,
    ) -> T {
        let Some(watch) = watch else {
            return call(&crate::progress::NONE).await;
        };
        let (progress, mut steps) = Progress::channel();
        let run = async move {
            let answer = call(&progress).await;
            drop(progress);
            answer
        };
        let forward = async {
            while let Some(step) = steps.recv().await {
                // A client gone is the transport's to notice; the call goes on.
                let _ = watch
                    .peer
                    .notify_progress(notification(&watch.token, step))
                    .await;
            }
        };
        let (answer, ()) = tokio::join!(run, forward);
        answer
    }
}

fn notification(token: &ProgressToken, step: Update) -> ProgressNotificationParam {
    let mut param = ProgressNotificationParam::new(token.clone(), step.done);
    if let Some(total) = step.total {
        param = param.with_total(total);
    }
    if !step.message.is_empty() {
        param = param.with_message(step.message);
    }
    param
}

/// Whether an `Accept` header lists `text/event-stream` (with a weight above zero).
fn accepts_event_stream(headers: &http::HeaderMap) -> bool {
    headers
        .get_all(http::header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|range| {
            let mut parts = range.split(';');
            let essence = parts.next().unwrap_or("").trim();
            let refused = parts.any(|p| {
                p.split_once('=').is_some_and(|(k, v)| {
                    k.trim().eq_ignore_ascii_case("q")
                        && v.trim().parse::<f32>().is_ok_and(|q| q <= 0.0)
                })
            });
            essence.eq_ignore_ascii_case("text/event-stream") && !refused
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> http::HeaderMap {
        let mut h = http::HeaderMap::new();
        h.insert(http::header::ACCEPT, value.parse().unwrap());
        h
    }

    #[test]
    fn only_a_client_that_takes_an_event_stream_is_watched() {
        assert!(accepts_event_stream(&accept(
            "application/json, text/event-stream"
        )));
        assert!(accepts_event_stream(&accept("Text/Event-Stream;q=0.5")));
        assert!(!accepts_event_stream(&accept("application/json")));
        assert!(!accepts_event_stream(&accept(
            "application/json, text/event-stream;q=0"
        )));
        assert!(!accepts_event_stream(&http::HeaderMap::new()));
    }

    #[test]
    fn a_step_becomes_the_notification_of_the_clients_token() {
        let token = ProgressToken(rmcp::model::NumberOrString::Number(7));
        let n = notification(
            &token,
            Update {
                done: 2.0,
                total: Some(5.0),
                message: "Read page 2.".into(),
            },
        );
        let json = serde_json::to_value(&n).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"progressToken": 7, "progress": 2.0, "total": 5.0, "message": "Read page 2."})
        );
        let bare = notification(
            &token,
            Update {
                done: 1.0,
                total: None,
                message: String::new(),
            },
        );
        assert_eq!(
            serde_json::to_value(&bare).unwrap(),
            serde_json::json!({"progressToken": 7, "progress": 1.0})
        );
    }
}
