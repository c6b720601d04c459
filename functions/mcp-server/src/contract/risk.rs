//! What a tool's declared risk level asks of a call before it may run: `low` reads and
//! `medium` writes run on their own; `high` and `critical` ones only once confirmed; every write
//! can be previewed (`dry_run`) and made to run once (`idempotency_key`).

use catalog::{Risk, Tool};

/// Whether the tool changes something upstream (raw tools only read).
pub(crate) fn is_write(tool: &Tool) -> bool {
    !tool.raw && tool.http().is_some() && !tool.is_read_only()
}

/// Whether a call must be confirmed against its preview first.
pub(crate) fn needs_confirmation(tool: &Tool) -> bool {
    matches!(tool.risk, Risk::High | Risk::Critical)
}

/// The level's word, as catalogs, previews and audit lines spell it.
pub(crate) fn word(risk: Risk) -> &'static str {
    match risk {
        Risk::Low => "low",
        Risk::Medium => "medium",
        Risk::High => "high",
        Risk::Critical => "critical",
        Risk::Forbidden => "forbidden",
    }
}

/// Whether a retry with the same arguments is safe: the catalog's word, else the method's.
pub(crate) fn retry_safe(tool: &Tool) -> bool {
    tool.idempotent.unwrap_or_else(|| {
        tool.is_read_only()
            || tool
                .http()
                .is_some_and(|(m, _)| !matches!(m, catalog::Method::Post | catalog::Method::Patch))
    })
}
