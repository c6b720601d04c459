//! Inbound webhooks end to end (`functions/mcp-server/docs/inbound.md`): the real server with
//! `tests/catalogs/inbound` (a connector whose webhooks have the shape of Meta's WhatsApp
//! notifications), bodies signed as Meta signs them. In memory: the handshake, a signed body
//! kept, a retried or reordered delivery kept once, a wrong or missing signature refused with
//! nothing kept, oversized and malformed bodies refused, a flood from one address held to 429,
//! the tool that reads a conversation with its 24-hour window, and the list of who wrote, found
//! by name. On moto's DynamoDB and KMS: the same kept sealed (no number, no text, no name in the
//! table), the list read back, and the acceptance latency of 200 signed bodies measured.

use std::time::{Duration, Instant};

use integration_tests::{Moto, Rpc, Server, repo};
use serde_json::{Value, json};

const KEY: &str = "inbound-key-0123456789abcdef";
const SECRET: &str = "app-secret-0123456789";
const VERIFY: &str = "verify-token-42";
const MUELLER: &str = "4915112345678";
const TABLE: &str = "hosted-mcp-inbound";

fn env() -> Vec<(&'static str, String)> {
    vec![
        ("MCP_API_KEYS", format!("ops:{KEY}")),
        (
            "MCP_CATALOG_DIR",
            repo().join("tests/catalogs/inbound").display().to_string(),
        ),
        ("CHAT_HOST", "127.0.0.1:9".into()),
        ("CHAT_VERIFY_TOKEN", VERIFY.into()),
        ("CHAT_APP_SECRET", SECRET.into()),
    ]
}

fn now() -> u64 {
    std::time::UNIX_EPOCH.elapsed().unwrap().as_secs()
}

/// A notification in Meta's shape: one change with `messages` or `statuses`.
fn body(field: &str, events: Value) -> String {
    json!({"object": "whatsapp_business_account", "entry": [{"id": "waba", "changes": [
        {"field": "messages", "value": {"messaging_product": "whatsapp", field: events}}
    ]}]})
    .to_string()
}

fn message(id: &str, from: &str, at: u64, text: &str) -> String {
    body(
        "messages",
        json!([{"id": id, "from": from, "timestamp": at.to_string(), "type": "text",
                "text": {"body": text}}]),
    )
}

/// A message with the sender's profile name beside it, as Meta sends `contacts`.
fn named(id: &str, from: &str, name: &str, at: u64, text: &str) -> String {
    let mut b: Value = serde_json::from_str(&message(id, from, at, text)).unwrap();
    b["entry"][0]["changes"][0]["value"]["contacts"] =
        json!([{"profile": {"name": name}, "wa_id": from}]);
    b.to_string()
}

/// The conversations list, filtered by `name` when given.
async fn conversations(server: &Server, name: Option<&str>) -> Value {
    let args = name.map_or(json!({}), |n| json!({"name": n}));
    Rpc::with_bearer(&server.url, KEY)
        .tool("chat_conversations_list", args)
        .await
}

fn status(id: &str, to: &str, at: u64, state: &str) -> String {
    body(
        "statuses",
        json!([{"id": id, "recipient_id": to, "timestamp": at.to_string(), "status": state}]),
    )
}

/// POSTs `body` to `/inbound/chat`, signed with `secret` (none: unsigned).
async fn post(http: &reqwest::Client, server: &Server, body: &str, secret: Option<&str>) -> u16 {
    let mut request = http
        .post(format!("{}/inbound/chat", server.base()))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(secret) = secret {
        let signature = mcp_server::sign_webhook(secret, "sha256=", body.as_bytes());
        request = request.header("x-hub-signature-256", signature);
    }
    request.send().await.expect("post").status().as_u16()
}

async fn conversation(server: &Server, number: &str) -> Value {
    Rpc::with_bearer(&server.url, KEY)
        .tool("chat_conversation_get", json!({"number": number}))
        .await
}

fn inbound_lines(server: &Server, at_least: usize) -> Vec<Value> {
    server
        .stdout
        .events_where(at_least, |e| e["event"] == "inbound")
}

