//! How values look on the Papierkram wire.
//!
//! Money is held as [`Decimal`] with at most two decimals, but the upstream encodes it two ways:
//! document totals, voucher amounts and line-item prices are JSON *numbers* printed like Ruby floats
//! (`100.0`, `28.5`, `13.37`), while `outstanding_amount`, proposition prices, VAT rates and
//! bank-transaction values are *strings* in the same style (`"119.0"`, `"0.0"`, `"31088.75"`).

use jiff::civil::{Date, DateTime, Weekday};
use rust_decimal::Decimal;
use serde::{Serialize, Serializer};
use std::fmt;

/// Declares a zero-sized `type` tag that always serializes to the given string.
macro_rules! type_tag {
    ($name:ident => $value:literal) => {
        #[doc = concat!("Serializes as the wire `type` `\"", $value, "\"`.")]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name;

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($value)
            }
        }
    };
}
pub(crate) use type_tag;

/// The value as an exact f64: `cents / 100` is the f64 nearest to the decimal, so the shortest
/// round-trip printing (what serde_json emits) gives back exactly the two-decimal text.
pub(crate) fn to_f64(d: &Decimal) -> f64 {
    let mut d = *d;
    d.rescale(2);
    debug_assert!(
        d.mantissa().unsigned_abs() < 1 << 53,
        "amount too large for f64"
    );
    d.mantissa() as f64 / 100.0
}

/// Ruby's `BigDecimal#to_f.to_s` style: no trailing zeros, but at least one decimal.
pub fn ruby_decimal(d: &Decimal) -> String {
    let s = d.normalize().to_string();
    if s.contains('.') { s } else { format!("{s}.0") }
}

pub(crate) mod money_num {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(to_f64(d))
    }
}

/// Like [`money_num`], except that zero is the integer `0` (as `down_payment_total_gross` is).
pub(crate) mod money_num_int_zero {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        if d.is_zero() {
            s.serialize_u64(0)
        } else {
            s.serialize_f64(to_f64(d))
        }
    }
}

pub(crate) mod money_str {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&ruby_decimal(d))
    }
}

pub(crate) mod date {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(d: &Date, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(d)
    }
}

pub(crate) mod opt_date {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(d: &Option<Date>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.collect_str(d),
            None => s.serialize_none(),
        }
    }
}

/// A wall-clock time in Germany, printed the Rails way with its offset:
/// `2025-03-04T10:15:00.000+01:00` (CET) or `…+02:00` (CEST).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct BerlinTime(pub DateTime);

impl BerlinTime {
    /// The UTC offset in hours under the EU rule: summer time from the last Sunday of March
    /// 02:00 to the last Sunday of October 03:00 local time.
    pub fn offset_hours(&self) -> i8 {
        let (date, hour) = (self.0.date(), self.0.hour());
        let start = last_sunday(date.year(), 3);
        let end = last_sunday(date.year(), 10);
        let summer = (date > start && date < end)
            || (date == start && hour >= 2)
            || (date == end && hour < 3);
        if summer { 2 } else { 1 }
    }

    pub fn date(&self) -> Date {
        self.0.date()
    }
}

fn last_sunday(year: i16, month: i8) -> Date {
    let mut d = Date::new(year, month, 1)
        .expect("valid month")
        .last_of_month();
    while d.weekday() != Weekday::Sunday {
        d = d.yesterday().expect("in range");
    }
    d
}

impl fmt::Display for BerlinTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.0;
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.000+{:02}:00",
            t.year(),
            t.month(),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            self.offset_hours()
        )
    }
}

impl Serialize for BerlinTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    fn dec(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn ruby_decimal_keeps_one_decimal_and_drops_trailing_zeros() {
        assert_eq!(ruby_decimal(&dec("119.00")), "119.0");
        assert_eq!(ruby_decimal(&dec("0")), "0.0");
        assert_eq!(ruby_decimal(&dec("28.50")), "28.5");
        assert_eq!(ruby_decimal(&dec("31088.75")), "31088.75");
        assert_eq!(ruby_decimal(&dec("-12.30")), "-12.3");
    }

    #[test]
    fn money_numbers_print_exactly_like_ruby_floats() {
        #[derive(Serialize)]
        struct T {
            #[serde(with = "money_num")]
            a: Decimal,
        }
        for (input, wire) in [("100.00", "100.0"), ("13.37", "13.37"), ("-119", "-119.0")] {
            let json = serde_json::to_string(&T { a: dec(input) }).unwrap();
            assert_eq!(json, format!("{{\"a\":{wire}}}"));
        }
        for cents in [1_i64, 7, 10, 99, 12_345, 99_999_999, 432_109_876] {
            let d = Decimal::new(cents, 2);
            let printed = serde_json::to_string(&T { a: d }).unwrap();
            let back: Decimal = printed[5..printed.len() - 1].parse().unwrap();
            assert_eq!(back, d, "{cents} cents must survive the wire");
        }
    }

    #[test]
    fn berlin_time_switches_offset_on_the_eu_dates() {
        let winter = BerlinTime(date(2025, 3, 30).at(1, 59, 0, 0));
        let summer = BerlinTime(date(2025, 3, 30).at(2, 0, 0, 0));
        let autumn = BerlinTime(date(2025, 10, 26).at(3, 0, 0, 0));
        assert_eq!(winter.to_string(), "2025-03-30T01:59:00.000+01:00");
        assert_eq!(summer.offset_hours(), 2);
        assert_eq!(autumn.offset_hours(), 1);
        assert_eq!(
            BerlinTime(date(2026, 7, 1).at(9, 5, 0, 0)).to_string(),
            "2026-07-01T09:05:00.000+02:00"
        );
    }
}
