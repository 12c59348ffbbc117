//! The sessions' private directories, each with its `assets` directory, one
//! made ahead: a new session takes the spare, made while no client waited
//! for it, by renaming it (on a disk file system, making the two directories
//! took a quarter of a millisecond; a rename takes a tenth of that), and the
//! next spare is made once a session ends. A spare is named apart from the
//! sessions' directories, so that those are the live sessions' only; the
//! server removes it when it stops, and the next server removes one left by
//! a server that was killed (`work_dir`).

use std::{
    ffi::CString,
    io,
    os::unix::{
        ffi::OsStrExt,
        fs::{DirBuilderExt, PermissionsExt},
    },
    path::{Path, PathBuf},
    sync::{Mutex, MutexGuard, PoisonError},
};

use crate::work_dir;

pub(crate) struct SessionDirectories {
    work_dir: PathBuf,
    /// How session directories are named, after this server's claim on the
    /// work directory.
    session_prefix: String,
    /// How the spare is named until a session takes it.
    spare_prefix: String,
    spare: Mutex<Spare>,
}

#[derive(Default)]
struct Spare {
    directory: Option<SessionDirectory>,
    /// Whether the server is stopping: no spare is made any more.
    stopping: bool,
}

/// A directory removed, with all it holds, when closed or dropped.
pub(crate) struct SessionDirectory {
    path: PathBuf,
    /// Whether `close` has removed it.
    closed: bool,
}

impl SessionDirectory {
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn close(mut self) -> io::Result<()> {
        self.closed = true;
        std::fs::remove_dir_all(&self.path)
    }
}

impl Drop for SessionDirectory {
    fn drop(&mut self) {
        if !self.closed {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

impl SessionDirectories {
    pub fn new(work_dir: PathBuf, session_prefix: String, spare_prefix: String) -> Self {
        Self {
            work_dir,
            session_prefix,
            spare_prefix,
            spare: Mutex::default(),
        }
    }

    /// A new session's directory, which only this user can enter: the spare,
    /// renamed, if there is one still there, else one made now. `before_log`
    /// is called before this logs anything (the session's span is entered
    /// then).
    pub fn take(&self, before_log: impl FnOnce()) -> io::Result<SessionDirectory> {
        let spare = self.spare().directory.take();
        if let Some(spare) = spare {
            match self.rename_to_session(spare) {
                Ok(directory) => return Ok(directory),
                Err(error) => {
                    before_log();
                    tracing::debug!(%error, "the spare session directory cannot be used");
                }
            }
        }
        self.make(&self.session_prefix)
    }

    /// Makes the spare, unless there is one or the server is stopping. A
    /// failure is left to the next session, which then makes its directory
    /// itself and reports why it cannot.
    pub fn make_spare(&self) {
        // Made under the lock: a session that comes meanwhile waits for it,
        // and a server that stops meanwhile removes it.
        let mut spare = self.spare();
        if spare.stopping || spare.directory.is_some() {
            return;
        }
        match self.make(&self.spare_prefix) {
            Ok(directory) => spare.directory = Some(directory),
            Err(error) => {
                tracing::debug!(%error, "cannot make a spare session directory");
            }
        }
    }

    /// Removes the spare, and makes none from now on (the server stops).
    pub fn remove_spare(&self) {
        let mut spare = self.spare();
        spare.stopping = true;
        if let Some(directory) = spare.directory.take()
            && let Err(error) = directory.close()
            && error.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(%error, "cannot remove the spare session directory");
        }
    }

    fn make(&self, prefix: &str) -> io::Result<SessionDirectory> {
        let directory = SessionDirectory {
            path: tempfile::Builder::new()
                .prefix(prefix)
                .permissions(std::fs::Permissions::from_mode(0o700))
                .tempdir_in(&self.work_dir)?
                .keep(),
            closed: false,
        };
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(work_dir::asset_directory(directory.path()))?;
        Ok(directory)
    }

    /// Renames `spare` to a session directory's name.
    fn rename_to_session(&self, mut spare: SessionDirectory) -> io::Result<SessionDirectory> {
        let suffix = spare
            .path
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_prefix(&self.spare_prefix))
            .ok_or_else(|| io::Error::other("not a spare's name"))?;
        let path = self
            .work_dir
            .join(format!("{}{suffix}", self.session_prefix));
        rename_no_replace(&spare.path, &path)?;
        spare.path = path;
        Ok(spare)
    }

    fn spare(&self) -> MutexGuard<'_, Spare> {
        self.spare.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Renames `from` to `to`, never over an existing entry (a plain rename
/// replaces an empty directory).
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    let c_path = |path: &Path| CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other);
    let (from, to) = (c_path(from)?, c_path(to)?);
    // SAFETY: both paths are NUL-terminated strings that live for the call.
    let renamed = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if renamed == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = "executor-session-t-";
    const SPARE: &str = "executor-spare-t-";

    fn directories(work_dir: &Path) -> SessionDirectories {
        SessionDirectories::new(work_dir.to_owned(), SESSION.to_owned(), SPARE.to_owned())
    }

    /// The names in `work_dir`, sorted.
    fn names(work_dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(work_dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    fn assert_private_with_assets(directory: &Path) {
        for path in [directory.to_owned(), work_dir::asset_directory(directory)] {
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", path.display());
        }
    }

    #[test]
    fn a_session_takes_the_spare_under_a_session_directorys_name() {
        let work_dir = tempfile::tempdir().unwrap();
        let directories = directories(work_dir.path());
        directories.make_spare();
        let spare = names(work_dir.path());
        assert_eq!(spare.len(), 1);
        let suffix = spare[0].strip_prefix(SPARE).expect("named as a spare");

        let taken = directories.take(|| {}).unwrap();
        assert_eq!(names(work_dir.path()), [format!("{SESSION}{suffix}")]);
        assert_private_with_assets(taken.path());

        // No spare left: the next directory is made at once.
        let second = directories.take(|| {}).unwrap();
        assert_ne!(second.path(), taken.path());
        assert!(
            names(work_dir.path())
                .iter()
                .all(|name| name.starts_with(SESSION))
        );
        assert_private_with_assets(second.path());
        taken.close().unwrap();
        drop(second);
        assert!(names(work_dir.path()).is_empty());
    }

    #[test]
    fn a_spare_removed_from_outside_is_not_given_to_a_session() {
        let work_dir = tempfile::tempdir().unwrap();
        let directories = directories(work_dir.path());
        directories.make_spare();
        std::fs::remove_dir_all(work_dir.path().join(&names(work_dir.path())[0])).unwrap();
        let taken = directories.take(|| {}).unwrap();
        assert_private_with_assets(taken.path());
    }

    #[test]
    fn there_is_one_spare_and_it_is_removed_when_the_server_stops() {
        let work_dir = tempfile::tempdir().unwrap();
        let directories = directories(work_dir.path());
        directories.make_spare();
        directories.make_spare();
        assert_eq!(names(work_dir.path()).len(), 1);
        directories.remove_spare();
        assert!(names(work_dir.path()).is_empty());
        // A session that ends while the server stops makes none.
        directories.make_spare();
        assert!(names(work_dir.path()).is_empty());
    }
}
