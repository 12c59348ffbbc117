//! A small seeded generator (SplitMix64): the same seed gives the same inputs
//! on every machine and Rust version, which `rand` does not promise.

/// SplitMix64 (Steele, Lea, Flood 2014): 64 bits of state, good enough spread
/// for picking mutations, and every state is valid.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// An independent stream for item `index` of a run seeded with `seed`.
    pub fn derive(seed: u64, index: u64) -> Self {
        let mut mixer = Self(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
        Self(mixer.next_u64())
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; `n` must not be 0.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "Rng::below(0)");
        // Lemire's multiply-shift: no modulo bias worth the name at these sizes.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `low..=high`.
    pub fn range(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }

    /// True with probability `numerator / denominator`.
    pub fn chance(&mut self, numerator: usize, denominator: usize) -> bool {
        self.below(denominator) < numerator
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// An index into `weights`, each chosen in proportion to its weight.
    pub fn weighted(&mut self, weights: &[usize]) -> usize {
        let total: usize = weights.iter().sum();
        let mut point = self.below(total);
        for (index, &weight) in weights.iter().enumerate() {
            if point < weight {
                return index;
            }
            point -= weight;
        }
        unreachable!("point < total")
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn same_seed_same_stream_and_streams_differ() {
        let a: Vec<u64> = (0..8)
            .map({
                let mut rng = Rng::new(7);
                move |_| rng.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..8)
            .map({
                let mut rng = Rng::new(7);
                move |_| rng.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(Rng::derive(7, 0).next_u64(), Rng::derive(7, 1).next_u64());
        // SplitMix64's published first output for seed 0.
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn below_and_weighted_stay_in_range() {
        let mut rng = Rng::new(1);
        for n in 1..50 {
            assert!(rng.below(n) < n);
        }
        let mut seen = [0usize; 3];
        for _ in 0..3000 {
            seen[rng.weighted(&[1, 0, 2])] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(seen[2] > seen[0]);
    }
}
