//! The alternate signal stack of a thread that runs kernels: a kernel that
//! overflows its stack leaves the handler no room on it.

/// The size of the alternate signal stacks set up here (the handler needs
/// little; a page below it is left unmapped as its guard).
const SIGNAL_STACK_SIZE: usize = 64 * 1024;

/// An alternate signal stack set up for a thread that had none: a mapping
/// with an unmapped guard page at its bottom, released when the thread exits.
pub struct SignalStack {
    mapping: *mut libc::c_void,
    len: usize,
}

impl SignalStack {
    /// Gives this thread an alternate signal stack, unless it has one.
    pub fn install_unless_present() -> Option<Self> {
        // SAFETY: stack_t is plain data; sigaltstack with a null new stack
        // only reports the current one into `current`.
        let current = unsafe {
            let mut current: libc::stack_t = std::mem::zeroed();
            (libc::sigaltstack(std::ptr::null(), &mut current) == 0).then_some(current)
        }?;
        if current.ss_flags & libc::SS_DISABLE == 0 {
            return None;
        }
        let guard = super::thread_stack::page_size();
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
