//! Income side: invoices, estimates, propositions (products/services), payment terms, VAT rates.

use super::RecordState;
use super::ser::{BerlinTime, date, money_num, money_num_int_zero, money_str, opt_date, type_tag};
use jiff::civil::Date;
use rust_decimal::Decimal;
use serde::Serialize;

type_tag!(InvoiceTag => "invoice");
type_tag!(EstimateTag => "estimate");
type_tag!(PropositionTag => "proposition");
type_tag!(PaymentTermTag => "payment_term");
type_tag!(VatRateTag => "vat_rate");

/// Invoice states as the upstream names them (note the single-l `canceled`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InvoiceState {
    #[default]
    Draft,
    /// Sent, not yet due.
    Unpaid,
    /// Sent, past its due date and not paid on the snapshot date.
    Overdue,
    Paid,
    Canceled,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EstimateState {
    #[default]
    Draft,
    Sent,
    Accepted,
    Rejected,
}

/// The address block printed on a document, copied from the customer when it was written.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Billing {
    pub company: String,
    pub email: Option<String>,
    pub ust_idnr: String,
    pub street: String,
    pub zip: String,
    pub city: String,
    pub country: String,
    pub contact_person: Option<String>,
    pub department: Option<String>,
}

/// One position of an invoice or estimate; `total_net = quantity × price`, exact to the cent.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LineItem {
    pub line_item_type: String,
    pub position_in_group: String,
    pub name: String,
    pub description: Option<String>,
    #[serde(with = "money_num")]
    pub quantity: Decimal,
    pub unit: String,
    #[serde(with = "money_num")]
    pub price: Decimal,
    /// `"19%"` or `"7%"`.
    pub vat_rate: String,
    #[serde(with = "money_num")]
    pub total_net: Decimal,
    /// Price-list reference; the demo writes free positions, so this stays `null`.
    pub proposition: Option<super::NamedRef>,
}

/// `GET /income/invoices` entry; the detail adds customer, contact person, project and line items.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Invoice {
    #[serde(rename = "type")]
    pub kind: InvoiceTag,
    pub id: u64,
    pub name: String,
    pub description: Option<String>,
    pub type_of: String,
    #[serde(with = "date")]
    pub document_date: Date,
    #[serde(with = "date")]
    pub due_date: Date,
    /// Free text in German notation, e.g. `01.03.2025 - 31.03.2025`.
    pub supply_date: String,
    pub customer_no: Option<String>,
    pub invoice_no: Option<String>,
    #[serde(with = "opt_date")]
    pub sent_on: Option<Date>,
    pub sent_via: Option<String>,
    pub sent_to: Option<String>,
    #[serde(with = "opt_date")]
    pub paid_at_date: Option<Date>,
    pub state: InvoiceState,
    pub record_state: RecordState,
    pub custom_template: Option<String>,
    #[serde(with = "money_num")]
    pub total_net: Decimal,
    #[serde(with = "money_num")]
    pub total_vat: Decimal,
    #[serde(with = "money_num")]
    pub total_gross: Decimal,
    #[serde(with = "money_num_int_zero")]
    pub down_payment_total_gross: Decimal,
    #[serde(with = "money_str")]
    pub outstanding_amount: Decimal,
    pub billing: Billing,
    #[serde(skip)]
    pub customer_id: u64,
    #[serde(skip)]
    pub contact_person_id: Option<u64>,
    #[serde(skip)]
    pub project_id: Option<u64>,
    #[serde(skip)]
    pub payment_term_id: u64,
    #[serde(skip)]
    pub line_items: Vec<LineItem>,
}

/// `GET /income/estimates` entry (Angebot); the detail adds the same relations as an invoice.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Estimate {
    #[serde(rename = "type")]
    pub kind: EstimateTag,
    pub id: u64,
    pub name: String,
    pub description: Option<String>,
    #[serde(with = "date")]
    pub document_date: Date,
    pub customer_no: Option<String>,
    pub estimate_no: Option<String>,
    #[serde(with = "opt_date")]
    pub sent_on: Option<Date>,
    pub sent_via: Option<String>,
    pub sent_to: Option<String>,
    pub state: EstimateState,
    pub record_state: RecordState,
    pub custom_template: Option<String>,
    #[serde(with = "money_num")]
    pub total_net: Decimal,
    #[serde(with = "money_num")]
    pub total_vat: Decimal,
    #[serde(with = "money_num")]
    pub total_gross: Decimal,
    pub billing: Billing,
    #[serde(skip)]
    pub customer_id: u64,
    #[serde(skip)]
    pub contact_person_id: Option<u64>,
    #[serde(skip)]
    pub project_id: Option<u64>,
    #[serde(skip)]
    pub line_items: Vec<LineItem>,
}

/// A product or service of the price list (`/income/propositions`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Proposition {
    #[serde(rename = "type")]
    pub kind: PropositionTag,
    pub id: u64,
    pub name: String,
    pub article_no: Option<String>,
    /// `"service"` or `"product"`.
    pub proposition_type: String,
    pub description: Option<String>,
    #[serde(with = "money_str")]
    pub price: Decimal,
    pub time_unit: Option<String>,
    pub unit_name_1: String,
    pub unit_name_n: String,
    pub record_state: RecordState,
    pub flagged: Option<bool>,
    pub favorite: Option<bool>,
    pub created_at: BerlinTime,
    pub updated_at: BerlinTime,
    #[serde(skip)]
    pub vat_rate_id: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VatRate {
    #[serde(rename = "type")]
    pub kind: VatRateTag,
    pub id: u64,
    pub name: String,
    #[serde(with = "money_str")]
    pub rate: Decimal,
    pub description: String,
    pub code: String,
    pub country_code: String,
    pub vat_rate_type: String,
    pub created_at: BerlinTime,
    pub updated_at: BerlinTime,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DueTimeUnit {
    #[default]
    Day,
    Week,
    Month,
    WorkDay,
}

/// `/income/payment_terms`; the detail adds `banking_bank_connection`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PaymentTerm {
    #[serde(rename = "type")]
    pub kind: PaymentTermTag,
    pub id: u64,
    pub name: String,
    pub cash_discount: Option<String>,
    pub cash_discount_time: Option<u32>,
    pub cash_discount_unit: Option<String>,
    pub due_time: u32,
    pub due_time_unit: DueTimeUnit,
    pub number_reminders: Option<u32>,
    pub number_dunnings: Option<u32>,
    pub dunning_fee: Option<String>,
    pub created_at: BerlinTime,
    pub updated_at: BerlinTime,
    pub template: bool,
    pub default_template: bool,
    pub template_id: Option<u64>,
    pub default_reminder_template: bool,
    pub template_text: Option<String>,
    pub payment_required: bool,
    #[serde(skip)]
    pub bank_connection_id: Option<u64>,
}
