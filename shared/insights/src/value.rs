//! Field values: how they render as GetQueryResults strings, compare in `filter` and order in
//! `sort`.

use std::cmp::Ordering;
use std::fmt;

use jiff::Timestamp;
use jiff::tz::TimeZone;

/// One cell of a result row.
///
/// Insights itself returns every value as a string (`ResultField.value`,
/// <https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_ResultField.html>);
/// the typed form is kept so callers can read counts and timestamps without re-parsing.
/// [`Value::render`] gives the string form, [`crate::to_results`] the GetQueryResults shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// The field does not exist for this row (missing in the event, no `parse` match, an
    /// aggregate over no values). Dropped by [`crate::to_results`].
    Null,
    Str(String),
    Num(f64),
    /// A comparison or `ispresent()` result, or a JSON `true`/`false`. Renders as `1`/`0`: the
    /// query-syntax guide says a field made with `fields ispresent(...) as isRes` "equals 0 or 1".
    /// For JSON booleans AWS documents nothing; they are treated the same way here.
    Bool(bool),
    /// `@timestamp`, `bin()` groups, `latest(@timestamp)`, ...
    Time(Timestamp),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The string GetQueryResults would show: timestamps as `2024-05-01 12:00:00.000` (UTC),
    /// whole numbers without a fraction, booleans as `1`/`0`, `Null` as the empty string.
    pub fn render(&self) -> String {
        match self {
            Value::Null => String::new(),
            Value::Str(s) => s.clone(),
            Value::Num(n) => render_num(*n),
            Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
            Value::Time(t) => render_time(*t),
        }
    }

    /// The numeric reading of the value, if it has one: numbers, booleans (1/0) and strings
    /// that are plain decimals (`"123456789012"`, `"-2.5"`).
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(*n),
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            Value::Str(s) if is_number_text(s) => s.parse().ok(),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

pub(crate) fn render_num(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// `yyyy-MM-dd HH:mm:ss.SSS` in UTC, the form GetQueryResults uses for `@timestamp`.
pub(crate) fn render_time(t: Timestamp) -> String {
    let dt = TimeZone::UTC.to_datetime(t);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second(),
        dt.subsec_nanosecond() / 1_000_000
    )
}

/// Digits only, with an optional leading `-` and one decimal point.
fn is_number_text(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = body.split_once('.').unwrap_or((body, "0"));
    !int.is_empty()
        && !frac.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

/// `=` between two present values: numerically when both read as numbers (so
/// `accountId=123456789012` matches the JSON string `"123456789012"`, as in the `filter` guide),
/// otherwise as strings.
pub(crate) fn equals(a: &Value, b: &Value) -> bool {
    match (a, b, a.as_number(), b.as_number()) {
        (_, _, Some(x), Some(y)) => x == y,
        (Value::Time(x), Value::Time(y), _, _) => x == y,
        _ => a.render() == b.render(),
    }
}

/// Order for `<`, `<=`, `>`, `>=`: numbers numerically, timestamps chronologically, other
/// strings by code point; a number against a non-number has no order (the comparison is false).
pub(crate) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b, a.as_number(), b.as_number()) {
        (_, _, Some(x), Some(y)) => x.partial_cmp(&y),
        (Value::Time(x), Value::Time(y), _, _) => Some(x.cmp(y)),
        (_, _, None, None) => Some(a.render().cmp(&b.render())),
        _ => None,
    }
}

/// Ascending order of the `sort` command (CWL_QuerySyntax-Sort): "All non-number values come
/// before all number values"; non-number values are split into digit and non-digit chunks,
/// non-digit chunks ordered by Unicode value, digit chunks "by their length first and then by
/// their numerical value". Equal numbers fall back to their text (`0 < 01 < 1` in the guide's
/// example). Timestamps order chronologically; a missing value sorts before everything, so it
/// comes last in a descending sort.
pub(crate) fn sort_cmp(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        (Value::Time(x), Value::Time(y)) => x.cmp(y),
        _ => {
            let (sa, sb) = (a.render(), b.render());
            match (a.as_number(), b.as_number()) {
                (Some(x), Some(y)) => x
                    .partial_cmp(&y)
                    .unwrap_or(Ordering::Equal)
                    .then_with(|| sa.cmp(&sb)),
                (Some(_), None) => Ordering::Greater,
                (None, Some(_)) => Ordering::Less,
                (None, None) => natural_cmp(&sa, &sb),
            }
        }
    }
}

fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (ca, cb) = (chunks(a), chunks(b));
    for (x, y) in ca.iter().zip(&cb) {
        let both_digits = x.as_bytes()[0].is_ascii_digit() && y.as_bytes()[0].is_ascii_digit();
        let o = if both_digits {
            x.len().cmp(&y.len()).then_with(|| x.cmp(y))
        } else {
            x.cmp(y)
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    ca.len().cmp(&cb.len())
}

/// Maximal runs of ASCII digits and of everything else. Digits are single bytes, so every cut
/// falls on a char boundary.
fn chunks(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=b.len() {
        if i == b.len() || b[i].is_ascii_digit() != b[i - 1].is_ascii_digit() {
            out.push(&s[start..i]);
            start = i;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn sort_order_matches_the_sort_guide_example() {
        // CWL_QuerySyntax-Sort: "the following is the result of a sort in ascending order".
        let expected = [
            "!:",
            "#",
            "*%04",
            "0#",
            "5A",
            "111A",
            "2345_",
            "@",
            "@_",
            "A",
            "A9876fghj",
            "a12345hfh",
            "0",
            "01",
            "1",
            "2",
            "3",
        ];
        let mut shuffled: Vec<Value> = expected.iter().rev().map(|x| s(x)).collect();
        shuffled.swap(0, 7);
        shuffled.swap(3, 12);
        shuffled.sort_by(sort_cmp);
        let got: Vec<String> = shuffled.iter().map(Value::render).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn numbers_sort_numerically_and_missing_sorts_first() {
        let mut v = vec![Value::Num(10.0), Value::Null, s("9"), Value::Num(100.0)];
        v.sort_by(sort_cmp);
        assert_eq!(
            v,
            vec![Value::Null, s("9"), Value::Num(10.0), Value::Num(100.0)]
        );
    }

    #[test]
    fn number_literal_equals_numeric_string() {
        // CWL_QuerySyntax-Filter example: `accountId=123456789012`, where CloudTrail's
        // accountId is the JSON string "123456789012".
        assert!(equals(&s("123456789012"), &Value::Num(123456789012.0)));
        assert!(equals(&Value::Num(200.0), &s("200")));
        assert!(!equals(&s("ok"), &s("OK")));
        assert_eq!(
            compare(&s("3500"), &Value::Num(3000.0)),
            Some(Ordering::Greater)
        );
        assert_eq!(compare(&s("abc"), &Value::Num(3000.0)), None);
    }

    #[test]
    fn values_render_like_get_query_results() {
        let t: Timestamp = "2020-03-20T10:37:23.04Z".parse().unwrap();
        assert_eq!(Value::Time(t).render(), "2020-03-20 10:37:23.040");
        assert_eq!(Value::Num(3.0).render(), "3");
        assert_eq!(Value::Num(12.345).render(), "12.345");
        assert_eq!(Value::Bool(true).render(), "1");
        assert_eq!(Value::Null.render(), "");
    }

    #[test]
    fn only_plain_decimals_read_as_numbers() {
        assert_eq!(s("-2.5").as_number(), Some(-2.5));
        for text in ["", "-", "1.", ".5", "1e3", "inf", "12ms", "0x10"] {
            assert_eq!(s(text).as_number(), None, "{text}");
        }
    }
}
