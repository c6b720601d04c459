//! The client's IP: API Gateway's `requestContext.http.sourceIp` on Lambda, the socket's peer
//! locally. `X-Forwarded-For` is trusted only when the peer is a configured trusted proxy
//! (`MCP_TRUSTED_PROXIES`, e.g. CloudFront's ranges in front of API Gateway); then the client is
//! the rightmost address in it that is not a trusted proxy. A forged header from anyone else
//! changes nothing.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, Request};

use crate::limits::cidr::Cidr;

/// The client IP of a request, `None` when neither the gateway nor the socket names one.
pub(crate) fn client_ip(request: &Request, trusted: &[Cidr]) -> Option<IpAddr> {
    let peer = gateway_source_ip(request).or_else(|| {
        request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip())
    })?;
    if !trusted.iter().any(|c| c.contains(peer)) {
        return Some(peer);
    }
    let forwarded = request
        .headers()
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|a| a.trim().parse::<IpAddr>().ok())
        .collect::<Vec<_>>();
    Some(
        forwarded
            .into_iter()
            .rev()
            .find(|ip| !trusted.iter().any(|c| c.contains(*ip)))
            .unwrap_or(peer),
    )
}

fn gateway_source_ip(request: &Request) -> Option<IpAddr> {
    use lambda_http::RequestExt;
    use lambda_http::request::RequestContext;
    match request.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(c)) => c.http.source_ip.as_deref()?.parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    fn request(peer: &str, forwarded: Option<&str>) -> Request {
        let mut r = Request::builder().uri("/mcp");
        if let Some(f) = forwarded {
            r = r.header("x-forwarded-for", f);
        }
        let mut r = r.body(Body::empty()).unwrap();
        let addr: SocketAddr = format!("{peer}:5000").parse().unwrap();
        r.extensions_mut().insert(ConnectInfo(addr));
        r
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_forged_forwarded_header_is_ignored_without_trusted_proxies() {
        let r = request("198.51.100.7", Some("10.0.0.1"));
        assert_eq!(client_ip(&r, &[]), Some(ip("198.51.100.7")));
    }

    #[test]
    fn behind_a_trusted_proxy_the_rightmost_untrusted_address_is_the_client() {
        let trusted = [Cidr::parse("130.176.0.0/16").unwrap()];
        let r = request(
            "130.176.1.2",
            Some("203.0.113.9, 198.51.100.7, 130.176.9.9"),
        );
        assert_eq!(client_ip(&r, &trusted), Some(ip("198.51.100.7")));
        let r = request("130.176.1.2", None);
        assert_eq!(client_ip(&r, &trusted), Some(ip("130.176.1.2")));
        let r = request("198.51.100.8", Some("203.0.113.9"));
        assert_eq!(
            client_ip(&r, &trusted),
            Some(ip("198.51.100.8")),
            "not from the proxy"
        );
    }
}
