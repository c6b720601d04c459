//! Refreshing a person's upstream grant: two server processes share the vault on moto's
//! DynamoDB and KMS; an expired grant with a refresh token is refreshed exactly once when
//! both get calls at once (the winner rotates the refresh token, the others wait for its
//! result), a refresh the upstream refuses clears the entry and asks the person again, and a
//! person who disconnects on one instance is asked to connect on their next call on the other.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use integration_tests::oidc::Op;
use integration_tests::{KEY, Rpc, Server, TempDir, free_port, serve_on_loopback};
use mcp_server::{EntryKey, Grant, Person, VaultStore};
use serde_json::json;

use crate::vault::{Aws, TABLE};

const CATALOG: &str = r#"connector: mail
title: Mail
base_url: "http://127.0.0.1:9/api"
secrets: [client_id, client_secret]
auth:
  oauth_user:
    authorization_endpoint: "UPSTREAM/authorize"
    token_endpoint: "UPSTREAM/token"
    client_id: client_id
    client_secret: client_secret
    scopes: [mail.read]
tools:
  - name: mail_me_get
    risk: low
    description: "Who the mail account belongs to. Example: {}"
    get: /me
"#;

/// The fake upstream: its token endpoint rotates refresh tokens (each works once) and its API
/// answers only access tokens it issued.
#[derive(Clone, Default)]
struct Upstream {
    /// Refresh token → (owner, generation) that may still be used.
    refresh: Arc<Mutex<Vec<(String, String, u64)>>>,
    access: Arc<Mutex<HashSet<(String, String)>>>,
    refreshes: Arc<AtomicU64>,
    sent: Arc<Mutex<Vec<String>>>,
}

async fn token(
    State(u): State<Upstream>,
    headers: HeaderMap,
    body: String,
) -> (StatusCode, String) {
    assert!(
        headers.get("authorization").is_some(),
        "client authentication"
    );
    let form: Vec<(String, String)> = reqwest::Url::parse(&format!("http://x/?{body}"))
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let field = |k: &str| form.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(field("grant_type").as_deref(), Some("refresh_token"));
    let presented = field("refresh_token").unwrap_or_default();
    u.refreshes.fetch_add(1, Ordering::SeqCst);
    // Carol's provider is down for a moment.
    if presented.starts_with("carol") {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"error": "temporarily_unavailable"}).to_string(),
        );
    }
    // As slow as a real token endpoint, so calls on both servers overlap with the refresh.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut refresh = u.refresh.lock().unwrap();
    let Some(i) = refresh.iter().position(|(t, _, _)| *t == presented) else {
        return (
            StatusCode::BAD_REQUEST,
            json!({"error": "invalid_grant"}).to_string(),
        );
    };
    let (_, owner, generation) = refresh.remove(i);
    let next = generation + 1;
    let (access, rotated) = (format!("{owner}-at-{next}"), format!("{owner}-rt-{next}"));
    refresh.push((rotated.clone(), owner.clone(), next));
    // Erin's provider sends `expires_in` as a string, as some do.
    let expires_in = if owner == "erin" {
        json!("3600")
    } else {
        json!(3600)
    };
    u.access.lock().unwrap().insert((access.clone(), owner));
    (
        StatusCode::OK,
        json!({"access_token": access, "refresh_token": rotated, "expires_in": expires_in,
               "token_type": "Bearer"})
        .to_string(),
    )
}

async fn me(State(u): State<Upstream>, headers: HeaderMap) -> (StatusCode, String) {
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("")
        .to_string();
    u.sent.lock().unwrap().push(bearer.clone());
    let owner = u
        .access
        .lock()
        .unwrap()
        .iter()
        .find(|(t, _)| *t == bearer)
        .map(|(_, o)| o.clone());
    match owner {
        Some(o) => (StatusCode::OK, json!({"owner": o}).to_string()),
        None => (StatusCode::UNAUTHORIZED, "{}".into()),
    }
}

