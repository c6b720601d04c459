//! `bin(period)`: time periods and flooring `@timestamp` into buckets.
//!
//! Units and abbreviations are those of the `stats` guide
//! (<https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CWL_QuerySyntax-Stats.html>):
//! `ms msec millisecond`, `s sec second`, `m min minute`, `h hr hour`, `d day`, `w week`,
//! `mo mon month`, `q qtr quarter`, `y yr year`, and "for all units and abbreviations that include
//! more than one character, adding s to pluralize is supported". `bin()` "rounds the value of
//! `@timestamp` to the given time period and then truncates" (query-syntax guide), so a bucket
//! is labelled with its start.
//!
//! Buckets are computed in UTC. Fixed-length units are aligned to the Unix epoch; months,
//! quarters and years to the calendar. Weeks are rejected: AWS does not say which weekday a
//! week bucket starts on, and a guess would silently shift every bucket.

use jiff::Timestamp;
use jiff::civil::date;
use jiff::tz::TimeZone;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Period {
    /// A fixed length in nanoseconds.
    Fixed(i128),
    /// A number of calendar months (quarters and years are multiples).
    Months(i64),
}

const NANOS_PER_MS: i128 = 1_000_000;

/// Why a period text was refused; the parser turns it into a positioned `QueryError`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum PeriodError {
    Malformed,
    Week,
}

pub(crate) const PERIOD_HELP: &str = "write a positive whole number followed by one of ms, msec, millisecond, s, sec, second, m, min, minute, h, hr, hour, d, day, mo, mon, month, q, qtr, quarter, y, yr, year (e.g. `5m`, `1h`, `1d`)";

pub(crate) fn parse_period(text: &str) -> Result<Period, PeriodError> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or(PeriodError::Malformed)?;
    let (digits, unit) = text.split_at(split);
    let n: i64 = digits.parse().map_err(|_| PeriodError::Malformed)?;
    if n <= 0 {
        return Err(PeriodError::Malformed);
    }
    let unit = canonical_unit(unit).ok_or(PeriodError::Malformed)?;
    let fixed = |ms: i128| Ok(Period::Fixed(i128::from(n) * ms * NANOS_PER_MS));
    match unit {
        "ms" => fixed(1),
        "s" => fixed(1_000),
        "m" => fixed(60_000),
        "h" => fixed(3_600_000),
        "d" => fixed(86_400_000),
        "w" => Err(PeriodError::Week),
        "mo" => Ok(Period::Months(n)),
        "q" => Ok(Period::Months(3 * n)),
        _ => Ok(Period::Months(12 * n)),
    }
}

fn canonical_unit(unit: &str) -> Option<&'static str> {
    const UNITS: &[(&str, &str)] = &[
        ("ms", "ms"),
        ("msec", "ms"),
        ("millisecond", "ms"),
        ("s", "s"),
        ("sec", "s"),
        ("second", "s"),
        ("m", "m"),
        ("min", "m"),
        ("minute", "m"),
        ("h", "h"),
        ("hr", "h"),
        ("hour", "h"),
        ("d", "d"),
        ("day", "d"),
        ("w", "w"),
        ("week", "w"),
        ("mo", "mo"),
        ("mon", "mo"),
        ("month", "mo"),
        ("q", "q"),
        ("qtr", "q"),
        ("quarter", "q"),
        ("y", "y"),
        ("yr", "y"),
        ("year", "y"),
    ];
    let find = |u: &str| UNITS.iter().find(|(name, _)| *name == u).map(|(_, c)| *c);
    find(unit).or_else(|| {
        unit.strip_suffix('s')
            .filter(|base| base.len() > 1)
            .and_then(find)
    })
}

/// The start of the bucket that holds `t`.
pub(crate) fn floor(t: Timestamp, period: Period) -> Timestamp {
    match period {
        Period::Fixed(len) => {
            let ns = t.as_nanosecond();
            Timestamp::from_nanosecond(ns - ns.rem_euclid(len)).unwrap_or(t)
        }
        Period::Months(len) => {
            let dt = TimeZone::UTC.to_datetime(t);
            let index = i64::from(dt.year()) * 12 + i64::from(dt.month()) - 1;
            let start = index - index.rem_euclid(len);
            let (year, month) = (start.div_euclid(12), start.rem_euclid(12) + 1);
            let first = date(year as i16, month as i8, 1).at(0, 0, 0, 0);
            TimeZone::UTC.to_timestamp(first).unwrap_or(t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn every_documented_unit_and_plural_parses() {
        // stats guide: the unit list, and "both hr and hrs work to specify hours".
        let minute = Period::Fixed(60 * 1_000 * NANOS_PER_MS);
        for text in [
            "1m", "1min", "1mins", "1minute", "1minutes", "60s", "60secs", "60000ms",
        ] {
            assert_eq!(parse_period(text), Ok(minute), "{text}");
        }
        assert_eq!(parse_period("2hr"), parse_period("2hrs"));
        assert_eq!(parse_period("1d"), parse_period("24h"));
        assert_eq!(parse_period("1q"), Ok(Period::Months(3)));
        assert_eq!(parse_period("1yr"), Ok(Period::Months(12)));
        assert_eq!(parse_period("1mon"), Ok(Period::Months(1)));
    }

    #[test]
    fn bad_periods_are_refused() {
        assert_eq!(parse_period("1w"), Err(PeriodError::Week));
        for text in ["0m", "5", "5x", "1ds", "m"] {
            assert_eq!(parse_period(text), Err(PeriodError::Malformed), "{text}");
        }
    }

    #[test]
    fn bin_truncates_to_the_start_of_the_period() {
        // query-syntax guide: bin(5m) "rounds the value of @timestamp to 5 minutes before it
        // truncates".
        let five = parse_period("5m").unwrap();
        assert_eq!(
            floor(ts("2024-05-01T12:04:59.999Z"), five),
            ts("2024-05-01T12:00:00Z")
        );
        assert_eq!(
            floor(ts("2024-05-01T12:05:00Z"), five),
            ts("2024-05-01T12:05:00Z")
        );
        let day = parse_period("1d").unwrap();
        assert_eq!(
            floor(ts("2024-05-01T23:59:59Z"), day),
            ts("2024-05-01T00:00:00Z")
        );
        assert_eq!(
            floor(ts("1969-12-31T23:00:00Z"), day),
            ts("1969-12-31T00:00:00Z")
        );
    }

    #[test]
    fn calendar_units_align_to_the_calendar() {
        let q = parse_period("1q").unwrap();
        assert_eq!(
            floor(ts("2024-05-17T08:00:00Z"), q),
            ts("2024-04-01T00:00:00Z")
        );
        let y = parse_period("1y").unwrap();
        assert_eq!(
            floor(ts("2024-05-17T08:00:00Z"), y),
            ts("2024-01-01T00:00:00Z")
        );
        let mo = parse_period("1mo").unwrap();
        assert_eq!(
            floor(ts("2024-02-29T23:00:00Z"), mo),
            ts("2024-02-01T00:00:00Z")
        );
    }
}
