//! Where Catalyst's executor keeps a session's assets:
//! `$TMPDIR/catalyst-assets/<pid>/<file name>`, where pid is the process that
//! runs the kernels. A worker links that path to its session's asset
//! directory, so a kernel written for either server finds its assets: by
//! name in its working directory, or under Catalyst's path with its own pid.
//!
//! The link is removed when the worker ends, or by the supervisor after a
//! worker that was killed, and `catalyst-assets` with the last link. That
//! directory must be this user's and writable by no one else; otherwise no
//! link is made (and a warning is logged), since another user could redirect
//! it.

use std::{
    io,
    os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt},
    path::{Path, PathBuf},
};

/// `$TMPDIR/catalyst-assets/<pid>`, a link to a session's asset directory.
pub(crate) struct CatalystAssetLink {
    path: PathBuf,
}

impl CatalystAssetLink {
    /// Links `$TMPDIR/catalyst-assets/<this process's pid>` to `assets`;
    /// none where it cannot (logged).
    pub fn create(assets: &Path) -> Option<Self> {
        let path = link_path(std::process::id());
        match make_link(&path, assets) {
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

/// Removes the links to `assets` that are still there: the worker that made
/// one was killed, or the server is stopping. Links that point elsewhere are
/// other sessions'.
pub(crate) fn remove_links_to(assets: &Path) {
    let Ok(entries) = std::fs::read_dir(links_directory()) else {
        return;
    };
    for entry in entries.flatten() {
        if std::fs::read_link(entry.path()).is_ok_and(|target| target == assets) {
            remove(&entry.path());
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

fn make_link(path: &Path, assets: &Path) -> io::Result<()> {
    // Another worker removes the directory when it removes the last link: if
    // it did so between this one's making it and linking, it is made again.
    let mut tries = 3;
    loop {
        match try_make_link(path, assets) {
            Err(error) if error.kind() == io::ErrorKind::NotFound && tries > 1 => tries -= 1,
            done => return done,
        }
    }
}

fn try_make_link(path: &Path, assets: &Path) -> io::Result<()> {
    let parent = &links_directory();
    match std::fs::DirBuilder::new().mode(0o700).create(parent) {
        Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(error),
        _ => {}
    }
    let directory = std::fs::symlink_metadata(parent)?;
    let owner = std::fs::metadata(assets)?.uid();
    if !directory.is_dir()
        || directory.uid() != owner
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
    std::os::unix::fs::symlink(assets, path)
}
