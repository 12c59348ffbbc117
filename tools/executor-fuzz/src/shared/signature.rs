//! What a finding is: its kind of bug and a normalized text that tells it
//! from others of the kind, the key that deduplication, minimization and
//! the known-findings list go by.

/// What kind of bug a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Killed by a signal (SIGSEGV, SIGABRT without an LLVM ERROR, ...).
    Crash,
    /// A Rust panic: the pass's "internal error in ...", or an uncaught one.
    Panic,
    /// A C++ `assert` (Debian's LLVM has none; our C++ may).
    Assertion,
    /// `LLVM ERROR: ...` (report_fatal_error).
    LlvmError,
    /// Still running at the time limit.
    Timeout,
    /// Exited with a code other than 0 (success) and 1 (a diagnosed error).
    ExitCode,
    /// mlir-translate rejected what the pipeline said it lowered.
    TranslateFailure,
    /// A tool printed an error and exited 0 (a pass failed without
    /// failing the pipeline).
    ErrorButSuccess,
    /// The pass failed with a verifier error of an op it produced, on an
    /// input that verified.
    InvalidIr,
    /// The pass's output does not parse again.
    Reparse,
    /// Upstream mlir-opt with the plugin and executor-opt disagree.
    PluginMismatch,
    /// The protocol decoder panicked.
    DecoderPanic,
    /// A message decoded, encoded again, does not decode to itself.
    RoundTrip,
    /// The two request decoders (`read_message`, `read_request`) disagree.
    Differential,
    /// After a frame that was read whole, the next frame is not read right.
    Resync,
    /// Decoding asked for more memory at once than the frame justifies.
    Allocation,
    /// executor-server died, answered nonsense, or stopped serving.
    Server,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Crash => "crash",
            Kind::Panic => "panic",
            Kind::Assertion => "assertion",
            Kind::LlvmError => "llvm-error",
            Kind::Timeout => "timeout",
            Kind::ExitCode => "exit-code",
            Kind::TranslateFailure => "translate-failure",
            Kind::ErrorButSuccess => "error-but-success",
            Kind::InvalidIr => "invalid-ir",
            Kind::Reparse => "reparse",
            Kind::PluginMismatch => "plugin-mismatch",
            Kind::DecoderPanic => "decoder-panic",
            Kind::RoundTrip => "round-trip",
            Kind::Differential => "differential",
            Kind::Resync => "resync",
            Kind::Allocation => "allocation",
            Kind::Server => "server",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        ALL_KINDS.iter().copied().find(|kind| kind.name() == name)
    }
}

pub const ALL_KINDS: &[Kind] = &[
    Kind::Crash,
    Kind::Panic,
    Kind::Assertion,
    Kind::LlvmError,
    Kind::Timeout,
    Kind::ExitCode,
    Kind::TranslateFailure,
    Kind::ErrorButSuccess,
    Kind::InvalidIr,
    Kind::Reparse,
    Kind::PluginMismatch,
    Kind::DecoderPanic,
    Kind::RoundTrip,
    Kind::Differential,
    Kind::Resync,
    Kind::Allocation,
    Kind::Server,
];

/// A kind and a short normalized text that tells one bug from another of the
/// same kind (what deduplication and minimization keep constant).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    pub kind: Kind,
    pub text: String,
}

/// Digits become `N` and paths of inputs `<input>`, so that the same bug
/// on two inputs has the same signature; at most 160 characters.
pub fn normalize(text: &str) -> String {
    let mut out = String::new();
    let mut previous_digit = false;
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        // A diagnostic's location: `/path/to/input.mlir:12:3:`.
        if word.contains('/') && word.contains(".mlir") {
            out.push_str("<input>");
            if word.ends_with(':') {
                out.push(':');
            }
            continue;
        }
        for c in word.chars() {
            if c.is_ascii_digit() {
                if !previous_digit {
                    out.push('N');
                }
                previous_digit = true;
            } else {
                previous_digit = false;
                out.push(c);
            }
        }
        previous_digit = false;
    }
    if out.chars().count() > 160 {
        out = out.chars().take(160).collect();
    }
    out
}
