//! Each thread's record of what it runs, where a guard writes and the signal
//! handler reads: the kernel's symbol, the file being loaded, or the object
//! whose destructors run.
//!
//! A record is reached through the thread's own thread-local, but also
//! through [`RECENT`], a table of the records of threads that launched
//! lately, by thread pointer: a launch then costs one register read and two
//! loads instead of a call to `__tls_get_addr` (the runtime is a shared
//! library that a host program may `dlopen`). Records are never freed, so a
//! stale entry of the table is still a record, whose owner is another
//! thread's or none: a thread takes an entry for its own only if the record
//! names its thread pointer, which no other live thread has. A thread gives
//! its record back when it exits, for a thread started later.

use std::sync::{
    Mutex, PoisonError,
    atomic::{AtomicPtr, AtomicUsize, Ordering},
};

/// What kind of code a record's text names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Activity {
    /// A kernel: the text is its symbol.
    Kernel,
    /// A binary's load-time code (or the linker on it): the text is its file.
    Loading,
    /// An object's destructors, as its session closes: the text is its name.
    Unloading,
}

impl Activity {
    fn from_u8(value: u8) -> Self {
        match value {
            1 => Self::Loading,
            2 => Self::Unloading,
            _ => Self::Kernel,
        }
    }
}

/// What a thread runs, as the signal handler reads it on that thread.
pub struct Record {
    /// The thread pointer of the thread whose record this is; 0 while no
    /// thread has it.
    owner: AtomicUsize,
    /// What runs ([`Activity`]): address; null when nothing does.
    text: AtomicPtr<u8>,
    /// The text's length, with the [`Activity`] in the top bits
    /// ([`ACTIVITY_SHIFT`]): one word, so that a guard saves, writes and
    /// restores two words per launch; a kernel's (0) is its length alone.
    len_and_activity: AtomicUsize,
}

/// Where a record's word holds the [`Activity`]: no text is that long.
const ACTIVITY_SHIFT: u32 = usize::BITS - 2;

/// What a record says runs: (text, length, activity); a null text for none.
pub type Running = (*const u8, usize, Activity);

/// What a record said before a guard wrote it, as its words, for the guard
/// to put back ([`Record::restore`]).
#[derive(Clone, Copy)]
pub struct Saved {
    text: *mut u8,
    len_and_activity: usize,
}

impl Record {
    /// What runs on the record's thread. Async-signal-safe.
    pub fn running(&self) -> Running {
        let word = self.len_and_activity.load(Ordering::Relaxed);
        (
            self.text.load(Ordering::Relaxed),
            word & ((1 << ACTIVITY_SHIFT) - 1),
            Activity::from_u8((word >> ACTIVITY_SHIFT) as u8),
        )
    }

    /// Records that `running` runs now, and returns what did before. Called
    /// by the record's thread only; the handler that reads it runs on that
    /// thread, so the order of the words does not matter.
    #[inline(always)]
    pub fn replace(&self, (text, len, activity): Running) -> Saved {
        let before = Saved {
            text: self.text.load(Ordering::Relaxed),
            len_and_activity: self.len_and_activity.load(Ordering::Relaxed),
        };
        self.restore(Saved {
            text: text.cast_mut(),
            len_and_activity: len | (activity as usize) << ACTIVITY_SHIFT,
        });
        before
    }

    /// Puts back what [`Record::replace`] found.
    #[inline(always)]
    pub fn restore(&self, saved: Saved) {
        self.text.store(saved.text, Ordering::Relaxed);
        self.len_and_activity
            .store(saved.len_and_activity, Ordering::Relaxed);
    }
}

/// The records of threads that launched lately, by a hash of their thread
/// pointers.
static RECENT: [AtomicPtr<Record>; 1 << SLOT_BITS] =
    [const { AtomicPtr::new((&raw const NOBODY).cast_mut()) }; 1 << SLOT_BITS];