fn now() -> u64 {
    std::time::UNIX_EPOCH.elapsed().unwrap().as_secs()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_expired_grant_is_refreshed_once_across_two_servers_and_a_revoked_one_asks_again() {
    let aws = Aws::start().await;
    let upstream = Upstream::default();
    let app = axum::Router::new()
        .route("/token", post(token))
        .route("/api/me", get(me))
        .with_state(upstream.clone());
    let origin = format!("http://{}", serve_on_loopback(app).await);
    let dir = TempDir::new("refresh");
    std::fs::write(
        dir.path.join("mail.yaml"),
        CATALOG.replace("UPSTREAM", &origin),
    )
    .unwrap();

    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let op = Op::start(&resource, "mcp:tools");
    let keys = format!("e2e:{KEY}");
    let api = format!("{origin}/api");
    // Through the relay, which passes one table request at a time as DynamoDB serializes the
    // writes to one item (moto alone does not lock an item under concurrent conditions).
    let table = aws.dynamodb.endpoint();
    let env = [
        ("MCP_API_KEYS", keys.as_str()),
        ("MCP_PSEUDONYM_PEPPER", "refresh-test-pepper-0123456789abcd"),
        ("MCP_OAUTH_ISSUER", op.issuer()),
        ("MCP_RESOURCE_URL", &resource),
        ("MCP_CATALOG_DIR", dir.path.to_str().unwrap()),
        ("MAIL_BASE_URL", &api),
        ("MAIL_CLIENT_ID", "mail-client"),
        ("MAIL_CLIENT_SECRET", "mail-secret"),
        ("MCP_VAULT_TABLE", TABLE),
        ("MCP_VAULT_KEY_ID", &aws.key_id),
        (
            "MCP_CONFIRMATION_KEYS",
            "refresh-test-confirmation-key-0123456789",
        ),
        ("AWS_ENDPOINT_URL", &aws.moto.endpoint),
        ("AWS_ENDPOINT_URL_DYNAMODB", &table),
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_REGION", "eu-central-1"),
        ("AWS_EC2_METADATA_DISABLED", "true"),
    ];
    let one = Server::start_at(port, &[], &env);
    let two = Server::start(&[], &env);

    // Alice's grant expired a second ago; Bob's refresh token was revoked at the upstream.
    let vault = aws.vault();
    let key = |who: &str| {
        EntryKey::new(
            Person::new(op.issuer(), who).unwrap(),
            "mail",
            ["mail.read"],
        )
        .unwrap()
    };
    for who in ["alice", "bob"] {
        let grant = Grant {
            access_token: format!("{who}-at-1"),
            refresh_token: Some(format!("{who}-rt-1")),
            expires_at: Some(now() - 1),
            scopes: None,
        };
        vault.put(&key(who), &grant, now()).await.unwrap();
    }
    upstream
        .refresh
        .lock()
        .unwrap()
        .push(("alice-rt-1".into(), "alice".into(), 1));

    let alice = op.mint(json!({"claims": {"sub": "alice"}})).await;
    let mut calls = Vec::new();
    for i in 0..10 {
        let url = if i % 2 == 0 {
            one.url.clone()
        } else {
            two.url.clone()
        };
        let alice = alice.clone();
        calls.push(tokio::spawn(async move {
            Rpc::with_bearer(&url, &alice)
                .tool("mail_me_get", json!({}))
                .await
        }));
    }
    for c in calls {
        let answer = c.await.unwrap();
        assert_eq!(answer["status"], "ok", "{answer}");
        assert_eq!(answer["data"]["owner"], "alice");
    }
    assert_eq!(
        upstream.refreshes.load(Ordering::SeqCst),
        1,
        "one refresh for both servers"
    );
    let sent = upstream.sent.lock().unwrap().clone();
    assert_eq!(sent.len(), 10);
    assert!(sent.iter().all(|t| t == "alice-at-2"), "{sent:?}");
    // Rotated: the vault holds the new refresh token, the old one is spent.
    let stored = vault.get(&key("alice")).await.unwrap().unwrap();
    assert_eq!(stored.grant.refresh_token.as_deref(), Some("alice-rt-2"));
    assert_eq!(stored.grant.access_token, "alice-at-2");
    assert!(stored.grant.expires_at.unwrap() > now() + 3000);

    // Bob's refresh is refused: his entry is cleared and he is asked to connect again.
    let bob = op.mint(json!({"claims": {"sub": "bob"}})).await;
    let answer = Rpc::with_bearer(&two.url, &bob)
        .tool("mail_me_get", json!({}))
        .await;
    assert_eq!(answer["status"], "connection_required", "{answer}");
    assert!(answer["connect_url"].is_string());
    assert!(
        answer["hint"]
            .as_str()
            .unwrap()
            .contains("no longer accepts")
    );
    assert_eq!(vault.get(&key("bob")).await.unwrap(), None);
    assert_eq!(upstream.refreshes.load(Ordering::SeqCst), 2);
    assert!(
        !upstream
            .sent
            .lock()
            .unwrap()
            .iter()
            .any(|t| t.starts_with("bob"))
    );

    // Carol's token expires within the minute and her provider answers 503 to the refresh: the
    // still-valid token is used and her connection stays.
    let carol_grant = Grant {
        access_token: "carol-at-1".into(),
        refresh_token: Some("carol-rt-1".into()),
        expires_at: Some(now() + 30),
        scopes: None,
    };
    vault.put(&key("carol"), &carol_grant, now()).await.unwrap();
    upstream
        .access
        .lock()
        .unwrap()
        .insert(("carol-at-1".into(), "carol".into()));
    let carol = op.mint(json!({"claims": {"sub": "carol"}})).await;
    let answer = Rpc::with_bearer(&one.url, &carol)
        .tool("mail_me_get", json!({}))
        .await;
    assert_eq!(answer["data"]["owner"], "carol", "{answer}");
    let kept = vault
        .get(&key("carol"))
        .await
        .unwrap()
        .expect("still connected");
    assert_eq!(kept.grant, carol_grant);

    // Dave's access token was revoked early (a 401) while his grant lives on: his refresh
    // token renews it and the read is answered with the new token.
    let dave_grant = Grant {
        access_token: "dave-at-1".into(),
        refresh_token: Some("dave-rt-1".into()),
        expires_at: Some(now() + 3000),
        scopes: None,
    };
    vault.put(&key("dave"), &dave_grant, now()).await.unwrap();
    upstream
        .refresh
        .lock()
        .unwrap()
        .push(("dave-rt-1".into(), "dave".into(), 1));
    let dave = op.mint(json!({"claims": {"sub": "dave"}})).await;
    let answer = Rpc::with_bearer(&two.url, &dave)
        .tool("mail_me_get", json!({}))
        .await;
    assert_eq!(answer["status"], "ok", "{answer}");
    assert_eq!(answer["data"]["owner"], "dave");
    let renewed = vault.get(&key("dave")).await.unwrap().unwrap();
    assert_eq!(renewed.grant.access_token, "dave-at-2");
    // Dave disconnects on one instance: his next call on the other is asked to connect, and
    // nothing of his reaches the upstream after.
    let gone = Rpc::with_bearer(&one.url, &dave)
        .tool(
            "connections",
            json!({"action": "disconnect", "connector": "mail"}),
        )
        .await;
    assert_eq!(gone["disconnected"], true, "{gone}");
    let sent_before = upstream.sent.lock().unwrap().len();
    let after = Rpc::with_bearer(&two.url, &dave)
        .tool("mail_me_get", json!({}))
        .await;
    assert_eq!(after["status"], "connection_required", "{after}");
    assert_eq!(upstream.sent.lock().unwrap().len(), sent_before);

    // Erin's provider sends `expires_in: "3600"`: her expired grant is refreshed all the same.
    let erin_grant = Grant {
        access_token: "erin-at-1".into(),
        refresh_token: Some("erin-rt-1".into()),
        expires_at: Some(now() - 1),
        scopes: None,
    };
    vault.put(&key("erin"), &erin_grant, now()).await.unwrap();
    upstream
        .refresh
        .lock()
        .unwrap()
        .push(("erin-rt-1".into(), "erin".into(), 1));
    let erin = op.mint(json!({"claims": {"sub": "erin"}})).await;
    let answer = Rpc::with_bearer(&one.url, &erin)
        .tool("mail_me_get", json!({}))
        .await;
    assert_eq!(answer["data"]["owner"], "erin", "{answer}");
    let stored = vault.get(&key("erin")).await.unwrap().unwrap();
    assert!(stored.grant.expires_at.unwrap() > now() + 3000);

    let printed = format!(
        "{}{}{}",
        one.stderr.joined(),
        two.stderr.joined(),
        two.stdout.joined()
    );
    assert!(
        !printed.contains("alice-rt-") && !printed.contains("-at-"),
        "a token was printed"
    );
}
