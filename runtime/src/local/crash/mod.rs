//! Turns a kernel that crashes the embedded executor of a host program into the
//! runtime's usual one-line failure instead of a bare signal: while a kernel
//! runs, its thread's record names the symbol ([`record`]), and a handler for
//! the fatal signals (SIGABRT included: a kernel that calls `abort()`)
//! reports it and exits with status 1. Outside kernels the signal goes to
//! whatever handler was there before (the host's own crash handling).
//!
//! A kernel that overflows its stack faults on the guard below it, with no
//! stack left to run a handler on: the handler runs on an alternate signal
//! stack (`sigaltstack`), which the first kernel on each thread sets up unless
//! the thread has one (LLVM's, say), and says that the stack overflowed.
//!
//! Loading a binary runs code of its own: a shared library's constructors,
//! and the JIT linker on an object. [`guard_load`] reports a crash there the
//! same way, naming the file, and lets the exit handlers tell a load-time
//! `exit` ([`files_being_loaded`]). Closing a session runs its objects'
//! destructors: [`guard_unload`] reports a crash there, naming the object.
//!
//! Only host programs turn this on ([`report_in_this_process`]): an
//! executor-server worker dies of the signal, which its supervisor reports.

mod record;
mod signal_stack;
mod thread_stack;

use std::{
    cell::{Cell, OnceCell},
    sync::{
        Mutex, Once, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
};

pub use self::record::Record;
use self::{record::Activity, signal_stack::SignalStack};

const FATAL_SIGNALS: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGABRT,
];

/// What the signal handler needs to know about its thread, from its first
/// guarded call on.
struct KernelThread {
    /// What the thread runs: none before its first guarded call, nor once
    /// the thread gave it back as it exits.
    record: Cell<Option<&'static Record>>,
    /// The addresses where a fault means that this thread's stack overflowed
    /// (start, end), once its first kernel has started; (0, 0) if unknown.
    overflow_zone: Cell<(usize, usize)>,
    /// Whether this thread's first guarded call has set it up
    /// ([`prepare_thread`]).
    prepared: Cell<bool>,
    /// Whether the thread is exiting: its record was given back
    /// ([`ExitWatch`]).
    exiting: Cell<bool>,
}

thread_local! {
    static KERNEL_THREAD: KernelThread = const {
        KernelThread {
            record: Cell::new(None),
            overflow_zone: Cell::new((0, 0)),
            prepared: Cell::new(false),
            exiting: Cell::new(false),
        }
    };
    /// The alternate signal stack this thread was given, if it had none;
    /// released when the thread exits.
    static SIGNAL_STACK: OnceCell<Option<SignalStack>> = const { OnceCell::new() };
    /// Gives this thread's record back when it exits.
    static EXIT_WATCH: ExitWatch = const { ExitWatch };
}

/// The handlers installed before ours, per signal, to chain to.
static PREVIOUS: Mutex<Vec<(libc::c_int, libc::sigaction)>> = Mutex::new(Vec::new());

static REPORTING: AtomicBool = AtomicBool::new(false);

/// The files whose loading is under way in this process, while reporting.
static LOADING: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Reports kernels that crash in this process from now on.
pub fn report_in_this_process() {
    install();
    REPORTING.store(true, Ordering::Release);
}

/// Runs `kernel`, the code of `symbol`, reporting a crash inside it if this
/// process asked for that.
#[inline]
pub fn guard<T>(symbol: &str, kernel: impl FnOnce() -> T) -> T {
    if !REPORTING.load(Ordering::Acquire) {
        return kernel();
    }
    let record = record::recent().unwrap_or_else(this_threads_record);
    guard_with(record, symbol, kernel)
}

/// This thread's record, for [`guard_with`], when crashes are reported and
/// the thread's record is found by its thread pointer ([`record::recent`]:
/// one register read and two loads); None otherwise, when [`guard`] runs
/// the kernel (setting the thread up if it must). The launch fast path pays
/// this on every launch. (A record is found only once crashes are
/// reported, but reading [`REPORTING`] first measured faster than not: 5.7
/// against 6.0 ns per launch of the empty kernel.)
#[inline(always)]
pub fn recent_record() -> Option<&'static Record> {
    if !REPORTING.load(Ordering::Acquire) {
        return None;
    }
    record::recent()
}

/// [`guard`] with this thread's `record` ([`recent_record`]): two words
/// saved, written and put back around the kernel.
#[inline(always)]
pub fn guard_with<T>(record: &'static Record, symbol: &str, kernel: impl FnOnce() -> T) -> T {
    let before = record.replace((symbol.as_ptr(), symbol.len(), Activity::Kernel));
    let result = kernel();
    record.restore(before);
    result
}

