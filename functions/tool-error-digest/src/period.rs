//! The digest's weeks: the seven full UTC days before the day the digest runs, and the seven
//! before those. Run on Monday morning (the schedule), that is the ISO week just ended.

use insights::TimeRange;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

const DAY_SECONDS: i64 = 86_400;
const DAYS: i64 = 7;

/// Seven whole UTC days, `start` included, `end` excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub start: Timestamp,
    pub end: Timestamp,
}

impl Period {
    /// The seven full UTC days before the UTC day of `now`.
    pub fn week_before(now: Timestamp) -> Period {
        let today = now.as_second().div_euclid(DAY_SECONDS) * DAY_SECONDS;
        let end = Timestamp::from_second(today).expect("midnight of a valid timestamp is valid");
        Period {
            start: end - SignedDuration::from_secs(DAYS * DAY_SECONDS),
            end,
        }
    }

    /// The seven days before this period.
    pub fn previous(&self) -> Period {
        Period {
            start: self.start - SignedDuration::from_secs(DAYS * DAY_SECONDS),
            end: self.start,
        }
    }

    /// The range to query: StartQuery and the local engine include both ends, so the range stops
    /// a millisecond before `end` and an event at midnight counts in one week only.
    pub fn range(&self) -> TimeRange {
        TimeRange {
            start: self.start,
            end: self.end - SignedDuration::from_millis(1),
        }
    }

    /// The UTC dates of the period, in order.
    pub fn days(&self) -> Vec<Date> {
        let first = date(self.start);
        (0..DAYS)
            .map(|i| first + jiff::Span::new().days(i))
            .collect()
    }

    pub fn first_day(&self) -> Date {
        date(self.start)
    }

    pub fn last_day(&self) -> Date {
        date(self.end - SignedDuration::from_millis(1))
    }

    /// ISO week number of the period's last day: the week just ended on a Monday run.
    pub fn week(&self) -> i8 {
        self.last_day().iso_week_date().week()
    }

    /// `2026-11-23 to 2026-11-29 (UTC)`.
    pub fn label(&self) -> String {
        format!("{} to {} (UTC)", self.first_day(), self.last_day())
    }
}

/// The UTC date of `t`.
pub fn date(t: Timestamp) -> Date {
    t.to_zoned(TimeZone::UTC).date()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn monday_morning_covers_the_iso_week_just_ended() {
        let p = Period::week_before(ts("2026-11-30T06:00:00Z"));
        assert_eq!(p.start, ts("2026-11-23T00:00:00Z"));
        assert_eq!(p.end, ts("2026-11-30T00:00:00Z"));
        assert_eq!(p.week(), 48);
        assert_eq!(p.first_day().weekday(), jiff::civil::Weekday::Monday);
        assert_eq!(p.label(), "2026-11-23 to 2026-11-29 (UTC)");
        assert_eq!(p.days().len(), 7);
        assert_eq!(p.days()[6].to_string(), "2026-11-29");
    }

    #[test]
    fn previous_week_ends_where_this_one_starts_without_overlap() {
        let p = Period::week_before(ts("2026-11-30T00:00:00Z"));
        let prev = p.previous();
        assert_eq!(prev.end, p.start);
        assert_eq!(prev.start, ts("2026-11-16T00:00:00Z"));
        assert!(!prev.range().contains(p.start));
        assert!(p.range().contains(p.start));
        assert!(p.range().contains(ts("2026-11-29T23:59:59.999Z")));
        assert!(!p.range().contains(p.end));
    }
}
