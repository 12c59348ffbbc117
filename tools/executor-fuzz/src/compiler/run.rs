//! Running a tool on an input with a time limit, and telling from how it
//! ended whether that is a finding: a signal, a panic, an assertion, an
//! `LLVM ERROR`, a hang, or an exit code no tool uses.

use std::{
    ffi::OsStr,
    fs::{self, File},
    io,
    os::unix::process::ExitStatusExt,
    path::Path,
    process::{Command, Stdio},
    thread::sleep,
    time::{Duration, Instant},
};

use crate::shared::signature::{Kind, Signature, normalize};

/// How a process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
    /// Still running at the time limit (then killed).
    Timeout,
}

#[derive(Clone, Debug)]
pub struct Run {
    pub exit: Exit,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Run {
    pub fn success(&self) -> bool {
        self.exit == Exit::Code(0)
    }
}

/// Runs `program` with `args`, its stdout and stderr going to files in
/// `scratch` (no pipe to fill up), killed after `timeout`. LLVM's crash
/// handler is told not to symbolize (a crash then costs milliseconds, not
/// seconds) and not to write crash reports.
pub fn run<S: AsRef<OsStr>>(
    program: &Path,
    args: &[S],
    timeout: Duration,
    scratch: &Path,
) -> io::Result<Run> {
    fs::create_dir_all(scratch)?;
    let stdout_path = scratch.join("stdout");
    let stderr_path = scratch.join("stderr");
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_path)?)
        .stderr(File::create(&stderr_path)?)
        .env("LLVM_DISABLE_SYMBOLIZATION", "1")
        .env("LLVM_DISABLE_CRASH_REPORT", "1")
        .env("RUST_BACKTRACE", "0")
        .spawn()
        .map_err(|error| io::Error::new(error.kind(), format!("{}: {error}", program.display())))?;
    let mut pause = Duration::from_micros(500);
    let exit = loop {
        if let Some(status) = child.try_wait()? {
            break match (status.code(), status.signal()) {
                (Some(code), _) => Exit::Code(code),
                (None, Some(signal)) => Exit::Signal(signal),
                (None, None) => Exit::Code(-1),
            };
        }
        if start.elapsed() >= timeout {
            // The child is ours and still running: SIGKILL, then reap it.
            child.kill()?;
            child.wait()?;
            break Exit::Timeout;
        }
        sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    Ok(Run {
        exit,
        stdout: fs::read(&stdout_path)?,
        stderr: String::from_utf8_lossy(&fs::read(&stderr_path)?).into_owned(),
        elapsed,
    })
}

/// The first stack frame of a crash that is not the crash handler's, libc's
/// or the C++ runtime's own (throwing, terminating: every uncaught exception
/// goes through them, so they tell no two bugs apart): the function name when
/// the frame has one, else the binary.
fn crash_frame(stderr: &str) -> Option<String> {
    const HANDLER: &[&str] = &[
        "PrintStackTrace",
        "RunSignalHandlers",
        "SignalHandler",
        "libc.so",
        "pthread_kill",
        "raise",
        "abort",
        "report_fatal_error",
        "__restore_rt",
        "libLLVM.so",
        "gsignal",
        "libstdc++.so",
        "std::__throw_",
        "__cxa_throw",
        "__cxa_rethrow",
        "std::terminate",
        "__cxxabiv1::",
        "__verbose_terminate_handler",
    ];
    let frames: Vec<(String, bool)> = stderr
        .lines()
        .filter_map(frame_function)
        .filter(|(name, _)| !HANDLER.iter().any(|h| name.contains(h)))
        .collect();
    // The first frame with a function name, else the first binary.
    frames
        .iter()
        .find(|(_, named)| *named)
        .or(frames.first())
        .map(|(name, _)| name.clone())
        .map(|name| match name.rfind("::h") {
            // Rust symbol hashes differ between builds.
            Some(at) if name[at + 3..].bytes().all(|b| b.is_ascii_hexdigit()) => {
                name[..at].to_owned()
            }
            _ => name,
        })
}

