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

/// Milliseconds since the epoch as an ISO 8601 UTC time (`2026-12-06T05:11:31.123Z`); empty
/// for an instant no calendar holds.
pub(crate) fn iso_utc(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
        .map_or_else(String::new, |t| {
            t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
        })
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
    fn an_instant_reads_as_iso_8601_utc() {
        assert_eq!(iso_utc(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert_eq!(iso_utc(u64::MAX), "");
    }

    #[test]
    fn seconds_and_milliseconds_read_the_same_clock() {
        let (s, ms) = (now_s(), now_ms());
        // 2026-01-01 or later, and the two within a second of each other.
        assert!(s > 1_767_225_600, "{s}");
        assert!(ms / 1000 >= s && ms / 1000 - s <= 1, "{s} {ms}");
    }
}
