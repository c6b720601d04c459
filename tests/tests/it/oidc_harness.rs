//! The local OpenID provider the OAuth tests use (`integration_tests::oidc::Op`): its metadata,
//! keys and tokens are what the server's tests rely on, so they are checked here, without the
//! server.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use integration_tests::oidc::Op;
use serde_json::{Value, json};

const RESOURCE: &str = "http://127.0.0.1:8767/mcp";

/// Header, claims and raw signature of a compact JWS.
fn parts(token: &str) -> (Value, Value, Vec<u8>) {
    let pieces: Vec<&str> = token.split('.').collect();
    assert_eq!(pieces.len(), 3, "not a three-part JWT: {token}");
    let json = |s: &str| serde_json::from_slice(&URL_SAFE_NO_PAD.decode(s).unwrap()).unwrap();
    (
        json(pieces[0]),
        json(pieces[1]),
        URL_SAFE_NO_PAD.decode(pieces[2]).unwrap(),
    )
}

async fn get(url: &str) -> Value {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

#[tokio::test]
async fn provider_publishes_metadata_for_discovery_and_its_two_keys() {
    let op = Op::start(RESOURCE, "mcp:tools mcp:bookkeeping");
    let issuer = op.issuer();
    assert!(issuer.starts_with("http://127.0.0.1:"), "{issuer}");
    for well_known in ["openid-configuration", "oauth-authorization-server"] {
        let meta = get(&format!("{issuer}/.well-known/{well_known}")).await;
        assert_eq!(meta["issuer"], issuer);
        assert_eq!(meta["registration_endpoint"], format!("{issuer}/reg"));
        assert_eq!(meta["authorization_endpoint"], format!("{issuer}/auth"));
        assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
        assert_eq!(meta["authorization_response_iss_parameter_supported"], true);
        let scopes = meta["scopes_supported"].as_array().unwrap();
        assert!(scopes.contains(&json!("mcp:bookkeeping")), "{meta}");
    }
    let jwks = get(&format!("{issuer}/jwks")).await;
    let keys: Vec<(&str, &str)> = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["kid"].as_str().unwrap(), k["alg"].as_str().unwrap()))
        .collect();
    assert_eq!(keys, [("rs-1", "RS256"), ("es-1", "ES256")]);
    assert!(jwks["keys"][0].get("d").is_none(), "private key published");

    let seen = op.requests().await;
    assert_eq!(seen["/jwks"], 1, "{seen}");
    assert_eq!(seen["/.well-known/openid-configuration"], 1, "{seen}");
    assert!(seen.get("/test/requests").is_none(), "{seen}");
}

#[tokio::test]
async fn minted_tokens_have_the_defaults_overrides_and_broken_signatures_asked_for() {
    let op = Op::start(RESOURCE, "mcp:tools");

    let (header, claims, signature) = parts(&op.mint(json!({})).await);
    assert_eq!(
        header,
        json!({"alg": "RS256", "typ": "at+jwt", "kid": "rs-1"})
    );
    assert_eq!(claims["iss"], op.issuer());
    assert_eq!(claims["aud"], RESOURCE);
    assert_eq!(claims["sub"], "test-user");
    assert_eq!(claims["scope"], "mcp:tools");
    assert_eq!(claims["client_id"], "svc");
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        300
    );
    assert_eq!(signature.len(), 256, "an RSA-2048 signature");

    let overridden = op
        .mint(
            json!({"claims": {"sub": "alice@example.com", "client_id": null, "nbf": 1},
                     "header": {"kid": "rs-9"}}),
        )
        .await;
    let (header, claims, _) = parts(&overridden);
    assert_eq!(header["kid"], "rs-9");
    assert_eq!(claims["sub"], "alice@example.com");
    assert_eq!(claims["nbf"], 1);
    assert!(claims.get("client_id").is_none(), "{claims}");

    let (header, _, signature) = parts(&op.mint(json!({"alg": "ES256"})).await);
    assert_eq!(
        (header["alg"].as_str(), header["kid"].as_str()),
        (Some("ES256"), Some("es-1"))
    );
    assert_eq!(signature.len(), 64, "ES256 signatures are r || s");

    let none = op.mint(json!({"mode": "none"})).await;
    assert!(none.ends_with('.'), "{none}");
    assert_eq!(parts(&none).0["alg"], "none");

    let (header, _, signature) = parts(&op.mint(json!({"mode": "hmac-public-key"})).await);
    assert_eq!(
        header,
        json!({"alg": "HS256", "typ": "at+jwt", "kid": "rs-1"})
    );
    assert_eq!(signature.len(), 32);

    let (header, _, _) = parts(&op.mint(json!({"mode": "foreign-key"})).await);
    assert_eq!(header["kid"], "rs-1");

    let good = op.mint(json!({"claims": {"iat": 1000, "exp": 2000}})).await;
    let bad = op
        .mint(json!({"mode": "bad-signature", "claims": {"iat": 1000, "exp": 2000}}))
        .await;
    let (good_head, good_claims) = good.rsplit_once('.').unwrap();
    let (bad_head, bad_claims) = bad.rsplit_once('.').unwrap();
    assert_eq!(good_head, bad_head, "same header and claims");
    assert_ne!(good_claims, bad_claims, "another signature");
}

#[tokio::test]
async fn client_credentials_tokens_name_the_resource_indicator_as_audience() {
    let op = Op::start(RESOURCE, "mcp:tools mcp:bookkeeping");
    let (header, claims, _) = parts(&op.client_credentials("mcp:tools", None).await);
    assert_eq!(header["kid"], "rs-1");
    assert_eq!(header["typ"], "at+jwt");
    assert_eq!(claims["aud"], RESOURCE);
    assert_eq!(claims["scope"], "mcp:tools");
    assert_eq!(claims["iss"], op.issuer());

    let profile = format!("{RESOURCE}/bookkeeping");
    let token = op
        .client_credentials("mcp:bookkeeping", Some(&profile))
        .await;
    assert_eq!(parts(&token).1["aud"], profile);
}

#[tokio::test]
async fn provider_restarts_on_its_port_and_rotates_keys_on_request() {
    let mut op = Op::start(RESOURCE, "mcp:tools");
    let (port, issuer) = (op.port(), op.issuer().to_string());
    op.kill();
    assert!(!op.alive());
    assert!(
        reqwest::get(format!("{issuer}/jwks")).await.is_err(),
        "still answering"
    );

    let op = Op::start_with(port, RESOURCE, "mcp:tools", &["--key-generation", "2"]);
    assert_eq!(op.issuer(), issuer);
    let jwks = get(&format!("{issuer}/jwks")).await;
    assert_eq!(jwks["keys"][0]["kid"], "rs-2");
    assert_eq!(parts(&op.mint(json!({})).await).0["kid"], "rs-2");
}
