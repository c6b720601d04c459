//! The HTTP client every function reaches upstreams with.

use std::sync::Arc;
use std::time::Duration;

/// How long connecting to an upstream may take; the request timeout is the catalog's.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The upstream HTTP client: rustls, no cookies, never a redirect (an answer is the upstream's
/// own, or the call failed; a redirect could carry the credential elsewhere), connect timeout
/// [`CONNECT_TIMEOUT`], `user_agent` on every request.
///
/// It trusts Mozilla's root certificates compiled into the binary (`webpki-roots`) rather than
/// the system store: the platform verifier read and parsed `/etc/ssl/certs` while the client was
/// built, 12–15 ms of every cold start against 0.2 ms for compiled-in DER certificates (measured
/// on the CI machine). The roots come as trust anchors parsed at build time, so start-up copies
/// about 150 small structs instead of parsing each certificate (0.6 M instructions, and the
/// copies on the heap, before). Updating the roots means updating the crate.
///
/// Build it once per process (in `main`) and clone it: clones share the connection pool.
pub fn http_client(user_agent: &str) -> reqwest::Client {
    http_client_builder(user_agent)
        .build()
        .expect("static client configuration")
}

/// [`http_client`]'s configuration, for a caller that adds to it (its own DNS resolver, a
/// total timeout) before building.
pub fn http_client_builder(user_agent: &str) -> reqwest::ClientBuilder {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    builder_trusting(user_agent, roots)
}

/// [`http_client_builder`] that also trusts the certificate `der` (a test's own authority);
/// `None` when rustls cannot use it as a trust anchor.
pub fn http_client_builder_trusting(
    user_agent: &str,
    der: &[u8],
) -> Option<reqwest::ClientBuilder> {
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    roots
        .add(rustls::pki_types::CertificateDer::from(der.to_vec()))
        .ok()?;
    Some(builder_trusting(user_agent, roots))
}

/// The client over `roots`: the TLS configuration reqwest itself builds for `tls_certs_only`
/// (its aws-lc provider, TLS 1.2 and 1.3, certificates and host names verified, ALPN
/// `http/1.1`: the client speaks HTTP/1.1 only), handed over ready-made.
fn builder_trusting(user_agent: &str, roots: rustls::RootCertStore) -> reqwest::ClientBuilder {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .expect("the aws-lc provider supports TLS 1.2 and 1.3")
        .with_root_certificates(roots)
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(CONNECT_TIMEOUT)
        .user_agent(user_agent)
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

    /// A certificate for `127.0.0.1` signed by its own key (not a CA, valid until 2126),
    /// generated once with openssl for this test; no public root vouches for it.
    const SELF_SIGNED_CERT: &[u8] = include_bytes!("../tests/fixtures/self-signed.cert.der");
    const SELF_SIGNED_KEY: &[u8] = include_bytes!("../tests/fixtures/self-signed.key.der");

    /// A loopback HTTPS server presenting [`SELF_SIGNED_CERT`] that answers `ok` to each request
    /// on a completed handshake; it stops when the test's runtime does.
    async fn self_signed_server() -> String {
        use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(SELF_SIGNED_CERT)],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(SELF_SIGNED_KEY.to_vec())),
            )
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("https://{}/info", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    // A refused handshake ends here: the client sent an alert.
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match tls.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    let _ = tls
                        .write_all(
                            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                        )
                        .await;
                    let _ = tls.shutdown().await;
                });
            }
        });
        url
    }

    #[tokio::test]
    async fn an_https_upstream_with_a_certificate_no_root_vouches_for_is_refused() {
        let url = self_signed_server().await;
        let sent = tokio::time::timeout(
            Duration::from_secs(10),
            http_client("hosted-mcp-test/1.0").get(&url).send(),
        )
        .await
        .expect("the handshake ends within 10 s");
        let error = sent.expect_err("a self-signed certificate must not be trusted");
        assert!(error.is_connect(), "{error:?}");
        let chain = format!("{error:?}");
        assert!(chain.contains("UnknownIssuer"), "{chain}");
    }

    #[tokio::test]
    async fn the_same_upstream_is_reached_when_its_certificate_is_a_trusted_root() {
        // The control: the refusal above is the verifier's, not a handshake that cannot work.
        let url = self_signed_server().await;
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(rustls::pki_types::CertificateDer::from(SELF_SIGNED_CERT))
            .unwrap();
        let client = builder_trusting("hosted-mcp-test/1.0", roots)
            .build()
            .unwrap();
        let response = tokio::time::timeout(Duration::from_secs(10), client.get(&url).send())
            .await
            .expect("answered within 10 s")
            .expect("a trusted certificate for 127.0.0.1 is accepted");
        assert_eq!(response.status(), 200);
        assert_eq!(response.text().await.unwrap(), "ok");
    }

    #[test]
    fn the_client_trusts_the_compiled_in_mozilla_roots() {
        assert!(webpki_roots::TLS_SERVER_ROOTS.len() > 100);
    }
}
