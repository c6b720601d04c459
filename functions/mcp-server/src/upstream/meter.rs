//! How many upstream requests one tool call sent, and how many it may still send (the
//! caller's reservation on its budget). Every request [`super::Upstream::fetch`] sends, every
//! page of an aggregation included, goes through [`Meter::take`]; the one re-send after a 401
//! with a re-read secret (rotation) does not: the caller pays for one answer.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::UpstreamError;

#[derive(Debug, Default)]
pub struct Meter {
    allowance: Option<u64>,
    sent: AtomicU64,
    refused: AtomicBool,
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
