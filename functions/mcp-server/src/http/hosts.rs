//! Which Host names a request may address: the configured ones, plus loopback names locally.
//! The MCP transport checks `/mcp`; `/health` uses [`host_allowed`] with the same list.

use axum::http::{HeaderMap, header};

use crate::config::Config;

/// Configured hosts; local runs also answer on loopback names (a rebinding attack still fails
/// the Host check).
pub(crate) fn allowed_hosts(config: &Config) -> Vec<String> {
    let mut hosts = config.allowed_hosts.clone();
    if !config.lambda {
        hosts.extend(["localhost", "127.0.0.1", "::1"].map(String::from));
    }
    hosts
}

/// Configured origins; local runs also serve browser tools on this machine (the Inspector UI).
pub(crate) fn allowed_origins(config: &Config) -> Vec<String> {
    let mut origins = config.allowed_origins.clone();
    if !config.lambda {
        origins.extend(["http://localhost:*", "http://127.0.0.1:*"].map(String::from));
    }
    origins
}

/// The Host header's name (and port) against the allowed ones: an entry without a port allows
/// any port of that host.
pub(crate) fn host_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let (name, port) = split_host(host);
    allowed.iter().any(|entry| {
        let (a_name, a_port) = split_host(entry);
        a_name.eq_ignore_ascii_case(name) && (a_port.is_none() || a_port == port)
    })
}

/// `host:port`, `[v6]:port` or a bare host, into name and port.
fn split_host(host: &str) -> (&str, Option<&str>) {
    if let Some(rest) = host.strip_prefix('[') {
        let (name, after) = rest.split_once(']').unwrap_or((rest, ""));
        return (name, after.strip_prefix(':'));
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => (name, Some(port)),
        _ => (host, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, host.parse().unwrap());
        h
    }

    #[test]
    fn host_check_matches_names_and_ports_like_the_mcp_transport() {
        let allowed = vec![
            "api.example.com".to_string(),
            "localhost:8767".to_string(),
            "::1".to_string(),
        ];
        assert!(host_allowed(&headers("api.example.com"), &allowed));
        assert!(host_allowed(&headers("API.example.com:443"), &allowed));
        assert!(host_allowed(&headers("localhost:8767"), &allowed));
        assert!(!host_allowed(&headers("localhost:9999"), &allowed));
        assert!(host_allowed(&headers("[::1]:8767"), &allowed));
        assert!(!host_allowed(&headers("evil.example.com"), &allowed));
        assert!(!host_allowed(&HeaderMap::new(), &allowed));
    }
}
