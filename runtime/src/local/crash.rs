//! Turns a kernel that crashes the embedded executor of a host program into the
//! runtime's usual one-line failure instead of a bare signal: while a kernel
//! runs, its thread records the symbol, and a handler for the fatal signals
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
//! Only host programs turn this on ([`report_in_this_process`]): an
//! executor-server worker dies of the signal, which its supervisor reports.

use std::{
    cell::{Cell, OnceCell},
    sync::{
        Mutex, Once, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
};

const FATAL_SIGNALS: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGABRT,
];

/// How far below a thread's stack a fault still counts as overflowing it:
/// Linux keeps a gap of 256 pages below the main thread's stack
/// (`stack_guard_gap`), and a frame can reach a little past the guard.
const STACK_GUARD_REACH: usize = 1 << 20;

/// The size of the alternate signal stacks set up here (the handler needs
/// little; a page below it is left unmapped as its guard).
const SIGNAL_STACK_SIZE: usize = 64 * 1024;

/// What the signal handler needs to know about its thread, in one
/// thread-local so that a guarded kernel costs one thread-local access (the
/// runtime is a shared library, where each access is a call).
struct KernelThread {
    /// The symbol of the kernel running on this thread, or the file being
    /// loaded (address and length).
    running: Cell<(*const u8, usize)>,
    /// Whether `running` names a file being loaded rather than a kernel.
    loading: Cell<bool>,
    /// The addresses where a fault means that this thread's stack overflowed
    /// (start, end), once its first kernel has started; (0, 0) if unknown.
    overflow_zone: Cell<(usize, usize)>,
    /// Whether this thread's first kernel has set it up ([`prepare_thread`]).
    prepared: Cell<bool>,
}

// `guard` keeps a pointer to its thread's record past `LocalKey::with`,
// which holds while the record has no destructor to run before the thread
// ends.
const _: () = assert!(!std::mem::needs_drop::<KernelThread>());

thread_local! {
    static KERNEL_THREAD: KernelThread = const {
        KernelThread {
            running: Cell::new((std::ptr::null(), 0)),
            loading: Cell::new(false),
            overflow_zone: Cell::new((0, 0)),
            prepared: Cell::new(false),
        }
    };
    /// The alternate signal stack this thread was given, if it had none;
    /// released when the thread exits.
    static SIGNAL_STACK: OnceCell<Option<SignalStack>> = const { OnceCell::new() };
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
///
/// Inlined, with one thread-local access and `kernel` called outside any
/// closure of `LocalKey::with`: the launch fast path pays this on every
/// launch (the runtime is a shared library, where each thread-local access is
/// a call to `__tls_get_addr`). Rust cannot choose the cheaper initial-exec
/// model, and a C variable of that model would not do either: glibc then
/// places the runtime's whole thread-local block (2.7 KB) in its static TLS
/// surplus, which holds far less, and dlopen (mlir-runner's) fails with
/// "cannot allocate memory in static TLS block".
#[inline]
pub fn guard<T>(symbol: &str, kernel: impl FnOnce() -> T) -> T {
    if !REPORTING.load(Ordering::Acquire) {
        return kernel();
    }
    let thread = KERNEL_THREAD.with(std::ptr::from_ref);
    // SAFETY: this thread's own record, used on this thread only, before this
    // call returns. The thread-local is const-initialized and has no
    // destructor, so its storage is there for as long as the thread runs.
    let thread = unsafe { &*thread };
    if !thread.prepared.get() {
        prepare_thread(thread);
    }
    let previous = thread.running.replace((symbol.as_ptr(), symbol.len()));
    let result = kernel();
    thread.running.set(previous);
    result
}

/// Runs `load`, which loads the file `path` (running its load-time code),
/// reporting a crash inside it as a crash of that load if this process asked
/// for that.
pub fn guard_load<T>(path: &str, load: impl FnOnce() -> T) -> T {
    if !REPORTING.load(Ordering::Acquire) {
        return load();
    }
    KERNEL_THREAD.with(|thread| {
        if !thread.prepared.get() {
            prepare_thread(thread);
        }
        let _under_way = LoadUnderWay::start(thread, path);
        load()
    })
}

/// A load [`guard_load`] watches, from its start until dropped (also when
/// the load panics): this thread's record names the file, and so does the
/// process's list.
struct LoadUnderWay<'t> {
    thread: &'t KernelThread,
    path: String,
    previous: (*const u8, usize),
    was_loading: bool,
}

