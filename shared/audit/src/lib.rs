//! The hosted-mcp audit event and the logging hygiene around it.
//!
//! - [`AuditEvent`]: one PII-free JSON object per line, keys at top level so Logs Insights
//!   discovers them; field names are the constants in [`fields`], the only names queries and
//!   dashboards may use.
//! - [`AuditLog`]: writes events to stdout (the only stdout writer in the project), optionally
//!   with CloudWatch Embedded Metric Format ([`EmfConfig`]) so `calls`, `errors` and
//!   `duration_ms` per connector/tool become metrics without API calls.
//! - [`Redactor`] and [`RedactingMakeWriter`]: scrub tokens, API keys, registered secrets and
//!   e-mail addresses from every other log line (tracing → stderr).
//! - [`init_tracing`]: the one tracing set-up of the three functions (stderr, JSON on Lambda,
//!   `RUST_LOG` over a default filter, through the redactor when given).
//! - [`Pseudonymizer`]: the keyed-hash pseudonym stored in `user` instead of an identity.
//!
//! ```
//! use audit::{AuditEvent, AuditLog, EventKind};
//!
//! let (log, sink) = AuditLog::memory(); // `AuditLog::stdout(emf)` in the server
//! log.write(&AuditEvent::new(EventKind::ToolCall).tool("list_invoices").status("ok"));
//! assert_eq!(sink.events()[0].tool.as_deref(), Some("list_invoices"));
//! ```
//!
//! Locally: `cargo test -p audit`.

#[cfg(test)]
mod capture;
mod emf;
mod event;
pub mod fields;
mod log_writer;
mod logging;
mod pseudonym;
mod redact;
mod writer;

pub use emf::{EmfConfig, metrics};
pub use event::{AuditEvent, EventKind, INVALID_ARG_KEY, Level, MAX_ARG_KEYS, bounded};
pub use log_writer::{RedactingMakeWriter, RedactingWriter};
pub use logging::{SPAN_TARGET, SpanLayer, init_tracing, init_tracing_with};
pub use pseudonym::Pseudonymizer;
pub use redact::{EMAIL, REDACTED, Redactor};
pub use writer::{AuditLog, MAX_LINE_BYTES, MemorySink};

/// Version of the audit line schema, written as `v`. Readers ignore unknown fields, so adding a
/// field keeps the version; renaming or retyping one bumps it.
pub const SCHEMA_VERSION: u32 = 1;
