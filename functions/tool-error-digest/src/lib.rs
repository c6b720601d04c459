//! `tool-error-digest`: the weekly digest of failing MCP tools, e-mailed to ops on Monday
//! morning, built from the audit logs with the Logs Insights queries in `queries/`.
//!
//! Flow: [`collect`] runs `queries/*.insights` (compiled in by [`queries`]) for the seven full
//! UTC days before the run and the seven before those ([`period`]), reads the rows into typed
//! values ([`rows`]) and builds the pure [`digest::Digest`] ([`digest`]: failing tools, writes per
//! tool with the unknown outcomes to check, latency, missing capabilities, the requests and
//! calls a rate limit or budget refused, per scope and caller, and a section per failing
//! connector); [`text`] and [`html`] render it, failed calls linked to their traces in the
//! X-Ray console ([`trace`]), [`chart`] draws errors per day as a PNG, [`mime`] wraps it all in one raw MIME
//! message ([`email`]). On Lambda, [`handler`] sends it with SES v2 ([`ses`]) after querying
//! CloudWatch Logs (the shared `insights::cloudwatch` client); locally, [`local`] runs the same
//! queries through the `insights` engine over a JSON-lines audit log and writes the mail to
//! files.
//!
//! Locally:
//!
//! ```text
//! cargo run -p tool-error-digest -- run --local functions/tool-error-digest/tests/fixtures/audit-two-weeks.jsonl \
//!     --out /tmp/digest --now 2026-11-30T06:00:00Z --trace-region eu-central-1
//! cargo test -p tool-error-digest
//! ```
//!
//! Configuration: the `DIGEST_*` variables in [`config`].

pub mod chart;
pub mod cli;
pub mod collect;
pub mod config;
pub mod digest;
pub mod email;
pub mod handler;
pub mod html;
pub mod local;
pub mod mime;
pub mod period;
pub mod queries;
pub mod render;
pub mod rows;
pub mod ses;
pub mod text;
pub mod trace;

#[cfg(test)]
mod connector_tests;
#[cfg(test)]
mod fixture;
/// The digest's sections end to end (collect → digest → text and HTML): beside `digest`, which
/// the renderings import, not inside it.
#[cfg(test)]
mod section_tests;
