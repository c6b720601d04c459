//! The quiet-period probe: when a connector's window has had no quota figure for its catalog's
//! `quota.probe.quiet_hours`, quota-alarm sends the declared cheap GET itself, with the
//! connector's credentials from the deployment secret (Secrets Manager), and reads the quota
//! figures of the answer: its headers, and its JSON body where `quota.body` declares figures
//! there (read up to [`MAX_PROBE_BODY`]).
//!
//! The probe leaves one audit line (`event: quota_probe`, tool [`PROBE_TOOL`], the quota
//! figures) on stdout, which is the function's own log group; infra has the function query that
//! group too, so the next runs see the figure and do not probe again until the connector has
//! been quiet for `quiet_hours` once more. Each probe costs quota, which is why it waits.
//!
//! A failed probe (no secret, credentials rejected, timeout, no remaining figure) leaves the
//! connector as the logs alone make it, `unknown` when they have nothing, and says why.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::time::{Duration, Instant};

use audit::{AuditEvent, EventKind, Level};
use catalog::{Auth, Catalog, CredentialError, Quota, QuotaFigures};
use jiff::{SignedDuration, Timestamp};

use crate::usage::UsageRow;

/// The `tool` of probe audit lines, so the usage query groups them like any caller's calls.
pub const PROBE_TOOL: &str = "quota_probe";

/// One connector's probe, from its catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeSpec {
    pub connector: String,
    /// The catalog's base URL template (`{field}` placeholders filled from the secret).
    pub base_url: String,
    pub path: String,
    pub auth: Auth,
    /// The catalog's static headers (a probe is no tool: the connector's only).
    pub headers: Vec<(String, String)>,
    pub quota: Quota,
    /// How long the window must have gone without a figure before a probe is sent.
    pub quiet: SignedDuration,
    pub timeout: Duration,
}

impl ProbeSpec {
    /// The probe a catalog declares, if any.
    pub fn from_catalog(c: &Catalog) -> Option<Self> {
        let quota = c.quota.as_ref()?;
        let probe = quota.probe.as_ref()?;
        Some(ProbeSpec {
            connector: c.connector.to_string(),
            base_url: c.base_url.to_string(),
            path: probe.get.to_string(),
            auth: c.auth.clone(),
            headers: c
                .static_headers(None)
                .into_iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            quota: quota.clone(),
            quiet: SignedDuration::from_hours(i64::from(probe.quiet_hours)),
            timeout: Duration::from_millis(c.timeout_ms),
        })
    }

    /// Whether to probe at `now`, the latest figure in the window having been seen at
    /// `last_figure` (`None`: none at all).
    pub fn due(&self, last_figure: Option<Timestamp>, now: Timestamp) -> bool {
        last_figure.is_none_or(|t| now.duration_since(t) >= self.quiet)
    }
}

/// The probes of all catalogs, by connector.
pub fn specs(catalogs: &[Catalog]) -> BTreeMap<String, ProbeSpec> {
    catalogs
        .iter()
        .filter_map(ProbeSpec::from_catalog)
        .map(|s| (s.connector.clone(), s))
        .collect()
}

/// Connector credentials from the deployment secret: `connectors.<connector>.<field>`. The
/// API keys and the pepper are not kept.
#[derive(Default, Clone)]
pub struct Credentials(HashMap<String, HashMap<String, String>>);

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials(<redacted>)")
    }
}

impl Credentials {
    /// Reads the secret's JSON, checked as the server checks it ([`connector::parse`]): a secret
    /// the server would refuse is refused here too. Only the `connectors` object is kept. The
    /// error never repeats the text (it is a secret).
    pub fn from_secret_json(text: &str) -> Result<Self, ProbeError> {
        let secret = connector::parse(text)
            .map_err(|e| ProbeError::Secret(format!("the secret is unusable: {e}")))?;
        Ok(Credentials(secret.connectors))
    }

    pub fn field(&self, connector: &str, field: &str) -> Option<String> {
        self.0.get(connector)?.get(field).cloned()
    }
}

