//! What the sandbox keeps about writes for tests: the write log and the outbox of e-mails that
//! delivered invoices would have sent.

use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;

/// How many write lines the log keeps; `total` keeps counting past it.
pub const WRITE_LOG_CAPACITY: usize = 10_000;
/// Bodies up to this size are kept in the write log as JSON; larger ones only by digest and size.
pub const LOGGED_BODY_BYTES: usize = 4 * 1024;
/// How many e-mails the outbox holds. A delivery that would not fit is refused, never dropped.
pub const OUTBOX_CAPACITY: usize = 1_000;

/// One write request (any method but GET/HEAD under `/api/v1`) and how it was answered.
/// The `Authorization` header is never recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WriteLine {
    /// 1 for the first write since start or the last reset.
    pub seq: u64,
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    /// The status the sandbox answered with (also for refusals: 401, 404, 413, 422, 429, faults).
    pub status: u16,
    /// When the answer was ready (RFC 3339, UTC); an answer delay starts after this.
    pub at: String,
    pub body_bytes: usize,
    /// FNV-1a 64 of the raw body as 16 hex digits: identical bodies have identical digests.
    pub body_digest: String,
    /// The body as JSON when it parsed and is at most [`LOGGED_BODY_BYTES`], else `null`.
    pub body: Option<Value>,
    /// The record created, changed or deleted, when the write touched one.
    pub record_id: Option<u64>,
    /// Set when an injected fault held the answer back (the write itself was applied).
    pub answer_delay_ms: Option<u64>,
}

/// An e-mail the sandbox "sent" when an invoice was delivered with `send_via: email`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutboxMail {
    /// 1 for the first e-mail since start or the last reset.
    pub seq: u64,
    pub invoice_id: u64,
    pub invoice_no: String,
    pub recipient: String,
    pub subject: String,
    pub body: String,
    /// RFC 3339, UTC.
    pub sent_at: String,
}

/// A bounded log with an exact running total.
#[derive(Debug)]
pub(crate) struct Ring<T> {
    lines: VecDeque<T>,
    capacity: usize,
    total: u64,
}

impl<T: Clone> Ring<T> {
    pub(crate) fn new(capacity: usize) -> Self {
        Ring {
            lines: VecDeque::new(),
            capacity,
            total: 0,
        }
    }

    /// The sequence number the next line gets.
    pub(crate) fn next_seq(&self) -> u64 {
        self.total + 1
    }

    pub(crate) fn push(&mut self, line: T) {
        self.total += 1;
        if self.lines.len() == self.capacity {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }

    pub(crate) fn is_full(&self) -> bool {
        self.lines.len() >= self.capacity
    }

    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    pub(crate) fn lines(&self) -> Vec<T> {
        self.lines.iter().cloned().collect()
    }

    pub(crate) fn clear(&mut self) {
        self.lines.clear();
        self.total = 0;
    }
}

/// FNV-1a 64: stable across runs and platforms, enough to tell bodies apart in tests.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The body as the write log keeps it.
pub(crate) fn logged_body(bytes: &[u8]) -> Option<Value> {
    if bytes.is_empty() || bytes.len() > LOGGED_BODY_BYTES {
        return None;
    }
    serde_json::from_slice(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_stable_and_tell_bodies_apart() {
        assert_eq!(digest(b""), "cbf29ce484222325");
        assert_eq!(digest(b"{}"), digest(b"{}"));
        assert_ne!(digest(br#"{"a":1}"#), digest(br#"{"a":2}"#));
    }

    #[test]
    fn ring_keeps_the_newest_and_counts_everything() {
        let mut r = Ring::new(2);
        for n in 1..=3 {
            assert_eq!(r.next_seq(), n);
            r.push(n);
        }
        assert_eq!((r.lines(), r.total(), r.is_full()), (vec![2, 3], 3, true));
        r.clear();
        assert_eq!((r.lines(), r.next_seq()), (vec![], 1));
    }

    #[test]
    fn only_small_json_bodies_are_kept() {
        assert_eq!(
            logged_body(br#"{"a":1}"#),
            Some(serde_json::json!({"a": 1}))
        );
        assert_eq!(logged_body(b"not json"), None);
        assert_eq!(logged_body(&vec![b' '; LOGGED_BODY_BYTES + 1]), None);
    }
}
