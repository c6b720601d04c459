//! Address book: companies (customers and suppliers), their contact persons, and the account's users.

use super::RecordState;
use super::ser::{BerlinTime, type_tag};
use serde::Serialize;

type_tag!(CompanyTag => "company");
type_tag!(PersonTag => "person");
type_tag!(UserTag => "user");

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactType {
    #[default]
    Customer,
    Supplier,
}

/// `GET /contact/companies` entry; the detail adds people, projects, invoices and vouchers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Company {
    #[serde(rename = "type")]
    pub kind: CompanyTag,
    pub id: u64,
    pub name: String,
    pub contact_type: ContactType,
    pub supplier_no: Option<String>,
    pub customer_no: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub twitter: Option<String>,
    pub fax: Option<String>,
    pub postal_street: Option<String>,
    pub postal_zip: Option<String>,
    pub postal_city: Option<String>,
    pub postal_country: String,
    pub physical_street: Option<String>,
    pub physical_zip: Option<String>,
    pub physical_city: Option<String>,
    pub physical_country: String,
    pub delivery_method: Option<String>,
    pub ust_idnr: Option<String>,
    pub logo_file_name: Option<String>,
    pub logo_content_type: Option<String>,
    pub logo_file_size: Option<u64>,
    pub logo_updated_at: Option<BerlinTime>,
    pub bank_blz: Option<String>,
    pub bank_institute: Option<String>,
    pub bank_account_no: Option<String>,
    pub bank_bic: Option<String>,
    pub bank_sepa_mandate_reference: String,
    pub bank_sepa_mandate_accepted: Option<bool>,
    pub bank_iban: Option<String>,
    pub inbound_address: String,
    pub notes: Option<String>,
    pub record_state: RecordState,
    pub flagged: Option<bool>,
    pub created_at: BerlinTime,
    pub updated_at: BerlinTime,
    pub color: Option<String>,
    /// The payment term new invoices for this customer use (not on the wire).
    #[serde(skip)]
    pub payment_term_id: u64,
}

/// Contact person of a company (`/contact/companies/{id}/persons`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Person {
    #[serde(rename = "type")]
    pub kind: PersonTag,
    pub id: u64,
    pub first_name: String,
    pub last_name: String,
    pub title: Option<String>,
    pub salutation: Option<String>,
    pub position: Option<String>,
    pub department: Option<String>,
    pub phone: Option<String>,
    pub skype: Option<String>,
    pub fax: Option<String>,
    pub email: Option<String>,
    pub flagged: Option<bool>,
    pub created_at: BerlinTime,
    pub updated_at: BerlinTime,
    pub mobile: Option<String>,
    pub comment: Option<String>,
    pub default: Option<bool>,
    #[serde(skip)]
    pub company_id: u64,
}

impl Person {
    pub fn full_name(&self) -> String {
        format!("{} {}", self.first_name, self.last_name)
    }
}

/// A login of the demo account; appears nested in tasks and time entries.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct User {
    #[serde(rename = "type")]
    pub kind: UserTag,
    pub id: u64,
    pub full_name: String,
    pub first_name: String,
    pub last_name: String,
    pub role: String,
    pub role_f: String,
    pub email: String,
}

/// `{type: "company", id, name, contact_type}` as documents reference their customer.
#[derive(Debug, Clone, Serialize)]
pub struct CompanyRef<'a> {
    #[serde(rename = "type")]
    pub kind: CompanyTag,
    pub id: u64,
    pub name: &'a str,
    pub contact_type: ContactType,
}

impl<'a> From<&'a Company> for CompanyRef<'a> {
    fn from(c: &'a Company) -> Self {
        CompanyRef {
            kind: CompanyTag,
            id: c.id,
            name: &c.name,
            contact_type: c.contact_type,
        }
    }
}

/// `{type: "person", id, first_name, last_name}` as company details list their people.
#[derive(Debug, Clone, Serialize)]
pub struct PersonRef<'a> {
    #[serde(rename = "type")]
    pub kind: PersonTag,
    pub id: u64,
    pub first_name: &'a str,
    pub last_name: &'a str,
}

impl<'a> From<&'a Person> for PersonRef<'a> {
    fn from(p: &'a Person) -> Self {
        PersonRef {
            kind: PersonTag,
            id: p.id,
            first_name: &p.first_name,
            last_name: &p.last_name,
        }
    }
}
