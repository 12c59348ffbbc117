//! The in-process protocol fuzzer: frames mutated from valid ones (made by
//! the runtime's own encoders) fed to the runtime's decoders, panics caught.
//!
//! Oracles, per input: no decoder panics; the two readers of a request
//! (`read_message`, postcard's, and `read_request`, the hand-written launch
//! codec) accept the same frames and decode them to the same request; what
//! decodes, encoded again (by `encode_frame`, and for a launch by
//! `LaunchFrame`, which must give the same bytes), decodes to itself; after
//! a frame that was read whole (decoded or malformed), the next frame of the
//! stream reads right; and no decoder asks for more memory at once than the
//! frame's bytes justify (`alloc`; docs/protocol.md: the reader reserves at
//! most 64 MiB ahead of the bytes). The call buffers of `executor.call`
//! (`packed`), which the server decodes from a `Call` request, are fuzzed
//! the same way.

pub mod alloc;
mod check;
mod guard;
mod mutate;
mod seeds;

use std::time::{Duration, Instant};

use executor_protocol::{DEFAULT_MAX_MESSAGE_SIZE, HANDSHAKE_MAX_MESSAGE_SIZE};

use crate::shared::{
    findings::{Finding, Findings, excerpt},
    minimize::{self, Budget},
    rng::Rng,
};

pub use check::check;
use guard::Found;
pub use mutate::mutate;
pub use seeds::{libfuzzer_seeds, requests, seeds};

/// What a frame is decoded as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Decoder {
    Hello,
    HelloReply,
    Request,
    Response,
    CallArguments,
    CallOutputs,
}

impl Decoder {
    pub const ALL: [Decoder; 6] = [
        Decoder::Hello,
        Decoder::HelloReply,
        Decoder::Request,
        Decoder::Response,
        Decoder::CallArguments,
        Decoder::CallOutputs,
    ];

    /// The finding target's name: `decoder-request`, ...
    pub fn target(self) -> &'static str {
        match self {
            Decoder::Hello => "decoder-hello",
            Decoder::HelloReply => "decoder-hello-reply",
            Decoder::Request => "decoder-request",
            Decoder::Response => "decoder-response",
            Decoder::CallArguments => "decoder-call-arguments",
            Decoder::CallOutputs => "decoder-call-outputs",
        }
    }

    pub fn from_target(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.target() == name)
    }

    /// Whether its inputs are frames (a length prefix and a payload).
    pub(super) fn framed(self) -> bool {
        !matches!(self, Decoder::CallArguments | Decoder::CallOutputs)
    }

    pub(super) fn limit(self) -> u32 {
        match self {
            Decoder::Hello | Decoder::HelloReply => HANDSHAKE_MAX_MESSAGE_SIZE,
            _ => DEFAULT_MAX_MESSAGE_SIZE,
        }
    }
}

/// What a decoder fuzzing run did.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs run, and how many decoded, per decoder.
    pub ran: std::collections::BTreeMap<&'static str, (usize, usize)>,
    pub inputs: usize,
    pub findings: Findings,
    pub elapsed: Duration,
    /// Whether the allocation oracle was on (the binary's global allocator
    /// is `alloc::TrackingAllocator`).
    pub allocation_oracle: bool,
}

impl Report {
    pub fn per_decoder(&self) -> String {
        self.ran
            .iter()
            .map(|(name, (ran, decoded))| format!("{name} {ran} ({decoded} decoded)"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn finding(decoder: Decoder, input: &[u8], (signature, detail): Found, origin: String) -> Finding {
    Finding {
        target: decoder.target().to_owned(),
        signature,
        input: input.to_vec(),
        extension: "bin",
        reproduce: format!(
            "target/release/executor-fuzz replay {} INPUT",
            decoder.target()
        ),
        detail: excerpt(&detail, 40),
        origin,
        minimized: None,
        count: 1,
        known: None,
    }
}

/// Fuzzes the decoders with `inputs` inputs (or until `time` runs out),
/// then minimizes each finding.
pub fn fuzz(seed: u64, inputs: usize, time: Option<Duration>, minimize_budget: Budget) -> Report {
    let started = Instant::now();
    let seeds = seeds();
    let donors: Vec<&[u8]> = seeds.iter().map(|(_, bytes)| bytes.as_slice()).collect();
    let mut report = Report {
        allocation_oracle: alloc::tracking(),
        ..Report::default()
    };
    for index in 0..inputs as u64 {
        if index % 1024 == 0 && time.is_some_and(|limit| started.elapsed() >= limit) {
            break;
        }
        let mut rng = Rng::derive(seed, index);
        let decoder = Decoder::ALL[rng.weighted(&[8, 4, 50, 18, 15, 5])];
        let of_kind: Vec<&[u8]> = seeds
            .iter()
            .filter(|(d, _)| *d == decoder)
            .map(|(_, bytes)| bytes.as_slice())
            .collect();
        let base = *rng.pick(&of_kind);
        let input = mutate(&mut rng, decoder, base, &donors);
        report.inputs += 1;
        let entry = report.ran.entry(decoder.target()).or_default();
        entry.0 += 1;
        match check(decoder, &input) {
            Ok(decoded) => entry.1 += usize::from(decoded),
            Err(found) => {
                report.findings.add(finding(
                    decoder,
                    &input,
                    found,
                    format!("seed {seed}, input {index}"),
                ));
            }
        }
    }
    report.elapsed = started.elapsed();
    minimize_all(&mut report.findings, minimize_budget);
    report
}

/// Minimizes each finding's bytes, keeping its signature.
pub fn minimize_all(findings: &mut Findings, budget: Budget) {
    if budget.tests == 0 {
        return;
    }
    for finding in findings.iter_mut() {
        let Some(decoder) = Decoder::from_target(&finding.target) else {
            continue;
        };
        let wanted = finding.signature.clone();
        let result = minimize::minimize_bytes(&finding.input, budget, &mut |candidate| {
            check(decoder, candidate)
                .err()
                .is_some_and(|(signature, _)| signature == wanted)
        });
        if result.reproduced {
            if let Err((_, detail)) = check(decoder, &result.bytes) {
                finding.detail = excerpt(&detail, 40);
            }
            finding.minimized = Some(result.bytes);
        }
    }
}
