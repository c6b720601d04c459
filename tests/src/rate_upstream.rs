//! An upstream that counts when each request arrives, for the test of an upstream's own rate
//! (`quota.rate`): `GET /items/{id}` answers the item at once and notes the arrival time, and
//! the test asks for the most requests that arrived within any window of a given length, the
//! way an upstream that allows so many requests a second counts them. Listens on 127.0.0.1
//! only.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path, State};
use axum::routing::get;
use serde_json::{Value, json};

/// The arrivals so far, shared with the test.
#[derive(Clone, Debug)]
pub struct Arrivals(Arc<Mutex<Vec<Instant>>>);

impl Default for Arrivals {
    fn default() -> Self {
        Arrivals(Arc::new(Mutex::new(Vec::new())))
    }
}

impl Arrivals {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Instant>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.lock().len()
    }

    /// When each request arrived, in milliseconds after the first.
    pub fn offsets_ms(&self) -> Vec<u128> {
        let mut times = self.lock().clone();
        times.sort();
        times.iter().map(|t| (*t - times[0]).as_millis()).collect()
    }

    /// The most requests that arrived within any `window` (half open: a request exactly one
    /// window after another falls into the next).
    pub fn most_within(&self, window: Duration) -> usize {
        let mut times = self.lock().clone();
        times.sort();
        let mut most = 0;
        let mut first = 0;
        for (i, t) in times.iter().enumerate() {
            while *t - times[first] >= window {
                first += 1;
            }
            most = most.max(i - first + 1);
        }
        most
    }
}

/// Starts the upstream on a free loopback port.
pub async fn spawn(
    arrivals: Arrivals,
) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
    let addr = listener.local_addr()?;
    let router = Router::new()
        .route("/items/{id}", get(item))
        .with_state(arrivals);
    let handle = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Ok((addr, handle))
}

async fn item(State(arrivals): State<Arrivals>, Path(id): Path<u64>) -> axum::Json<Value> {
    arrivals.lock().push(Instant::now());
    axum::Json(json!({"id": id, "name": format!("item {id}")}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_within_a_window_counts_a_sliding_half_open_window() {
        let a = Arrivals::default();
        let t0 = Instant::now();
        for ms in [0, 200, 400, 600, 800, 1000, 1100] {
            a.lock().push(t0 + Duration::from_millis(ms));
        }
        assert_eq!(a.most_within(Duration::from_secs(1)), 6, "200..1100");
        assert_eq!(a.most_within(Duration::from_millis(150)), 2, "1000, 1100");
    }
}