impl<'t> LoadUnderWay<'t> {
    fn start(thread: &'t KernelThread, path: &str) -> Self {
        LOADING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path.to_owned());
        // The record points at this guard's own copy of the path, which
        // lives until the record is restored.
        let path = path.to_owned();
        let previous = thread.running.replace((path.as_ptr(), path.len()));
        let was_loading = thread.loading.replace(true);
        Self {
            thread,
            path,
            previous,
            was_loading,
        }
    }
}

impl Drop for LoadUnderWay<'_> {
    fn drop(&mut self) {
        self.thread.loading.set(self.was_loading);
        self.thread.running.set(self.previous);
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

/// Sets this thread up for its first kernel: where its stack overflows, and
/// a stack for the handler to run on.
#[cold]
fn prepare_thread(thread: &KernelThread) {
    thread.overflow_zone.set(stack_overflow_zone());
    SIGNAL_STACK.with(|stack| {
        stack.get_or_init(SignalStack::install_unless_present);
    });
    thread.prepared.set(true);
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
    let ((symbol, len), loading, (start, end)) = KERNEL_THREAD.with(|thread| {
        (
            thread.running.get(),
            thread.loading.get(),
            thread.overflow_zone.get(),
        )
    });
    if !symbol.is_null() {
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
        let subject: &[u8] = if loading {
            b"executor runtime: loading '"
        } else {
            b"executor runtime: kernel '"
        };
        // SAFETY: only async-signal-safe calls (write, _exit); the symbol's
        // (or path's) bytes live until the kernel (or load) returns, which it
        // has not.
        unsafe {
            for part in [
                subject,
                std::slice::from_raw_parts(symbol, len),
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

/// Where a fault means that this thread's stack overflowed: from
/// [`STACK_GUARD_REACH`] below its lowest address to a page above it (a
/// frame that does not fit faults a little inside too). (0, 0) if unknown.
fn stack_overflow_zone() -> (usize, usize) {
    let on_main_stack = |stack: &std::ops::Range<usize>| {
        let here = std::ptr::from_ref(stack) as usize;
        stack.contains(&here)
    };
    let lowest = match main_thread_stack().filter(on_main_stack) {
        Some(stack) => stack.start,
        None => match thread_stack_lowest() {
            Some(lowest) => lowest,
            None => return (0, 0),
        },
    };
    (
        lowest.saturating_sub(STACK_GUARD_REACH),
        lowest + page_size(),
    )
}

/// The addresses the main thread's stack may take: from its end down to its
/// size limit (RLIMIT_STACK), as glibc's `pthread_getattr_np` reckons them,
/// without its scan of /proc/self/maps for the end, which takes about
/// 0.1 ms in a process of a hundred mappings. Linux copies the executable's
/// name (AT_EXECFN) to the top of the main thread's stack, one pointer below
/// its end, and keeps other mappings at least the limit below it. `None`
/// without a finite limit.
fn main_thread_stack() -> Option<std::ops::Range<usize>> {
    // SAFETY: getauxval has no preconditions.
    let name = unsafe { libc::getauxval(libc::AT_EXECFN) } as usize;
    if name == 0 {
        return None;
    }
    // SAFETY: the kernel wrote a NUL-terminated string at AT_EXECFN, which
    // stays for as long as the process runs.
    let length = unsafe { std::ffi::CStr::from_ptr(name as *const libc::c_char) }
        .to_bytes_with_nul()
        .len();
    let page = page_size();
    let end = (name + length + size_of::<usize>()).next_multiple_of(page);
    // SAFETY: rlimit is plain data, which getrlimit fills in.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: `limit` is writable.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let size = usize::try_from(limit.rlim_cur).ok()? / page * page;
    Some(end.checked_sub(size)?..end)
}

/// The lowest address of this thread's stack, as `pthread_getattr_np` finds
/// it (from the thread's own record, but for the main thread's).
fn thread_stack_lowest() -> Option<usize> {
    // SAFETY: pthread_attr_t is plain data, initialized by pthread_getattr_np.
    let mut attributes: libc::pthread_attr_t = unsafe { std::mem::zeroed() };
    // SAFETY: `attributes` is writable; on success it must be destroyed,
    // which is done below.
    if unsafe { libc::pthread_getattr_np(libc::pthread_self(), &mut attributes) } != 0 {
        return None;
    }
    let mut lowest = std::ptr::null_mut();
    let mut size = 0;
    // SAFETY: `attributes` were initialized above; the out-pointers are
    // writable. They are destroyed once, after use.
    let found = unsafe {
        let found = libc::pthread_attr_getstack(&attributes, &mut lowest, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attributes);
        found
    };
    found.then_some(lowest as usize)
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

/// An alternate signal stack set up for a thread that had none: a mapping
/// with an unmapped guard page at its bottom, released when the thread exits.
struct SignalStack {
    mapping: *mut libc::c_void,
    len: usize,
}

impl SignalStack {
    /// Gives this thread an alternate signal stack, unless it has one.
    fn install_unless_present() -> Option<Self> {
        // SAFETY: stack_t is plain data; sigaltstack with a null new stack
        // only reports the current one into `current`.
        let current = unsafe {
            let mut current: libc::stack_t = std::mem::zeroed();
            (libc::sigaltstack(std::ptr::null(), &mut current) == 0).then_some(current)
        }?;
        if current.ss_flags & libc::SS_DISABLE == 0 {
            return None;
        }
        let guard = page_size();
        let len = guard + SIGNAL_STACK_SIZE;
        // SAFETY: a new private anonymous mapping, at an address of the
        // kernel's choosing; no existing memory is affected.
        let mapping = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if mapping == libc::MAP_FAILED {
            return None;
        }
        let stack = Self { mapping, len };
        let signal_stack = libc::stack_t {
            // SAFETY: `guard` bytes into a mapping longer than that.
            ss_sp: unsafe { mapping.cast::<u8>().add(guard) }.cast(),
            ss_flags: 0,
            ss_size: SIGNAL_STACK_SIZE,
        };
        // SAFETY: the guard page is the start of the mapping made above; the
        // stack above it stays mapped until this thread exits (`Drop`,
        // which first takes it back from the kernel).
        let installed = unsafe {
            libc::mprotect(mapping, guard, libc::PROT_NONE) == 0
                && libc::sigaltstack(&signal_stack, std::ptr::null_mut()) == 0
        };
        // Dropped if not installed: unmapped, and sigaltstack disabled,
        // which it already was.
        installed.then_some(stack)
    }
}

impl Drop for SignalStack {
    fn drop(&mut self) {
        let disabled = libc::stack_t {
            ss_sp: std::ptr::null_mut(),
            ss_flags: libc::SS_DISABLE,
            ss_size: 0,
        };
        // SAFETY: the kernel stops using the stack before it is unmapped; the
        // mapping is the one `install_unless_present` made, unmapped once.
        unsafe {
            libc::sigaltstack(&disabled, std::ptr::null_mut());
            libc::munmap(self.mapping, self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The symbol this thread's record says is running, if any.
    fn running() -> Option<String> {
        let (symbol, len) = KERNEL_THREAD.with(|thread| thread.running.get());
        (!symbol.is_null()).then(|| {
            // SAFETY: a symbol the guard recorded, whose text outlives its
            // kernel, which is still running when this is called.
            let text = unsafe { std::slice::from_raw_parts(symbol, len) };
            String::from_utf8_lossy(text).into()
        })
    }

    #[test]
    fn the_main_threads_stack_ends_where_proc_self_maps_says() {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let line = maps
            .lines()
            .find(|line| line.ends_with("[stack]"))
            .expect("a [stack] mapping");
        let (start, rest) = line.split_once('-').unwrap();
        let end = usize::from_str_radix(rest.split_once(' ').unwrap().0, 16).unwrap();
        let start = usize::from_str_radix(start, 16).unwrap();
        // SAFETY: rlimit is plain data, which getrlimit fills in.
        let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
        // SAFETY: `limit` is writable.
        let status = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) };
        assert_eq!(status, 0);
        let Some(stack) = main_thread_stack() else {
            assert_eq!(
                limit.rlim_cur,
                libc::RLIM_INFINITY,
                "no stack without a limit"
            );
            return;
        };
        assert_eq!(stack.end, end, "{line}");
        let page = page_size() as u64;
        assert_eq!(stack.len() as u64, limit.rlim_cur / page * page);
        assert!(stack.start <= start, "{stack:x?} holds {line}");
        // A test runs on a thread of its own, whose stack is elsewhere.
        assert_eq!(
            stack_overflow_zone().1,
            thread_stack_lowest().unwrap() + page_size()
        );
    }

    #[test]
    fn a_guarded_kernel_is_marked_running_until_it_returns_and_an_outer_one_again_after_a_nested_one()
     {
        report_in_this_process();
        assert_eq!(running(), None, "no kernel yet");
        let inner = guard("outer", || {
            assert_eq!(running().as_deref(), Some("outer"));
            let inner = guard("inner", running);
            assert_eq!(running().as_deref(), Some("outer"), "back to the outer one");
            inner
        });
        assert_eq!(inner.as_deref(), Some("inner"));
        assert_eq!(running(), None, "none after the kernel returned");
        assert!(
            KERNEL_THREAD.with(|thread| thread.prepared.get()),
            "the thread was set up"
        );
    }
}
