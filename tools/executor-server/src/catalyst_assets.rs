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
    ffi::CString,
    io,
    os::unix::{
        ffi::OsStrExt,
        fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt},
        io::AsRawFd,
    },
    path::{Path, PathBuf},
};

use crate::proc_stat;
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
            && proc_stat::parent_of(pid) == Some(server)
        {
            remove_link_of(pid);
        }
    }
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
    let parent = path
        .parent()
        .ok_or_else(|| io::Error::other("a link path without a directory"))?;
    match std::fs::DirBuilder::new().mode(0o700).create(parent) {
        Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(error),
        _ => {}
    }
    // Checked through a descriptor opened without following a link, and the
    // link made through it: the directory checked is the one the link goes
    // in, even if another user puts a directory of theirs at the path
    // between the check and the link.
    let directory = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(parent)?;
    let metadata = directory.metadata()?;
    if !metadata.is_dir()
        || metadata.uid() != unix_socket::own_uid()
        || metadata.permissions().mode() & 0o022 != 0
    {
        return Err(io::Error::other(format!(
            "{} is not a directory of this user's that no one else can write to",
            parent.display()
        )));
    }
    let name = c_string(path.file_name().unwrap_or_default().as_bytes())?;
    let target = c_string(target.as_os_str().as_bytes())?;
    let dirfd = directory.as_raw_fd();
    // SAFETY: both strings are NUL-terminated and live; `dirfd` is open.
    if unsafe { libc::symlinkat(target.as_ptr(), dirfd, name.as_ptr()) } == 0 {
        return Ok(());
    }
    let error = io::Error::last_os_error();
    if error.kind() != io::ErrorKind::AlreadyExists {
        return Err(error);
    }
    // A link left by a process that had this pid before (killed with its
    // server) is replaced; anything else there is not this server's.
    // SAFETY: stat is plain data, which fstatat fills in.
    let mut existing: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `name` is NUL-terminated, `existing` writable, `dirfd` open.
    if unsafe {
        libc::fstatat(
            dirfd,
            name.as_ptr(),
            &mut existing,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    } != 0
        || existing.st_mode & libc::S_IFMT != libc::S_IFLNK
    {
        return Err(error);
    }
    // SAFETY: as above; unlinkat removes the name, a link, in `dirfd`.
    if unsafe { libc::unlinkat(dirfd, name.as_ptr(), 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as the first symlinkat.
    if unsafe { libc::symlinkat(target.as_ptr(), dirfd, name.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::other("a path holds a NUL byte"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory, and `catalyst-assets` in it made as `make` says.
    fn links_in(make: impl FnOnce(&Path)) -> (tempfile::TempDir, PathBuf) {
        let scratch = tempfile::tempdir().unwrap();
        let links = scratch.path().join("catalyst-assets");
        make(&links);
        (scratch, links)
    }

    #[test]
    fn a_link_is_made_and_a_stale_one_replaced() {
        let (_scratch, links) = links_in(|_| {});
        let path = links.join("42");
        try_make_link(&path, Path::new("/first")).unwrap();
        assert_eq!(std::fs::read_link(&path).unwrap(), Path::new("/first"));
        try_make_link(&path, Path::new("/second")).unwrap();
        assert_eq!(std::fs::read_link(&path).unwrap(), Path::new("/second"));
    }

    #[test]
    fn what_is_not_a_link_is_left_alone() {
        let (_scratch, links) = links_in(|links| std::fs::create_dir(links).unwrap());
        let path = links.join("42");
        std::fs::write(&path, b"not a link").unwrap();
        assert!(try_make_link(&path, Path::new("/target")).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"not a link");
    }

    #[test]
    fn a_directory_others_may_write_to_gets_no_link() {
        let (_scratch, links) = links_in(|links| {
            std::fs::create_dir(links).unwrap();
            std::fs::set_permissions(links, std::fs::Permissions::from_mode(0o777)).unwrap();
        });
        let path = links.join("42");
        assert!(try_make_link(&path, Path::new("/target")).is_err());
        assert!(std::fs::symlink_metadata(&path).is_err());
    }

    #[test]
    fn a_link_in_place_of_the_directory_is_not_followed() {
        let (scratch, links) = links_in(|_| {});
        let elsewhere = scratch.path().join("elsewhere");
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&elsewhere)
            .unwrap();
        std::os::unix::fs::symlink(&elsewhere, &links).unwrap();
        assert!(try_make_link(&links.join("42"), Path::new("/target")).is_err());
        assert!(std::fs::symlink_metadata(elsewhere.join("42")).is_err());
    }
}
