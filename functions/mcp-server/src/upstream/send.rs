//! One HTTP exchange with an upstream: credentials on (the shared `connector::authenticate`), a
//! timeout, the answer read with a size cap and scrubbed of the credentials it carried (`echo`). Headers go no further than this module, except the
//! quota figures the catalog names, `Retry-After` (as seconds) and `Link` (a list's next page).

use std::time::Duration;

use catalog::{Catalog, Method, QuotaFigures};
use reqwest::Url;
use serde_json::Value;
use tracing::Instrument;

use super::credentials::{Credentials, PersonToken};
use super::echo::Carried;
use super::error::UpstreamError;
use super::request::credential_error;
use crate::secrets::SecretValues;

/// One request to send.
#[derive(Debug)]
pub(super) struct Exchange<'a> {
    pub method: Method,
    pub url: Url,
    pub body: Option<&'a Value>,
    /// The catalog's headers for this request (connector's and tool's, params filled).
    pub headers: Vec<(&'a str, std::borrow::Cow<'a, str>)>,
    pub timeout: Duration,
    /// The largest answer body read; a larger one is [`UpstreamError::TooLarge`].
    pub max_bytes: usize,
    /// The `Accept` header instead of JSON's (a tool answering a document).
    pub accept: Option<String>,
    /// The deployment's credentials or a person's token.
    pub credentials: Credentials<'a>,
    /// A document's redirect to its download URL is followed once (`answer.binary.redirect`).
    pub follow: bool,
}

/// What came back, body unread beyond the cap and not yet interpreted.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Received {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    pub quota: Option<QuotaFigures>,
    pub retry_after_s: Option<u64>,
    /// The `Link` header (RFC 8288), for lists paged by it; none when longer than 8 KiB.
    pub link: Option<String>,
}

/// Sends one exchange (`exchanged`) in its `upstream_request` span.
pub(super) async fn send(
    http: &reqwest::Client,
    catalog: &Catalog,
    secrets: &SecretValues,
    exchange: Exchange<'_>,
) -> Result<Received, UpstreamError> {
    let span = tracing::info_span!(
        target: audit::SPAN_TARGET,
        "upstream_request",
        otel.kind = "client",
        connector = catalog.connector.as_str(),
        http.request.method = exchange.method.as_str(),
        http.response.status_code = tracing::field::Empty,
    );
    let received = exchanged(http, catalog, secrets, exchange)
        .instrument(span.clone())
        .await;
    if let Ok(r) = &received {
        span.record("http.response.status_code", r.status);
    }
    received
}

/// Sends one exchange: the request built with its credentials, the answer's headers read, then
/// its body read under the cap and scrubbed of what we sent.
async fn exchanged(
    http: &reqwest::Client,
    catalog: &Catalog,
    secrets: &SecretValues,
    exchange: Exchange<'_>,
) -> Result<Received, UpstreamError> {
    let field = |name: &str| secrets.field(&catalog.connector, name).map(str::to_string);
    let person = match exchange.credentials {
        Credentials::Person { token, .. } => Some(token),
        Credentials::Deployment => None,
    };
    let carried = Carried::of(&catalog.auth, field, person);
    let (timeout, max_bytes) = (exchange.timeout, exchange.max_bytes);
    let document_asked = exchange.accept.is_some();
    let follow = exchange.follow.then(|| exchange.accept.clone()).flatten();
    let request = build(http, catalog, field, person, exchange)?;
    let mut response = http
        .execute(request)
        .await
        .map_err(|e| timed_out(&e, timeout))?;
    if let Some(accept) = follow
        && let Some(download) = download_url(&response)
    {
        let plain = http.get(download).header(reqwest::header::ACCEPT, accept);
        response = plain
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| timed_out(&e, timeout))?;
    }
    let status = response.status().as_u16();
    let head = Head::read(response.headers(), catalog);
    let too_large = UpstreamError::TooLarge {
        limit: max_bytes,
        size: response.content_length(),
        http_status: status,
        quota: head.quota,
    };
    let mut body = read_capped(&mut response, max_bytes, timeout)
        .await?
        .ok_or(too_large)?;
    // A document is the person's own bytes, passed on whole; every other answer is text a
    // model or the audit may read, and must not hold what we sent.
    let document = document_asked && (200..300).contains(&status);
    if !document {
        body = carried.scrub(body);
    }
    Ok(Received {
        status,
        content_type: head.content_type,
        body,
        quota: head.quota,
        retry_after_s: head.retry_after_s,
        link: head.link,
    })
}

/// Where a redirect answer sends a document's download: its `Location`, resolved against the
/// request, when https (http only on loopback). Nothing of ours goes there but the `Accept`.
fn download_url(response: &reqwest::Response) -> Option<Url> {
    if !response.status().is_redirection() {
        return None;
    }
    let location = response.headers().get(reqwest::header::LOCATION)?;
    let url = response.url().join(location.to_str().ok()?).ok()?;
    let loopback = matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
    (url.scheme() == "https" || (url.scheme() == "http" && loopback)).then_some(url)
}

