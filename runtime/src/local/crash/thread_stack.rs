//! Where a thread's stack lies, as the signal handler needs it: where a fault
//! means that the stack overflowed.

use std::ops::Range;

/// How far below a thread's stack a fault still counts as overflowing it:
/// Linux keeps a gap of 256 pages below the main thread's stack
/// (`stack_guard_gap`), and a frame can reach a little past the guard.
const STACK_GUARD_REACH: usize = 1 << 20;

/// The addresses of this thread's stack; None if unknown.
pub fn current() -> Option<Range<usize>> {
    let on_main_stack = |stack: &Range<usize>| {
        let here = std::ptr::from_ref(stack) as usize;
        stack.contains(&here)
    };
    main_thread_stack()
        .filter(on_main_stack)
        .or_else(this_threads_stack)
}

/// Where a fault means that the thread of `stack` overflowed it: from
/// [`STACK_GUARD_REACH`] below its lowest address to a page above it (a
/// frame that does not fit faults a little inside too).
pub fn overflow_zone(stack: &Range<usize>) -> Range<usize> {
    stack.start.saturating_sub(STACK_GUARD_REACH)..stack.start + page_size()
}

/// The addresses the main thread's stack may take: from its end down to its
/// size limit (RLIMIT_STACK), as glibc's `pthread_getattr_np` reckons them,
/// without its scan of /proc/self/maps for the end, which takes about
/// 0.1 ms in a process of a hundred mappings. Linux copies the executable's
/// name (AT_EXECFN) to the top of the main thread's stack, one pointer below
/// its end, and keeps other mappings at least the limit below it. `None`
/// without a finite limit.
fn main_thread_stack() -> Option<Range<usize>> {
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

/// This thread's stack, as `pthread_getattr_np` finds it (from the thread's
/// own record, but for the main thread's).
fn this_threads_stack() -> Option<Range<usize>> {
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
    found.then(|| lowest as usize..lowest as usize + size)
}

pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let here = current().expect("this thread's stack");
        assert_eq!(Some(here.clone()), this_threads_stack());
        assert!(!here.contains(&stack.start) && here.contains(&(&raw const page as usize)));
    }
}
