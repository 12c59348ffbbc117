//! The threads connections are served on: one thread waits, started ahead,
//! for the next connection, so that a new connection's handshake does not
//! wait for a thread to be created and scheduled; a thread whose connection
//! has ended waits for the next one if no other thread does, else ends.

use std::{
    collections::VecDeque,
    io,
    sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError},
};

/// A connection to serve, to the end of its session.
pub(crate) type Connection = Box<dyn FnOnce() + Send>;

/// How many threads wait for connections at most.
const MAX_WAITING: usize = 1;

#[derive(Default)]
pub(crate) struct SessionThreads {
    state: Mutex<State>,
    /// Signalled when a connection is queued.
    queued: Condvar,
}

#[derive(Default)]
struct State {
    /// Threads waiting for a connection.
    waiting: usize,
    /// Connections given to waiting threads that none has taken yet.
    connections: VecDeque<Connection>,
}

impl SessionThreads {
    /// Starts a thread that waits for the first connection.
    pub fn start_waiting(self: &Arc<Self>) -> io::Result<()> {
        self.spawn(None)
    }

    /// Serves `connection` on a waiting thread, or on a new one if none
    /// waits.
    pub fn serve(self: &Arc<Self>, connection: Connection) -> io::Result<()> {
        let mut state = self.state();
        if state.waiting > state.connections.len() {
            state.connections.push_back(connection);
            // Notified once the lock is released: a thread woken while it is
            // held would run, find it taken and sleep again, two more
            // context switches before the handshake on one CPU.
            drop(state);
            self.queued.notify_one();
            return Ok(());
        }
        drop(state);
        self.spawn(Some(connection))
    }

    fn spawn(self: &Arc<Self>, first: Option<Connection>) -> io::Result<()> {
        let threads = Arc::clone(self);
        std::thread::Builder::new()
            .name("session".to_owned())
            .spawn(move || threads.serve_until_not_needed(first))
            .map(drop)
    }

    fn serve_until_not_needed(&self, first: Option<Connection>) {
        if let Some(connection) = first {
            connection();
        }
        while let Some(connection) = self.next_connection() {
            connection();
        }
    }

    /// The next connection for this thread, once there is one; None if
    /// another thread waits already. A waiting thread that was handed a
    /// connection but has not taken it yet waits no more: counting it, this
    /// thread would end, and the connection after would wait for a thread to
    /// be started.
    fn next_connection(&self) -> Option<Connection> {
        let mut state = self.state();
        if state.waiting - state.connections.len() >= MAX_WAITING {
            return None;
        }
        state.waiting += 1;
        let connection = loop {
            if let Some(connection) = state.connections.pop_front() {
                break connection;
            }
            state = self
                .queued
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        };
        state.waiting -= 1;
        Some(connection)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The counts stay consistent whatever panicked while holding the lock.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::mpsc, thread::ThreadId, time::Duration};

    use super::*;

    /// Serves a connection that reports the thread it ran on.
    fn thread_of_next(threads: &Arc<SessionThreads>) -> ThreadId {
        let (sender, receiver) = mpsc::channel();
        threads
            .serve(Box::new(move || {
                sender.send(std::thread::current().id()).unwrap();
            }))
            .unwrap();
        receiver.recv_timeout(Duration::from_secs(10)).unwrap()
    }

    /// Waits (bounded) until `count` threads wait for connections.
    fn wait_for_waiting(threads: &SessionThreads, count: usize) {
        for _ in 0..1000 {
            if threads.state().waiting == count {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("{} threads wait, not {count}", threads.state().waiting);
    }

    #[test]
    fn connections_go_to_the_waiting_thread_one_after_another() {
        let threads = Arc::new(SessionThreads::default());
        threads.start_waiting().unwrap();
        wait_for_waiting(&threads, 1);
        let first = thread_of_next(&threads);
        wait_for_waiting(&threads, 1);
        assert_eq!(thread_of_next(&threads), first);
    }

    #[test]
    fn a_thread_done_with_its_connection_waits_on_if_the_waiting_one_was_just_handed_one() {
        let threads = SessionThreads::default();
        let (sender, receiver) = mpsc::channel();
        {
            // The moment after `serve`: a thread waits, and was handed a
            // connection it has not taken yet.
            let mut state = threads.state();
            state.waiting = 1;
            state
                .connections
                .push_back(Box::new(move || sender.send(()).unwrap()));
        }
        let connection = threads
            .next_connection()
            .expect("this thread goes on instead of ending");
        connection();
        receiver.try_recv().unwrap();
        assert_eq!(threads.state().waiting, 1, "the other thread still counts");
    }

    #[test]
    fn a_connection_while_the_waiting_thread_is_busy_gets_a_new_thread_and_one_waits_after() {
        let threads = Arc::new(SessionThreads::default());
        threads.start_waiting().unwrap();
        wait_for_waiting(&threads, 1);
        let (release, held) = mpsc::channel::<()>();
        let (started, busy) = mpsc::channel();
        threads
            .serve(Box::new(move || {
                started.send(std::thread::current().id()).unwrap();
                held.recv().unwrap();
            }))
            .unwrap();
        let busy = busy.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_ne!(thread_of_next(&threads), busy);
        release.send(()).unwrap();
        // Both threads are done: one of them waits, the other has ended.
        wait_for_waiting(&threads, 1);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(threads.state().waiting, 1);
    }
}
