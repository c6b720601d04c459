//! The route table: every upstream endpoint the sandbox answers, reads and writes. A method a
//! path does not have answers 405 in the error envelope.

use super::documents::{estimate_pdf, invoice_pdf};
use super::error::ApiError;
use super::resources::{info, list, person, persons, show};
use super::write::contacts::*;
use super::write::deliver::*;
use super::write::expense::*;
use super::write::income::*;
use super::write::invoices::*;
use super::write::work::*;
use super::write::{archive, unarchive, update};
use crate::model::*;
use crate::state::SandboxState;
use axum::Router;
use axum::handler::Handler;
use axum::http::{Method, StatusCode, Uri};
use axum::routing::{MethodRouter, get, post};

/// Also `PATCH` for updates: the recordings use `PUT`, and Rails routes both to `update`.
fn put_or_patch<H, T>(handler: H) -> MethodRouter<SandboxState>
where
    H: Handler<T, SandboxState> + Clone,
    T: 'static,
{
    axum::routing::put(handler.clone()).patch(handler)
}

/// A path's methods, anything else answering 405.
fn only(methods: MethodRouter<SandboxState>) -> MethodRouter<SandboxState> {
    methods.fallback(not_allowed)
}

async fn not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "{method} is not supported on {} (the Papierkram sandbox answers the methods the \
             upstream API has)",
            uri.path()
        ),
    )
}

pub(crate) fn api() -> Router<SandboxState> {
    Router::new()
        .route("/api/v1/info", only(get(info)))
        .merge(income())
        .merge(expense())
        .merge(contacts())
        .merge(work())
        .merge(banking())
}

fn income() -> Router<SandboxState> {
    Router::new()
        .route(
            "/api/v1/income/invoices",
            only(get(list::<Invoice>).post(create_invoice)),
        )
        .route(
            "/api/v1/income/invoices/{id}",
            only(
                get(show::<Invoice>)
                    .merge(put_or_patch(update_invoice))
                    .delete(delete_invoice),
            ),
        )
        .route(
            "/api/v1/income/invoices/{id}/archive",
            only(post(archive::<Invoice>)),
        )
        .route(
            "/api/v1/income/invoices/{id}/unarchive",
            only(post(unarchive::<Invoice>)),
        )
        .route("/api/v1/income/invoices/{id}/pdf", only(get(invoice_pdf)))
        .route(
            "/api/v1/income/invoices/{id}/cancel",
            only(post(cancel_invoice)),
        )
        .route(
            "/api/v1/income/invoices/{id}/deliver",
            only(post(deliver_invoice)),
        )
        .route("/api/v1/income/estimates", only(get(list::<Estimate>)))
        .route("/api/v1/income/estimates/{id}", only(get(show::<Estimate>)))
        .route("/api/v1/income/estimates/{id}/pdf", only(get(estimate_pdf)))
        .route(
            "/api/v1/income/propositions",
            only(get(list::<Proposition>).post(create_proposition)),
        )
        .route(
            "/api/v1/income/propositions/{id}",
            only(
                get(show::<Proposition>)
                    .merge(put_or_patch(update::<Proposition>))
                    .delete(delete_proposition),
            ),
        )
        .route(
            "/api/v1/income/propositions/{id}/archive",
            only(post(archive::<Proposition>)),
        )
        .route(
            "/api/v1/income/propositions/{id}/unarchive",
            only(post(unarchive::<Proposition>)),
        )
        .route(
            "/api/v1/income/payment_terms",
            only(get(list::<PaymentTerm>)),
        )
        .route(
            "/api/v1/income/payment_terms/{id}",
            only(get(show::<PaymentTerm>)),
        )
}

fn expense() -> Router<SandboxState> {
    Router::new()
        .route(
            "/api/v1/expense/vouchers",
            only(get(list::<Voucher>).post(create_voucher)),
        )
        .route(
            "/api/v1/expense/vouchers/{id}",
            only(
                get(show::<Voucher>)
                    .merge(put_or_patch(update_voucher))
                    .delete(delete_voucher),
            ),
        )
        .route(
            "/api/v1/expense/vouchers/{id}/archive",
            only(post(archive::<Voucher>)),
        )
        .route(
            "/api/v1/expense/vouchers/{id}/unarchive",
            only(post(unarchive::<Voucher>)),
        )
        .route("/api/v1/expense/vouchers/{id}/pay", only(post(pay_voucher)))
        .route(
            "/api/v1/expense/vouchers/{id}/cancel",
            only(post(cancel_voucher)),
        )
        .route(
            "/api/v1/expense/vouchers/{id}/cancel_with_reverse_entry",
            only(post(cancel_voucher_with_reverse_entry)),
        )
}

fn contacts() -> Router<SandboxState> {
    Router::new()
        .route(
            "/api/v1/contact/companies",
            only(get(list::<Company>).post(create_company)),
        )
        .route(
            "/api/v1/contact/companies/{id}",
            only(
                get(show::<Company>)
                    .merge(put_or_patch(update::<Company>))
                    .delete(delete_company),
            ),
        )
        .route(
            "/api/v1/contact/companies/{id}/archive",
            only(post(archive::<Company>)),
        )
        .route(
            "/api/v1/contact/companies/{id}/unarchive",
            only(post(unarchive::<Company>)),
        )
        .route(
            "/api/v1/contact/companies/{company_id}/persons",
            only(get(persons).post(create_person)),
        )
        .route(
            "/api/v1/contact/companies/{company_id}/persons/{id}",
            only(
                get(person)
                    .merge(put_or_patch(update_person))
                    .delete(delete_person),
            ),
        )
}

fn work() -> Router<SandboxState> {
    Router::new()
        .route(
            "/api/v1/projects",
            only(get(list::<Project>).post(create_project)),
        )
        .route(
            "/api/v1/projects/{id}",
            only(
                get(show::<Project>)
                    .merge(put_or_patch(update::<Project>))
                    .delete(delete_project),
            ),
        )
        .route(
            "/api/v1/projects/{id}/archive",
            only(post(archive::<Project>)),
        )
        .route(
            "/api/v1/projects/{id}/unarchive",
            only(post(unarchive::<Project>)),
        )
        .route(
            "/api/v1/tracker/tasks",
            only(get(list::<Task>).post(create_task)),
        )
        .route(
            "/api/v1/tracker/tasks/{id}",
            only(get(show::<Task>).merge(put_or_patch(update_task))),
        )
        .route(
            "/api/v1/tracker/time_entries",
            only(get(list::<TimeEntry>).post(create_time_entry)),
        )
        .route(
            "/api/v1/tracker/time_entries/{id}",
            only(get(show::<TimeEntry>).merge(put_or_patch(update::<TimeEntry>))),
        )
        .route(
            "/api/v1/tracker/time_entries/{id}/archive",
            only(post(archive::<TimeEntry>)),
        )
        .route(
            "/api/v1/tracker/time_entries/{id}/unarchive",
            only(post(unarchive::<TimeEntry>)),
        )
}

fn banking() -> Router<SandboxState> {
    Router::new()
        .route(
            "/api/v1/banking/bank_connections",
            only(get(list::<BankConnection>)),
        )
        .route(
            "/api/v1/banking/bank_connections/{id}",
            only(get(show::<BankConnection>)),
        )
        .route(
            "/api/v1/banking/transactions",
            only(get(list::<BankTransaction>)),
        )
        .route(
            "/api/v1/banking/transactions/{id}",
            only(get(show::<BankTransaction>)),
        )
}
