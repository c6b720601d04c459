//! Random values as hex: generated keys and peppers for local runs, confirmation nonces,
//! request ids. A leaf: it depends on nothing in the crate.

/// `n` random bytes as `2n` hex characters; `None` without entropy.
pub fn hex(n: usize) -> Option<String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Random hex, or without entropy the clock's nanoseconds (still distinct per call, for ids
/// whose uniqueness something else backs up).
pub fn hex_or_clock(n: usize) -> String {
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
