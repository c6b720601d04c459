//! Expense side: vouchers (Belege) of suppliers and everyday spending.

use super::RecordState;
use super::ser::{date, money_num, opt_date, type_tag};
use jiff::civil::Date;
use rust_decimal::Decimal;
use serde::Serialize;

type_tag!(VoucherTag => "expense_voucher");

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VoucherState {
    #[default]
    Unpaid,
    /// Unpaid past its due date on the snapshot date.
    Overdue,
    Paid,
    Canceled,
    /// Cancelled with a reverse entry after it was paid (the upstream's word for it, recorded).
    Deleted,
}

/// One booking line of a voucher; `amount` is gross.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VoucherLineItem {
    pub name: String,
    #[serde(with = "money_num")]
    pub amount: Decimal,
    pub category: String,
    /// `"19%"`, `"7%"` or `"0%"`.
    pub vat_rate: String,
    pub billing: Option<String>,
    pub depreciation: Option<String>,
}

/// `GET /expense/vouchers` entry; the detail adds creditor, line items and documents.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Voucher {
    #[serde(rename = "type")]
    pub kind: VoucherTag,
    pub id: u64,
    pub name: String,
    #[serde(with = "opt_date")]
    pub due_date: Option<Date>,
    #[serde(with = "date")]
    pub document_date: Date,
    pub description: String,
    pub entertainment_reason: String,
    pub flagged: Option<bool>,
    pub provenance: String,
    pub voucher_no: String,
    pub state: VoucherState,
    pub record_state: RecordState,
    /// Gross total, the sum of the line items.
    #[serde(with = "money_num")]
    pub amount: Decimal,
    #[serde(with = "money_num")]
    pub invoice_amount: Decimal,
    pub entertainment_persons: Vec<String>,
    /// The supplier company, if the voucher has one (not on the list wire).
    #[serde(skip)]
    pub creditor_id: Option<u64>,
    /// Project the cost belongs to; reachable only through the `project_id` filter.
    #[serde(skip)]
    pub project_id: Option<u64>,
    /// When it was paid (drives the bank transactions; the upstream does not expose it here).
    #[serde(skip)]
    pub paid_on: Option<Date>,
    #[serde(skip)]
    pub line_items: Vec<VoucherLineItem>,
}
