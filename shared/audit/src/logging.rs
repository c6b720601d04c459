//! The one tracing set-up of the three functions: logs on stderr (stdout carries the audit
//! lines, the EMF lines or a command's report), JSON on Lambda and plain text without colours
//! locally, `RUST_LOG` over each function's default filter, and every line through the
//! [`Redactor`] when the function has one.

use tracing::Dispatch;
use tracing::level_filters::LevelFilter;
use tracing_subscriber::Registry;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::writer::BoxMakeWriter;
use tracing_subscriber::layer::{Layer, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

use crate::log_writer::RedactingMakeWriter;
use crate::redact::Redactor;

/// The target of the spans exported as traces (`tracing-opentelemetry`): never logged, so with
/// no span layer nothing takes an interest in them and each costs one cached callsite check.
pub const SPAN_TARGET: &str = "otel";

/// A layer beside the logs that receives the [`SPAN_TARGET`] spans (the trace exporter's).
pub type SpanLayer = Box<dyn Layer<Registry> + Send + Sync>;

/// Sets the global tracing subscriber, once per process, in `main`: JSON lines when `json`,
/// else text without ANSI colours; written to stderr, through `redactor` when given. `RUST_LOG`
/// filters when it is set and valid, else `default_filter` (`"info"`, `"info,rmcp=warn"`): a list
/// of `level` and `target=level` directives. (Targets, not tracing's `EnvFilter`: its span and
/// field directives would bring a regex engine into every function for filters nobody sets, and
/// a `cargo run` of one function would no longer share the test build's dependencies.)
///
/// # Panics
/// When a global subscriber is already set.
pub fn init_tracing(json: bool, default_filter: &str, redactor: Option<Redactor>) {
    init_tracing_with(json, default_filter, redactor, None);
}

/// [`init_tracing`], and `spans` beside the logs when given (the trace exporter's layer, which
/// filters for itself).
///
/// # Panics
/// When a global subscriber is already set.
pub fn init_tracing_with(
    json: bool,
    default_filter: &str,
    redactor: Option<Redactor>,
    spans: Option<SpanLayer>,
) {
    let writer = match redactor {
        Some(redactor) => BoxMakeWriter::new(RedactingMakeWriter::stderr(redactor)),
        None => BoxMakeWriter::new(std::io::stderr),
    };
    let rust_log = std::env::var("RUST_LOG").ok();
    dispatch(
        json,
        filter(rust_log.as_deref(), default_filter),
        writer,
        spans,
    )
    .init();
}

/// `rust_log` when it is set, not blank and parses; else `default_filter` (which falls back to
/// `info` should it not parse either). The trace spans are never logged.
fn filter(rust_log: Option<&str>, default_filter: &str) -> Targets {
    rust_log
        .filter(|v| !v.trim().is_empty())
        .and_then(|v| v.parse().ok())
        .or_else(|| default_filter.parse().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::INFO))
        .with_target(SPAN_TARGET, LevelFilter::OFF)
}

/// The logs, filtered by `filter` (a filter of their own: it must not hide the trace spans
/// from `spans`), and `spans` beside them.
fn dispatch<W>(json: bool, filter: Targets, writer: W, spans: Option<SpanLayer>) -> Dispatch
where
    W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
{
    let logs = tracing_subscriber::fmt::layer().with_writer(writer);
    let logs: SpanLayer = if json {
        logs.json().with_filter(filter).boxed()
    } else {
        logs.with_ansi(false).with_filter(filter).boxed()
    };
    let layers: Vec<SpanLayer> = std::iter::once(logs).chain(spans).collect();
    Dispatch::new(tracing_subscriber::registry().with(layers))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::capture::Capture;

    /// What the subscriber `init_tracing` would set writes for a few events.
    fn logged(json: bool, rust_log: Option<&str>, redactor: Option<Redactor>) -> String {
        let capture = Capture::default();
        let sink = capture.clone();
        let writer = match redactor {
            Some(r) => BoxMakeWriter::new(RedactingMakeWriter::new(r, move || sink.clone())),
            None => BoxMakeWriter::new(move || sink.clone()),
        };
        let dispatch = dispatch(json, filter(rust_log, "info,noisy=warn"), writer, None);
        tracing::dispatcher::with_default(&dispatch, || {
            tracing::info!(
                tool = "papierkram_invoices_list",
                "tool call with key sk-registered-secret"
            );
            tracing::debug!("debug detail");
            tracing::info!(target: "noisy", "noisy info");
            tracing::warn!(target: "noisy", "noisy warning");
            tracing::warn!(target: SPAN_TARGET, "a trace span's event");
        });
        capture.text()
    }

    #[test]
    fn json_logs_are_one_object_a_line_filtered_by_the_default() {
        let out = logged(true, None, None);
        let lines: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert_eq!(lines[0]["fields"]["tool"], "papierkram_invoices_list");
        assert_eq!(lines[1]["fields"]["message"], "noisy warning");
    }

    #[test]
    fn text_logs_have_no_ansi_colours() {
        let out = logged(false, None, None);
        assert!(out.contains("tool call") && out.contains("INFO"), "{out}");
        assert!(!out.contains('\u{1b}'), "{out:?}");
    }

    #[test]
    fn rust_log_overrides_the_default_unless_blank_or_invalid() {
        let out = logged(false, Some("debug"), None);
        assert!(
            out.contains("debug detail") && out.contains("noisy info"),
            "{out}"
        );
        for ignored in [Some(""), Some("  "), Some("=[invalid"), None] {
            let out = logged(false, ignored, None);
            assert!(!out.contains("debug detail"), "{ignored:?}: {out}");
            assert!(!out.contains("noisy info"), "{ignored:?}: {out}");
        }
    }

    #[test]
    fn the_redactor_scrubs_every_line_when_given() {
        let redactor = Redactor::new();
        redactor.add_secret("sk-registered-secret");
        let out = logged(true, None, Some(redactor));
        assert!(!out.contains("sk-registered-secret"), "{out}");
        assert!(out.contains(crate::REDACTED), "{out}");
        assert!(logged(true, None, None).contains("sk-registered-secret"));
    }
}
