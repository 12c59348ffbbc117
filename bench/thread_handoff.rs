//! What an asynchronous launch of an empty function can cost on this machine,
//! two ways, to show where `launch_async` + `await` spends its time:
//!
//! - `spawn`: a new named thread per launch, joined by the await
//!   (`std::thread::Builder::new().name(..).spawn` then `JoinHandle::join`, how
//!   the embedded executor's `launch_async` worked when this was written);
//! - `handoff`: the same work handed to one parked worker thread and waited
//!   for through a mutex and condition variable (what a thread pool does, and
//!   what MLIR's async runtime does with its `llvm::ThreadPool`).
//!
//! Built by bench/run.py with `rustc -O` (no dependencies); prints one line
//! per way: `<name> <nanoseconds per launch+await>`.
//!
//!     thread_handoff [ITERATIONS]

use std::{
    hint::black_box,
    sync::{Arc, Condvar, Mutex},
    time::Instant,
};

fn empty() {
    black_box(());
}

fn spawn_and_join(iterations: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..iterations {
        let thread = std::thread::Builder::new()
            .name("executor:nothing".to_owned())
            .spawn(empty)
            .expect("a thread starts");
        thread.join().expect("the thread ends");
    }
    start.elapsed().as_secs_f64() * 1e9 / f64::from(iterations)
}

#[derive(Default)]
struct Slot {
    /// A launch waiting for the worker.
    pending: Option<fn()>,
    /// Launches the worker has finished.
    finished: u64,
    stop: bool,
}

fn handoff(iterations: u32) -> f64 {
    let shared = Arc::new((Mutex::new(Slot::default()), Condvar::new(), Condvar::new()));
    let worker = {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || {
            let (slot, work, done) = &*shared;
            let mut guard = slot.lock().unwrap();
            loop {
                if let Some(function) = guard.pending.take() {
                    drop(guard);
                    function();
                    guard = slot.lock().unwrap();
                    guard.finished += 1;
                    done.notify_one();
                } else if guard.stop {
                    return;
                } else {
                    guard = work.wait(guard).unwrap();
                }
            }
        })
    };
    let (slot, work, done) = &*shared;
    let start = Instant::now();
    for launched in 1..=u64::from(iterations) {
        // launch_async
        slot.lock().unwrap().pending = Some(empty);
        work.notify_one();
        // await
        let mut guard = slot.lock().unwrap();
        while guard.finished < launched {
            guard = done.wait(guard).unwrap();
        }
    }
    let elapsed = start.elapsed().as_secs_f64() * 1e9 / f64::from(iterations);
    slot.lock().unwrap().stop = true;
    work.notify_one();
    worker.join().unwrap();
    elapsed
}

fn main() {
    let iterations: u32 = std::env::args()
        .nth(1)
        .and_then(|argument| argument.parse().ok())
        .unwrap_or(100_000);
    println!("spawn {:.1}", spawn_and_join(iterations));
    println!("handoff {:.1}", handoff(iterations));
}
