//! Free slots of a `days` measure with `slots`: a working day's free stretches within the
//! working hours (every source's busy time taken out, overlaps once) that are long enough for
//! the meeting asked, earliest first, as local `HH:MM-HH:MM`; "find a free hour with Anna next
//! week" in about 200 tokens. Pure.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use serde_json::{Map, Value};

use super::days::local;

/// The most stretches listed per day: the earliest matter, and the answer stays short.
const MAX_PER_DAY: usize = 4;

/// The stretches of `free` (Unix seconds, in order) of at least `minutes`.
pub(super) fn long_enough(free: &[(i64, i64)], minutes: i64) -> Vec<(i64, i64)> {
    free.iter()
        .copied()
        .filter(|(a, b)| (b - a) / 60 >= minutes)
        .take(MAX_PER_DAY)
        .collect()
}

/// One day's entry: its date and weekday, `off` on a day off, else `free` with the stretches
/// long enough (an empty list when none is).
pub(super) fn day(
    date: Date,
    working: bool,
    free: &[(i64, i64)],
    minutes: i64,
    zone: &TimeZone,
) -> Value {
    let mut day = Map::new();
    day.insert("date".into(), date.to_string().into());
    day.insert("day".into(), date.strftime("%a").to_string().into());
    if !working {
        day.insert("off".into(), true.into());
        return Value::Object(day);
    }
    let slots: Vec<Value> = long_enough(free, minutes)
        .into_iter()
        .map(|(a, b)| format!("{}-{}", local(a, zone), local(b, zone)).into())
        .collect();
    day.insert("free".into(), slots.into());
    Value::Object(day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::days::{Period, compute};
    use serde_json::json;

    #[test]
    fn only_stretches_as_long_as_the_meeting_are_listed_at_most_four() {
        let free = [
            (0, 1800),
            (3600, 7200),
            (9000, 9000 + 3599),
            (10_000, 20_000),
        ];
        assert_eq!(long_enough(&free, 60), vec![(3600, 7200), (10_000, 20_000)]);
        let many: Vec<(i64, i64)> = (0..6).map(|i| (i * 10_000, i * 10_000 + 3600)).collect();
        assert_eq!(long_enough(&many, 30).len(), MAX_PER_DAY);
    }

    #[test]
    fn a_free_hour_with_someone_avoids_both_peoples_busy_time() {
        let spec: catalog::Days = serde_json::from_value(json!({
            "of": "mine", "also": ["theirs"], "start": "start", "end": "end",
            "from": "2026-05-08", "days": 3, "zone": "Europe/Berlin", "hours": "09:00-17:00",
            "weekdays": "Mon-Fri", "slots": "60"
        }))
        .unwrap();
        let period = Period::resolve(
            &spec,
            "2026-05-08",
            "Europe/Berlin",
            "09:00-17:00",
            Some("Mon-Fri"),
        )
        .and_then(|p| p.with_slots(Some("60")))
        .unwrap();
        // Friday in Berlin (UTC+2): mine 09:00-10:30, theirs 10:00-11:00 and 11:30-16:30 local.
        let busy = [
            json!({"start": "2026-05-08T07:00:00Z", "end": "2026-05-08T08:30:00Z"}),
            json!({"start": "2026-05-08T08:00:00+00:00", "end": "2026-05-08T11:00:00+02:00"}),
            json!({"start": "2026-05-08T11:30:00+02:00", "end": "2026-05-08T16:30:00+02:00"}),
            json!({"start": "2026-05-11T07:00:00Z", "end": "2026-05-11T15:00:00Z"}),
        ];
        let refs: Vec<&Value> = busy.iter().collect();
        let out = compute(&refs, &spec, &period);
        assert_eq!(
            out["days"],
            json!([
                {"date": "2026-05-08", "day": "Fri", "free": []},
                {"date": "2026-05-09", "day": "Sat", "off": true},
                {"date": "2026-05-10", "day": "Sun", "off": true}
            ])
        );
        let shorter = period.with_slots(Some("30")).unwrap();
        assert_eq!(
            compute(&refs, &spec, &shorter)["days"][0]["free"],
            json!(["11:00-11:30", "16:30-17:00"])
        );
        let refused = Period::resolve(&spec, "2026-05-08", "UTC", "09:00-17:00", None)
            .unwrap()
            .with_slots(Some("a while"));
        assert!(refused.unwrap_err().0.contains("meeting length"));
    }
}
