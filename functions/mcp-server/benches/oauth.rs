//! What checking an OAuth access token adds to a warm tool call. The same `papierkram_info_get` call goes
//! through the whole app (`app()` with `oneshot`, the Papierkram sandbox on loopback as the
//! upstream) twice per round: once with an RS256 access token, checked against the signing
//! keys of an authorization server on loopback (fetched by the first call, cached after), and
//! once with an API key, the peer measured in the same run. It reports both distributions, the
//! difference and the ratio, the token check alone, and the first token call (which fetches
//! the metadata and the keys: the cold cost, paid on first need and not at start).
//!
//! Run: `cargo bench -p mcp-server --bench oauth` (`ROUNDS=…` to change the 2,000 rounds).

mod common;

use std::time::Instant;

use axum::Json;
use axum::routing::get;
use base64::Engine;
use common::{call, call_as, line, micros, router, stats};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_server::{Settings, Verifier};
use serde_json::json;

/// A throwaway RSA-2048 key (PKCS#1 DER, base64), made for this benchmark with
/// `openssl genrsa -traditional 2048`; it signs nothing anywhere else.
const BENCH_RSA_KEY: &str = "
MIIEpAIBAAKCAQEAnlfYJHdkVYjKpb7Nq2F0u2VUvT/9A5lyNENtpTcntmr6FiU6wdvWzB1KDb7sS8gY+acLutHbqUTYqBYb
CJcsR2pRw0lUxsa3C1Z3lYVcLG61nonbc6fj9IMY535ORn9n18n8gp93k037wBhklURbqbI1WUu7BKQb5xw2A/rY2cIsZ7si
zXgk+vy3quM1Vi/IYFKS1IRGu2q6EM9pRbHjOgiob2vykZ9kP4i94souzUYpP6CkmpqCZCkF0bUwMkM5LSOd0H/MkV2ziH6U
QDAO2JPPkgVY9CTBEVNFcg5m63eZ+5whjJKXseQ4MlEe3wnAolwxM16GEXsr8fz7xA+/nQIDAQABAoIBADQjUbDkPT3q3mtI
EfnSC7leytHL/ZhPUOsDntlteV6YCAP9u0S1ChvIsycmjDEB0LN3vSWFT3KDkGF8cedYu8RCLm0Cuu7+5KvPi23I7UpWI+hx
lTiWejl7Z1pmXQjaj8ten441Sw7OeUxN2+TIjvQoEWf3Rzvme6eUQvb5hKjiwccBgo8JA2BtxLGzMQVovR8xwItFHMsZFBCQ
PG1amoINELN1vearbKIRLV/rWCF/mYT8g9lJxzeEN7VDEBQR0IgAOHBp1WxsRwYwKSxhnRzJQVsvQ7s7vCJeBKxYRpOUefOE
lPe8WXdMuneqJQK5/uSyN3MO7pRoE7cCDpkcgUMCgYEA0Ji5fZfBk3d8+/1NZlzn0hBv/ajeFesldB7JUq/wRRdDO9JyPdYA
7vjMY0eSXblX/vZokovmNupoKzJ4ag5M5YzLlBzjlzKW3Dygk8M5hos0Y6F4mJBJ6byjUZp7YRNfOvPZ6RY7Bzpl3aNo9QRm
63Gw3kmWKZMoCQ/Lkt2tBKsCgYEAwlOVzAsNdHMhz7iehncZIdUpptoqYW0UJu79O4aQs6pgpmv8xLCYIy2BUuNiedITUfqd
F8KPNGqIo1KG/dMIiQxRpnueduMbep9EwwZdNS25OURfhLsB8YqIO/09g7OaiGu3g6cgFYcPxMIQspoGB9rtY0fykAvovA2Y
zrB6fNcCgYEAsLaxbZSCiUtQtqmASJesTGlgdqP4gNkUgasTItmp0t5CNwuxfHEvmUNs4y5e8MdzpKtbK8sY3Kz4UqAPIsm6
mz0Lug4/QHe7FhjGcGeS9Eg5ua2xXI3gEAOe2CLnIvYmVur+UFhk6VqvsXQeFnQEPLG0BJySeeYQpJyc+W6ShMECgYB+tyB0
CDUC3VyL5hhBGIJj5GsfqR1/oDBG3wpz+WB8N7qEauBNpdXfAnpVAX8ibtE4YNJ1PuJAzMNCtLrf4u+q5kSL6go//gHaKOce
wRSga6tfY21h0MwIpEwHyi+FpOU81fi5uY4bW5H1vJJE1FjgYGrxlWXfdlSR48/j34JPywKBgQCdSznio68f+JIAZGtZrU5g
MpujMyyA03/STvjVAVHxtJ4qOzbrjwbg0BjO4RsR3/3fdBNsUG3YPIt4Nb49bh7UYyHH172jGNCictoGYEFvnrtInmVDh4O7
uqUVH3lyW7S/xD0gnv7coN2J9OKJlkUBatD7XhVjJIq0xpaHAvkqcQ==
";

