//! Quota windows: where the current window started and when its consumption is forgiven.
//!
//! Calendar windows (month, day) start at local midnight in the declared IANA time zone, so a
//! month is 743 or 745 hours long across a DST switch and the start moves with the zone. The
//! time zone database is compiled in (`jiff/tzdb-bundle-always`): Lambda has no zoneinfo.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Span, Timestamp, Zoned};

/// A declared quota window, with its time zone resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum Window {
    CalendarMonth(Zone),
    Day(Zone),
    RollingHours(u32),
}

/// An IANA time zone and the name it was declared with (for messages).
#[derive(Debug, Clone, PartialEq)]
pub struct Zone {
    pub name: String,
    pub tz: TimeZone,
}

/// Why a window declaration cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WindowError {
    #[error("unknown time zone `{0}` (expected an IANA name such as Europe/Berlin)")]
    UnknownTimeZone(String),
    #[error("a rolling window needs at least one hour")]
    EmptyRollingWindow,
    #[error("the window needs exactly one of calendar_month, day, rolling_hours")]
    Ambiguous,
}

/// The current window at some instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Consumption before this instant does not count.
    pub start: Timestamp,
    /// When everything counted now is forgiven: the reset of a calendar window, or now plus the
    /// length of a rolling one (by then every counted call has dropped out).
    pub end: Timestamp,
    length: SignedDuration,
}

impl Bounds {
    /// A calendar window from `start` to its reset at `end`.
    pub fn between(start: Timestamp, end: Timestamp) -> Self {
        Bounds {
            start,
            end,
            length: end.duration_since(start),
        }
    }

    /// How long the window is: start to reset, or the rolling length.
    pub fn length(&self) -> SignedDuration {
        self.length
    }
}

impl Zone {
    pub fn new(name: &str) -> Result<Self, WindowError> {
        let tz = TimeZone::get(name).map_err(|_| WindowError::UnknownTimeZone(name.to_string()))?;
        Ok(Zone {
            name: name.to_string(),
            tz,
        })
    }
}

impl Window {
    pub fn from_catalog(w: &catalog::QuotaWindow) -> Result<Self, WindowError> {
        match (&w.calendar_month, &w.day, w.rolling_hours) {
            (Some(zone), None, None) => Ok(Window::CalendarMonth(Zone::new(zone)?)),
            (None, Some(zone), None) => Ok(Window::Day(Zone::new(zone)?)),
            (None, None, Some(0)) => Err(WindowError::EmptyRollingWindow),
            (None, None, Some(hours)) => Ok(Window::RollingHours(hours)),
            _ => Err(WindowError::Ambiguous),
        }
    }

    /// The time zone figures are shown in: the declared one, UTC for rolling windows.
    pub fn time_zone(&self) -> TimeZone {
        match self {
            Window::CalendarMonth(z) | Window::Day(z) => z.tz.clone(),
            Window::RollingHours(_) => TimeZone::UTC,
        }
    }

    /// Short description: `month Europe/Berlin`, `day UTC`, `rolling 24 h`.
    pub fn describe(&self) -> String {
        match self {
            Window::CalendarMonth(z) => format!("month {}", z.name),
            Window::Day(z) => format!("day {}", z.name),
            Window::RollingHours(h) => format!("rolling {h} h"),
        }
    }

    /// The window containing `now`. Fails only at the ends of jiff's supported range.
    pub fn bounds(&self, now: Timestamp) -> Result<Bounds, jiff::Error> {
        match self {
            Window::CalendarMonth(z) => {
                let first = now.to_zoned(z.tz.clone()).date().first_of_month();
                let next = first.checked_add(Span::new().months(1))?;
                calendar(midnight(first, &z.tz)?, midnight(next, &z.tz)?)
            }
            Window::Day(z) => {
                let today = now.to_zoned(z.tz.clone()).date();
                calendar(midnight(today, &z.tz)?, midnight(today.tomorrow()?, &z.tz)?)
            }
            Window::RollingHours(h) => {
                let length = SignedDuration::from_hours(i64::from(*h));
                Ok(Bounds {
                    start: now.checked_sub(length)?,
                    end: now.checked_add(length)?,
                    length,
                })
            }
        }
    }
}

fn calendar(start: Zoned, end: Zoned) -> Result<Bounds, jiff::Error> {
    Ok(Bounds::between(start.timestamp(), end.timestamp()))
}

