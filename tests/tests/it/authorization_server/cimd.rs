//! Client ID Metadata Documents at the HTTP level: a client whose id is the URL of its
//! metadata document (served here by a tiny axum server on loopback, which the server fetches
//! because this test runs it with `MCP_AS_CIMD_ALLOW_LOOPBACK`) signs in, is approved and gets
//! tokens; documents the front door must not use get a page, never a redirect.

use axum::Router;
use axum::routing::get;
use serde_json::json;

use super::{Browser, CLIENT_REDIRECT, Setup};

/// The documents' base URL: `/client.json` (good), `/other.json` (naming another URL),
/// `/big.json` (past 5 KB), `/slow.json` (never answers).
async fn documents() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let doc = |id: String| {
        let body = json!({
            "client_id": id,
            "client_name": "Test client",
            "redirect_uris": [CLIENT_REDIRECT],
            "token_endpoint_auth_method": "none",
        });
        move || async move { ([("cache-control", "max-age=3600")], axum::Json(body)) }
    };
    let app = Router::new()
        .route("/client.json", get(doc(format!("{base}/client.json"))))
        .route("/other.json", get(doc(format!("{base}/client.json"))))
        .route("/big.json", get(|| async { " ".repeat(6 * 1024) }))
        .route("/slow.json", get(std::future::pending::<()>));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    base
}

/// The whole flow with a CIMD client, then the documents refused.
pub(super) async fn a_metadata_document_client_connects(s: &Setup) {
    let base = documents().await;
    let client = format!("{base}/client.json");
    let (mut browser, ticket) = s.to_consent(&client).await;
    let code = s.approve(&mut browser, &ticket).await;
    let (status, tokens) = s.by_code(&client, &code).await;
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(tokens["token_type"], "Bearer", "{tokens}");
    assert_eq!(
        s.tools_list(tokens["access_token"].as_str().unwrap()).await,
        200
    );
    let (status, _) = s.by_refresh(&client, &tokens).await;
    assert_eq!(status, 200, "a CIMD client refreshes");
    refused_documents(s, &base).await;
}

/// Each refused before anyone signs in: a page naming why, never a redirect; all at once, so
/// the slow document's 3 s overlap the others.
async fn refused_documents(s: &Setup, base: &str) {
    let cases = [
        ("https://localhost/client.json".to_string(), "not public"),
        (
            "https://169.254.169.254/latest/meta-data".to_string(),
            "not public",
        ),
        (
            format!("{base}/other.json"),
            "not the URL it was fetched from",
        ),
        (format!("{base}/big.json"), "larger than 5120 bytes"),
        (format!("{base}/slow.json"), "took too long"),
    ];
    let open = |client: &str| {
        let url = s.authorize_url(client, CLIENT_REDIRECT, &[]);
        async move { Browser::new().open(&url, None).await }
    };
    let (a, b, c, d, e) = tokio::join!(
        open(&cases[0].0),
        open(&cases[1].0),
        open(&cases[2].0),
        open(&cases[3].0),
        open(&cases[4].0),
    );
    let pages = [a, b, c, d, e];
    for ((client, why), (status, location, page)) in cases.iter().zip(pages) {
        assert_eq!((status, location.as_str()), (400, ""), "{client}: {page}");
        assert!(page.contains(why), "{client}: `{why}` in {page}");
    }
    let (status, body) = s.by_code("https://localhost/client.json", "x").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_client"))
    );
}