/// The function (or else the binary) of a line of LLVM's stack dump, in
/// either of its forms:
/// `#9 0x000055dd130a39ea name (/path/binary+0x6b9ea)` (symbolized) or
/// `9  binary  0x000055dd130a39ea name + 12` (not); and whether it named a
/// function.
fn frame_function(line: &str) -> Option<(String, bool)> {
    let line = line.trim_start();
    let mut words = line.split_whitespace();
    let first = words.next()?;
    if let Some(number) = first.strip_prefix('#') {
        number.parse::<u32>().ok()?;
        words.next().filter(|w| w.starts_with("0x"))?;
        let rest: Vec<&str> = words.collect();
        let name = rest.first()?;
        if name.starts_with('(') {
            let binary = name
                .trim_matches(|c| c == '(' || c == ')')
                .rsplit('/')
                .next()?;
            return Some((binary.split('+').next()?.to_owned(), false));
        }
        return Some(((*name).to_owned(), true));
    }
    first.parse::<u32>().ok()?;
    let binary = words.next()?;
    words.next().filter(|w| w.starts_with("0x"))?;
    let rest: Vec<&str> = words.collect();
    let name = rest
        .split(|w| *w == "+")
        .next()
        .map(|w| w.join(" "))
        .unwrap_or_default();
    Some(if name.is_empty() {
        (binary.to_owned(), false)
    } else {
        (name, true)
    })
}

/// The type of the C++ exception that nobody caught, when that is what
/// aborted the tool: libstdc++'s terminate handler names it.
fn uncaught_exception(stderr: &str) -> Option<&str> {
    const MARKER: &str = "terminate called after throwing an instance of '";
    let rest = &stderr[stderr.find(MARKER)? + MARKER.len()..];
    rest.find('\'').map(|end| &rest[..end])
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        _ => "signal",
    }
}

/// The finding a run is, if it is one. An exit code of 0 or 1 with none of
/// the markers below in stderr is a tool doing its job.
pub fn classify(run: &Run) -> Option<Signature> {
    let stderr = &run.stderr;
    let after = |marker: &str| {
        stderr.find(marker).map(|at| {
            let rest = &stderr[at + marker.len()..];
            normalize(rest.lines().next().unwrap_or(""))
        })
    };
    let signature = |kind, text: String| Some(Signature { kind, text });
    if run.exit == Exit::Timeout {
        return signature(Kind::Timeout, "timeout".into());
    }
    if let Some(text) = after("LLVM ERROR:") {
        return signature(Kind::LlvmError, text);
    }
    if let Some(at) = stderr.find("Assertion `") {
        let line = stderr[at..].lines().next().unwrap_or("");
        return signature(Kind::Assertion, normalize(line));
    }
    if let Some(text) = after("internal error in ") {
        return signature(Kind::Panic, text);
    }
    if let Some(at) = stderr.find("panicked at ") {
        // `thread 'main' panicked at src/x.rs:1:2:` then the message line.
        let mut lines = stderr[at..].lines();
        let location = lines.next().unwrap_or("");
        let message = lines.next().unwrap_or("");
        return signature(Kind::Panic, normalize(&format!("{location} {message}")));
    }
    match run.exit {
        Exit::Signal(signal) => {
            // The signal, the uncaught exception if any, the frame.
            let frame = crash_frame(stderr);
            let words: Vec<&str> = [
                Some(signal_name(signal)),
                uncaught_exception(stderr),
                frame.as_deref(),
            ]
            .into_iter()
            .flatten()
            .filter(|word| !word.is_empty())
            .collect();
            signature(Kind::Crash, words.join(" "))
        }
        Exit::Code(0 | 1) => None,
        Exit::Code(code) => signature(Kind::ExitCode, format!("exit code {code}")),
        Exit::Timeout => unreachable!("handled above"),
    }
}

/// Diagnostics `path:line:col: error: message` of a run: each line number
/// and message.
pub fn errors(stderr: &str) -> Vec<(usize, &str)> {
    stderr
        .lines()
        .filter_map(|line| {
            let at = line.find(": error: ")?;
            let location = &line[..at];
            let mut parts = location.rsplitn(3, ':');
            let _column: usize = parts.next()?.parse().ok()?;
            let line_number: usize = parts.next()?.parse().ok()?;
            Some((line_number, &line[at + ": error: ".len()..]))
        })
        .collect()
}

