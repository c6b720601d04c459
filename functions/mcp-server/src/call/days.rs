//! The `days` measure of an aggregation: appointments day by day in a time zone, with the time
//! they take and the free time left within working hours, or, with `slots`, the free stretches
//! long enough for a meeting (see [`super::slots`]). Pure: items in, a compact value out.

use catalog::Days;
use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};
use serde_json::{Value, json};

use super::shape;

/// A `days` measure with its placeholders filled and checked.
#[derive(Debug, Clone)]
pub(super) struct Period {
    from: Date,
    days: usize,
    zone: TimeZone,
    zone_name: String,
    hours: (u32, u32),
    hours_text: String,
    /// Working days from Monday (0).
    working: [bool; 7],
    /// `slots`: the shortest free stretch listed, minutes.
    slots: Option<i64>,
}

/// Why a `days` measure cannot be computed, in words for the caller.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub(super) struct BadPeriod(pub String);

impl Period {
    /// Resolves a measure whose `from`, `zone` and `hours` are filled in already.
    pub(super) fn resolve(
        spec: &Days,
        from: &str,
        zone: &str,
        hours: &str,
        weekdays: Option<&str>,
    ) -> Result<Self, BadPeriod> {
        let working = match weekdays {
            None => [true; 7],
            Some(w) => catalog::weekdays(w).ok_or_else(|| {
                BadPeriod(format!(
                    "`{w}` are no working days; write them Mon-Fri or Mon,Tue,Thu."
                ))
            })?,
        };
        let from = from
            .parse::<Date>()
            .ok()
            .filter(|_| from.len() == 10)
            .ok_or_else(|| BadPeriod(format!("`{from}` is not a date YYYY-MM-DD.")))?;
        let tz = TimeZone::get(zone).map_err(|_| {
            BadPeriod(format!(
                "`{zone}` is not an IANA time zone; name one like Europe/Berlin or UTC."
            ))
        })?;
        let window = catalog::working_hours(hours).ok_or_else(|| {
            BadPeriod(format!(
                "`{hours}` are no working hours; write them HH:MM-HH:MM, e.g. 09:00-17:00."
            ))
        })?;
        Ok(Period {
            from,
            days: spec.days.clamp(1, 31),
            zone: tz,
            zone_name: zone.to_string(),
            hours: window,
            hours_text: hours.to_string(),
            working,
            slots: None,
        })
    }

    /// The measure's `slots`, filled in already: free stretches of at least that many minutes
    /// are listed instead of the counts.
    pub(super) fn with_slots(self, minutes: Option<&str>) -> Result<Self, BadPeriod> {
        let Some(text) = minutes else {
            return Ok(self);
        };
        let minutes = catalog::slot_minutes(text).ok_or_else(|| {
            BadPeriod(format!(
                "`{text}` is no meeting length; give whole minutes from {} to {}.",
                catalog::MIN_SLOT,
                catalog::MAX_SLOT
            ))
        })?;
        Ok(Period {
            slots: Some(i64::from(minutes)),
            ..self
        })
    }

    /// `[start, end)` of `minutes` after midnight on `date` in the zone, as Unix seconds
    /// (the zone's rules: a DST day has 23 or 25 hours).
    fn at(&self, date: Date, minutes: u32) -> Option<i64> {
        let day = date.checked_add(i64::from(minutes / 1440).days()).ok()?;
        let m = minutes % 1440;
        let time = Time::new((m / 60) as i8, (m % 60) as i8, 0, 0).ok()?;
        day.to_datetime(time)
            .to_zoned(self.zone.clone())
            .ok()
            .map(|z| z.timestamp().as_second())
    }
}

/// One item's `[start, end)` in Unix seconds; items without both moments are left out.
fn interval(item: &Value, spec: &Days) -> Option<(i64, i64)> {
    let moment = |path: &str| {
        shape::at(item, path)
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<Timestamp>().ok())
            .map(Timestamp::as_second)
    };
    let (a, b) = (moment(&spec.start)?, moment(&spec.end)?);
    (a <= b).then_some((a, b))
}

