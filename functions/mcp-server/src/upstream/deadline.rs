//! One deadline per tool call, below the function's own timeout: every upstream request of the
//! call (retries, every page of an aggregation) gets only what is left of it, so a slow upstream
//! ends as a status result with an audit line instead of a gateway timeout.

use std::time::{Duration, Instant};

/// Requests are not started with less time than this left: they could not finish.
const MIN_REQUEST: Duration = Duration::from_millis(50);

#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Instant,
    budget: Duration,
}

impl Deadline {
    /// A deadline `budget` from now.
    pub fn after(budget: Duration) -> Self {
        Deadline {
            at: Instant::now() + budget,
            budget,
        }
    }

    /// The whole budget the call was given.
    pub fn budget(&self) -> Duration {
        self.budget
    }

    /// What is left, `None` when too little is left to start another request.
    pub fn remaining(&self) -> Option<Duration> {
        let left = self.at.saturating_duration_since(Instant::now());
        (left >= MIN_REQUEST).then_some(left)
    }

    /// A request's timeout: its own limit, cut to what is left of the call; `None` when the
    /// call is out of time.
    pub fn timeout(&self, own: Duration) -> Option<Duration> {
        self.remaining().map(|left| left.min(own))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_gets_the_smaller_of_its_timeout_and_what_is_left() {
        let d = Deadline::after(Duration::from_secs(8));
        let t = d.timeout(Duration::from_secs(10)).unwrap();
        assert!(t <= Duration::from_secs(8) && t > Duration::from_secs(7));
        assert_eq!(
            d.timeout(Duration::from_secs(1)),
            Some(Duration::from_secs(1))
        );
        let spent = Deadline::after(Duration::from_millis(10));
        assert_eq!(spent.timeout(Duration::from_secs(1)), None);
    }
}