/// Why a probe gave no figure. Messages name secret fields, never values or URLs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbeError {
    #[error("no deployment secret configured (QUOTA_SECRET_ID is unset)")]
    NoSecret,
    #[error("reading the deployment secret failed: {0}")]
    Secret(String),
    #[error("the deployment secret lacks a usable connectors.{connector}.{field}")]
    Credential { connector: String, field: String },
    #[error(
        "the upstream rejected the credentials (HTTP {status}); check connectors.{connector} in the deployment secret"
    )]
    Rejected { connector: String, status: u16 },
    #[error("no answer within {0} ms")]
    Timeout(u128),
    #[error("the upstream is unreachable")]
    Unreachable,
    #[error("HTTP {status} carried no remaining figure (the {figure})")]
    NoFigure { status: u16, figure: String },
}

impl ProbeError {
    /// A short code for the audit line's `reason`.
    pub fn code(&self) -> &'static str {
        match self {
            ProbeError::NoSecret => "no_secret",
            ProbeError::Secret(_) => "secret_unreadable",
            ProbeError::Credential { .. } => "credential_missing",
            ProbeError::Rejected { .. } => "unauthorized",
            ProbeError::Timeout(_) => "timeout",
            ProbeError::Unreachable => "unreachable",
            ProbeError::NoFigure { .. } => "no_quota_figure",
        }
    }

    fn credential(connector: &str, e: &CredentialError) -> Self {
        ProbeError::Credential {
            connector: connector.to_string(),
            field: e.field().to_string(),
        }
    }
}

/// What the upstream answered a probe with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub http_status: u16,
    pub figures: QuotaFigures,
}

/// Sends probes (HTTP in production, a fake in unit tests).
pub trait Prober {
    /// The connector credentials, read once per run that probes at all.
    fn credentials(&self) -> impl Future<Output = Result<Credentials, ProbeError>> + Send;
    /// One probe request.
    fn probe(
        &self,
        spec: &ProbeSpec,
        credentials: &Credentials,
    ) -> impl Future<Output = Result<Answer, ProbeError>> + Send;
}

/// The probe's HTTP client: the server's ([`connector::http_client`]: compiled-in roots, never
/// a redirect, 5 s to connect) with quota-alarm's user agent.
pub fn http_client() -> reqwest::Client {
    connector::http_client(concat!(
        "hosted-mcp-quota-alarm/",
        env!("CARGO_PKG_VERSION")
    ))
}

/// Probes over HTTP with the secret from Secrets Manager.
#[derive(Debug, Clone)]
pub struct HttpProber {
    pub http: reqwest::Client,
    /// The Secrets Manager client and secret id; `None` when no secret is configured.
    pub secret: Option<(aws_sdk_secretsmanager::Client, String)>,
    /// Base URLs replacing the catalog's, by connector (a sandbox upstream in tests).
    pub base_urls: BTreeMap<String, String>,
}

impl Prober for HttpProber {
    async fn credentials(&self) -> Result<Credentials, ProbeError> {
        let Some((client, id)) = &self.secret else {
            return Err(ProbeError::NoSecret);
        };
        let out = client
            .get_secret_value()
            .secret_id(id)
            .send()
            .await
            .map_err(|e| {
                let code = aws_sdk_secretsmanager::error::ProvideErrorMetadata::code(&e)
                    .unwrap_or("no answer")
                    .to_string();
                ProbeError::Secret(code)
            })?;
        let text = out
            .secret_string()
            .ok_or_else(|| ProbeError::Secret("the secret has no SecretString".into()))?;
        Credentials::from_secret_json(text)
    }

    async fn probe(
        &self,
        spec: &ProbeSpec,
        credentials: &Credentials,
    ) -> Result<Answer, ProbeError> {
        let field = |name: &str| credentials.field(&spec.connector, name);
        let bad = |e: CredentialError| ProbeError::credential(&spec.connector, &e);
        let base = self
            .base_urls
            .get(&spec.connector)
            .unwrap_or(&spec.base_url);
        let url = connector::url(base, &spec.path, field).map_err(bad)?;
        let request = self.http.get(url).timeout(spec.timeout);
        let request = connector::authenticate(request, &spec.auth, field).map_err(bad)?;
        let headers = spec.headers.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        let request = connector::with_headers(request, headers);
        // The error's text may hold the URL, whose host carries a secret field: not kept.
        let response = request.send().await.map_err(|e| {
            if e.is_timeout() {
                ProbeError::Timeout(spec.timeout.as_millis())
            } else {
                ProbeError::Unreachable
            }
        })?;
        let http_status = response.status().as_u16();
        // Rejected credentials fail the probe even when the answer carries quota headers: ops
        // must fix the secret, and the figures of an unauthenticated answer are not trusted.
        if matches!(http_status, 401 | 403) {
            return Err(ProbeError::Rejected {
                connector: spec.connector.clone(),
                status: http_status,
            });
        }
        let mut figures = connector::quota_figures(&spec.quota, response.headers());
        if spec.quota.body.is_some()
            && (200..300).contains(&http_status)
            && let Some(body) = json_body(response).await
        {
            figures = spec.quota.with_body(figures, &body);
        }
        if figures.remaining.is_some() {
            return Ok(Answer {
                http_status,
                figures,
            });
        }
        Err(ProbeError::NoFigure {
            status: http_status,
            figure: spec.quota.remaining_source(),
        })
    }
}

