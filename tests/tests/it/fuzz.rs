//! A bounded black-box fuzz run against the real `mcp-server` process (with its sandbox
//! upstream): a few thousand generated requests — random JSON-RPC shapes, huge and unicode
//! strings, deep nesting, wrong types, random headers — and for every answer: no 5xx but a
//! deliberate 503, a valid JSON-RPC message or a documented JSON HTTP error; the process alive
//! and healthy at the end, with no panic in its log.
//!
//! The generator is seeded (`FUZZ_SEED`, default fixed), so a failure is reproducible; `FUZZ_N`
//! sets the number of requests (default 3,000).

use integration_tests::{KEY, Server};
use serde_json::{Map, Value, json};

/// splitmix64: small, fast and good enough to shape test inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const METHODS: &[&str] = &[
    "initialize",
    "tools/list",
    "tools/call",
    "ping",
    "server/discover",
    "notifications/initialized",
    "resources/list",
    "prompts/get",
    "completion/complete",
    "tools/list/extra",
    "",
    "💥",
];
const TOOLS: &[&str] = &[
    "papierkram_invoices_list",
    "papierkram_invoice_get",
    "papierkram_info_get",
    "papierkram_open_items_get",
    "papierkram_month_close_get",
    "search_tools",
    "call_tool",
    "papierkram_raw_get",
    "papierkram_companies_list",
    "nope",
];
const WORDS: &[&str] = &[
    "page",
    "page_size",
    "fields",
    "count_only",
    "id",
    "query",
    "name",
    "arguments",
    "year",
    "month",
    "document_date_from",
    "confirm",
    "limit",
    "detail",
];

fn string(rng: &mut Rng) -> String {
    match rng.below(10) {
        // A long string: now and then long enough that a body passes the 1 MiB limit.
        0 if rng.chance(10) => "x".repeat(rng.below(300_000) as usize),
        0 => "x".repeat(rng.below(30_000) as usize),
        1 => "ü€😀\u{202e}\u{0}".repeat(rng.below(2_000) as usize),
        2 => rng.pick(WORDS).to_string(),
        3 => rng.pick(TOOLS).to_string(),
        4 => "2026-02-30".into(),
        5 => "../../admin?x=1#f".into(),
        6 => "Robert'); DROP TABLE--".into(),
        7 => String::new(),
        _ => format!("w{}", rng.next()),
    }
}

fn value(rng: &mut Rng, depth: u32) -> Value {
    match rng.below(if depth > 3 { 6 } else { 9 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.next() as i64),
        3 => json!(f64::from_bits(rng.next() & 0x7FEF_FFFF_FFFF_FFFF)),
        4 | 5 => json!(string(rng)),
        6 => Value::Array((0..rng.below(5)).map(|_| value(rng, depth + 1)).collect()),
        _ => Value::Object(object(rng, depth + 1)),
    }
}

fn object(rng: &mut Rng, depth: u32) -> Map<String, Value> {
    let most = if rng.chance(3) { 300 } else { 5 };
    (0..rng.below(most))
        .map(|_| {
            let key = if rng.chance(70) {
                rng.pick(WORDS).to_string()
            } else {
                string(rng)
            };
            (key, value(rng, depth))
        })
        .collect()
}

fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

/// One generated request: a body and its headers.
fn request(rng: &mut Rng) -> (Vec<u8>, Vec<(String, String)>) {
    let method = rng.pick(METHODS).to_string();
    let mut params = Map::new();
    match method.as_str() {
        "tools/call" => {
            let name = if rng.chance(80) {
                json!(rng.pick(TOOLS))
            } else {
                value(rng, 0)
            };
            params.insert("name".into(), name);
            let arguments = if rng.chance(85) {
                Value::Object(object(rng, 1))
            } else {
                value(rng, 1)
            };
            params.insert("arguments".into(), arguments);
        }
        "initialize" => {
            params.insert(
                "protocolVersion".into(),
                json!(rng.pick(&["2025-11-25", "2026-07-28", "1999-01-01"])),
            );
            params.insert("capabilities".into(), value(rng, 1));
            params.insert(
                "clientInfo".into(),
                json!({"name": string(rng), "version": string(rng)}),
            );
        }
        _ => params = object(rng, 1),
    }
    if rng.chance(30) {
        params.insert(
            "_meta".into(),
            json!({"io.modelcontextprotocol/protocolVersion": rng.pick(&["2026-07-28", "2025-11-25", "x"]),
                   "io.modelcontextprotocol/clientInfo": {"name": string(rng), "version": "1"}}),
        );
    }
    let mut message = json!({"jsonrpc": "2.0", "method": method, "params": params});
    match rng.below(10) {
        0 => {}
        1 => message["id"] = json!(string(rng)),
        2 => message["id"] = value(rng, 2),
        3 => message["jsonrpc"] = json!("1.0"),
        _ => message["id"] = json!(rng.below(1000)),
    }
    let body = match rng.below(20) {
        0 => nested(rng.below(5000) as usize + 1).into_bytes(),
        1 => b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ".to_vec(),
        2 => json!([message, message]).to_string().into_bytes(),
        3 => (0..rng.below(2000)).map(|_| rng.next() as u8).collect(),
        4 => value(rng, 0).to_string().into_bytes(),
        _ => message.to_string().into_bytes(),
    };
    let mut headers = vec![
        ("host".to_string(), "127.0.0.1".to_string()),
        ("content-type".to_string(), "application/json".to_string()),
        (
            "accept".to_string(),
            "application/json, text/event-stream".to_string(),
        ),
        ("authorization".to_string(), format!("Bearer {KEY}")),
    ];
    if rng.chance(15) {
        let i = rng.below(headers.len() as u64) as usize;
        let replacement = match rng.below(4) {
            0 => String::new(),
            1 => "text/plain; charset=utf-8".into(),
            2 => format!(
                "Bearer {}",
                string(rng).chars().take(500).collect::<String>()
            ),
            _ => "evil.example.com".into(),
        };
        headers[i].1 = replacement;
    }
    if rng.chance(10) {
        headers.remove(rng.below(headers.len() as u64) as usize);
    }
    if rng.chance(30) {
        let version = rng.pick(&["2025-11-25", "2026-07-28", "2024-01-01", "garbage"]);
        headers.push(("mcp-protocol-version".into(), version.to_string()));
    }
    if rng.chance(10) {
        headers.push(("mcp-method".into(), rng.pick(METHODS).to_string()));
        headers.push(("mcp-name".into(), rng.pick(TOOLS).to_string()));
    }
    if rng.chance(5) {
        headers.push(("origin".into(), "https://evil.example.com".into()));
    }
    if rng.chance(5) {
        headers.push(("x-user-email".into(), "alice@example.com".into()));
    }
    (body, headers)
}

