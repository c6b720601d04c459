//! The MCP Inspector's CLI (the pinned `@modelcontextprotocol/inspector`) connects with the URL
//! alone: it finds our metadata, registers itself (DCR), and prints the authorization URL; a
//! person's browser (simulated hop by hop) signs in
//! at the IdP and approves on our consent page; the redirect reaches the Inspector's loopback
//! listener, which exchanges the code and lists the tools with our token.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use integration_tests::{TempDir, free_port, tool};
use serde_json::Value;

use super::{Browser, Setup};

pub(super) async fn the_inspector_connects_by_itself(s: &Setup) {
    let home = TempDir::new("inspector-home");
    let callback = format!("http://127.0.0.1:{}/oauth/callback", free_port());
    let mut child = Command::new(tool("node/node_modules/.bin/mcp-inspector"))
        .args([
            "--cli",
            &s.resource,
            "--transport",
            "http",
            "--method",
            "tools/list",
        ])
        .args(["--format", "json", "--callback-url", &callback])
        .env("HOME", &home.path)
        .env("XDG_CONFIG_HOME", home.path.join("config"))
        .env("XDG_DATA_HOME", home.path.join("data"))
        .env("XDG_CACHE_HOME", home.path.join("cache"))
        // Without a terminal the CLI refuses interactive OAuth unless told to go ahead; the
        // browser it would open is `true` (the test is the browser).
        .env("MCP_AUTO_OPEN_ENABLED", "true")
        .env("BROWSER", "true")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the Inspector");
    // The authorization URL it asks a person to open (on stderr, read to its end beside).
    let stderr = child.stderr.take().unwrap();
    let (url_tx, url_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.split("Please navigate to: ").nth(1) {
                let _ = url_tx.send(url.trim().to_string());
            }
            seen.push(line);
        }
        seen
    });
    let found = tokio::task::spawn_blocking(move || url_rx.recv().ok())
        .await
        .unwrap();
    let Some(authorize) = found else {
        let _ = child.kill();
        panic!(
            "no authorization URL from the Inspector: {:?}",
            reader.join()
        );
    };
    assert!(
        authorize.starts_with(&s.url("/oauth/authorize?")),
        "{authorize}"
    );

    let mut browser = Browser::new();
    let (ticket, _) = s.consent_from(&mut browser, authorize).await;
    let to_inspector = s.approved(&mut browser, &ticket).await;
    assert!(to_inspector.starts_with(&callback), "{to_inspector}");
    let (status, _, _) = browser.open(&to_inspector, None).await;
    assert_eq!(status, 200, "the Inspector's listener took the code");

    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = reader.join().unwrap();
    assert!(out.status.success(), "{stdout} {stderr:?}");
    let listed: Value = serde_json::from_str(&stdout).expect("the Inspector's JSON");
    let tools = listed["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        tools
            .iter()
            .any(|t| t["name"] == "papierkram_invoices_list"),
        "{stdout}"
    );
}
