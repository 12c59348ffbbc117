//! Turns a kernel that crashes the embedded executor of a host program into the
//! runtime's usual one-line failure instead of a bare signal: while a kernel
//! runs, the frame that called it holds a mark naming its symbol
//! ([`mark`]), and a handler for the fatal signals
//! (SIGABRT included: a kernel that calls `abort()`) reports it and exits with
//! status 1. Outside kernels the signal goes to whatever handler was there
//! before (the host's own crash handling).
//!
//! A kernel that overflows its stack faults on the guard below it, with no
//! stack left to run a handler on: the handler runs on an alternate signal
//! stack (`sigaltstack`), which the first kernel on each thread sets up unless
//! the thread has one (LLVM's, say), and says that the stack overflowed.
//!
//! Loading a binary runs code of its own: a shared library's constructors,
//! and the JIT linker on an object. [`guard_load`] reports a crash there the
//! same way, naming the file, and lets the exit handlers tell a load-time
//! `exit` ([`files_being_loaded`]).
//!
//! A guard costs a launch no thread-local access once its thread is set up:
//! the thread that was set up last is known by its thread pointer, which
//! is one register read.
//!
//! Only host programs turn this on ([`report_in_this_process`]): an
//! executor-server worker dies of the signal, which its supervisor reports.

mod mark;
mod signal_stack;
mod thread_stack;

use std::{
    cell::{Cell, OnceCell},
    ops::Range,
    sync::{
        Mutex, Once, PoisonError,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
};

use self::{
    mark::{Subject, marked},
    signal_stack::SignalStack,
};

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
    /// This thread's stack (start, end); (0, 0) if unknown.
    stack: Cell<(usize, usize)>,
    /// Whether this thread's first guarded call has set it up
    /// ([`prepare_thread`]).
    prepared: Cell<bool>,
}

thread_local! {
    static KERNEL_THREAD: KernelThread = const {
        KernelThread {
            stack: Cell::new((0, 0)),
            prepared: Cell::new(false),
        }
    };
    /// The alternate signal stack this thread was given, if it had none;
    /// released when the thread exits.
    static SIGNAL_STACK: OnceCell<Option<SignalStack>> = const { OnceCell::new() };
    /// Forgets this thread as the one set up last when it exits.
    static EXIT_WATCH: ExitWatch = const { ExitWatch };
}

/// The thread pointer of the thread found set up last, or 0: a guard on that
/// thread reads no thread-local.
static SET_UP_LAST: AtomicUsize = AtomicUsize::new(0);

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
/// process asked for that. Inlined: the launch fast path pays this on every
/// launch.
#[inline]
pub fn guard<T>(symbol: &str, kernel: impl FnOnce() -> T) -> T {
    if !REPORTING.load(Ordering::Acquire) {
        return kernel();
    }
    set_up_this_thread();
    marked(Subject::Kernel, symbol.as_bytes(), kernel)
}

/// Runs `load`, which loads the file `path` (running its load-time code),
/// reporting a crash inside it as a crash of that load if this process asked
/// for that.
pub fn guard_load<T>(path: &str, load: impl FnOnce() -> T) -> T {
    if !REPORTING.load(Ordering::Acquire) {
        return load();
    }
    set_up_this_thread();
    let _under_way = LoadUnderWay::start(path);
    marked(Subject::Load, path.as_bytes(), load)
}

/// A load [`guard_load`] watches, from its start until dropped (also when
/// the load panics): the process's list names the file.
struct LoadUnderWay {
    path: String,
}

impl LoadUnderWay {
    fn start(path: &str) -> Self {
        LOADING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path.to_owned());
        Self {
            path: path.to_owned(),
        }
    }
}

