//! How many upstream requests one tool call sent, and how many it may still send (the
//! caller's reservation on its budget); and, where the upstream declares its own rate, each
//! request's turn. Every request [`super::Upstream::fetch`] sends, every page of an aggregation
//! included, goes through [`Meter::take`]; the one re-send after a 401 with a re-read secret
//! (rotation) does not: the caller pays for one answer. Every request sent at all, the re-send
//! too, first waits for its turn ([`Meter::turn`]): the upstream counts them all.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::{Deadline, UpstreamError};
use crate::limits::{Limits, Turn};

/// How long after its time a turn may still be used (see [`Meter::turn`]).
const SLACK_MS: u64 = 150;
/// Turns one request may take before it gives up (each missed by a late table).
const TURNS: usize = 3;

/// The time between two turns: requests that each go within [`SLACK_MS`] of their turn are
/// never more than the rate's `requests` within its period (`(period + slack) / requests`,
/// rounded up). Lexware's 2 a second: 575 ms.
fn spacing(rate: catalog::Rate) -> u64 {
    (u64::from(rate.seconds) * 1000 + SLACK_MS).div_ceil(u64::from(rate.requests.max(1)))
}

#[derive(Debug, Default)]
pub struct Meter {
    allowance: Option<u64>,
    sent: AtomicU64,
    refused: AtomicBool,
    pace: Option<Paced>,
    /// Milliseconds this call's requests waited for their turns.
    waited_ms: AtomicU64,
}

/// The upstream's own rate the call's requests keep (the pace stage of the pipeline builds it).
pub struct Paced {
    pub limits: Arc<Limits>,
    pub connector: String,
    pub rate: catalog::Rate,
    /// How long one request may take (its connector's timeout): a turn must leave that much of
    /// the call's deadline, at most half of what is left.
    pub request_ms: u64,
}

impl std::fmt::Debug for Paced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Paced({}: {})", self.connector, self.rate.words())
    }
}

impl Meter {
    /// No budget: counts only.
    pub fn unlimited() -> Self {
        Meter::default()
    }

    /// At most `allowance` requests.
    pub fn allowing(allowance: u64) -> Self {
        Meter {
            allowance: Some(allowance),
            ..Meter::default()
        }
    }

    /// The same meter, its requests taking turns at the upstream's rate.
    pub fn pacing(self, paced: Paced) -> Self {
        Meter {
            pace: Some(paced),
            ..self
        }
    }

    /// Waits for the next request's turn at the upstream's rate (at once where none is
    /// declared); `Paced` when no turn is free before `deadline` leaves the request its time.
    /// A turn is good for [`SLACK_MS`] after its time: a request that could not go by then (the
    /// table answered late) takes another, so the upstream never sees two requests closer than
    /// the rate allows, whatever the round trips.
    pub async fn turn(&self, deadline: &Deadline) -> Result<(), UpstreamError> {
        let Some(p) = &self.pace else {
            return Ok(());
        };
        let interval = spacing(p.rate);
        let mut retry_after_ms = interval;
        for _ in 0..TURNS {
            let now = crate::clock::now_ms();
            let left = deadline.remaining().unwrap_or_default().as_millis() as u64;
            let latest = now + left.saturating_sub(p.request_ms.min(left / 2));
            match p
                .limits
                .pace()
                .turn(&p.connector, interval, now, latest)
                .await
            {
                Turn::At(at) => {
                    let wait = at.saturating_sub(crate::clock::now_ms());
                    if wait > 0 {
                        tokio::time::sleep(Duration::from_millis(wait)).await;
                    }
                    self.waited_ms.fetch_add(
                        crate::clock::now_ms().saturating_sub(now),
                        Ordering::Relaxed,
                    );
                    if crate::clock::now_ms() <= at + SLACK_MS {
                        return Ok(());
                    }
                }
                Turn::TooLate { retry_after_ms: r } => {
                    retry_after_ms = r;
                    break;
                }
            }
        }
        Err(UpstreamError::Paced {
            rate: p.rate.words(),
            retry_after_s: retry_after_ms.div_ceil(1000),
        })
    }

    /// Milliseconds the call's requests waited for their turns.
    pub fn waited_ms(&self) -> u64 {
        self.waited_ms.load(Ordering::Relaxed)
    }

    /// One more request, unless the allowance is used up.
    pub fn take(&self) -> Result<(), UpstreamError> {
        let sent = self.sent.fetch_add(1, Ordering::Relaxed);
        match self.allowance {
            Some(allowance) if sent >= allowance => {
                self.sent.fetch_sub(1, Ordering::Relaxed);
                self.refused.store(true, Ordering::Relaxed);
                Err(UpstreamError::OverBudget { allowance })
            }
            _ => Ok(()),
        }
    }

    /// Requests sent.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// Whether a request was held back because the allowance was used up.
    pub fn ran_out(&self) -> bool {
        self.refused.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_leave_room_for_the_slack_so_no_period_holds_more_than_the_rate() {
        let rate = |requests, seconds| catalog::Rate { requests, seconds };
        assert_eq!(spacing(rate(2, 1)), 575);
        assert_eq!(spacing(rate(5, 1)), 230);
        assert_eq!(spacing(rate(600, 60)), 101);
        // The worst case: every other request as late as its turn allows; still at most
        // `requests` within any period.
        let (r, period) = (2u64, 1000u64);
        let sent: Vec<u64> = (0..20)
            .map(|i| i * spacing(rate(2, 1)) + if i % 2 == 0 { SLACK_MS } else { 0 })
            .collect();
        for (j, start) in sent.iter().enumerate() {
            let within = sent[j..].iter().filter(|s| **s < start + period).count() as u64;
            assert!(within <= r, "{within} from {start}");
        }
    }

    #[test]
    fn the_allowance_holds_back_the_request_past_it_and_counts_what_was_sent() {
        let meter = Meter::allowing(2);
        assert!(meter.take().is_ok());
        assert!(meter.take().is_ok());
        assert_eq!(
            meter.take(),
            Err(UpstreamError::OverBudget { allowance: 2 })
        );
        assert_eq!(meter.sent(), 2);
        assert!(meter.ran_out());
        let open = Meter::unlimited();
        for _ in 0..500 {
            open.take().unwrap();
        }
        assert_eq!(open.sent(), 500);
        assert!(!open.ran_out());
    }
}
