//! A TCP relay in front of a service that counts the AWS API calls passing through it (by their
//! `X-Amz-Target` header), so a test can say how many store requests a tool call cost.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub struct CountingProxy {
    pub addr: SocketAddr,
    count: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl CountingProxy {
    /// Relays every connection to `target`, counting requests whose `X-Amz-Target` names
    /// `operation` (e.g. `DynamoDB_20120810.UpdateItem`).
    pub async fn start(target: SocketAddr, operation: &str) -> CountingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let count = Arc::new(AtomicU64::new(0));
        let needle = format!("x-amz-target: {operation}").to_ascii_lowercase();
        let counter = count.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let counter = counter.clone();
                let needle = needle.clone();
                tokio::spawn(async move {
                    if let Ok(server) = TcpStream::connect(target).await {
                        relay(client, server, &needle, &counter).await;
                    }
                });
            }
        });
        CountingProxy { addr, count, task }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Requests of the operation seen so far.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}

impl Drop for CountingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn relay(client: TcpStream, server: TcpStream, needle: &str, counter: &AtomicU64) {
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let upstream = async {
        let mut buf = vec![0u8; 16 * 1024];
        // The tail of the previous read, so a header split across reads is still seen once.
        let mut carry: Vec<u8> = Vec::new();
        loop {
            let n = match client_read.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let mut window = std::mem::take(&mut carry);
            let seen_before = window.len();
            window.extend(buf[..n].iter().map(u8::to_ascii_lowercase));
            let mut from = 0;
            while let Some(at) = find(&window[from..], needle.as_bytes()) {
                // Count only matches that end in the new bytes (not wholly inside the carry).
                if from + at + needle.len() > seen_before {
                    counter.fetch_add(1, Ordering::Relaxed);
                }
                from += at + needle.len();
            }
            let keep = needle.len().saturating_sub(1).min(window.len());
            carry = window[window.len() - keep..].to_vec();
            if server_write.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
        let _ = server_write.shutdown().await;
    };
    let downstream = async {
        let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
        let _ = client_write.shutdown().await;
    };
    tokio::join!(upstream, downstream);
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