/// Runs `load`, which loads the file `path` (running its load-time code),
/// reporting a crash inside it as a crash of that load if this process asked
/// for that.
pub fn guard_load<T>(path: &str, load: impl FnOnce() -> T) -> T {
    if !REPORTING.load(Ordering::Acquire) {
        return load();
    }
    let _under_way = LoadUnderWay::start(this_threads_record(), path);
    load()
}

/// A load [`guard_load`] watches, from its start until dropped (also when
/// the load panics): this thread's record names the file, and so does the
/// process's list.
struct LoadUnderWay {
    record: &'static Record,
    path: String,
    before: record::Saved,
}

impl LoadUnderWay {
    fn start(record: &'static Record, path: &str) -> Self {
        LOADING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path.to_owned());
        // The record points at this guard's own copy of the path, which
        // lives until the record is restored.
        let path = path.to_owned();
        let before = record.replace((path.as_ptr(), path.len(), Activity::Loading));
        Self {
            record,
            path,
            before,
        }
    }
}

impl Drop for LoadUnderWay {
    fn drop(&mut self) {
        self.record.restore(self.before);
        let mut loading = LOADING.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(index) = loading.iter().position(|file| *file == self.path) {
            loading.remove(index);
        }
    }
}

/// Runs `unload`, which runs the destructors of objects, reporting a crash
/// inside them as a crash of the destructors of the object it last named
/// with [`Unloading::object`], if this process asked for that.
pub fn guard_unload<T>(unload: impl FnOnce(&mut Unloading) -> T) -> T {
    let mut unloading = Unloading {
        record: REPORTING.load(Ordering::Acquire).then(this_threads_record),
        name: String::new(),
        before: None,
    };
    unload(&mut unloading)
}

/// The destructors [`guard_unload`] watches, from its start until dropped
/// (also when they panic).
pub struct Unloading {
    /// This thread's record, when crashes are reported.
    record: Option<&'static Record>,
    /// The object whose destructors run, which the record points at.
    name: String,
    /// What the record said before the first object was named.
    before: Option<record::Saved>,
}

impl Unloading {
    /// Names the object whose destructors run from now on.
    pub fn object(&mut self, name: &str) {
        let Some(record) = self.record else {
            return;
        };
        // The record points at the new copy before the old one is freed.
        let name = name.to_owned();
        let before = record.replace((name.as_ptr(), name.len(), Activity::Unloading));
        self.before.get_or_insert(before);
        self.name = name;
    }
}

impl Drop for Unloading {
    fn drop(&mut self) {
        if let (Some(record), Some(before)) = (self.record, self.before) {
            record.restore(before);
        }
    }
}

/// The files being loaded now: when the process exits meanwhile, the
/// load-time code of one of them called `exit`.
pub fn files_being_loaded() -> Vec<String> {
    LOADING
        .try_lock()
        .map(|loading| loading.clone())
        .unwrap_or_default()
}

/// This thread's record, through its thread-local; the thread is set up on
/// its first guarded call, and its record published for the next ones.
#[cold]
#[inline(never)]
fn this_threads_record() -> &'static Record {
    KERNEL_THREAD.with(|thread| {
        if !thread.prepared.get() {
            prepare_thread(thread);
        }
        let record = thread.record.get().unwrap_or_else(|| {
            // Its record was given back: a guarded call from a thread-local's
            // destructor, after this thread's ExitWatch. It keeps a new one.
            let record = record::take();
            thread.record.set(Some(record));
            record
        });
        if !thread.exiting.get() {
            record::publish(record);
        }
        record
    })
}

/// Sets this thread up for its first guarded call: its record, where its
/// stack overflows, and a stack for the handler to run on.
fn prepare_thread(thread: &KernelThread) {
    thread.record.set(Some(record::take()));
    let zone = thread_stack::current()
        .map(|stack| thread_stack::overflow_zone(&stack))
        .unwrap_or(0..0);
    thread.overflow_zone.set((zone.start, zone.end));
    SIGNAL_STACK.with(|stack| {
        stack.get_or_init(SignalStack::install_unless_present);
    });
    // Registers its destructor.
    EXIT_WATCH.with(|_| {});
    thread.prepared.set(true);
}

/// Gives the thread's record back when the thread exits: a thread started
/// later may get its thread pointer, and must not find the record its own.
struct ExitWatch;

