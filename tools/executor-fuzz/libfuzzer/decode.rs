//! libFuzzer target: the first byte picks the decoder (a request, a
//! response, a Hello, a call buffer, ...), the rest is its input, checked by
//! `executor_fuzz::protocol::decoder::check` with every oracle of the seeded decoder
//! fuzzer. A finding that is not in known-findings.txt is a crash for
//! libFuzzer (it saves the input and stops); known ones are skipped so that
//! the search goes on past them.

#![no_main]

use std::sync::LazyLock;

use executor_fuzz::{
    protocol::decoder::{self, Decoder, alloc::TrackingAllocator},
    shared::findings::{Finding, Known},
};
use libfuzzer_sys::fuzz_target;

// The allocation oracle (src/protocol/decoder/alloc.rs).
#[global_allocator]
static ALLOCATOR: TrackingAllocator = TrackingAllocator;

static KNOWN: LazyLock<Known> = LazyLock::new(|| {
    Known::parse(include_str!("../known-findings.txt")).expect("known-findings.txt parses")
});

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let decoder = Decoder::ALL[usize::from(selector) % Decoder::ALL.len()];
    if let Err((signature, detail)) = decoder::check(decoder, bytes) {
        let finding = Finding {
            target: decoder.target().to_owned(),
            signature,
            input: bytes.to_vec(),
            extension: "bin",
            reproduce: String::new(),
            detail,
            origin: String::new(),
            minimized: None,
            count: 1,
            known: None,
        };
        if KNOWN.matching(&finding).is_none() {
            panic!(
                "executor-fuzz finding: {} {} \"{}\"\n{}",
                finding.target,
                finding.signature.kind.name(),
                finding.signature.text,
                finding.detail
            );
        }
    }
});
