//! The HTTP client every function reaches upstreams with.

use std::time::Duration;

/// How long connecting to an upstream may take; the request timeout is the catalog's.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The upstream HTTP client: rustls, no cookies, never a redirect (an answer is the upstream's
/// own, or the call failed; a redirect could carry the credential elsewhere), connect timeout
/// [`CONNECT_TIMEOUT`], `user_agent` on every request.
///
/// It trusts Mozilla's root certificates compiled into the binary (`webpki-root-certs`) rather
/// than the system store: the platform verifier read and parsed `/etc/ssl/certs` while the
/// client was built, 12–15 ms of every cold start against 0.2 ms for these (measured on the CI
/// machine). Updating the roots means updating the crate.
///
/// Build it once per process (in `main`) and clone it: clones share the connection pool.
pub fn http_client(user_agent: &str) -> reqwest::Client {
    let roots = webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok());
    reqwest::Client::builder()
        .tls_certs_only(roots)
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(CONNECT_TIMEOUT)
        .user_agent(user_agent)
        .build()
        .expect("static client configuration")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;

    /// A loopback server answering one request with a redirect; returns the request's head.
    fn redirecting_server() -> (String, std::thread::JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/info", listener.local_addr().unwrap());
        let handle = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            let mut stream = stream;
            stream
                .write_all(
                    b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9/elsewhere\r\n\
                      Content-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .unwrap();
            head
        });
        (url, handle)
    }

    #[tokio::test]
    async fn the_client_sends_its_user_agent_and_does_not_follow_redirects() {
        let (url, server) = redirecting_server();
        let response = http_client("hosted-mcp-test/1.0")
            .get(&url)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 302, "the redirect is the answer");
        let head = server.join().unwrap().to_ascii_lowercase();
        assert!(head.contains("user-agent: hosted-mcp-test/1.0"), "{head}");
    }

    #[test]
    fn every_compiled_in_root_certificate_parses() {
        assert!(!webpki_root_certs::TLS_SERVER_ROOT_CERTS.is_empty());
        assert!(
            webpki_root_certs::TLS_SERVER_ROOT_CERTS
                .iter()
                .all(|der| reqwest::Certificate::from_der(der).is_ok()),
            "a root that does not parse would be dropped silently"
        );
    }
}
