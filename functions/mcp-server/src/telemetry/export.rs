//! The OTLP exporter's HTTP client: opentelemetry-http's [`HttpClient`] over the reqwest client
//! the server already has, so traces bring no second HTTP stack. The SDK's batch processor
//! exports from a thread of its own, outside the Tokio runtime reqwest needs: each export is
//! spawned onto the server's runtime and awaited from there.

use std::time::Duration;

use bytes::Bytes;
use opentelemetry_http::{HttpClient, HttpError, Request, Response};

/// One export may take this long (the collector is on the same host on Lambda).
const TIMEOUT: Duration = Duration::from_secs(5);
/// The collector answers a few bytes; more than this is refused rather than read.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// Sends the exporter's requests with `client` on `runtime`.
#[derive(Debug)]
pub(super) struct Exporter {
    pub(super) client: reqwest::Client,
    pub(super) runtime: tokio::runtime::Handle,
}

#[async_trait::async_trait]
impl HttpClient for Exporter {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let client = self.client.clone();
        self.runtime
            .spawn(async move { send(&client, request).await })
            .await?
    }
}

/// One request, its answer read whole (bounded).
async fn send(
    client: &reqwest::Client,
    request: Request<Bytes>,
) -> Result<Response<Bytes>, HttpError> {
    let (parts, body) = request.into_parts();
    let answer = client
        .request(parts.method, parts.uri.to_string())
        .headers(parts.headers)
        .body(body)
        .timeout(TIMEOUT)
        .send()
        .await?;
    if answer
        .content_length()
        .is_some_and(|n| n > MAX_ANSWER_BYTES as u64)
    {
        return Err("the collector's answer is too large".into());
    }
    let status = answer.status();
    let body = answer.bytes().await?;
    Ok(Response::builder().status(status).body(body)?)
}