#[tokio::test]
async fn webhooks_are_proved_kept_once_and_read_back_per_conversation() {
    let mut env = env();
    env.extend([
        ("MCP_LIMITS", "on".into()),
        ("MCP_LIMIT_PER_IP_PER_MINUTE", "40".into()),
    ]);
    let server = Server::start_with_env(&env);
    let http = reqwest::Client::new();
    let hub = |token: &str| {
        format!(
            "{}/inbound/chat?hub.mode=subscribe&hub.verify_token={token}&hub.challenge=1158201444",
            server.base()
        )
    };
    let answer = http.get(hub(VERIFY)).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.text().await.unwrap(), "1158201444");
    assert_eq!(http.get(hub("guess")).send().await.unwrap().status(), 403);

    let t = now() - 3_600;
    let yes = named("wamid.B", MUELLER, "Jörg Müller", t, "Ja, Dienstag passt.");
    assert_eq!(post(&http, &server, &yes, Some(SECRET)).await, 200);
    // Meta retries, and delivers out of order: an older message after a newer one, a status
    // twice. Each is kept once.
    let earlier = message("wamid.A", MUELLER, t - 60, "Wann kommen Sie?");
    let read = status("wamid.OUT", MUELLER, t + 5, "read");
    for b in [&yes, &read, &earlier, &read, &yes] {
        assert_eq!(post(&http, &server, b, Some(SECRET)).await, 200);
    }
    // Refused, nothing kept: a wrong or missing signature, a body over the limit, a body that is
    // no JSON or whose event lacks its time, an unknown connector.
    let forged = message("wamid.X", MUELLER, t + 10, "Bitte an IBAN DE00 überweisen");
    assert_eq!(post(&http, &server, &forged, Some("guessed")).await, 401);
    assert_eq!(post(&http, &server, &forged, None).await, 401);
    let huge = message("wamid.Y", MUELLER, t, &"x".repeat(20_000));
    assert_eq!(post(&http, &server, &huge, Some(SECRET)).await, 413);
    assert_eq!(post(&http, &server, "{not json", Some(SECRET)).await, 400);
    let timeless = body("messages", json!([{"id": "wamid.Z", "from": MUELLER}]));
    assert_eq!(post(&http, &server, &timeless, Some(SECRET)).await, 400);
    let elsewhere = http.post(format!("{}/inbound/nobody", server.base()));
    assert_eq!(elsewhere.send().await.unwrap().status(), 404);

    let data = conversation(&server, MUELLER).await;
    let events = data["data"]["events"].as_array().unwrap();
    let ids: Vec<&str> = events
        .iter()
        .map(|e| e["event"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["wamid.OUT", "wamid.B", "wamid.A"], "{data}");
    assert_eq!(events[1]["event"]["text"]["body"], "Ja, Dienstag passt.");
    assert_eq!(data["data"]["reply_window"]["open"], true, "{data}");
    assert_eq!(data["_untrusted"], json!(["events"]));
    // Someone who wrote 25 hours ago: the window is closed; someone who never wrote: no events.
    let old = named(
        "wamid.C",
        "4930123456",
        "Anna Berg",
        now() - 25 * 3_600,
        "Hallo",
    );
    assert_eq!(post(&http, &server, &old, Some(SECRET)).await, 200);
    let closed = conversation(&server, "4930123456").await;
    assert_eq!(closed["data"]["reply_window"]["open"], false, "{closed}");
    let nobody = conversation(&server, "4940000000").await;
    assert_eq!(nobody["data"]["events"], json!([]));
    // Who wrote, newest first; "muller" finds Jörg Müller without his number.
    let all = conversations(&server, None).await;
    let listed = all["data"]["conversations"].as_array().unwrap();
    let who: Vec<&str> = listed.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(who, ["Jörg Müller", "Anna Berg"], "{all}");
    assert_eq!(listed[1]["reply_window"]["open"], false);
    assert_eq!(all["_untrusted"], json!(["conversations"]));
    let found = conversations(&server, Some("muller")).await;
    let listed = found["data"]["conversations"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{found}");
    assert_eq!(listed[0]["conversation"], MUELLER);
    assert_eq!(listed[0]["reply_window"]["open"], true);

    // One audit line per POST, without a number or a text.
    let lines = inbound_lines(&server, 12);
    let count = |status: &str| lines.iter().filter(|l| l["status"] == status).count();
    assert_eq!(
        (count("ok"), count("unauthorized"), count("too_large")),
        (7, 2, 1)
    );
    assert_eq!(count("malformed"), 2);
    let stored: u64 = lines
        .iter()
        .filter_map(|l| l["inbound_stored"].as_u64())
        .sum();
    let duplicates: u64 = lines
        .iter()
        .filter_map(|l| l["inbound_duplicates"].as_u64())
        .sum();
    assert_eq!((stored, duplicates), (4, 3));
    let all = server.stdout.joined() + &server.stderr.joined();
    assert!(
        !all.contains(MUELLER) && !all.contains("Dienstag") && !all.contains("Müller"),
        "{all}"
    );
    assert!(!all.contains("muller") && !all.contains("Anna"), "{all}");

    // A flood from one address: held to 429 by the per-IP limit (40 a minute, of which the
    // requests above took 18; the windows are fixed minutes, so at most 41 more if one turns).
    let mut codes = Vec::new();
    while codes.last() != Some(&429) && codes.len() < 100 {
        codes.push(post(&http, &server, &forged, Some("guessed")).await);
    }
    assert_eq!(codes.last(), Some(&429), "{codes:?}");
    assert!(
        codes.len() <= 42,
        "{} requests before the limit",
        codes.len()
    );
    assert!(
        codes[..codes.len() - 1].iter().all(|c| *c == 401),
        "{codes:?}"
    );
}

/// moto with the inbound table (pk, sk) and a KMS key: the server's environment.
async fn aws(moto: &Moto) -> Vec<(&'static str, String)> {
    moto.create_table(TABLE, "pk", Some("sk")).await;
    let key_id = crate::vault::kms_client(&moto.endpoint)
        .create_key()
        .send()
        .await
        .expect("create the KMS key")
        .key_metadata
        .unwrap()
        .key_id;
    let mut env = moto.env();
    env.extend([
        ("MCP_INBOUND_TABLE", TABLE.to_string()),
        ("MCP_INBOUND_KEY_ID", key_id),
    ]);
    env
}

#[tokio::test]
async fn webhooks_on_dynamodb_are_sealed_kept_once_and_acknowledged_fast() {
    let moto = Moto::start();
    let mut env = env();
    env.extend(aws(&moto).await);
    let server = Server::start_with_env(&env);
    let http = reqwest::Client::new();

    // 200 signed bodies one after another, as Meta sends a busy number's messages: the time each
    // waits for its 200.
    let t = now() - 600;
    let mut waits = Vec::new();
    for i in 0..200u64 {
        let b = named(
            &format!("wamid.{i}"),
            MUELLER,
            "Jörg Müller",
            t + i,
            &format!("Nachricht {i}"),
        );
        let started = Instant::now();
        assert_eq!(post(&http, &server, &b, Some(SECRET)).await, 200);
        waits.push(started.elapsed());
    }
    waits.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    eprintln!(
        "inbound: 200 signed bodies on moto (DynamoDB + KMS): median {:.1} ms, p95 {:.1} ms, \
         longest {:.1} ms",
        ms(waits[99]),
        ms(waits[189]),
        ms(waits[199])
    );
    // A retry, and 20 forged bodies: nothing more is kept.
    let again = message("wamid.7", MUELLER, t + 7, "Nachricht 7");
    assert_eq!(post(&http, &server, &again, Some(SECRET)).await, 200);
    let mut refused = 0;
    for i in 0..20 {
        let forged = message(&format!("wamid.f{i}"), MUELLER, t, "gefälscht");
        if post(&http, &server, &forged, Some("guessed")).await == 401 {
            refused += 1;
        }
    }
    eprintln!("inbound: {refused} of 20 bodies with a wrong signature refused with 401");
    assert_eq!(refused, 20);

    let items = moto
        .dynamodb_client(&moto.endpoint)
        .scan()
        .table_name(TABLE)
        .send()
        .await
        .unwrap()
        .items
        .unwrap_or_default();
    // 200 events and each body's entry in the conversations index, all sealed.
    assert_eq!(items.len(), 400);
    let raw = format!("{items:?}");
    assert!(!raw.contains(MUELLER) && !raw.contains("Nachricht") && !raw.contains("wamid"));
    assert!(!raw.contains("Müller"));
    assert!(items.iter().all(|i| i.contains_key("expires_at")));

    let data = conversation(&server, MUELLER).await;
    let events = data["data"]["events"].as_array().unwrap();
    assert_eq!(events.len(), 20, "the tool's default limit");
    assert_eq!(events[0]["event"]["text"]["body"], "Nachricht 199");
    assert_eq!(data["data"]["reply_window"]["open"], true);
    let found = conversations(&server, Some("MÜLLER")).await;
    let listed = found["data"]["conversations"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{found}");
    assert_eq!(listed[0]["name"], "Jörg Müller");
    assert_eq!(listed[0]["conversation"], MUELLER);
}
