//! Deterministic generation of the demo account (seeded xorshift, no wall clock).
//!
//! The account is a snapshot taken on [`AS_OF`]: invoice and voucher states (paid, overdue…)
//! are what they would be on that day.

mod banking;
mod contacts;
mod documents;
mod estimates;
pub(crate) mod names;
mod pricing;
pub(crate) mod prng;
mod projects;
mod vouchers;

pub(crate) use documents::totals;

use crate::model::ser::BerlinTime;
use crate::model::{DemoData, DueTimeUnit, PaymentTerm};
use jiff::Span;
use jiff::civil::{Date, Weekday};
use rust_decimal::{Decimal, RoundingStrategy};

/// Seed of every generation stage.
pub const SEED: u64 = 0x4E4F_5244_4C49_4348;
/// The fictional account holder.
pub const COMPANY_NAME: &str = "Nordlicht Webdesign GmbH";
/// Documents are dated from this day…
pub const FIRST_DAY: Date = Date::constant(2025, 1, 1);
/// …up to this day.
pub const LAST_DAY: Date = Date::constant(2026, 11, 30);
/// The day the snapshot was taken.
pub const AS_OF: Date = LAST_DAY;

pub const CUSTOMER_COUNT: usize = 28;
pub const SUPPLIER_COUNT: usize = 12;
pub const PROJECT_COUNT: usize = 25;
pub const TASKS_PER_PROJECT: usize = 3;
pub const TIME_ENTRIES_PER_TASK: usize = 6;
pub const ESTIMATE_COUNT: usize = 40;
pub const INVOICE_COUNT: usize = 300;
pub const VOUCHER_COUNT: usize = 300;

/// Builds the whole account. Pure: two calls return equal data.
pub fn build() -> DemoData {
    let payment_terms = pricing::payment_terms();
    let (companies, persons) = contacts::companies(&payment_terms);
    let propositions = pricing::propositions();
    let projects = projects::projects(&companies);
    let tasks = projects::tasks(&projects);
    let time_entries = projects::time_entries(&projects, &tasks);
    let mut data = DemoData {
        users: contacts::users(),
        vat_rates: pricing::vat_rates(),
        payment_terms,
        propositions,
        companies,
        persons,
        projects,
        tasks,
        time_entries,
        estimates: Vec::new(),
        invoices: Vec::new(),
        vouchers: Vec::new(),
        bank_connections: banking::connections(),
        transactions: Vec::new(),
    };
    data.estimates = estimates::estimates(&data);
    data.invoices = documents::invoices(&data);
    data.vouchers = vouchers::vouchers(&data);
    data.transactions = banking::transactions(&data);
    data
}

pub(crate) fn add_days(d: Date, days: i64) -> Date {
    d.checked_add(Span::new().days(days))
        .expect("demo dates stay in range")
}

pub(crate) fn add_months(d: Date, months: i64) -> Date {
    d.checked_add(Span::new().months(months))
        .expect("demo dates stay in range")
}

pub(crate) fn is_weekend(d: Date) -> bool {
    matches!(d.weekday(), Weekday::Saturday | Weekday::Sunday)
}

/// The next working day on or after `d`.
pub(crate) fn workday_from(mut d: Date) -> Date {
    while is_weekend(d) {
        d = add_days(d, 1);
    }
    d
}

/// A random working day in `from..=to` (both clamped to the demo period).
pub(crate) fn random_workday(rng: &mut prng::Rng, from: Date, to: Date) -> Date {
    let (from, to) = (from.max(FIRST_DAY), to.min(LAST_DAY));
    let span = days_between(from, to);
    let mut d = add_days(from, rng.range(0, span));
    while is_weekend(d) {
        d = add_days(d, if d > add_days(to, -3) { -1 } else { 1 });
    }
    d
}

pub(crate) fn days_between(from: Date, to: Date) -> i64 {
    i64::from(to.since(from).expect("dates in range").get_days())
}

/// Due date of a document written on `doc` under `term`.
pub(crate) fn due_date(doc: Date, term: &PaymentTerm) -> Date {
    let n = i64::from(term.due_time);
    match term.due_time_unit {
        DueTimeUnit::Day => add_days(doc, n),
        DueTimeUnit::Week => add_days(doc, 7 * n),
        DueTimeUnit::Month => add_months(doc, n),
        DueTimeUnit::WorkDay => {
            let mut d = doc;
            for _ in 0..n {
                d = workday_from(add_days(d, 1));
            }
            d
        }
    }
}

pub(crate) fn at(d: Date, hour: i8, minute: i8) -> BerlinTime {
    BerlinTime(d.at(hour, minute, 0, 0))
}

/// `dd.mm.yyyy`, as German documents print dates.
pub(crate) fn german(d: Date) -> String {
    format!("{:02}.{:02}.{:04}", d.day(), d.month(), d.year())
}

pub(crate) fn month_name(d: Date) -> String {
    format!("{} {}", names::MONTHS[d.month() as usize - 1], d.year())
}

pub(crate) fn eur(cents: i64) -> Decimal {
    Decimal::new(cents, 2)
}

/// VAT on a net amount at `percent`, rounded half away from zero to the cent.
pub(crate) fn vat(net: Decimal, percent: u32) -> Decimal {
    (net * Decimal::new(i64::from(percent), 2))
        .round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// A mail/web-safe slug of a company name: first two words, umlauts transliterated.
pub(crate) fn slug(name: &str) -> String {
    let words: Vec<String> = name
        .split_whitespace()
        .filter(|w| w.chars().next().is_some_and(char::is_alphabetic))
        .take(2)
        .map(|w| {
            w.to_lowercase()
                .replace('ä', "ae")
                .replace('ö', "oe")
                .replace('ü', "ue")
                .replace('ß', "ss")
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect()
        })
        .collect();
    words.join("-")
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn work_day_terms_skip_weekends() {
        let term = PaymentTerm {
            due_time: 3,
            due_time_unit: DueTimeUnit::WorkDay,
            ..Default::default()
        };
        // Thursday + 3 working days = Tuesday.
        assert_eq!(due_date(date(2025, 3, 6), &term), date(2025, 3, 11));
        let month = PaymentTerm {
            due_time: 1,
            due_time_unit: DueTimeUnit::Month,
            ..Default::default()
        };
        assert_eq!(due_date(date(2025, 1, 31), &month), date(2025, 2, 28));
    }

    #[test]
    fn vat_rounds_half_away_from_zero() {
        assert_eq!(vat(eur(50), 19), eur(10)); // 0.095 -> 0.10
        assert_eq!(vat(eur(2_613), 7), eur(183)); // 1.8291 -> 1.83
    }

    #[test]
    fn slugs_are_ascii() {
        assert_eq!(slug("Bäckerei Sonnenkorn GmbH"), "baeckerei-sonnenkorn");
        assert_eq!(slug("Brückner & Sohn Tischlerei"), "brueckner-sohn");
    }

    #[test]
    fn random_workdays_stay_in_range_and_off_weekends() {
        let mut rng = prng::Rng::new(SEED, 99);
        for _ in 0..2_000 {
            let d = random_workday(&mut rng, date(2026, 11, 20), LAST_DAY);
            assert!(
                d >= date(2026, 11, 20) && d <= LAST_DAY && !is_weekend(d),
                "{d}"
            );
        }
    }
}