/// The first instant of `date` in `tz` (after the gap where midnight does not exist).
fn midnight(date: Date, tz: &TimeZone) -> Result<Zoned, jiff::Error> {
    date.to_zoned(tz.clone())?.start_of_day()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn month(zone: &str) -> Window {
        Window::CalendarMonth(Zone::new(zone).unwrap())
    }

    #[test]
    fn calendar_month_starts_at_local_midnight_across_dst() {
        // (now, expected start, expected end, hours in the month)
        let cases = [
            // March: CET start, CEST end (the switch on the last Sunday loses an hour).
            (
                "2026-03-15T12:00:00Z",
                "2026-02-28T23:00:00Z",
                "2026-03-31T22:00:00Z",
                743,
            ),
            // October: CEST start, CET end (the switch gains an hour).
            (
                "2026-10-31T22:30:00Z",
                "2026-09-30T22:00:00Z",
                "2026-10-31T23:00:00Z",
                745,
            ),
            // Just after local midnight on the 1st (still the previous day in UTC).
            (
                "2026-05-31T22:30:00Z",
                "2026-05-31T22:00:00Z",
                "2026-06-30T22:00:00Z",
                720,
            ),
            // Just before local midnight on the 1st: still the old month.
            (
                "2026-05-31T21:59:59Z",
                "2026-04-30T22:00:00Z",
                "2026-05-31T22:00:00Z",
                744,
            ),
        ];
        for (now, start, end, hours) in cases {
            let b = month("Europe/Berlin").bounds(ts(now)).unwrap();
            assert_eq!((b.start, b.end), (ts(start), ts(end)), "{now}");
            assert_eq!(b.length().as_hours(), hours, "{now}");
        }
    }

    #[test]
    fn calendar_month_in_utc_and_december_rolls_the_year() {
        let b = month("UTC").bounds(ts("2026-12-31T23:59:59Z")).unwrap();
        assert_eq!(b.start, ts("2026-12-01T00:00:00Z"));
        assert_eq!(b.end, ts("2027-01-01T00:00:00Z"));
    }

    #[test]
    fn day_window_is_23_or_25_hours_on_dst_switch_days() {
        let day = Window::Day(Zone::new("Europe/Berlin").unwrap());
        let spring = day.bounds(ts("2026-03-29T12:00:00Z")).unwrap();
        assert_eq!(spring.start, ts("2026-03-28T23:00:00Z"));
        assert_eq!(spring.length().as_hours(), 23);
        let autumn = day.bounds(ts("2026-10-25T12:00:00Z")).unwrap();
        assert_eq!(autumn.start, ts("2026-10-24T22:00:00Z"));
        assert_eq!(autumn.length().as_hours(), 25);
    }

    #[test]
    fn day_window_survives_a_zone_whose_midnight_is_skipped() {
        // America/Santiago springs forward at 24:00 in September: the day starts at 01:00.
        let day = Window::Day(Zone::new("America/Santiago").unwrap());
        let b = day.bounds(ts("2026-09-06T15:00:00Z")).unwrap();
        assert_eq!(b.start, ts("2026-09-06T04:00:00Z"));
        assert_eq!(b.length().as_hours(), 23);
    }

    #[test]
    fn rolling_window_reaches_back_and_forgives_forward() {
        let b = Window::RollingHours(24)
            .bounds(ts("2026-05-10T12:00:00Z"))
            .unwrap();
        assert_eq!(b.start, ts("2026-05-09T12:00:00Z"));
        assert_eq!(b.end, ts("2026-05-11T12:00:00Z"));
    }

    #[test]
    fn catalog_window_needs_a_known_zone_and_exactly_one_kind() {
        let w = |m: Option<&str>, d: Option<&str>, r: Option<u32>| catalog::QuotaWindow {
            calendar_month: m.map(catalog::Text::from),
            day: d.map(catalog::Text::from),
            rolling_hours: r,
        };
        assert!(matches!(
            Window::from_catalog(&w(Some("Europe/Berlin"), None, None)),
            Ok(Window::CalendarMonth(_))
        ));
        assert_eq!(
            Window::from_catalog(&w(Some("Europe/Berlinn"), None, None)),
            Err(WindowError::UnknownTimeZone("Europe/Berlinn".into()))
        );
        assert_eq!(
            Window::from_catalog(&w(None, None, Some(0))),
            Err(WindowError::EmptyRollingWindow)
        );
        assert_eq!(
            Window::from_catalog(&w(Some("UTC"), Some("UTC"), None)),
            Err(WindowError::Ambiguous)
        );
        assert_eq!(
            Window::from_catalog(&w(None, None, None)),
            Err(WindowError::Ambiguous)
        );
    }
}
