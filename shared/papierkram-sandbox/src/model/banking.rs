//! Banking: connected accounts and their transactions.

use super::NamedRef;
use super::ser::{BerlinTime, money_str, type_tag};
use rust_decimal::Decimal;
use serde::Serialize;

type_tag!(BankConnectionTag => "bank_connection");
type_tag!(TransactionTag => "banking_transaction");

/// A bank account. Its list entry is only `{type, id, name}`; the detail is this whole record.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BankConnection {
    #[serde(rename = "type")]
    pub kind: BankConnectionTag,
    pub id: u64,
    pub name: String,
    pub account_no: Option<String>,
    pub account_type: String,
    pub bic: Option<String>,
    pub blz: Option<String>,
    pub connection_type: String,
    pub created_at: BerlinTime,
    pub customer_id: Option<u64>,
    pub hbci: Option<String>,
    pub hbci_host_url: Option<String>,
    pub hbci_version: Option<String>,
    pub primary: Option<bool>,
    pub title: String,
    pub updated_at: BerlinTime,
    pub user_id: Option<u64>,
    pub iban: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TransactionState {
    /// Came in from the bank, not yet matched to a document.
    #[default]
    Imported,
    /// Matched to an invoice or voucher.
    Cleared,
}

/// The other side of a transaction.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counterparty {
    pub bic: Option<String>,
    pub iban: Option<String>,
    pub account_no: Option<String>,
    pub blz: Option<String>,
    pub currency: Option<String>,
    pub name: String,
}

/// Account balance after the transaction.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Saldo {
    #[serde(with = "money_str")]
    pub value: Decimal,
    pub currency: Option<String>,
    pub timestamp: Option<BerlinTime>,
}

/// `GET /banking/transactions` entry (list and detail have the same shape).
/// `value` is signed: incoming money positive, payments negative.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BankTransaction {
    #[serde(rename = "type")]
    pub kind: TransactionTag,
    pub id: u64,
    pub state: TransactionState,
    #[serde(with = "money_str")]
    pub value: Decimal,
    pub currency: String,
    pub storno: Option<bool>,
    pub customerref: Option<String>,
    pub instref: Option<String>,
    pub gvcode: Option<String>,
    pub text: Option<String>,
    pub usage: String,
    pub transaction_type: String,
    pub sepa: Option<String>,
    pub from: Counterparty,
    pub saldo: Saldo,
    pub primanota: Option<String>,
    pub valuta: Option<BerlinTime>,
    pub bdate: BerlinTime,
    pub seen: Option<bool>,
    pub fintecapi_turnover_id: Option<String>,
    pub imported_at: Option<BerlinTime>,
    pub created_at: BerlinTime,
    pub updated_at: BerlinTime,
    pub tags: Option<Vec<String>>,
    pub categories: Option<Vec<String>>,
    pub bank_connection: NamedRef,
    #[serde(skip)]
    pub bank_connection_id: u64,
    /// The invoice this payment settled, if any.
    #[serde(skip)]
    pub invoice_id: Option<u64>,
    /// The voucher this payment settled, if any.
    #[serde(skip)]
    pub voucher_id: Option<u64>,
}
