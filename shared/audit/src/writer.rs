//! The audit writer: the only code allowed to write to stdout.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::emf::EmfConfig;
use crate::event::AuditEvent;

/// No audit line is longer than this: an event that would be is [`AuditEvent::shrunk`] first.
pub const MAX_LINE_BYTES: usize = 8 * 1024;

/// Writes audit events as JSON lines. Cheap to clone; clones share the output.
///
/// Writing never fails from the caller's point of view: audit must not crash a request, so the
/// first I/O error is reported on stderr and later ones are dropped silently.
#[derive(Clone)]
pub struct AuditLog {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
    /// Shared, so cloning the log (a clone rides in every request's state) allocates nothing.
    emf: Option<Arc<EmfConfig>>,
    error_reported: Arc<AtomicBool>,
}

impl AuditLog {
    /// Audit lines on stdout, where Lambda ships them to CloudWatch Logs.
    pub fn stdout(emf: Option<EmfConfig>) -> Self {
        Self::from_writer(io::stdout(), emf)
    }

    /// Audit lines to any writer, e.g. a JSONL file for a local run.
    pub fn from_writer(writer: impl Write + Send + 'static, emf: Option<EmfConfig>) -> Self {
        Self {
            out: Arc::new(Mutex::new(Box::new(writer))),
            emf: emf.map(Arc::new),
            error_reported: Arc::new(AtomicBool::new(false)),
        }
    }

    /// An in-memory log without EMF, and a handle to read back what was written (tests).
    pub fn memory() -> (AuditLog, MemorySink) {
        let sink = MemorySink::default();
        let log = Self::from_writer(SharedBuffer(Arc::clone(&sink.buf)), None);
        (log, sink)
    }

    /// The same output with a different EMF setting.
    pub fn with_emf(mut self, emf: Option<EmfConfig>) -> Self {
        self.emf = emf.map(Arc::new);
        self
    }

    pub fn emf(&self) -> Option<&EmfConfig> {
        self.emf.as_deref()
    }

    /// Writes the event as exactly one line followed by `\n`, then flushes.
    pub fn write(&self, event: &AuditEvent) {
        let mut line = event.to_json_line(self.emf.as_deref());
        if line.len() > MAX_LINE_BYTES {
            line = event.shrunk().to_json_line(self.emf.as_deref());
        }
        line.push('\n');
        // A panic elsewhere while holding the lock must not stop auditing.
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        let result = out.write_all(line.as_bytes()).and_then(|()| out.flush());
        drop(out);
        if let Err(error) = result {
            self.report(&error);
        }
    }

    fn report(&self, error: &io::Error) {
        if !self.error_reported.swap(true, Ordering::Relaxed) {
            eprintln!("audit: cannot write audit line ({error}); further write errors are ignored");
        }
    }
}

impl fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditLog")
            .field("emf", &self.emf)
            .finish_non_exhaustive()
    }
}

/// What an [`AuditLog::memory`] log has written.
#[derive(Debug, Clone, Default)]
pub struct MemorySink {
    buf: Arc<Mutex<Vec<u8>>>,
}

impl MemorySink {
    /// Every line written so far, without the trailing newlines.
    pub fn lines(&self) -> Vec<String> {
        let buf = self.buf.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&buf)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Every line parsed back into an event.
    ///
    /// # Panics
    ///
    /// If a line is not an audit event, which is what a test wants to hear about.
    pub fn events(&self) -> Vec<AuditEvent> {
        self.lines()
            .iter()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("not an audit event ({e}): {line}"))
            })
            .collect()
    }
}

struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for SharedBuffer {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut buf = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventKind;
    use crate::event::tests::full_event;
    use std::thread;

    struct BrokenPipe;

    impl Write for BrokenPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn each_event_becomes_exactly_one_newline_terminated_line() {
        let (log, sink) = AuditLog::memory();
        log.write(&full_event());
        log.write(&AuditEvent::new(EventKind::ClientInit));

        let raw = sink.buf.lock().unwrap().clone();
        let raw = String::from_utf8(raw).unwrap();
        assert!(raw.ends_with('\n'));
        assert_eq!(raw.matches('\n').count(), 2);
        assert_eq!(sink.lines().len(), 2);
    }

    #[test]
    fn memory_sink_reads_back_the_written_events() {
        let (log, sink) = AuditLog::memory();
        let events = [full_event(), AuditEvent::new(EventKind::AuthDenied)];
        for event in &events {
            log.write(event);
        }
        assert_eq!(sink.events(), events);
    }

    #[test]
    fn emf_lines_still_read_back_as_events() {
        let (log, sink) = AuditLog::memory();
        let log = log.with_emf(Some(EmfConfig {
            namespace: "HostedMcp".to_owned(),
        }));
        log.write(&full_event());
        assert!(sink.lines()[0].contains("\"_aws\""));
        assert_eq!(sink.events(), [full_event()]);
    }

    #[test]
    fn clones_write_to_the_same_output() {
        let (log, sink) = AuditLog::memory();
        let clone = log.clone();
        log.write(&full_event());
        clone.write(&full_event());
        assert_eq!(sink.lines().len(), 2);
    }

    #[test]
    fn concurrent_writers_never_interleave_lines() {
        let (log, sink) = AuditLog::memory();
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let log = log.clone();
                thread::spawn(move || {
                    for j in 0..50 {
                        log.write(&full_event().request_id(format!("req-{i}-{j}")));
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
        assert_eq!(sink.events().len(), 400);
    }

    #[test]
    fn io_error_is_swallowed_and_reported_once() {
        let log = AuditLog::from_writer(BrokenPipe, None);
        log.write(&full_event());
        assert!(log.error_reported.load(Ordering::Relaxed));
        log.write(&full_event());
    }

    #[test]
    fn poisoned_lock_does_not_stop_auditing() {
        let (log, sink) = AuditLog::memory();
        let out = Arc::clone(&log.out);
        let _ = thread::spawn(move || {
            let _guard = out.lock().unwrap();
            panic!("poison the lock");
        })
        .join();
        assert!(log.out.is_poisoned());
        log.write(&full_event());
        assert_eq!(sink.lines().len(), 1);
    }

    #[test]
    fn debug_output_names_the_emf_setting_only() {
        let log = AuditLog::stdout(None);
        assert_eq!(format!("{log:?}"), "AuditLog { emf: None, .. }");
    }
}
