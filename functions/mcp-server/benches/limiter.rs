//! What the limiter costs a tool call, with the in-memory store (the local default and each
//! instance's fallback). The same `papierkram_info_get` call goes through the whole app (`app()` with
//! `oneshot`, the Papierkram sandbox on loopback as the upstream) twice per round: once with
//! every limit and budget on (sized so none refuses) and once with `MCP_LIMITS=off`, the peer
//! measured in the same run. It reports both latency distributions, the difference and the
//! ratio, and the limiter's own counting (`request_from` + `tool_call_by`) timed alone.
//!
//! Run: `cargo bench -p mcp-server --bench limiter` (`ROUNDS=…` to change the 2,000 rounds).

mod common;

use std::collections::BTreeMap;
use std::time::Instant;

use common::{call, line, micros, router, stats};
use mcp_server::{Limits, Thresholds};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let rounds = common::rounds(2000);
    let base = common::sandbox().await;
    let common = [("PAPIERKRAM_BASE_URL", base.as_str())];
    let limited = router(
        &[
            &common[..],
            &[
                ("MCP_LIMITS", "on"),
                ("MCP_LIMIT_PER_IP_PER_MINUTE", "100000000"),
                ("MCP_LIMIT_PER_CALLER_PER_MINUTE", "100000000"),
                ("MCP_LIMIT_DAILY_CALLS", "100000000"),
            ],
        ]
        .concat(),
    );
    let open = router(&[&common[..], &[("MCP_LIMITS", "off")]].concat());

    // Warm both (connections, caches), then alternate so drift hits both alike.
    for _ in 0..50 {
        call(&limited).await;
        call(&open).await;
    }
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        with.push(call(&limited).await);
        without.push(call(&open).await);
    }
    let (on, off) = (stats(with), stats(without));
    println!("tool call through app(), {rounds} rounds, microseconds:");
    println!("{}", line("limits on (in memory):", &on));
    println!("{}", line("limits off (the peer):", &off));
    println!(
        "  overhead: p50 {:+.1} µs, mean {:+.1} µs; ratio on/off: p50 {:.3}, mean {:.3}",
        on.p50 - off.p50,
        on.mean - off.mean,
        on.p50 / off.p50,
        on.mean / off.mean
    );

    // The limiter alone: one request's IP count and one tool call's tally, many callers.
    let limits = Limits::new(
        Thresholds {
            per_ip_per_minute: 100_000_000,
            per_caller_per_minute: 100_000_000,
            daily_calls: 100_000_000,
            ..Thresholds::DEFAULT
        },
        BTreeMap::from([("papierkram".to_string(), 100_000_000)]),
        None,
    );
    let now = mcp_server::now_s();
    let n = 200_000u32;
    let client = Some(std::net::IpAddr::from([192, 0, 2, 10]));
    let started = Instant::now();
    for i in 0..n {
        let caller = format!("key{}", i % 10);
        limits.request_from(client, now).unwrap();
        let cost = mcp_server::Cost {
            connector: "papierkram".to_string(),
            requests: 1,
        };
        let admission = limits.tool_call_by(&caller, Some(cost), now).await.unwrap();
        limits.settle(&admission, "papierkram", 1);
    }
    let per = started.elapsed() / n;
    println!(
        "limiter alone (IP count + tool-call tally with a reservation + settling), {n} calls: {:.2} µs per call",
        micros(per)
    );
}
