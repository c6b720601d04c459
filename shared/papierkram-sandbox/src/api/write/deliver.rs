//! Sending and cancelling invoices.
//!
//! Recordings: `Income_Invoice_Requests/delivers_an_income_invoice_via_pdf` (204 for
//! `{"send_via": "pdf"}`) and `cancels_an_income_invoice` (200: state `canceled`, name +
//! " (storniert)", archived). The e-mail delivery's body (`send_via: "email"`,
//! `email: {recipient, subject, body}`) is the upstream client library's; no recording has one.

use super::*;
use crate::journal::{OUTBOX_CAPACITY, OutboxMail};
use crate::model::{Invoice, InvoiceState};
use crate::state::berlin_today;
use jiff::Timestamp;

/// `POST /income/invoices/{id}/cancel` → 200: `canceled`, named "… (storniert)", archived.
pub(crate) async fn cancel_invoice(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    change::<Invoice>(&st, &id, |_, inv| {
        match inv.state {
            InvoiceState::Draft => {
                return Err(refused(
                    "Ein Rechnungsentwurf kann nicht storniert werden; löschen Sie ihn stattdessen",
                ));
            }
            InvoiceState::Canceled => {
                return Err(refused("Die Rechnung ist bereits storniert"));
            }
            _ => {}
        }
        inv.state = InvoiceState::Canceled;
        inv.name.push_str(" (storniert)");
        inv.record_state = RecordState::Archived;
        Ok(())
    })
}

/// What a delivery asks for.
struct Delivery {
    via: &'static str,
    mail: Option<(String, String, String)>,
}

fn delivery(f: &Fields<'_>) -> Result<Delivery, ApiError> {
    let via = match f
        .choice("send_via", &["email", "pdf"])?
        .flatten()
        .as_deref()
    {
        Some("email") => "email",
        _ => "pdf",
    };
    if via == "pdf" {
        return Ok(Delivery { via, mail: None });
    }
    let email = f.object("email")?;
    let e = email.map(|m| Fields::new(m, "email."));
    let get = |key| -> Result<Option<String>, ApiError> {
        Ok(match e {
            Some(e) => e.text(key)?.flatten(),
            None => None,
        })
    };
    let mut required = Required::default();
    let recipient = required.check("email.recipient", get("recipient")?);
    let subject = required.check("email.subject", get("subject")?);
    let body = required.check("email.body", get("body")?);
    required.done()?;
    let (Some(recipient), Some(subject), Some(body)) = (recipient, subject, body) else {
        return Err(blank("email"));
    };
    let plausible = recipient.len() <= 254
        && !recipient.contains(char::is_whitespace)
        && recipient
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.'));
    if !plausible {
        return Err(refused(format!(
            "email.recipient must be an e-mail address, got {recipient:?}"
        )));
    }
    Ok(Delivery {
        via,
        mail: Some((recipient, subject, body)),
    })
}

/// `POST /income/invoices/{id}/deliver` → 204. A draft gets its invoice number and becomes
/// `unpaid`; `send_via: email` puts the e-mail into the outbox ([`SandboxState::outbox`]).
pub(crate) async fn deliver_invoice(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
    body: Object,
) -> Result<Response, ApiError> {
    st.write(|store| {
        let i = index_of(&store.data().invoices, &id)?;
        let wanted = delivery(&body.fields())?;
        let mut inv = store.data().invoices[i].clone();
        if inv.state == InvoiceState::Canceled {
            return Err(refused(
                "Eine stornierte Rechnung kann nicht versendet werden",
            ));
        }
        if wanted.mail.is_some() && !st.outbox_has_room() {
            return Err(refused(format!(
                "The sandbox outbox is full ({OUTBOX_CAPACITY} e-mails); POST /__sandbox/reset \
                 to empty it"
            )));
        }
        if inv.invoice_no.is_none() {
            let highest = store
                .data()
                .invoices
                .iter()
                .filter_map(|x| x.invoice_no.as_deref()?.strip_prefix("RE-")?.parse().ok())
                .max()
                .unwrap_or(0);
            let n = store.next_number("invoice_no", highest);
            inv.invoice_no = Some(format!("RE-{n:05}"));
        }
        if inv.state == InvoiceState::Draft {
            inv.state = InvoiceState::Unpaid;
        }
        inv.sent_on = Some(berlin_today());
        inv.sent_via = Some(wanted.via.into());
        inv.sent_to = wanted.mail.as_ref().map(|(to, _, _)| to.clone());
        if let Some((recipient, subject, body)) = wanted.mail {
            let invoice_no = inv.invoice_no.clone().unwrap_or_default();
            let invoice_id = inv.id;
            st.send_mail(|seq| OutboxMail {
                seq,
                invoice_id,
                invoice_no,
                recipient,
                subject,
                body,
                sent_at: Timestamp::now().to_string(),
            })
            .map_err(|_| refused("The sandbox outbox is full"))?;
        }
        let id = inv.id;
        store.data_mut().invoices[i] = inv;
        Ok(no_content(id))
    })
}
