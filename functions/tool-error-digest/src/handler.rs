//! The scheduled invocation: resolve the audit log groups, run the digest queries, compose the
//! mail and send it. Anything that goes wrong (no log groups, a failed, cancelled or timed-out
//! query, a failed send) sends a "digest failed" mail when it can and fails the invocation, so
//! the scheduler retries and, after its retries, alarms and the dead-letter queue see it.
//!
//! The AWS calls sit behind the shared [`LogsQuery`] (CloudWatch, polled as [`polling`] says)
//! and [`Mailer`] (`ses.rs`), both built once in `main` from the SDK config (which honours
//! `AWS_ENDPOINT_URL`), so tests can point them at local endpoints or use fakes.

use std::future::Future;
use std::time::Duration;

use insights::cloudwatch::{LogsQuery, Polling, log_groups};
use jiff::Timestamp;
use lambda_runtime::{Diagnostic, LambdaEvent};
use serde_json::{Value, json};

use crate::collect::{self, CollectError, Links, QueryError};
use crate::config::Config;
use crate::digest::State;
use crate::email::{self, Addresses};
use crate::period::Period;

/// How the Lambda polls a query that may run for `query_timeout`: every half second at first,
/// then at most every 5 s; a weekly digest has no hurry, and fewer polls cost fewer API calls.
pub fn polling(query_timeout: Duration) -> Polling {
    Polling {
        first_poll: Duration::from_millis(500),
        max_poll: Duration::from_secs(5),
        timeout: query_timeout,
    }
}

/// A failed `SendEmail` (the SDK's message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("SendEmail failed: {0}")]
pub struct SendError(pub String);

/// Sends raw MIME messages.
pub trait Mailer {
    /// Sends `raw` from `from` to `to`; the provider's message id when it gives one.
    fn send_raw(
        &self,
        from: &str,
        to: &[String],
        raw: &[u8],
    ) -> impl Future<Output = Result<Option<String>, SendError>> + Send;
}

/// What the handler needs from the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub log_groups: Vec<String>,
    pub log_group_prefix: Option<String>,
    pub addresses: Addresses,
    pub links: Links,
    pub send_all_clear: bool,
}

impl Settings {
    pub fn from_config(config: &Config) -> Settings {
        Settings {
            log_groups: config.log_groups.clone(),
            log_group_prefix: config.log_group_prefix.clone(),
            addresses: config.addresses.clone(),
            links: Links {
                dashboard_url: config.dashboard_url.clone(),
                trace_region: config.trace_region.clone(),
            },
            send_all_clear: config.send_all_clear,
        }
    }
}

/// Built once at start, shared by every invocation.
pub struct Deps<Q, M> {
    pub logs: Q,
    pub mail: M,
    pub settings: Settings,
}