/// An authorization server's metadata and key set on loopback; its issuer URL.
async fn authorization_server(jwk: Jwk) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let meta = json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")});
    let keys = json!({"keys": [jwk]});
    let app = axum::Router::new()
        .route(
            "/.well-known/openid-configuration",
            get(move || async move { Json(meta) }),
        )
        .route("/jwks", get(move || async move { Json(keys) }));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    issuer
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let rounds = common::rounds(2000);
    let der = base64::engine::general_purpose::STANDARD
        .decode(BENCH_RSA_KEY.split_whitespace().collect::<String>())
        .unwrap();
    let signing = EncodingKey::from_rsa_der(&der);
    let mut jwk = Jwk::from_encoding_key(&signing, Algorithm::RS256).unwrap();
    jwk.common.key_id = Some("bench-1".into());
    let issuer = authorization_server(jwk).await;
    let resource = "http://localhost/mcp";
    let now = std::time::UNIX_EPOCH.elapsed().unwrap().as_secs();
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("bench-1".into());
    let claims = json!({"iss": issuer, "sub": "bench-user", "aud": resource, "iat": now,
                        "exp": now + 3600, "scope": "mcp:tools"});
    let token = jsonwebtoken::encode(&header, &claims, &signing).unwrap();

    let base = common::sandbox().await;
    let app = router(&[
        ("PAPIERKRAM_BASE_URL", base.as_str()),
        ("MCP_LIMITS", "off"),
        ("MCP_OAUTH_ISSUER", issuer.as_str()),
        ("MCP_RESOURCE_URL", resource),
    ]);
    // The first token call fetches the metadata and the keys.
    let first = call_as(&app, &token).await;
    for _ in 0..50 {
        call_as(&app, &token).await;
        call(&app).await;
    }
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        with.push(call_as(&app, &token).await);
        without.push(call(&app).await);
    }
    let (oauth, key) = (stats(with), stats(without));
    println!("tool call through app(), {rounds} rounds, microseconds:");
    println!("{}", line("RS256 access token:", &oauth));
    println!("{}", line("API key (the peer):", &key));
    println!(
        "  overhead: p50 {:+.1} µs, mean {:+.1} µs; ratio token/key: p50 {:.3}, mean {:.3}",
        oauth.p50 - key.p50,
        oauth.mean - key.mean,
        oauth.p50 / key.p50,
        oauth.mean / key.mean
    );
    println!(
        "  first token call (fetches metadata + keys on loopback): {:.1} µs",
        micros(first)
    );

    // The token check alone, keys cached.
    let env = env_config::Env::new(env_config::pairs(&[
        ("MCP_OAUTH_ISSUER", issuer.as_str()),
        ("MCP_RESOURCE_URL", resource),
    ]));
    let verifier = Verifier::new(
        Settings::from_env(&env).unwrap().unwrap(),
        mcp_server::http_client(),
    );
    verifier.verify(&token, None).await.unwrap();
    let n = 20_000u32;
    let started = Instant::now();
    for _ in 0..n {
        verifier.verify(&token, None).await.unwrap();
    }
    println!(
        "token check alone (RS256-2048, keys cached), {n} checks: {:.2} µs per check",
        micros(started.elapsed() / n)
    );
}
