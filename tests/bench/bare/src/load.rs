//! `bench-load PORT CONNECTIONS WARMUP_S SECONDS < request`: the throughput half of
//! `tests/bench/run.sh`, like `wrk -t1 -cN`. Reads one raw HTTP/1.1 request from stdin and sends it
//! over CONNECTIONS keep-alive connections to 127.0.0.1:PORT on one thread, each connection
//! sending the next request when the reply is in. Replies count when they are `200` with a
//! JSON-RPC `result` that is not a tool error. Prints one JSON line: requests and errors
//! completed in the SECONDS after WARMUP_S, and the first error seen.

use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

struct Tally {
    ok: u64,
    errors: u64,
    first_error: Option<String>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [port, connections, warmup, seconds] = args.as_slice() else {
        return Err("usage: bench-load PORT CONNECTIONS WARMUP_S SECONDS < request".into());
    };
    let port: u16 = port.parse()?;
    let connections: usize = connections.parse()?;
    let from = Instant::now() + Duration::from_secs_f64(warmup.parse()?);
    let until = from + Duration::from_secs_f64(seconds.parse()?);
    let mut request = Vec::new();
    std::io::stdin().read_to_end(&mut request)?;
    let request = Arc::new(request);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let tallies = runtime.block_on(async {
        let tasks: Vec<_> = (0..connections)
            .map(|_| tokio::spawn(connection(port, request.clone(), from, until)))
            .collect();
        let mut out = Vec::new();
        for task in tasks {
            out.push(task.await.expect("connection task"));
        }
        out
    });
    let requests: u64 = tallies.iter().map(|t| t.ok).sum();
    let errors: u64 = tallies.iter().map(|t| t.errors).sum();
    let first_error = tallies.into_iter().find_map(|t| t.first_error);
    let elapsed = until.saturating_duration_since(from).as_secs_f64();
    println!(
        "{}",
        json!({"requests": requests, "errors": errors, "seconds": elapsed,
               "per_second": requests as f64 / elapsed, "first_error": first_error})
    );
    Ok(())
}

/// One keep-alive connection sending `request` until `until`; replies finished at or after
/// `from` are counted. A broken connection is reopened (and counted as an error).
async fn connection(port: u16, request: Arc<Vec<u8>>, from: Instant, until: Instant) -> Tally {
    let mut tally = Tally {
        ok: 0,
        errors: 0,
        first_error: None,
    };
    let mut buf = Vec::with_capacity(16 * 1024);
    while Instant::now() < until {
        let mut stream = match TcpStream::connect(("127.0.0.1", port)).await {
            Ok(s) => s,
            Err(e) => {
                note(&mut tally, from, format!("connect: {e}"));
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        loop {
            if Instant::now() >= until {
                return tally;
            }
            let reply = exchange(&mut stream, &request, &mut buf).await;
            if Instant::now() < from {
                if reply.is_err() {
                    break;
                }
                continue;
            }
            match reply {
                Ok(()) => tally.ok += 1,
                Err(e) => {
                    note(&mut tally, from, e);
                    break;
                }
            }
        }
    }
    tally
}

fn note(tally: &mut Tally, from: Instant, error: String) {
    if Instant::now() >= from {
        tally.errors += 1;
        tally.first_error.get_or_insert(error);
    }
}

/// Sends the request and reads one whole reply (Content-Length framing); Err says what was wrong.
async fn exchange(stream: &mut TcpStream, request: &[u8], buf: &mut Vec<u8>) -> Result<(), String> {
    stream
        .write_all(request)
        .await
        .map_err(|e| format!("write: {e}"))?;
    buf.clear();
    let (head_len, body_len) = loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&buf[..end]).map_err(|_| "head not UTF-8")?;
            if !head.starts_with("HTTP/1.1 200 ") {
                return Err(head.lines().next().unwrap_or_default().to_owned());
            }
            let length = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .ok_or("reply without Content-Length")?;
            break (end + 4, length);
        }
        read_more(stream, buf).await?;
    };
    while buf.len() < head_len + body_len {
        read_more(stream, buf).await?;
    }
    let body = &buf[head_len..head_len + body_len];
    let has = |needle: &[u8]| body.windows(needle.len()).any(|w| w == needle);
    if !has(b"\"result\"") || has(b"\"isError\":true") {
        return Err(String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned());
    }
    Ok(())
}

async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<(), String> {
    let mut chunk = [0u8; 8192];
    match stream.read(&mut chunk).await {
        Ok(0) => Err("connection closed".to_owned()),
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            Ok(())
        }
        Err(e) => Err(format!("read: {e}")),
    }
}
