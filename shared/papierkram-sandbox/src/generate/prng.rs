//! A tiny seeded xorshift64* generator: same seed, same demo data, on every platform.

pub(crate) struct Rng(u64);

impl Rng {
    /// Each generation stage gets its own stream so that changing one stage leaves the others alone.
    pub(crate) fn new(seed: u64, stage: u64) -> Self {
        // splitmix64 scrambles the pair into a well-mixed, non-zero state.
        let mut z = seed ^ stage.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(z | 1)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (the modulo bias is irrelevant for demo data).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "empty range");
        self.next_u64() % n
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi, "empty range {lo}..={hi}");
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// `n` lowercase letters and digits.
    pub(crate) fn token(&mut self, n: usize) -> String {
        const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
        (0..n).map(|_| *self.pick(ALPHABET) as char).collect()
    }

    /// `n` decimal digits.
    pub(crate) fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_stages_differ() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::new(7, 1);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::new(7, 1);
                move |_| r.next_u64()
            })
            .collect();
        let mut other = Rng::new(7, 2);
        assert_eq!(a, b);
        assert_ne!(a[0], other.next_u64());
    }

    #[test]
    fn range_stays_inside_its_bounds() {
        let mut r = Rng::new(1, 1);
        for _ in 0..10_000 {
            let v = r.range(-3, 4);
            assert!((-3..=4).contains(&v));
        }
    }
}
