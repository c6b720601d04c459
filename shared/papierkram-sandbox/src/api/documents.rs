//! The PDF downloads of invoices and estimates (`GET /income/invoices/{id}/pdf`,
//! `/income/estimates/{id}/pdf`), answered like the recordings
//! (`Income_Invoice_Requests/downloads_a_pdf`, `Income_Estimate_Requests/downloads_a_pdf`):
//! `application/pdf`, an attachment named `Rechnung_<number>_<customer>_<date>.pdf` (an estimate:
//! `Angebot_…`, `Entwurf` without a number), `cache-control: no-store`. The PDF is rendered from
//! the record's current data.

use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::resources::find_by_text;
use crate::model::*;
use crate::state::SandboxState;

pub(crate) async fn invoice_pdf(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let d = st.data();
    let invoice = find_by_text::<Invoice>(&d, &id)?;
    let number = invoice.invoice_no.as_deref().unwrap_or("Entwurf");
    let date = invoice.document_date.to_string();
    let lines = vec![
        format!("Rechnungsdatum: {date}"),
        format!("Fällig am: {}", invoice.due_date),
        format!("Kunde: {}", invoice.billing.company),
        format!("{} {}", invoice.billing.zip, invoice.billing.city),
        format!("Betreff: {}", invoice.name),
        format!("Netto: {} EUR", invoice.total_net),
        format!("USt: {} EUR", invoice.total_vat),
        format!("Brutto: {} EUR", invoice.total_gross),
        "Papierkram-Sandbox: Demodaten".to_string(),
    ];
    let pdf = crate::pdf::render(&format!("Rechnung {number}"), &lines);
    Ok(attachment(
        &format!("Rechnung_{number}_{}_{date}.pdf", invoice.billing.company),
        pdf,
    ))
}

pub(crate) async fn estimate_pdf(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let d = st.data();
    let estimate = find_by_text::<Estimate>(&d, &id)?;
    let number = estimate.estimate_no.as_deref().unwrap_or("Entwurf");
    let date = estimate.document_date.to_string();
    let lines = vec![
        format!("Angebotsdatum: {date}"),
        format!("Kunde: {}", estimate.billing.company),
        format!("{} {}", estimate.billing.zip, estimate.billing.city),
        format!("Betreff: {}", estimate.name),
        format!("Netto: {} EUR", estimate.total_net),
        format!("Brutto: {} EUR", estimate.total_gross),
        "Papierkram-Sandbox: Demodaten".to_string(),
    ];
    let pdf = crate::pdf::render(&format!("Angebot {number}"), &lines);
    Ok(attachment(
        &format!("Angebot_{number}_{}_{date}.pdf", estimate.billing.company),
        pdf,
    ))
}

/// The PDF as a download. The plain `filename` keeps ASCII letters, digits, `-` and `.`
/// (everything else `_`), as the recordings' `Bueffelranch_Johnny` shows.
fn attachment(name: &str, pdf: Vec<u8>) -> Response {
    let plain: String = name
        .chars()
        .map(|c| match c {
            'ä' => "ae".to_string(),
            'ö' => "oe".to_string(),
            'ü' => "ue".to_string(),
            'Ä' => "Ae".to_string(),
            'Ö' => "Oe".to_string(),
            'Ü' => "Ue".to_string(),
            'ß' => "ss".to_string(),
            c if c.is_ascii_alphanumeric() || matches!(c, '-' | '.') => c.to_string(),
            _ => "_".to_string(),
        })
        .collect();
    (
        [
            (CONTENT_TYPE, "application/pdf".to_string()),
            (CACHE_CONTROL, "no-store".to_string()),
            (
                CONTENT_DISPOSITION,
                format!("attachment; filename=\"{plain}\"; filename*=UTF-8''{plain}"),
            ),
        ],
        pdf,
    )
        .into_response()
}
