//! `make test`'s slice of the protocol fuzzers: a fixed seed and a fixed
//! number of inputs through the decoders in process, and of connections to a
//! real executor-server on 127.0.0.1; each fails on any finding that is not
//! in known-findings.txt. The planted failures are unit tests of
//! src/protocol/decoder/ (a panicking decoder) and src/protocol/server/
//! (fake servers that answer garbage, hang up, or report a crash).

use std::{
    fs,
    path::{Path, PathBuf},
    time::Duration,
};

use executor_fuzz::{
    protocol::{
        decoder::{
            self,
            alloc::{self, TrackingAllocator},
        },
        server,
    },
    shared::{
        findings::{Findings, Known},
        minimize::Budget,
    },
};

// The allocation oracle of the decoder fuzzer.
#[global_allocator]
static ALLOCATOR: TrackingAllocator = TrackingAllocator;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn assert_nothing_new(mut findings: Findings) {
    let known = Known::load(&root().join("tools/executor-fuzz/known-findings.txt")).unwrap();
    findings.mark_known(&known);
    let new: Vec<String> = findings
        .new_ones()
        .iter()
        .map(|f| {
            format!(
                "{}\n  origin: {}\n  input: {}\n{}",
                f.summary(),
                f.origin,
                executor_fuzz::shared::findings::hex(&f.input),
                f.detail
            )
        })
        .collect();
    assert!(new.is_empty(), "new findings:\n{}", new.join("\n"));
}

#[test]
fn a_fixed_slice_of_the_decoder_fuzzer_finds_nothing_new() {
    assert!(alloc::tracking(), "the allocation oracle is on");
    let no_minimizing = Budget {
        tests: 0,
        time: Duration::ZERO,
    };
    let report = decoder::fuzz(1, 200_000, None, no_minimizing);
    eprintln!("{}", report.per_decoder());
    assert_eq!(report.inputs, 200_000);
    // Mutants get past the first checks of every decoder.
    for (name, (ran, decoded)) in &report.ran {
        assert!(*decoded * 20 > *ran, "{name}: {decoded} of {ran} decoded");
    }
    assert_nothing_new(report.findings);
}

/// A launch whose frame claims a 128 MiB entry name and then ends: the name
/// is not reserved whole ahead of its bytes (the first 30-minute `make fuzz`
/// found read_request doing that).
#[test]
fn a_launch_claiming_a_long_entry_name_reserves_only_what_arrives() {
    assert!(alloc::tracking(), "the allocation oracle is on");
    // Frame length 16, variant 1 (Launch), entry name length 2^27 as a varint.
    let frame = [0x10, 0, 0, 0, 0x01, 0x80, 0x80, 0x80, 0x40];
    match decoder::check(decoder::Decoder::Request, &frame) {
        Ok(decoded) => assert!(!decoded, "a truncated frame does not decode"),
        Err((signature, detail)) => panic!("{signature:?}: {detail}"),
    }
}

#[test]
fn a_fixed_slice_of_the_server_fuzzer_finds_nothing_new() {
    let bin = Path::new(env!("CARGO_BIN_EXE_executor-fuzz"))
        .parent()
        .unwrap()
        .to_owned();
    let work =
        std::env::temp_dir().join(format!("executor-fuzz-server-slice-{}", std::process::id()));
    let _ = fs::remove_dir_all(&work);
    let options = server::Options {
        server: bin.join("executor-server"),
        seed: 1,
        connections: 40,
        time: None,
        work_dir: work.clone(),
        check_every: 10,
        address_space: Some(4096 << 20),
        replay_first: Vec::new(),
        minimize: Budget {
            tests: 0,
            time: Duration::ZERO,
        },
    };
    let report = server::fuzz(&options).expect("executor-server runs (make test builds it first)");
    eprintln!("{}", report.summary());
    assert_eq!(report.connections, 40);
    assert_eq!(report.legitimate_checks, 5);
    assert_eq!(report.restarts, 0);
    // Sessions were opened and requests answered.
    assert!(
        report.replies.get("Welcome").copied().unwrap_or(0) >= 20,
        "{}",
        report.summary()
    );
    assert!(
        report.replies.get("Failed").copied().unwrap_or(0) >= 20,
        "{}",
        report.summary()
    );
    assert_nothing_new(report.findings);
    fs::remove_dir_all(work).unwrap();
}
