//! Users and the address book: customers, suppliers and their contact persons.

use super::names::{
    CITIES, COLORS, CUSTOMERS, FIRST_NAMES, LAST_NAMES, POSITIONS, STREETS, SUPPLIERS,
};
use super::prng::Rng;
use super::{SEED, add_days, at, slug};
use crate::model::ser::BerlinTime;
use crate::model::*;
use jiff::civil::date;

pub(crate) const FIRST_COMPANY_ID: u64 = 101;
pub(crate) const FIRST_PERSON_ID: u64 = 501;

pub(super) fn users() -> Vec<User> {
    let people = [
        (1, "Inga", "Hansen", "owner", "Accountinhaber"),
        (2, "Mats", "Petersen", "employee", "Mitarbeiter"),
        (3, "Leonie", "Brandt", "employee", "Mitarbeiter"),
    ];
    people
        .into_iter()
        .map(|(id, first, last, role, role_f)| User {
            id,
            full_name: format!("{first} {last}"),
            first_name: first.into(),
            last_name: last.into(),
            role: role.into(),
            role_f: role_f.into(),
            email: format!(
                "{}.{}@nordlicht-webdesign.example",
                first.to_lowercase(),
                last.to_lowercase()
            ),
            ..Default::default()
        })
        .collect()
}

/// Companies 0, 1, 2 … alternate so that every tenth block holds three suppliers.
pub(crate) fn is_supplier_slot(i: usize) -> bool {
    matches!(i % 10, 3 | 7 | 9)
}

pub(super) fn companies(terms: &[PaymentTerm]) -> (Vec<Company>, Vec<Person>) {
    let mut rng = Rng::new(SEED, 1);
    let (mut customers, mut suppliers) = (CUSTOMERS.iter(), SUPPLIERS.iter());
    let (mut companies, mut persons) = (Vec::new(), Vec::new());
    for i in 0..CUSTOMERS.len() + SUPPLIERS.len() {
        let supplier = is_supplier_slot(i);
        let name = if supplier {
            suppliers.next()
        } else {
            customers.next()
        }
        .expect("40 names");
        let number = 1 + companies
            .iter()
            .filter(|c: &&Company| (c.contact_type == ContactType::Supplier) == supplier)
            .count();
        let company = company(
            &mut rng,
            FIRST_COMPANY_ID + i as u64,
            name,
            supplier,
            number,
            terms,
        );
        for n in 0..1 + i % 3 {
            let id = FIRST_PERSON_ID + persons.len() as u64;
            persons.push(person(&mut rng, id, &company, n == 0));
        }
        companies.push(company);
    }
    (companies, persons)
}

fn company(
    rng: &mut Rng,
    id: u64,
    name: &str,
    supplier: bool,
    number: usize,
    terms: &[PaymentTerm],
) -> Company {
    let (city, zip, area) = *rng.pick(&CITIES);
    let domain = format!("{}.example", slug(name));
    let created = at(
        add_days(date(2024, 1, 8), rng.range(0, 330)),
        rng.range(8, 17) as i8,
        rng.range(0, 59) as i8,
    );
    let number_text = format!("{}-{number:05}", if supplier { "L" } else { "K" });
    let term = if supplier {
        0
    } else {
        [2, 2, 2, 3, 4, 6, 1][rng.below(7) as usize]
    };
    let with_bank = supplier || rng.chance(40);
    Company {
        id,
        name: name.into(),
        contact_type: if supplier {
            ContactType::Supplier
        } else {
            ContactType::Customer
        },
        supplier_no: supplier.then(|| number_text.clone()),
        customer_no: (!supplier).then(|| number_text.clone()),
        email: Some(format!(
            "{}@{domain}",
            if supplier { "rechnung" } else { "info" }
        )),
        phone: Some(format!("{area} {}", rng.digits(6))),
        website: Some(format!("https://www.{domain}")),
        postal_street: Some(format!("{} {}", rng.pick(&STREETS), rng.range(1, 120))),
        postal_zip: Some(zip.into()),
        postal_city: Some(city.into()),
        postal_country: "Deutschland".into(),
        physical_country: "Deutschland".into(),
        delivery_method: Some(if rng.chance(80) { "email" } else { "pdf" }.into()),
        ust_idnr: Some(format!("DE{}", rng.digits(9))),
        bank_institute: with_bank.then(|| "Küstenbank eG".into()),
        bank_bic: with_bank.then(|| "KSTBDE2KXXX".into()),
        bank_sepa_mandate_reference: format!("MREF-{}", number_text.replace('-', "")),
        bank_iban: with_bank.then(|| format!("DE{}{}", rng.digits(2), rng.digits(18))),
        inbound_address: rng.token(4),
        notes: None,
        created_at: created,
        updated_at: BerlinTime(
            created
                .0
                .checked_add(jiff::Span::new().days(rng.range(0, 40)))
                .expect("in range"),
        ),
        color: rng.pick(&COLORS).map(Into::into),
        payment_term_id: terms[term].id,
        ..Default::default()
    }
}

fn person(rng: &mut Rng, id: u64, company: &Company, default: bool) -> Person {
    let (first, salutation) = *rng.pick(&FIRST_NAMES);
    let last = *rng.pick(&LAST_NAMES);
    let domain = company
        .website
        .as_deref()
        .unwrap_or_default()
        .trim_start_matches("https://www.");
    let mail_name = format!("{first}.{last}")
        .to_lowercase()
        .replace('ö', "oe")
        .replace('ü', "ue")
        .replace('ä', "ae");
    Person {
        id,
        first_name: first.into(),
        last_name: last.into(),
        title: Some(if rng.chance(10) { "Dr." } else { "" }.into()),
        salutation: Some(salutation.into()),
        position: Some((*rng.pick(&POSITIONS)).into()),
        department: Some(String::new()),
        phone: company
            .phone
            .as_ref()
            .map(|p| format!("{p}-{}", rng.range(10, 49))),
        skype: Some(String::new()),
        fax: None,
        email: Some(format!("{mail_name}@{domain}")),
        created_at: company.created_at,
        updated_at: company.updated_at,
        mobile: Some(format!("0170 {}", rng.digits(7))),
        comment: Some(String::new()),
        default: default.then_some(true),
        company_id: company.id,
        ..Default::default()
    }
}
