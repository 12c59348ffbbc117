//! Turns a kernel that crashes the embedded executor of a host program into the
//! runtime's usual one-line failure instead of a bare signal: while a kernel
//! runs, its thread records the symbol, and a handler for the fatal signals
//! reports it and exits with status 1. Outside kernels the signal goes to
//! whatever handler was there before (the host's own crash handling).
//!
//! Only host programs turn this on ([`report_in_this_process`]): an
//! executor-server worker dies of the signal, which its supervisor reports.

use std::{
    cell::Cell,
    sync::{
        Mutex, Once, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
};

const FATAL_SIGNALS: [libc::c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL];

thread_local! {
    /// The symbol of the kernel running on this thread (address and length).
    static RUNNING: Cell<(*const u8, usize)> = const { Cell::new((std::ptr::null(), 0)) };
}

/// The handlers installed before ours, per signal, to chain to.
static PREVIOUS: Mutex<Vec<(libc::c_int, libc::sigaction)>> = Mutex::new(Vec::new());

static REPORTING: AtomicBool = AtomicBool::new(false);

/// Reports kernels that crash in this process from now on.
pub fn report_in_this_process() {
    install();
    REPORTING.store(true, Ordering::Release);
}

/// Runs `kernel`, the code of `symbol`, reporting a crash inside it if this
/// process asked for that.
pub fn guard<T>(symbol: &str, kernel: impl FnOnce() -> T) -> T {
    if !REPORTING.load(Ordering::Acquire) {
        return kernel();
    }
    let previous = RUNNING.with(|running| running.replace((symbol.as_ptr(), symbol.len())));
    let result = kernel();
    RUNNING.with(|running| running.set(previous));
    result
}

fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let mut previous = PREVIOUS.lock().unwrap_or_else(PoisonError::into_inner);
        for signal in FATAL_SIGNALS {
            // SAFETY: a zeroed sigaction is a valid "no flags, empty mask"
            // value; the handler is an `extern "C"` function of the SA_SIGINFO
            // signature, and the old action is saved for chaining.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_fatal_signal as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_SIGINFO;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, &action, &mut old) == 0 {
                    previous.push((signal, old));
                }
            }
        }
    });
}

extern "C" fn on_fatal_signal(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    let (symbol, len) = RUNNING.with(Cell::get);
    if !symbol.is_null() {
        // SAFETY: only async-signal-safe calls (write, _exit); the symbol's
        // bytes live until the kernel returns, which it has not.
        unsafe {
            for part in [
                &b"executor runtime: kernel '"[..],
                std::slice::from_raw_parts(symbol, len),
                b"' crashed with signal ",
            ] {
                libc::write(2, part.as_ptr().cast(), part.len());
            }
            let name = signal_name(signal);
            libc::write(2, name.as_ptr().cast(), name.len());
            libc::_exit(1);
        }
    }
    // Not in a kernel: hand over to the previous handler, or die of the signal.
    let previous = PREVIOUS
        .try_lock()
        .ok()
        .and_then(|list| list.iter().find(|(s, _)| *s == signal).map(|(_, a)| *a));
    // SAFETY: restoring a handler the process had installed before, then
    // re-raising (or calling it) with the original arguments.
    unsafe {
        match previous {
            Some(action)
                if action.sa_sigaction != libc::SIG_DFL && action.sa_sigaction != libc::SIG_IGN =>
            {
                if action.sa_flags & libc::SA_SIGINFO != 0 {
                    let handler: extern "C" fn(
                        libc::c_int,
                        *mut libc::siginfo_t,
                        *mut libc::c_void,
                    ) = std::mem::transmute(action.sa_sigaction);
                    handler(signal, info, context);
                } else {
                    let handler: extern "C" fn(libc::c_int) =
                        std::mem::transmute(action.sa_sigaction);
                    handler(signal);
                }
            }
            _ => {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
        }
    }
}

/// "11 (SIGSEGV)\n" and the like, without allocating.
fn signal_name(signal: libc::c_int) -> &'static str {
    match signal {
        libc::SIGSEGV => "11 (SIGSEGV)\n",
        libc::SIGBUS => "7 (SIGBUS)\n",
        libc::SIGFPE => "8 (SIGFPE)\n",
        libc::SIGILL => "4 (SIGILL)\n",
        _ => "(fatal)\n",
    }
}
