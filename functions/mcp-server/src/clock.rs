//! The wall clock, read in one place: seconds and milliseconds since the epoch. Everything
//! that decides by time (windows, tokens, cursors, probes) takes `now` as a plain number from
//! here, so its logic stays testable with any instant.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Seconds since the epoch (0 should the clock stand before it).
pub fn now_s() -> u64 {
    since_epoch().as_secs()
}

/// Milliseconds since the epoch (0 should the clock stand before it).
pub(crate) fn now_ms() -> u64 {
    u64::try_from(since_epoch().as_millis()).unwrap_or(u64::MAX)
}

fn since_epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_and_milliseconds_read_the_same_clock() {
        let (s, ms) = (now_s(), now_ms());
        // 2026-01-01 or later, and the two within a second of each other.
        assert!(s > 1_767_225_600, "{s}");
        assert!(ms / 1000 >= s && ms / 1000 - s <= 1, "{s} {ms}");
    }
}
