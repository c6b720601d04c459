//! Which collection, list entry, detail shape and filters each resource has.
//!
//! Filters are the ones the upstream recordings and its client library use (`company_id` and the
//! library's `creditor_id` are aliases on documents); unknown query parameters are ignored, as the
//! upstream ignores them.

use super::list::Filter;
use super::resources::Resource;
use crate::model::views::*;
use crate::model::*;
use serde::Serialize;

/// Document filters shared by invoices, estimates and vouchers.
fn document_filters<T>(
    company: fn(&T) -> Option<u64>,
    project: fn(&T) -> Option<u64>,
    date: fn(&T) -> Option<jiff::civil::Date>,
) -> Vec<Filter<T>> {
    vec![
        Filter::Id(&["company_id", "creditor_id"], company),
        Filter::Id(&["project_id"], project),
        Filter::DateFrom("document_date_range_start", date),
        Filter::DateTo("document_date_range_end", date),
    ]
}

impl Resource for Invoice {
    const MODEL: &'static str = "Income::Invoice";
    fn all(d: &DemoData) -> &[Self] {
        &d.invoices
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a {
        let relations = (self.customer_id, self.contact_person_id, self.project_id);
        DocumentDetail::new(self, d, relations, &self.line_items)
    }
    fn filters() -> Vec<Filter<Self>> {
        document_filters(
            |i| Some(i.customer_id),
            |i| i.project_id,
            |i| Some(i.document_date),
        )
    }
}

impl Resource for Estimate {
    const MODEL: &'static str = "Income::Estimate";
    fn all(d: &DemoData) -> &[Self] {
        &d.estimates
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a {
        let relations = (self.customer_id, self.contact_person_id, self.project_id);
        DocumentDetail::new(self, d, relations, &self.line_items)
    }
    fn filters() -> Vec<Filter<Self>> {
        document_filters(
            |e| Some(e.customer_id),
            |e| e.project_id,
            |e| Some(e.document_date),
        )
    }
}

impl Resource for Voucher {
    const MODEL: &'static str = "Expense::Voucher";
    fn all(d: &DemoData) -> &[Self] {
        &d.vouchers
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a {
        let creditor = self.creditor_id.and_then(|id| d.company(id));
        VoucherDetail {
            voucher: self,
            creditor,
            line_items: &self.line_items,
            documents: Vec::new(),
        }
    }
    fn filters() -> Vec<Filter<Self>> {
        document_filters(
            |v| v.creditor_id,
            |v| v.project_id,
            |v| Some(v.document_date),
        )
    }
}

impl Resource for Proposition {
    const MODEL: &'static str = "Income::Proposition";
    fn all(d: &DemoData) -> &[Self] {
        &d.propositions
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a {
        PropositionDetail {
            proposition: self,
            vat_rate: find(&d.vat_rates, self.vat_rate_id),
        }
    }
}

impl Resource for PaymentTerm {
    const MODEL: &'static str = "Income::PaymentTerm";
    fn all(d: &DemoData) -> &[Self] {
        &d.payment_terms
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a {
        let account = self
            .bank_connection_id
            .and_then(|id| find(&d.bank_connections, id));
        PaymentTermDetail {
            term: self,
            banking_bank_connection: account.map(bank_connection_ref),
        }
    }
}

impl Resource for Company {
    const MODEL: &'static str = "Contact::Company";
    fn all(d: &DemoData) -> &[Self] {
        &d.companies
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a {
        CompanyDetail::new(self, d)
    }
}

impl Resource for Person {
    const MODEL: &'static str = "Contact::Person";
    fn all(d: &DemoData) -> &[Self] {
        &d.persons
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a {
        PersonDetail {
            person: self,
            company: d.company(self.company_id),
        }
    }
}

impl Resource for Project {
    const MODEL: &'static str = "Project";
    fn all(d: &DemoData) -> &[Self] {
        &d.projects
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a {
        ProjectDetail::new(self, d)
    }
    fn filters() -> Vec<Filter<Self>> {
        vec![Filter::Id(&["company_id"], |p| Some(p.company_id))]
    }
}

impl Resource for Task {
    const MODEL: &'static str = "Tracker::Task";
    fn all(d: &DemoData) -> &[Self] {
        &d.tasks
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a {
        TaskDetail {
            task: self,
            project: d.project(self.project_id),
            proposition: self.proposition_id.and_then(|id| d.proposition(id)),
            user: self.user_id.and_then(|id| d.user(id)),
        }
    }
    fn filters() -> Vec<Filter<Self>> {
        vec![
            Filter::Id(&["project_id"], |t| Some(t.project_id)),
            Filter::Id(&["proposition_id"], |t| t.proposition_id),
        ]
    }
}

impl Resource for TimeEntry {
    const MODEL: &'static str = "Tracker::TimeEntry";
    fn all(d: &DemoData) -> &[Self] {
        &d.time_entries
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, d: &'a DemoData) -> impl Serialize + 'a {
        TimeEntryDetail {
            entry: self,
            project: d.project(self.project_id),
            task: find(&d.tasks, self.task_id),
            user: d.user(self.user_id),
            invoice: self
                .invoice_id
                .and_then(|id| find(&d.invoices, id))
                .map(invoice_ref),
        }
    }
    fn filters() -> Vec<Filter<Self>> {
        vec![
            Filter::Id(&["project_id"], |t| Some(t.project_id)),
            Filter::Id(&["task_id"], |t| Some(t.task_id)),
            Filter::Id(&["user_id"], |t| Some(t.user_id)),
            Filter::Id(&["invoice_id"], |t| t.invoice_id),
        ]
    }
}

impl Resource for BankConnection {
    const MODEL: &'static str = "Banking::BankConnection";
    fn all(d: &DemoData) -> &[Self] {
        &d.bank_connections
    }
    fn entry(&self) -> impl Serialize + '_ {
        bank_connection_ref(self)
    }
    fn detail<'a>(&'a self, _: &'a DemoData) -> impl Serialize + 'a {
        self
    }
}

impl Resource for BankTransaction {
    const MODEL: &'static str = "Banking::Transaction";
    fn all(d: &DemoData) -> &[Self] {
        &d.transactions
    }
    fn entry(&self) -> impl Serialize + '_ {
        self
    }
    fn detail<'a>(&'a self, _: &'a DemoData) -> impl Serialize + 'a {
        self
    }
    fn filters() -> Vec<Filter<Self>> {
        vec![Filter::Id(&["bank_connection_id"], |t| {
            Some(t.bank_connection_id)
        })]
    }
}
