//! What the agency sells and on which terms: VAT rates, payment terms, the price list.

use super::{add_days, at, eur};
use crate::model::*;
use jiff::civil::date;

pub(super) fn vat_rates() -> Vec<VatRate> {
    let since = at(date(2024, 1, 2), 8, 0);
    [
        (1, 19, "Regelsteuersatz Umsatzsteuer Inland", "UST19"),
        (2, 7, "Ermäßigter Steuersatz Inland", "UST07"),
    ]
    .into_iter()
    .map(|(id, percent, description, code)| VatRate {
        id,
        name: format!("{percent}%"),
        rate: rust_decimal::Decimal::new(percent, 2),
        description: description.into(),
        code: code.into(),
        country_code: "de".into(),
        vat_rate_type: "ar".into(),
        created_at: since,
        updated_at: since,
        ..Default::default()
    })
    .collect()
}

/// Id of the 14-day term, the account's default.
pub(crate) const DEFAULT_TERM_ID: u64 = 13;

pub(super) fn payment_terms() -> Vec<PaymentTerm> {
    use DueTimeUnit::*;
    let terms = [
        (11, "Sofort fällig", 0, Day),
        (12, "7 Tage Zahlungsziel", 7, Day),
        (13, "14 Tage Zahlungsziel", 14, Day),
        (14, "30 Tage Zahlungsziel", 30, Day),
        (15, "4 Wochen Zahlungsziel", 4, Week),
        (16, "1 Monat Zahlungsziel", 1, Month),
        (17, "10 Arbeitstage Zahlungsziel", 10, WorkDay),
    ];
    let created = at(date(2024, 1, 2), 9, 30);
    terms
        .into_iter()
        .map(|(id, name, due_time, due_time_unit)| PaymentTerm {
            id,
            name: name.into(),
            due_time,
            due_time_unit,
            created_at: created,
            updated_at: created,
            template: true,
            default_template: id == DEFAULT_TERM_ID,
            payment_required: id != 11,
            bank_connection_id: Some(1),
            ..Default::default()
        })
        .collect()
}

/// One row of the agency's price list.
#[derive(Clone, Copy)]
pub(crate) struct PriceItem {
    pub name: &'static str,
    pub kind: &'static str,
    pub cents: i64,
    pub time_unit: Option<&'static str>,
    pub one: &'static str,
    pub many: &'static str,
    pub vat_rate_id: u64,
}

const fn item(
    name: &'static str,
    kind: &'static str,
    cents: i64,
    unit: (&'static str, &'static str),
) -> PriceItem {
    PriceItem {
        name,
        kind,
        cents,
        time_unit: None,
        one: unit.0,
        many: unit.1,
        vat_rate_id: 1,
    }
}

const HOURS: (&str, &str) = ("Stunde", "Stunden");
const MONTHS: (&str, &str) = ("Monat", "Monate");
const LUMP: (&str, &str) = ("Pauschale", "Pauschalen");

/// Price list; rows 0..=2 are the hourly services the tracker tasks bill with.
pub(crate) const PROPOSITIONS: [PriceItem; 10] = [
    PriceItem {
        time_unit: Some("hour"),
        ..item("Webentwicklung", "service", 9_500, HOURS)
    },
    PriceItem {
        time_unit: Some("hour"),
        ..item("UX- und UI-Design", "service", 9_000, HOURS)
    },
    PriceItem {
        time_unit: Some("hour"),
        ..item("Projektmanagement", "service", 8_500, HOURS)
    },
    PriceItem {
        time_unit: Some("day"),
        ..item("Workshop", "service", 88_000, ("Tag", "Tage"))
    },
    item("SEO-Analyse", "service", 65_000, LUMP),
    item("Hosting-Paket Brise", "product", 1_990, MONTHS),
    item("Hosting-Paket Sturm", "product", 4_990, MONTHS),
    item("Wartungsvertrag", "service", 14_900, MONTHS),
    item("Fotoproduktion", "service", 49_000, LUMP),
    PriceItem {
        vat_rate_id: 2,
        ..item(
            "Fachbuch Barrierefrei gestalten",
            "product",
            3_990,
            ("Stück", "Stück"),
        )
    },
];
pub(crate) const FIRST_PROPOSITION_ID: u64 = 21;

pub(super) fn propositions() -> Vec<Proposition> {
    PROPOSITIONS
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let created = at(add_days(date(2024, 2, 1), 3 * i as i64), 14, 0);
            Proposition {
                id: FIRST_PROPOSITION_ID + i as u64,
                name: p.name.into(),
                article_no: Some(format!("NL-{:03}", i + 1)),
                proposition_type: p.kind.into(),
                description: Some(format!("{} laut aktueller Preisliste", p.name)),
                price: eur(p.cents),
                time_unit: p.time_unit.map(Into::into),
                unit_name_1: p.one.into(),
                unit_name_n: p.many.into(),
                favorite: Some(i < 3),
                created_at: created,
                updated_at: created,
                vat_rate_id: p.vat_rate_id,
                ..Default::default()
            }
        })
        .collect()
}
