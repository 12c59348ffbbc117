//! Where Catalyst's executor keeps a session's assets:
//! `$TMPDIR/catalyst-assets/<pid>/<file name>`, where pid is the process that
//! runs the kernels. A worker links that path to `/proc/<pid>/cwd`, its
//! working directory, which is its session's asset directory once the
//! session has come: a kernel written for either server finds its assets, by
//! name in its working directory or under Catalyst's path with its own pid.
//! The link is made before the session comes (a warm worker makes it while
//! it waits), so that a session pays only for entering its asset directory.
//!
//! The link is removed when the worker ends, or by the server after a worker
//! that was killed, and `catalyst-assets` with the last link. That directory
//! must be this user's and writable by no one else; otherwise no link is made
//! (and a warning is logged), since another user could redirect it.

use std::{
    io,
    os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt},
    path::{Path, PathBuf},
};

use executor_protocol::unix_socket;

/// `$TMPDIR/catalyst-assets/<pid>`, a link to the working directory of the
/// process `pid`.
pub(crate) struct CatalystAssetLink {
    path: PathBuf,
}

impl CatalystAssetLink {
    /// Links `$TMPDIR/catalyst-assets/<this process's pid>` to this
    /// process's working directory; none where it cannot (logged).
    pub fn create() -> Option<Self> {
        let pid = std::process::id();
        let path = link_path(pid);
        match make_link(&path, &working_directory_of(pid)) {
            Ok(()) => Some(Self { path }),
            Err(error) => {
                tracing::warn!(link = %path.display(), %error, "kernels cannot find their assets under Catalyst's path");
                None
            }
        }
    }
}

impl Drop for CatalystAssetLink {
    fn drop(&mut self) {
        remove(&self.path);
    }
}

/// Removes the link of the worker `pid` if it is still there (the worker was
/// killed, or the server is stopping). The worker must not be reaped yet, so
/// that its pid names no other process, whose link this would be.
pub(crate) fn remove_link_of(pid: u32) {
    let path = link_path(pid);
    if std::fs::read_link(&path).is_ok_and(|target| target == working_directory_of(pid)) {
        remove(&path);
    }
}

/// Removes the links of this process's children that are still there: the
/// server is stopping, and its workers, warm or serving, die with it.
pub(crate) fn remove_links_of_children() {
    let Ok(entries) = std::fs::read_dir(links_directory()) else {
        return;
    };
    let server = std::process::id();
    for entry in entries.flatten() {
        let pid = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse().ok());
        if let Some(pid) = pid
            && parent_of(pid) == Some(server)
        {
            remove_link_of(pid);
        }
    }
}

/// The parent of the process `pid`, from `/proc/<pid>/stat`.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name, which is in parentheses and may hold any
    // character: the state, then the parent's pid.
    let (_, fields) = stat.rsplit_once(')')?;
    fields.split_whitespace().nth(1)?.parse().ok()
}

/// Removes the link at `path`, then `catalyst-assets` if that was its last
/// entry.
fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
    if let Some(parent) = path.parent() {
        // Fails, as it should, while the directory holds anything.
        let _ = std::fs::remove_dir(parent);
    }
}

fn links_directory() -> PathBuf {
    std::env::temp_dir().join("catalyst-assets")
}

fn link_path(pid: u32) -> PathBuf {
    links_directory().join(pid.to_string())
}

/// Where the link of the process `pid` leads: its working directory, as the
/// kernel shows it to processes of the same user.
fn working_directory_of(pid: u32) -> PathBuf {
    PathBuf::from(format!("/proc/{pid}/cwd"))
}

fn make_link(path: &Path, target: &Path) -> io::Result<()> {
    // Another worker removes the directory when it removes the last link: if
    // it did so between this one's making it and linking, it is made again.
    let mut tries = 3;
    loop {
        match try_make_link(path, target) {
            Err(error) if error.kind() == io::ErrorKind::NotFound && tries > 1 => tries -= 1,
            done => return done,
        }
    }
}

fn try_make_link(path: &Path, target: &Path) -> io::Result<()> {
    let parent = &links_directory();
    match std::fs::DirBuilder::new().mode(0o700).create(parent) {
        Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(error),
        _ => {}
    }
    let directory = std::fs::symlink_metadata(parent)?;
    if !directory.is_dir()
        || directory.uid() != unix_socket::own_uid()
        || directory.permissions().mode() & 0o022 != 0
    {
        return Err(io::Error::other(format!(
            "{} is not a directory of this user's that no one else can write to",
            parent.display()
        )));
    }
    // A link left by a process that had this pid before (killed with its
    // server) is replaced; anything else there is not this server's.
    if std::fs::symlink_metadata(path).is_ok_and(|existing| existing.file_type().is_symlink()) {
        std::fs::remove_file(path)?;
    }
    std::os::unix::fs::symlink(target, path)
}
