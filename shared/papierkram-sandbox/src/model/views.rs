//! Detail (`GET …/{id}`) shapes: the list entry plus the nested relations the upstream embeds.

use super::contact::{CompanyRef, PersonRef};
use super::tracker::TaskRef;
use super::*;

#[derive(Serialize)]
pub(crate) struct CompanyDetail<'a> {
    #[serde(flatten)]
    pub company: &'a Company,
    pub people: SubList<PersonRef<'a>>,
    pub custom_attributes: Vec<String>,
    pub projects: SubList<NamedRef>,
    pub invoices: SubList<NamedRef>,
    pub vouchers: SubList<NamedRef>,
}

impl<'a> CompanyDetail<'a> {
    pub(crate) fn new(c: &'a Company, d: &'a DemoData) -> Self {
        let id = c.id;
        CompanyDetail {
            company: c,
            people: SubList::new(
                format!("/api/v1/contact/companies/{id}/persons"),
                d.persons_of(id).map(PersonRef::from),
            ),
            custom_attributes: Vec::new(),
            projects: SubList::new(
                format!("/api/v1/projects?company_id={id}"),
                d.projects
                    .iter()
                    .filter(|p| p.company_id == id)
                    .map(project_ref),
            ),
            invoices: SubList::new(
                format!("/api/v1/income/invoices?company_id={id}"),
                d.invoices
                    .iter()
                    .filter(|i| i.customer_id == id)
                    .map(invoice_ref),
            ),
            vouchers: SubList::new(
                format!("/api/v1/expense/vouchers?company_id={id}"),
                d.vouchers
                    .iter()
                    .filter(|v| v.creditor_id == Some(id))
                    .map(voucher_ref),
            ),
        }
    }
}

#[derive(Serialize)]
pub(crate) struct PersonDetail<'a> {
    #[serde(flatten)]
    pub person: &'a Person,
    pub company: Option<&'a Company>,
}

#[derive(Serialize)]
pub(crate) struct ProjectDetail<'a> {
    #[serde(flatten)]
    pub project: &'a Project,
    pub default_proposition: Option<&'a Proposition>,
    pub customer: Option<&'a Company>,
    pub team_members: Vec<NamedRef>,
    pub tasks: SubList<TaskRef<'a>>,
    pub invoices: SubList<NamedRef>,
    pub vouchers: SubList<NamedRef>,
}

impl<'a> ProjectDetail<'a> {
    pub(crate) fn new(p: &'a Project, d: &'a DemoData) -> Self {
        let id = p.id;
        ProjectDetail {
            project: p,
            default_proposition: p.default_proposition_id.and_then(|i| d.proposition(i)),
            customer: d.company(p.company_id),
            team_members: Vec::new(),
            tasks: SubList::new(
                format!("/api/v1/tracker/tasks?project_id={id}"),
                d.tasks
                    .iter()
                    .filter(|t| t.project_id == id)
                    .map(TaskRef::from),
            ),
            invoices: SubList::new(
                format!("/api/v1/income/invoices?project_id={id}"),
                d.invoices
                    .iter()
                    .filter(|i| i.project_id == Some(id))
                    .map(invoice_ref),
            ),
            vouchers: SubList::new(
                format!("/api/v1/expense/vouchers?project_id={id}"),
                d.vouchers
                    .iter()
                    .filter(|v| v.project_id == Some(id))
                    .map(voucher_ref),
            ),
        }
    }
}

#[derive(Serialize)]
pub(crate) struct TaskDetail<'a> {
    #[serde(flatten)]
    pub task: &'a Task,
    pub project: Option<&'a Project>,
    pub proposition: Option<&'a Proposition>,
    pub user: Option<&'a User>,
}

#[derive(Serialize)]
pub(crate) struct TimeEntryDetail<'a> {
    #[serde(flatten)]
    pub entry: &'a TimeEntry,
    pub project: Option<&'a Project>,
    pub task: Option<&'a Task>,
    pub user: Option<&'a User>,
    pub invoice: Option<NamedRef>,
}

/// Invoice and estimate details share their relations.
#[derive(Serialize)]
pub(crate) struct DocumentDetail<'a, T> {
    #[serde(flatten)]
    pub document: &'a T,
    pub customer: Option<CompanyRef<'a>>,
    pub contact_person: Option<PersonRef<'a>>,
    pub project: Option<NamedRef>,
    pub line_items: &'a [LineItem],
}

impl<'a, T> DocumentDetail<'a, T> {
    pub(crate) fn new(
        document: &'a T,
        d: &'a DemoData,
        (customer, person, project): (u64, Option<u64>, Option<u64>),
        line_items: &'a [LineItem],
    ) -> Self {
        DocumentDetail {
            document,
            customer: d.company(customer).map(CompanyRef::from),
            contact_person: person.and_then(|i| d.person(i)).map(PersonRef::from),
            project: project.and_then(|i| d.project(i)).map(project_ref),
            line_items,
        }
    }
}

#[derive(Serialize)]
pub(crate) struct PropositionDetail<'a> {
    #[serde(flatten)]
    pub proposition: &'a Proposition,
    pub vat_rate: Option<&'a VatRate>,
}

#[derive(Serialize)]
pub(crate) struct PaymentTermDetail<'a> {
    #[serde(flatten)]
    pub term: &'a PaymentTerm,
    pub banking_bank_connection: Option<NamedRef>,
}

#[derive(Serialize)]
pub(crate) struct VoucherDetail<'a> {
    #[serde(flatten)]
    pub voucher: &'a Voucher,
    pub creditor: Option<&'a Company>,
    pub line_items: &'a [VoucherLineItem],
    pub documents: Vec<NamedRef>,
}

pub(crate) fn project_ref(p: &Project) -> NamedRef {
    NamedRef::new("project", p.id, &p.name)
}

pub(crate) fn invoice_ref(i: &Invoice) -> NamedRef {
    NamedRef::new("invoice", i.id, &i.name)
}

pub(crate) fn voucher_ref(v: &Voucher) -> NamedRef {
    NamedRef::new("expense_voucher", v.id, &v.name)
}

pub(crate) fn bank_connection_ref(b: &BankConnection) -> NamedRef {
    NamedRef::new("bank_connection", b.id, &b.name)
}
