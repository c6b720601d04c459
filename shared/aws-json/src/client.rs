//! [`AwsJson`]: one service's signed JSON calls. Each attempt signs anew (SigV4 with the
//! credentials of `aws-config`'s chain, kept until five minutes before they expire); throttling
//! and server faults are tried again after a doubling wait, up to [`Retry::attempts`] in all.

use std::time::{Duration, SystemTime};

use aws_config::SdkConfig;
use aws_credential_types::Credentials;
use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use serde_json::Value;
use tokio::sync::Mutex;

use crate::error::{AwsError, refusal, retryable};
use crate::service::{Service, endpoint};

/// How often and how patiently a call is tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Attempts in all, the first included (at least one).
    pub attempts: u32,
    /// The wait before the second attempt; it doubles after each.
    pub first_wait: Duration,
}

impl Default for Retry {
    /// What the SDKs' standard mode does: three attempts.
    fn default() -> Self {
        Retry {
            attempts: 3,
            first_wait: Duration::from_millis(200),
        }
    }
}

/// Credentials are fetched again this long before they expire.
const REFRESH_BEFORE: Duration = Duration::from_secs(300);

/// Signed JSON calls to one service in one region.
#[derive(Debug)]
pub struct AwsJson {
    http: reqwest::Client,
    service: Service,
    region: String,
    endpoint: String,
    credentials: SharedCredentialsProvider,
    cached: Mutex<Option<Credentials>>,
    retry: Retry,
}

impl AwsJson {
    /// A client of `service` with the region, credentials and endpoint `sdk` was loaded with
    /// (`env` is read for the service's own endpoint variable), over `http`.
    pub fn new(
        sdk: &SdkConfig,
        service: Service,
        http: reqwest::Client,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<AwsJson, AwsError> {
        let region = sdk
            .region()
            .ok_or_else(|| AwsError::Config("no region (set AWS_REGION)".into()))?
            .to_string();
        let credentials = sdk
            .credentials_provider()
            .ok_or_else(|| AwsError::Config("no credentials provider".into()))?;
        Ok(AwsJson {
            http,
            endpoint: endpoint(service, &region, sdk.endpoint_url(), env),
            service,
            region,
            credentials,
            cached: Mutex::new(None),
            retry: Retry::default(),
        })
    }

    /// The same client trying as `retry` says.
    pub fn with_retry(mut self, retry: Retry) -> AwsJson {
        self.retry = retry;
        self
    }

    /// Where requests go (without a trailing `/`).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// An `awsJson1.1` operation: `POST /` with `X-Amz-Target: <prefix>.<operation>`.
    pub async fn json11(
        &self,
        target_prefix: &str,
        operation: &str,
        input: &Value,
    ) -> Result<Value, AwsError> {
        let target = format!("{target_prefix}.{operation}");
        let headers = [
            ("content-type", "application/x-amz-json-1.1"),
            ("x-amz-target", target.as_str()),
        ];
        self.call(operation, http::Method::POST, "/", &headers, input)
            .await
    }

    /// A REST-JSON operation: `method` on `path` with `input` as the JSON body.
    pub async fn rest(
        &self,
        operation: &str,
        method: http::Method,
        path: &str,
        input: &Value,
    ) -> Result<Value, AwsError> {
        let headers = [("content-type", "application/json")];
        self.call(operation, method, path, &headers, input).await
    }

    async fn call(
        &self,
        operation: &str,
        method: http::Method,
        path: &str,
        headers: &[(&str, &str)],
        input: &Value,
    ) -> Result<Value, AwsError> {
        let body = serde_json::to_vec(input).map_err(|e| transport(operation, &e))?;
        let url = format!("{}{path}", self.endpoint);
        let mut wait = self.retry.first_wait;
        let mut attempt = 1;
        loop {
            match self.attempt(operation, &method, &url, headers, &body).await {
                Err(e) if attempt < self.retry.attempts && worth_again(&e) => {
                    tokio::time::sleep(wait).await;
                    wait = wait.saturating_mul(2);
                    attempt += 1;
                }
                done => return done,
            }
        }
    }

    async fn attempt(
        &self,
        operation: &str,
        method: &http::Method,
        url: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Value, AwsError> {
        let signed = self.sign(method, url, headers, body).await?;
        let mut request = self.http.request(method.clone(), url).body(body.to_vec());
        for (name, value) in headers.iter().copied().chain(signed.iter().map(pair)) {
            request = request.header(name, value);
        }
        let response = request.send().await.map_err(|e| transport(operation, &e))?;
        let status = response.status().as_u16();
        let error_type = response
            .headers()
            .get("x-amzn-errortype")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let bytes = response
            .bytes()
            .await
            .map_err(|e| transport(operation, &e))?;
        if !(200..300).contains(&status) {
            let (code, message) = refusal(status, error_type.as_deref(), &bytes);
            let operation = operation.to_string();
            return Err(AwsError::Api {
                operation,
                status,
                code,
                message,
            });
        }
        if bytes.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&bytes).map_err(|e| transport(operation, &e))
    }

    /// The SigV4 headers of one request.
    async fn sign(
        &self,
        method: &http::Method,
        url: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Vec<(String, String)>, AwsError> {
        let identity = self.credentials().await?.into();
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name(self.service.signing_name)
            .time(SystemTime::now())
            .settings(SigningSettings::default())
            .build()
            .map_err(|e| AwsError::Config(e.to_string()))?
            .into();
        let request = SignableRequest::new(
            method.as_str(),
            url,
            headers.iter().copied(),
            SignableBody::Bytes(body),
        )
        .map_err(|e| AwsError::Config(format!("cannot sign {url}: {e}")))?;
        let (instructions, _) = sign(request, &params)
            .map_err(|e| AwsError::Config(format!("cannot sign {url}: {e}")))?
            .into_parts();
        Ok(instructions
            .headers()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect())
    }

    /// The chain's credentials, fetched again when they are about to expire.
    async fn credentials(&self) -> Result<Credentials, AwsError> {
        let mut cached = self.cached.lock().await;
        let fresh = cached.as_ref().is_some_and(|c| {
            c.expiry()
                .is_none_or(|at| at > SystemTime::now() + REFRESH_BEFORE)
        });
        if !fresh {
            let got = self
                .credentials
                .provide_credentials()
                .await
                .map_err(|e| AwsError::Config(format!("no credentials: {e}")))?;
            *cached = Some(got);
        }
        Ok(cached.clone().expect("set above"))
    }
}

fn pair((name, value): &(String, String)) -> (&str, &str) {
    (name, value)
}

/// Throttling, a service fault, or no answer at all.
fn worth_again(e: &AwsError) -> bool {
    match e {
        AwsError::Api { status, code, .. } => retryable(*status, code),
        AwsError::Transport { .. } => true,
        AwsError::Config(_) => false,
    }
}

fn transport(operation: &str, e: &dyn std::error::Error) -> AwsError {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message = format!("{message}: {s}");
        source = s.source();
    }
    AwsError::Transport {
        operation: operation.to_string(),
        message,
    }
}
