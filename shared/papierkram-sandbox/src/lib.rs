//! # papierkram-sandbox
//!
//! An offline stand-in for the Papierkram API v1 (`https://{subdomain}.papierkram.de/api/v1`).
//! It answers with the upstream's wire shapes — list envelope, detail objects, error envelope,
//! `x-remaining-quota`/`x-consumed-quota` headers, even the `set-cookie` a proxy must drop — but
//! serves the repo's own synthetic demo account, "Nordlicht Webdesign GmbH": 40 customers and
//! suppliers, 25 projects, 300 invoices and 300 vouchers dated 2025-01-01..2026-11-30, estimates,
//! tracker tasks and time entries, two bank accounts and their transactions. The data is generated
//! in code from a fixed seed ([`demo`]), so tests can recompute every expected number.
//!
//! `mcp-server serve` points its Papierkram connector here when no credentials are configured,
//! and the tests use it in-process ([`router`] + `tower::ServiceExt::oneshot`) or on a socket
//! ([`spawn`]).
//!
//! ## Run it alone
//!
//! ```text
//! cargo run -p papierkram-sandbox -- --addr 127.0.0.1:8768 --token sandbox-token
//! curl -H 'Authorization: Bearer sandbox-token' 'http://127.0.0.1:8768/api/v1/income/invoices?page_size=5'
//! ```
//!
//! ## Behaviour
//!
//! - Reads: `GET` list and detail endpoints (see [`router`]). Lists take `page` (1-based),
//!   `page_size` (default and maximum 100; larger values are clamped), `order_by` (any scalar
//!   field of a list entry), `order_direction` (`asc`/`desc`) and the resource's filters, e.g.
//!   `document_date_range_start`/`_end`, `company_id` (alias `creditor_id`), `project_id`. Bad
//!   values answer 422, unknown ids and paths 404, a missing or wrong bearer token 401, all with
//!   `{type: "error", error_type, message, correlation_id}`. A method a path does not have: 405.
//! - PDF downloads `GET /income/invoices/{id}/pdf` and `/income/estimates/{id}/pdf`, as
//!   recorded: `application/pdf`, `content-disposition: attachment; filename="Rechnung_…pdf"`
//!   (`Angebot_…`), `cache-control: no-store`; a small valid PDF (one page: number, date,
//!   customer, totals) rendered in code from the record's current data; unknown ids 404 in JSON.
//! - Writes, in memory, in the shapes of the upstream recordings: creates answer 201 with the
//!   record's detail (and the upstream's `location` where it sends one), updates (`PUT`, also
//!   `PATCH`) and state changes 200 with the detail, deletes and invoice deliveries 204 without a
//!   body. Missing required fields answer 422 in the upstream's wording (`Name muss ausgefüllt
//!   werden`), other bad values 422 naming the field, unknown ids the 404 `Couldn't find
//!   Contact::Company with 'id'=…`, unparseable JSON 400, a body over [`MAX_BODY_BYTES`] 413.
//!   Reads see every write at once; a refused write changes nothing. [`demo`] stays as
//!   generated; a sandbox's current data is [`SandboxState::data`].
//!   - companies `POST /contact/companies`, `PUT|DELETE /contact/companies/{id}`,
//!     `POST …/{id}/archive|unarchive`; contact persons `POST
//!     /contact/companies/{company_id}/persons`, `PUT|DELETE …/persons/{id}`;
//!   - projects `POST /projects`, `PUT|DELETE /projects/{id}`, `POST …/archive|unarchive`;
//!     tasks `POST /tracker/tasks`, `PUT /tracker/tasks/{id}`; time entries `POST
//!     /tracker/time_entries`, `PUT …/{id}`, `POST …/archive|unarchive`;
//!   - propositions `POST /income/propositions`, `PUT|DELETE …/{id}`, `POST …/archive|unarchive`;
//!   - invoices `POST /income/invoices`, `PUT|DELETE …/{id}` (drafts only), `POST
//!     …/archive|unarchive`, `POST …/cancel` (sent invoices: `canceled`, " (storniert)",
//!     archived), `POST …/deliver` (`{"send_via": "pdf"}`, or `"email"` with
//!     `email: {recipient, subject, body}`: the e-mail lands in the [`SandboxState::outbox`]);
//!   - vouchers `POST /expense/vouchers`, `PUT|DELETE …/{id}`, `POST …/archive|unarchive`,
//!     `POST …/pay` (`{"value", "payment_date"?}`), `POST …/cancel` (unpaid), `POST
//!     …/cancel_with_reverse_entry` (paid: state `deleted`, archived).
//! - Quota: every authenticated request costs 1 of a monthly limit (default 10 000), a create
//!   [`CREATE_QUOTA_COST`] and an invoice or voucher create [`DOCUMENT_CREATE_QUOTA_COST`], as
//!   recorded (also when the create is refused with 422; see [`quota_cost`]). The window is the
//!   calendar month in Europe/Berlin, as the connector's catalog declares: usage starts from 0 at
//!   00:00 Berlin time on the first. `x-remaining-quota` is what is left, `x-consumed-quota` what
//!   *this* request cost (as the upstream reports it); when less than the cost is left the answer
//!   is 429 with `retry-after` = seconds until the next Berlin month starts, and nothing runs.
//! - Bounded: at most [`MAX_LINE_ITEMS`] line items per document, [`MAX_CREATED_RECORDS`] records
//!   created per reset, [`OUTBOX_CAPACITY`] e-mails (a delivery beyond is refused, never dropped),
//!   the last [`WRITE_LOG_CAPACITY`] write lines (the count stays exact), delays of at most
//!   [`MAX_FAULT_DELAY`].
//! - Control plane for tests (no token, no quota): `POST /__sandbox/faults`
//!   (`{"path_prefix", "status" | "delay_ms" | "answer_delay_ms", "times"}`; `answer_delay_ms`
//!   only matches writes, which are applied and logged before the answer is held back),
//!   `GET /__sandbox/faults`, `POST /__sandbox/reset` (quota, faults, logs, outbox and the data
//!   back to the start), `GET /__sandbox/requests?limit=N`,
//!   `GET /__sandbox/writes?method=&path_prefix=&limit=` (the [`WriteLine`]s),
//!   `GET /__sandbox/outbox` (the [`OutboxMail`]s), `GET|POST /__sandbox/quota`
//!   (`{"remaining": N}`). The same is available in-process on [`SandboxState`]:
//!   [`SandboxState::writes`], [`SandboxState::write_count`], [`SandboxState::outbox`],
//!   [`SandboxState::data`], [`SandboxState::inject_fault`] with [`Fault::delay_answer`].

