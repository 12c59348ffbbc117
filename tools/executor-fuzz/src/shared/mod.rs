//! What the compiler and protocol fuzzers share: the seeded generator,
//! what a finding is (its signature), findings and the known ones, and
//! delta debugging.

pub mod findings;
pub mod minimize;
pub mod rng;
pub mod signature;
