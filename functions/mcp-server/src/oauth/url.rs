//! The URL helpers of the OAuth flows: the split the discovery documents need (RFC 8414 and RFC
//! 9728 put their well-known segment between a URL's origin and its path), and query pairs
//! appended to a redirect.

/// `scheme://host[:port]` and the path after it (`/mcp`, or empty).
pub(crate) fn origin_and_path(url: &str) -> (&str, &str) {
    let start = url.find("://").map_or(0, |i| i + 3);
    match url[start..].find('/') {
        Some(slash) => url.split_at(start + slash),
        None => (url, ""),
    }
}

/// `url` with these query pairs appended (unchanged when it does not parse).
pub(crate) fn with_query(url: &str, pairs: &[(&str, &str)]) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            u.query_pairs_mut().extend_pairs(pairs);
            u.to_string()
        }
        Err(_) => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_the_first_slash_after_the_host() {
        assert_eq!(
            origin_and_path("https://x.example:8443/prod/mcp"),
            ("https://x.example:8443", "/prod/mcp")
        );
        assert_eq!(
            origin_and_path("http://127.0.0.1:9"),
            ("http://127.0.0.1:9", "")
        );
    }
}