mod api;
pub mod cli;
mod fault;
mod generate;
mod journal;
pub mod model;
mod pdf;
mod state;
mod store;

use std::net::SocketAddr;
use std::sync::{Arc, LazyLock};

pub use api::list::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE};
pub use api::write::{
    CREATE_QUOTA_COST, DOCUMENT_CREATE_QUOTA_COST, MAX_BODY_BYTES, MAX_LINE_ITEMS, quota_cost,
};
pub use api::{FAULT_RETRY_AFTER_SECS, SESSION_COOKIE, router};
pub use fault::{Fault, FaultAction, MAX_FAULT_DELAY};
pub use generate::{
    AS_OF, COMPANY_NAME, CUSTOMER_COUNT, ESTIMATE_COUNT, FIRST_DAY, INVOICE_COUNT, LAST_DAY,
    PROJECT_COUNT, SEED, SUPPLIER_COUNT, TASKS_PER_PROJECT, TIME_ENTRIES_PER_TASK, VOUCHER_COUNT,
    build as build_demo,
};
pub use journal::{LOGGED_BODY_BYTES, OUTBOX_CAPACITY, OutboxMail, WRITE_LOG_CAPACITY, WriteLine};
pub use model::DemoData;
pub use state::{
    DEFAULT_MONTHLY_LIMIT, DEFAULT_TOKEN, QuotaSnapshot, REQUEST_LOG_CAPACITY, RequestLine,
    SandboxState,
};
pub use store::MAX_CREATED_RECORDS;

static DEMO: LazyLock<Arc<DemoData>> = LazyLock::new(|| Arc::new(generate::build()));

/// The demo account as generated, built once per process. Writes never change it: a sandbox's
/// current data, writes included, is [`SandboxState::data`].
pub fn demo() -> &'static DemoData {
    &DEMO
}

/// The generated account every fresh (or reset) sandbox starts from, shared until it is written.
pub(crate) fn demo_shared() -> Arc<DemoData> {
    Arc::clone(&DEMO)
}

/// Serves [`router`] on `127.0.0.1` with an OS-assigned port; the base URL is
/// `http://{addr}/api/v1`. Abort the handle to stop it.
pub async fn spawn(
    state: SandboxState,
) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
    let addr = listener.local_addr()?;
    let handle = tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, router(state)).await {
            tracing::error!(%error, "papierkram sandbox stopped");
        }
    });
    Ok((addr, handle))
}
