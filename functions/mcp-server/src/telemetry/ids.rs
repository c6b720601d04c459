//! Trace ids in X-Ray's form: the first 4 bytes the trace's start in Unix seconds, the other 12
//! random. X-Ray files a trace under that time (and takes only recent ones), so a trace that
//! starts here is found where the digest's link looks (`1-<8 hex>-<24 hex>`). A client's
//! `traceparent` keeps its own id. Span ids are the SDK's random ones.

use opentelemetry::trace::{SpanId, TraceId};
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator};

#[derive(Debug, Default)]
pub(super) struct XrayIds {
    random: RandomIdGenerator,
}

impl IdGenerator for XrayIds {
    fn new_trace_id(&self) -> TraceId {
        let seconds = std::time::UNIX_EPOCH
            .elapsed()
            .unwrap_or_default()
            .as_secs();
        trace_id(seconds, self.random.new_trace_id())
    }

    fn new_span_id(&self) -> SpanId {
        self.random.new_span_id()
    }
}

/// `random` with its first 4 bytes replaced by `seconds` (big-endian, as X-Ray reads them).
fn trace_id(seconds: u64, random: TraceId) -> TraceId {
    let mut bytes = random.to_bytes();
    bytes[..4].copy_from_slice(&(seconds as u32).to_be_bytes());
    TraceId::from_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_id_starts_with_its_time_in_seconds_and_ends_random() {
        let random = TraceId::from_hex("0123456789abcdef0123456789abcdef").unwrap();
        // X-Ray's own example: 10:00 on 1 December 2016 (PST) is 0x58406520.
        let id = trace_id(1_480_615_200, random);
        assert_eq!(id.to_string(), "5840652089abcdef0123456789abcdef");
    }

    #[test]
    fn new_trace_ids_carry_now_and_differ() {
        let ids = XrayIds::default();
        let (a, b) = (ids.new_trace_id(), ids.new_trace_id());
        assert_ne!(a, b);
        let now = std::time::UNIX_EPOCH.elapsed().unwrap().as_secs();
        let stamped = u64::from(u32::from_be_bytes(a.to_bytes()[..4].try_into().unwrap()));
        assert!(now.abs_diff(stamped) <= 2, "{a} at {now}");
    }
}
