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

/// The `now` a local preview without `--now` runs at, from the file's event times: the last full
/// ISO week (Monday to Sunday) that has events, or, when the file spans less than a week, the
/// seven days up to its last event's day. `None` for a file without events.
pub fn preview_now(events: &[Timestamp]) -> Option<Timestamp> {
    let first = events.iter().min()?;
    let last = events.iter().max()?;
    let midnight = |t: &Timestamp| t.as_second().div_euclid(DAY_SECONDS) * DAY_SECONDS;
    let after_last_day = midnight(last) + DAY_SECONDS;
    if after_last_day - midnight(first) <= DAYS * DAY_SECONDS {
        return Timestamp::from_second(after_last_day).ok();
    }
    // Mondays at or before the day after the last event; the latest whose week has events.
    let weekday = date(*last).weekday().to_monday_zero_offset() as i64;
    let mut monday = midnight(last) - weekday * DAY_SECONDS;
    if weekday == 6 {
        monday += DAYS * DAY_SECONDS; // the last event's week ends that Sunday: it is full
    }
    while monday > midnight(first) {
        let now = Timestamp::from_second(monday).ok()?;
        let week = Period::week_before(now);
        if events.iter().any(|t| week.range().contains(*t)) {
            return Some(now);
        }
        monday -= DAYS * DAY_SECONDS;
    }
    Timestamp::from_second(after_last_day).ok()
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

    fn preview(events: &[&str]) -> Period {
        let events: Vec<Timestamp> = events.iter().map(|e| ts(e)).collect();
        Period::week_before(preview_now(&events).unwrap())
    }

    #[test]
    fn a_preview_of_a_file_from_last_week_covers_that_week() {
        // Tuesday to Saturday of week 48, previewed any day later.
        let p = preview(&[
            "2026-11-24T09:00:00Z",
            "2026-11-26T10:00:00Z",
            "2026-11-28T17:00:00Z",
        ]);
        assert_eq!(
            p.label(),
            "2026-11-22 to 2026-11-28 (UTC)",
            "younger than a week: its days"
        );
        let p = preview(&["2026-11-16T09:00:00Z", "2026-11-28T17:00:00Z"]);
        assert_eq!(
            p.label(),
            "2026-11-16 to 2026-11-22 (UTC)",
            "week 48 is not over yet on Saturday"
        );
        let p = preview(&["2026-11-16T09:00:00Z", "2026-11-29T17:00:00Z"]);
        assert_eq!(
            p.label(),
            "2026-11-23 to 2026-11-29 (UTC)",
            "a Sunday ends the week"
        );
    }

    #[test]
    fn a_preview_of_a_file_from_this_week_covers_its_days() {
        let p = preview(&["2026-11-30T08:00:00Z", "2026-12-01T12:30:00Z"]);
        assert_eq!(p.label(), "2026-11-25 to 2026-12-01 (UTC)");
        assert!(p.range().contains(ts("2026-12-01T12:30:00Z")));
    }

    #[test]
    fn a_preview_of_a_file_spanning_weeks_takes_the_last_full_week_with_events() {
        // Events in week 47 and on Tuesday of week 49; week 48 has none.
        let p = preview(&["2026-11-17T08:00:00Z", "2026-12-01T12:00:00Z"]);
        assert_eq!(p.label(), "2026-11-16 to 2026-11-22 (UTC)");
        assert_eq!(preview_now(&[]), None);
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
