//! Typed demo records. Each record serializes to the upstream's *list entry* JSON; fields marked
//! `#[serde(skip)]` hold relations that only the detail views (see `views`) or filters expose.

pub mod banking;
pub mod contact;
pub mod expense;
pub mod income;
pub mod ser;
pub mod tracker;
pub(crate) mod views;

use serde::Serialize;

pub use banking::{BankConnection, BankTransaction, Counterparty, Saldo, TransactionState};
pub use contact::{Company, ContactType, Person, User};
pub use expense::{Voucher, VoucherLineItem, VoucherState};
pub use income::{
    Billing, DueTimeUnit, Estimate, EstimateState, Invoice, InvoiceState, LineItem, PaymentTerm,
    Proposition, VatRate,
};
pub use tracker::{Project, Task, TimeEntry};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordState {
    #[default]
    Active,
    Archived,
}

/// `{type, id, name}`, the short reference the upstream nests for related records.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NamedRef {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub id: u64,
    pub name: String,
}

impl NamedRef {
    pub fn new(kind: &'static str, id: u64, name: &str) -> Self {
        NamedRef {
            kind,
            id,
            name: name.to_owned(),
        }
    }
}

/// A related list embedded in a detail: `{type: "list", has_more, url, entries}`.
#[derive(Debug, Clone, Serialize)]
pub struct SubList<T> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub has_more: bool,
    pub url: String,
    pub entries: Vec<T>,
}

/// How many related records a detail embeds before it sets `has_more` and points at `url`.
pub const SUB_LIST_LIMIT: usize = 10;

impl<T> SubList<T> {
    pub fn new(url: String, all: impl IntoIterator<Item = T>) -> Self {
        let mut entries: Vec<T> = all.into_iter().collect();
        let has_more = entries.len() > SUB_LIST_LIMIT;
        entries.truncate(SUB_LIST_LIMIT);
        SubList {
            kind: "list",
            has_more,
            url,
            entries,
        }
    }
}

/// Every record has a numeric id; collections are kept sorted by it.
pub trait HasId {
    fn id(&self) -> u64;
}

macro_rules! has_id {
    ($($t:ty),*) => { $(impl HasId for $t { fn id(&self) -> u64 { self.id } })* };
}
has_id!(
    User,
    VatRate,
    PaymentTerm,
    Proposition,
    Company,
    Person,
    Project,
    Task,
    TimeEntry,
    Estimate,
    Invoice,
    Voucher,
    BankConnection,
    BankTransaction
);

/// Looks a record up in an id-sorted collection.
pub fn find<T: HasId>(items: &[T], id: u64) -> Option<&T> {
    items
        .binary_search_by_key(&id, HasId::id)
        .ok()
        .map(|i| &items[i])
}

/// The whole demo account of "Nordlicht Webdesign GmbH", every collection sorted by id.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoData {
    pub users: Vec<User>,
    pub vat_rates: Vec<VatRate>,
    pub payment_terms: Vec<PaymentTerm>,
    pub propositions: Vec<Proposition>,
    pub companies: Vec<Company>,
    pub persons: Vec<Person>,
    pub projects: Vec<Project>,
    pub tasks: Vec<Task>,
    pub time_entries: Vec<TimeEntry>,
    pub estimates: Vec<Estimate>,
    pub invoices: Vec<Invoice>,
    pub vouchers: Vec<Voucher>,
    pub bank_connections: Vec<BankConnection>,
    pub transactions: Vec<BankTransaction>,
}

impl DemoData {
    pub fn company(&self, id: u64) -> Option<&Company> {
        find(&self.companies, id)
    }
    pub fn person(&self, id: u64) -> Option<&Person> {
        find(&self.persons, id)
    }
    pub fn project(&self, id: u64) -> Option<&Project> {
        find(&self.projects, id)
    }
    pub fn proposition(&self, id: u64) -> Option<&Proposition> {
        find(&self.propositions, id)
    }
    pub fn user(&self, id: u64) -> Option<&User> {
        find(&self.users, id)
    }
    pub fn persons_of(&self, company_id: u64) -> impl Iterator<Item = &Person> {
        self.persons
            .iter()
            .filter(move |p| p.company_id == company_id)
    }
}
