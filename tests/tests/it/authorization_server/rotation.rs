//! A key rotation without downtime: the server restarts signing with a new KMS key B and
//! keeping the old key A as a previous one (`MCP_AS_PREVIOUS_KEY_IDS`): A's access tokens
//! still pass, new ones are signed by B, and the JWKS names both. Restarted again without A,
//! A's tokens are refused.

use base64::Engine;
use serde_json::Value;

use super::{Setup, jwks_kids, signing_key, start};

/// The `kid` in an access token's header.
fn kid_of(token: &Value) -> String {
    let access = token["access_token"].as_str().unwrap();
    let header = access.split('.').next().unwrap();
    let header = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header)
        .unwrap();
    let header: Value = serde_json::from_slice(&header).unwrap();
    header["kid"].as_str().unwrap().to_string()
}

pub(super) async fn a_rotated_keys_tokens_pass_until_it_is_removed(s: Setup, client: &str) {
    let (mut browser, ticket) = s.to_consent(client).await;
    let code = s.approve(&mut browser, &ticket).await;
    let (_, by_a) = s.by_code(client, &code).await;
    let kid_a = kid_of(&by_a);
    let access_a = by_a["access_token"].as_str().unwrap().to_string();

    let (a, b) = (s.key_id.clone(), signing_key(&s.moto).await);
    let s = restarted(s, &b, &[&a]);
    let kids = jwks_kids(&s).await;
    assert_eq!(kids.len(), 2, "{kids:?}");
    assert_eq!(kids[1], kid_a, "A published after B");
    assert_eq!(s.tools_list(&access_a).await, 200, "A's token, A previous");
    let (status, by_b) = s.by_refresh(client, &by_a).await;
    assert_eq!(
        status, 200,
        "A's refresh token survives the rotation: {by_b}"
    );
    assert_eq!(kid_of(&by_b), kids[0], "signed by B");
    let access_b = by_b["access_token"].as_str().unwrap();
    assert_eq!(s.tools_list(access_b).await, 200);

    let s = restarted(s, &b, &[]);
    assert_eq!(jwks_kids(&s).await, kids[..1], "A removed");
    assert_eq!(s.tools_list(&access_a).await, 401, "A's token, A removed");
    assert_eq!(s.tools_list(access_b).await, 200);
}

/// The same server on the same port, signing with `key_id`, accepting `previous` too.
fn restarted(s: Setup, key_id: &str, previous: &[&str]) -> Setup {
    let Setup {
        _op,
        _catalogs,
        moto,
        server,
        resource,
        env,
        port,
        ..
    } = s;
    // The old process first: its port is the new one's.
    drop(server);
    Setup {
        server: start(port, &env, key_id, previous),
        key_id: key_id.to_string(),
        _op,
        _catalogs,
        moto,
        resource,
        env,
        port,
    }
}