/// Error diagnostics without a line of the input (`<unknown>:0: error: ...`).
pub fn unattributed_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.contains(": error: ") && errors(line).is_empty())
        .map(|line| &line[line.find(": error: ").unwrap_or(0) + ": error: ".len()..])
        .collect()
}

/// The first error message of a run, attributed or not.
pub fn first_error(stderr: &str) -> Option<&str> {
    stderr.lines().find_map(|line| {
        line.find(": error: ")
            .map(|at| &line[at + ": error: ".len()..])
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("executor-fuzz-run-{}-{name}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Runs `script` in a scratch directory of its own: the tests run at
    /// once, and a run's stdout and stderr are files in that directory.
    fn sh(script: &str) -> Run {
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, Ordering::Relaxed);
        run(
            Path::new("/bin/sh"),
            &["-c", script],
            Duration::from_secs(5),
            &scratch(&format!("sh-{call}")),
        )
        .unwrap()
    }

    #[test]
    fn a_crashing_command_is_a_finding() {
        let crashed = sh("echo boom >&2; kill -SEGV $$");
        assert_eq!(crashed.exit, Exit::Signal(11));
        assert_eq!(classify(&crashed).unwrap().kind, Kind::Crash);
        assert!(classify(&crashed).unwrap().text.starts_with("SIGSEGV"));
        let aborted = sh("kill -ABRT $$");
        assert_eq!(classify(&aborted).unwrap().kind, Kind::Crash);
    }

    #[test]
    fn markers_in_stderr_are_findings_whatever_the_exit_code() {
        let llvm = sh("echo 'LLVM ERROR: out of 12 things' >&2; kill -ABRT $$");
        assert_eq!(
            classify(&llvm),
            Some(Signature {
                kind: Kind::LlvmError,
                text: "out of N things".into()
            })
        );
        let pass = sh(
            "echo 'x.mlir:3:4: error: internal error in convert-executor-to-llvm: oops' >&2; exit 1",
        );
        assert_eq!(classify(&pass).unwrap().kind, Kind::Panic);
        let rust = sh(
            "printf \"thread 'main' panicked at src/a.rs:1:2:\\nindex out of bounds\\n\" >&2; exit 101",
        );
        let signature = classify(&rust).unwrap();
        assert_eq!(signature.kind, Kind::Panic);
        assert!(
            signature.text.contains("index out of bounds"),
            "{}",
            signature.text
        );
        let assertion =
            sh("echo \"x: Foo.cpp:9: void f(): Assertion \\`a && b' failed.\" >&2; kill -ABRT $$");
        assert_eq!(classify(&assertion).unwrap().kind, Kind::Assertion);
        assert_eq!(classify(&sh("exit 3")).unwrap().kind, Kind::ExitCode);
    }

    #[test]
    fn ordinary_failures_and_successes_are_not_findings() {
        assert_eq!(
            classify(&sh("echo 'a.mlir:1:1: error: nope' >&2; exit 1")),
            None
        );
        assert_eq!(classify(&sh("true")), None);
    }

    #[test]
    fn a_hang_is_killed_and_a_finding() {
        let started = Instant::now();
        let hung = run(
            Path::new("/bin/sh"),
            &["-c", "sleep 30"],
            Duration::from_millis(300),
            &scratch("hang"),
        )
        .unwrap();
        assert_eq!(hung.exit, Exit::Timeout);
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(classify(&hung).unwrap().kind, Kind::Timeout);
    }

    #[test]
    fn crash_frames_skip_the_handler_and_rust_hashes() {
        let stderr = " #0 0x1 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/lib/llvm-22/lib/libLLVM.so.22.1+0x1)\n #3 0x7 (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)\n #9 0x55 executorSessionTypeGet (/w/executor-opt+0x6b9ea)\n";
        assert_eq!(
            crash_frame(stderr).as_deref(),
            Some("executorSessionTypeGet")
        );
        let rust = " #10 0x5 executor_mlir::passes::lower_module::h27b2d63bcaa9bd24 x:0:0\n";
        assert_eq!(
            crash_frame(rust).as_deref(),
            Some("executor_mlir::passes::lower_module")
        );
        let anonymous = " #8 0x000055dd130a41fc (/work/t/executor-opt+0x6c1fc)\n";
        assert_eq!(crash_frame(anonymous).as_deref(), Some("executor-opt"));
        let plain = "0  libLLVM.so.22.1 0x00007f96d66b8786 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) + 54\n5  libc.so.6       0x00007f96d1659fb2 gsignal + 18\n8  executor-opt    0x000055dd130a41fc\n9  executor-opt    0x000055dd130a39ea executorSessionTypeGet + 12\n";
        assert_eq!(
            crash_frame(plain).as_deref(),
            Some("executorSessionTypeGet")
        );
        assert_eq!(
            crash_frame("8  executor-opt    0x000055dd130a41fc\n").as_deref(),
            Some("executor-opt")
        );
        assert_eq!(frame_function("0.\tProgram arguments: x"), None);
    }

    /// An uncaught exception: libstdc++'s frames between abort and the code
    /// that threw (mlir-translate's stack without symbolization, shortened).
    const UNCAUGHT_LENGTH_ERROR: &str = "terminate called after throwing an instance of 'std::length_error'\n  what():  cannot create std::vector larger than max_size()\nStack dump:\n0  libLLVM.so.22.1 0x00007f18d4cb8786 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) + 54\n5  libc.so.6       0x00007f18cf859fb2 gsignal + 18\n6  libc.so.6       0x00007f18cf844472 abort + 211\n7  libstdc++.so.6  0x00007f18cfa9d919\n11 libstdc++.so.6  0x00007f18cfaa01e9 std::__throw_length_error(char const*) + 64\n12 mlir-translate  0x000056052c7eba82\n13 mlir-translate  0x000056052c7eabe1 mlir::LLVM::detail::getLLVMConstant(llvm::Type*, mlir::Attribute) + 2177\n";

    #[test]
    fn a_crash_by_an_uncaught_exception_names_it_and_the_code_that_threw() {
        assert_eq!(
            crash_frame(UNCAUGHT_LENGTH_ERROR).as_deref(),
            Some("mlir::LLVM::detail::getLLVMConstant(llvm::Type*, mlir::Attribute)")
        );
        assert_eq!(
            uncaught_exception(UNCAUGHT_LENGTH_ERROR),
            Some("std::length_error")
        );
        let aborted = sh(&format!(
            "printf '%s' \"{UNCAUGHT_LENGTH_ERROR}\" >&2; kill -ABRT $$"
        ));
        assert_eq!(
            classify(&aborted),
            Some(Signature {
                kind: Kind::Crash,
                text: "SIGABRT std::length_error mlir::LLVM::detail::getLLVMConstant(llvm::Type*, mlir::Attribute)".into()
            })
        );
        // Only the C++ runtime's frames: the signal and the exception.
        let runtime_only = "terminate called after throwing an instance of 'std::bad_alloc'\n7  libstdc++.so.6  0x00007f18cfa9d919\n";
        assert_eq!(crash_frame(runtime_only), None);
        let aborted = sh(&format!(
            "printf '%s' \"{runtime_only}\" >&2; kill -ABRT $$"
        ));
        assert_eq!(classify(&aborted).unwrap().text, "SIGABRT std::bad_alloc");
    }

    #[test]
    fn errors_carry_their_line() {
        let stderr = "/tmp/a b.mlir:12:3: error: 'llvm.call' op bad\n/tmp/x.mlir:4:1: note: here\n";
        assert_eq!(errors(stderr), vec![(12, "'llvm.call' op bad")]);
        let unknown = "<unknown>:0: error: conversion failed\n/a.mlir:1:1: error: x\n";
        assert_eq!(unattributed_errors(unknown), vec!["conversion failed"]);
        assert_eq!(first_error(unknown), Some("conversion failed"));
        assert_eq!(
            normalize("/tmp/w/input.mlir:12:3: error: x 42"),
            "<input>: error: x N"
        );
    }
}