impl Drop for LoadUnderWay {
    fn drop(&mut self) {
        let mut loading = LOADING.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(index) = loading.iter().position(|file| *file == self.path) {
            loading.remove(index);
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

/// Sets this thread up for guarded calls unless it is the thread set up
/// last.
#[inline(always)]
fn set_up_this_thread() {
    if thread_pointer().is_none_or(|this| this != SET_UP_LAST.load(Ordering::Relaxed)) {
        set_up_other_thread();
    }
}

#[cold]
#[inline(never)]
fn set_up_other_thread() {
    KERNEL_THREAD.with(|thread| {
        if !thread.prepared.get() {
            prepare_thread(thread);
        }
    });
    if let Some(this) = thread_pointer() {
        SET_UP_LAST.store(this, Ordering::Relaxed);
    }
}

/// Sets this thread up for its first guarded call: where its stack lies, and
/// a stack for the handler to run on.
fn prepare_thread(thread: &KernelThread) {
    let stack = thread_stack::current().unwrap_or(0..0);
    thread.stack.set((stack.start, stack.end));
    SIGNAL_STACK.with(|stack| {
        stack.get_or_init(SignalStack::install_unless_present);
    });
    EXIT_WATCH.with(|_| {});
    thread.prepared.set(true);
}

/// A thread started later may get the thread pointer of one that exited.
struct ExitWatch;

impl Drop for ExitWatch {
    fn drop(&mut self) {
        if let Some(this) = thread_pointer() {
            // Failing means another thread was set up last: nothing to forget.
            let _ = SET_UP_LAST.compare_exchange(this, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

/// This thread's thread pointer (never 0), where it is one instruction away.
#[inline(always)]
fn thread_pointer() -> Option<usize> {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        let pointer: usize;
        // SAFETY: reads the first word of this thread's control block, which
        // holds its own address (the x86-64 TLS ABI); no memory is written.
        unsafe {
            std::arch::asm!(
                "mov {}, qword ptr fs:[0]",
                out(reg) pointer,
                options(nostack, preserves_flags, readonly, pure)
            );
        }
        Some(pointer)
    }
    #[cfg(all(target_os = "linux", target_arch = "aarch64"))]
    {
        let pointer: usize;
        // SAFETY: reads this thread's thread pointer register.
        unsafe {
            std::arch::asm!(
                "mrs {}, tpidr_el0",
                out(reg) pointer,
                options(nostack, preserves_flags, nomem, pure)
            );
        }
        Some(pointer)
    }
    #[cfg(not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )))]
    {
        None
    }
}

fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        mark::init_tag();
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
    let (start, end) = KERNEL_THREAD.with(|thread| thread.stack.get());
    let stack = start..end;
    // SAFETY: `info` is the siginfo of a fatal signal, whose address is the
    // faulting one for SIGSEGV and SIGBUS.
    let address = unsafe { (*info).si_addr() } as usize;
    let overflowed = matches!(signal, libc::SIGSEGV | libc::SIGBUS)
        && !stack.is_empty()
        && thread_stack::overflow_zone(&stack).contains(&address);
    // SAFETY: `context` is the ucontext of the signal.
    if let Some(found) = unsafe { running_on(&stack, context) } {
        let cause: &[u8] = if overflowed {
            b": stack overflow\n"
        } else {
            b"\n"
        };
        let subject: &[u8] = match found.subject {
            Subject::Load => b"executor runtime: loading '",
            Subject::Kernel => b"executor runtime: kernel '",
        };
        // SAFETY: only async-signal-safe calls (write, _exit); the symbol's
        // (or path's) bytes live until the kernel (or load) returns, which it
        // has not.
        unsafe {
            for part in [
                subject,
                std::slice::from_raw_parts(found.text, found.len),
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

/// The innermost guarded call running on this thread, from the marks on
/// `stack` above where the signal stopped it.
///
/// # Safety
///
/// `context` is the `ucontext_t` of a signal delivered to this thread, and
/// `stack` this thread's stack. Async-signal-safe.
unsafe fn running_on(stack: &Range<usize>, context: *mut libc::c_void) -> Option<mark::Found> {
    // SAFETY: the contract.
    let stopped_at = unsafe { stack_pointer(context) }?;
    // Below a stack that overflowed, or a frame that did not fit, nothing is
    // mapped: the marks are read from the first mapped page up, and the
    // stack is mapped from there to its end.
    let from = first_mapped(stopped_at.max(stack.start), stack.end)?;
    // SAFETY: mapped, from `from` to the end of this thread's stack.
    unsafe { mark::find(from, stack.end) }
}

/// The stack pointer where the signal of `context` stopped its thread.
///
/// # Safety
///
/// `context` is the `ucontext_t` of a signal.
unsafe fn stack_pointer(context: *mut libc::c_void) -> Option<usize> {
    let context = context.cast::<libc::ucontext_t>();
    if context.is_null() {
        return None;
    }
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    // SAFETY: a ucontext_t (the contract).
    return Some(unsafe { (*context).uc_mcontext.gregs[libc::REG_RSP as usize] } as usize);
    #[cfg(all(target_os = "linux", target_arch = "aarch64"))]
    // SAFETY: a ucontext_t (the contract).
    return Some(unsafe { (*context).uc_mcontext.sp } as usize);
    #[cfg(not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )))]
    None
}

/// The first address from `from` (up to `to`) whose page is mapped.
/// Async-signal-safe (mincore).
fn first_mapped(from: usize, to: usize) -> Option<usize> {
    let page = thread_stack::page_size();
    let mut at = from / page * page;
    let mut resident = 0u8;
    while at < to {
        // SAFETY: mincore writes one byte per page asked about, here one;
        // it fails with ENOMEM for a page that is not mapped.
        if unsafe { libc::mincore(at as *mut libc::c_void, page, &mut resident) } == 0 {
            return Some(at.max(from));
        }
        at += page;
    }
    None
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

    #[test]
    fn a_guarded_call_sets_its_thread_up() {
        report_in_this_process();
        std::thread::spawn(|| {
            assert!(!KERNEL_THREAD.with(|thread| thread.prepared.get()));
            let here = 0u8;
            guard("kernel", || {});
            assert!(KERNEL_THREAD.with(|thread| thread.prepared.get()));
            let (start, end) = KERNEL_THREAD.with(|thread| thread.stack.get());
            assert!((start..end).contains(&(&raw const here as usize)));
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_thread_is_forgotten_as_the_one_set_up_last_when_it_exits() {
        std::thread::spawn(|| {
            let this = thread_pointer().expect("a thread pointer on Linux");
            SET_UP_LAST.store(this, Ordering::Relaxed);
            drop(ExitWatch);
            // No other live thread has this thread pointer to store.
            assert_ne!(SET_UP_LAST.load(Ordering::Relaxed), this);
        })
        .join()
        .unwrap();
    }
}
