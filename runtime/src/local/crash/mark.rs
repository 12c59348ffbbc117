//! What a thread is running, written on its own stack: a guarded kernel (or
//! load) puts a [`Mark`] in the frame that calls it, and the signal handler
//! finds the innermost one by reading the stack up from where the fault
//! stopped the thread. A launch then writes a few words to memory its frame
//! already owns, instead of reaching a thread-local through `__tls_get_addr`
//! (the runtime is a shared library that a host program may `dlopen`).
//!
//! A mark starts with this process's tag, a random word that no kernel's
//! data holds by chance, and ends with a check word over the rest, so that no
//! stray copy of the tag passes for a mark. A guard clears the tag when its call returns
//! or unwinds, so a mark below the stack pointer is never live.

use std::{
    mem::MaybeUninit,
    sync::atomic::{AtomicUsize, Ordering, compiler_fence},
};

/// What a mark names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    Kernel,
    Load,
}

/// The bit of [`Mark::len_and_subject`] set for a load.
const LOAD_BIT: usize = 1 << (usize::BITS - 1);

/// The longest text a mark may name; a longer one is no mark.
const MAX_TEXT_LEN: usize = 1 << 20;

/// A mark as it lies on the stack.
#[repr(C)]
pub struct Mark {
    tag: usize,
    text: *const u8,
    len_and_subject: usize,
    check: usize,
}

/// The live mark of a guarded call, found on a stack.
pub struct Found {
    pub subject: Subject,
    pub text: *const u8,
    pub len: usize,
}

/// This process's tag; 0 until [`init_tag`].
static TAG: AtomicUsize = AtomicUsize::new(0);

/// Picks this process's tag, before any guard runs; once.
pub fn init_tag() {
    if TAG.load(Ordering::Relaxed) != 0 {
        return;
    }
    let mut tag = [0u8; size_of::<usize>()];
    // SAFETY: `tag` is writable for its length.
    let filled = unsafe { libc::getrandom(tag.as_mut_ptr().cast(), tag.len(), 0) };
    let mut tag = usize::from_ne_bytes(tag);
    if filled != size_of::<usize>() as isize {
        // No getrandom: this process's addresses and the time are as unknown
        // to a kernel's data.
        let here = std::ptr::from_ref(&tag) as usize;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.subsec_nanos() as usize);
        tag = here.rotate_left(29) ^ nanos ^ (TAG.as_ptr() as usize);
    }
    // A tag picked meanwhile by another thread stays: marks may carry it.
    let _ = TAG.compare_exchange(0, tag | 1, Ordering::Relaxed, Ordering::Relaxed);
}

fn check_word(tag: usize, text: *const u8, len_and_subject: usize) -> usize {
    !(tag.rotate_left(17) ^ text as usize ^ len_and_subject.rotate_left(41))
}

/// Runs `call` with a mark naming `text` in this frame.
#[inline(always)]
pub fn marked<T>(subject: Subject, text: &[u8], call: impl FnOnce() -> T) -> T {
    let tag = TAG.load(Ordering::Relaxed);
    let len_and_subject = match subject {
        Subject::Kernel => text.len(),
        Subject::Load => text.len() | LOAD_BIT,
    };
    let mut mark = MaybeUninit::<Mark>::uninit();
    let live = Live(mark.as_mut_ptr());
    // SAFETY: writes to this frame's own mark, one word at a time and
    // volatile: made although nothing here reads them back, and never
    // through a copy of the whole mark elsewhere on the stack, which would
    // outlive the call.
    unsafe {
        let at = live.0;
        std::ptr::write_volatile(&raw mut (*at).text, text.as_ptr());
        std::ptr::write_volatile(&raw mut (*at).len_and_subject, len_and_subject);
        std::ptr::write_volatile(
            &raw mut (*at).check,
            check_word(tag, text.as_ptr(), len_and_subject),
        );
        std::ptr::write_volatile(&raw mut (*at).tag, tag);
    }
    // The mark is memory that code the compiler cannot see reads (the
    // handler, through an address it found): it is written before the call.
    let live = std::hint::black_box(live);
    compiler_fence(Ordering::SeqCst);
    let result = call();
    drop(live);
    result
}

