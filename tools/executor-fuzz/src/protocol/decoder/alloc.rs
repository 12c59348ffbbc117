//! A global allocator that remembers the largest single allocation a thread
//! asked for: the decoder fuzzer's oracle for "every message has a size
//! limit and is checked before allocation" (docs/protocol.md). A binary
//! opts in with `#[global_allocator] static A: TrackingAllocator = TrackingAllocator;`.

use std::{
    alloc::{GlobalAlloc, Layout, System},
    cell::Cell,
};

thread_local! {
    /// The largest allocation (or reallocation) this thread asked for since
    /// the last `largest_allocation_during` began.
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // `try_with`: a thread being torn down has no slot left, and that is fine.
    let _ = LARGEST.try_with(|largest| {
        if size > largest.get() {
            largest.set(size);
        }
    });
}

/// The system allocator, noting each request's size.
pub struct TrackingAllocator;

// SAFETY: every method hands the same arguments to `System`, which upholds
// GlobalAlloc's contract; `note` only writes a thread-local `Cell` (constant
// initializer, no destructor, so it never allocates or panics here).
unsafe impl GlobalAlloc for TrackingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: our caller's guarantees for `layout` are System's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as in `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with `layout` (every allocation
        // of this allocator is System's).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: as in `dealloc`, and our caller's guarantees for `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Runs `f` and returns the largest single allocation this thread asked
/// for meanwhile (0 when no `TrackingAllocator` is the global allocator).
pub fn largest_allocation_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|largest| largest.set(0));
    let result = f();
    (result, LARGEST.with(Cell::get))
}

/// Whether this binary's global allocator is a `TrackingAllocator`.
pub fn tracking() -> bool {
    let (_, largest) =
        largest_allocation_during(|| std::hint::black_box(Vec::<u8>::with_capacity(12345)));
    largest >= 12345
}
