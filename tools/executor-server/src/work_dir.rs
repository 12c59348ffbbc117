//! What a server keeps in its work directory, and what a server that was
//! killed without warning (SIGKILL, an OOM kill, a power cut) left there.
//!
//! Each server holds an exclusive `flock` on a file of its own in the work
//! directory, `executor-server-<id>.lock`, for as long as it runs, and names
//! its sessions' directories after it: `executor-session-<id>-XXXXXX`. A lock
//! is released when its process dies, whatever kills it, and unlike a process
//! id it can neither be mistaken for another process's nor be missed from
//! another pid namespace. So at start-up a server takes the lock of every
//! other server's file it can: each one it gets belongs to a server that is
//! gone, and that server's session directories and lock file are removed.

use std::{
    fs::File,
    io,
    os::fd::AsRawFd,
    path::{Path, PathBuf},
};

/// Every session directory's name starts with this.
const SESSION_DIR_PREFIX: &str = "executor-session-";
const LOCK_PREFIX: &str = "executor-server-";
const LOCK_SUFFIX: &str = ".lock";

/// The directory of a session's assets, inside its session directory: its
/// worker's working directory.
pub(crate) fn asset_directory(session_dir: &Path) -> PathBuf {
    session_dir.join("assets")
}

/// This server's lock file in the work directory, locked while it runs.
pub(crate) struct WorkDirClaim {
    path: PathBuf,
    session_dir_prefix: String,
    _locked: File,
}

impl WorkDirClaim {
    /// Creates and locks a lock file of this server's in `work_dir`.
    pub fn take(work_dir: &Path) -> io::Result<Self> {
        // Locked under a name no other server looks at, then renamed: a lock
        // file is never seen unlocked while its server runs.
        let unnamed = tempfile::Builder::new()
            .prefix(".executor-server-")
            .tempfile_in(work_dir)?;
        if !try_lock(unnamed.as_file())? {
            return Err(io::Error::other("cannot lock a file it just created"));
        }
        let id: String = unnamed
            .path()
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_prefix(".executor-server-"))
            .expect("tempfile names the file with the prefix")
            .to_owned();
        let path = work_dir.join(format!("{LOCK_PREFIX}{id}{LOCK_SUFFIX}"));
        let locked = unnamed
            .persist_noclobber(&path)
            .map_err(|error| error.error)?;
        Ok(Self {
            path,
            session_dir_prefix: format!("{SESSION_DIR_PREFIX}{id}-"),
            _locked: locked,
        })
    }

    /// How this server's session directories are named: this, then a
    /// random suffix.
    pub fn session_dir_prefix(&self) -> &str {
        &self.session_dir_prefix
    }

    /// Removes the lock file, when the server stops (it stays locked until
    /// the process exits). One removed already, with the work directory
    /// (executor-slurm's tasks at a job's end), is no error.
    pub fn release(&self) {
        if let Err(error) = std::fs::remove_file(&self.path)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %self.path.display(), %error, "cannot remove the server's lock file");
        }
    }
}

/// Removes from `work_dir` the session directories (spare ones too) and lock
/// files of servers that are gone; returns how many directories were removed.
pub(crate) fn remove_stale_sessions(work_dir: &Path) -> io::Result<usize> {
    let mut removed = 0;
    for entry in std::fs::read_dir(work_dir)? {
        let name = entry?.file_name();
        let Some(id) = name
            .to_str()
            .and_then(|name| name.strip_prefix(LOCK_PREFIX))
            .and_then(|name| name.strip_suffix(LOCK_SUFFIX))
        else {
            continue;
        };
        let lock_path = work_dir.join(&name);
        // Another user's file, or one removed meanwhile: not ours to judge.
        let Ok(lock) = File::open(&lock_path) else {
            continue;
        };
        if !try_lock(&lock)? {
            continue; // Its server runs.
        }
        removed += remove_session_dirs(work_dir, &format!("{SESSION_DIR_PREFIX}{id}-"));
        // Last, so that a sweep cut short is taken up by the next one.
        if let Err(error) = std::fs::remove_file(&lock_path) {
            tracing::warn!(path = %lock_path.display(), %error, "cannot remove a stale lock file");
        }
    }
    Ok(removed)
}

/// Removes the directories in `work_dir` whose names start with `prefix`;
/// returns how many.
fn remove_session_dirs(work_dir: &Path, prefix: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(work_dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        let matches = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(prefix));
        if !(is_dir && matches) {
            continue;
        }
        // remove_dir_all does not follow symbolic links.
        match std::fs::remove_dir_all(entry.path()) {
            Ok(()) => removed += 1,
            Err(error) => {
                tracing::warn!(directory = %entry.path().display(), %error, "cannot remove a stale session directory")
            }
        }
    }
    removed
}

/// Takes an exclusive lock on `file` if no one holds it; false if someone does.
fn try_lock(file: &File) -> io::Result<bool> {
    // SAFETY: flock takes an open descriptor and flags; no memory is involved.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    if error.kind() == io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_directories_of_servers_that_are_gone_are_removed() {
        let work_dir = tempfile::tempdir().unwrap();
        let running = WorkDirClaim::take(work_dir.path()).unwrap();
        let gone = WorkDirClaim::take(work_dir.path()).unwrap();
        let gone_lock = gone.path.clone();
        let mut kept = Vec::new();
        for claim in [&running, &gone] {
            for suffix in ["abc123", "def456"] {
                let dir = work_dir
                    .path()
                    .join(format!("{}{suffix}", claim.session_dir_prefix()));
                std::fs::create_dir(&dir).unwrap();
                std::fs::write(dir.join("binary-0.o"), b"bytes").unwrap();
                kept.push(dir);
            }
        }
        // Not anyone's: a directory of the old naming, and a file.
        let unowned = work_dir.path().join("executor-session-Xy12Zw");
        std::fs::create_dir(&unowned).unwrap();
        let other = work_dir.path().join("notes.txt");
        std::fs::write(&other, b"").unwrap();
        // Dropping the claim without releasing it is what a killed server
        // leaves: the file, no longer locked.
        drop(gone);
        wait_until_unlocked(&gone_lock);

        assert_eq!(remove_stale_sessions(work_dir.path()).unwrap(), 2);
        assert!(kept[0].exists() && kept[1].exists());
        assert!(!kept[2].exists() && !kept[3].exists());
        assert!(running.path.exists() && !gone_lock.exists());
        assert!(unowned.exists() && other.exists());
        assert_eq!(remove_stale_sessions(work_dir.path()).unwrap(), 0);
    }

    /// Waits (a bounded time) until no one holds the lock of `path`. Another
    /// test of this process that forks holds a copy of every descriptor of
    /// the process until its child calls exec, and the lock with it.
    fn wait_until_unlocked(path: &Path) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !try_lock(&File::open(path).unwrap()).unwrap() {
            assert!(
                std::time::Instant::now() < deadline,
                "{} stays locked",
                path.display()
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}
