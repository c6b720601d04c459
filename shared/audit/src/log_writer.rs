//! A `tracing-subscriber` writer that redacts every formatted log line.
//!
//! Tracing logs go to stderr; stdout belongs to the audit lines.
//!
//! ```no_run
//! use audit::{RedactingMakeWriter, Redactor};
//!
//! let redactor = Redactor::new();
//! tracing_subscriber::fmt()
//!     .json()
//!     .with_writer(RedactingMakeWriter::stderr(redactor.clone()))
//!     .init();
//! // Later, once secrets are loaded:
//! redactor.add_secret("upstream-token-value");
//! ```

use std::io::{self, Write};

use tracing_subscriber::fmt::MakeWriter;

use crate::redact::Redactor;

/// Wraps a [`MakeWriter`] (stderr by default) so each log event is redacted before it is written.
#[derive(Debug, Clone)]
pub struct RedactingMakeWriter<M = fn() -> io::Stderr> {
    redactor: Redactor,
    inner: M,
}

impl RedactingMakeWriter {
    /// Redacted logs on stderr.
    pub fn stderr(redactor: Redactor) -> Self {
        Self::new(redactor, io::stderr)
    }
}

impl<M> RedactingMakeWriter<M> {
    /// Redacted logs on any inner `MakeWriter`.
    pub fn new(redactor: Redactor, inner: M) -> Self {
        Self { redactor, inner }
    }
}

impl<'a, M> MakeWriter<'a> for RedactingMakeWriter<M>
where
    M: MakeWriter<'a>,
{
    type Writer = RedactingWriter<'a, M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter {
            redactor: &self.redactor,
            inner: self.inner.make_writer(),
            pending: Vec::new(),
        }
    }
}

/// One log event's writer: buffers what the formatter writes and passes it on redacted, so a
/// token split across two `write` calls is still caught.
pub struct RedactingWriter<'a, W: Write> {
    redactor: &'a Redactor,
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> RedactingWriter<'_, W> {
    fn emit(&mut self, upto: usize) -> io::Result<()> {
        if upto == 0 {
            return Ok(());
        }
        let chunk: Vec<u8> = self.pending.drain(..upto).collect();
        let text = String::from_utf8_lossy(&chunk);
        self.inner.write_all(self.redactor.redact(&text).as_bytes())
    }
}

impl<W: Write> Write for RedactingWriter<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    /// Passes on complete lines only; a partial line waits for the rest or for drop.
    fn flush(&mut self) -> io::Result<()> {
        let complete = self
            .pending
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        self.emit(complete)?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for RedactingWriter<'_, W> {
    fn drop(&mut self) {
        // Nowhere to report a failure to write a log line; dropping it is all we can do.
        let _ = self.emit(self.pending.len());
        let _ = self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::capture::Capture;

    fn make_writer(redactor: Redactor, capture: Capture) -> impl for<'a> MakeWriter<'a> {
        RedactingMakeWriter::new(redactor, move || capture.clone())
    }

    #[test]
    fn logged_line_loses_bearer_token_email_and_registered_secret() {
        let redactor = Redactor::new();
        redactor.add_secret("upstream-secret-42");
        let capture = Capture::default();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .without_time()
            .with_writer(make_writer(redactor, capture.clone()))
            .finish();

        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(
                user = "alice@example.com",
                "upstream rejected Authorization Bearer eyJ.abc-def with key upstream-secret-42"
            );
        });

        let out = capture.text();
        assert!(out.contains("upstream rejected"), "{out}");
        for leaked in ["eyJ.abc-def", "alice@example.com", "upstream-secret-42"] {
            assert!(!out.contains(leaked), "{leaked} leaked: {out}");
        }
        assert!(
            out.contains("[REDACTED]") && out.contains("[EMAIL]"),
            "{out}"
        );
    }

    #[test]
    fn json_log_lines_are_redacted_and_stay_valid_json() {
        let capture = Capture::default();
        let subscriber = tracing_subscriber::fmt()
            .json()
            .with_writer(make_writer(Redactor::new(), capture.clone()))
            .finish();

        tracing::subscriber::with_default(subscriber, || {
            tracing::error!(body = r#"{"password":"hunter2"}"#, "upstream error");
        });

        let out = capture.text();
        assert!(!out.contains("hunter2"), "{out}");
        let line: serde_json::Value = serde_json::from_str(out.trim_end()).unwrap();
        assert_eq!(line["fields"]["body"], r#"{"password":"[REDACTED]"}"#);
    }

    #[test]
    fn token_split_across_writes_is_still_redacted() {
        let capture = Capture::default();
        let make = make_writer(Redactor::new(), capture.clone());
        {
            let mut writer = make.make_writer();
            writer.write_all(b"auth Bearer abc").unwrap();
            writer.write_all(b"def end\n").unwrap();
        }
        assert_eq!(capture.text(), "auth Bearer [REDACTED] end\n");
    }

    #[test]
    fn flush_passes_on_complete_lines_only() {
        let capture = Capture::default();
        let make = make_writer(Redactor::new(), capture.clone());
        let mut writer = make.make_writer();
        writer.write_all(b"one token=a\ntwo tok").unwrap();
        writer.flush().unwrap();
        assert_eq!(capture.text(), "one token=[REDACTED]\n");
        writer.write_all(b"en=b\n").unwrap();
        drop(writer);
        assert_eq!(
            capture.text(),
            "one token=[REDACTED]\ntwo token=[REDACTED]\n"
        );
    }
}
