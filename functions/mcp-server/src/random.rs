//! Random values as hex: generated keys and peppers for local runs, confirmation nonces,
//! request ids. A leaf: it depends on nothing in the crate.

/// `n` random bytes as `2n` hex characters; `None` without entropy. One allocation (a request
/// id is made for every request).
pub(crate) fn hex(n: usize) -> Option<String> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * n);
    let mut chunk = [0u8; 32];
    let mut left = n;
    while left > 0 {
        let bytes = &mut chunk[..left.min(32)];
        getrandom::fill(bytes).ok()?;
        for b in bytes.iter() {
            out.push(DIGITS[usize::from(b >> 4)] as char);
            out.push(DIGITS[usize::from(b & 0x0f)] as char);
        }
        left -= bytes.len();
    }
    Some(out)
}

/// Random hex, or without entropy the clock's nanoseconds (still distinct per call, for ids
/// whose uniqueness something else backs up).
pub(crate) fn hex_or_clock(n: usize) -> String {
    hex(n).unwrap_or_else(|| {
        let nanos = std::time::UNIX_EPOCH
            .elapsed()
            .unwrap_or_default()
            .as_nanos();
        format!("{nanos:0width$x}", width = 2 * n)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_has_two_characters_a_byte() {
        let a = super::hex(16).unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, super::hex(16).unwrap());
        assert_eq!(super::hex_or_clock(8).len(), 16);
    }
}
