//! Bounded work for every input, against the real `mcp-server` process: a 1 MB tool name answers
//! at once while the server keeps serving others, and a 50 MB upstream answer is cut at the
//! cap with the server's memory staying small.

use std::time::Duration;

use integration_tests::{KEY, Rpc, Server, repo, structured};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn a_megabyte_call_tool_name_answers_at_once_and_others_are_served_meanwhile() {
    let server = Server::start(&[], &[("MCP_API_KEYS", &format!("e2e:{KEY}"))]);
    let rpc = Rpc::new(&server.url);
    let huge = "x".repeat(1_000_000);
    let (big, list) = tokio::join!(
        rpc.call("call_tool", json!({"name": huge, "arguments": {}})),
        async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            rpc.list().await
        }
    );
    let s = structured(&big);
    assert_eq!(s["status"], json!("invalid_input"), "{s}");
    assert!(s["hint"].as_str().unwrap().contains("at most 128"), "{s}");
    assert!(
        list.contains(&"papierkram_invoices_list".to_string()),
        "{list:?}"
    );
    let direct = rpc.call(&"y".repeat(1_000_000), json!({})).await;
    assert_eq!(direct["error"]["code"], json!(-32602), "{direct}");
    assert!(
        direct.to_string().len() < 1000,
        "the error does not echo the name"
    );
}

/// A raw HTTP upstream that answers every request with a chunked JSON body of `total` bytes.
async fn huge_upstream(total: usize) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = vec![b' '; 64 * 1024];
                let mut sent = 0;
                while sent < total {
                    let frame = format!("{:x}\r\n", chunk.len());
                    let ok = socket.write_all(frame.as_bytes()).await.is_ok()
                        && socket.write_all(&chunk).await.is_ok()
                        && socket.write_all(b"\r\n").await.is_ok();
                    if !ok {
                        return; // the server stopped reading at its cap
                    }
                    sent += chunk.len();
                }
                let _ = socket.write_all(b"0\r\n\r\n").await;
            });
        }
    });
    addr
}

#[tokio::test]
async fn a_50_mb_upstream_answer_is_cut_at_the_cap_and_memory_stays_small() {
    let upstream = huge_upstream(50 * 1024 * 1024).await;
    let catalogs = repo().join("tests/catalogs");
    let server = Server::start(
        &["--catalog", catalogs.to_str().unwrap()],
        &[
            ("MCP_API_KEYS", &format!("e2e:{KEY}")),
            ("DEMO_HOST", &upstream.to_string()),
            ("DEMO_TOKEN", "t"),
        ],
    );
    let rpc = Rpc::new(&server.url);
    for _ in 0..3 {
        let reply = rpc.call("demo_info_get", json!({})).await;
        let s = structured(&reply);
        assert_eq!(s["status"], json!("unavailable"), "{s}");
        assert!(
            s["hint"].as_str().unwrap().contains("larger than 4 MiB"),
            "{s}"
        );
    }
    let event = server.stdout.event_for("demo_info_get");
    assert_eq!(event["reason"], json!("upstream_too_large"));
    let peak = server.peak_rss_kib().expect("VmHWM on Linux");
    println!("mcp-server peak RSS after three 50 MB answers: {peak} KiB");
    assert!(peak < 64 * 1024, "peak RSS {peak} KiB");
}

#[tokio::test]
async fn start_up_warns_about_keys_without_a_profile_and_refuses_them() {
    let other = "other-key-0123456789abcdef";
    let server = Server::start(
        &[],
        &[
            ("MCP_API_KEYS", &format!("e2e:{KEY},other:{other}")),
            ("MCP_PROFILES", "books=papierkram/*"),
            ("MCP_KEY_PROFILES", "e2e=books"),
        ],
    );
    let warning = server
        .stderr
        .wait_for(
            |l| l.contains("API keys without a profile"),
            Duration::from_secs(5),
        )
        .unwrap_or_else(|| panic!("no warning:\n{}", server.stderr.joined()));
    assert!(warning.contains("key_ids=other"), "{warning}");
    let mut rpc = Rpc::new(&server.url);
    assert!(
        rpc.list()
            .await
            .contains(&"papierkram_invoices_list".to_string())
    );
    rpc.key = Some(other.to_string());
    let refused = rpc
        .post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            &[],
        )
        .await;
    assert_eq!(refused.status(), 403);
}