/// Clears a mark's tag when its call returns or unwinds.
struct Live(*mut Mark);

impl Drop for Live {
    fn drop(&mut self) {
        // SAFETY: the mark of the frame that made this value, which
        // outlives it.
        unsafe { std::ptr::write_volatile(&raw mut (*self.0).tag, 0) };
    }
}

/// The innermost live mark between `from` and `to` (the words of a thread's
/// stack above where it stopped); None if there is none.
///
/// # Safety
///
/// Every byte from `from` to `to` must be readable. Async-signal-safe.
pub unsafe fn find(from: usize, to: usize) -> Option<Found> {
    let tag = TAG.load(Ordering::Relaxed);
    if tag == 0 {
        return None;
    }
    let word = size_of::<usize>();
    let mut at = from.next_multiple_of(align_of::<Mark>());
    while at.checked_add(size_of::<Mark>())? <= to {
        // SAFETY: an aligned word in the readable range (the contract).
        if unsafe { std::ptr::read_volatile(at as *const usize) } == tag {
            // SAFETY: a whole mark's words fit in the range (the loop's test).
            let mark = unsafe { std::ptr::read_volatile(at as *const Mark) };
            let len = mark.len_and_subject & !LOAD_BIT;
            if mark.check == check_word(tag, mark.text, mark.len_and_subject)
                && !mark.text.is_null()
                && len <= MAX_TEXT_LEN
            {
                let subject = if mark.len_and_subject & LOAD_BIT == 0 {
                    Subject::Kernel
                } else {
                    Subject::Load
                };
                return Some(Found {
                    subject,
                    text: mark.text,
                    len,
                });
            }
        }
        at += word;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{super::thread_stack, *};

    /// What the innermost live mark on this thread's stack names: all of
    /// it is read, so a mark left live below the caller's frame is found too.
    #[inline(never)]
    fn innermost() -> Option<(Subject, String)> {
        let stack = thread_stack::current().expect("this thread's stack");
        // SAFETY: a test runs on a thread of its own, whose whole stack is
        // mapped.
        unsafe { find(stack.start, stack.end) }.map(|found| {
            // SAFETY: the text of a live mark lives while its call runs.
            let text = unsafe { std::slice::from_raw_parts(found.text, found.len) };
            (found.subject, String::from_utf8_lossy(text).into())
        })
    }

    fn kernel(name: &str) -> Option<(Subject, String)> {
        Some((Subject::Kernel, name.to_owned()))
    }

    #[test]
    fn the_innermost_live_mark_is_found_and_none_after_its_call() {
        init_tag();
        assert_eq!(innermost(), None, "no call yet");
        let inner = marked(Subject::Kernel, b"outer", || {
            assert_eq!(innermost(), kernel("outer"));
            let inner = marked(Subject::Load, b"inner.so", innermost);
            assert_eq!(innermost(), kernel("outer"), "back to the outer one");
            inner
        });
        assert_eq!(inner, Some((Subject::Load, "inner.so".to_owned())));
        assert_eq!(innermost(), None, "none after the call returned");
    }

    #[test]
    fn a_call_that_unwinds_leaves_no_live_mark() {
        init_tag();
        let unwound = std::panic::catch_unwind(|| {
            marked(Subject::Load, b"panics.so", || panic!("in the load"))
        });
        assert!(unwound.is_err());
        assert_eq!(innermost(), None);
    }

    #[test]
    fn a_word_equal_to_the_tag_is_no_mark_without_its_check() {
        init_tag();
        let tag = TAG.load(Ordering::Relaxed);
        let text = b"stray";
        let stray = [
            tag,
            text.as_ptr() as usize,
            text.len(),
            check_word(tag, text.as_ptr(), text.len()) ^ 1,
        ];
        let range = stray.as_ptr_range();
        // SAFETY: the words of `stray`.
        assert!(unsafe { find(range.start as usize, range.end as usize) }.is_none());
        let mut real = stray;
        real[3] ^= 1;
        let range = real.as_ptr_range();
        // SAFETY: the words of `real`.
        let found = unsafe { find(range.start as usize, range.end as usize) }.expect("a mark");
        assert_eq!((found.subject, found.len), (Subject::Kernel, text.len()));
    }
}