/// The union of intervals clipped to `[lo, hi)`, sorted and merged.
fn busy_within(intervals: &[(i64, i64)], lo: i64, hi: i64) -> Vec<(i64, i64)> {
    let mut clipped: Vec<(i64, i64)> = intervals
        .iter()
        .map(|&(a, b)| (a.max(lo), b.min(hi)))
        .filter(|(a, b)| a < b)
        .collect();
    clipped.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for (a, b) in clipped {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

fn minutes(spans: &[(i64, i64)]) -> i64 {
    spans.iter().map(|(a, b)| (b - a) / 60).sum()
}

/// Local `HH:MM` of a moment in the zone.
pub(super) fn local(ts: i64, zone: &TimeZone) -> String {
    Timestamp::from_second(ts)
        .map(|t| t.to_zoned(zone.clone()).strftime("%H:%M").to_string())
        .unwrap_or_default()
}

/// The measure's value: the zone and hours it was computed in, and one entry per day.
pub(super) fn compute(items: &[&Value], spec: &Days, period: &Period) -> Value {
    let intervals: Vec<(i64, i64)> = items.iter().filter_map(|i| interval(i, spec)).collect();
    let mut out = Vec::with_capacity(period.days);
    let mut date = period.from;
    for _ in 0..period.days {
        let (Some(day_lo), Some(day_hi), Some(work_lo), Some(work_hi)) = (
            period.at(date, 0),
            period.at(date, 1440),
            period.at(date, period.hours.0),
            period.at(date, period.hours.1),
        ) else {
            break;
        };
        let count = intervals
            .iter()
            .filter(|(a, _)| (day_lo..day_hi).contains(a))
            .count();
        let busy_day = busy_within(&intervals, day_lo, day_hi);
        let busy_work = busy_within(&intervals, work_lo, work_hi);
        // The free stretches within the working hours: the gaps between busy spans.
        let mut free = Vec::new();
        let mut cursor = work_lo;
        for &(a, b) in &busy_work {
            if a > cursor {
                free.push((cursor, a));
            }
            cursor = cursor.max(b);
        }
        if work_hi > cursor {
            free.push((cursor, work_hi));
        }
        let working = period.working[date.weekday().to_monday_zero_offset() as usize];
        out.push(match period.slots {
            Some(minutes) => super::slots::day(date, working, &free, minutes, &period.zone),
            None => {
                let busy = minutes(&busy_day);
                let day = Day {
                    date,
                    working,
                    count,
                    busy,
                    hours: (work_hi - work_lo) / 60,
                };
                counted(&day, &free, &period.zone)
            }
        });
        match date.tomorrow() {
            Ok(next) => date = next,
            Err(_) => break,
        }
    }
    json!({"zone": period.zone_name, "hours": period.hours_text, "days": out})
}

/// What one day's counts are made of.
struct Day {
    date: Date,
    working: bool,
    count: usize,
    busy: i64,
    /// The working hours' length, minutes.
    hours: i64,
}

/// One day's counts. A figure that says nothing is left out (about 200 tokens for a week): no
/// count or busy minutes on an empty day, no longest stretch when the hours are wholly free.
fn counted(d: &Day, free: &[(i64, i64)], zone: &TimeZone) -> Value {
    let mut day = serde_json::Map::new();
    day.insert("date".into(), d.date.to_string().into());
    day.insert("day".into(), d.date.strftime("%a").to_string().into());
    if d.count > 0 {
        day.insert("count".into(), d.count.into());
    }
    if d.busy > 0 {
        day.insert("busy_min".into(), d.busy.into());
    }
    if !d.working {
        day.insert("off".into(), true.into());
        return Value::Object(day);
    }
    let free_min = minutes(free);
    day.insert("free_min".into(), free_min.into());
    let longest = free.iter().max_by_key(|(a, b)| (b - a, -a));
    if free_min < d.hours
        && let Some(&(a, b)) = longest
    {
        let stretch = format!("{}-{}", local(a, zone), local(b, zone));
        day.insert("longest_free".into(), stretch.into());
    }
    Value::Object(day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Days {
        serde_json::from_value(json!({
            "of": "b", "start": "start", "end": "end", "from": "{week_start}",
            "days": 2, "zone": "{time_zone}", "hours": "{working_hours}"
        }))
        .unwrap()
    }

    fn period(from: &str, zone: &str, hours: &str) -> Period {
        Period::resolve(&spec(), from, zone, hours, None).unwrap()
    }

    #[test]
    fn bookings_count_on_their_local_day_and_free_time_is_the_rest_of_the_hours() {
        // Monday 2026-05-04 in Berlin (UTC+2): 10:00-11:00 and 10:30-12:00 overlap (busy 2 h),
        // 23:30 local on Monday is 21:30 UTC Monday; 00:30 local Tuesday is 22:30 UTC Monday.
        let items = [
            json!({"start": "2026-05-04T08:00:00Z", "end": "2026-05-04T09:00:00Z"}),
            json!({"start": "2026-05-04T08:30:00Z", "end": "2026-05-04T10:00:00Z"}),
            json!({"start": "2026-05-04T21:30:00Z", "end": "2026-05-04T21:45:00Z"}),
            json!({"start": "2026-05-04T22:30:00Z", "end": "2026-05-04T23:00:00Z"}),
            json!({"start": "no time", "end": "2026-05-04T23:00:00Z"}),
        ];
        let refs: Vec<&Value> = items.iter().collect();
        let out = compute(
            &refs,
            &spec(),
            &period("2026-05-04", "Europe/Berlin", "09:00-17:00"),
        );
        assert_eq!(out["zone"], "Europe/Berlin");
        assert_eq!(
            out["days"],
            json!([
                {"date": "2026-05-04", "day": "Mon", "count": 3, "busy_min": 135,
                 "free_min": 360, "longest_free": "12:00-17:00"},
                {"date": "2026-05-05", "day": "Tue", "count": 1, "busy_min": 30,
                 "free_min": 480}
            ])
        );
    }

    #[test]
    fn the_same_moments_fall_on_other_days_in_another_zone() {
        // 22:30 UTC Monday is still Monday in New York (18:30) but Tuesday in Berlin.
        let items = [json!({"start": "2026-05-04T22:30:00Z", "end": "2026-05-04T23:00:00Z"})];
        let refs: Vec<&Value> = items.iter().collect();
        let ny = compute(
            &refs,
            &spec(),
            &period("2026-05-04", "America/New_York", "09:00-17:00"),
        );
        assert_eq!(ny["days"][0]["count"], 1);
        let berlin = compute(
            &refs,
            &spec(),
            &period("2026-05-04", "Europe/Berlin", "09:00-17:00"),
        );
        assert_eq!(
            berlin["days"][0].get("count"),
            None,
            "an empty day has no count"
        );
        assert_eq!(berlin["days"][1]["count"], 1);
    }

    #[test]
    fn days_off_have_no_free_time_but_keep_their_bookings() {
        // 2026-05-09 is a Saturday; the working days are Mon-Fri.
        let items = [json!({"start": "2026-05-09T08:00:00Z", "end": "2026-05-09T09:00:00Z"})];
        let refs: Vec<&Value> = items.iter().collect();
        let period =
            Period::resolve(&spec(), "2026-05-08", "UTC", "09:00-17:00", Some("Mon-Fri")).unwrap();
        let out = compute(&refs, &spec(), &period);
        assert_eq!(
            out["days"],
            json!([
                {"date": "2026-05-08", "day": "Fri", "free_min": 480},
                {"date": "2026-05-09", "day": "Sat", "count": 1, "busy_min": 60, "off": true}
            ])
        );
    }

    #[test]
    fn a_day_of_daylight_saving_change_keeps_local_working_hours() {
        // 2026-03-29: Berlin moves from UTC+1 to UTC+2; 09:00 local is 07:00 UTC.
        let items = [json!({"start": "2026-03-29T07:00:00Z", "end": "2026-03-29T08:00:00Z"})];
        let refs: Vec<&Value> = items.iter().collect();
        let out = compute(
            &refs,
            &spec(),
            &period("2026-03-29", "Europe/Berlin", "09:00-12:00"),
        );
        assert_eq!(out["days"][0]["busy_min"], 60);
        assert_eq!(out["days"][0]["free_min"], 120);
        assert_eq!(out["days"][0]["longest_free"], "10:00-12:00");
    }

    #[test]
    fn bad_zones_dates_and_hours_are_refused_in_words() {
        let s = spec();
        for (from, zone, hours, word) in [
            ("2026-02-30", "UTC", "09:00-17:00", "date"),
            ("2026-05-04", "Mars/Olympus", "09:00-17:00", "time zone"),
            ("2026-05-04", "UTC", "17:00-09:00", "working hours"),
            ("2026-05-04", "UTC", "9-5", "working hours"),
        ] {
            let err = Period::resolve(&s, from, zone, hours, None).unwrap_err();
            assert!(err.0.contains(word), "{from} {zone} {hours}: {err}");
        }
        for days in ["Fri-Mon", "Montag", ""] {
            let err = Period::resolve(&s, "2026-05-04", "UTC", "09:00-17:00", Some(days));
            assert!(err.unwrap_err().0.contains("working days"), "{days}");
        }
    }
}