impl Drop for ExitWatch {
    fn drop(&mut self) {
        KERNEL_THREAD.with(|thread| {
            thread.exiting.set(true);
            if let Some(record) = thread.record.take() {
                record::give_back(record);
            }
        });
    }
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
                // On the alternate stack where the thread has one: an
                // overflowed stack has no room for the handler.
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
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
    let (record, (start, end)) =
        KERNEL_THREAD.with(|thread| (thread.record.get(), thread.overflow_zone.get()));
    let (text, len, activity) =
        record.map_or((std::ptr::null(), 0, Activity::Kernel), Record::running);
    if !text.is_null() {
        // SAFETY: `info` is the siginfo of a fatal signal, whose address is
        // the faulting one for SIGSEGV and SIGBUS.
        let address = unsafe { (*info).si_addr() } as usize;
        let overflowed =
            matches!(signal, libc::SIGSEGV | libc::SIGBUS) && (start..end).contains(&address);
        let cause: &[u8] = if overflowed {
            b": stack overflow\n"
        } else {
            b"\n"
        };
        let subject: &[u8] = match activity {
            Activity::Kernel => b"executor runtime: kernel '",
            Activity::Loading => b"executor runtime: loading '",
            Activity::Unloading => b"executor runtime: the destructors of '",
        };
        // SAFETY: only async-signal-safe calls (write, _exit); the symbol's
        // (or path's) bytes live until the kernel (or load) returns, which it
        // has not.
        unsafe {
            for part in [
                subject,
                std::slice::from_raw_parts(text, len),
                b"' crashed with signal ",
                signal_name(signal).as_bytes(),
                cause,
            ] {
                libc::write(2, part.as_ptr().cast(), part.len());
            }
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

/// "11 (SIGSEGV)" and the like, without allocating.
fn signal_name(signal: libc::c_int) -> &'static str {
    match signal {
        libc::SIGSEGV => "11 (SIGSEGV)",
        libc::SIGBUS => "7 (SIGBUS)",
        libc::SIGFPE => "8 (SIGFPE)",
        libc::SIGILL => "4 (SIGILL)",
        libc::SIGABRT => "6 (SIGABRT)",
        _ => "(fatal)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What this thread's record says runs, if anything.
    fn running() -> Option<String> {
        let record = KERNEL_THREAD.with(|thread| thread.record.get())?;
        let (text, len, _) = record.running();
        (!text.is_null()).then(|| {
            // SAFETY: a symbol the guard recorded, whose text outlives its
            // kernel, which is still running when this is called.
            let text = unsafe { std::slice::from_raw_parts(text, len) };
            String::from_utf8_lossy(text).into()
        })
    }

    #[test]
    fn a_guarded_kernel_is_recorded_until_it_returns_and_an_outer_one_again_after_a_nested_one() {
        report_in_this_process();
        std::thread::spawn(|| {
            assert_eq!(running(), None, "no kernel yet");
            let inner = guard("outer", || {
                assert_eq!(running().as_deref(), Some("outer"));
                let inner = guard("inner", running);
                assert_eq!(running().as_deref(), Some("outer"), "back to the outer one");
                inner
            });
            assert_eq!(inner.as_deref(), Some("inner"));
            assert_eq!(running(), None, "none after the kernel returned");
            assert!(KERNEL_THREAD.with(|thread| thread.prepared.get()));
            let (start, end) = KERNEL_THREAD.with(|thread| thread.overflow_zone.get());
            assert!(start < end, "the overflow zone is known");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_load_is_recorded_as_one_until_it_ends_also_by_a_panic() {
        report_in_this_process();
        std::thread::spawn(|| {
            let loading = || {
                KERNEL_THREAD.with(|thread| thread.record.get().unwrap().running().2)
                    == Activity::Loading
            };
            guard("kernel", || {
                guard_load("lib.so", || {
                    assert_eq!(running().as_deref(), Some("lib.so"));
                    assert!(loading());
                });
                assert_eq!(running().as_deref(), Some("kernel"));
                assert!(!loading());
                let panicked =
                    std::panic::catch_unwind(|| guard_load("bad.so", || panic!("in the load")));
                assert!(panicked.is_err());
                assert_eq!(
                    running().as_deref(),
                    Some("kernel"),
                    "restored after the panic"
                );
            });
            assert!(
                files_being_loaded()
                    .iter()
                    .all(|file| file != "lib.so" && file != "bad.so")
            );
        })
        .join()
        .unwrap();
    }

    #[test]
    fn destructors_are_recorded_by_object_until_they_end() {
        report_in_this_process();
        std::thread::spawn(|| {
            let activity = || KERNEL_THREAD.with(|thread| thread.record.get().unwrap().running().2);
            guard("kernel", || {
                guard_unload(|unloading| {
                    unloading.object("first.o");
                    assert_eq!(running().as_deref(), Some("first.o"));
                    assert_eq!(activity(), Activity::Unloading);
                    unloading.object("second.o");
                    assert_eq!(running().as_deref(), Some("second.o"));
                });
                assert_eq!(running().as_deref(), Some("kernel"), "restored");
                assert_eq!(activity(), Activity::Kernel);
            });
        })
        .join()
        .unwrap();
    }
}
