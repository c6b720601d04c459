//! The capability pages: `/connectors` of a server with the shipped catalogs, behind the same
//! authentication as `/mcp` (a key limited to a profile sees that profile's connectors only),
//! read-only HTML with no secret on it, as headless Chromium shows it at a phone's and a
//! desktop's width (screenshots in `target/look/pages/`); and the committed Markdown pages
//! beside the shipped catalogs, which `mcp-server lint` checks against the catalogs (CI runs
//! it; the `page` lint tests cover stale, missing and unreviewed pages).

use integration_tests::look::{assert_plain_and_clear, look_at};
use integration_tests::{Server, repo};

const KEY: &str = "pages-key-0123456789abcdef";
const CALENDAR_KEY: &str = "pages-calendar-0123456789abcdef";
const SECRET: &str = "papierkram-token-never-shown-4711";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connectors_page_shows_what_a_caller_may_use_and_no_secret() {
    let server = Server::start(
        &[],
        &[
            ("MCP_API_KEYS", &format!("all:{KEY},cal:{CALENDAR_KEY}")),
            (
                "MCP_PROFILES",
                "accounting=papierkram/*,sevdesk/*;calendar=+calcom/*;everything=*/*",
            ),
            ("MCP_KEY_PROFILES", "all=everything,cal=calendar"),
            ("PAPIERKRAM_TOKEN", SECRET),
            ("PAPIERKRAM_SUBDOMAIN", "demo"),
        ],
    );
    let url = format!("{}/connectors", server.url.trim_end_matches("/mcp"));
    let http = reqwest::Client::new();
    let get = |key: Option<&str>| {
        let mut request = http.get(&url);
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        request.send()
    };

    let refused = get(None).await.unwrap();
    assert_eq!(refused.status(), 401);
    let wrong = get(Some("not-a-key-0123456789abcdef")).await.unwrap();
    assert_eq!(wrong.status(), 401);

    let all = get(Some(KEY)).await.unwrap();
    assert_eq!(all.status(), 200);
    let csp = all.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"),
        "{csp}"
    );
    assert_eq!(all.headers()["cache-control"], "no-store");
    let all = all.text().await.unwrap();
    for title in ["Papierkram", "sevdesk", "Cal.com", "Replicate", "Runway"] {
        assert!(
            all.contains(&format!("<h2>{title}</h2>")),
            "{title} missing"
        );
    }
    assert!(all.contains("<code>papierkram_<wbr>invoice_<wbr>create</code>"));
    assert!(!all.contains(SECRET), "a secret on the page");
    assert!(
        !all.contains("demo.papierkram.de"),
        "a secret field's value on the page"
    );

    let calendar = get(Some(CALENDAR_KEY)).await.unwrap().text().await.unwrap();
    assert!(calendar.contains("<h2>Cal.com</h2>"), "{calendar}");
    assert!(!calendar.contains("Papierkram") && !calendar.contains("Runway"));
    assert!(
        calendar.contains("Reached through the profiles: calendar, everything"),
        "{calendar}"
    );

    let seen = look_at(
        &repo().join("target/look/pages"),
        &[("connectors", &all), ("calendar", &calendar)],
    );
    assert_plain_and_clear(&seen);
}
