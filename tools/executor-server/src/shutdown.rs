//! Stopping the server without leaving anything behind: on SIGINT, SIGTERM
//! or SIGHUP the live sessions' workers and every process their kernels
//! started (each worker's process group) are killed, then the warm workers,
//! then their private directories, the workers' Catalyst asset links, the
//! spare directory, the socket files the server made and its lock file are
//! removed, before the process exits. What a server killed by a signal it cannot catch leaves behind,
//! the next server removes (`work_dir`); its workers are killed with it
//! (PR_SET_PDEATHSIG, set in `supervisor`).

use std::{
    collections::HashMap,
    io,
    os::fd::{AsRawFd, FromRawFd, OwnedFd},
    path::PathBuf,
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, Instant},
};

use crate::{
    catalyst_assets, proc_stat, session_dirs::SessionDirectories, socket_file::SocketFile,
    work_dir::WorkDirClaim,
};
use executor_protocol::signal_name;

/// The sessions being served, by session id.
#[derive(Default)]
pub(crate) struct LiveSessions {
    sessions: Mutex<HashMap<u64, LiveSession>>,
}

struct LiveSession {
    directory: PathBuf,
    /// The worker serving it, once there is one and until it is reaped.
    worker: Option<u32>,
}

impl LiveSessions {
    /// Records the session unless `max` sessions are live already.
    pub fn add_within(&self, max: u32, id: u64, directory: PathBuf) -> bool {
        let mut sessions = self.sessions();
        if sessions.len() >= max as usize {
            return false;
        }
        sessions.insert(
            id,
            LiveSession {
                directory,
                worker: None,
            },
        );
        true
    }

    /// Records the worker serving session `id`, or (None) that it has
    /// exited and is about to be reaped.
    pub fn set_worker(&self, id: u64, worker: Option<u32>) {
        if let Some(session) = self.sessions().get_mut(&id) {
            session.worker = worker;
        }
    }

    pub fn count(&self) -> usize {
        self.sessions().len()
    }

    pub fn remove(&self, id: u64) {
        self.sessions().remove(&id);
    }

    /// Kills every worker and what its kernels started, then removes the
    /// session directories.
    fn end_all(&self) {
        for session in self.sessions().values() {
            if let Some(worker) = session.worker {
                kill_process_group(worker);
            }
            let removed = std::fs::remove_dir_all(&session.directory);
            // Gone already is what was wanted.
            if let Err(error) = removed.or_else(|error| match error.kind() {
                std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(error),
            }) {
                tracing::warn!(directory = %session.directory.display(), %error, "cannot remove a session directory");
            }
        }
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<u64, LiveSession>> {
        // The map stays consistent whatever panicked while holding the lock.
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Kills the process group of `leader`, a worker (which leads a group of its
/// own) not reaped yet: the worker and every process its kernels started
/// that did not leave the group.
pub(crate) fn kill_process_group(leader: u32) {
    let Ok(group) = libc::pid_t::try_from(leader) else {
        return;
    };
    // SAFETY: kill sends a signal and touches no memory. The worker is not
    // reaped yet, so its pid, the group's id, names no other process.
    unsafe { libc::kill(-group, libc::SIGKILL) };
}

/// How long a stopping server waits for its killed children to die.
const CHILDREN_DEATH_WAIT: Duration = Duration::from_secs(2);

/// Kills those of `pids` that are this process's children and waits, up to
/// `within`, until each has died, without reaping it (its pid names no other
/// process until it is reaped). Each is reached through a pidfd opened while
/// it was a child of this process, so no signal reaches a process that took
/// the pid of one reaped meanwhile.
fn kill_and_wait(pids: &[u32], within: Duration) {
    let server = std::process::id();
    let children: Vec<OwnedFd> = pids
        .iter()
        .filter_map(|&pid| {
            let pidfd = pidfd_open(pid)
                .inspect_err(|error| {
                    // ESRCH: it exited and was reaped since the list was read.
                    if error.raw_os_error() != Some(libc::ESRCH) {
                        tracing::warn!(pid, %error, "cannot reach a worker to stop it");
                    }
                })
                .ok()?;
            (proc_stat::parent_of(pid) == Some(server)).then_some(pidfd)
        })
        .collect();
    for child in &children {
        // SAFETY: sends SIGKILL through a pidfd this function owns; no
        // memory is passed (a null siginfo).
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                child.as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            );
        }
    }
    let deadline = Instant::now() + within;
    for child in &children {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut ready = libc::pollfd {
            fd: child.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // A pidfd is readable once its process has died.
        // SAFETY: one pollfd, valid for the call.
        unsafe {
            libc::poll(
                &mut ready,
                1,
                left.as_millis().try_into().unwrap_or(i32::MAX),
            )
        };
    }
}

/// Kills this process's children, and those started meanwhile (the warm
/// workers' thread may be starting one), until no new one appears or
/// `within` has passed.
fn kill_all_children(within: Duration) {
    let deadline = Instant::now() + within;
    let mut killed = std::collections::HashSet::new();
    loop {
        let new: Vec<u32> = children_of_this_process()
            .into_iter()
            .filter(|pid| !killed.contains(pid))
            .collect();
        if new.is_empty() || Instant::now() >= deadline {
            return;
        }
        kill_and_wait(&new, deadline.saturating_duration_since(Instant::now()));
        killed.extend(new);
    }
}

/// The pids of this process's children, from each of its threads' list.
fn children_of_this_process() -> Vec<u32> {
    let Ok(threads) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    threads
        .flatten()
        .filter_map(|thread| std::fs::read_to_string(thread.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor
    // or -1; no memory is passed.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = i32::try_from(fd).map_err(io::Error::other)?;
    // SAFETY: a descriptor pidfd_open just returned, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Blocks the termination signals in this thread (and so in every thread it
/// starts later) and starts a thread that waits for them, then cleans up and
/// exits. Blocking them everywhere makes that thread the only one that ever
/// sees them, so the cleanup runs in ordinary code, not in a signal handler.
pub(crate) fn exit_cleanly_on_termination(
    sessions: Arc<LiveSessions>,
    socket_files: Arc<Vec<SocketFile>>,
    claim: Arc<WorkDirClaim>,
    directories: Arc<SessionDirectories>,
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
                        "stopping: ending the sessions' workers and removing their directories"
                    );
                    sessions.end_all();
                    // The warm workers, and one being started, would die
                    // with the server, but may make their links meanwhile.
                    kill_all_children(CHILDREN_DEATH_WAIT);
                    catalyst_assets::remove_links_of_children();
                    directories.remove_spare();
                    for file in socket_files.iter() {
                        file.remove();
                    }
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

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::*;

    #[test]
    fn a_child_is_killed_and_left_unreaped() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        kill_and_wait(&[child.id()], Duration::from_secs(10));
        assert_eq!(
            proc_stat::parent_of(child.id()),
            Some(std::process::id()),
            "not reaped"
        );
        let status = child.try_wait().unwrap().expect("dead");
        assert_eq!(status.signal(), Some(libc::SIGKILL));
    }
}