/// The server's default `MCP_MAX_BODY_BYTES`.
const MAX_BODY: usize = 1024 * 1024;

/// The statuses an answer may have: success, or an error documented in the README.
const DOCUMENTED: &[u16] = &[200, 202, 400, 401, 403, 404, 405, 406, 413, 415, 429, 503];

/// Whether a body is one valid JSON-RPC 2.0 answer.
fn is_jsonrpc_answer(v: &Value) -> bool {
    v["jsonrpc"] == "2.0"
        && v.get("id").is_some()
        && (v.get("result").is_some() ^ v.get("error").is_some())
        && v.get("error")
            .is_none_or(|e| e["code"].is_i64() && e["message"].is_string())
}

#[tokio::test]
async fn a_few_thousand_generated_requests_get_no_5xx_and_only_documented_answers() {
    let mut server = Server::start(&[], &[("MCP_API_KEYS", &format!("e2e:{KEY}"))]);
    let seed = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_201);
    let n: u64 = std::env::var("FUZZ_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3_000);
    let mut rng = Rng(seed);
    // A fresh connection per request: the server closes one after refusing an oversized body
    // unread, and a pooled connection would race that close.
    let http = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let paths = [
        "/mcp",
        "/mcp",
        "/mcp",
        "/mcp",
        "/mcp",
        "/mcp",
        "/mcp",
        "/mcp",
        "/mcp/nope",
        "/mcp/%F0%9F%92%A5",
    ];
    let mut statuses = std::collections::BTreeMap::<u16, u32>::new();
    for i in 0..n {
        let (body, headers) = request(&mut rng);
        let path = *rng.pick(&paths);
        let mut r = http
            .post(format!("{}{path}", server.base()))
            .body(body.clone());
        for (k, v) in &headers {
            // HTTP cannot carry control characters; anything else, UTF-8 included, is sent.
            let v: String = v.chars().filter(|c| !c.is_control()).collect();
            let value = reqwest::header::HeaderValue::from_bytes(v.as_bytes()).expect("header");
            r = r.header(k.as_str(), value);
        }
        let response = match r.send().await {
            Ok(r) => r,
            // Over the body limit the server may answer 413 and close before the body is
            // written: the client sees a broken pipe, which is the refusal.
            Err(_) if body.len() > MAX_BODY => {
                *statuses.entry(413).or_default() += 1;
                continue;
            }
            Err(e) => {
                let b = String::from_utf8_lossy(&body)
                    .chars()
                    .take(300)
                    .collect::<String>();
                panic!(
                    "request {i} (seed {seed}) {path} {headers:?} got no answer: {e:?}\n  body: {b}\n{}",
                    server.stderr.joined()
                )
            }
        };
        let status = response.status().as_u16();
        *statuses.entry(status).or_default() += 1;
        let text = response.text().await.unwrap_or_default();
        let shown = || {
            let b = String::from_utf8_lossy(&body);
            format!(
                "request {i} (seed {seed}) {path} {headers:?}\n  body: {}\n  answer {status}: {}",
                b.chars().take(300).collect::<String>(),
                text.chars().take(300).collect::<String>()
            )
        };
        assert!(
            DOCUMENTED.contains(&status),
            "undocumented status: {}",
            shown()
        );
        if status == 202 {
            assert!(text.trim().is_empty(), "202 carries no body: {}", shown());
            continue;
        }
        let answer: Value = serde_json::from_str(&text)
            .unwrap_or_else(|_| panic!("answer is not JSON: {}", shown()));
        let http_error = answer["error"].is_string() && answer["message"].is_string();
        assert!(
            is_jsonrpc_answer(&answer) || http_error,
            "neither JSON-RPC nor a JSON error: {}",
            shown()
        );
        if status == 200 {
            assert!(is_jsonrpc_answer(&answer), "{}", shown());
        }
    }
    println!("fuzz: {n} requests (seed {seed}), statuses {statuses:?}");
    assert!(
        server.alive(),
        "the server died:\n{}",
        server.stderr.joined()
    );
    let health = http
        .get(format!("{}/health", server.base()))
        .header("host", "127.0.0.1")
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    assert!(
        !server.stderr.joined().contains("panicked"),
        "{}",
        server.stderr.joined()
    );
    // Most inputs are refused at the edge by design; enough must reach the MCP handler.
    let through = u64::from(statuses.get(&200).copied().unwrap_or(0));
    assert!(
        through * 10 > n,
        "too few requests reached the handler: {statuses:?}"
    );
}
