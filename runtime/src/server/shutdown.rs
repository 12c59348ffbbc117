//! Stopping the server without leaving session directories behind: on
//! SIGINT, SIGTERM or SIGHUP the live sessions' private directories, then
//! the server's lock file, are removed before the process exits. Workers
//! need no help: each one is killed when its supervising thread ends
//! (PR_SET_PDEATHSIG, set in `supervisor`). What a server killed by a signal
//! it cannot catch leaves behind, the next server removes (`work_dir`).

use std::{
    collections::HashMap,
    io,
    path::PathBuf,
    sync::{Arc, Mutex, PoisonError},
};

use super::work_dir::WorkDirClaim;
use crate::remote::signal_name;

/// The private directories of the sessions being served, by session id.
#[derive(Default)]
pub(super) struct LiveSessions {
    directories: Mutex<HashMap<u64, PathBuf>>,
}

impl LiveSessions {
    /// Records the session unless `max` sessions are live already.
    pub fn add_within(&self, max: u32, id: u64, directory: PathBuf) -> bool {
        let mut directories = self.directories();
        if directories.len() >= max as usize {
            return false;
        }
        directories.insert(id, directory);
        true
    }

    pub fn count(&self) -> usize {
        self.directories().len()
    }

    pub fn remove(&self, id: u64) {
        self.directories().remove(&id);
    }

    fn remove_all_directories(&self) {
        for directory in self.directories().values() {
            if let Err(error) = std::fs::remove_dir_all(directory) {
                tracing::warn!(directory = %directory.display(), %error, "cannot remove a session directory");
            }
        }
    }

    fn directories(&self) -> std::sync::MutexGuard<'_, HashMap<u64, PathBuf>> {
        // The map stays consistent whatever panicked while holding the lock.
        self.directories
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Blocks the termination signals in this thread (and so in every thread it
/// starts later) and starts a thread that waits for them, then cleans up and
/// exits. Blocking them everywhere makes that thread the only one that ever
/// sees them, so the cleanup runs in ordinary code, not in a signal handler.
pub(super) fn exit_cleanly_on_termination(
    sessions: Arc<LiveSessions>,
    claim: Arc<WorkDirClaim>,
) -> io::Result<()> {
    let signals = termination_signals()?;
    // SAFETY: `signals` is an initialized signal set; a null old-set pointer
    // is allowed.
    let blocked = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &signals, std::ptr::null_mut()) };
    if blocked != 0 {
        return Err(io::Error::from_raw_os_error(blocked));
    }
    std::thread::Builder::new()
        .name("signals".to_owned())
        .spawn(move || {
            loop {
                let mut signal = 0;
                // SAFETY: both pointers are valid for the duration of the call.
                if unsafe { libc::sigwait(&signals, &mut signal) } == 0 {
                    tracing::info!(
                        signal = signal_name(signal),
                        "stopping: removing the sessions' directories"
                    );
                    sessions.remove_all_directories();
                    claim.release();
                    std::process::exit(0);
                }
            }
        })?;
    Ok(())
}

fn termination_signals() -> io::Result<libc::sigset_t> {
    // SAFETY: sigset_t is plain data, and sigemptyset initializes it fully.
    let mut signals: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `signals` is a valid, writable signal set.
    if unsafe { libc::sigemptyset(&mut signals) } != 0 {
        return Err(io::Error::last_os_error());
    }
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: as above; the signal numbers are valid.
        if unsafe { libc::sigaddset(&mut signals, signal) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(signals)
}
