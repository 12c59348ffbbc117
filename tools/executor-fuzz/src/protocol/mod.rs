//! The protocol fuzzers: frames of the executor-server protocol, mutated
//! from valid ones, through the runtime's decoders in process ([`decoder`],
//! and coverage-guided by libFuzzer: [`libfuzzer`]) and through a real
//! `executor-server` ([`server`]).

pub mod decoder;
pub mod libfuzzer;
pub mod server;