#[derive(Debug, thiserror::Error)]
pub enum HandlerError {
    #[error("no audit log groups to query: none configured, and prefix `{0}` matched none")]
    NoLogGroups(String),
    #[error("listing the audit log groups failed: {0}")]
    ListGroups(#[source] QueryError),
    #[error(transparent)]
    Query(#[from] CollectError),
    #[error("sending the digest failed: {0}")]
    Send(#[source] SendError),
}

impl From<HandlerError> for Diagnostic {
    fn from(e: HandlerError) -> Self {
        let error_type = match &e {
            HandlerError::NoLogGroups(_) => "ToolErrorDigest.NoLogGroups",
            HandlerError::ListGroups(_) => "ToolErrorDigest.ListLogGroupsFailed",
            HandlerError::Query(c) => match &c.source {
                QueryError::Deadline { .. } => "ToolErrorDigest.QueryDeadline",
                QueryError::Ended { status, .. } if status == "Timeout" => {
                    "ToolErrorDigest.QueryTimeout"
                }
                QueryError::Ended { status, .. } if status == "Cancelled" => {
                    "ToolErrorDigest.QueryCancelled"
                }
                _ => "ToolErrorDigest.QueryFailed",
            },
            HandlerError::Send(_) => "ToolErrorDigest.SendFailed",
        };
        Diagnostic {
            error_type: error_type.into(),
            error_message: e.to_string(),
        }
    }
}

/// What one run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub subject: String,
    pub state: State,
    /// False when an all-clear digest was not sent because all-clear mails are off.
    pub sent: bool,
    pub message_id: Option<String>,
    pub log_groups: usize,
}

impl Outcome {
    /// The invocation's response.
    pub fn to_json(&self) -> Value {
        json!({
            "subject": self.subject,
            "state": format!("{:?}", self.state),
            "sent": self.sent,
            "message_id": self.message_id,
            "log_groups": self.log_groups,
        })
    }
}

/// The Lambda entry: the scheduler's event time (an EventBridge `time`, or the scheduler's
/// `<aws.scheduler.scheduled-time>` passed as `time`) picks the week, so a retry on a later day
/// still reports the same week; without one, the current time.
pub async fn lambda<Q: LogsQuery, M: Mailer>(
    deps: &Deps<Q, M>,
    event: LambdaEvent<Value>,
) -> Result<Value, HandlerError> {
    let now = scheduled_time(&event.payload).unwrap_or_else(Timestamp::now);
    handle(deps, now).await.map(|o| o.to_json())
}

/// The event's `time`, if it is an RFC 3339 timestamp.
pub fn scheduled_time(payload: &Value) -> Option<Timestamp> {
    payload.get("time")?.as_str()?.parse().ok()
}

/// One digest run for the week before `now`.
pub async fn handle<Q: LogsQuery, M: Mailer>(
    deps: &Deps<Q, M>,
    now: Timestamp,
) -> Result<Outcome, HandlerError> {
    match run(deps, now).await {
        Ok(outcome) => Ok(outcome),
        Err(e) => {
            tracing::error!(error = %e, "tool error digest failed");
            let to = &deps.settings.addresses;
            let notice = email::compose_failure(&Period::week_before(now), &e.to_string(), to, now);
            match deps
                .mail
                .send_raw(&to.sender, &to.recipients, notice.raw.as_bytes())
                .await
            {
                Ok(id) => tracing::info!(message_id = ?id, "digest-failed mail sent"),
                Err(send) => {
                    tracing::error!(error = %send, "the digest-failed mail could not be sent either");
                }
            }
            Err(e)
        }
    }
}

async fn run<Q: LogsQuery, M: Mailer>(
    deps: &Deps<Q, M>,
    now: Timestamp,
) -> Result<Outcome, HandlerError> {
    let settings = &deps.settings;
    let groups = log_groups(
        &deps.logs,
        &settings.log_groups,
        settings.log_group_prefix.as_deref(),
    )
    .await
    .map_err(HandlerError::ListGroups)?;
    if groups.is_empty() {
        let prefix = settings.log_group_prefix.clone().unwrap_or_default();
        return Err(HandlerError::NoLogGroups(prefix));
    }

    let digest = collect::collect(&deps.logs, &groups, now, settings.links.clone()).await?;
    let mail = email::compose(&digest, &settings.addresses, now);
    let mut outcome = Outcome {
        subject: mail.subject.clone(),
        state: digest.state(),
        sent: false,
        message_id: None,
        log_groups: groups.len(),
    };
    if !digest.should_send(settings.send_all_clear) {
        tracing::info!(subject = %mail.subject, "all clear; all-clear mails are off, nothing sent");
        return Ok(outcome);
    }
    let to = &settings.addresses;
    outcome.message_id = deps
        .mail
        .send_raw(&to.sender, &to.recipients, mail.raw.as_bytes())
        .await
        .map_err(HandlerError::Send)?;
    outcome.sent = true;
    tracing::info!(subject = %mail.subject, message_id = ?outcome.message_id, "digest sent");
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;
    use crate::mime::tests::{decode_header_text, parse};
    use crate::rows::FieldRow;
    use insights::{LocalInsights, TimeRange};
    use std::sync::Mutex;

    /// The local engine over the fixture (as log group `/aws/lambda/mcp-a`), failing queries
    /// whose text contains `fail_on`.
    struct FakeLogs {
        engine: LocalInsights,
        fail_on: Option<(&'static str, QueryError)>,
        prefixed: Vec<String>,
        asked_groups: Mutex<Vec<Vec<String>>>,
    }

    impl LogsQuery for FakeLogs {
        async fn rows(
            &self,
            groups: &[String],
            range: TimeRange,
            query: &str,
        ) -> Result<Vec<FieldRow>, QueryError> {
            self.asked_groups.lock().unwrap().push(groups.to_vec());
            if let Some((marker, error)) = &self.fail_on
                && query.contains(marker)
            {
                return Err(error.clone());
            }
            self.engine.rows(groups, range, query).await
        }

        async fn groups_with_prefix(&self, _prefix: &str) -> Result<Vec<String>, QueryError> {
            Ok(self.prefixed.clone())
        }
    }

    #[derive(Default)]
    struct FakeMail {
        /// Fail sends whose raw message contains this.
        fail_on: Option<&'static str>,
        sent: Mutex<Vec<(String, Vec<String>, String)>>,
    }

    impl Mailer for FakeMail {
        async fn send_raw(
            &self,
            from: &str,
            to: &[String],
            raw: &[u8],
        ) -> Result<Option<String>, SendError> {
            let raw = String::from_utf8(raw.to_vec()).unwrap();
            if self.fail_on.is_some_and(|m| raw.contains(m)) {
                return Err(SendError(
                    "MessageRejected: Email address is not verified".into(),
                ));
            }
            let mut sent = self.sent.lock().unwrap();
            sent.push((from.to_string(), to.to_vec(), raw));
            Ok(Some(format!("msg-{}", sent.len())))
        }
    }

    fn deps(jsonl: &str) -> Deps<FakeLogs, FakeMail> {
        Deps {
            logs: FakeLogs {
                engine: LocalInsights::from_jsonl("/aws/lambda/mcp-a", jsonl),
                fail_on: None,
                prefixed: vec!["/aws/lambda/mcp-b".into(), "/aws/lambda/mcp-a".into()],
                asked_groups: Mutex::new(Vec::new()),
            },
            mail: FakeMail::default(),
            settings: Settings {
                log_groups: vec!["/aws/lambda/mcp-a".into()],
                log_group_prefix: Some("/aws/lambda/mcp-".into()),
                addresses: Addresses {
                    sender: "digest@example.com".into(),
                    recipients: vec!["ops@example.com".into()],
                    subject_prefix: "[prod] ".into(),
                },
                links: Links::default(),
                send_all_clear: true,
            },
        }
    }

    fn now() -> Timestamp {
        fixture::NOW.parse().unwrap()
    }

    fn subject(raw: &str) -> String {
        decode_header_text(parse(raw).header("subject").unwrap())
    }

    #[test]
    fn polls_start_at_half_a_second_and_stay_under_five() {
        let polling = polling(Duration::from_secs(120));
        let waits: Vec<u128> = (0..6).map(|a| polling.backoff(a).as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 5000, 5000]);
        assert_eq!(polling.timeout, Duration::from_secs(120));
    }

    #[tokio::test]
    async fn digest_is_sent_to_the_recipients_over_every_log_group() {
        let d = deps(&fixture::jsonl());
        let outcome = handle(&d, now()).await.unwrap();
        assert_eq!(outcome.subject, "[prod] 7 tools failing, 2 new — week 48");
        assert!(outcome.sent);
        assert_eq!(outcome.message_id.as_deref(), Some("msg-1"));
        assert_eq!(outcome.log_groups, 2);
        let sent = d.mail.sent.lock().unwrap();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].0, "digest@example.com");
        assert_eq!(sent[0].1, ["ops@example.com"]);
        assert_eq!(subject(&sent[0].2), outcome.subject);
        for groups in d.logs.asked_groups.lock().unwrap().iter() {
            assert_eq!(groups, &["/aws/lambda/mcp-a", "/aws/lambda/mcp-b"]);
        }
        assert_eq!(outcome.to_json()["state"], "Failing");
    }

