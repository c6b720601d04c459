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
//! - Read-only: `GET` list and detail endpoints (see [`router`]); other methods answer 405.
//! - Lists take `page` (1-based), `page_size` (default and maximum 100; larger values are clamped),
//!   `order_by` (any scalar field of a list entry), `order_direction` (`asc`/`desc`) and the
//!   resource's filters, e.g. `document_date_range_start`/`_end`, `company_id` (alias
//!   `creditor_id`), `project_id`. Bad values answer 422, unknown ids and paths 404, a missing or
//!   wrong bearer token 401, all with `{type: "error", error_type, message, correlation_id}`.
//! - Quota: every authenticated request costs 1 of a monthly limit (default 10 000). The window
//!   is the calendar month in Europe/Berlin, as the connector's catalog declares: usage starts
//!   from 0 at 00:00 Berlin time on the first. `x-remaining-quota` is what is left,
//!   `x-consumed-quota` what *this* request cost (as the upstream reports it); once exhausted the
//!   answer is 429 with `retry-after` = seconds until the next Berlin month starts.
//! - Control plane for tests (no token, no quota): `POST /__sandbox/faults`
//!   (`{"path_prefix", "status" | "delay_ms", "times"}`), `GET /__sandbox/faults`,
//!   `POST /__sandbox/reset`, `GET /__sandbox/requests?limit=N`, `GET|POST /__sandbox/quota`
//!   (`{"remaining": N}`). The same is available in-process on [`SandboxState`].

mod api;
pub mod cli;
mod generate;
pub mod model;
mod state;

use std::net::SocketAddr;
use std::sync::LazyLock;

pub use api::list::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE};
pub use api::{FAULT_RETRY_AFTER_SECS, SESSION_COOKIE, router};
pub use generate::{
    AS_OF, COMPANY_NAME, CUSTOMER_COUNT, ESTIMATE_COUNT, FIRST_DAY, INVOICE_COUNT, LAST_DAY,
    PROJECT_COUNT, SEED, SUPPLIER_COUNT, TASKS_PER_PROJECT, TIME_ENTRIES_PER_TASK, VOUCHER_COUNT,
    build as build_demo,
};
pub use model::DemoData;
pub use state::{
    DEFAULT_MONTHLY_LIMIT, DEFAULT_TOKEN, Fault, FaultAction, QuotaSnapshot, REQUEST_LOG_CAPACITY,
    RequestLine, SandboxState,
};

static DEMO: LazyLock<DemoData> = LazyLock::new(generate::build);

/// The demo account, built once per process.
pub fn demo() -> &'static DemoData {
    &DEMO
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
