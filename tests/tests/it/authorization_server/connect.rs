//! `/connect` when this server is its own authorization server: the connect pages sign a person
//! in here as a client of this server's own (`hosted-mcp-connect`, known from the start, never
//! registered), through the IdP and our consent page, then send them to the upstream (here the
//! same test IdP, playing the mail provider) and keep the grant: the person's next
//! `connections` lists the account as connected.

use integration_tests::Rpc;
use serde_json::json;

use super::{Browser, Setup};

pub(super) async fn a_person_connects_an_account_through_our_own_sign_in(s: &Setup, client: &str) {
    let (mut browser, ticket) = s.to_consent(client).await;
    let code = s.approve(&mut browser, &ticket).await;
    let (_, tokens) = s.by_code(client, &code).await;
    let bearer = tokens["access_token"].as_str().unwrap();
    let mcp = Rpc::with_bearer(&s.resource, bearer);
    let asked = mcp.tool("mail_me_get", json!({})).await;
    assert_eq!(asked["status"], "connection_required", "{asked}");
    let link = asked["connect_url"].as_str().unwrap().to_string();

    // Our sign-in for the connect pages' own client, through the IdP, to our consent page.
    let mut browser = Browser::new();
    let (ticket, page) = s.consent_from(&mut browser, link).await;
    assert!(page.contains("Connect your accounts"), "{page}");
    let signed_in = s.approved(&mut browser, &ticket).await;
    assert!(
        signed_in.starts_with(&s.url("/connect/mail/signed-in?")),
        "{signed_in}"
    );

    // Then the upstream's authorization and back: the account is connected.
    let (status, page) = browser
        .follow(signed_in, "nowhere:")
        .await
        .expect_err("ends on a page");
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Mail is connected"), "{page}");
    let listed = mcp.tool("connections", json!({})).await;
    assert_eq!(listed["connections"][0]["connector"], "mail", "{listed}");
    assert_eq!(listed["connections"][0]["connected"], true, "{listed}");
}
