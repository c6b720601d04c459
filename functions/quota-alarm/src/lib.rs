//! `quota-alarm`: upstream API quota per connector — utilisation, burn rate, forecast exhaustion
//! and a decision (ok / warn / critical / unknown / n/a) — published as CloudWatch metrics in
//! Embedded Metric Format (`QuotaUtilizationPercent`, `QuotaForecastDaysLeft`,
//! `QuotaExhaustedBeforeWindowEnd`, dimension `Connector`) plus one decision line per connector.
//! Runs every 15 minutes on Lambda.
//!
//! - Pure computation, no SDK types: [`window`] (calendar month / day in an IANA zone, rolling
//!   hours), [`policy`] (the catalog's quota declaration), [`usage`] (query rows → per-connector
//!   usage), [`assess`] (the rules), [`report`] (all connectors), [`emf`], [`alarms`], [`table`].
//!   The catalogs come from the shared `connector` crate (`connector::load`: a directory, or the
//!   shipped catalogs compiled in).
//! - Data sources: [`handler`] runs `queries/quota-usage.insights` ([`query`]) through the shared
//!   `insights::cloudwatch::LogsQuery`: CloudWatch Logs Insights on Lambda, the local engine over
//!   audit JSONL files in the local run ([`local`]). Both hand the same `(field, value)` rows to
//!   [`usage::UsageRow::from_fields`].
//! - [`probe`]: a quiet connector's own quota request (catalog `quota.probe`, credentials from
//!   the deployment secret), its usage row and audit line.
//! - [`handler`]: one scheduled run; [`cli`]: the commands; [`config`]: the environment.
//!
//! Locally:
//! ```text
//! cargo run -p quota-alarm -- run --local functions/quota-alarm/tests/fixtures/audit-papierkram-may-2026-a.jsonl \
//!     --local functions/quota-alarm/tests/fixtures/audit-papierkram-may-2026-b.jsonl --now 2026-05-20T10:00:00Z
//! cargo run -p quota-alarm -- alarms --json      # the alarm specs infra creates
//! cargo test -p quota-alarm
//! ```

pub mod alarms;
pub mod assess;
pub mod cli;
pub mod config;
pub mod emf;
pub mod handler;
pub mod local;
pub mod policy;
pub mod probe;
pub mod query;
pub mod report;
pub mod table;
pub mod usage;
pub mod window;

pub use handler::{Deps, HandlerError, Outcome, handle};