    #[tokio::test]
    async fn a_failed_query_sends_a_failure_mail_and_fails_the_invocation() {
        for (status, error_type) in [
            ("Failed", "ToolErrorDigest.QueryFailed"),
            ("Timeout", "ToolErrorDigest.QueryTimeout"),
            ("Cancelled", "ToolErrorDigest.QueryCancelled"),
        ] {
            let mut d = deps(&fixture::jsonl());
            let error = QueryError::Ended {
                query_id: "q-42".into(),
                status: status.into(),
            };
            d.logs.fail_on = Some(("bin(1d)", error));
            let err = handle(&d, now()).await.unwrap_err();
            let sent = d.mail.sent.lock().unwrap();
            assert_eq!(sent.len(), 1, "only the failure notice");
            assert_eq!(subject(&sent[0].2), "[prod] Digest failed — week 48");
            let body = String::from_utf8(parse(&sent[0].2).decoded()).unwrap();
            assert!(body.contains(&format!("errors-per-day query for 2026-11-23 to 2026-11-29 (UTC) failed: query q-42 ended as {status}")), "{body}");
            let diagnostic = Diagnostic::from(err);
            assert_eq!(diagnostic.error_type, error_type);
        }
    }

    #[tokio::test]
    async fn our_deadline_is_reported_as_its_own_error_type() {
        let mut d = deps(&fixture::jsonl());
        let error = QueryError::Deadline {
            query_id: "q-1".into(),
            seconds: 120,
        };
        d.logs.fail_on = Some(("limit 3", error));
        let err = handle(&d, now()).await.unwrap_err();
        assert!(err.to_string().contains("failing-samples query"), "{err}");
        assert_eq!(
            Diagnostic::from(err).error_type,
            "ToolErrorDigest.QueryDeadline"
        );
        assert_eq!(d.mail.sent.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_send_failure_tries_a_failure_mail_and_fails_the_invocation() {
        let mut d = deps(&fixture::jsonl());
        d.mail.fail_on = Some("multipart/related");
        let err = handle(&d, now()).await.unwrap_err();
        assert!(matches!(err, HandlerError::Send(_)), "{err}");
        let sent = d.mail.sent.lock().unwrap();
        assert_eq!(sent.len(), 1);
        assert_eq!(subject(&sent[0].2), "[prod] Digest failed — week 48");
        let diagnostic = Diagnostic::from(err);
        assert_eq!(diagnostic.error_type, "ToolErrorDigest.SendFailed");
        assert!(diagnostic.error_message.contains("MessageRejected"));
    }

    #[tokio::test]
    async fn when_even_the_failure_mail_fails_the_error_still_comes_back() {
        let mut d = deps(&fixture::jsonl());
        d.mail.fail_on = Some("MIME-Version");
        let err = handle(&d, now()).await.unwrap_err();
        assert!(matches!(err, HandlerError::Send(_)));
        assert!(d.mail.sent.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn all_clear_is_sent_unless_turned_off() {
        // Refusals alone make a clean week worth a mail (see the test below): none here.
        let clean: String = fixture::lines()
            .into_iter()
            .filter(|l| !l.contains("\"tool_error\"") && !l.contains("\"rate_limited\""))
            .map(|l| l + "\n")
            .collect();
        let d = deps(&clean);
        let outcome = handle(&d, now()).await.unwrap();
        assert_eq!(outcome.subject, "[prod] All clear — week 48");
        assert!(outcome.sent);

        let mut d = deps(&clean);
        d.settings.send_all_clear = false;
        let outcome = handle(&d, now()).await.unwrap();
        assert!(!outcome.sent);
        assert!(d.mail.sent.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn the_sent_digest_lists_limits_hit_from_the_limits_hit_query() {
        let d = deps(&fixture::jsonl());
        handle(&d, now()).await.unwrap();
        let sent = d.mail.sent.lock().unwrap();
        let root = parse(&sent[0].2);
        let alt = root.children()[0].children();
        let text = String::from_utf8(alt[0].decoded()).unwrap();
        assert!(text.contains("LIMITS HIT"), "{text}");
        assert!(
            text.contains("caller  u_5e0c5b7d1a2f9c3e        7\r\n"),
            "{text}"
        );
        let html = String::from_utf8(alt[1].decoded()).unwrap();
        assert!(html.contains(">Limits hit</div>"));
        // The query ran over every log group, like the others.
        let asked = d.logs.asked_groups.lock().unwrap();
        assert!(
            asked
                .iter()
                .all(|g| g == &["/aws/lambda/mcp-a", "/aws/lambda/mcp-b"])
        );
    }

    #[tokio::test]
    async fn a_clean_week_with_limits_hit_is_sent_even_with_all_clear_mails_off() {
        let clean: String = fixture::lines()
            .into_iter()
            .filter(|l| !l.contains("\"tool_error\""))
            .map(|l| l + "\n")
            .collect();
        let mut d = deps(&clean);
        d.settings.send_all_clear = false;
        let outcome = handle(&d, now()).await.unwrap();
        assert_eq!(outcome.subject, "[prod] All clear — week 48");
        assert!(outcome.sent);
    }

    #[tokio::test]
    async fn the_sent_digest_lists_writes_from_the_writes_query() {
        let d = deps(&fixture::jsonl());
        handle(&d, now()).await.unwrap();
        let sent = d.mail.sent.lock().unwrap();
        let root = parse(&sent[0].2);
        let alt = root.children()[0].children();
        let text = String::from_utf8(alt[0].decoded()).unwrap();
        assert!(
            text.contains("\r\npapierkram_invoice_cancel      9         2         2      3         1         0        1\r\n"),
            "{text}"
        );
        assert!(
            text.contains("Check: 1 write has an unknown outcome"),
            "{text}"
        );
        let html = String::from_utf8(alt[1].decoded()).unwrap();
        assert!(html.contains(">Writes</div>"));
    }

    #[tokio::test]
    async fn a_failed_writes_query_fails_the_run_naming_it() {
        let mut d = deps(&fixture::jsonl());
        let error = QueryError::Ended {
            query_id: "q-8".into(),
            status: "Failed".into(),
        };
        d.logs.fail_on = Some(("ispresent(dry_run)", error));
        let err = handle(&d, now()).await.unwrap_err();
        assert!(
            err.to_string().starts_with("writes query for 2026-11-23"),
            "{err}"
        );
        assert_eq!(d.mail.sent.lock().unwrap().len(), 1, "the failure notice");
    }

    #[tokio::test]
    async fn a_failed_limits_query_fails_the_run_naming_it() {
        let mut d = deps(&fixture::jsonl());
        let error = QueryError::Ended {
            query_id: "q-7".into(),
            status: "Failed".into(),
        };
        d.logs.fail_on = Some(("\"rate_limited\"", error));
        let err = handle(&d, now()).await.unwrap_err();
        assert!(
            err.to_string()
                .starts_with("limits-hit query for 2026-11-23"),
            "{err}"
        );
        assert_eq!(d.mail.sent.lock().unwrap().len(), 1, "the failure notice");
    }

    #[tokio::test]
    async fn no_log_groups_at_all_fails_with_a_notice() {
        let mut d = deps(&fixture::jsonl());
        d.settings.log_groups.clear();
        d.logs.prefixed.clear();
        let err = handle(&d, now()).await.unwrap_err();
        assert_eq!(
            Diagnostic::from(err).error_type,
            "ToolErrorDigest.NoLogGroups"
        );
        assert_eq!(d.mail.sent.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn the_event_time_picks_the_week() {
        let event = json!({"time": "2026-12-01T09:30:00Z", "detail-type": "Scheduled Event"});
        assert_eq!(
            scheduled_time(&event),
            Some("2026-12-01T09:30:00Z".parse().unwrap())
        );
        assert_eq!(scheduled_time(&json!({})), None);
        assert_eq!(scheduled_time(&json!({"time": "soon"})), None);

        let d = deps(&fixture::jsonl());
        let monday = json!({"time": "2026-11-30T06:00:00Z"});
        let out = lambda(&d, LambdaEvent::new(monday, Default::default()))
            .await
            .unwrap();
        assert_eq!(out["subject"], "[prod] 7 tools failing, 2 new — week 48");
    }
}
