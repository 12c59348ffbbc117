//! Hash maps for the analysis's keys (op, value and block addresses, small
//! ids, short strings), looked up several times per op: with the Fx hash of
//! rustc (one multiply and rotate per word) rather than std's SipHash, which
//! defends against adversarial keys the analysis never sees and costs several
//! times more per lookup.

use std::{
    collections::{HashMap, HashSet},
    hash::{BuildHasherDefault, Hasher},
};

pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

/// The multiplier of rustc's FxHasher (from Firefox).
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let mut rest = [0; 8];
        rest[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.add(u64::from_le_bytes(rest));
    }

    fn write_u8(&mut self, value: u8) {
        self.add(u64::from(value));
    }

    fn write_u32(&mut self, value: u32) {
        self.add(u64::from(value));
    }

    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use std::hash::{BuildHasher, BuildHasherDefault};

    use super::*;

    #[test]
    fn equal_keys_hash_equal_and_distinct_ones_mostly_not() {
        let build = BuildHasherDefault::<FxHasher>::default();
        assert_eq!(build.hash_one(42_usize), build.hash_one(42_usize));
        assert_eq!(build.hash_one(b"kernels.o"), build.hash_one(b"kernels.o"));
        let distinct: FastSet<u64> = (0..1000_usize).map(|key| build.hash_one(key)).collect();
        assert_eq!(distinct.len(), 1000);
        assert_ne!(build.hash_one(b"ab"), build.hash_one(b"ab\0"));
    }
}