/// The request as it goes out: the catalog's credentials (or the person's token), the static
/// headers, the JSON body and the `Accept` a document asks for.
fn build(
    http: &reqwest::Client,
    catalog: &Catalog,
    field: impl Fn(&str) -> Option<String>,
    person: Option<&PersonToken>,
    exchange: Exchange<'_>,
) -> Result<reqwest::Request, UpstreamError> {
    let method = match exchange.method {
        Method::Get => reqwest::Method::GET,
        Method::Post => reqwest::Method::POST,
        Method::Put => reqwest::Method::PUT,
        Method::Patch => reqwest::Method::PATCH,
        Method::Delete => reqwest::Method::DELETE,
    };
    let mut request = connector::authenticate(
        http.request(method, exchange.url).timeout(exchange.timeout),
        &catalog.auth,
        field,
    )
    .map_err(|e| credential_error(catalog, &e))?;
    if let Some(token) = person {
        // reqwest marks it sensitive: no `Debug` print shows it.
        request = request.bearer_auth(token.secret());
    }
    let headers = exchange.headers.iter().map(|(n, v)| (*n, v.as_ref()));
    request = connector::with_headers(request, headers);
    if let Some(body) = exchange.body {
        // A composed mail message goes up encoded; until here it is the readable object.
        let body = catalog::encoded(body);
        request = request
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
    }
    let mut request = request.build().map_err(|_| UpstreamError::Unreachable)?;
    if catalog.trace_context {
        crate::telemetry::inject(request.headers_mut());
    }
    if let Some(accept) = exchange
        .accept
        .as_deref()
        .and_then(|a| reqwest::header::HeaderValue::from_str(a).ok())
    {
        request
            .headers_mut()
            .insert(reqwest::header::ACCEPT, accept);
    }
    Ok(request)
}

/// A transport failure as the caller sees it: a timeout names its limit, anything else is
/// unreachable.
fn timed_out(e: &reqwest::Error, timeout: Duration) -> UpstreamError {
    if e.is_timeout() {
        UpstreamError::Timeout {
            after_ms: timeout.as_millis() as u64,
        }
    } else {
        UpstreamError::Unreachable
    }
}

/// The answer's headers that go further than this module.
struct Head {
    quota: Option<QuotaFigures>,
    retry_after_s: Option<u64>,
    link: Option<String>,
    content_type: Option<String>,
}

impl Head {
    fn read(headers: &reqwest::header::HeaderMap, catalog: &Catalog) -> Self {
        let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
        Head {
            quota: catalog
                .quota
                .as_ref()
                .map(|q| connector::quota_figures(q, headers)),
            retry_after_s: text(reqwest::header::RETRY_AFTER)
                .and_then(|v| retry_after_seconds(v, jiff::Timestamp::now())),
            link: text(reqwest::header::LINK)
                .filter(|v| v.len() <= MAX_LINK)
                .map(str::to_string),
            // The media type without parameters (`text/plain; charset=utf-8` → `text/plain`),
            // bounded: what a document answer is matched on and what a hint may name.
            content_type: text(reqwest::header::CONTENT_TYPE)
                .map(|v| audit::bounded(&catalog::essence(v), 64)),
        }
    }
}

/// The body, or `None` once it is (or says it will be) longer than `max_bytes`: read no further.
async fn read_capped(
    response: &mut reqwest::Response,
    max_bytes: usize,
    timeout: Duration,
) -> Result<Option<Vec<u8>>, UpstreamError> {
    if response
        .content_length()
        .is_some_and(|n| n > max_bytes as u64)
    {
        return Ok(None);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| timed_out(&e, timeout))? {
        if body.len() + chunk.len() > max_bytes {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

/// The longest `Link` header read; a list's next link is far shorter.
const MAX_LINK: usize = 8 * 1024;

/// `Retry-After` as seconds from `now`: the header is either a number of seconds or an HTTP
/// date (RFC 9110 §10.2.3). A date in the past is 0; anything else is no figure.
pub(super) fn retry_after_seconds(value: &str, now: jiff::Timestamp) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(seconds);
    }
    let at = jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(value)
        .ok()?;
    let seconds = at.duration_since(now).as_secs();
    Some(seconds.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_seconds_whether_sent_as_seconds_or_as_an_http_date() {
        let now: jiff::Timestamp = "2015-10-21T07:27:00Z".parse().unwrap();
        assert_eq!(retry_after_seconds("120", now), Some(120));
        assert_eq!(retry_after_seconds(" 7 ", now), Some(7));
        assert_eq!(
            retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(60)
        );
        assert_eq!(
            retry_after_seconds("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(0)
        );
        assert_eq!(retry_after_seconds("soon", now), None);
        assert_eq!(retry_after_seconds("-5", now), None);
    }
}
