//! The sessions' private directories, each with its `assets` directory, one
//! made ahead: a new session takes the spare, made while no client waited
//! for it (on a disk file system, making the two directories takes a
//! quarter of a millisecond), and the next spare is made once a session
//! ends. The spare is named as the sessions' directories are: renaming it
//! as a session takes it would cost a tenth of a millisecond more on the
//! way to every welcome. So the work directory holds the live sessions'
//! directories and at most one more, empty but for its empty `assets`. The
//! server removes the spare when it stops, and the next server removes one
//! left by a server that was killed (`work_dir`).

use std::{
    fs::File,
    io,
    os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt},
    path::{Path, PathBuf},
    sync::{Mutex, MutexGuard, PoisonError},
};

use crate::work_dir;

pub(crate) struct SessionDirectories {
    work_dir: PathBuf,
    /// How session directories are named, after this server's claim on the
    /// work directory.
    prefix: String,
    spare: Mutex<Spare>,
}

#[derive(Default)]
struct Spare {
    directory: Option<SpareDirectory>,
    /// Whether the server is stopping: no spare is made any more.
    stopping: bool,
}

/// The spare, and the directory itself, open: whether it is still there is
/// asked of the open directory, not of its path.
struct SpareDirectory {
    directory: SessionDirectory,
    open: File,
}

impl SpareDirectory {
    /// Whether the directory still exists (the work directory may have been
    /// cleaned from outside meanwhile, by `systemd-tmpfiles` say).
    fn still_there(&self) -> bool {
        self.open
            .metadata()
            .is_ok_and(|metadata| metadata.nlink() > 0)
    }
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
    pub fn new(work_dir: PathBuf, prefix: String) -> Self {
        Self {
            work_dir,
            prefix,
            spare: Mutex::default(),
        }
    }

    /// A new session's directory, which only this user can enter: the spare,
    /// if it is still there, else one made now. `before_log` is called
    /// before this logs anything (the session's span is entered then).
    pub fn take(&self, before_log: impl FnOnce()) -> io::Result<SessionDirectory> {
        let spare = self.spare().directory.take();
        if let Some(spare) = spare {
            if spare.still_there() {
                return Ok(spare.directory);
            }
            before_log();
            tracing::debug!(directory = %spare.directory.path().display(), "the spare session directory was removed from outside");
        }
        self.make()
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
        let made = self.make().and_then(|directory| {
            let open = File::open(directory.path())?;
            Ok(SpareDirectory { directory, open })
        });
        match made {
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
        if let Some(spare) = spare.directory.take()
            && let Err(error) = spare.directory.close()
            && error.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(%error, "cannot remove the spare session directory");
        }
    }

    fn make(&self) -> io::Result<SessionDirectory> {
        let directory = SessionDirectory {
            path: tempfile::Builder::new()
                .prefix(&self.prefix)
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

    fn spare(&self) -> MutexGuard<'_, Spare> {
        self.spare.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = "executor-session-t-";

    fn directories(work_dir: &Path) -> SessionDirectories {
        SessionDirectories::new(work_dir.to_owned(), SESSION.to_owned())
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
    fn a_session_takes_the_spare_as_it_is() {
        let work_dir = tempfile::tempdir().unwrap();
        let directories = directories(work_dir.path());
        directories.make_spare();
        let spare = names(work_dir.path());
        assert_eq!(spare.len(), 1);
        assert!(spare[0].starts_with(SESSION), "{spare:?}");

        let taken = directories.take(|| {}).unwrap();
        assert_eq!(taken.path(), work_dir.path().join(&spare[0]));
        assert_eq!(names(work_dir.path()), spare);
        assert_private_with_assets(taken.path());

        // No spare left: the next directory is made at once.
        let second = directories.take(|| {}).unwrap();
        assert_ne!(second.path(), taken.path());
        assert_eq!(names(work_dir.path()).len(), 2);
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
        let spare = work_dir.path().join(&names(work_dir.path())[0]);
        std::fs::remove_dir_all(&spare).unwrap();
        let taken = directories.take(|| {}).unwrap();
        assert_ne!(taken.path(), spare);
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