/// The largest probe answer read for body figures: an account document is a few KiB.
pub const MAX_PROBE_BODY: usize = 1024 * 1024;

/// The answer's JSON body, when it is JSON and no larger than [`MAX_PROBE_BODY`] (read within
/// the probe's timeout); anything else is no body to read figures from.
async fn json_body(mut response: reqwest::Response) -> Option<serde_json::Value> {
    if response
        .content_length()
        .is_some_and(|n| n > MAX_PROBE_BODY as u64)
    {
        return None;
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.ok()? {
        if body.len() + chunk.len() > MAX_PROBE_BODY {
            return None;
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).ok()
}

/// One probe's outcome: the usage row it adds (on success) and its audit line.
#[derive(Debug, Clone)]
pub struct Probed {
    pub connector: String,
    pub result: Result<Answer, ProbeError>,
    pub row: Option<UsageRow>,
    pub audit: AuditEvent,
}

/// Runs `spec`'s probe at `now` and describes it.
pub async fn run<P: Prober>(
    prober: &P,
    spec: &ProbeSpec,
    credentials: &Result<Credentials, ProbeError>,
    now: Timestamp,
) -> Probed {
    let started = Instant::now();
    let result = match credentials {
        Ok(c) => prober.probe(spec, c).await,
        Err(e) => Err(e.clone()),
    };
    let mut audit = AuditEvent::new(EventKind::QuotaProbe)
        .at(now)
        .tool(PROBE_TOOL)
        .connector(&spec.connector)
        .duration(started.elapsed());
    let row = match &result {
        Ok(answer) => {
            audit = audit.status("ok").http_status(answer.http_status);
            let f = answer.figures;
            audit.quota_remaining = f.remaining;
            audit.quota_consumed = f.consumed;
            audit.quota_limit = f.limit;
            Some(UsageRow {
                connector: spec.connector.clone(),
                tool: Some(PROBE_TOOL.to_string()),
                calls: 1,
                consumed: f.consumed,
                remaining: f.remaining,
                limit: f.limit,
                // The time as the audit line has it (milliseconds), so the next run, reading
                // the line back, sees the same figure at the same time.
                last_seen: Some(audit.ts.parse().unwrap_or(now)),
            })
        }
        Err(e) => {
            audit = audit
                .status("unavailable")
                .reason(e.code())
                .level(Level::Warn);
            if let ProbeError::Rejected { status, .. } | ProbeError::NoFigure { status, .. } = e {
                audit = audit.http_status(*status);
            }
            None
        }
    };
    Probed {
        connector: spec.connector.clone(),
        result,
        row,
        audit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ProbeSpec {
        let c = catalog::parse(
            "demo.yaml",
            "connector: demo\nbase_url: \"https://{host}/api\"\nsecrets: [host, token]\n\
             auth: { bearer: token }\nquota: { remaining: x-left, consumed: x-cost, limit: 100, \
             window: { day: UTC }, probe: { get: /info, quiet_hours: 2 } }\ntools:\n  - name: \
             demo_info_get\n    risk: low\n    description: Info.\n    get: /info\n",
        )
        .unwrap();
        ProbeSpec::from_catalog(&c).unwrap()
    }

    #[test]
    fn a_probe_is_due_after_the_quiet_hours_or_without_any_figure() {
        let s = spec();
        let now: Timestamp = "2026-05-20T10:00:00Z".parse().unwrap();
        assert!(s.due(None, now));
        assert!(s.due(Some("2026-05-20T08:00:00Z".parse().unwrap()), now));
        assert!(!s.due(Some("2026-05-20T08:00:01Z".parse().unwrap()), now));
        assert_eq!(s.path, "/info");
        assert_eq!(s.timeout, Duration::from_secs(10));
    }

    #[test]
    fn credentials_come_from_the_connectors_object_and_errors_keep_the_secret_out() {
        let c = Credentials::from_secret_json(
            r#"{"api_keys": {"a": "k-0123456789abcdef"}, "connectors": {"demo": {"host": "h.test", "token": "t-1"}}}"#,
        )
        .unwrap();
        assert_eq!(c.field("demo", "token").as_deref(), Some("t-1"));
        assert_eq!(c.field("demo", "n"), None);
        assert_eq!(c.field("other", "token"), None);
        assert!(!format!("{c:?}").contains("t-1"));
        for text in [
            "token=supersecret",
            r#"{"connectors": "supersecret"}"#,
            r#"{"connectors": {"demo": {"token": "supersecret", "n": 5}}}"#,
            r#"{"api_keys": {"a": "supersecret"}}"#,
            r#"{"pseudonym_pepper": "supersecret"}"#,
        ] {
            let err = Credentials::from_secret_json(text).unwrap_err();
            assert!(matches!(err, ProbeError::Secret(_)), "{err:?}");
            assert_eq!(err.code(), "secret_unreadable");
            assert!(!err.to_string().contains("supersecret"), "{err}");
        }
        let empty = Credentials::from_secret_json("{}").unwrap();
        assert_eq!(empty.field("demo", "token"), None);
    }

    struct Fixed(Result<Answer, ProbeError>);

    impl Prober for Fixed {
        async fn credentials(&self) -> Result<Credentials, ProbeError> {
            Ok(Credentials::default())
        }
        async fn probe(&self, _: &ProbeSpec, _: &Credentials) -> Result<Answer, ProbeError> {
            self.0.clone()
        }
    }

    #[tokio::test]
    async fn a_successful_probe_is_a_usage_row_and_an_audit_line_with_its_figures() {
        let now: Timestamp = "2026-05-20T10:00:00Z".parse().unwrap();
        let figures = QuotaFigures {
            remaining: Some(40),
            consumed: Some(1),
            limit: Some(100),
            reset_s: None,
        };
        let answer = Answer {
            http_status: 200,
            figures,
        };
        let probed = run(
            &Fixed(Ok(answer)),
            &spec(),
            &Ok(Credentials::default()),
            now,
        )
        .await;
        let row = probed.row.unwrap();
        assert_eq!(
            (row.calls, row.remaining, row.consumed),
            (1, Some(40), Some(1))
        );
        assert_eq!(row.last_seen, Some(now));
        let odd = now + jiff::SignedDuration::from_nanos(123_456);
        let probed = run(
            &Fixed(Ok(answer)),
            &spec(),
            &Ok(Credentials::default()),
            odd,
        )
        .await;
        assert_eq!(
            probed.row.unwrap().last_seen,
            Some(now),
            "milliseconds, as audited"
        );
        let line = serde_json::to_value(&probed.audit).unwrap();
        assert_eq!(line["event"], "quota_probe");
        assert_eq!(line["tool"], PROBE_TOOL);
        assert_eq!(line["connector"], "demo");
        assert_eq!(line["quota_remaining"], 40);
        assert_eq!(line["ts"], "2026-05-20T10:00:00.000Z");
    }

    #[tokio::test]
    async fn a_failed_probe_adds_no_row_and_audits_a_short_reason() {
        let now: Timestamp = "2026-05-20T10:00:00Z".parse().unwrap();
        let rejected = ProbeError::Rejected {
            connector: "demo".into(),
            status: 401,
        };
        let probed = run(
            &Fixed(Err(rejected)),
            &spec(),
            &Ok(Credentials::default()),
            now,
        )
        .await;
        assert!(probed.row.is_none());
        let line = serde_json::to_value(&probed.audit).unwrap();
        assert_eq!(line["reason"], "unauthorized");
        assert_eq!(line["http_status"], 401);
        assert_eq!(line["level"], "warn");
        assert!(line.get("quota_remaining").is_none());
        let no_secret = run(
            &Fixed(Ok(Answer {
                http_status: 200,
                figures: QuotaFigures::default(),
            })),
            &spec(),
            &Err(ProbeError::NoSecret),
            now,
        )
        .await;
        assert_eq!(no_secret.result, Err(ProbeError::NoSecret));
    }
}
