//! Bank accounts and their statement lines: every paid invoice and voucher, plus account fees.

use super::prng::Rng;
use super::vouchers::paid_by_card;
use super::*;
use crate::model::views::bank_connection_ref;
use crate::model::*;
use jiff::civil::date;

pub(crate) const CURRENT_ACCOUNT: u64 = 1;
pub(crate) const CREDIT_CARD: u64 = 2;
pub(crate) const FIRST_TRANSACTION_ID: u64 = 9001;
/// Balances on the morning of [`FIRST_DAY`].
const OPENING_BALANCE: [(u64, i64); 2] = [(CURRENT_ACCOUNT, 1_850_000), (CREDIT_CARD, 0)];
const MONTHLY_FEE_CENTS: i64 = -990;

pub(super) fn connections() -> Vec<BankConnection> {
    let created = at(date(2024, 1, 3), 11, 20);
    let account = |id, name: &str, connection_type: &str, iban: &str, primary| BankConnection {
        id,
        name: name.into(),
        account_type: "default".into(),
        bic: Some("KSTBDE2KXXX".into()),
        connection_type: connection_type.into(),
        created_at: created,
        primary,
        title: name.into(),
        updated_at: created,
        iban: iban.into(),
        ..Default::default()
    };
    vec![
        account(
            CURRENT_ACCOUNT,
            "Geschäftskonto Küstenbank",
            "fintecapi",
            "DE00 2105 0000 0012 3456 78",
            Some(true),
        ),
        account(CREDIT_CARD, "Firmenkreditkarte", "default", "", None),
    ]
}

struct Line {
    day: Date,
    account: u64,
    cents: i64,
    text: &'static str,
    usage: String,
    from: Counterparty,
    invoice: Option<u64>,
    voucher: Option<u64>,
}

fn counterparty(d: &DemoData, company: Option<u64>, fallback: &str) -> Counterparty {
    let c = company.and_then(|id| d.company(id));
    Counterparty {
        bic: c.and_then(|c| c.bank_bic.clone()),
        iban: c.and_then(|c| c.bank_iban.clone()),
        account_no: None,
        blz: None,
        currency: Some("EUR".into()),
        name: c.map_or(fallback.to_owned(), |c| c.name.clone()),
    }
}

pub(super) fn transactions(d: &DemoData) -> Vec<BankTransaction> {
    let mut rng = Rng::new(SEED, 7);
    let mut lines = Vec::new();
    for i in d.invoices.iter().filter(|i| i.state == InvoiceState::Paid) {
        let usage = format!(
            "{} {}",
            i.invoice_no.as_deref().unwrap_or_default(),
            i.billing.company
        );
        lines.push(Line {
            day: i.paid_at_date.expect("paid invoices have a date"),
            account: CURRENT_ACCOUNT,
            cents: cents(i.total_gross),
            text: "GUTSCHRIFT",
            usage,
            from: counterparty(d, Some(i.customer_id), &i.billing.company),
            invoice: Some(i.id),
            voucher: None,
        });
    }
    for v in d.vouchers.iter().filter(|v| v.state == VoucherState::Paid) {
        let card = v
            .line_items
            .first()
            .is_some_and(|l| paid_by_card(&l.category));
        lines.push(Line {
            day: v.paid_on.expect("paid vouchers have a date"),
            account: if card { CREDIT_CARD } else { CURRENT_ACCOUNT },
            cents: -cents(v.amount),
            text: if card {
                "KARTENZAHLUNG"
            } else if v.due_date == Some(v.document_date) {
                "LASTSCHRIFT"
            } else {
                "ÜBERWEISUNG"
            },
            usage: format!("{} {}", v.voucher_no, v.name),
            from: counterparty(d, v.creditor_id, &v.name),
            invoice: None,
            voucher: Some(v.id),
        });
    }
    let mut month = FIRST_DAY;
    while month <= AS_OF {
        let mut day = month.last_of_month().min(AS_OF);
        while is_weekend(day) {
            day = add_days(day, -1);
        }
        let from = Counterparty {
            name: "Küstenbank eG".into(),
            currency: Some("EUR".into()),
            ..Default::default()
        };
        let usage = format!("Kontoführung {}", month_name(month));
        lines.push(Line {
            day,
            account: CURRENT_ACCOUNT,
            cents: MONTHLY_FEE_CENTS,
            text: "ENTGELT",
            usage,
            from,
            invoice: None,
            voucher: None,
        });
        month = add_months(month, 1);
    }
    lines.sort_by(|a, b| {
        (a.day, a.account, a.cents, &a.usage).cmp(&(b.day, b.account, b.cents, &b.usage))
    });

    let mut balances = OPENING_BALANCE;
    lines
        .into_iter()
        .enumerate()
        .map(|(n, l)| {
            let balance = balances
                .iter_mut()
                .find(|(a, _)| *a == l.account)
                .expect("known account");
            balance.1 += l.cents;
            let connection = find(&d.bank_connections, l.account).expect("known account");
            let booked = at(l.day, 0, 0);
            let imported = at(l.day, 6, rng.range(0, 59) as i8);
            let matched = l.invoice.is_some() || l.voucher.is_some();
            BankTransaction {
                id: FIRST_TRANSACTION_ID + n as u64,
                state: if matched {
                    TransactionState::Cleared
                } else {
                    TransactionState::Imported
                },
                value: eur(l.cents),
                currency: "EUR".into(),
                storno: Some(false),
                text: Some(l.text.into()),
                usage: l.usage,
                transaction_type: connection.connection_type.clone(),
                from: l.from,
                saldo: Saldo {
                    value: eur(balance.1),
                    currency: Some("EUR".into()),
                    timestamp: Some(booked),
                },
                bdate: booked,
                seen: Some(matched),
                fintecapi_turnover_id: (l.account == CURRENT_ACCOUNT).then(|| rng.token(12)),
                imported_at: Some(imported),
                created_at: imported,
                updated_at: imported,
                bank_connection: bank_connection_ref(connection),
                bank_connection_id: l.account,
                invoice_id: l.invoice,
                voucher_id: l.voucher,
                ..Default::default()
            }
        })
        .collect()
}

fn cents(d: Decimal) -> i64 {
    let mut d = d;
    d.rescale(2);
    i64::try_from(d.mantissa()).expect("demo amounts fit")
}