/// What an empty slot of [`RECENT`] holds: a record no thread owns, so that
/// finding a thread's record takes no test for null.
static NOBODY: Record = Record {
    owner: AtomicUsize::new(0),
    text: AtomicPtr::new(std::ptr::null_mut()),
    len_and_activity: AtomicUsize::new(0),
};

/// [`RECENT`] has 2 to this power slots.
const SLOT_BITS: u32 = 6;

/// The records of threads that exited, for threads started later.
static FREE: Mutex<Vec<&'static Record>> = Mutex::new(Vec::new());

fn recent_slot(thread: usize) -> &'static AtomicPtr<Record> {
    // Threads' control blocks are pages apart, often megabytes: a
    // multiplicative hash takes the slot from the top bits of the product,
    // which all of the pointer's bits reach (two instructions on the launch
    // path).
    &RECENT[thread.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (usize::BITS - SLOT_BITS)]
}

/// This thread's record, if the table has it.
#[inline(always)]
pub fn recent() -> Option<&'static Record> {
    let this = thread_pointer()?;
    let record = recent_slot(this).load(Ordering::Acquire);
    // SAFETY: the table holds records ([`NOBODY`] or threads'), which are
    // never freed.
    let record = unsafe { &*record };
    (record.owner.load(Ordering::Relaxed) == this).then_some(record)
}

/// A record for this thread: one given back by a thread that exited, or a
/// new one (never freed).
pub fn take() -> &'static Record {
    let given_back = FREE.lock().unwrap_or_else(PoisonError::into_inner).pop();
    let record = given_back.unwrap_or_else(|| {
        Box::leak(Box::new(Record {
            owner: AtomicUsize::new(0),
            text: AtomicPtr::new(std::ptr::null_mut()),
            len_and_activity: AtomicUsize::new(0),
        }))
    });
    record.replace((std::ptr::null(), 0, Activity::Kernel));
    // A thread without a thread pointer reaches its record through its
    // thread-local only; 1 is no thread pointer.
    record
        .owner
        .store(thread_pointer().unwrap_or(1), Ordering::Relaxed);
    record
}

/// Puts this thread's `record` in the table.
pub fn publish(record: &'static Record) {
    if let Some(this) = thread_pointer() {
        recent_slot(this).store(std::ptr::from_ref(record).cast_mut(), Ordering::Release);
    }
}

/// Gives back the record of this thread, which is exiting: out of the table,
/// owned by no thread, free for another.
pub fn give_back(record: &'static Record) {
    record.owner.store(0, Ordering::Relaxed);
    if let Some(this) = thread_pointer() {
        let own = std::ptr::from_ref(record).cast_mut();
        // Failing means the slot holds another thread's: nothing to remove.
        let _ = recent_slot(this).compare_exchange(
            own,
            (&raw const NOBODY).cast_mut(),
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
    }
    FREE.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(record);
}

/// This thread's thread pointer (never 0 or 1), where it is one
/// instruction away.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Publishes `record` and finds it, again if another test's thread took
    /// the slot meanwhile.
    fn published_and_found(record: &'static Record) -> bool {
        (0..100).any(|_| {
            publish(record);
            recent().is_some_and(|found| std::ptr::eq(found, record))
        })
    }

    #[test]
    fn a_published_record_is_its_threads_until_given_back() {
        std::thread::spawn(|| {
            assert!(recent().is_none(), "nothing published yet");
            let record = take();
            assert!(published_and_found(record));
            give_back(record);
            assert!(recent().is_none(), "given back");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_record_is_taken_only_by_the_thread_it_names() {
        std::thread::spawn(|| {
            let this = thread_pointer().expect("a thread pointer on Linux");
            let record = take();
            assert!(published_and_found(record));
            // As if another thread had it: one whose control block is a page
            // away.
            record.owner.store(this ^ 4096, Ordering::Relaxed);
            assert!(recent().is_none());
            record.owner.store(this, Ordering::Relaxed);
            give_back(record);
        })
        .join()
        .unwrap();
    }
}
